#!/usr/bin/env bash
# `make bench-e2e`: end-to-end throughput and memory on big inputs. Builds (once) a big WARC
# file from WCXB-dev with ../shared/tools/make_warc.py --repeat --shuffle (15 copies, ~22,000
# pages, just over 1 GB gzip) and a small one, its first 136 MB cut after a record (~3,000
# pages: the same pages in the same order, so the two differ only in length), then runs
# scripts/bench_process.sh on both in three modes (lite + CPU ResNet, lite + html-features,
# extraction only) with 1 and 2 threads. Peak RSS should not grow with the input.
set -euo pipefail
shared=${SHARED:-../shared}
dir=target/data
mkdir -p "$dir"
make_warc() {  # REPEAT OUT
  [ -s "$2" ] || python3 "$shared/tools/make_warc.py" "$shared/data/wcxb-dev" --repeat "$1" --shuffle -o "$2"
}
make_warc 15 "$dir/e2e-big.warc.gz"
# Cut again whenever the big file is newer (rebuilt, or left by an older version of this script).
[ "$dir/e2e-small.warc.gz" -nt "$dir/e2e-big.warc.gz" ] || python3 - "$dir/e2e-big.warc.gz" "$dir/e2e-small.warc.gz" 136000000 <<'EOF'
import sys, zlib
big, small, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(big, "rb") as src, open(small, "wb") as dst:
    while src.tell() < limit:  # one gzip member per record: copy whole members
        start, member = src.tell(), zlib.decompressobj(31)
        while not member.eof:
            chunk = src.read(1 << 18)
            if not chunk:
                sys.exit(f"{big}: the record at byte {start} is cut short")
            member.decompress(chunk)
        src.seek(-len(member.unused_data), 1)
        end = src.tell()
        src.seek(start)
        dst.write(src.read(end - start))
EOF
for warc in "$dir/e2e-small.warc.gz" "$dir/e2e-big.warc.gz"; do
  printf '\n%s: %s MB gzip\n' "$warc" "$(( $(stat -c %s "$warc") / 1000000 ))"
  bash scripts/bench_process.sh "$warc" ${E2E_MODES:-resnet html-features extract}
done
