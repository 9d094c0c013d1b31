//! The training binary's integration tests, each a user's session with one command over
//! the repository's handwritten pages. One test binary, so the crate graph is linked once.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failure here is the report

#[path = "../../../tests/common/fixture_pages.rs"]
mod fixture_pages;

mod eval;
mod train;

use std::process::{Command, Output};

/// From this crate's folder to the repository's (for [`fixture_pages`]).
const REPOSITORY_ROOT: &str = "../..";

/// The binary, as a user runs it.
fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_goce-warc-train"))
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
