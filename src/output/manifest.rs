//! The manifest of one input: what was read, kept, filtered and skipped, and the
//! shards written. Written last and atomically: its presence marks the input done.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{OutputError, ShardInfo};

/// Counters for one input (or, summed, for a run).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    /// Records read whole, by WARC-Type.
    pub records: BTreeMap<String, u64>,
    /// Rows written.
    pub pages: u64,
    /// Records that are not pages, by reason (normal).
    pub filtered: BTreeMap<String, u64>,
    /// Damaged input and broken pages, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// Rows by genre (when the extractor gives one).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub genres: BTreeMap<String, u64>,
    /// Rows by page type (when a classifier ran).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub page_types: BTreeMap<String, u64>,
    /// Pages rendered, by renderer (`lite`, `chrome`); empty when nothing was rendered.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rendered: BTreeMap<String, u64>,
    /// Pages whose picture hit a render bound or whose renderer failed, by reason
    /// (the row is still written).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub render_notes: BTreeMap<String, u64>,
    /// Input bytes read (compressed size for gzip).
    pub input_bytes: u64,
    /// Decoded WARC bytes read.
    pub warc_bytes: u64,
}

impl Counts {
    pub fn add(&mut self, other: &Counts) {
        for (dst, src) in [
            (&mut self.records, &other.records),
            (&mut self.filtered, &other.filtered),
            (&mut self.skipped, &other.skipped),
            (&mut self.genres, &other.genres),
            (&mut self.page_types, &other.page_types),
            (&mut self.rendered, &other.rendered),
            (&mut self.render_notes, &other.render_notes),
        ] {
            for (k, v) in src {
                *dst.entry(k.clone()).or_default() += v;
            }
        }
        self.pages += other.pages;
        self.input_bytes += other.input_bytes;
        self.warc_bytes += other.warc_bytes;
    }

    pub fn total_records(&self) -> u64 {
        self.records.values().sum()
    }

    pub fn total_skipped(&self) -> u64 {
        self.skipped.values().sum()
    }

    pub fn count_skip(&mut self, reason: &str) {
        *self.skipped.entry(reason.to_string()).or_default() += 1;
    }

    pub fn count_filtered(&mut self, reason: &str) {
        *self.filtered.entry(reason.to_string()).or_default() += 1;
    }

    pub fn count_record(&mut self, record_type: &str) {
        *self.records.entry(record_type.to_string()).or_default() += 1;
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// The input as given (path or URL).
    pub input: String,
    /// The name its outputs carry.
    pub stem: String,
    pub compression: String,
    pub counts: Counts,
    pub shards: Vec<ShardInfo>,
    pub extractor: String,
    pub goce_warc_version: String,
    /// Seconds spent on this input.
    pub seconds: f64,
    /// Where those seconds went, to tell which stage bounds a run.
    #[serde(default)]
    pub stage_seconds: StageSeconds,
}

/// Where a run's time went besides the workers' page processing (seconds), to tell which
/// stage bounds it: `waiting_for_reader` near the run's length means the reader (disk,
/// network, inflate) is the bound; `classify` + `write` near it, the classifier/writer
/// thread; otherwise the workers are, and `pipeline_full` (the next batch waiting while
/// the in-flight batches are processed or written) is most of the run.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StageSeconds {
    pub waiting_for_reader: f64,
    pub pipeline_full: f64,
    pub classify: f64,
    pub write: f64,
    /// CPU seconds (user + system) of every stage but the classifier's network: the
    /// reader thread, the workers on the pages, and the writing. Pages over their sum is
    /// the per-core rate of those stages, whatever else shares the cores.
    #[serde(default)]
    pub reader_cpu: f64,
    #[serde(default)]
    pub workers_cpu: f64,
    #[serde(default)]
    pub write_cpu: f64,
}

impl StageSeconds {
    pub fn add(&mut self, other: &StageSeconds) {
        self.waiting_for_reader += other.waiting_for_reader;
        self.pipeline_full += other.pipeline_full;
        self.classify += other.classify;
        self.write += other.write;
        self.reader_cpu += other.reader_cpu;
        self.workers_cpu += other.workers_cpu;
        self.write_cpu += other.write_cpu;
    }

    /// CPU seconds of the stages other than the classifier's network.
    pub fn stages_cpu(&self) -> f64 {
        self.reader_cpu + self.workers_cpu + self.write_cpu
    }
}

pub fn manifest_path(dir: &Path, stem: &str) -> PathBuf {
    dir.join(format!("{stem}.manifest.json"))
}

pub fn read_manifest(path: &Path) -> Result<Manifest, OutputError> {
    let text = std::fs::read_to_string(path).map_err(|e| OutputError::io(path, e))?;
    serde_json::from_str(&text).map_err(|source| OutputError::Manifest { path: path.to_path_buf(), source })
}

pub fn write_manifest(dir: &Path, manifest: &Manifest) -> Result<PathBuf, OutputError> {
    let path = manifest_path(dir, &manifest.stem);
    let temp = dir.join(format!(".{}.manifest.json.tmp-{}", manifest.stem, std::process::id()));
    let json = serde_json::to_vec_pretty(manifest)
        .map_err(|source| OutputError::Manifest { path: path.clone(), source })?;
    let mut file = File::create(&temp).map_err(|e| OutputError::io(&temp, e))?;
    file.write_all(&json).and_then(|()| file.write_all(b"\n")).and_then(|()| file.sync_all())
        .map_err(|e| OutputError::io(&temp, e))?;
    std::fs::rename(&temp, &path).map_err(|e| OutputError::io(&path, e))?;
    Ok(path)
}

/// What the manifests in an output folder add up to.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Inputs with a manifest.
    pub inputs_done: usize,
    pub counts: Counts,
    /// Manifests that could not be read, with why.
    pub unreadable: Vec<String>,
}

/// Reads every `*.manifest.json` in `dir` (temporary files are not manifests).
pub fn summarize(dir: &Path) -> Result<(Summary, Vec<Manifest>), OutputError> {
    let mut summary = Summary::default();
    let mut manifests = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| OutputError::io(dir, e))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".manifest.json") && !n.starts_with('.')))
        .collect();
    paths.sort();
    for path in paths {
        match read_manifest(&path) {
            Ok(m) => {
                summary.inputs_done += 1;
                summary.counts.add(&m.counts);
                manifests.push(m);
            }
            Err(e) => summary.unreadable.push(e.to_string()),
        }
    }
    Ok((summary, manifests))
}

/// Removes shards and temporary files an earlier, interrupted run left for `stem`.
pub fn remove_leftovers(dir: &Path, stem: &str) -> Result<usize, OutputError> {
    let shard_prefix = format!("{stem}.part-");
    let temp_prefix = format!(".{stem}.");
    let mut removed = 0;
    let entries = std::fs::read_dir(dir).map_err(|e| OutputError::io(dir, e))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let shard = name.starts_with(&shard_prefix) && name.ends_with(".parquet");
        let temp = name.starts_with(&temp_prefix) && name.contains(".tmp-");
        if shard || temp {
            let path = entry.path();
            std::fs::remove_file(&path).map_err(|e| OutputError::io(&path, e))?;
            removed += 1;
        }
    }
    Ok(removed)
}
