//! Command-line flags, their documentation (it becomes `--help`), and the mapping of
//! outcomes to exit codes: 0 all inputs read, 1 an input failed outright or the run
//! could not start, 2 bad usage. One file per command: its flags, the step from flags to
//! the library's configuration, and the run.

mod choice;
mod classify;
mod eval;
mod extract;
mod process;
mod render;
mod summary;
mod train;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};

use goce_warc::classify::{CPU_BATCH, CUDA_BATCH, Classifier, ClassifierKind, DeviceChoice};
use goce_warc::extract::{ExtractLimits, Extractor, Genre};
use goce_warc::page::PageFilter;
use goce_warc::pipeline::{self, Input, ProcessConfig, Progress, RunSummary};
use goce_warc::warc::ReaderLimits;

use choice::choice;
use classify::ClassifyArgs;
use eval::EvalArgs;
use extract::ExtractArgs;
use goce_warc::choice::Choice;
use process::ProcessArgs;
use render::RenderArgs;
use summary::SummaryArgs;
use train::{TrainArgs, TrainExtractArgs, TrainWeb2textArgs};

#[derive(Parser, Debug)]
#[command(name = "goce-warc", version, about = "Common Crawl WARC archives to clean, genre-labelled text in Parquet")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// More log output on standard error: -v info, -vv debug (RUST_LOG overrides).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Read WARC files and write one Parquet row per HTML page.
    Process(ProcessArgs),
    /// Extract the text of one HTML page (a file, or `-` for standard input).
    Extract(ExtractArgs),
    /// Score extractors against a gold dataset (WCXB or Scrapinghub layout).
    Eval(EvalArgs),
    /// Draw pages as the classifier sees them: PNG pictures from HTML files.
    Render(RenderArgs),
    /// Say what type and genre pages are (the classifier that `process` and `eval` use).
    Classify(ClassifyArgs),
    /// Train the ResNet and the html-features baseline on a WCXB-style dataset and
    /// write models/ (what `make model` runs).
    Train(TrainArgs),
    /// Train Web2Text's two CNNs on CleanEval (the paper's split) and write
    /// models/web2text.* (what `make model-web2text` runs).
    TrainWeb2text(TrainWeb2textArgs),
    /// Train the combiner (the default extractor) on every page with gold text, after
    /// domain-grouped cross-validation beside the other extractors.
    TrainExtract(TrainExtractArgs),
    /// Add up the manifests of an output folder (pages, genres, skips by reason) and list
    /// the inputs that have none yet.
    Summary(SummaryArgs),
}

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
    fn kind(&self) -> Option<ClassifierKind> {
        match self.classifier {
            ClassifierArg::Cascade => Some(ClassifierKind::Cascade),
            ClassifierArg::Resnet => Some(ClassifierKind::Resnet),
            ClassifierArg::HtmlFeatures => Some(ClassifierKind::HtmlFeatures),
            ClassifierArg::None => None,
        }
    }

    /// Loads the models the extractors read now, so a missing or damaged model is one
    /// clear error before any work starts (not a skip on every page).
    fn extract_models(&self, extractors: &[Extractor]) -> anyhow::Result<goce_warc::extract::ExtractModels> {
        Ok(goce_warc::extract::ExtractModels::load(self.models.as_deref(), extractors)?)
    }

    /// Loads the chosen classifier; LibTorch uses `threads` CPU threads.
    fn load(&self, threads: usize) -> anyhow::Result<Option<Classifier>> {
        let Some(kind) = self.kind() else { return Ok(None) };
        if kind.needs_picture() {
            tch::set_num_threads(i32::try_from(threads.max(1)).unwrap_or(1));
        }
        let models = goce_warc::classify::find_models_dir(self.models.as_deref())?;
        let classifier = Classifier::load(kind, &models, self.device)?;
        if let Some(net) = classifier.net() {
            tracing::info!("classifier: {} from {} on {:?}", kind.name(), models.display(), net.device);
        }
        Ok(Some(classifier))
    }
}

pub fn init_logging(verbose: u8) {
    // html5ever logs parse-recovery notes ("foster parenting not implemented") at warn
    // level for ordinary pages: they are not ours to report.
    let default = match verbose {
        // Libraries speak up only for errors unless asked (-vv).
        0 => "error,goce_warc=warn",
        1 => "error,goce_warc=info",
        _ => "warn,goce_warc=debug,html5ever=error",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false).init();
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Process(args) => process::process(args),
        Command::Extract(args) => extract::extract(args),
        Command::Eval(args) => eval::eval(args),
        Command::Render(args) => render::render(args),
        Command::Summary(args) => summary::summary(args),
        Command::Classify(args) => classify::classify(args),
        Command::Train(args) => train::train(args),
        Command::TrainWeb2text(args) => train::train_web2text(args),
        Command::TrainExtract(args) => train::train_extract(args),
    }
}

fn read_page(page: &str) -> anyhow::Result<String> {
    if page == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).context("reading standard input")?;
        return Ok(goce_warc::page::charset::decode(&bytes, None, None).text);
    }
    goce_warc::page::read_html_file(std::path::Path::new(page)).with_context(|| format!("reading {page}"))
}

/// Prints a line to standard output; a closed pipe (`| head`) is not an error.
fn print_stdout(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
