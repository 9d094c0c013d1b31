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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use cpu_clock::thread_cpu_time;
pub use inputs::{Input, Shard, read_paths_list};
pub use progress::Progress;

use crate::classify::{Classifier, Features, NetInput, PAGE_TYPE_COUNT, Prediction};
use crate::dom::FOR_RENDERING;
use crate::extract::combine::BlockTable;
use crate::extract::{ExtractLimits, ExtractModels, Extraction, Extractor, Genre, MarkdownOptions, PageAnalysis, parse_page};
use crate::output::{Counts, Manifest, OutputError, Row, ShardWriter, StageSeconds, manifest_exists, parse_warc_date, remove_leftovers, write_manifest};
use crate::page::{Decision, PageFilter, ResponseRecord, decode_page, wants_record};
use crate::render::{PageRenderer, Picture};
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

/// What rendering a page came to, for the manifest.
struct RenderNote {
    renderer: &'static str,
    note: Option<&'static str>,
}

enum Processed {
    Row(Box<Row>, Option<RenderNote>, Option<Box<Pending>>),
    Filtered(&'static str),
    Skipped(&'static str),
}

/// A page waiting for the batched ResNet: its input and, under `goce`, both texts, of
/// which the predicted genre keeps one.
struct Pending {
    picture: Option<Picture>,
    features: Features,
    candidates: Option<Box<[Extraction; 2]>>,
    /// Under `combined`: the page's blocks, whose text the trees decide with the page types.
    blocks: Option<Box<PendingBlocks>>,
}

struct PendingBlocks {
    table: BlockTable,
    /// The page's own summary, the text of a page with none.
    description: Option<String>,
    /// With `--markdown`: the page's DOM, which the Markdown is written from once the
    /// trees have decided, and the options for this page.
    markdown: Option<(Box<crate::dom::Dom>, MarkdownOptions)>,
}

impl PendingBlocks {
    /// The combiner's text, Markdown and confidence, given the page types when the
    /// classifier gave them.
    fn decide(mut self, models: &ExtractModels, page_types: Option<&[f32; PAGE_TYPE_COUNT]>, max_bytes: usize) -> Extraction {
        if let Some(p) = page_types {
            self.table.set_page_types(p);
        }
        let decided = models.combiner().map(|m| m.decide(&self.table)).unwrap_or_default();
        let markdown = self.markdown.map(|(dom, options)| crate::extract::markdown::render(&dom, &self.table.cdom, &decided.content, &options));
        let (text, markdown) = if decided.text.is_empty() {
            let text = self.description.unwrap_or_default();
            let markdown = markdown.map(|_| crate::extract::markdown::paragraph(&text));
            (text, markdown)
        } else {
            (decided.text, markdown)
        };
        Extraction { text, markdown, confidence: decided.confidence, ..Extraction::default() }.truncated(max_bytes)
    }
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
                let warc_file = &warc_file;
                tasks.spawn(move |_| {
                    let processed: Vec<Processed> = batch
                        .into_par_iter()
                        .map(|record| {
                            let cpu = thread_cpu_time();
                            let processed = process_record(record, config, warc_file);
                            workers_cpu.fetch_add(nanos(thread_cpu_time().saturating_sub(cpu)), Ordering::Relaxed);
                            processed
                        })
                        .collect();
                    // Classified here, not by the writer: a batch's forward pass then overlaps
                    // the other batches' pages, and the writer, which must keep input order,
                    // never waits on the network (measured on 16 cores: docs/performance.md).
                    let started = Instant::now();
                    let classified = classify_batch(processed, config, workers_cpu);
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

fn process_record(record: ResponseRecord, config: &ProcessConfig, warc_file: &str) -> Processed {
    let page = match decode_page(record, &config.filter) {
        Decision::Page(page) => page,
        Decision::Filtered(reason) => return Processed::Filtered(reason.name()),
        Decision::Broken(e) => {
            tracing::debug!("page skipped: {e}");
            return Processed::Skipped(e.name());
        }
    };
    let skipped = |e: crate::extract::ExtractError| {
        tracing::debug!(url = %page.url, "extraction failed: {e}");
        Processed::Skipped(e.name())
    };
    let mut render_note = None;
    let mut pending = None;
    let mut prediction = None;
    let classifier = config.classifier.as_deref();
    let markdown = config.markdown.as_ref().map(|m| MarkdownOptions { page_url: Some(page.url.clone()), ..m.clone() });
    let markdown = markdown.as_ref();
    let extraction = if config.renderer.is_none() && classifier.is_none() {
        match config.extractor.extract_with(&config.models, &page.html, None, None, &config.extract_limits, markdown) {
            Ok(e) => e,
            Err(e) => return skipped(e),
        }
    } else {
        // One DOM for the picture, the features and the text.
        let dom = match parse_page(&page.html, &config.extract_limits, &FOR_RENDERING) {
            Ok(dom) => dom,
            Err(e) => return skipped(e.into()),
        };
        // The picture is drawn only where it is used: for the network, or when asked for
        // (--pictures, or a renderer named beside a classifier that reads none).
        let mut draw = || {
            config.renderer.as_deref().and_then(|renderer| {
                let (note, picture) = render_page(renderer, &page.html, &dom, config.pictures_dir.as_deref(), warc_file, page.offset);
                render_note = Some(note);
                picture
            })
        };
        let asked_for_pictures = config.pictures_dir.is_some() || classifier.is_none_or(|c| !c.kind().needs_picture());
        let page_analysis = PageAnalysis::new(&dom);
        let features = classifier.map(|c| c.features_of(&page_analysis, &page.url));
        let cheap = classifier.zip(features.as_ref()).and_then(|(c, f)| c.decide_cheaply(f));
        match (classifier, features) {
            (None, _) | (_, None) => {
                if asked_for_pictures {
                    draw();
                }
                match config.extractor.extract_parsed(&config.models, &page.html, &page_analysis, None, &config.extract_limits, markdown) {
                    Ok(e) => e,
                    Err(e) => return skipped(e),
                }
            }
            (Some(_), Some(_)) if cheap.is_some() => {
                if asked_for_pictures {
                    draw();
                }
                let predicted = cheap;
                let genre = predicted.as_ref().map(|p| p.genre);
                let page_analysis = page_analysis.given_page_types(predicted.as_ref().map(|p| p.probabilities));
                prediction = predicted;
                match config.extractor.extract_parsed(&config.models, &page.html, &page_analysis, genre, &config.extract_limits, markdown) {
                    Ok(e) => e,
                    Err(e) => return skipped(e),
                }
            }
            (Some(_), Some(features)) => {
                // The genre comes later, from the batch: under goce, extract both ways now.
                let picture = draw();
                let mut blocks = None;
                let (extraction, candidates) = if config.extractor == Extractor::Combined {
                    // The trees read the page types: decide the text once the batch is classified.
                    match config.models.combiner() {
                        Ok(_) => {
                            let table = crate::extract::combine::BlockTable::of(&page_analysis);
                            let (title, declared_language, description) = (dom.title(), dom.declared_language(), dom.description());
                            drop(page_analysis);
                            let markdown = markdown.map(|m| (Box::new(dom), m.clone()));
                            blocks = Some(Box::new(PendingBlocks { table, description, markdown }));
                            (Extraction { title, declared_language, ..Extraction::default() }, None)
                        }
                        Err(e) => return skipped(e),
                    }
                } else if config.extractor.uses_genre() {
                    let both = [Genre::Article, Genre::ListView]
                        .map(|g| config.extractor.extract_parsed(&config.models, &page.html, &page_analysis, Some(g), &config.extract_limits, markdown));
                    match both {
                        [Ok(article), Ok(list_view)] => (article.clone(), Some(Box::new([article, list_view]))),
                        [Err(e), _] | [_, Err(e)] => return skipped(e),
                    }
                } else {
                    match config.extractor.extract_parsed(&config.models, &page.html, &page_analysis, None, &config.extract_limits, markdown) {
                        Ok(e) => (e, None),
                        Err(e) => return skipped(e),
                    }
                };
                pending = Some(Box::new(Pending { picture, features, candidates, blocks }));
                extraction
            }
        }
    };
    let mut row = Row {
        warc_date: page.warc_date.as_deref().and_then(parse_warc_date),
        warc_offset: page.offset.and_then(|o| i64::try_from(o).ok()),
        warc_record_id: page.record_id,
        warc_file: warc_file.to_string(),
        http_status: i32::from(page.http_status),
        content_type: page.content_type,
        charset: page.charset.to_string(),
        html_bytes: i64::try_from(page.html_bytes).unwrap_or(i64::MAX),
        title: extraction.title,
        page_type: None,
        genre: extraction.genre.map(|g| g.name().to_string()),
        genre_confidence: None,
        extractor: config.extractor.name().to_string(),
        declared_language: crate::annotate::declared_language(extraction.declared_language.as_deref(), page.content_language.as_deref()),
        text: extraction.text,
        markdown: extraction.markdown,
        extraction_confidence: extraction.confidence,
        url: page.url,
        ..Row::default()
    };
    if let Some(p) = &prediction {
        set_prediction(&mut row, p);
    }
    if pending.is_none() {
        annotate(&mut row);
    }
    Processed::Row(Box::new(row), render_note, pending)
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

/// The columns computed from the final text.
fn annotate(row: &mut Row) {
    let facts = crate::annotate::TextFacts::of(&row.text);
    row.language = facts.language;
    row.language_confidence = facts.language_confidence;
    row.text_words = facts.words;
    row.text_sha256 = facts.sha256;
}

fn set_prediction(row: &mut Row, prediction: &Prediction) {
    row.page_type = Some(prediction.page_type.name().to_string());
    row.genre = Some(prediction.genre.name().to_string());
    row.genre_confidence = Some(prediction.genre_confidence);
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
fn classify_batch(mut processed: Vec<Processed>, config: &ProcessConfig, workers_cpu: &AtomicU64) -> Classified {
    let Some(classifier) = &config.classifier else { return Classified { processed, classify_failed: 0 } };
    let (predictions, classify_failed) = classify_pending(classifier, config, &processed);
    processed.par_iter_mut().zip(predictions.par_iter()).for_each(|(p, prediction)| {
        let cpu = thread_cpu_time();
        finish_pending(p, prediction.as_ref(), config);
        workers_cpu.fetch_add(nanos(thread_cpu_time().saturating_sub(cpu)), Ordering::Relaxed);
    });
    Classified { processed, classify_failed }
}

/// Completes a row that waited for its page's prediction: the genre columns, the text
/// the prediction decides, and the columns computed from that text.
fn finish_pending(processed: &mut Processed, prediction: Option<&Prediction>, config: &ProcessConfig) {
    let Processed::Row(row, _, pending) = processed else { return };
    let Some(p) = pending.take() else { return };
    if let Some(blocks) = p.blocks {
        let decided = blocks.decide(&config.models, prediction.map(|p| &p.probabilities), config.extract_limits.max_text_bytes);
        (row.text, row.markdown, row.extraction_confidence) = (decided.text, decided.markdown, decided.confidence);
    }
    if let Some(prediction) = prediction {
        set_prediction(row, prediction);
        if let Some(candidates) = p.candidates {
            let [article, list_view] = *candidates;
            let chosen = if prediction.genre == Genre::ListView { list_view } else { article };
            row.text = chosen.text;
            row.markdown = chosen.markdown;
        }
    }
    annotate(row);
}

fn render_page(
    renderer: &PageRenderer,
    html: &str,
    dom: &crate::dom::Dom,
    pictures: Option<&Path>,
    warc_file: &str,
    offset: Option<u64>,
) -> (RenderNote, Option<Picture>) {
    match renderer.render(html, dom) {
        Ok(rendered) => {
            let mut note = rendered.limit.map(crate::render::RenderLimit::name);
            if let Some(dir) = pictures {
                let stem = warc_file.rsplit('/').next().unwrap_or(warc_file).split('.').next().unwrap_or("warc");
                let path = dir.join(format!("{stem}-{}.png", offset.unwrap_or(0)));
                let written = rendered.picture.to_png().map_err(|e| e.to_string()).and_then(|png| std::fs::write(&path, png).map_err(|e| e.to_string()));
                if let Err(e) = written {
                    tracing::warn!("cannot write picture {}: {e}", path.display());
                    note = note.or(Some("picture_not_written"));
                }
            }
            (RenderNote { renderer: rendered.renderer.name(), note }, Some(rendered.picture))
        }
        Err(e) => {
            tracing::debug!("render failed: {e}");
            (RenderNote { renderer: crate::render::RendererKind::Chrome.name(), note: Some("chrome_failed") }, None)
        }
    }
}
