//! The training binary's commands and flags; exit codes as `goce-warc`'s: 0 done, 1 failed
//! (or a floor missed), 2 bad usage.

mod eval;
mod train;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};

use goce_warc::choice::Choice;
use goce_warc::classify::{Classifier, ClassifierKind, DeviceChoice};
use goce_warc::extract::{ExtractLimits, Extractor};
use goce_warc::flags::{ClassifierArg, ClassifierArgs, choice, print_stdout};

use eval::EvalArgs;
use train::{TrainArgs, TrainExtractArgs, TrainWeb2textArgs};

#[derive(Parser, Debug)]
#[command(name = "goce-warc-train", version, about = "Train goce-warc's models on gold pages and score its extractors")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// More log output on standard error: -v info, -vv debug (RUST_LOG overrides).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Train the ResNet and the html-features baseline on a WCXB-style dataset and
    /// write models/ (what `make model` runs).
    Train(TrainArgs),
    /// Train Web2Text's two CNNs on CleanEval (the paper's split) and write
    /// models/web2text.* (what `make model-web2text` runs).
    TrainWeb2text(TrainWeb2textArgs),
    /// Train the combiner (the default extractor) on every page with gold text, after
    /// domain-grouped cross-validation beside the other extractors.
    TrainExtract(TrainExtractArgs),
    /// Score extractors against a gold dataset (WCXB or Scrapinghub layout).
    Eval(EvalArgs),
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Train(args) => train::train(args),
        Command::TrainWeb2text(args) => train::train_web2text(args),
        Command::TrainExtract(args) => train::train_extract(args),
        Command::Eval(args) => eval::eval(args),
    }
}
