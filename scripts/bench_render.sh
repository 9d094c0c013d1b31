#!/usr/bin/env bash
# Chromium pages/s with 1 and 2 browsers, and the lite renderer through the same command
# for comparison (each includes reading, gunzip, parsing and PNG writing).
# Usage: scripts/bench_render.sh [PAGES_DIR] [N]   (default ../shared/data/wcxb-dev, 60 pages)
set -euo pipefail
dir=${1:-../shared/data/wcxb-dev}
n=${2:-60}
bin=target/release/goce-warc
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The held-out fifth, in id order: every fifth page.
mapfile -t pages < <(ls "$dir"/html/*.html.gz | awk 'NR % 5 == 0' | head -n "$n")
echo "render bench: ${#pages[@]} pages from $dir on $(nproc) cores"
for renderer in lite chrome; do
  for threads in 1 2; do
    printf '%-6s -j %s: ' "$renderer" "$threads"
    "$bin" render --renderer "$renderer" -j "$threads" --stats -o "$out/$renderer-$threads" "${pages[@]}" 2>&1 | tail -n 1
  done
done
