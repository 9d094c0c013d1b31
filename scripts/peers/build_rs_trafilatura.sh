#!/usr/bin/env bash
# rs-trafilatura, the Rust port of trafilatura, built from its crates.io package (version and
# SHA-256 pinned) for `make eval-unseen`: its own `extract_stdin` binary, the one its authors'
# benchmark wrapper calls. Prints the binary's path.
set -euo pipefail
VERSION=0.2.2
SHA256=e7349ec610fed6e49c175da51034aca74c02ec3951a7acbbf10eb2ac3ee04e3b
DIR=target/peers
CRATE=$DIR/rs-trafilatura-$VERSION.crate
SRC=$DIR/rs-trafilatura-$VERSION
mkdir -p "$DIR"
if [ ! -f "$CRATE" ]; then
  curl -fsSL --retry 3 -o "$CRATE.part" "https://static.crates.io/crates/rs-trafilatura/rs-trafilatura-$VERSION.crate"
  mv "$CRATE.part" "$CRATE"
fi
echo "$SHA256  $CRATE" | sha256sum --check --quiet >&2
if [ ! -f "$SRC/Cargo.toml" ]; then
  tar xzf "$CRATE" -C "$DIR"
  # It pins Rust 1.85, which this machine cannot fetch; the toolchain here builds it.
  rm -f "$SRC/rust-toolchain.toml"
fi
cargo build --quiet --release --locked --bin extract_stdin --manifest-path "$SRC/Cargo.toml" --target-dir "$DIR/build" >&2
echo "$DIR/build/release/extract_stdin"
