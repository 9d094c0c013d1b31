//! Parse + extract speed on one core over real pages (every fifth WCXB-dev page, the
//! held-out part, from `GOCE_BENCH_PAGES`, default `../shared/data/wcxb-dev`).
//! Reported as pages per second; HTML parsing is also timed on its own. `web2text`
//! and `combined` load the shipped models from `models/`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failure here is the report

use std::hint::black_box;
use std::time::Duration;

mod common;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use goce_warc::dom::{Dom, DomLimits, FOR_CLASSIFIER, FOR_EXTRACTION, FOR_RENDERING, FOR_WEB2TEXT};
use goce_warc::extract::{ExtractLimits, ExtractRequest, Extractor, PageSource};

fn extract(c: &mut Criterion) {
    let pages = common::held_out_pages("extract");
    if pages.is_empty() {
        return;
    }
    let bytes: usize = pages.iter().map(String::len).sum();
    eprintln!("extract bench: {} pages, {:.1} MB of HTML", pages.len(), bytes as f64 / 1e6);
    let limits = ExtractLimits::default();
    let mut group = c.benchmark_group("extract");
    group.sample_size(10).measurement_time(Duration::from_secs(15));
    group.throughput(Throughput::Elements(pages.len() as u64));
    let dom_limits = DomLimits { max_elements: limits.max_elements, deadline: None };
    group.bench_function("html5ever parse only", |b| {
        b.iter(|| {
            for page in &pages {
                black_box(Dom::parse(page, dom_limits).ok());
            }
        })
    });
    // The same parse after the earlier pre-pass, which emptied scripts and styles but kept
    // every attribute, comment and blank: the A/B of the other cuts, on the same machine in
    // the same run.
    let scripts_and_styles_only = FOR_EXTRACTION.emptying_only();
    group.bench_function("html5ever parse only, scripts and styles emptied only", |b| {
        b.iter(|| {
            for page in &pages {
                black_box(Dom::parse_with(page, dom_limits, &scripts_and_styles_only).ok());
            }
        })
    });
    // Web2Text's pre-pass drops a list of attributes, as the extractors' did before they
    // kept only what they read: the A/B of the keep list.
    group.bench_function("html5ever parse only, Web2Text's drop list", |b| {
        b.iter(|| {
            for page in &pages {
                black_box(Dom::parse_with(page, dom_limits, &FOR_WEB2TEXT).ok());
            }
        })
    });
    // A classified page is parsed once for the classifier's features and the text, with the
    // pass that keeps what those read; the renderer's pass (style sheets, every attribute a
    // selector may name) only for the pages drawn: the A/B of that choice.
    for (name, prepass) in [("the classifier's pass", &FOR_CLASSIFIER), ("the renderer's pass", &FOR_RENDERING)] {
        group.bench_function(format!("html5ever parse only, {name}"), |b| {
            b.iter(|| {
                for page in &pages {
                    black_box(Dom::parse_with(page, dom_limits, prepass).ok());
                }
            })
        });
    }
    // Web2Text's networks run in LibTorch on one thread, like everything else here.
    goce_warc::torch::set_threads(1);
    let models = goce_warc::extract::ExtractModels::load(None, &[Extractor::Web2text, Extractor::Combined], true).expect("the models load");
    let request = ExtractRequest { limits, ..ExtractRequest::default() };
    for extractor in [Extractor::AllText, Extractor::Article, Extractor::ListView, Extractor::Goce, Extractor::Web2text, Extractor::Combined] {
        group.bench_function(format!("parse + {}", extractor.name()), |b| {
            b.iter(|| {
                for page in &pages {
                    black_box(extractor.extract(&models, PageSource::html(page), &request).ok());
                }
            })
        });
    }
    // What --markdown adds to the default: the same parse and decision, then the renderer.
    let markdown = goce_warc::extract::MarkdownOptions::default();
    let with_markdown = ExtractRequest { markdown: Some(&markdown), ..request };
    group.bench_function("parse + combined + markdown", |b| {
        b.iter(|| {
            for page in &pages {
                black_box(Extractor::Combined.extract(&models, PageSource::html(page), &with_markdown).ok());
            }
        })
    });
    // The renderer alone, over pages already parsed and decided: its share of the above.
    let model = models.combiner().expect("the combiner loads");
    let decided: Vec<_> = pages
        .iter()
        .filter_map(|p| Dom::parse_with(p, dom_limits, &FOR_WEB2TEXT).ok())
        .map(|dom| {
            let table = goce_warc::extract::combine::BlockTable::of(&goce_warc::extract::PageAnalysis::new(&dom));
            let content = model.decide(&table).content;
            (dom, table, content)
        })
        .collect();
    group.bench_function("markdown render only (parsed, decided pages)", |b| {
        b.iter(|| {
            for (dom, table, content) in &decided {
                black_box(goce_warc::extract::markdown::render(dom, &table.cdom, content, &markdown));
            }
        })
    });
    // The columns computed from the final text (issue: they must cost at most 5% of the
    // default's CPU per page): over the default extractor's texts of the same pages.
    let texts: Vec<String> =
        pages.iter().map(|p| Extractor::Combined.extract(&models, PageSource::html(p), &request).map(|e| e.text).unwrap_or_default()).collect();
    group.bench_function("annotate: language + sha256 + words of the text", |b| {
        b.iter(|| {
            for text in &texts {
                black_box(goce_warc::annotate::TextFacts::of(text));
            }
        })
    });
    group.bench_function("annotate: language only", |b| {
        b.iter(|| {
            for text in &texts {
                black_box(goce_warc::annotate::detect_language(text));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, extract);
criterion_main!(benches);
