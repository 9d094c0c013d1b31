//! The `goce-warc` binary: flags → configuration → the library's pipeline → exit code.

mod cli;

use std::process::ExitCode;

use clap::Parser;

// mimalloc, not the system allocator: parsing makes many small allocations per element;
// faster per core for more memory, measured in the README ("Speed", "Big inputs").
#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
