#!/usr/bin/env bash
# Fetch a slice of a Common Crawl crawl and process it (`make cc-slice`).
#   scripts/cc_slice.sh CRAWL FIRST COUNT
# Environment: CC_BASE (default https://data.commoncrawl.org), CC_DIR (downloads, default
# data/cc), CC_OUT (output, default out/CRAWL), GOCE_WARC (binary), CC_SLURM=1 to submit a
# Slurm array (one task per file) instead of processing here, PROCESS_FLAGS (extra flags).
# Downloads go to NAME.part and are renamed when complete; an interrupted download resumes
# from where it stopped (HTTP range), and each file is retried up to CC_RETRIES times.
set -euo pipefail
crawl=${1:?CRAWL, e.g. CC-MAIN-2024-51} first=${2:?FIRST} count=${3:?COUNT}
base=${CC_BASE:-https://data.commoncrawl.org}
dir=${CC_DIR:-data/cc}
out=${CC_OUT:-out/$crawl}
bin=${GOCE_WARC:-target/release/goce-warc}
retries=${CC_RETRIES:-5}

fetch() {  # URL DEST: resumable, retried, atomic
  local url=$1 dest=$2 attempt rc
  [ -f "$dest" ] && return 0
  mkdir -p "$(dirname "$dest")"
  for attempt in $(seq "$retries"); do
    rc=0
    curl -fsS --connect-timeout 20 -C - -o "$dest.part" "$url" || rc=$?
    if [ "$rc" = 0 ]; then
      mv "$dest.part" "$dest"
      return 0
    fi
    # 33: the server cannot resume; start the file again.
    [ "$rc" = 33 ] && rm -f "$dest.part"
    echo "cc-slice: $url: curl exit $rc (attempt $attempt of $retries)" >&2
    sleep "${CC_RETRY_DELAY:-2}"
  done
  echo "cc-slice: giving up on $url" >&2
  return 1
}

paths_gz="$dir/crawl-data/$crawl/warc.paths.gz"
fetch "$base/crawl-data/$crawl/warc.paths.gz" "$paths_gz"
slice="$dir/crawl-data/$crawl/slice-$first-$count.paths"
gzip -dc "$paths_gz" | tail -n +"$((first + 1))" | head -n "$count" > "$slice"
echo "cc-slice: $(wc -l < "$slice") WARC files of $crawl from #$first"
while read -r path; do
  fetch "$base/$path" "$dir/$path"
done < "$slice"
mkdir -p "$out"
if [ "${CC_SLURM:-0}" = 1 ]; then
  n=$(wc -l < "$slice")
  sbatch --array=0-$((n - 1)) scripts/slurm/goce-warc.sbatch "$slice" "$dir" "$out" ${PROCESS_FLAGS:-}
else
  # shellcheck disable=SC2086
  "$bin" process --paths "$slice" --prefix "$dir" --out "$out" ${PROCESS_FLAGS:-}
fi
