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

# Rust: goce-warc needs 1.89 or newer (AVX-512 intrinsics; edition 2024). Debian 12's own rustc is too old.
if ! command -v cargo >/dev/null && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null; then
  echo "setup: cargo not found. Install Rust 1.89+ with rustup (https://rustup.rs), then rerun." >&2
  exit 1
fi
rust_minor=$(rustc --version | sed -E 's/^rustc 1\.([0-9]+).*/\1/')
if [ "$rust_minor" -lt 89 ]; then
  echo "setup: $(rustc --version) is too old; goce-warc needs Rust 1.89+ (rustup update)." >&2
  exit 1
fi

# Python tools for `make eval` (and pillow for `make contact-sheet`) in their own virtual
# environment, pinned. Its pip also fetches LibTorch below.
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import pyarrow, duckdb, polars, PIL' 2>/dev/null; then
  say "creating .venv with pyarrow, duckdb, polars and pillow"
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check -r scripts/requirements-eval.txt
fi

# LibTorch for the classifier (tch 0.26 wants PyTorch 2.13.0). PyPI's torch wheel is used as
# a plain LibTorch folder, .libtorch/torch (docs: README "LibTorch"). Its CPU library needs
# two small CUDA runtime wheels; TORCH=cuda adds the CUDA libraries for GPU nodes (3.6 GB).
TORCH_VERSION=2.13.0
TORCH_WHEELS=(torch==$TORCH_VERSION nvidia-cuda-runtime==13.0.96 nvidia-cuda-cupti==13.0.85)
if [ "${TORCH:-cpu}" = cuda ]; then
  TORCH_WHEELS+=(nvidia-cusparse==12.6.3.3 nvidia-nvjitlink==13.5.37 nvidia-cufft==12.0.0.61 nvidia-cufile==1.15.1.6
    nvidia-cusparselt-cu13==0.8.1 nvidia-nccl-cu13==2.29.7 nvidia-curand==10.4.0.35 nvidia-cublas==13.1.1.3
    nvidia-cudnn-cu13==9.20.0.48 nvidia-cuda-nvrtc==13.0.88 nvidia-nvshmem-cu13==3.4.5)
fi
torch_marker=".libtorch/.installed-${TORCH:-cpu}-$TORCH_VERSION"
if [ ! -f "$torch_marker" ]; then
  say "installing LibTorch $TORCH_VERSION (${TORCH:-cpu}) into .libtorch"
  for attempt in 1 2; do
    .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --upgrade --target "$PWD/.libtorch" "${TORCH_WHEELS[@]}" && break
    [ "$attempt" = 2 ] && { echo "setup: could not download LibTorch from PyPI" >&2; exit 1; }
  done
  echo "$TORCH_VERSION" > .libtorch/torch/build-version   # torch-sys checks the version against this
  touch "$torch_marker"
fi

say "building goce-warc (release)"
# rustfmt and clippy for `make lint` (CI runs it); rustup's own components where rustup is.
if command -v rustup >/dev/null && ! (cargo fmt --version && cargo clippy --version) >/dev/null 2>&1; then
  rustup component add rustfmt clippy || echo "setup: could not add rustfmt/clippy; make lint needs them" >&2
fi

# A profile of the default's run over the sample WARCs first, then the release build with it.
bash scripts/pgo.sh
make --no-print-directory build

say "ready: target/release/goce-warc (and target/release/goce-warc-train, for training and scoring)"
echo "try:  target/release/goce-warc process sample-warcs/*.warc* --out parquet/"
