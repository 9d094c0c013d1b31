#!/usr/bin/env bash
# What --markdown costs the default `process`: runs with and without it alternate on the same
# WARC (so a slower hour slows both), whole-process CPU by GNU time; then the Parquet bytes
# each wrote. Usage: scripts/bench_markdown.sh WARC [RUNS] [THREADS]
set -euo pipefail
warc=${1:?usage: bench_markdown.sh WARC [RUNS] [THREADS]}
runs=${2:-3}
threads=${3:-2}
bin=${BIN:-target/release/goce-warc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
declare -A cpu=([plain]=0 [markdown]=0)
printf '%-9s %4s %8s %8s\n' mode run "CPU s" "peak MB"
for run in $(seq "$runs"); do
  for mode in plain markdown; do
    flag=""; [ "$mode" = markdown ] && flag="--markdown"
    # shellcheck disable=SC2086
    /usr/bin/time -f '%U %S %M' -o "$out/time" "$bin" process "$warc" --out "$out/$mode" --overwrite --quiet -j "$threads" --device cpu $flag
    read -r user sys rss < "$out/time"
    seconds=$(python3 -c "print($user + $sys)")
    cpu[$mode]=$(python3 -c "print(${cpu[$mode]} + $seconds)")
    printf '%-9s %4d %8.2f %8.0f\n' "$mode" "$run" "$seconds" "$(python3 -c "print($rss / 1024)")"
  done
done
plain_bytes=$(du -sb "$out/plain" | cut -f1)
markdown_bytes=$(du -sb "$out/markdown" | cut -f1)
python3 - "${cpu[plain]}" "${cpu[markdown]}" "$plain_bytes" "$markdown_bytes" <<'PY'
import sys
plain, markdown, plain_bytes, markdown_bytes = map(float, sys.argv[1:])
print(f"CPU: {plain:.1f} s without, {markdown:.1f} s with --markdown: +{100 * (markdown / plain - 1):.1f}%")
print(f"Parquet: {plain_bytes / 1e6:.1f} MB without, {markdown_bytes / 1e6:.1f} MB with: +{100 * (markdown_bytes / plain_bytes - 1):.0f}%")
PY
