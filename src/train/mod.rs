//! Training, apart from inference: each submodule learns one stage's model from gold pages
//! and writes it under `models/`, where that stage loads it. Nothing at run time imports
//! this module; it imports the stages it trains.
//!
//! - [`classify`]: the ResNet, the cascade's gate, the word model and the html-features
//!   baseline (`goce-warc train`, `make model`);
//! - [`web2text`]: Web2Text's two CNNs (`goce-warc train-web2text`, `make model-web2text`);
//! - [`combine`]: the combiner's block trees and page selector, with domain-grouped
//!   cross-validation (`goce-warc train-extract`, `make model-extract`).

pub mod classify;
pub mod combine;
pub mod web2text;
