//! Web2Text (Vogels et al., 2018), the second seed system: the page's Collapsed DOM
//! ([`cdom`]) gives a sequence of text blocks; 128 features per block and 25 per pair of
//! neighbouring blocks ([`features`]) feed two small CNNs ([`net`]) whose probabilities
//! define a hidden Markov model; Viterbi ([`viterbi`]) finds the most probable
//! content/boilerplate labelling. Trained on CleanEval with labels aligned from its gold
//! text ([`align`], `goce_warc_train::web2text`); `make model-web2text`.

pub mod align;
pub mod cdom;
pub mod features;
pub mod net;
pub mod viterbi;

use std::path::PathBuf;

use crate::dom::Dom;
use cdom::Cdom;
pub use net::{ModelSpec, Web2TextModel};

pub const MODEL_SPEC: &str = crate::models::WEB2TEXT_SPEC;
pub const MODEL_WEIGHTS: &str = crate::models::WEB2TEXT_WEIGHTS;
const HOW_TO_FIX: &str = "restore models/ from the goce-warc repository, or retrain with `make model-web2text`";

#[derive(Debug, thiserror::Error)]
pub enum Web2TextError {
    #[error("Web2Text model file {path}: {source}; {HOW_TO_FIX}")]
    Model { path: PathBuf, source: crate::models::ModelFileError },
    /// LibTorch (opened through [`crate::torch`]) failed, or could not be opened.
    #[error("LibTorch: {0}")]
    Torch(String),
    /// The networks' state, not LibTorch, failed (a poisoned lock).
    #[error("Web2Text's networks: {0}")]
    Net(&'static str),
}

/// A page's blocks with their features, ready for the networks.
pub struct PageBlocks {
    pub cdom: Cdom,
    pub blocks: Vec<[f32; features::BLOCK_FEATURES]>,
    pub edges: Vec<[f32; features::EDGE_FEATURES]>,
}

impl PageBlocks {
    pub fn of(dom: &Dom) -> Self {
        let cdom = Cdom::build(dom);
        let blocks = features::block_features(&cdom);
        let edges = features::edge_features(&cdom);
        Self { cdom, blocks, edges }
    }

    pub fn texts(&self) -> Vec<&str> {
        self.cdom.leaves.iter().map(|&l| self.cdom.nodes[l].text.as_str()).collect()
    }

    /// The content blocks: those labelled content, less ruby's readings (which the combiner
    /// leaves out too).
    pub fn content_of(&self, labels: &[viterbi::Label]) -> Vec<bool> {
        let mut content: Vec<bool> = labels.iter().map(|&l| l == 1).collect();
        self.cdom.drop_ruby_readings(&mut content);
        content
    }

    /// The content blocks' text: a block after a line break starts a new line.
    pub fn text_of(&self, labels: &[viterbi::Label]) -> String {
        self.cdom.text_of(&self.content_of(labels))
    }
}

/// How the labels are inferred.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inference {
    /// Viterbi over unary and pairwise potentials (the paper).
    Structured,
    /// The unary network alone (the paper's ablation).
    UnaryOnly,
}

impl Web2TextModel {
    pub fn labels(&self, page: &PageBlocks, inference: Inference) -> Result<Vec<viterbi::Label>, Web2TextError> {
        let (unary, pairwise) = self.potentials(&page.blocks, &page.edges)?;
        Ok(match inference {
            Inference::Structured => viterbi::viterbi(&unary, &pairwise, self.spec.lambda),
            Inference::UnaryOnly => viterbi::unary_only(&unary),
        })
    }

    /// The main content of a parsed page.
    pub fn extract(&self, dom: &Dom) -> Result<String, Web2TextError> {
        let page = PageBlocks::of(dom);
        let labels = self.labels(&page, Inference::Structured)?;
        Ok(page.text_of(&labels))
    }
}
