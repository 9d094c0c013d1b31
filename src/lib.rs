//! goce-warc: Common Crawl WARC archives to clean, genre-labelled text in Parquet.
//!
//! The modules follow the data flow, one stage each:
//! [`warc`] (records) → [`page`] (decoded HTML pages) → [`dom`] → [`analyse`] (views and Algorithm 2, shared) → [`render`] (pictures) →
//! [`classify`] (genre) → [`extract`] (text) → [`annotate`] (language, digest, words) → [`output`] (Parquet shards and manifests),
//! driven by [`pipeline`]. A module imports only those before it; [`models`] (where the trained models are) and
//! [`torch`] (LibTorch, opened when a network needs it) sit below the stages that load them, and [`flags`] (the command line both binaries share, with the `cli` feature)
//! above them all. Training and evaluation against gold data are the `goce-warc-train` crate's
//! (`crates/goce-warc-train`), which imports this one.

pub mod analyse;
pub mod annotate;
pub mod choice;
pub mod classify;
pub mod dom;
pub mod extract;
#[cfg(feature = "cli")]
pub mod flags;
pub mod models;
pub mod output;
pub mod page;
pub mod pipeline;
pub mod render;
pub mod torch;
pub mod warc;
