//! Drives the stages for `process`: per input, a reader thread streams response
//! records in batches over a bounded channel; a worker pool decodes and extracts the
//! pages of a batch in parallel; rows go, in input order, to the shard writer.
//! Memory is bounded by the channel depth × batch size, whatever the input size.

mod inputs;
mod progress;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;

pub use inputs::{Input, Shard, read_paths_list};
pub use progress::Progress;

use crate::extract::{ExtractLimits, Extractor, parse_page};
use crate::render::PageRenderer;
use crate::output::{
    Counts, Manifest, OutputError, Row, ShardWriter, manifest_path, parse_warc_date, remove_leftovers, write_manifest,
};
use crate::page::{Decision, PageFilter, ResponseRecord, decode_page, wants_record};
use crate::warc::{Compression, Next, ReaderLimits, WarcReader};

/// Records handed to the workers at a time.
pub const BATCH_RECORDS: usize = 256;
/// A batch is also closed at this many block bytes, so big pages cannot swell it.
pub const BATCH_BYTES: usize = 8 << 20;
/// Batches the reader may run ahead of the workers.
pub const QUEUE_BATCHES: usize = 4;

#[derive(Debug, Clone)]
pub struct ProcessConfig {
    pub out_dir: PathBuf,
    pub rows_per_shard: usize,
    pub overwrite: bool,
    pub threads: usize,
    pub reader: ReaderLimits,
    pub filter: PageFilter,
    pub extractor: Extractor,
    pub extract_limits: ExtractLimits,
    /// Render every page (the classifier's input); `None`: no pictures.
    pub renderer: Option<Arc<PageRenderer>>,
    /// Also write each page's picture here as PNG (`WARCSTEM-OFFSET.png`).
    pub pictures_dir: Option<PathBuf>,
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
    pub warc_mb_per_second: f64,
    pub input_mb_per_second: f64,
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
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .thread_name(|i| format!("goce-worker-{i}"))
        .build()
        .map_err(|e| PipelineError::ThreadPool(e.to_string()))?;
    let started = Instant::now();
    let mut summary = RunSummary::default();
    for input in inputs {
        let outcome = process_input(input, config, &pool, progress);
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
    }
    summary.seconds = started.elapsed().as_secs_f64();
    let secs = summary.seconds.max(1e-9);
    summary.pages_per_second = summary.counts.pages as f64 / secs;
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
    Row(Box<Row>, Option<RenderNote>),
    Filtered(&'static str),
    Skipped(&'static str),
}

pub fn process_input(input: &Input, config: &ProcessConfig, pool: &rayon::ThreadPool, progress: &Progress) -> InputOutcome {
    let stem = input.stem();
    let out_dir = &config.out_dir;
    if !config.overwrite && manifest_path(out_dir, &stem).exists() {
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

    let result = std::thread::scope(|scope| {
        let (tx, rx) = crossbeam_channel::bounded::<Vec<ResponseRecord>>(QUEUE_BATCHES);
        let position = read_position.clone();
        let records = records_read.clone();
        let limits = config.reader;
        let reader_thread = scope.spawn(move || read_records(reader_input, limits, &tx, &position, &records));

        let mut write_result: Result<(), OutputError> = Ok(());
        for batch in rx.iter() {
            let processed: Vec<Processed> = pool.install(|| {
                batch.into_par_iter().map(|record| process_record(record, config, &warc_file)).collect()
            });
            for p in processed {
                match p {
                    Processed::Row(row, render) => {
                        counts.pages += 1;
                        if let Some(genre) = &row.genre {
                            *counts.genres.entry(genre.clone()).or_default() += 1;
                        }
                        if let Some(RenderNote { renderer, note }) = render {
                            *counts.rendered.entry(renderer.to_string()).or_default() += 1;
                            if let Some(note) = note {
                                *counts.render_notes.entry(note.to_string()).or_default() += 1;
                            }
                        }
                        if write_result.is_ok() {
                            write_result = writer.push(*row);
                        }
                    }
                    Processed::Filtered(reason) => counts.count_filtered(reason),
                    Processed::Skipped(reason) => counts.count_skip(reason),
                }
            }
            progress.advance(read_position.load(Ordering::Relaxed), records_read.load(Ordering::Relaxed), counts.pages);
            if write_result.is_err() {
                break;
            }
        }
        drop(rx);
        let read = reader_thread.join().map_err(|_| std::io::Error::other("reader thread panicked"));
        (read, write_result)
    });
    let (read_result, write_result) = result;
    if let Err(e) = write_result {
        writer.abandon();
        let _ = remove_leftovers(out_dir, &stem);
        return InputOutcome::Failed(output_error(e));
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
    };
    match write_manifest(out_dir, &manifest) {
        Ok(_) => InputOutcome::Done(Box::new(manifest)),
        Err(e) => InputOutcome::Failed(output_error(e)),
    }
}

/// The reader thread: records → batches. Returns the reader-side counts.
fn read_records(
    input: Box<dyn std::io::Read + Send>,
    limits: ReaderLimits,
    tx: &crossbeam_channel::Sender<Vec<ResponseRecord>>,
    position: &AtomicU64,
    records_read: &AtomicU64,
) -> std::io::Result<(Counts, Compression)> {
    let mut counts = Counts::default();
    let mut reader = WarcReader::new(input, limits)?;
    let mut batch = Vec::with_capacity(BATCH_RECORDS);
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
                    batch.push(ResponseRecord {
                        header: record.header,
                        block: record.block.to_vec(),
                        offset: record.offset,
                    });
                } else {
                    counts.count_filtered("not_response");
                }
            }
        }
        if batch.len() >= BATCH_RECORDS || batch_bytes >= BATCH_BYTES {
            batch_bytes = 0;
            position.store(reader.input_offset(), Ordering::Relaxed);
            records_read.store(counts.total_records(), Ordering::Relaxed);
            if tx.send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH_RECORDS))).is_err() {
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
    let mut render_note = None;
    let extracted = match &config.renderer {
        None => config.extractor.extract(&page.html, None, &config.extract_limits),
        // One DOM for the picture and the text.
        Some(renderer) => parse_page(&page.html, &config.extract_limits, true).and_then(|dom| {
            render_note = Some(render_page(renderer, &page.html, &dom, config.pictures_dir.as_deref(), warc_file, page.offset));
            config.extractor.extract_parsed(&page.html, &dom, None, &config.extract_limits)
        }),
    };
    let extraction = match extracted {
        Ok(e) => e,
        Err(e) => {
            tracing::debug!(url = %page.url, "extraction failed: {e}");
            return Processed::Skipped(e.name());
        }
    };
    Processed::Row(Box::new(Row {
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
        text: extraction.text,
        url: page.url,
    }), render_note)
}

fn render_page(renderer: &PageRenderer, html: &str, dom: &crate::dom::Dom, pictures: Option<&Path>, warc_file: &str, offset: Option<u64>) -> RenderNote {
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
            RenderNote { renderer: rendered.renderer.name(), note }
        }
        Err(e) => {
            tracing::debug!("render failed: {e}");
            RenderNote { renderer: crate::render::RendererKind::Chrome.name(), note: Some("chrome_failed") }
        }
    }
}
