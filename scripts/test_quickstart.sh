#!/usr/bin/env bash
# The README's quick start, line by line as a new user types it (in a scratch folder that
# links the build, the samples and .venv), then the output folder opened as one dataset by
# every reader users have: pyarrow (read_table and dataset), polars (read and scan) and
# DuckDB, each expected to see every row the manifests count.
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
echo "quick start: ok"
