//! The trained models the extractors read, loaded once by the caller and passed in: no
//! process-wide state, so what a run uses is what it was given, and a missing or damaged
//! model is one error before any page, not a skip on every page.

use std::path::Path;
use std::sync::Arc;

use super::Extractor;
use super::combine::{CombineError, CombinerModel};
use super::web2text::{Web2TextError, Web2TextModel};

#[derive(Debug, thiserror::Error)]
pub enum ModelsError {
    #[error(transparent)]
    NotFound(#[from] crate::models::NotFound),
    #[error(transparent)]
    Combiner(#[from] CombineError),
    #[error(transparent)]
    Web2Text(#[from] Web2TextError),
}

/// The combiner and Web2Text, each where an extractor of the run needs it. Cheap to clone
/// (shared behind `Arc`), so every worker thread holds the same models.
#[derive(Clone, Default)]
pub struct ExtractModels {
    combiner: Option<Arc<CombinerModel>>,
    web2text: Option<Arc<Web2TextModel>>,
}

impl std::fmt::Debug for ExtractModels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExtractModels").field("combiner", &self.combiner.is_some()).field("web2text", &self.web2text.is_some()).finish()
    }
}

impl ExtractModels {
    /// No models: enough for the extractors that use none (`article`, `list-view`, `goce`,
    /// `all-text`, the paper's variants).
    pub fn none() -> Self {
        Self::default()
    }

    /// What `extractors` need, from `dir` (else where [`crate::models::find_dir`] looks);
    /// the combiner for pages with page types or without (`--classifier none`).
    pub fn load(dir: Option<&Path>, extractors: &[Extractor], page_types: bool) -> Result<Self, ModelsError> {
        let needs_combiner = extractors.contains(&Extractor::Combined);
        let needs_web2text = extractors.iter().any(|e| e.uses_web2text());
        if !needs_combiner && !needs_web2text {
            return Ok(Self::none());
        }
        let dir = crate::models::find_dir(dir)?;
        Ok(Self {
            combiner: needs_combiner.then(|| CombinerModel::load_for(&dir, page_types)).transpose()?.map(Arc::new),
            web2text: needs_web2text.then(|| Web2TextModel::load(&dir)).transpose()?.map(Arc::new),
        })
    }

    /// The combiner, where it was loaded.
    pub fn combiner(&self) -> Result<&CombinerModel, super::ExtractError> {
        self.combiner.as_deref().ok_or(super::ExtractError::ModelNotLoaded("combiner"))
    }

    /// Web2Text's networks, where they were loaded.
    pub fn web2text(&self) -> Result<&Web2TextModel, super::ExtractError> {
        self.web2text.as_deref().ok_or(super::ExtractError::ModelNotLoaded("Web2Text"))
    }
}
