//! Lite renderer speed on one core over real pages (the held-out fifth of WCXB-dev, from
//! `GOCE_BENCH_PAGES`, default `../shared/data/wcxb-dev`): style + layout + paint on a parsed
//! DOM, with HTML parsing (keeping `<style>`) timed on its own. Before criterion runs, one
//! timed pass prints the per-page median and 90th percentile.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failure here is the report

use std::hint::black_box;
use std::time::{Duration, Instant};

mod common;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use goce_warc::dom::{Dom, DomLimits};
use goce_warc::render::{RenderOptions, render_lite};

fn parse(page: &str) -> Dom {
    Dom::parse_with_styles(page, DomLimits { max_elements: 200_000, deadline: None }).unwrap_or_else(|_| Dom::empty())
}

fn render(c: &mut Criterion) {
    let pages = common::held_out_pages("render");
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
