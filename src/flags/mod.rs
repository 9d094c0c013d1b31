//! The command-line pieces both binaries share (`goce-warc` and `goce-warc-train`, whose
//! `eval` classifies pages as `process` does): the classifier's flags, the parser of a
//! flag that takes one of a [`Choice`](crate::choice::Choice)'s names, standard output
//! and the log. Built only with the `cli` feature, which brings clap.

mod choice;

use std::path::PathBuf;

use clap::Args;

pub use choice::{ChoiceParser, choice};

use crate::classify::{Classifier, ClassifierKind, ClassifyError, DeviceChoice};
use crate::extract::{ExtractModels, Extractor, ModelsError};

/// The genre classifier, for every command that classifies.
#[derive(Args, Debug, Clone)]
pub struct ClassifierArgs {
    /// Which classifier decides each page's type and genre (and so the algorithm of the
    /// goce extractor): cascade (a linear model over the page features and words decides
    /// the pages it is sure of, the ResNet reads the picture of the rest), resnet (the
    /// ResNet on every page's picture with the page features), html-features (the paper's
    /// baseline), none (goce guesses from HTML structure; no type column).
    #[arg(long, value_enum, default_value = "cascade")]
    pub classifier: ClassifierArg,

    /// Where the ResNet runs: auto (CUDA when LibTorch's CUDA library and a GPU are
    /// present, else the CPU), cpu, cuda, cuda:N.
    #[arg(long, default_value = "auto", value_name = "DEVICE")]
    pub device: DeviceChoice,

    /// The models folder (default: $GOCE_MODELS, ./models, or the models/ of the
    /// repository goce-warc was built in).
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ClassifierArg {
    Cascade,
    Resnet,
    HtmlFeatures,
    None,
}

impl ClassifierArgs {
    pub fn kind(&self) -> Option<ClassifierKind> {
        match self.classifier {
            ClassifierArg::Cascade => Some(ClassifierKind::Cascade),
            ClassifierArg::Resnet => Some(ClassifierKind::Resnet),
            ClassifierArg::HtmlFeatures => Some(ClassifierKind::HtmlFeatures),
            ClassifierArg::None => None,
        }
    }

    /// Loads the models the extractors read now, so a missing or damaged model is one
    /// clear error before any work starts (not a skip on every page). Without a classifier
    /// the combiner is the one trained without page types.
    pub fn extract_models(&self, extractors: &[Extractor]) -> Result<ExtractModels, ModelsError> {
        ExtractModels::load(self.models.as_deref(), extractors, self.kind().is_some())
    }

    /// Loads the chosen classifier; LibTorch uses `threads` CPU threads.
    pub fn load(&self, threads: usize) -> Result<Option<Classifier>, ClassifyError> {
        let Some(kind) = self.kind() else { return Ok(None) };
        if kind.needs_picture() {
            crate::torch::set_threads(threads);
        }
        let models = crate::classify::find_models_dir(self.models.as_deref())?;
        let classifier = Classifier::load(kind, &models, self.device)?;
        if let Some(net) = classifier.net() {
            tracing::info!("classifier: {} from {} on {:?} ({}'s layers)", kind.name(), models.display(), net.device, net.layers());
        }
        Ok(Some(classifier))
    }
}

/// Log lines on standard error, filtered by `-v` (or `RUST_LOG`): `targets` are the
/// calling binary's crates, which speak at warn level by default.
pub fn init_logging(verbose: u8, targets: &[&str]) {
    // html5ever logs parse-recovery notes ("foster parenting not implemented") at warn
    // level for ordinary pages: they are not ours to report.
    let default = match verbose {
        // Libraries speak up only for errors unless asked (-vv).
        0 => ("error", "warn"),
        1 => ("error", "info"),
        _ => ("warn,html5ever=error", "debug"),
    };
    let default = std::iter::once(default.0.to_string()).chain(targets.iter().map(|t| format!("{t}={}", default.1))).collect::<Vec<_>>().join(",");
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(&default));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false).init();
}

/// Prints a line to standard output; a closed pipe (`| head`) is not an error.
pub fn print_stdout(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e),
        _ => Ok(()),
    }
}
