//! Parse + extract speed on one core over real pages (every fifth WCXB-dev page, the
//! held-out part, from `GOCE_BENCH_PAGES`, default `../shared/data/wcxb-dev`).
//! Reported as pages per second; HTML parsing is also timed on its own.

use std::hint::black_box;
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use goce_warc::dom::{Dom, DomLimits};
use goce_warc::extract::{ExtractLimits, Extractor};

fn pages() -> Vec<String> {
    let dir = PathBuf::from(std::env::var("GOCE_BENCH_PAGES").unwrap_or_else(|_| "../shared/data/wcxb-dev".into()));
    let Ok(entries) = std::fs::read_dir(dir.join("html")) else {
        eprintln!("extract bench: {} has no html/ folder; set GOCE_BENCH_PAGES", dir.display());
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    paths
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 5 == 4)
        .filter_map(|(_, p)| {
            let bytes = std::fs::read(p).ok()?;
            let mut html = Vec::new();
            flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_end(&mut html).ok()?;
            Some(goce_warc::page::charset::decode(&html, None, None).text)
        })
        .collect()
}

fn extract(c: &mut Criterion) {
    let pages = pages();
    if pages.is_empty() {
        return;
    }
    let bytes: usize = pages.iter().map(String::len).sum();
    eprintln!("extract bench: {} pages, {:.1} MB of HTML", pages.len(), bytes as f64 / 1e6);
    let limits = ExtractLimits::default();
    let mut group = c.benchmark_group("extract");
    group.sample_size(10).measurement_time(Duration::from_secs(15));
    group.throughput(Throughput::Elements(pages.len() as u64));
    group.bench_function("html5ever parse only", |b| {
        b.iter(|| {
            for page in &pages {
                black_box(Dom::parse(page, DomLimits { max_elements: limits.max_elements, deadline: None }).ok());
            }
        })
    });
    for extractor in [Extractor::AllText, Extractor::Article, Extractor::ListView, Extractor::Goce] {
        group.bench_function(format!("parse + {}", extractor.name()), |b| {
            b.iter(|| {
                for page in &pages {
                    black_box(extractor.extract(page, None, &limits).ok());
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, extract);
criterion_main!(benches);
