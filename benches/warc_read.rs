//! WARC read throughput on one core: goce-warc's reader against the `warc` crate and
//! a bare flate2 inflate loop, over a Common Crawl-style WARC built by `make bench`.
//!
//! Throughput is in *uncompressed* WARC bytes. The file comes from `GOCE_BENCH_WARC`
//! (default `target/data/bench.warc.gz`, which `make bench-data` builds).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failure here is the report

use std::fs::File;
use std::hint::black_box;
use std::io::{BufReader, Read};
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use goce_warc::warc::{Next, ReaderLimits, WarcReader};

fn bench_file() -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var("GOCE_BENCH_WARC").unwrap_or_else(|_| "target/data/bench.warc.gz".into()));
    if path.exists() {
        Some(path)
    } else {
        eprintln!("warc_read: {} not found; run `make bench-data` first (or set GOCE_BENCH_WARC)", path.display());
        None
    }
}

/// Reads every record with goce-warc's reader; returns (decoded bytes, records).
fn read_goce(path: &PathBuf) -> (u64, u64) {
    let Ok(file) = File::open(path) else { return (0, 0) };
    let Ok(mut reader) = WarcReader::new(file, ReaderLimits::default()) else { return (0, 0) };
    let (mut bytes, mut records) = (0u64, 0u64);
    while let Ok(next) = reader.next_record() {
        match next {
            Next::Record(r) => {
                bytes += r.block.len() as u64;
                records += 1;
                black_box(r.block.first());
            }
            Next::Skipped(_) => {}
            Next::End => break,
        }
    }
    (bytes, records)
}

fn read_warc_crate(path: &PathBuf) -> u64 {
    let Ok(reader) = warc::WarcReader::from_path_gzip(path) else { return 0 };
    let mut records = 0;
    for record in reader.iter_records().flatten() {
        black_box(record.body().first());
        records += 1;
    }
    records
}

fn inflate_only(path: &PathBuf) -> u64 {
    let Ok(file) = File::open(path) else { return 0 };
    let mut decoder = flate2::read::MultiGzDecoder::new(BufReader::with_capacity(1 << 20, file));
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0u64;
    while let Ok(n) = decoder.read(&mut buf) {
        if n == 0 {
            break;
        }
        total += n as u64;
    }
    total
}

fn warc_read(c: &mut Criterion) {
    let Some(path) = bench_file() else { return };
    let (bytes, records) = read_goce(&path);
    let mut uncompressed = 0u64;
    if let Ok(file) = File::open(&path) {
        let mut decoder = flate2::read::MultiGzDecoder::new(BufReader::new(file));
        uncompressed = std::io::copy(&mut decoder, &mut std::io::sink()).unwrap_or(0);
    }
    eprintln!("warc_read: {} — {records} records, {bytes} block bytes, {uncompressed} uncompressed bytes", path.display());

    let mut group = c.benchmark_group("warc_read");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(uncompressed));
    group.bench_function("goce-warc reader", |b| b.iter(|| read_goce(&path)));
    group.bench_function("warc crate 0.4", |b| b.iter(|| read_warc_crate(&path)));
    group.bench_function("flate2 zlib-rs inflate only", |b| b.iter(|| inflate_only(&path)));
    group.finish();

    let mut group = c.benchmark_group("warc_records");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Elements(records));
    group.bench_function("goce-warc reader", |b| b.iter(|| read_goce(&path)));
    group.finish();
}

criterion_group!(benches, warc_read);
criterion_main!(benches);
