//! Lite renderer speed on one core over real pages (the held-out fifth of WCXB-dev, from
//! `GOCE_BENCH_PAGES`, default `../shared/data/wcxb-dev`): style + layout + paint on a parsed
//! DOM, with HTML parsing (keeping `<style>`) timed on its own. Before criterion runs, one
//! timed pass prints the per-page median and 90th percentile.

use std::hint::black_box;
use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use goce_warc::dom::{Dom, DomLimits};
use goce_warc::render::{RenderOptions, render_lite};

fn pages() -> Vec<String> {
    let dir = PathBuf::from(std::env::var("GOCE_BENCH_PAGES").unwrap_or_else(|_| "../shared/data/wcxb-dev".into()));
    let Ok(entries) = std::fs::read_dir(dir.join("html")) else {
        eprintln!("render bench: {} has no html/ folder; set GOCE_BENCH_PAGES", dir.display());
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

fn parse(page: &str) -> Dom {
    Dom::parse_with_styles(page, DomLimits { max_elements: 200_000, deadline: None }).unwrap_or_else(|_| Dom::empty())
}

fn render(c: &mut Criterion) {
    let pages = pages();
    if pages.is_empty() {
        return;
    }
    let doms: Vec<Dom> = pages.iter().map(|p| parse(p)).collect();
    let options = RenderOptions::default();
    let mut per_page: Vec<Duration> = doms
        .iter()
        .map(|dom| {
            let started = Instant::now();
            black_box(render_lite(dom, &options));
            started.elapsed()
        })
        .collect();
    per_page.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    eprintln!(
        "render bench: {} pages; style + layout + paint per page: median {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        pages.len(),
        ms(per_page[per_page.len() / 2]),
        ms(per_page[per_page.len() * 9 / 10]),
        ms(per_page[per_page.len() - 1]),
    );

    let mut group = c.benchmark_group("render");
    group.sample_size(10).measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(pages.len() as u64));
    group.bench_function("html5ever parse keeping styles", |b| {
        b.iter(|| {
            for page in &pages {
                black_box(parse(page));
            }
        })
    });
    group.bench_function("lite: style + layout + paint", |b| {
        b.iter(|| {
            for dom in &doms {
                black_box(render_lite(dom, &options));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, render);
criterion_main!(benches);
