//! What fails while training or scoring, each with its cause kept: a file, the gold data,
//! LibTorch, the trees, and the product's own errors met on the way (a model that does not
//! load, a page that does not parse or render).

use std::path::{Path, PathBuf};

use goce_warc::classify::ClassifyError;
use goce_warc::extract::combine::CombineError;
use goce_warc::extract::web2text::Web2TextError;

use crate::gold::GoldError;

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{what}: {source}")]
    Json { what: String, source: serde_json::Error },
    #[error(transparent)]
    Gold(#[from] GoldError),
    #[error("LibTorch: {0}")]
    Torch(#[from] tch::TchError),
    #[error(transparent)]
    Network(#[from] goce_warc_torch::TorchError),
    #[error("fitting {what}: {source}")]
    Trees { what: &'static str, source: forust_ml::errors::ForustError },
    #[error("{}: {source}", page.display())]
    Page { page: PathBuf, source: goce_warc::analyse::PageError },
    #[error("{}: {source}", page.display())]
    Picture { page: PathBuf, source: goce_warc::render::RenderError },
    #[error(transparent)]
    Classify(#[from] ClassifyError),
    #[error(transparent)]
    Combine(#[from] CombineError),
    #[error(transparent)]
    Web2Text(#[from] Web2TextError),
    /// The data cannot train the model (a split left empty, no page long enough).
    #[error("{0}")]
    Data(String),
}

impl TrainError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io { path: path.to_path_buf(), source }
    }

    pub fn json(what: impl std::fmt::Display, source: serde_json::Error) -> Self {
        Self::Json { what: what.to_string(), source }
    }
}
