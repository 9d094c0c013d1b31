//! The `goce-warc` binary: flags → configuration → the library's pipeline → exit code.

mod cli;

use std::process::ExitCode;

use clap::Parser;

// mimalloc, not the system allocator: parsing makes many small allocations per element;
// faster per core, measured in docs/performance.md ("Big inputs and memory"). It also replaces malloc
// for LibTorch (the `override` feature), whose CPU activations grew glibc's heap over a run.
// Its v2 (the `v2` feature; the crate builds v3 by default): 3% less CPU and 8% less peak
// memory for the default `process` here (docs/performance.md, b5b4e42).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    disable_transparent_huge_pages();
    #[cfg(feature = "mimalloc")]
    keep_freed_memory_longer();
    let args = cli::Cli::parse();
    goce_warc::flags::init_logging(args.verbose, &["goce_warc"]);
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
/// peak memory for the default `process` here (docs/performance.md, fee7a6e).
/// Applies to memory mapped before `main` too; a kernel without the call just keeps them.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn disable_transparent_huge_pages() {
    // SAFETY: the call takes integers only and touches no memory of this process.
    let _ = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
}

#[cfg(not(target_os = "linux"))]
fn disable_transparent_huge_pages() {}

/// mimalloc's `purge_delay` option: how long freed memory stays mapped before it goes back
/// to the system. Its index in mimalloc.h's `mi_option_e` (v2; libmimalloc-sys names no
/// constant for it), checked in the tests.
#[cfg(feature = "mimalloc")]
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Freed memory goes back to the system after 250 ms, not mimalloc's 10. A page takes a
/// worker a few ms and frees most of what it took; at 10 ms that memory was returned and
/// mapped afresh (zeroed by the kernel) every page or two. 5% less CPU and 7% more peak
/// memory for the default `process` here (docs/performance.md, 204c441).
/// `MIMALLOC_PURGE_DELAY` in the environment still decides where it is set.
#[cfg(feature = "mimalloc")]
#[allow(unsafe_code)]
fn keep_freed_memory_longer() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one integer option, which mimalloc reads atomically.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 250) };
    }
}

#[cfg(all(test, feature = "mimalloc"))]
mod tests {
    /// mimalloc reads `MIMALLOC_PURGE_DELAY` at start into the option it calls
    /// `purge_delay`: this test, run again with it set, must find that value at
    /// [`super::MI_OPTION_PURGE_DELAY`], or the index names another option.
    #[test]
    #[allow(unsafe_code)]
    fn the_purge_delay_index_is_mimallocs_purge_delay() {
        // SAFETY: reads one integer option.
        let value = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        if std::env::var_os("GOCE_WARC_PURGE_DELAY_CHILD").is_some() {
            assert_eq!(value, 1234);
            return;
        }
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "tests::the_purge_delay_index_is_mimallocs_purge_delay", "--quiet"])
            .env("GOCE_WARC_PURGE_DELAY_CHILD", "1")
            .env("MIMALLOC_PURGE_DELAY", "1234")
            .output()
            .unwrap();
        assert!(child.status.success(), "{}", String::from_utf8_lossy(&child.stdout));
        assert!(String::from_utf8_lossy(&child.stdout).contains("1 passed"), "the child ran the test");
    }
}
