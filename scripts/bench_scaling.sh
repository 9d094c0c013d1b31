#!/usr/bin/env bash
# How the rate per worker changes with the worker count, and why (`make bench-scaling`;
# `make bench-gpu` runs it too). Three tables over the same WARC files:
#  1. one process, -j N (N from WORKERS): pages/s, per worker, the worker threads' CPU
#     seconds (--stats workers_cpu) per page, and busy = workers_cpu / (wall x N). CPU per
#     page rising with N: the cores get slower or contend; busy falling: workers wait.
#     Extraction only, then the default (on CUDA when DEVICE=cuda).
#  2. N independent processes, -j 1 each, on the first file: the cores' scaling without any
#     sharing inside goce-warc.
#  3. N python processes, a fixed integer loop and a 512 MB numpy copy: the machine alone.
# Usage: scripts/bench_scaling.sh WARC...   Environment: BIN, WORKERS (default: 1, 2, 4, ... and
# all cores),
# DEVICE (default cpu), WORK.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: bench_scaling.sh WARC..." >&2; exit 2; }
bin=${BIN:-target/release/goce-warc}
cores=$(nproc)
default_workers=""
for ((w = 1; w < cores; w *= 2)); do default_workers+="$w "; done
workers=${WORKERS:-"$default_workers$cores"}
device=${DEVICE:-cpu}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f '%M' -o "$work/rss")

row() {  # MODE WORKERS STATS
  python3 - "$1" "$2" "$3" "$work/rss" <<'PY'
import json, os, sys
name, j, path, rss = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
s = json.load(open(path)); st = s["stage_seconds"]
pages, wall, cpu = s["counts"]["pages"], s["seconds"], st["workers_cpu"]
mb = f"{int(open(rss).read()) / 1024:.0f}" if os.path.exists(rss) else "-"
print(f"{name:<14} {j:>3} {pages:>6} {wall:7.1f} {pages / wall:7.0f} {pages / wall / j:7.0f} {cpu:8.1f} {1000 * cpu / pages:8.2f} "
      f"{cpu / (wall * j):6.2f} {st['reader_cpu']:6.1f} {st['waiting_for_reader']:6.1f} {st['pipeline_full']:6.1f} {st['classify']:6.1f} {mb:>6}")
PY
}

echo "== 1. one process, -j N"
printf '%-14s %3s %6s %7s %7s %7s %8s %8s %6s %6s %6s %6s %6s %6s\n' mode j pages wall pages/s per-wkr wkr-cpu ms/page busy rdrcpu rdwait full classify RSS
for mode in extract default; do
  flags=(--classifier none)
  [ "$mode" = default ] && flags=(--device "$device")
  for j in $workers; do
    rm -f "$work/rss"
    "${timer[@]}" "$bin" process "$@" --out "$work/out" --overwrite --quiet -j "$j" "${flags[@]}" --stats "$work/stats.json"
    row "$mode" "$j" "$work/stats.json"
  done
done

echo "== 2. N independent processes, -j 1 --classifier none each, on $1"
for n in $workers; do
  start=$(date +%s.%N)
  pids=()
  for k in $(seq 1 "$n"); do
    "$bin" process "$1" --out "$work/p$k" --overwrite --quiet -j 1 --classifier none --stats "$work/p$k.json" &
    pids+=($!)
  done
  wait "${pids[@]}"
  python3 - "$n" "$start" "$(date +%s.%N)" "$work" <<'PY'
import json, sys
n, start, end, work = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
stats = [json.load(open(f"{work}/p{k}.json")) for k in range(1, n + 1)]
rates = [s["counts"]["pages"] / s["seconds"] for s in stats]
cpu = [1000 * s["stage_seconds"]["workers_cpu"] / s["counts"]["pages"] for s in stats]
print(f"{n:>2} processes: wall {end - start:5.1f} s; pages/s per process mean {sum(rates) / n:5.0f} (min {min(rates):.0f}); worker CPU ms/page mean {sum(cpu) / n:.2f}")
PY
done

echo "== 3. the machine alone: N python processes, a 20M-step integer loop, then 10 copies of a 512 MB array"
for n in $workers; do
  python3 - "$n" <<'PY'
import sys, time
from multiprocessing import Pool
def spin(_):
    start, x = time.perf_counter(), 0
    for i in range(20_000_000):
        x += i * i
    return time.perf_counter() - start
def stream(_):
    import numpy as np
    a = np.ones(64 << 20); b = np.empty_like(a)
    start = time.perf_counter()
    for _ in range(10):
        np.copyto(b, a)
    return time.perf_counter() - start
n = int(sys.argv[1])
with Pool(n) as pool:
    loops = pool.map(spin, range(n))
    try:
        copies = pool.map(stream, range(n))
    except ImportError:
        copies = None
line = f"{n:>2} processes: loop {sum(loops) / n:5.2f} s each (max {max(loops):.2f})"
if copies:
    line += f"; copy {sum(copies) / n:5.2f} s each -> {n * 10 * 2 * 512 / 1024 / max(copies):6.1f} GB/s together"
print(line)
PY
done
