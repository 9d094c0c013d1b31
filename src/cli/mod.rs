//! Command-line flags, their documentation (it becomes `--help`), and the mapping of
//! outcomes to exit codes: 0 all inputs read, 1 an input failed outright or the run
//! could not start, 2 bad usage. One file per command: its flags, the step from flags to
//! the library's configuration, and the run.

mod classify;
mod extract;
mod process;
mod render;
mod summary;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};

use goce_warc::classify::{CPU_BATCH, CUDA_BATCH, Classifier};
use goce_warc::extract::{ExtractLimits, Extractor, Genre};
use goce_warc::page::PageFilter;
use goce_warc::pipeline::{self, Input, ProcessConfig, Progress, RunSummary};
use goce_warc::warc::ReaderLimits;

use classify::ClassifyArgs;
use extract::ExtractArgs;
use goce_warc::flags::{ClassifierArgs, choice, print_stdout};
use process::ProcessArgs;
use render::RenderArgs;
use summary::SummaryArgs;

#[derive(Parser, Debug)]
#[command(name = "goce-warc", version, about = "Common Crawl WARC archives to clean, genre-labelled text in Parquet")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// More log output on standard error: -v info, -vv debug (RUST_LOG overrides).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

// Parsed once per run: the size of the largest command's flags costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Read WARC files and write one Parquet row per HTML page.
    Process(ProcessArgs),
    /// Extract the text of one HTML page (a file, or `-` for standard input).
    Extract(ExtractArgs),
    /// Draw pages as the classifier sees them: PNG pictures from HTML files.
    Render(RenderArgs),
    /// Say what type and genre pages are (the classifier that `process` uses).
    Classify(ClassifyArgs),
    /// Add up the manifests of an output folder (pages, genres, skips by reason) and list
    /// the inputs that have none yet.
    Summary(SummaryArgs),
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Process(args) => process::process(args),
        Command::Extract(args) => extract::extract(args),
        Command::Render(args) => render::render(args),
        Command::Summary(args) => summary::summary(args),
        Command::Classify(args) => classify::classify(args),
    }
}

/// The Markdown flags of `process` and `extract`.
#[derive(Args, Debug)]
pub struct MarkdownArgs {
    /// The kept blocks also as GitHub-flavoured Markdown (headings, lists, tables, code,
    /// math): `process` writes it to the `markdown` column (null without this flag),
    /// `extract` prints it instead of the text (with --json, as a "markdown" key).
    #[arg(long)]
    pub markdown: bool,

    /// In the Markdown, keep link targets and images (`[text](url)`, `![alt](src)`),
    /// resolved against the page's <base href>, else its URL (`extract`: --url).
    #[arg(long, requires = "markdown")]
    pub markdown_links: bool,
}

impl MarkdownArgs {
    /// What the extractor is asked for; `page_url` resolves links where the page has no
    /// `<base href>` (`process` gives each record's URL itself).
    fn options(&self, page_url: Option<String>) -> Option<goce_warc::extract::MarkdownOptions> {
        self.markdown.then_some(goce_warc::extract::MarkdownOptions { links: self.markdown_links, page_url })
    }
}

fn read_page(page: &str) -> anyhow::Result<String> {
    if page == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).context("reading standard input")?;
        return Ok(goce_warc::page::charset::decode(bytes, None, None).text);
    }
    goce_warc::page::read_html_file(std::path::Path::new(page)).with_context(|| format!("reading {page}"))
}
