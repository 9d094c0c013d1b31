#!/usr/bin/env bash
# The one set-up command (`make setup`): system packages, the Python tools the checks use
# (pyarrow and DuckDB, to prove that outside readers open our Parquet), and a release
# build of goce-warc. Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\n== %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi; }

# Debian packages: a C compiler for libdeflate and zstd, Python for the data checks,
# Chromium (and a font) for the optional render fallback, Slurm and munge for the job-array test.
APT_PACKAGES=(build-essential pkg-config ca-certificates python3 python3-venv python3-pip time curl chromium fonts-liberation slurm-wlm munge)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  # Chromium's first install has been seen to fail once in dpkg and pass on a rerun.
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Rust: goce-warc needs 1.88 or newer (edition 2024). Debian 12's own rustc is too old.
if ! command -v cargo >/dev/null && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null; then
  echo "setup: cargo not found. Install Rust 1.88+ with rustup (https://rustup.rs), then rerun." >&2
  exit 1
fi
rust_minor=$(rustc --version | sed -E 's/^rustc 1\.([0-9]+).*/\1/')
if [ "$rust_minor" -lt 88 ]; then
  echo "setup: $(rustc --version) is too old; goce-warc needs Rust 1.88+ (rustup update)." >&2
  exit 1
fi

# Python tools for `make eval` (and pillow for `make contact-sheet`) in their own virtual
# environment, pinned.
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import pyarrow, duckdb, PIL' 2>/dev/null; then
  say "creating .venv with pyarrow, duckdb and pillow"
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check -r scripts/requirements-eval.txt
fi

say "building goce-warc (release)"
cargo build --release --locked

say "ready: target/release/goce-warc"
echo "try:  target/release/goce-warc process sample-warcs/*.warc* --out parquet/"
