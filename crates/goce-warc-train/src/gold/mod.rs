//! Gold-standard pages and the scores of a text against them: what training (the
//! classifier's, Web2Text's, the combiner's) and evaluation ([`crate::eval`]) both read.
//! Below every stage that learns from it, so none of them imports the evaluation.

pub mod dataset;
pub mod metrics;

use std::path::{Path, PathBuf};

pub use dataset::{GoldPage, load};

#[derive(Debug, thiserror::Error)]
pub enum GoldError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("dataset: {0}")]
    Dataset(String),
}

impl GoldError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io { path: path.to_path_buf(), source }
    }
}
