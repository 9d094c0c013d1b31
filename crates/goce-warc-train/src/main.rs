//! The `goce-warc-train` binary: the models retrained from gold pages (`train`,
//! `train-web2text`, `train-extract`) and the extractors scored on them (`eval`).

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    goce_warc::flags::init_logging(args.verbose, &["goce_warc", "goce_warc_train"]);
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("goce-warc-train: error: {e:#}");
            ExitCode::from(1)
        }
    }
}
