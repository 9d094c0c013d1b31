#!/usr/bin/env bash
# `make bench-gpu`, on a node with an NVIDIA GPU and the CUDA LibTorch (`TORCH=cuda make setup`):
#  1. the CUDA path is checked: the shipped ResNet classifies the held-out WCXB-dev pages
#     (every fifth by id) on the CPU and on CUDA (half precision); page types and genres must
#     agree, and the largest probability difference is printed;
#  2. the classify bench's resnet-cuda group: images/s at batch 64, 128 and 256;
#  3. `goce-warc process` end to end on COPIES WARC files built from WCXB-dev
#     (../shared/tools/make_warc.py --shuffle, one seed per file): GPU inference with several
#     worker counts, beside extraction only and the CPU ResNet on all cores; pages/s, peak RSS
#     and the GPU's mean utilisation;
#  4. scripts/bench_scaling.sh over two of those files: the rate per worker from 1 worker to
#     all cores, with the CPU per page and how busy the workers are, beside the machine's
#     own scaling.
# Environment: BIN, BENCH_BIN (the built classify bench), PAGES (a WCXB-style folder),
# MAKE_WARC, COPIES (default 8, ~12,000 pages), THREADS (default "4 8 all cores"), WORK.
set -euo pipefail
bin=${BIN:-target/release/goce-warc}
bench_bin=${BENCH_BIN:?set BENCH_BIN to the classify bench executable (make bench-gpu does)}
pages=${PAGES:-../shared/data/wcxb-dev}
make_warc=${MAKE_WARC:-../shared/tools/make_warc.py}
copies=${COPIES:-8}
cores=$(nproc)
threads_list=${THREADS:-"4 8 $cores"}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
printf '%s cores: %s\n' "$cores" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"

echo "== 1. CPU and CUDA give the same predictions (held-out WCXB-dev pages)"
mapfile -t held_out < <(find "$pages/html" -maxdepth 1 -type f | sort | awk 'NR % 5 == 0')
"$bin" classify --json --device cpu "${held_out[@]}" > "$work/classify-cpu.jsonl"
"$bin" classify --json --device cuda "${held_out[@]}" > "$work/classify-cuda.jsonl"
python3 - "$work/classify-cpu.jsonl" "$work/classify-cuda.jsonl" <<'PY'
import json, sys
cpu, gpu = ([json.loads(line) for line in open(path)] for path in sys.argv[1:3])
assert len(cpu) == len(gpu) > 0, (len(cpu), len(gpu))
types = sum(a["page_type"] == b["page_type"] for a, b in zip(cpu, gpu))
genres = sum(a["genre"] == b["genre"] for a, b in zip(cpu, gpu))
diff = max(abs(a["probabilities"][t] - b["probabilities"][t]) for a, b in zip(cpu, gpu) for t in a["probabilities"])
print(f"{len(cpu)} pages: page type agrees on {types}, genre on {genres}; largest probability difference {diff:.4f}")
sys.exit(0 if genres == len(cpu) and diff < 0.05 else 1)
PY

echo "== 2. ResNet forward pass on CUDA (criterion, half precision)"
GOCE_BENCH_CUDA=1 GOCE_BENCH_PAGES="$pages" "$bench_bin" --bench resnet-cuda

echo "== 3. process end to end ($copies WARC files from WCXB-dev)"
for i in $(seq 1 "$copies"); do
  [ -s "$work/wcxb-$i.warc.gz" ] || python3 "$make_warc" "$pages" --shuffle --seed "$i" -o "$work/wcxb-$i.warc.gz" > /dev/null &
done
wait
du -ch "$work"/wcxb-*.warc.gz | tail -1
run() {  # NAME THREADS FLAGS...
  local name=$1 threads=$2
  shift 2
  nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 250 > "$work/util" &
  local smi=$!
  local timer=()
  [ -x /usr/bin/time ] && timer=(/usr/bin/time -f '%M' -o "$work/rss")
  rm -f "$work/rss"
  "${timer[@]}" "$bin" process "$work"/wcxb-*.warc.gz --out "$work/out-$name-$threads" --overwrite --quiet -j "$threads" --stats "$work/stats.json" "$@"
  kill "$smi"
  wait "$smi" 2> /dev/null || true
  python3 - "$work/stats.json" "$work/util" "$work/rss" "$name" "$threads" <<'PY'
import json, os, sys
stats = json.load(open(sys.argv[1]))
util = [float(x) for x in open(sys.argv[2]).read().split() if x.strip()]
rss = f"{int(open(sys.argv[3]).read()) / 1024:.0f}" if os.path.exists(sys.argv[3]) else "-"
pages, secs = stats["counts"]["pages"], stats["seconds"]
busy = f"{sum(util) / len(util):.0f}%" if util else "-"
stage = stats.get("stage_seconds", {})
waits = " ".join(f"{stage.get(k, 0):6.1f}" for k in ("waiting_for_reader", "pipeline_full", "classify", "write"))
print(f"{sys.argv[4]:<22} {sys.argv[5]:>7} {pages:>7} {secs:8.1f} {pages / secs:8.0f} {pages / secs / int(sys.argv[5]):8.0f} {rss:>9} {busy:>8}  {waits}")
PY
}
echo "(the last four columns, seconds: the next batch waiting for the reader, or for a free place in the pipeline; the writer thread classifying and writing)"
printf '%-22s %7s %7s %8s %8s %8s %9s %8s  %s\n' mode workers pages seconds pages/s per-core "RSS MB" "GPU busy" "reader   full classify  write"
for threads in $threads_list; do
  run lite+resnet-cuda "$threads" --device cuda
done
run extraction-only "$cores" --classifier none
run lite+resnet-cpu "$cores" --device cpu

echo "== 4. scaling with the worker count (scripts/bench_scaling.sh)"
DEVICE=cuda BIN="$bin" WORK="$work/scaling" bash "$(dirname "$0")/bench_scaling.sh" "$work/wcxb-1.warc.gz" "$work/wcxb-2.warc.gz"
