#!/usr/bin/env bash
# `make bench-e2e`: end-to-end throughput and memory on big inputs. Builds (once) two WARC
# files from WCXB-dev with ../shared/tools/make_warc.py --repeat --shuffle: a small one
# (2 copies, ~3,000 pages) and a big one (14 copies, ~21,000 pages, about 1 GB gzip), then runs
# scripts/bench_process.sh on both in three modes (lite + CPU ResNet, lite + html-features,
# extraction only) with 1 and 2 threads. Peak RSS should not grow with the input.
set -euo pipefail
shared=${SHARED:-../shared}
dir=target/data
mkdir -p "$dir"
make_warc() {  # REPEAT OUT
  [ -s "$2" ] || python3 "$shared/tools/make_warc.py" "$shared/data/wcxb-dev" --repeat "$1" --shuffle -o "$2"
}
make_warc 2 "$dir/e2e-small.warc.gz"
make_warc 14 "$dir/e2e-big.warc.gz"
for warc in "$dir/e2e-small.warc.gz" "$dir/e2e-big.warc.gz"; do
  printf '\n%s: %s MB gzip\n' "$warc" "$(( $(stat -c %s "$warc") / 1000000 ))"
  bash scripts/bench_process.sh "$warc" ${E2E_MODES:-resnet html-features extract}
done
