//! The pages the benchmarks run over: the held-out fifth of WCXB-dev (every fifth page by id),
//! from `GOCE_BENCH_PAGES` (default `../shared/data/wcxb-dev`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failure here is the report

use std::path::PathBuf;

// The binary's allocator, so the figures are the binary's.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub fn held_out_pages(bench: &str) -> Vec<String> {
    let dir = PathBuf::from(std::env::var("GOCE_BENCH_PAGES").unwrap_or_else(|_| "../shared/data/wcxb-dev".into()));
    let Ok(entries) = std::fs::read_dir(dir.join("html")) else {
        eprintln!("{bench} bench: {} has no html/ folder; set GOCE_BENCH_PAGES", dir.display());
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    paths.iter().enumerate().filter(|(i, _)| i % 5 == 4).filter_map(|(_, p)| goce_warc::page::read_html_file(p).ok()).collect()
}
