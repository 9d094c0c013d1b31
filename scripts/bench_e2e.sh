#!/usr/bin/env bash
# `make bench-e2e`: end-to-end throughput and memory on big inputs. Builds (once) a big WARC
# file from WCXB-dev with ../shared/tools/make_warc.py --repeat --shuffle (15 copies, ~22,000
# pages, just over 1 GB gzip) and a small one, its first 136 MB cut after a record (~3,000
# pages: the same pages in the same order, so the two differ only in length), then runs
# scripts/bench_process.sh on both in four modes (lite + CPU ResNet, the same without the
# network's forward pass, lite + html-features, extraction only) with 1 and 2 threads.
# Peak RSS should not grow with the input: last, the big input's peak against the peaks of
# each of its 136 MB slices.
set -euo pipefail
shared=${SHARED:-../shared}
dir=target/data
mkdir -p "$dir"
make_warc() {  # REPEAT OUT
  [ -s "$2" ] || python3 "$shared/tools/make_warc.py" "$shared/data/wcxb-dev" --repeat "$1" --shuffle -o "$2"
}
make_warc 15 "$dir/e2e-big.warc.gz"
# Cut the big file into consecutive slices of 136 MB, after whole records; the first is the
# small input. Cut again whenever the big file is newer (rebuilt, or left by an older version).
if [ ! "$dir/e2e-slice-1.warc.gz" -nt "$dir/e2e-big.warc.gz" ]; then
  rm -f "$dir"/e2e-slice-*.warc.gz  # an older cut may have had more slices
  python3 - "$dir/e2e-big.warc.gz" "$dir/e2e-slice-" 136000000 <<'EOF'
import sys, zlib
big, prefix, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(big, "rb") as src:
    size, n = src.seek(0, 2), 0
    src.seek(0)
    while src.tell() < size:
        n += 1
        with open(f"{prefix}{n}.warc.gz", "wb") as dst:
            begin = src.tell()
            while src.tell() < size and src.tell() - begin < limit:  # one gzip member per record
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
fi
ln -f "$dir/e2e-slice-1.warc.gz" "$dir/e2e-small.warc.gz"
for warc in "$dir/e2e-small.warc.gz" "$dir/e2e-big.warc.gz"; do
  printf '\n%s: %s MB gzip\n' "$warc" "$(( $(stat -c %s "$warc") / 1000000 ))"
  bash scripts/bench_process.sh "$warc" ${E2E_MODES:-resnet cpu-stages html-features extract}
done

# Peak RSS, -j 2: the big input against each of its own 136 MB slices (the same records in
# the same order), E2E_RSS_RUNS rounds. A peak that grew with the input would put the big
# input above every slice; one set by which pages meet in memory lands among them.
bin=${BIN:-target/release/goce-warc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$(dirname "$0")/bench_modes.sh"
for mode in ${E2E_RSS_MODES:-resnet html-features extract}; do
  for run in $(seq "${E2E_RSS_RUNS:-1}"); do
    line="peak RSS MB, $mode, -j 2, run $run: slices"
    for warc in $(ls "$dir"/e2e-slice-*.warc.gz | sort -V) "$dir/e2e-big.warc.gz"; do
      [ "$warc" = "$dir/e2e-big.warc.gz" ] && line="$line; big"
      # shellcheck disable=SC2086
      /usr/bin/time -f '%M' -o "$out/time" "$bin" process "$warc" --out "$out/p" --overwrite --quiet -j 2 ${flags[$mode]}
      line="$line $(( $(cat "$out/time") / 1024 ))"
    done
    echo "$line"
  done
done
