#!/usr/bin/env bash
# Builds goce-warc (and the classify bench) against a LibTorch other than the 2.13 that
# tch 0.26 expects, e.g. the PyTorch already installed on a GPU node that cannot download
# LibTorch 2.13. torch-sys's C wrapper covers every ATen op of 2.13; the wrappers of ops the
# other version lacks (or declares differently) do not compile, so they are found with the
# compiler and made to throw. goce-warc calls none of them. This is how the GPU figures in
# docs/classification.md were measured (against the GPU image's PyTorch 2.11).
# Usage: scripts/build_against_torch.sh TORCH_DIR [WORK_DIR]
#   TORCH_DIR: a folder with include/ and lib/ (a PyTorch wheel's torch/ folder)
#   Results: WORK_DIR/target/release/goce-warc, the libgoce_warc_torch.so that must stay beside it,
#   and WORK_DIR/target/release/deps/classify-*
set -euo pipefail
torch=$(realpath "${1:?usage: build_against_torch.sh TORCH_DIR [WORK_DIR]}")
work=$(realpath -m "${2:-target/other-torch}")
repo=$(git rev-parse --show-toplevel)
mkdir -p "$work"

cargo fetch --locked --manifest-path "$repo/Cargo.toml" > /dev/null
registry_copy=$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -maxdepth 2 -type d -name 'torch-sys-0.26.0' | head -1)
rm -rf "$work/torch-sys" && cp -r "$registry_copy" "$work/torch-sys"
wrappers="$work/torch-sys/libtch/torch_api_generated.cpp"

# Compile the wrappers alone, stub each one an error points into, until none is left.
for round in 1 2 3; do
  errors=$(c++ -std=c++17 -fsyntax-only -w -D_GLIBCXX_USE_CXX11_ABI=1 -I "$torch/include" \
    -I "$torch/include/torch/csrc/api/include" -I "$work/torch-sys/libtch" "$wrappers" 2>&1 |
    grep -oE 'torch_api_generated\.cpp:[0-9]+:[0-9]+: error' | cut -d: -f2 | sort -un || true)
  [ -n "$errors" ] || break
  echo "round $round: stubbing the wrappers at lines $(echo $errors)"
  python3 - "$wrappers" $errors <<'PY'
import sys
path, lines = sys.argv[1], open(sys.argv[1]).read().split("\n")
for number in map(int, sys.argv[2:]):
    start = number - 1
    while "PROTECT(" not in lines[start]:
        start -= 1
    end = start + 1
    while lines[end].strip() != ")":
        end += 1
    lines[start + 1:end] = ['    throw std::runtime_error("this ATen op is not in the LibTorch goce-warc was built against");'] + [""] * (end - start - 2)
open(path, "w").write("\n".join(lines))
PY
done

# A copy of the committed tree whose Cargo.toml points torch-sys at the stubbed copy.
rm -rf "$work/src-tree" && mkdir -p "$work/src-tree"
git -C "$repo" archive HEAD | tar -x -C "$work/src-tree"
printf '\n[patch.crates-io]\ntorch-sys = { path = "%s" }\n' "$work/torch-sys" >> "$work/src-tree/Cargo.toml"
cd "$work/src-tree"
LIBTORCH="$torch" LIBTORCH_BYPASS_VERSION_CHECK=1 CARGO_TARGET_DIR="$work/target" \
  cargo build --release --bin goce-warc --bench classify
LIBTORCH="$torch" LIBTORCH_BYPASS_VERSION_CHECK=1 CARGO_TARGET_DIR="$work/target" \
  cargo build --release -p goce-warc-torch
ls -1 "$work/target/release/goce-warc" "$work/target/release/libgoce_warc_torch.so" "$work"/target/release/deps/classify-* | grep -v '\.d$'
