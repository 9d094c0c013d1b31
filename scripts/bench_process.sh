#!/usr/bin/env bash
# End-to-end `goce-warc process` on a benchmark WARC with 1 and 2 worker threads, in four
# modes: the default (lite renderer + CPU ResNet), lite + html-features, GOCE extraction with
# no classifier, and all-text. Wall time, pages/s and peak RSS (GNU time).
# Usage: scripts/bench_process.sh WARC [MODE...]
set -euo pipefail
warc=${1:?usage: bench_process.sh WARC [resnet|html-features|extract|all-text ...]}
shift
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(resnet html-features extract all-text)
bin=${BIN:-target/release/goce-warc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
declare -A flags=(
  [resnet]="--device cpu"
  [html-features]="--classifier html-features --renderer lite"
  [extract]="--classifier none"
  [all-text]="--classifier none --extractor all-text"
)
printf '%-14s %-8s %10s %10s %12s\n' mode threads seconds pages/s "peak RSS MB"
for mode in "${modes[@]}"; do
  for threads in 1 2; do
    stats="$out/stats-$mode-$threads.json"
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %M' -o "$out/time" "$bin" process "$warc" --out "$out/p-$mode-$threads" --quiet -j "$threads" --stats "$stats" ${flags[$mode]}
    read -r secs rss < "$out/time"
    pages=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['counts']['pages'])" "$stats")
    python3 -c "import sys; s,p,r=float(sys.argv[1]),int(sys.argv[2]),int(sys.argv[3]); print(f'{sys.argv[5]:<14} {sys.argv[4]:<8} {s:10.2f} {p/s:10.0f} {r/1024:12.0f}')" "$secs" "$pages" "$rss" "$threads" "$mode"
  done
done
