//! goce-warc: Common Crawl WARC archives to clean, genre-labelled text in Parquet.
//!
//! The modules follow the data flow, one stage each:
//! [`warc`] (records) → [`page`] (decoded HTML pages) → [`dom`] → [`render`] (pictures) → [`classify`] (genre) → [`extract`] (text) →
//! [`annotate`] (language, digest, words) → [`output`] (Parquet shards and manifests), driven by [`pipeline`].

pub mod annotate;
pub mod classify;
pub mod dom;
pub mod eval;
pub mod extract;
pub mod output;
pub mod page;
pub mod pipeline;
pub mod render;
pub mod warc;
