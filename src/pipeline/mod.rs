//! Drives the stages for `process`: per input, a reader thread streams response
//! records in batches over a bounded channel; a worker pool decodes, parses, renders
//! and extracts the pages of several batches at once (so the slowest page of one batch
//! does not leave the other workers idle); a classifier thread puts the batches back in
//! input order, runs the ResNet over each batch's pictures (`--batch-size` at a time, one
//! forward pass each), lets each page's genre pick its text, and hands the rows to the
//! shard writer. Memory is bounded by the channel depths × batch size, whatever the input size.

mod cpu_clock;
mod inputs;
mod progress;
mod worker;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use cpu_clock::thread_cpu_time;
pub use inputs::{Input, Shard, read_paths_list};
pub use progress::Progress;
use worker::{PageWorker, Processed, RenderNote};

use crate::classify::{Classifier, NetInput, PAGE_TYPE_COUNT, Prediction};
use crate::extract::{ExtractLimits, ExtractModels, Extractor, MarkdownOptions};
use crate::output::{Counts, Manifest, OutputError, ShardWriter, StageSeconds, manifest_exists, remove_leftovers, write_manifest};
use crate::page::{PageFilter, ResponseRecord, wants_record};
use crate::render::PageRenderer;
use crate::warc::{Compression, Next, ReaderLimits, WarcReader};

/// Records handed to the workers at a time.
pub const BATCH_RECORDS: usize = 256;
/// A batch is also closed at this many block bytes, so big pages cannot swell it.
pub const BATCH_BYTES: usize = 8 << 20;
/// Batches the reader may run ahead of the workers.
pub const QUEUE_BATCHES: usize = 4;
/// Batches between the reader and the writer, at least: being processed, or processed and
/// waiting for the writer (which takes them in input order). More than one keeps every
/// worker busy while the slowest pages of a batch finish; see `in_flight_batches`.
pub const IN_FLIGHT_BATCHES: usize = 4;

/// Batches in flight for `threads` workers: one a worker, so that a slow page holding back
/// the writer does not leave the other workers without work (measured on 16 cores: 4 in
/// flight kept them busy 68% of the time, 16 in flight 83%; docs/performance.md).
pub fn in_flight_batches(threads: usize) -> usize {
    IN_FLIGHT_BATCHES.max(threads)
}
/// Inputs being processed at once: the next one starts while the one before drains.
pub const INPUTS_AT_ONCE: usize = 2;

#[derive(Debug, Clone)]
pub struct ProcessConfig {
    pub out_dir: PathBuf,
    pub rows_per_shard: usize,
    pub overwrite: bool,
    pub threads: usize,
    pub reader: ReaderLimits,
    pub filter: PageFilter,
    pub extractor: Extractor,
    /// The models `extractor` reads, loaded once for every worker.
    pub models: ExtractModels,
    /// Also write each page's kept blocks as Markdown (the `markdown` column).
    pub markdown: Option<MarkdownOptions>,
    pub extract_limits: ExtractLimits,
    /// Render every page (the classifier's input); `None`: no pictures.
    pub renderer: Option<Arc<PageRenderer>>,
    /// Also write each page's picture here as PNG (`WARCSTEM-OFFSET.png`).
    pub pictures_dir: Option<PathBuf>,
    /// Decides each page's type and genre (and so `goce`'s algorithm); `None`: the
    /// genre columns stay empty and `goce` guesses from HTML structure.
    pub classifier: Option<Arc<Classifier>>,
    /// Pictures per ResNet forward pass.
    pub batch_size: usize,
    /// Benchmarks only: every page gets even type probabilities instead of the network's.
    pub skip_network: bool,
    /// Records handed to the workers at a time (`BATCH_RECORDS` unless tuned).
    pub batch_records: usize,
    /// Batches between the reader and the writer (`in_flight_batches(threads)` unless tuned).
    pub in_flight_batches: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error("cannot open input {input}: {source}")]
    Open { input: String, source: std::io::Error },
    #[error("reading {input} failed: {source}")]
    Read { input: String, source: std::io::Error },
    #[error("writing output for {input}: {source}")]
    Output { input: String, source: OutputError },
    #[error("output directory {path}: {source}")]
    OutDir { path: PathBuf, source: std::io::Error },
    #[error("thread pool: {0}")]
    ThreadPool(String),
}

/// How one input ended.
#[derive(Debug)]
pub enum InputOutcome {
    Done(Box<Manifest>),
    /// A manifest from an earlier run exists.
    AlreadyDone,
    Failed(PipelineError),
}

/// The whole run, for the closing summary and `--stats`.
#[derive(Debug, Default, serde::Serialize)]
pub struct RunSummary {
    pub inputs_done: u64,
    pub inputs_already_done: u64,
    pub inputs_failed: Vec<FailedInput>,
    pub counts: Counts,
    pub seconds: f64,
    pub pages_per_second: f64,
    /// Pages per CPU-second of every stage but the classifier's network: the per-core rate
    /// of reading, decoding, parsing, rendering, features, extraction and writing.
    pub pages_per_stage_cpu_second: f64,
    pub warc_mb_per_second: f64,
    pub input_mb_per_second: f64,
    /// Summed over the inputs: see [`StageSeconds`].
    pub stage_seconds: StageSeconds,
}

#[derive(Debug, serde::Serialize)]
pub struct FailedInput {
    pub input: String,
    pub error: String,
}

/// Checks that the output directory exists (creating it) and can be written to.
pub fn prepare_out_dir(dir: &Path) -> Result<(), PipelineError> {
    let err = |source| PipelineError::OutDir { path: dir.to_path_buf(), source };
    std::fs::create_dir_all(dir).map_err(err)?;
    let probe = dir.join(format!(".goce-warc-probe-{}", std::process::id()));
    std::fs::write(&probe, b"probe").map_err(err)?;
    std::fs::remove_file(&probe).map_err(err)?;
    Ok(())
}

pub fn run(inputs: &[Input], config: &ProcessConfig, progress: &Progress) -> Result<RunSummary, PipelineError> {
    prepare_out_dir(&config.out_dir)?;
    let converted = crate::output::upgrade_legacy_manifests(&config.out_dir)
        .map_err(|source| PipelineError::Output { input: config.out_dir.display().to_string(), source })?;
    if converted > 0 {
        tracing::info!(converted, "manifests of the previous layout (NAME.manifest.json) rewritten as _NAME.manifest.parquet");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .thread_name(|i| format!("goce-worker-{i}"))
        .build()
        .map_err(|e| PipelineError::ThreadPool(e.to_string()))?;
    let started = Instant::now();
    let mut summary = RunSummary::default();
    let mut record = |input: &Input, outcome: InputOutcome| {
        let finished_counts = match &outcome {
            InputOutcome::Done(manifest) => Some(&manifest.counts),
            _ => None,
        };
        progress.input_finished(input.size().unwrap_or(0), finished_counts);
        match outcome {
            InputOutcome::Done(manifest) => {
                tracing::info!(input = %input.display(), pages = manifest.counts.pages, "done");
                summary.inputs_done += 1;
                summary.counts.add(&manifest.counts);
                summary.stage_seconds.add(&manifest.stage_seconds);
            }
            InputOutcome::AlreadyDone => {
                tracing::info!(input = %input.display(), "manifest exists, skipped (use --overwrite to redo)");
                summary.inputs_already_done += 1;
            }
            InputOutcome::Failed(e) => {
                tracing::error!("{e}");
                progress.println(&format!("error: {e}"));
                summary.inputs_failed.push(FailedInput { input: input.display(), error: e.to_string() });
            }
        }
    };
    // The next input starts once the one before has handed its last batch to the workers, so
    // its first batches fill the workers while that one's slowest pages and last writes
    // finish (on 16 cores, one input after the other left the workers idle a third of the
    // time on 1,500-page files: docs/performance.md, "Many cores"). Outcomes are recorded
    // in input order; two inputs with the same stem (the same output names) never overlap.
    std::thread::scope(|scope| {
        let mut running: std::collections::VecDeque<(&Input, std::thread::ScopedJoinHandle<'_, InputOutcome>)> = Default::default();
        for input in inputs {
            while running.len() >= INPUTS_AT_ONCE || running.iter().any(|(other, _)| other.stem() == input.stem()) {
                let Some((previous, handle)) = running.pop_front() else { break };
                record(previous, join_input(previous, handle));
            }
            let (dispatched_tx, dispatched_rx) = crossbeam_channel::bounded::<()>(1);
            let pool = &pool;
            running.push_back((input, scope.spawn(move || process_input_signalling(input, config, pool, progress, Some(&dispatched_tx)))));
            // Ok: every batch is with the workers; Err: the input ended without (skipped, failed).
            let _ = dispatched_rx.recv();
        }
        for (input, handle) in running {
            record(input, join_input(input, handle));
        }
    });
    summary.seconds = started.elapsed().as_secs_f64();
    let secs = summary.seconds.max(1e-9);
    summary.pages_per_second = summary.counts.pages as f64 / secs;
    summary.pages_per_stage_cpu_second = summary.counts.pages as f64 / summary.stage_seconds.stages_cpu().max(1e-9);
    summary.warc_mb_per_second = summary.counts.warc_bytes as f64 / 1e6 / secs;
    summary.input_mb_per_second = summary.counts.input_bytes as f64 / 1e6 / secs;
    Ok(summary)
}

/// An input's outcome from the thread that processed it.
fn join_input(input: &Input, handle: std::thread::ScopedJoinHandle<'_, InputOutcome>) -> InputOutcome {
    handle.join().unwrap_or_else(|_| {
        InputOutcome::Failed(PipelineError::Read { input: input.display(), source: std::io::Error::other("the thread processing this input panicked") })
    })
}

pub fn process_input(input: &Input, config: &ProcessConfig, pool: &rayon::ThreadPool, progress: &Progress) -> InputOutcome {
    process_input_signalling(input, config, pool, progress, None)
}

/// [`process_input`], sending on `dispatched` once every batch of the input is with the
/// workers (not sent, and dropped, when the input ends before that).
fn process_input_signalling(
    input: &Input,
    config: &ProcessConfig,
    pool: &rayon::ThreadPool,
    progress: &Progress,
    dispatched: Option<&crossbeam_channel::Sender<()>>,
) -> InputOutcome {
    let stem = input.stem();
    let out_dir = &config.out_dir;
    if !config.overwrite && manifest_exists(out_dir, &stem) {
        return InputOutcome::AlreadyDone;
    }
    let output_error = |source| PipelineError::Output { input: input.display(), source };
    if let Err(e) = remove_leftovers(out_dir, &stem) {
        return InputOutcome::Failed(output_error(e));
    }
    let started = Instant::now();
    let reader_input = match input.open() {
        Ok(r) => r,
        Err(e) => return InputOutcome::Failed(e),
    };
    let warc_file = input.display();
    let worker = PageWorker::new(config, &warc_file);
    let mut writer = ShardWriter::new(out_dir, &stem, config.rows_per_shard);
    let mut counts = Counts::default();
    let read_position = Arc::new(AtomicU64::new(0));
    let records_read = Arc::new(AtomicU64::new(0));

    let mut stage_seconds = StageSeconds::default();
    // CPU nanoseconds, summed by the threads that spend them.
    let (reader_cpu, workers_cpu) = (AtomicU64::new(0), AtomicU64::new(0));
    // Wall nanoseconds spent classifying, summed over batches.
    let classify_nanos = AtomicU64::new(0);

    let result = std::thread::scope(|scope| {
        let (tx, rx) = crossbeam_channel::bounded::<Vec<ResponseRecord>>(QUEUE_BATCHES);
        let position = read_position.clone();
        let records = records_read.clone();
        let limits = config.reader;
        let reader_cpu = &reader_cpu;
        let reader_thread = scope.spawn(move || {
            let read = read_records(reader_input, limits, config.batch_records.max(1), &tx, &position, &records);
            reader_cpu.store(nanos(thread_cpu_time()), Ordering::Relaxed);
            read
        });

        // A batch takes a slot before the workers start on it and frees it once written,
        // so at most `in_flight_batches` are held, whatever order they finish in.
        let (slot_tx, slot_rx) = crossbeam_channel::bounded::<()>(config.in_flight_batches.max(1));
        let (done_tx, done_rx) = crossbeam_channel::unbounded::<(usize, Classified)>();
        let counts = &mut counts;
        let writer = &mut writer;
        let (read_position, records_read) = (&read_position, &records_read);
        let workers_cpu = &workers_cpu;
        let classify_nanos = &classify_nanos;
        let writer_thread = scope.spawn(move || -> Result<(f64, f64), OutputError> {
            let (mut write_time, mut write_cpu) = (Duration::ZERO, Duration::ZERO);
            let mut finished: BTreeMap<usize, Classified> = BTreeMap::new();
            let mut next = 0;
            for (index, batch) in done_rx.iter() {
                finished.insert(index, batch);
                while let Some(batch) = finished.remove(&next) {
                    next += 1;
                    let (started, cpu) = (Instant::now(), thread_cpu_time());
                    if batch.classify_failed > 0 {
                        *counts.render_notes.entry("classify_failed".to_string()).or_default() += batch.classify_failed;
                    }
                    write_batch(batch.processed, counts, writer)?;
                    write_time += started.elapsed();
                    write_cpu += thread_cpu_time().saturating_sub(cpu);
                    progress.advance(read_position.load(Ordering::Relaxed), records_read.load(Ordering::Relaxed), counts.pages);
                    let _ = slot_rx.recv();
                }
            }
            Ok((write_time.as_secs_f64(), write_cpu.as_secs_f64()))
        });

        let (mut reader_wait, mut full_wait) = (Duration::ZERO, Duration::ZERO);
        pool.in_place_scope(|tasks| {
            for index in 0.. {
                let waited = Instant::now();
                let Ok(batch) = rx.recv() else { break };
                let reserved = Instant::now();
                reader_wait += reserved - waited;
                if slot_tx.send(()).is_err() {
                    break; // The writer stopped on an error, reported below.
                }
                full_wait += reserved.elapsed();
                let done_tx = done_tx.clone();
                let worker = &worker;
                tasks.spawn(move |_| {
                    let processed: Vec<Processed> = batch
                        .into_par_iter()
                        .map(|record| {
                            let cpu = thread_cpu_time();
                            let processed = worker.process(record);
                            workers_cpu.fetch_add(nanos(thread_cpu_time().saturating_sub(cpu)), Ordering::Relaxed);
                            processed
                        })
                        .collect();
                    // Classified here, not by the writer: a batch's forward pass then overlaps
                    // the other batches' pages, and the writer, which must keep input order,
                    // never waits on the network (measured on 16 cores: docs/performance.md).
                    let started = Instant::now();
                    let classified = classify_batch(processed, config, worker, workers_cpu);
                    classify_nanos.fetch_add(nanos(started.elapsed()), Ordering::Relaxed);
                    let _ = done_tx.send((index, classified));
                });
            }
            if let Some(dispatched) = dispatched {
                let _ = dispatched.send(());
            }
        });
        drop(rx);
        drop(done_tx);
        stage_seconds.waiting_for_reader = reader_wait.as_secs_f64();
        stage_seconds.pipeline_full = full_wait.as_secs_f64();
        let write_result =
            writer_thread.join().unwrap_or_else(|_| Err(OutputError::io(out_dir, std::io::Error::other("the classifier/writer thread panicked"))));
        let read = reader_thread.join().map_err(|_| std::io::Error::other("reader thread panicked"));
        (read, write_result)
    });
    let (read_result, write_result) = result;
    match write_result {
        Ok((write, write_cpu)) => {
            stage_seconds.classify = classify_nanos.load(Ordering::Relaxed) as f64 / 1e9;
            stage_seconds.write = write;
            stage_seconds.write_cpu = write_cpu;
            stage_seconds.reader_cpu = reader_cpu.load(Ordering::Relaxed) as f64 / 1e9;
            stage_seconds.workers_cpu = workers_cpu.load(Ordering::Relaxed) as f64 / 1e9;
        }
        Err(e) => {
            writer.abandon();
            let _ = remove_leftovers(out_dir, &stem);
            return InputOutcome::Failed(output_error(e));
        }
    }
    let (reader_counts, compression) = match read_result.and_then(|r| r) {
        Ok(done) => done,
        Err(e) => {
            writer.abandon();
            let _ = remove_leftovers(out_dir, &stem);
            return InputOutcome::Failed(PipelineError::Read { input: input.display(), source: e });
        }
    };
    counts.add(&reader_counts);
    let shards = match writer.finish() {
        Ok(s) => s,
        Err(e) => {
            let _ = remove_leftovers(out_dir, &stem);
            return InputOutcome::Failed(output_error(e));
        }
    };
    let manifest = Manifest {
        input: input.display(),
        stem,
        compression: compression.name().to_string(),
        counts,
        shards,
        extractor: config.extractor.name().to_string(),
        goce_warc_version: env!("CARGO_PKG_VERSION").to_string(),
        seconds: started.elapsed().as_secs_f64(),
        stage_seconds,
    };
    match write_manifest(out_dir, &manifest) {
        Ok(_) => InputOutcome::Done(Box::new(manifest)),
        Err(e) => InputOutcome::Failed(output_error(e)),
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// The reader thread: records → batches. Returns the reader-side counts.
fn read_records(
    input: Box<dyn std::io::Read + Send>,
    limits: ReaderLimits,
    batch_records: usize,
    tx: &crossbeam_channel::Sender<Vec<ResponseRecord>>,
    position: &AtomicU64,
    records_read: &AtomicU64,
) -> std::io::Result<(Counts, Compression)> {
    let mut counts = Counts::default();
    let mut reader = WarcReader::new(input, limits)?;
    let mut batch = Vec::with_capacity(batch_records);
    let mut batch_bytes = 0;
    loop {
        let next = reader.next_record()?;
        match next {
            Next::End => break,
            Next::Skipped(skip) => {
                tracing::debug!("{}", skip.detail);
                counts.count_skip(skip.reason.name());
            }
            Next::Record(record) => {
                counts.count_record(record.header.record_type.name());
                counts.warc_bytes += record.block.len() as u64;
                if wants_record(&record.header) {
                    batch_bytes += record.block.len();
                    batch.push(ResponseRecord { header: record.header, block: record.block.to_vec(), offset: record.offset });
                } else {
                    counts.count_filtered("not_response");
                }
            }
        }
        if batch.len() >= batch_records || batch_bytes >= BATCH_BYTES {
            batch_bytes = 0;
            position.store(reader.input_offset(), Ordering::Relaxed);
            records_read.store(counts.total_records(), Ordering::Relaxed);
            if tx.send(std::mem::replace(&mut batch, Vec::with_capacity(batch_records))).is_err() {
                break; // The writer stopped; its error is reported there.
            }
        }
    }
    position.store(reader.input_offset(), Ordering::Relaxed);
    counts.input_bytes = reader.input_offset();
    let _ = tx.send(batch);
    Ok((counts, reader.compression()))
}

/// Counts a batch's pages by outcome and hands its rows to the shard writer, in order.
fn write_batch(processed: Vec<Processed>, counts: &mut Counts, writer: &mut ShardWriter) -> Result<(), OutputError> {
    for p in processed {
        match p {
            Processed::Row(row, render, _) => {
                counts.pages += 1;
                if let Some(genre) = &row.genre {
                    *counts.genres.entry(genre.clone()).or_default() += 1;
                }
                let language = row.language.as_deref().unwrap_or("und");
                *counts.languages.entry(language.to_string()).or_default() += 1;
                if let Some(page_type) = &row.page_type {
                    *counts.page_types.entry(page_type.clone()).or_default() += 1;
                }
                if let Some(RenderNote { renderer, note }) = render {
                    *counts.rendered.entry(renderer.to_string()).or_default() += 1;
                    if let Some(note) = note {
                        *counts.render_notes.entry(note.to_string()).or_default() += 1;
                    }
                }
                writer.push(*row)?;
            }
            Processed::Filtered(reason) => counts.count_filtered(reason),
            Processed::Skipped(reason) => counts.count_skip(reason),
        }
    }
    Ok(())
}

/// Runs the classifier over the pages of a processed batch that wait for it,
/// `batch_size` pictures per forward pass: the predictions by position in `processed`
/// (None where no row waits, or where classification failed), and how many pages failed.
fn classify_pending(classifier: &Classifier, config: &ProcessConfig, processed: &[Processed]) -> (Vec<Option<Prediction>>, u64) {
    let mut failed = 0;
    let mut by_position: Vec<Option<Prediction>> = vec![None; processed.len()];
    let waiting: Vec<usize> = processed.iter().enumerate().filter(|(_, p)| matches!(p, Processed::Row(_, _, Some(_)))).map(|(i, _)| i).collect();
    for chunk in waiting.chunks(config.batch_size.max(1)) {
        let predictions = {
            let inputs: Vec<NetInput<'_>> = chunk
                .iter()
                .filter_map(|&i| match &processed[i] {
                    Processed::Row(_, _, Some(p)) => Some(NetInput { picture: p.picture.as_ref(), features: &p.features }),
                    _ => None,
                })
                .collect();
            if config.skip_network {
                Ok(inputs.iter().map(|_| Prediction::from_probabilities([1.0 / PAGE_TYPE_COUNT as f32; PAGE_TYPE_COUNT])).collect())
            } else {
                classifier.classify(&inputs)
            }
        };
        match predictions {
            Ok(p) if p.len() == chunk.len() => {
                for (&i, prediction) in chunk.iter().zip(p) {
                    by_position[i] = Some(prediction);
                }
            }
            Ok(_) | Err(_) => {
                if let Err(e) = &predictions {
                    tracing::error!("classification failed for {} pages (their rows keep the article text): {e}", chunk.len());
                }
                failed += chunk.len() as u64;
            }
        }
    }
    (by_position, failed)
}

/// A processed batch, its waiting rows completed by the classifier.
struct Classified {
    processed: Vec<Processed>,
    /// Pages whose forward pass failed (their rows keep the article text).
    classify_failed: u64,
}

/// Classifies the pages of a processed batch that wait for it and completes their rows;
/// the combiner's trees run on the workers (counted in `workers_cpu`).
fn classify_batch(mut processed: Vec<Processed>, config: &ProcessConfig, worker: &PageWorker<'_>, workers_cpu: &AtomicU64) -> Classified {
    let Some(classifier) = &config.classifier else { return Classified { processed, classify_failed: 0 } };
    let (predictions, classify_failed) = classify_pending(classifier, config, &processed);
    processed.par_iter_mut().zip(predictions.par_iter()).for_each(|(p, prediction)| {
        let cpu = thread_cpu_time();
        worker.finish(p, prediction.as_ref());
        workers_cpu.fetch_add(nanos(thread_cpu_time().saturating_sub(cpu)), Ordering::Relaxed);
    });
    Classified { processed, classify_failed }
}
