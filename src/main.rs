//! The `goce-warc` binary: flags → configuration → the library's pipeline → exit code.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    cli::init_logging(args.verbose);
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("goce-warc: error: {e:#}");
            ExitCode::from(1)
        }
    }
}
