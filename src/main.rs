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
    disable_transparent_huge_pages();
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

/// Transparent huge pages off for this process. mimalloc advises them on its arenas; the
/// kernel then zeroes 2 MB at the first touch of each, again after every purge of a smaller
/// range in it, and a run's many short-lived pages paid for that: 4% more CPU and 9% more
/// peak memory for the default `process` here (docs/performance.md, ninth session).
/// Applies to memory mapped before `main` too; a kernel without the call just keeps them.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn disable_transparent_huge_pages() {
    // SAFETY: the call takes integers only and touches no memory of this process.
    let _ = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
}

#[cfg(not(target_os = "linux"))]
fn disable_transparent_huge_pages() {}
