//! Stage 5, classification: a page's picture (and cheap HTML features) → its WCXB page
//! type, and from that its GOCE genre, which picks the extractor.
//!
//! Two classifiers: `resnet` (a small ResNet over the lite renderer's picture, HTML
//! features fused into its head; batched, through LibTorch on the CPU or CUDA, or on the CPU
//! through this crate's own layers in [`cpu_net`], which the cascade uses) and
//! `html-features` (the paper's baseline: its 11 features and a linear model, plain
//! Rust). Both are trained by `goce-warc-train train` (`goce_warc_train::classify`) and ship in `models/`.

pub mod cascade;
pub mod cpu_net;
pub mod device;
pub mod features;
pub mod linear;
pub mod resnet;
pub mod words;

use std::path::{Path, PathBuf};

pub use device::{CPU_BATCH, CUDA_BATCH, Device, DeviceChoice};
pub use features::{FEATURE_COUNT, Features};
pub use linear::LinearModel;
pub use resnet::{CpuLayers, GenreNet, NetInput};

use crate::analyse::Genre;
use crate::models::ModelFileError;

/// WCXB's seven page types, in the models' output order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PageType {
    Article,
    Forum,
    Product,
    Collection,
    Listing,
    Documentation,
    Service,
}

pub const PAGE_TYPE_COUNT: usize = 7;

pub const PAGE_TYPES: [PageType; PAGE_TYPE_COUNT] =
    [PageType::Article, PageType::Forum, PageType::Product, PageType::Collection, PageType::Listing, PageType::Documentation, PageType::Service];

impl PageType {
    pub fn name(self) -> &'static str {
        match self {
            Self::Article => "article",
            Self::Forum => "forum",
            Self::Product => "product",
            Self::Collection => "collection",
            Self::Listing => "listing",
            Self::Documentation => "documentation",
            Self::Service => "service",
        }
    }

    /// WCXB's name (`category` is an older name of `collection`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "category" => Some(Self::Collection),
            _ => PAGE_TYPES.iter().copied().find(|t| t.name() == name),
        }
    }

    pub fn index(self) -> usize {
        PAGE_TYPES.iter().position(|&t| t == self).unwrap_or(0)
    }

    pub fn genre(self) -> Genre {
        Genre::of_page_type(self.name())
    }
}

/// What a classifier says about one page.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Prediction {
    pub page_type: PageType,
    /// The genre with the larger summed probability of its page types (which can differ
    /// from the most likely type's genre when the list-view types share the mass).
    pub genre: Genre,
    /// The chosen genre's probability.
    pub genre_confidence: f32,
    /// Per page type, in [`PAGE_TYPES`] order.
    pub probabilities: [f32; PAGE_TYPE_COUNT],
}

impl Prediction {
    pub fn from_probabilities(probabilities: [f32; PAGE_TYPE_COUNT]) -> Self {
        Self::with_threshold(probabilities, 0.5)
    }

    /// Genre list-view when the list-view types' summed probability exceeds `list_view_threshold`
    /// (the ResNet's is chosen on the validation domains, see `models/README.md`).
    pub fn with_threshold(probabilities: [f32; PAGE_TYPE_COUNT], list_view_threshold: f32) -> Self {
        let best = probabilities.iter().enumerate().fold(0, |best, (i, &p)| if p > probabilities[best] { i } else { best });
        let list_view = list_view_probability(&probabilities);
        let (genre, genre_confidence) = if list_view > list_view_threshold { (Genre::ListView, list_view) } else { (Genre::Article, 1.0 - list_view) };
        Self { page_type: PAGE_TYPES[best], genre, genre_confidence, probabilities }
    }
}

/// The summed probability of the list-view page types.
pub fn list_view_probability(probabilities: &[f32; PAGE_TYPE_COUNT]) -> f32 {
    PAGE_TYPES.iter().zip(probabilities).filter(|(t, _)| t.genre() == Genre::ListView).map(|(_, p)| p).sum()
}

/// Which classifier decides the genre.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClassifierKind {
    /// A linear model over the ResNet's fused inputs decides the pages it is sure of, the
    /// ResNet the rest (models/genre-cascade.json and the ResNet's files).
    Cascade,
    /// The ResNet over the page's picture, HTML features fused (models/genre-resnet.*).
    Resnet,
    /// The paper's 11 HTML features with a linear model (models/html-features.json).
    HtmlFeatures,
}

impl ClassifierKind {
    pub fn name(self) -> &'static str {
        match self {
            Self::Cascade => "cascade",
            Self::Resnet => "resnet",
            Self::HtmlFeatures => "html-features",
        }
    }

    /// Whether it needs pictures (for every page, or for the pages its gate is unsure of).
    pub fn needs_picture(self) -> bool {
        matches!(self, Self::Resnet | Self::Cascade)
    }

    /// Whether it needs a picture of every page (no gate decides any without one).
    pub fn needs_every_picture(self) -> bool {
        self == Self::Resnet
    }
}

pub use crate::models::{CASCADE_MODEL, HTML_FEATURES_MODEL, RESNET_SPEC, RESNET_WEIGHTS, WORD_MODEL};

const HOW_TO_FIX: &str = "restore models/ from a clone of goce-warc (`git checkout -- models`), pass --models DIR, or retrain with `make model`";

#[derive(Debug, thiserror::Error)]
pub enum ClassifyError {
    #[error("model file {path}: {source}; {HOW_TO_FIX}")]
    Model { path: PathBuf, source: crate::models::ModelFileError },
    #[error("no models folder found (looked in {looked}); {HOW_TO_FIX}")]
    NoModels { looked: String },
    #[error("{0}")]
    Device(String),
    /// LibTorch (opened through [`crate::torch`]) failed, or could not be opened.
    #[error("LibTorch: {0}")]
    Torch(String),
    /// The network's state, not LibTorch, failed (a poisoned lock, a prediction missing).
    #[error("the network: {0}")]
    Net(&'static str),
    #[error("{0}")]
    Page(String),
}

/// One page of `models/check/outputs.json`: a recorded input and the outputs the shipped
/// models gave for it, which the tests compare with today's (`goce-warc-train train
/// --check-page` writes them).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CheckRecord {
    pub picture: String,
    pub features: Vec<f32>,
    /// The page's hashed word counts.
    #[serde(default)]
    pub words: Vec<(u64, u32)>,
    pub resnet: Vec<f32>,
    pub html_features: Vec<f32>,
}

/// Where `models/` is ([`crate::models::find_dir`]), as the classifier's error.
pub fn find_models_dir(given: Option<&Path>) -> Result<PathBuf, ClassifyError> {
    crate::models::find_dir(given).map_err(|e| ClassifyError::NoModels { looked: e.looked })
}

/// A loaded classifier.
pub enum Classifier {
    Cascade(Box<cascade::Cascade>),
    Resnet(Box<GenreNet>),
    HtmlFeatures(LinearModel),
}

impl std::fmt::Debug for Classifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Cascade(c) => write!(f, "Classifier::Cascade(sure at {}, {:?} on {:?})", c.sure_at, c.net.spec.widths, c.net.device),
            Self::Resnet(net) => write!(f, "Classifier::Resnet({:?} on {:?})", net.spec.widths, net.device),
            Self::HtmlFeatures(_) => write!(f, "Classifier::HtmlFeatures"),
        }
    }
}

impl Classifier {
    pub fn load(kind: ClassifierKind, models: &Path, device: DeviceChoice) -> Result<Self, ClassifyError> {
        match kind {
            ClassifierKind::Cascade => Ok(Self::Cascade(Box::new(cascade::Cascade::load(models, GenreNet::load(models, device, CpuLayers::Rust)?)?))),
            ClassifierKind::Resnet => Ok(Self::Resnet(Box::new(GenreNet::load(models, device, CpuLayers::LibTorch)?))),
            ClassifierKind::HtmlFeatures => Ok(Self::HtmlFeatures(load_linear(&models.join(HTML_FEATURES_MODEL))?)),
        }
    }

    pub fn kind(&self) -> ClassifierKind {
        match self {
            Self::Cascade(_) => ClassifierKind::Cascade,
            Self::Resnet(_) => ClassifierKind::Resnet,
            Self::HtmlFeatures(_) => ClassifierKind::HtmlFeatures,
        }
    }

    /// The ResNet, where this classifier has one.
    pub fn net(&self) -> Option<&GenreNet> {
        match self {
            Self::Cascade(c) => Some(&c.net),
            Self::Resnet(net) => Some(net),
            Self::HtmlFeatures(_) => None,
        }
    }

    /// The prediction when it needs no picture: always for `html-features`, where the
    /// cascade's gate is sure, never for `resnet`.
    pub fn decide_cheaply(&self, features: &Features) -> Option<Prediction> {
        match self {
            Self::Cascade(c) => c.decide_cheaply(features),
            Self::Resnet(_) => None,
            Self::HtmlFeatures(model) => Some(Prediction::from_probabilities(model.probabilities(features.paper()))),
        }
    }

    /// The features this classifier reads from a page: the words only where its model uses them.
    pub fn features_of(&self, page: &crate::analyse::PageAnalysis<'_>, url: &str) -> Features {
        let features = Features::of_page(page, url);
        match self.net().and_then(|net| net.words.as_ref()) {
            Some(model) => features.with_known_words(page.dom, url, model),
            None => features,
        }
    }

    /// Classifies pages in order; `pictures` may be empty for `html-features` and for the
    /// pages the cascade's gate is sure of.
    pub fn classify(&self, inputs: &[NetInput<'_>]) -> Result<Vec<Prediction>, ClassifyError> {
        match self {
            Self::Cascade(c) => c.predict(inputs),
            Self::Resnet(net) => net.predict(inputs),
            Self::HtmlFeatures(model) => Ok(inputs.iter().map(|i| Prediction::from_probabilities(model.probabilities(i.features.paper()))).collect()),
        }
    }
}

impl Classifier {
    /// One page from its HTML and URL ("" when unknown): parse (keeping style sheets),
    /// draw with the lite renderer, compute the features, classify.
    pub fn classify_html(&self, html: &str, url: &str, limits: &crate::analyse::ExtractLimits) -> Result<Prediction, ClassifyError> {
        let dom = crate::analyse::parse_page(html, limits, &crate::dom::FOR_RENDERING)
            .map_err(|e| ClassifyError::Page(format!("the page could not be parsed: {e}")))?;
        let features = self.features_of(&crate::analyse::PageAnalysis::new(&dom), url);
        if let Some(prediction) = self.decide_cheaply(&features) {
            return Ok(prediction);
        }
        let picture = self.kind().needs_picture().then(|| crate::render::render_lite(&dom, &crate::render::RenderOptions::default()).picture);
        self.classify(&[NetInput { picture: picture.as_ref(), features: &features }])?.pop().ok_or(ClassifyError::Net("no prediction came back"))
    }
}

pub fn load_linear(path: &Path) -> Result<LinearModel, ClassifyError> {
    let err = |source| ClassifyError::Model { path: path.to_path_buf(), source };
    let model: LinearModel = ModelFileError::read(path).and_then(|text| ModelFileError::parse(&text, "goce-warc linear model")).map_err(err)?;
    if !model.is_consistent() || model.feature_names.len() != features::PAPER_FEATURE_COUNT {
        return Err(err(ModelFileError::Invalid("its shapes do not fit the 11 paper features and 7 page types".into())));
    }
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn genre_sums_the_list_view_types() {
        // Article is the single most likely type, but forum + listing + collection outweigh it.
        let p = Prediction::from_probabilities([0.4, 0.2, 0.0, 0.2, 0.2, 0.0, 0.0]);
        assert_eq!(p.page_type, PageType::Article);
        assert_eq!(p.genre, Genre::ListView);
        assert!((p.genre_confidence - 0.6).abs() < 1e-6);
        let p = Prediction::from_probabilities([0.1, 0.0, 0.7, 0.1, 0.0, 0.1, 0.0]);
        assert_eq!((p.page_type, p.genre), (PageType::Product, Genre::Article));
        // A lower threshold turns the same probabilities list-view.
        let p = Prediction::with_threshold([0.1, 0.0, 0.55, 0.3, 0.0, 0.05, 0.0], 0.25);
        assert_eq!((p.page_type, p.genre), (PageType::Product, Genre::ListView));
        assert!((p.genre_confidence - 0.3).abs() < 1e-6);
    }

    #[test]
    fn page_type_names_round_trip() {
        for t in PAGE_TYPES {
            assert_eq!(PageType::parse(t.name()), Some(t));
        }
        assert_eq!(PageType::parse("category"), Some(PageType::Collection));
        assert_eq!(PageType::parse("blog"), None);
    }
}
