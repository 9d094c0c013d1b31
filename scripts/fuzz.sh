#!/usr/bin/env bash
# Runs one coverage-guided fuzz target: scripts/fuzz.sh TARGET SECONDS (make fuzz).
#
# cargo-fuzz drives libFuzzer, which wants nightly compiler flags (sancov); RUSTC_BOOTSTRAP=1
# lets the stable toolchain that setup installs take them, so no nightly is needed.
# `--sanitizer none`: the library forbids unsafe code outside its small FFI, so ASan adds
# little and would need the nightly standard library rebuilt.
# The corpus grows in target/fuzz/corpus/TARGET (seeded from sample-warcs/, tests/fixtures and
# a few generated HTTP responses); findings land in fuzz/artifacts/TARGET/.
# Hang: an input over 1 s (html_extract runs all ten extractors on it: 5 s). Blow-up: over 2 GB
# resident in all (LibTorch's libraries alone are ~0.4 GB) or one allocation over 512 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh warc_reader|http_page|html_extract|render|parquet_writer SECONDS}
seconds=${2:-60}
export RUSTC_BOOTSTRAP=1
export LD_LIBRARY_PATH="$PWD/.libtorch/torch/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
command -v cargo-fuzz > /dev/null || cargo install cargo-fuzz --locked --version 0.13.2

corpus=target/fuzz/corpus/$target
seeds=target/fuzz/seeds/$target
mkdir -p "$corpus" "$seeds"
case $target in
    warc_reader)
        cp sample-warcs/* "$seeds"/
        # Garbage between records, a record cut short, whole-file gzip.
        for f in sample-warcs/*.warc; do
            head -c 3000 "$f" > "$seeds/cut.warc"
            { head -c 2000 "$f"; head -c 300 /dev/urandom; cat "$f"; } > "$seeds/garbage.warc"
            gzip -c "$f" > "$seeds/whole-file.warc.gz"
        done ;;
    http_page)
        page=tests/fixtures/pages/article-blog.html
        { printf 'HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n'; cat "$page"; } > "$seeds/plain"
        { printf 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n'; gzip -c "$page"; } > "$seeds/gzip"
        { printf 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/html; charset=windows-1251\r\n\r\n1a\r\n<p>\xcf\xf0\xe8\xe2\xe5\xf2 world</p>  \r\n0\r\n\r\n'; } > "$seeds/chunked"
        { printf 'HTTP/1.0 301 Moved\r\nLocation: /x\r\n\r\n'; } > "$seeds/redirect" ;;
    html_extract | render)
        cp tests/fixtures/pages/*.html tests/fixtures/languages/*.html "$seeds"/ ;;
    parquet_writer)
        # Structured input (arbitrary rows): a few runs of random bytes to start from.
        for i in 1 2 3 4; do head -c $((i * 4000)) /dev/urandom > "$seeds/random-$i"; done ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
esac

# FUZZ_TIMEOUT raises the hang bound for a `nice`d run on a busy machine, where a starved
# fuzzer sees a slow input that is not one; any input over 1 s is still reported as a slow
# unit (and saved), to be timed again alone.
timeout=1
[[ $target == html_extract ]] && timeout=5
timeout=${FUZZ_TIMEOUT:-$timeout}
cd fuzz
exec cargo fuzz run --sanitizer none "$target" "../$corpus" "../$seeds" -- \
    -max_total_time="$seconds" -timeout="$timeout" -report_slow_units=1 -rss_limit_mb=2048 -malloc_limit_mb=512 -max_len=262144 -print_final_stats=1
