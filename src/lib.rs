//! goce-warc: Common Crawl WARC archives to clean, genre-labelled text in Parquet.
//!
//! The modules follow the data flow, one stage each:
//! [`warc`] (records) → [`page`] (decoded HTML pages) → [`dom`] → [`analyse`] (views and Algorithm 2, shared) → [`render`] (pictures) →
//! [`classify`] (genre) → [`extract`] (text) → [`annotate`] (language, digest, words) → [`output`] (Parquet shards and manifests),
//! driven by [`pipeline`]. A module imports only those before it; [`models`] (where the trained models are) and [`gold`]
//! (gold pages and their scores) sit below the stages that load or learn; [`train`] (learning each stage's model)
//! and [`eval`] sit above them all.

pub mod analyse;
pub mod annotate;
pub mod choice;
pub mod classify;
pub mod dom;
pub mod eval;
pub mod extract;
pub mod gold;
pub mod models;
pub mod output;
pub mod page;
pub mod pipeline;
pub mod render;
pub mod train;
pub mod warc;
