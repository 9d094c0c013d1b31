//! Command-line flags, their documentation (it becomes `--help`), and the mapping of
//! outcomes to exit codes: 0 all inputs read, 1 an input failed outright or the run
//! could not start, 2 bad usage.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};

use goce_warc::classify::{CPU_BATCH, CUDA_BATCH, Classifier, ClassifierKind, DeviceChoice};
use goce_warc::extract::{ExtractLimits, Extractor, Genre};
use goce_warc::page::PageFilter;
use goce_warc::pipeline::{self, Input, ProcessConfig, Progress, RunSummary};
use goce_warc::warc::ReaderLimits;

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
    /// goce extractor): resnet (the page's picture with HTML features), html-features
    /// (the paper's baseline), none (goce guesses from HTML structure; no type column).
    #[arg(long, value_enum, default_value = "resnet")]
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
    Resnet,
    HtmlFeatures,
    None,
}

impl ClassifierArgs {
    fn kind(&self) -> Option<ClassifierKind> {
        match self.classifier {
            ClassifierArg::Resnet => Some(ClassifierKind::Resnet),
            ClassifierArg::HtmlFeatures => Some(ClassifierKind::HtmlFeatures),
            ClassifierArg::None => None,
        }
    }

    /// Loads the Web2Text model now when an extractor needs it, so a missing or damaged
    /// model is one clear error before any work starts (not a skip on every page).
    fn prepare_extractors(&self, extractors: &[Extractor]) -> anyhow::Result<()> {
        if extractors.iter().any(|e| e.uses_web2text()) {
            goce_warc::extract::web2text::shared_model(self.models.as_deref())?;
        }
        if extractors.contains(&Extractor::Combined) {
            goce_warc::extract::combine::shared_model(self.models.as_deref())?;
        }
        Ok(())
    }

    /// Loads the chosen classifier; LibTorch uses `threads` CPU threads.
    fn load(&self, threads: usize) -> anyhow::Result<Option<Classifier>> {
        let Some(kind) = self.kind() else { return Ok(None) };
        if kind == ClassifierKind::Resnet {
            tch::set_num_threads(i32::try_from(threads.max(1)).unwrap_or(1));
        }
        let models = goce_warc::classify::find_models_dir(self.models.as_deref())?;
        let classifier = Classifier::load(kind, &models, self.device)?;
        if let Classifier::Resnet(net) = &classifier {
            tracing::info!("classifier: resnet from {} on {:?}", models.display(), net.device);
        }
        Ok(Some(classifier))
    }
}

#[derive(Args, Debug)]
pub struct ClassifyArgs {
    /// HTML files (`.html` or `.html.gz`), or `-` for standard input.
    #[arg(value_name = "PAGE", required = true)]
    pub pages: Vec<String>,

    #[command(flatten)]
    pub classifier: ClassifierArgs,

    /// The URL the page was fetched from (one page only): its path is one of the
    /// classifier's features. Without it the page is classified as if its URL were unknown.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    /// Print a JSON line per page (with every page type's probability).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct TrainExtractArgs {
    /// WCXB-dev (its held-out fifth is never read here).
    #[arg(long, value_name = "DIR", default_value = "../shared/data/wcxb-dev")]
    pub wcxb: PathBuf,

    /// CleanEval (`dev/`, `final/`); `none` leaves it out.
    #[arg(long, value_name = "DIR", default_value = "../shared/data/cleaneval")]
    pub cleaneval: PathBuf,

    /// The Scrapinghub article benchmark (its held-out fifth is never read); `none` leaves it out.
    #[arg(long, value_name = "DIR", default_value = "../shared/data/scrapinghub")]
    pub scrapinghub: PathBuf,

    /// Where combiner.json and combiner.md go.
    #[arg(long, value_name = "DIR", default_value = "models")]
    pub out: PathBuf,

    /// Folds of the domain-grouped cross-validation.
    #[arg(long, default_value_t = 5)]
    pub folds: usize,

    /// Cross-validate only; write no model.
    #[arg(long)]
    pub cv_only: bool,

    /// Write the cross-validation report (means and every page's scores) as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write the selector's out-of-fold inputs (every page's features and candidates'
    /// scores) as JSON, for experiments with the selector (`examples/selector_cv.rs`).
    #[arg(long, value_name = "FILE")]
    pub selector_rows: Option<PathBuf>,

    /// Trees to grow.
    #[arg(long, default_value_t = 200)]
    pub trees: usize,

    /// The models folder whose ResNet gives `goce` its genre in the comparison.
    #[arg(long, value_name = "DIR", default_value = "models")]
    pub models: PathBuf,

    /// CPU threads.
    #[arg(long, short = 'j', default_value_t = 2)]
    pub threads: usize,
}

#[derive(Args, Debug)]
pub struct TrainWeb2textArgs {
    /// CleanEval: `dev/` and `final/`, each with `input/N.html` and `GoldStandard/N.txt`.
    #[arg(long, value_name = "DIR", default_value = "../shared/data/cleaneval")]
    pub cleaneval: PathBuf,

    /// A WCXB-style dataset whose held-aside fifth is scored (word F1).
    #[arg(long, value_name = "DIR")]
    pub wcxb: Option<PathBuf>,

    /// Also train on the WCXB dataset's other pages, labelled from their gold text.
    #[arg(long, requires = "wcxb")]
    pub add_wcxb: bool,

    /// Where web2text.json, web2text.safetensors and web2text-metrics.json go.
    #[arg(long, value_name = "DIR", default_value = "models")]
    pub out: PathBuf,

    /// Seed of the split, the initialisation and the excerpts.
    #[arg(long, default_value_t = 2018)]
    pub seed: u64,

    /// Most training steps per network (batches of 128 excerpts of 9 blocks).
    #[arg(long, default_value_t = 5000)]
    pub steps: usize,

    /// CPU threads.
    #[arg(long, short = 'j', default_value_t = 2)]
    pub threads: usize,
}

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The WCXB-style dataset to render and learn from.
    #[arg(long, value_name = "DIR", default_value = "../shared/data/wcxb-dev")]
    pub dataset: PathBuf,

    /// Where the models, metrics.json and the model card go.
    #[arg(long, value_name = "DIR", default_value = "models")]
    pub out: PathBuf,

    /// Seed of the domain split, the weight initialisation and the batch order.
    #[arg(long, default_value_t = goce_warc::classify::train::TrainConfig::default().seed)]
    pub seed: u64,

    /// Most training epochs (training stops earlier when validation loss stalls).
    #[arg(long, default_value_t = goce_warc::classify::train::TrainConfig::default().epochs)]
    pub epochs: usize,

    /// Channels per ResNet stage, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "32,64,128,256")]
    pub widths: Vec<i64>,

    /// Basic blocks per ResNet stage, comma-separated (ResNet-18 is 2,2,2,2).
    #[arg(long, value_delimiter = ',', default_value = "1,1,1,1")]
    pub blocks: Vec<i64>,

    /// Train on the picture alone (no HTML features fused into the head).
    #[arg(long)]
    pub picture_only: bool,

    /// Pages whose pictures and outputs are recorded in OUT/check for the regression test.
    #[arg(long, value_name = "PAGE")]
    pub check_page: Vec<PathBuf>,

    /// CPU threads for LibTorch and rendering.
    #[arg(long, short = 'j', default_value_t = 2)]
    pub threads: usize,

    /// Where to train: cpu, cuda, cuda:N, auto.
    #[arg(long, default_value = "cpu")]
    pub device: DeviceChoice,

    /// Only prepare the pages and write them (split, label, features, words) as JSON lines
    /// to FILE; train nothing (`make cv-heads` reads it).
    #[arg(long, value_name = "FILE")]
    pub samples_out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct SummaryArgs {
    /// The output folder of `process` runs (all tasks of an array write to one folder).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// The inputs the run was given: those without a manifest are listed as missing.
    #[arg(value_name = "WARC")]
    pub inputs: Vec<String>,

    /// The paths list the run was given.
    #[arg(long, value_name = "FILE")]
    pub paths: Option<PathBuf>,

    /// Directory that relative entries of --paths are resolved against.
    #[arg(long, value_name = "DIR", requires = "paths")]
    pub prefix: Option<String>,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,

    /// Print every input's manifest instead, one JSON object per line.
    #[arg(long, conflicts_with = "json")]
    pub manifests: bool,
}

#[derive(Args, Debug)]
pub struct RenderArgs {
    /// HTML files (`.html` or `.html.gz`), or `-` for standard input.
    #[arg(value_name = "PAGE", required = true)]
    pub pages: Vec<String>,

    /// Where the picture goes: a `.png` file for one page, else a folder (PAGE-STEM.png each).
    #[arg(short, long, value_name = "PATH")]
    pub output: PathBuf,

    /// Which renderer draws the picture.
    #[arg(long, value_enum, default_value = "lite")]
    pub renderer: goce_warc::render::RendererKind,

    /// Viewport width in CSS px.
    #[arg(long, default_value_t = goce_warc::render::VIEWPORT_WIDTH)]
    pub width: f32,

    /// Picture width in pixels (the top WIDTH x WIDTH px of the page, scaled to SIZE x SIZE).
    #[arg(long, default_value_t = 224)]
    pub size: u32,

    /// The whole page, as tall as it is (up to 16,384 CSS px), instead of the square top.
    #[arg(long)]
    pub full: bool,

    /// Print a JSON line per page (renderer, limit hit, boxes, milliseconds).
    #[arg(long)]
    pub json: bool,

    /// Pages rendered at once (with `chrome`, one browser each).
    #[arg(long, short = 'j', default_value_t = 1, value_name = "N")]
    pub threads: usize,

    /// Print pages/s for the whole run on standard error.
    #[arg(long)]
    pub stats: bool,
}

#[derive(Args, Debug)]
pub struct ExtractArgs {
    /// The page: an HTML file (UTF-8, or with a BOM or <meta charset>), or `-`.
    #[arg(value_name = "PAGE")]
    pub page: String,

    /// Text extraction algorithm.
    #[arg(long, value_enum, default_value = "combined")]
    pub extractor: Extractor,

    /// The page's genre, when known: `goce` uses it instead of the classifier's.
    #[arg(long, value_enum)]
    pub genre: Option<Genre>,

    /// The URL the page was fetched from, which the classifier reads (optional).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    #[command(flatten)]
    pub classifier: ClassifierArgs,

    /// Print JSON ({"title", "genre", "extractor", "text"}) instead of the text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// A WCXB-style folder (html/ID.html.gz, ground-truth/ID.json) or the Scrapinghub one
    /// (html/ID.html.gz, ground-truth.json).
    #[arg(long, value_name = "DIR")]
    pub dataset: PathBuf,

    /// Extractors to score (repeat the flag); default: all of them.
    #[arg(long, value_enum)]
    pub extractor: Vec<Extractor>,

    /// Which pages the printed tables cover (the JSON has every split).
    #[arg(long, value_enum, default_value = "all")]
    pub split: goce_warc::eval::Split,

    /// Write the report (means per split, subset and extractor, and every page's scores) as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// The classifier whose genre `goce` uses.
    #[command(flatten)]
    pub classifier: ClassifierArgs,

    /// Score only the pages of the classifier's held-out test domains (the split
    /// recorded in MODELS/metrics.json), where `goce` meets pages the classifier never saw.
    #[arg(long)]
    pub test_domains: bool,

    /// Fail (exit 1) unless the held-out word F1 of EXTRACTOR reaches each floor:
    /// `oracle:all=0.86,article=0.89,list-view=0.75`. Repeatable.
    #[arg(long, value_name = "EXTRACTOR:SUBSET=F1,...")]
    pub require: Vec<String>,
}

#[derive(Args, Debug)]
pub struct ProcessArgs {
    /// WARC files (.warc, .warc.gz with one gzip member per record, or one gzip stream);
    /// `-` reads standard input.
    #[arg(value_name = "WARC")]
    pub inputs: Vec<String>,

    /// A Common Crawl `warc.paths` list (plain or .gz): one WARC path per line.
    #[arg(long, value_name = "FILE")]
    pub paths: Option<PathBuf>,

    /// Read only slice I of N of the inputs (every N-th, from the I-th; 0-based), for job
    /// arrays. Inside a Slurm array it defaults to the task's slice (SLURM_ARRAY_TASK_ID,
    /// SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_MIN).
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<pipeline::Shard>,

    /// Directory that relative entries of --paths are resolved against.
    #[arg(long, value_name = "DIR", requires = "paths")]
    pub prefix: Option<String>,

    /// Output directory for Parquet shards and per-input manifests (created if missing).
    #[arg(long, short, value_name = "DIR")]
    pub out: PathBuf,

    /// Rows per Parquet shard; an input with more pages gets several shards.
    #[arg(long, default_value_t = 50_000, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub rows_per_shard: u64,

    /// Redo inputs that already have a manifest (by default they are skipped).
    #[arg(long)]
    pub overwrite: bool,

    /// Worker threads for page decoding and extraction (default: all cores). Each input
    /// also has one reader thread.
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,

    /// HTTP statuses to keep, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "200", value_name = "CODES", conflicts_with = "any_status")]
    pub status: Vec<u16>,

    /// Keep responses whatever their HTTP status.
    #[arg(long)]
    pub any_status: bool,

    /// Text extraction algorithm (combined: trained trees decide block by block; goce: the classifier's genre picks article or list-view).
    #[arg(long, value_enum, default_value = "combined")]
    pub extractor: Extractor,

    #[command(flatten)]
    pub classifier: ClassifierArgs,

    /// Pictures per ResNet forward pass (default: 16 on the CPU, 64 on CUDA: on the CPU as fast as bigger batches and with less memory, on CUDA the fastest measured).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub batch_size: Option<u64>,

    /// Benchmarks only: everything the ResNet path does but the network's forward pass
    /// (every page is given even type probabilities), to measure the CPU stages alone, as
    /// a GPU node's cores run them.
    #[arg(long, hide = true)]
    pub skip_network: bool,

    /// Render every page to the classifier's picture with this renderer (bounds hit are
    /// counted in the manifest's render_notes). Default: lite when the classifier is resnet.
    #[arg(long, value_enum, value_name = "RENDERER")]
    pub renderer: Option<goce_warc::render::RendererKind>,

    /// Write each page's picture as DIR/WARCSTEM-OFFSET.png (implies --renderer lite).
    #[arg(long, value_name = "DIR")]
    pub pictures: Option<PathBuf>,

    /// Largest WARC record block read; bigger records are skipped (reason record_too_large)
    /// without being held in memory.
    #[arg(long, default_value_t = ReaderLimits::default().max_record_bytes, value_name = "BYTES")]
    pub max_record_bytes: usize,

    /// Largest HTML payload after content decoding; longer payloads are cut to it
    /// (this also bounds decompression bombs).
    #[arg(long, default_value_t = PageFilter::default().max_html_bytes, value_name = "BYTES")]
    pub max_html_bytes: usize,

    /// Largest `text` value; longer text is cut at a character boundary.
    #[arg(long, default_value_t = ExtractLimits::default().max_text_bytes, value_name = "BYTES")]
    pub max_text_bytes: usize,

    /// Pages with more HTML elements are skipped (reason too_many_elements).
    #[arg(long, default_value_t = ExtractLimits::default().max_elements, value_name = "N")]
    pub max_elements: usize,

    /// Pages whose extraction takes longer are abandoned (reason page_time_limit).
    #[arg(long, default_value_t = 2000, value_name = "MS")]
    pub max_page_ms: u64,

    /// No progress bar and no closing summary (errors are still printed).
    #[arg(long, short)]
    pub quiet: bool,

    /// Also write the closing summary as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
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
        Command::Process(args) => process(args),
        Command::Extract(args) => extract(args),
        Command::Eval(args) => eval(args),
        Command::Render(args) => render(args),
        Command::Summary(args) => summary(args),
        Command::Classify(args) => classify(args),
        Command::Train(args) => train(args),
        Command::TrainWeb2text(args) => train_web2text(args),
        Command::TrainExtract(args) => train_extract(args),
    }
}

fn process(args: ProcessArgs) -> anyhow::Result<ExitCode> {
    let mut inputs: Vec<Input> = args.inputs.iter().map(|a| Input::from_arg(a)).collect();
    if let Some(list) = &args.paths {
        inputs.extend(pipeline::read_paths_list(list, args.prefix.as_deref())?);
    }
    if inputs.is_empty() {
        anyhow::bail!("no inputs: give WARC files, `-` for standard input, or --paths FILE");
    }
    check_unique_stems(&inputs)?;
    args.classifier.prepare_extractors(&[args.extractor])?;
    let shard = match args.shard {
        Some(shard) => Some(shard),
        None => pipeline::Shard::from_slurm(|k| std::env::var(k).ok()).transpose().map_err(|e| anyhow::anyhow!(e))?,
    };
    if let Some(shard) = shard {
        let total = inputs.len();
        inputs = shard.select(inputs);
        tracing::info!("shard {}/{}: {} of {total} inputs", shard.index, shard.count, inputs.len());
        if inputs.is_empty() {
            eprintln!("goce-warc: shard {}/{} has no inputs ({total} inputs in all)", shard.index, shard.count);
            return Ok(ExitCode::SUCCESS);
        }
    }
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let classifier = args.classifier.load(threads)?;
    let on_gpu = matches!(&classifier, Some(Classifier::Resnet(net)) if net.device.is_cuda());
    let resnet_on_cpu = matches!(&classifier, Some(Classifier::Resnet(_))) && !on_gpu;
    if !resnet_on_cpu {
        fix_malloc_mmap_threshold();
    }
    let batch_size = args.batch_size.map_or(if on_gpu { CUDA_BATCH } else { CPU_BATCH }, |b| usize::try_from(b).unwrap_or(CPU_BATCH));
    let renderer = match (args.renderer, &args.pictures, &classifier) {
        (None, None, Some(Classifier::Resnet(_))) => Some(goce_warc::render::RendererKind::Lite),
        (None, None, _) => None,
        (kind, _, _) => Some(kind.unwrap_or_default()),
    };
    let config = ProcessConfig {
        out_dir: args.out.clone(),
        rows_per_shard: usize::try_from(args.rows_per_shard).unwrap_or(usize::MAX),
        overwrite: args.overwrite,
        threads,
        reader: ReaderLimits { max_record_bytes: args.max_record_bytes, ..ReaderLimits::default() },
        filter: PageFilter {
            statuses: if args.any_status { Vec::new() } else { args.status.clone() },
            max_html_bytes: args.max_html_bytes,
            ..PageFilter::default()
        },
        extractor: args.extractor,
        extract_limits: ExtractLimits {
            max_text_bytes: args.max_text_bytes,
            max_elements: args.max_elements,
            max_page_time: std::time::Duration::from_millis(args.max_page_ms),
        },
        renderer: match renderer {
            None => None,
            Some(kind) => Some(std::sync::Arc::new(goce_warc::render::PageRenderer::new(kind, goce_warc::render::RenderOptions::default())?)),
        },
        pictures_dir: args.pictures.clone(),
        classifier: classifier.map(std::sync::Arc::new),
        batch_size,
        skip_network: args.skip_network,
    };
    if let Some(dir) = &args.pictures {
        std::fs::create_dir_all(dir).with_context(|| format!("creating --pictures folder {}", dir.display()))?;
    }
    let total: Option<u64> = inputs.iter().map(Input::size).sum();
    let progress = Progress::new(total, args.quiet);
    let summary = pipeline::run(&inputs, &config, &progress)?;
    progress.finish();
    if !args.quiet {
        eprint!("{}", render_summary(&summary));
    }
    if let Some(path) = &args.stats {
        let json = serde_json::to_string_pretty(&summary)?;
        std::fs::write(path, json + "\n").with_context(|| format!("writing --stats file {}", path.display()))?;
    }
    Ok(if summary.inputs_failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Two inputs with the same file name would write the same output names.
/// Exit 0 when every given input has a manifest, 1 when some are missing (a rerun is due).
fn summary(args: SummaryArgs) -> anyhow::Result<ExitCode> {
    let (summary, manifests) = goce_warc::output::summarize(&args.dir).with_context(|| format!("reading {}", args.dir.display()))?;
    let mut expected: Vec<Input> = args.inputs.iter().map(|a| Input::from_arg(a)).collect();
    if let Some(list) = &args.paths {
        expected.extend(pipeline::read_paths_list(list, args.prefix.as_deref())?);
    }
    let done: std::collections::BTreeSet<&str> = manifests.iter().map(|m| m.stem.as_str()).collect();
    let missing: Vec<String> = expected.iter().filter(|i| !done.contains(i.stem().as_str())).map(Input::display).collect();
    if args.manifests {
        let lines: Vec<String> = manifests.iter().map(serde_json::to_string).collect::<Result<_, _>>()?;
        print_stdout(&lines.join("\n"))?;
    } else if args.json {
        let json = serde_json::json!({"inputs_done": summary.inputs_done, "inputs_expected": expected.len(), "missing": missing, "counts": summary.counts, "unreadable": summary.unreadable});
        print_stdout(&serde_json::to_string_pretty(&json)?)?;
    } else {
        let c = &summary.counts;
        let list = |m: &std::collections::BTreeMap<String, u64>| m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ");
        let mut out = format!("{} inputs done: {} pages, {:.1} MB of WARC read\n", summary.inputs_done, c.pages, c.warc_bytes as f64 / 1e6);
        for (name, map) in
            [("genres", &c.genres), ("filtered", &c.filtered), ("skipped", &c.skipped), ("rendered", &c.rendered), ("render notes", &c.render_notes)]
        {
            if !map.is_empty() {
                out += &format!("  {name}: {}\n", list(map));
            }
        }
        if !c.languages.is_empty() {
            // Most pages first: the head of a crawl's language distribution is what matters.
            let mut languages: Vec<(&String, &u64)> = c.languages.iter().collect();
            languages.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            out += &format!("  languages: {}\n", languages.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "));
        }
        if !expected.is_empty() {
            out += &format!("{} of {} inputs missing\n", missing.len(), expected.len());
            for m in &missing {
                out += &format!("  missing {m}\n");
            }
        }
        for u in &summary.unreadable {
            out += &format!("  unreadable manifest: {u}\n");
        }
        print_stdout(out.trim_end())?;
    }
    Ok(if missing.is_empty() && summary.unreadable.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn parse_shard(spec: &str) -> Result<pipeline::Shard, String> {
    pipeline::Shard::parse(spec)
}

fn check_unique_stems(inputs: &[Input]) -> anyhow::Result<()> {
    let mut seen = std::collections::HashMap::new();
    for input in inputs {
        if let Some(other) = seen.insert(input.stem(), input.display()) {
            anyhow::bail!(
                "inputs {other} and {} would write the same output name {:?}; process them into different --out directories",
                input.display(),
                input.stem()
            );
        }
    }
    Ok(())
}

fn render_summary(s: &RunSummary) -> String {
    let c = &s.counts;
    let mut out = format!(
        "goce-warc: {} input(s) done, {} already done, {} failed in {:.1}s\n  records {} | pages {} | {:.1} pages/s | {:.1} MB/s of WARC\n",
        s.inputs_done,
        s.inputs_already_done,
        s.inputs_failed.len(),
        s.seconds,
        c.total_records(),
        c.pages,
        s.pages_per_second,
        s.warc_mb_per_second,
    );
    let stages = &s.stage_seconds;
    if stages.stages_cpu() > 0.0 {
        out += &format!(
            "  CPU outside the classifier's network: reader {:.1}s, workers {:.1}s, writer {:.1}s = {:.0} pages per CPU-second\n",
            stages.reader_cpu, stages.workers_cpu, stages.write_cpu, s.pages_per_stage_cpu_second
        );
    }
    let list = |m: &std::collections::BTreeMap<String, u64>| m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ");
    if !c.filtered.is_empty() {
        out += &format!("  filtered: {}\n", list(&c.filtered));
    }
    if !c.skipped.is_empty() {
        out += &format!("  skipped: {}\n", list(&c.skipped));
    }
    if !c.rendered.is_empty() {
        out += &format!("  rendered: {}\n", list(&c.rendered));
    }
    if !c.render_notes.is_empty() {
        out += &format!("  render notes: {}\n", list(&c.render_notes));
    }
    for failed in &s.inputs_failed {
        out += &format!("  FAILED {}: {}\n", failed.input, failed.error);
    }
    out
}

fn extract(args: ExtractArgs) -> anyhow::Result<ExitCode> {
    let html = read_page(&args.page)?;
    args.classifier.prepare_extractors(&[args.extractor])?;
    if args.extractor.needs_gold_genre() && args.genre.is_none() {
        anyhow::bail!("--extractor oracle needs --genre (or use goce, which guesses it)");
    }
    let prediction = match args.classifier.load(1)? {
        Some(classifier) if args.extractor.uses_classifier() && args.genre.is_none() => {
            Some(classifier.classify_html(&html, args.url.as_deref().unwrap_or(""), &ExtractLimits::default())?)
        }
        _ => None,
    };
    let genre = args.genre.or_else(|| prediction.as_ref().filter(|_| args.extractor.uses_genre()).map(|p| p.genre));
    let extraction = args.extractor.extract_with(&html, genre, prediction.map(|p| p.probabilities), &ExtractLimits::default())?;
    let output = if args.json {
        let json = serde_json::json!({
            "title": extraction.title,
            "genre": extraction.genre.map(Genre::name),
            "extractor": args.extractor.name(),
            "text": extraction.text,
        });
        serde_json::to_string_pretty(&json)?
    } else {
        extraction.text
    };
    print_stdout(&output)?;
    Ok(ExitCode::SUCCESS)
}

fn read_page(page: &str) -> anyhow::Result<String> {
    if page == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).context("reading standard input")?;
        return Ok(goce_warc::page::charset::decode(&bytes, None, None).text);
    }
    goce_warc::page::read_html_file(std::path::Path::new(page)).with_context(|| format!("reading {page}"))
}

fn render(args: RenderArgs) -> anyhow::Result<ExitCode> {
    use goce_warc::dom::{Dom, DomLimits};
    use goce_warc::render::{PageRenderer, RenderOptions};
    anyhow::ensure!(args.size >= 8 && args.size <= 4096, "--size must be between 8 and 4096");
    anyhow::ensure!(args.width >= 64.0 && args.width <= 8192.0, "--width must be between 64 and 8192");
    let options = RenderOptions { viewport_width: args.width, size: args.size, full: args.full, ..RenderOptions::default() };
    let renderer = PageRenderer::new(args.renderer, options)?;
    let single_file = args.pages.len() == 1 && args.output.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !single_file {
        std::fs::create_dir_all(&args.output).with_context(|| format!("creating {}", args.output.display()))?;
    }
    let render_one = |page: &String| -> anyhow::Result<serde_json::Value> {
        let html = read_page(page)?;
        let limits = DomLimits { max_elements: ExtractLimits::default().max_elements, deadline: None };
        let dom = Dom::parse_with_styles(&html, limits)?;
        let rendered = renderer.render(&html, &dom)?;
        let target = if single_file {
            args.output.clone()
        } else {
            let name = std::path::Path::new(page).file_name().and_then(|n| n.to_str()).unwrap_or("stdin");
            let stem = name.trim_end_matches(".gz").trim_end_matches(".html").trim_end_matches(".htm");
            args.output.join(format!("{}.png", if stem.is_empty() { "page" } else { stem }))
        };
        std::fs::write(&target, rendered.picture.to_png()?).with_context(|| format!("writing {}", target.display()))?;
        Ok(serde_json::json!({
            "page": page,
            "picture": target,
            "renderer": rendered.renderer,
            "limit": rendered.limit.map(|l| l.name()),
            "boxes": rendered.boxes,
            "page_height": rendered.page_height,
            "layout_ms": rendered.layout_time.as_secs_f64() * 1e3,
            "paint_ms": rendered.paint_time.as_secs_f64() * 1e3,
            "ink": rendered.picture.ink_share(),
        }))
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.max(1)).build().context("starting worker threads")?;
    let started = std::time::Instant::now();
    // Pages in order, in chunks, so reports come out as they are done.
    let mut failed = 0;
    for chunk in args.pages.chunks(64) {
        let outcomes: Vec<anyhow::Result<serde_json::Value>> = pool.install(|| {
            use rayon::prelude::*;
            chunk.par_iter().map(render_one).collect()
        });
        for (page, outcome) in chunk.iter().zip(outcomes) {
            match outcome {
                Ok(report) if args.json => print_stdout(&report.to_string())?,
                Ok(_) => {}
                Err(e) => {
                    failed += 1;
                    eprintln!("goce-warc: {page}: {e:#}");
                }
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    tracing::info!("{} pages in {secs:.2} s: {:.1} pages/s with {} threads", args.pages.len(), args.pages.len() as f64 / secs.max(1e-9), args.threads);
    if args.stats {
        eprintln!(
            "rendered {} pages ({failed} failed) in {secs:.2} s: {:.1} pages/s with {} threads",
            args.pages.len(),
            args.pages.len() as f64 / secs.max(1e-9),
            args.threads
        );
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn eval(args: EvalArgs) -> anyhow::Result<ExitCode> {
    use goce_warc::eval::{self, Split};
    let extractors = if args.extractor.is_empty() { <Extractor as clap::ValueEnum>::value_variants().to_vec() } else { args.extractor.clone() };
    let floors: Vec<(Extractor, String, f64)> =
        args.require.iter().map(|r| parse_floor(r)).collect::<anyhow::Result<Vec<_>>>()?.into_iter().flatten().collect();
    args.classifier.prepare_extractors(&extractors)?;
    let mut pages = eval::load(&args.dataset)?;
    if args.test_domains {
        let models = goce_warc::classify::find_models_dir(args.classifier.models.as_deref())?;
        let split = goce_warc::classify::train::recorded_split(&models)?;
        pages.retain(|p| split.is_test(p));
        eprintln!("eval: {} pages from the classifier's held-out test domains", pages.len());
    }
    anyhow::ensure!(!pages.is_empty(), "no pages in {}", args.dataset.display());
    let started = std::time::Instant::now();
    let threads = rayon::current_num_threads();
    let (genres, genre_source) = match args.classifier.load(threads)? {
        Some(classifier) if extractors.iter().any(|e| e.uses_classifier()) => {
            let predicted = eval::predict_pages(&pages, &classifier, &ExtractLimits::default())?;
            (predicted, format!("the {} classifier's genre", classifier.kind().name()))
        }
        _ => (Default::default(), "a guess from HTML structure (list-view repetition), --classifier none".to_string()),
    };
    let scores = eval::evaluate(&pages, &extractors, &ExtractLimits::default(), &genres);
    let report = eval::report(&args.dataset.display().to_string(), &extractors, scores, &genre_source);
    let splits = if args.split == Split::All { vec![Split::Tuning, Split::HeldOut, Split::All] } else { vec![args.split] };
    for split in splits {
        print_stdout(&eval::render_table(&report, split))?;
    }
    eprintln!("eval: {} pages x {} extractors in {:.1}s", pages.len(), extractors.len(), started.elapsed().as_secs_f64());
    if let Some(path) = &args.json {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, serde_json::to_string_pretty(&report)? + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    let mut failed = false;
    for (extractor, subset, floor) in floors {
        let got = report.means.get("held-out").and_then(|s| s.get(&subset)).and_then(|e| e.get(extractor.name())).map(|m| m.word_f1);
        match got {
            Some(f1) if f1 >= floor => print_stdout(&format!("floor ok: {} {subset} held-out word F1 {f1:.3} >= {floor}", extractor.name()))?,
            Some(f1) => {
                print_stdout(&format!("FLOOR MISSED: {} {subset} held-out word F1 {f1:.3} < {floor}", extractor.name()))?;
                failed = true;
            }
            None => anyhow::bail!("--require {}:{subset}: no such extractor or subset in this run", extractor.name()),
        }
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn classify(args: ClassifyArgs) -> anyhow::Result<ExitCode> {
    let Some(classifier) = args.classifier.load(rayon::current_num_threads())? else {
        anyhow::bail!("--classifier none: nothing to classify with");
    };
    anyhow::ensure!(args.url.is_none() || args.pages.len() == 1, "--url names the URL of one page; give one page with it");
    let url = args.url.as_deref().unwrap_or("");
    let mut failed = 0;
    for page in &args.pages {
        let prediction = read_page(page).and_then(|html| Ok(classifier.classify_html(&html, url, &ExtractLimits::default())?));
        match prediction {
            Ok(p) if args.json => {
                let probabilities: serde_json::Map<String, serde_json::Value> =
                    goce_warc::classify::PAGE_TYPES.iter().zip(p.probabilities).map(|(t, v)| (t.name().to_string(), serde_json::json!(v))).collect();
                print_stdout(
                    &serde_json::json!({
                        "page": page,
                        "classifier": classifier.kind().name(),
                        "page_type": p.page_type.name(),
                        "genre": p.genre.name(),
                        "genre_confidence": p.genre_confidence,
                        "probabilities": probabilities,
                    })
                    .to_string(),
                )?;
            }
            Ok(p) => print_stdout(&format!("{page}\t{}\t{}\t{:.3}", p.genre.name(), p.page_type.name(), p.genre_confidence))?,
            Err(e) => {
                failed += 1;
                eprintln!("goce-warc: {page}: {e:#}");
            }
        }
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn train(args: TrainArgs) -> anyhow::Result<ExitCode> {
    use goce_warc::classify::train::{self, TrainConfig};
    let config = TrainConfig {
        dataset: args.dataset,
        out: args.out,
        seed: args.seed,
        epochs: args.epochs,
        widths: args.widths,
        blocks: args.blocks,
        fuse_features: !args.picture_only,
        threads: args.threads,
        device: args.device,
        check_pages: args.check_page,
        ..TrainConfig::default()
    };
    rayon::ThreadPoolBuilder::new().num_threads(config.threads.max(1)).build_global().ok();
    if let Some(path) = &args.samples_out {
        let (samples, skipped) = train::prepare(&config)?;
        train::write_samples(&samples, path)?;
        eprintln!("train: wrote {} pages to {} ({} skipped)", samples.len(), path.display(), skipped.values().sum::<usize>());
        return Ok(ExitCode::SUCCESS);
    }
    let report = train::train(&config, &|line| eprintln!("train: {line}"))?;
    let card = train::model_card(&report);
    std::fs::write(config.out.join("README.md"), card).context("writing the model card")?;
    eprintln!("train: wrote {}", config.out.display());
    Ok(ExitCode::SUCCESS)
}

fn train_web2text(args: TrainWeb2textArgs) -> anyhow::Result<ExitCode> {
    use goce_warc::extract::web2text::train::{self, TrainConfig};
    let mut config = TrainConfig::new(args.cleaneval, args.out);
    config.wcxb = args.wcxb;
    config.add_wcxb = args.add_wcxb;
    config.seed = args.seed;
    config.steps = args.steps;
    rayon::ThreadPoolBuilder::new().num_threads(args.threads.max(1)).build_global().ok();
    tch::set_num_threads(i32::try_from(args.threads.max(1)).unwrap_or(1));
    let report = train::train(&config, &|line| eprintln!("train-web2text: {line}"))?;
    std::fs::write(config.out.join("web2text.md"), train::model_card(&report, &config)).context("writing the Web2Text model card")?;
    eprintln!("train-web2text: wrote {} ({:.0} s)", config.out.display(), report.seconds);
    Ok(ExitCode::SUCCESS)
}

fn train_extract(args: TrainExtractArgs) -> anyhow::Result<ExitCode> {
    use goce_warc::extract::combine::train::{self, TrainConfig, TreeSettings};
    let started = std::time::Instant::now();
    let given = |p: PathBuf| (p.as_os_str() != "none").then_some(p);
    let config = TrainConfig {
        wcxb: args.wcxb,
        cleaneval: given(args.cleaneval),
        scrapinghub: given(args.scrapinghub),
        out: args.out,
        folds: args.folds,
        trees: TreeSettings { trees: args.trees, ..TreeSettings::default() },
        cv_only: args.cv_only,
    };
    rayon::ThreadPoolBuilder::new().num_threads(args.threads.max(1)).build_global().ok();
    tch::set_num_threads(i32::try_from(args.threads.max(1)).unwrap_or(1));
    let pages = train::load_pages(&config)?;
    eprintln!("train-extract: {} pages; the ResNet's genre for goce", pages.len());
    let classifier = Classifier::load(ClassifierKind::Resnet, &args.models, DeviceChoice::Cpu)?;
    let keyed: Vec<goce_warc::eval::GoldPage> =
        pages.iter().map(|(dataset, p)| goce_warc::eval::GoldPage { id: format!("{dataset}/{}", p.id), ..p.clone() }).collect();
    let predictions = goce_warc::eval::predict_pages(&keyed, &classifier, &ExtractLimits::default())?;
    drop(keyed);
    let split = goce_warc::classify::train::recorded_split(&args.models).ok();
    let prepared = train::prepare(pages, &predictions, split.as_ref());
    let blocks: usize = prepared.iter().map(|p| p.table.len()).sum();
    eprintln!("train-extract: {} pages prepared, {blocks} blocks ({:.0} s)", prepared.len(), started.elapsed().as_secs_f64());
    let (report, selector_rows) = train::cross_validate(&prepared, &config, &|line| eprintln!("train-extract: {line}"))?;
    print_stdout(&train::render_report(&report))?;
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string(&report)?).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.selector_rows {
        let rows = train::described_rows(&prepared, &selector_rows, config.folds);
        std::fs::write(path, serde_json::to_string(&rows)?).with_context(|| format!("writing {}", path.display()))?;
    }
    if config.cv_only {
        return Ok(ExitCode::SUCCESS);
    }
    let fit_started = std::time::Instant::now();
    let (final_pages, final_blocks) = train::train_final(&prepared, &selector_rows, &config)?;
    let card = train::model_card(&report, final_pages, final_blocks, fit_started.elapsed().as_secs_f64());
    std::fs::write(config.out.join("combiner.md"), card).context("writing the combiner's model card")?;
    eprintln!("train-extract: wrote {} ({:.0} s)", config.out.display(), started.elapsed().as_secs_f64());
    Ok(ExitCode::SUCCESS)
}

/// Only for builds with glibc's malloc (`--no-default-features`; mimalloc replaces it
/// otherwise). glibc serves a block from its heap instead of mmap once a freed mmapped block has
/// raised its threshold (up to 32 MB); WARC records of every size then fragment the heap
/// and peak RSS creeps up with the input (`make bench-e2e`, extraction only: 240 → 274 MB
/// from a 3,000- to a 21,000-page input). A fixed threshold keeps big buffers in mmap,
/// returned to the system when freed (217 → 231 MB, same speed). Not while the ResNet runs
/// on the CPU: its activations (1–50 MB each forward pass) would then be mapped and
/// faulted in every batch, 30% slower (measured).
#[allow(unsafe_code)]
fn fix_malloc_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc")))]
    // SAFETY: mallopt sets an allocator parameter under the allocator's own lock.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 10);
    }
}

/// "oracle:all=0.86,article=0.89" → [(oracle, all, 0.86), (oracle, article, 0.89)].
fn parse_floor(spec: &str) -> anyhow::Result<Vec<(Extractor, String, f64)>> {
    let (name, floors) = spec.split_once(':').context("--require wants EXTRACTOR:SUBSET=F1,...")?;
    let extractor = <Extractor as clap::ValueEnum>::from_str(name, false).map_err(|e| anyhow::anyhow!("--require: {e}"))?;
    floors
        .split(',')
        .map(|f| {
            let (subset, value) = f.split_once('=').context("--require wants SUBSET=F1")?;
            Ok((extractor, subset.trim().to_string(), value.trim().parse::<f64>().context("--require: F1 must be a number")?))
        })
        .collect()
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
