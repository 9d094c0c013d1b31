#!/usr/bin/env bash
# Profile-guided optimisation (`make setup`, `make pgo`; docs/performance.md): builds goce-warc
# instrumented, runs it over the sample WARCs (the default, and with --markdown), and merges
# what it recorded into target/pgo/goce-warc.profdata, which every release build the Makefile
# runs then uses (-Cprofile-use). Only the project's own pages train it, so no data from outside
# the repository shapes the build (the rows never depend on it). Without llvm-profdata (rustup's llvm-tools) it says so and leaves
# the build plain. Keeps an existing profile; `make pgo` removes it first.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/pgo
profile=$out/goce-warc.profdata
[ -f "$profile" ] && { echo "pgo: $profile is there (make pgo records it again)"; exit 0; }

host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ] && command -v rustup > /dev/null; then
  rustup component add llvm-tools || true
fi
if [ ! -x "$profdata" ]; then
  echo "pgo: llvm-profdata not found (rustup component add llvm-tools); building without a profile" >&2
  exit 0
fi

# A fixed place for the raw profiles, so the instrumented build's flags stay the same and
# cargo reuses it the next time.
raw=$PWD/$out/raw
rm -rf "$raw"
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
echo "pgo: building an instrumented goce-warc into $out/build"
# The same cargo call as `make build` (no --target, the whole workspace) in its own folder:
# the profile names each function by its symbol, and cargo's symbols depend on the units'
# features and on whether --target was given, so any other build would get no profile.
RUSTFLAGS="-Cprofile-generate=$raw" cargo build --release --locked --workspace --target-dir "$out/build"
# Build scripts and procedural macros ran instrumented too: only the runs below count.
rm -rf "$raw"
instrumented=$out/build/release/goce-warc
for flags in "" "--markdown"; do
  # shellcheck disable=SC2086
  LLVM_PROFILE_FILE="$raw/%p-%m.profraw" "$instrumented" process sample-warcs/*.warc* --out "$runs/p" --overwrite --quiet -j 2 $flags
done
"$profdata" merge -o "$profile" "$raw"
echo "pgo: recorded $profile"
