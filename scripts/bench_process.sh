#!/usr/bin/env bash
# End-to-end `goce-warc process` on a benchmark WARC with 1 and 2 worker threads:
# wall time, pages/s and peak RSS (GNU time). Usage: scripts/bench_process.sh WARC
set -euo pipefail
warc=${1:?usage: bench_process.sh WARC}
bin=${BIN:-target/release/goce-warc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-8s %10s %10s %12s\n' threads seconds pages/s "peak RSS MB"
for threads in 1 2; do
  stats="$out/stats-$threads.json"
  /usr/bin/time -f '%e %M' -o "$out/time" "$bin" process "$warc" --out "$out/p$threads" --quiet -j "$threads" --stats "$stats"
  read -r secs rss < "$out/time"
  pages=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['counts']['pages'])" "$stats")
  python3 -c "import sys; s,p,r=float(sys.argv[1]),int(sys.argv[2]),int(sys.argv[3]); print(f'{sys.argv[4]:<8} {s:10.2f} {p/s:10.0f} {r/1024:12.0f}')" "$secs" "$pages" "$rss" "$threads"
done
