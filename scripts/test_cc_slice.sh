#!/usr/bin/env bash
# `make eval-cc`: `make cc-slice` against a local HTTP server holding a Common Crawl-shaped tree
# made from the sample WARCs; the server cuts one download off midway, which must resume.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m target/cc-test)
rm -rf "$work"
crawl=CC-MAIN-TEST-01
www="$work/www"
seg="crawl-data/$crawl/segments/1700000000000.00/warc"
mkdir -p "$www/$seg"
: > "$work/paths"
for i in 0 1 2 3; do
  name="$crawl-2024000000000-0000$i.warc.gz"
  # Bigger files than the samples, so that a cut leaves a real partial download.
  for _ in $(seq 40); do cat sample-warcs/articles.warc.gz sample-warcs/listings.warc.gz; done > "$www/$seg/$name"
  echo "$seg/$name" >> "$work/paths"
done
gzip -c "$work/paths" > "$www/crawl-data/$crawl/warc.paths.gz"

python3 scripts/cc_test_server.py "$www" "$work/port" "$work/requests.log" "00001.warc.gz" 300000 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")

make --no-print-directory cc-slice CRAWL=$crawl FIRST=1 COUNT=2 CC_BASE="http://127.0.0.1:$port" \
  CC_DIR="$work/data" CC_OUT="$work/out" CC_RETRY_DELAY=0 PROCESS_FLAGS=--quiet

for i in 1 2; do
  name="$seg/$crawl-2024000000000-0000$i.warc.gz"
  cmp "$www/$name" "$work/data/$name"
done
[ ! -e "$work/data/$seg/$crawl-2024000000000-00000.warc.gz" ] || { echo "cc test: fetched outside the slice" >&2; exit 1; }
grep -q "00001.warc.gz range=bytes=300000-" "$work/requests.log" || { echo "cc test: the cut download was not resumed" >&2; cat "$work/requests.log" >&2; exit 1; }
target/release/goce-warc summary "$work/out" --paths <(gzip -dc "$www/crawl-data/$crawl/warc.paths.gz" | sed -n 2,3p) --prefix "$work/data"
echo "cc test: passed (2 files fetched, one resumed at byte 300000, both processed)"
