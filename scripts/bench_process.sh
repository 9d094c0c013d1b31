#!/usr/bin/env bash
# End-to-end `goce-warc process` on a benchmark WARC with 1 and 2 worker threads, in five
# modes: the default (lite renderer + CPU ResNet), the same without the network's forward
# pass (cpu-stages: what a GPU node's cores do), lite + html-features, GOCE extraction with
# no classifier, and all-text. Wall time, pages/s, peak RSS (GNU time), and pages per
# CPU-second of every stage but the network (`pages_per_stage_cpu_second` of --stats).
# Usage: scripts/bench_process.sh WARC [MODE...]
set -euo pipefail
warc=${1:?usage: bench_process.sh WARC [resnet|cpu-stages|html-features|extract|all-text ...]}
shift
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(resnet cpu-stages html-features extract all-text)
bin=${BIN:-target/release/goce-warc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$(dirname "$0")/bench_modes.sh"
printf '%-14s %-8s %10s %10s %12s %14s\n' mode threads seconds pages/s "peak RSS MB" "pages/CPU-s"
for mode in "${modes[@]}"; do
  for threads in 1 2; do
    stats="$out/stats-$mode-$threads.json"
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %M' -o "$out/time" "$bin" process "$warc" --out "$out/p-$mode-$threads" --quiet -j "$threads" --stats "$stats" ${flags[$mode]}
    read -r secs rss < "$out/time"
    python3 - "$stats" "$secs" "$rss" "$threads" "$mode" <<'EOF'
import json, sys
stats, secs, rss, threads, mode = json.load(open(sys.argv[1])), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
print(f"{mode:<14} {threads:<8} {secs:10.2f} {stats['counts']['pages'] / secs:10.0f} {rss / 1024:12.0f} {stats['pages_per_stage_cpu_second']:14.0f}")
EOF
  done
done
