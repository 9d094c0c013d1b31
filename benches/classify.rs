//! Classifier speed: the shipped ResNet's forward pass on the CPU (images/s at the
//! shipped batch size: LibTorch's layers with 1 and 2 threads, goce-warc's own on one; on CUDA too when
//! `GOCE_BENCH_CUDA=1` and a GPU is there, at batch 64, 128 and 256), and the HTML features
//! that both classifiers read. Pictures are the lite renderer's, of held-out WCXB-dev pages.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failure here is the report

use std::hint::black_box;
use std::time::Duration;

mod common;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use goce_warc::classify::words::WordBag;
use goce_warc::classify::{CPU_BATCH, Classifier, ClassifierKind, CpuLayers, DeviceChoice, Features, GenreNet, NetInput, find_models_dir};
use goce_warc::dom::{Dom, DomLimits};
use goce_warc::extract::PageAnalysis;
use goce_warc::render::{Picture, RenderOptions, render_lite};

fn classify(c: &mut Criterion) {
    let pages = common::held_out_pages("classify");
    if pages.is_empty() {
        return;
    }
    let doms: Vec<Dom> =
        pages.iter().map(|p| Dom::parse_with_styles(p, DomLimits { max_elements: 200_000, deadline: None }).unwrap_or_else(|_| Dom::empty())).collect();
    let pictures: Vec<Picture> = doms.iter().map(|d| render_lite(d, &RenderOptions::default()).picture).collect();
    let features: Vec<Features> = doms.iter().map(|d| Features::of(d, "")).collect();
    let models = find_models_dir(None).expect("models/");
    let inputs = |n: usize| -> Vec<NetInput<'_>> {
        (0..n).map(|i| NetInput { picture: Some(&pictures[i % pictures.len()]), features: &features[i % features.len()] }).collect()
    };

    let mut group = c.benchmark_group("classify");
    group.sample_size(10).measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(pages.len() as u64));
    group.bench_function("html features", |b| {
        b.iter(|| {
            for dom in &doms {
                black_box(Features::of_page(&PageAnalysis::new(dom), ""));
            }
        })
    });
    group.bench_function("page words", |b| {
        b.iter(|| {
            for dom in &doms {
                black_box(WordBag::of(dom, ""));
            }
        })
    });
    let resnet = Classifier::load(ClassifierKind::Resnet, &models, DeviceChoice::Cpu).expect("the shipped ResNet loads");
    if let Classifier::Resnet(net) = &resnet
        && let Some(words) = &net.words
    {
        group.bench_function("word model scores", |b| {
            b.iter(|| {
                for f in &features {
                    black_box(words.log_probabilities(&f.words));
                }
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("resnet-cpu");
    group.sample_size(10).measurement_time(Duration::from_secs(15));
    group.throughput(Throughput::Elements(CPU_BATCH as u64));
    let batch = inputs(CPU_BATCH);
    for threads in [1, 2] {
        goce_warc::torch::set_threads(threads);
        group.bench_function(format!("LibTorch's layers, batch {CPU_BATCH}, {threads} thread(s)"), |b| {
            b.iter(|| black_box(resnet.classify(&batch).expect("forward")))
        });
    }
    let own = GenreNet::load(&models, DeviceChoice::Cpu, CpuLayers::Rust).expect("the shipped ResNet loads");
    group.bench_function(format!("goce-warc's layers, batch {CPU_BATCH}, 1 thread"), |b| b.iter(|| black_box(own.predict(&batch).expect("forward"))));
    group.finish();

    if std::env::var("GOCE_BENCH_CUDA").is_ok_and(|v| v == "1") {
        let gpu = Classifier::load(ClassifierKind::Resnet, &models, DeviceChoice::Cuda(0)).expect("CUDA ResNet");
        let mut group = c.benchmark_group("resnet-cuda");
        group.sample_size(10).measurement_time(Duration::from_secs(10));
        for size in [64, 128, 256] {
            let batch = inputs(size);
            group.throughput(Throughput::Elements(size as u64));
            group.bench_function(format!("batch {size}, half precision"), |b| b.iter(|| black_box(gpu.classify(&batch).expect("forward"))));
        }
        group.finish();
    }
}

criterion_group!(benches, classify);
criterion_main!(benches);
