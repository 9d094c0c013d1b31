//! Command-line flags, their documentation (it becomes `--help`), and the mapping of
//! outcomes to exit codes: 0 all inputs read, 1 an input failed outright or the run
//! could not start, 2 bad usage.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};

use goce_warc::extract::{ExtractLimits, Extractor};
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

    /// Text extraction algorithm.
    #[arg(long, value_enum, default_value = "all-text")]
    pub extractor: Extractor,

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
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false).init();
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Process(args) => process(args),
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
    let config = ProcessConfig {
        out_dir: args.out.clone(),
        rows_per_shard: usize::try_from(args.rows_per_shard).unwrap_or(usize::MAX),
        overwrite: args.overwrite,
        threads: args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1),
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
    };
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
    let list = |m: &std::collections::BTreeMap<String, u64>| {
        m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
    };
    if !c.filtered.is_empty() {
        out += &format!("  filtered: {}\n", list(&c.filtered));
    }
    if !c.skipped.is_empty() {
        out += &format!("  skipped: {}\n", list(&c.skipped));
    }
    for failed in &s.inputs_failed {
        out += &format!("  FAILED {}: {}\n", failed.input, failed.error);
    }
    out
}
