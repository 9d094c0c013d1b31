//! The integration tests: each module is a user's session with one part of goce-warc, run
//! through the built binary or the library. One test binary, so the crate graph is linked once.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failure here is the report

mod common;

mod classify;
mod combined;
mod crash_and_resume;
mod damaged_input;
mod extract_and_eval;
mod languages;
mod layering;
mod markdown;
mod prepass;
mod process;
mod render;
mod shards_and_summary;
mod web2text;
