//! The manifest of one input: what was read, kept, filtered and skipped, and the
//! shards written. Written last and atomically: its presence marks the input done.
//! It is a Parquet file with no rows (see [`manifest_path`]), so that the output folder
//! holds nothing a dataset reader trips on.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use parquet::arrow::ArrowWriter;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};

use super::schema::schema;
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
    /// Rows by detected language (`und` where the text is too short to tell).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub languages: BTreeMap<String, u64>,
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
            (&mut self.languages, &other.languages),
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

/// The key under which a manifest file keeps its JSON in the Parquet key-value metadata.
pub const MANIFEST_KEY: &str = "goce-warc.manifest";

/// Where the manifest of `stem` lives: `_STEM.manifest.parquet`, a Parquet file with no
/// rows, the rows' schema, and the manifest as JSON in its key-value metadata. Dataset
/// readers given the folder either skip `_` files (pyarrow, Spark, Hive) or read zero rows
/// of the same schema (polars, which reads every file below the folder, and DuckDB's
/// `*.parquet` glob), so the output folder opens as one dataset in all of them.
pub fn manifest_path(dir: &Path, stem: &str) -> PathBuf {
    dir.join(format!("_{stem}.manifest.parquet"))
}

/// The manifest of the layout before 0.2 (`STEM.manifest.json` beside the shards): still
/// read, and converted by [`upgrade_legacy_manifests`].
fn legacy_manifest_path(dir: &Path, stem: &str) -> PathBuf {
    dir.join(format!("{stem}.manifest.json"))
}

/// Whether `stem` is done in `dir`, in either layout.
pub fn manifest_exists(dir: &Path, stem: &str) -> bool {
    manifest_path(dir, stem).exists() || legacy_manifest_path(dir, stem).exists()
}

pub fn read_manifest(path: &Path) -> Result<Manifest, OutputError> {
    let json = if path.extension().is_some_and(|e| e == "json") {
        std::fs::read_to_string(path).map_err(|e| OutputError::io(path, e))?
    } else {
        let file = File::open(path).map_err(|e| OutputError::io(path, e))?;
        let reader = SerializedFileReader::new(file)?;
        reader
            .metadata()
            .file_metadata()
            .key_value_metadata()
            .and_then(|kv| kv.iter().find(|kv| kv.key == MANIFEST_KEY))
            .and_then(|kv| kv.value.clone())
            .ok_or_else(|| OutputError::NotAManifest { path: path.to_path_buf() })?
    };
    serde_json::from_str(&json).map_err(|source| OutputError::Manifest { path: path.to_path_buf(), source })
}

/// Writes the manifest under a temporary name and renames it into place: its presence
/// marks the input done.
pub fn write_manifest(dir: &Path, manifest: &Manifest) -> Result<PathBuf, OutputError> {
    let path = manifest_path(dir, &manifest.stem);
    let temp = dir.join(format!(".{}.manifest.parquet.tmp-{}", manifest.stem, std::process::id()));
    let json = serde_json::to_string_pretty(manifest).map_err(|source| OutputError::Manifest { path: path.clone(), source })?;
    let file = File::create(&temp).map_err(|e| OutputError::io(&temp, e))?;
    let props = WriterProperties::builder().set_created_by(format!("goce-warc {}", env!("CARGO_PKG_VERSION"))).build();
    let mut writer = ArrowWriter::try_new(file, schema(), Some(props))?;
    writer.append_key_value_metadata(KeyValue::new(MANIFEST_KEY.to_string(), json));
    let file = writer.into_inner()?;
    file.sync_all().map_err(|e| OutputError::io(&temp, e))?;
    std::fs::rename(&temp, &path).map_err(|e| OutputError::io(&path, e))?;
    Ok(path)
}

/// Rewrites the previous layout's `STEM.manifest.json` files as `_STEM.manifest.parquet`
/// (the JSON is removed only once its replacement is in place), so that a folder written
/// by an older goce-warc becomes a dataset when a new run resumes into it. Returns how
/// many were converted.
pub fn upgrade_legacy_manifests(dir: &Path) -> Result<usize, OutputError> {
    let mut converted = 0;
    for path in manifest_files(dir)? {
        if path.extension().is_some_and(|e| e == "json") {
            let manifest = read_manifest(&path)?;
            write_manifest(dir, &manifest)?;
            std::fs::remove_file(&path).map_err(|e| OutputError::io(&path, e))?;
            converted += 1;
        }
    }
    Ok(converted)
}

/// The manifests in `dir`, both layouts, sorted; where a stem has both (a conversion cut
/// short), only the new one.
fn manifest_files(dir: &Path) -> Result<Vec<PathBuf>, OutputError> {
    let mut current = std::collections::BTreeSet::new();
    let mut legacy = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| OutputError::io(dir, e))?.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(stem) = name.strip_prefix('_').and_then(|n| n.strip_suffix(".manifest.parquet")) {
            current.insert(stem.to_string());
        } else if let Some(stem) = name.strip_suffix(".manifest.json").filter(|_| !name.starts_with(['.', '_'])) {
            legacy.push(stem.to_string());
        }
    }
    let mut paths: Vec<PathBuf> = legacy
        .into_iter()
        .filter(|stem| !current.contains(stem))
        .map(|stem| legacy_manifest_path(dir, &stem))
        .chain(current.iter().map(|stem| manifest_path(dir, stem)))
        .collect();
    paths.sort();
    Ok(paths)
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

/// Reads every manifest in `dir` (temporary files are not manifests).
pub fn summarize(dir: &Path) -> Result<(Summary, Vec<Manifest>), OutputError> {
    let mut summary = Summary::default();
    let mut manifests = Vec::new();
    let paths = manifest_files(dir)?;
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

/// Removes what an earlier run left for `stem` before it is (re)done: its manifest first
/// (so that a run cut short from here on leaves the input undone, never done with shards
/// missing), then its shards and temporary files.
pub fn remove_leftovers(dir: &Path, stem: &str) -> Result<usize, OutputError> {
    let mut removed = 0;
    for path in [manifest_path(dir, stem), legacy_manifest_path(dir, stem)] {
        match std::fs::remove_file(&path) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(OutputError::io(&path, e)),
        }
    }
    let shard_prefix = format!("{stem}.part-");
    let temp_prefix = format!(".{stem}.");
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
