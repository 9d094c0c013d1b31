#!/usr/bin/env bash
# The README's quick start, line by line as a new user types it (in a scratch folder that
# links the build, the samples and .venv), then the output folder opened as one dataset by
# every reader users have: pyarrow (read_table and dataset), polars (read and scan) and
# DuckDB, then the corpus tools as the README shows them: datatrove's ParquetReader and Hugging
# Face datasets (pinned in scripts/requirements-readers.txt, installed into
# target/readers-venv), each expected to see every row the manifests count.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$root/target" "$root/sample-warcs" "$root/.venv" "$work/"

# The first fenced block under "## Quick start".
mapfile -t lines < <(awk '/^## Quick start/{q=1; next} q && /^## /{exit} q && /^```/{if (b) exit; b=1; next} q && b' "$root/README.md")
[ "${#lines[@]}" -gt 0 ] || { echo "no quick start block in README.md" >&2; exit 1; }
cd "$work"
for line in "${lines[@]}"; do
  echo "\$ $line"
  bash -c "$line" || { echo "quick start line failed: $line" >&2; exit 1; }
done

pages=$(target/release/goce-warc summary parquet/ --json | .venv/bin/python -c 'import json,sys; print(json.load(sys.stdin)["counts"]["pages"])')
.venv/bin/python - "$pages" <<'PY'
import sys
import duckdb
import polars as pl
import pyarrow.dataset as ds
import pyarrow.parquet as pq

pages = int(sys.argv[1])
counts = {
    "pyarrow read_table": pq.read_table("parquet/").num_rows,
    "pyarrow dataset": ds.dataset("parquet/").count_rows(),
    "polars read_parquet": pl.read_parquet("parquet/").height,
    "polars scan_parquet": pl.scan_parquet("parquet/").select(pl.len()).collect().item(),
    "duckdb": duckdb.sql("select count(*) from 'parquet/*.parquet'").fetchall()[0][0],
}
print(f"manifests: {pages} pages; " + ", ".join(f"{k}: {v}" for k, v in counts.items()))
assert pages > 0, "the samples give pages"
bad = {k: v for k, v in counts.items() if v != pages}
assert not bad, f"readers disagree with the manifests ({pages} pages): {bad}"
PY

# The corpus tools, as the README's "Reading the folder elsewhere" shows them.
readers="$root/target/readers-venv"
[ -x "$readers/bin/python" ] || python3 -m venv "$readers"
"$readers/bin/pip" install -q --disable-pip-version-check -r "$root/scripts/requirements-readers.txt"
HF_HOME="$work/hf" "$readers/bin/python" - "$pages" <<'PY'
import sys

import pyarrow.parquet as pq
from datasets import load_dataset
from datasets.utils.logging import disable_progress_bar
from datatrove.pipeline.readers import ParquetReader
from loguru import logger

disable_progress_bar()
logger.remove()  # datatrove's per-file lines
pages = int(sys.argv[1])
rows = {r["warc_record_id"]: r["text"] for r in pq.read_table("parquet/", columns=["warc_record_id", "text"]).to_pylist()}
docs = list(ParquetReader("parquet/", text_key="text", id_key="warc_record_id")())
assert len(docs) == pages, f"datatrove read {len(docs)} documents, the manifests count {pages} pages"
assert all(rows.get(d.id) == d.text for d in docs), "datatrove's documents are the rows' texts under their WARC record ids"
assert all("url" in d.metadata and "genre" in d.metadata for d in docs), "the other columns are the documents' metadata"
dataset = load_dataset("parquet", data_dir="parquet/", split="train")
assert dataset.num_rows == pages, f"datasets read {dataset.num_rows} rows, the manifests count {pages} pages"
assert sorted(dataset["warc_record_id"]) == sorted(rows), "datasets reads the same rows"
print(f"corpus tools: datatrove {len(docs)} documents, datasets {dataset.num_rows} rows")
PY
echo "quick start: ok"
