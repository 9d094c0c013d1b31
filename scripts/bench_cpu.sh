#!/usr/bin/env bash
# CPU per page, side by side in one run (`make bench`): goce-warc's default, the ResNet on
# every page, the default with --markdown, the default's CPU stages without the forward pass, extraction only, and the
# peer (FastWARC + Resiliparse main content, scripts/peers/peer_pipeline.py over the project's
# .venv), all over the same WARC. CPU seconds are user + system of the whole process (GNU
# time); pages per CPU-second, the ratio to the peer's and the share of pages the ResNet read
# (pages drawn for it, from --stats) are printed per mode. Then the default and the peer run
# in turn ROUNDS more times (default 3): on a shared VM one run's CPU moves by 20% from hour
# to hour, so the ratio that counts is the median of runs side by side.
# Usage: scripts/bench_cpu.sh WARC [THREADS] [ROUNDS]
set -euo pipefail
warc=${1:?usage: bench_cpu.sh WARC [THREADS] [ROUNDS]}
threads=${2:-2}
rounds=${3:-3}
bin=${BIN:-target/release/goce-warc}
python=${PYTHON:-.venv/bin/python}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$(dirname "$0")/bench_modes.sh"

# Whole-process wall, CPU and peak RSS of a command; its last stdout line kept.
measure() {
  /usr/bin/time -f '%e %U %S %M' -o "$out/time" "$@" > "$out/stdout"
  read -r wall user sys rss < "$out/time"
}

"$python" -c 'import fastwarc, resiliparse' 2> /dev/null || { echo "bench_cpu.sh: $python lacks fastwarc/resiliparse; run make setup" >&2; exit 1; }
# The WARC read once first: the first measured run (the peer's) paid for a cold start (its CPU
# 10.5 s against 7.4-8.7 s in the rounds after it, bench WARC, 2026-12-06).
cat "$warc" > /dev/null
measure "$python" scripts/peers/peer_pipeline.py "$warc" "$out/peer.parquet"
peer_pages=$(tail -n1 "$out/stdout")
peer_rate=$(python3 -c "print($peer_pages / ($user + $sys))")
echo "$(basename "$warc"):"
printf '%-34s %7s %8s %8s %11s %12s %9s %10s %11s\n' pipeline pages wall "CPU s" "peak RSS MB" "pages/CPU-s" "vs peer" "output MB" "ResNet read"
row() { printf '%-34s %7d %8.1f %8.1f %11.0f %12.0f %8.2fx %10.1f %11s\n' "$1" "$2" "$wall" "$(python3 -c "print($user + $sys)")" "$(python3 -c "print($rss / 1024)")" "$(python3 -c "print($2 / ($user + $sys))")" "$(python3 -c "print($2 / ($user + $sys) / $peer_rate)")" "$(python3 -c "print($3 / 1e6)")" "$4"; }
row "FastWARC + Resiliparse (1 core)" "$peer_pages" "$(du -sb "$out/peer.parquet" | cut -f1)" -
for mode in default markdown resnet cpu-stages extract; do
  stats="$out/stats-$mode.json"
  # shellcheck disable=SC2086
  measure "$bin" process "$warc" --out "$out/p-$mode" --quiet -j "$threads" --stats "$stats" ${flags[$mode]}
  pages=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['counts']['pages'])" "$stats")
  read_share=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['counts']; print(f\"{100 * sum(c.get('rendered', {}).values()) / max(1, c['pages']):.1f}%\")" "$stats")
  row "goce-warc $mode (-j $threads)" "$pages" "$(du -sb "$out/p-$mode" | cut -f1)" "$read_share"
done

# The default against the peer, in turn, `rounds` times; each round's ratio and their median.
ratios=()
for round in $(seq 1 "$rounds"); do
  measure "$python" scripts/peers/peer_pipeline.py "$warc" "$out/peer.parquet"
  peer_cpu=$(python3 -c "print($user + $sys)")
  # shellcheck disable=SC2086
  measure "$bin" process "$warc" --out "$out/r-$round" --quiet -j "$threads" ${flags[default]}
  default_cpu=$(python3 -c "print($user + $sys)")
  ratio=$(python3 -c "print(f'{$default_cpu / $peer_cpu:.2f}')")
  ratios+=("$ratio")
  printf 'round %d: peer %.1f CPU s, default %.1f CPU s, %sx\n' "$round" "$peer_cpu" "$default_cpu" "$ratio"
done
if (( rounds > 0 )); then
  echo "default's CPU per page against the peer's, median of $rounds rounds: $(python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}x')" "${ratios[@]}")"
fi
