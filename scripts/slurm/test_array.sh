#!/usr/bin/env bash
# `make eval-slurm`: goce-warc as a Slurm job array on a real single-node cluster (started here,
# stopped on exit). 1) A 4-task array over 9 WARC files gives the same rows as one process.
# 2) Task 1 is killed (SIGKILL) midway; `summary` reports its input missing; resubmitting the same
# array completes the output with no row lost or repeated and no temporary file left.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(realpath target/release/goce-warc)
# -s: the venv's python is a symlink; resolving it would lose the venv (and pyarrow).
python=$(realpath -s "${PYTHON:-.venv/bin/python}")
work=$(realpath -m target/slurm-test)
rm -rf "$work"
mkdir -p "$work/warcs" "$work/logs"
state="$work/cluster"
trap 'bash scripts/slurm/local-cluster.sh stop "$state"' EXIT
bash scripts/slurm/local-cluster.sh start "$state"
export SLURM_CONF="$state/slurm.conf" GOCE_WARC="$bin"

# Inputs: 8 small files and one long one (the article sample 1,500 times), listed so that the
# long one falls to task 1 of 4.
python3 - "$work/warcs" <<'PY'
import shutil, sys
from pathlib import Path
out = Path(sys.argv[1])
names = []
for i in range(3):
    for sample in ("articles.warc.gz", "listings.warc.gz", "encodings.warc"):
        stem, rest = sample.split(".", 1)
        names.append(f"{stem}-{i}.{rest}")
        shutil.copy(f"sample-warcs/{sample}", out / names[-1])
names.remove("encodings-2.warc")
(out / "long.warc.gz").write_bytes(Path("sample-warcs/articles.warc.gz").read_bytes() * 1500)
names.insert(1, "long.warc.gz")
(out / "warc.paths").write_text("".join(n + "\n" for n in names))
print(f"slurm test: {len(names)} WARC files")
PY
paths="$work/warcs/warc.paths"
flags=(--renderer lite --extractor goce --classifier html-features --rows-per-shard 500)

"$bin" process --paths "$paths" --prefix "$work/warcs" --out "$work/single" --quiet "${flags[@]}"

wait_job() {  # until no task of the job is pending or running
  local job=$1
  for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  echo "slurm test: job $job did not finish" >&2
  return 1
}
submit() {
  sbatch --parsable --array=0-3 --cpus-per-task=1 --output="$work/logs/%A_%a.log" \
    scripts/slurm/goce-warc.sbatch "$paths" "$work/warcs" "$1" "${flags[@]}"
}
compare() {
  "$python" - "$work/single" "$1" <<'PY'
import sys
from pathlib import Path
import pyarrow.parquet as pq
def rows(d):
    t = pq.read_table(d, columns=["warc_file", "warc_offset", "url", "text"])
    return sorted(zip(*(t.column(c).to_pylist() for c in t.column_names)))
single, array = rows(sys.argv[1]), rows(sys.argv[2])
keys = [(r[0], r[1]) for r in array]
assert len(set(keys)) == len(keys), "a record appears twice"
assert array == single, f"rows differ: {len(array)} from the array, {len(single)} from one process"
assert not list(Path(sys.argv[2]).glob(".*tmp-*")), "temporary files left"
print(f"slurm test: {len(array)} rows, the same as one process, none twice")
PY
}

# 1) A plain array run.
job=$(submit "$work/array")
wait_job "$job"
"$bin" summary "$work/array" --paths "$paths" --prefix "$work/warcs"
compare "$work/array"

# 2) Task 1 (the long input) killed midway, then the array resubmitted.
job=$(submit "$work/killed")
for _ in $(seq 600); do
  ls "$work/killed"/long.part-00001.parquet >/dev/null 2>&1 && break
  sleep 0.1
done
scancel --signal=KILL --full "${job}_1"
wait_job "$job"
if "$bin" summary "$work/killed" --paths "$paths" --prefix "$work/warcs"; then
  echo "slurm test: the killed task's input should be missing" >&2
  exit 1
fi
job=$(submit "$work/killed")
wait_job "$job"
"$bin" summary "$work/killed" --paths "$paths" --prefix "$work/warcs"
compare "$work/killed"
echo "slurm test: passed"
