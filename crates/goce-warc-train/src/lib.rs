//! goce-warc-train: the models `goce-warc` ships, learned from gold pages, and the
//! extractors scored against them. Nothing here runs in `process`; this crate imports the
//! product library (`goce_warc`) and the product never imports it.
//!
//! [`gold`] (gold pages and the scores of a text against them) sits below the rest; every
//! failure is a [`TrainError`] with its cause:
//! - [`classify`]: the ResNet, the cascade's gate, the word model and the html-features
//!   baseline (`goce-warc-train train`, `make model`);
//! - [`web2text`]: Web2Text's two CNNs (`goce-warc-train train-web2text`, `make model-web2text`);
//! - [`combine`]: the combiner's block trees, with domain-grouped cross-validation
//!   (`goce-warc-train train-extract`, `make model-extract`);
//! - [`eval`]: the extractors on a gold dataset (`goce-warc-train eval`, `make eval-extraction`).

pub mod classify;
pub mod combine;
pub mod error;
pub mod eval;
pub mod gold;
pub mod web2text;

pub use error::TrainError;
