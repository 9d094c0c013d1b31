//! The `goce-warc` binary: flags → configuration → the library's pipeline → exit code.

mod cli;

use std::process::ExitCode;

use clap::Parser;

// mimalloc, not the system allocator: parsing makes many small allocations per element;
// faster per core, measured in the README ("Speed", "Big inputs"). It also replaces malloc
// for LibTorch (the `override` feature), whose CPU activations grew glibc's heap over a run.
// Its v2 (the `v2` feature; the crate builds v3 by default): 3% less CPU and 8% less peak
// memory for the default `process` here (docs/performance.md, eighth session).
#[cfg(feature = "mimalloc")]
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
