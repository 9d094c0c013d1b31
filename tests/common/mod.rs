//! Helpers for tests that run the real binary, as a user would from a terminal.
#![allow(dead_code)]

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use arrow_array::{Array, Float32Array, Int32Array, Int64Array, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

pub mod fixture_pages;
pub use fixture_pages::{fixtures, gzip};

/// From this crate's folder to the repository's (for [`fixture_pages`]).
const REPOSITORY_ROOT: &str = ".";

/// The binary, outside any Slurm array the tests themselves may run in.
pub fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_goce-warc"));
    for var in ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN"] {
        cmd.env_remove(var);
    }
    cmd
}

pub fn project_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

pub fn samples() -> Vec<PathBuf> {
    ["sample-warcs/articles.warc.gz", "sample-warcs/listings.warc.gz", "sample-warcs/encodings.warc"].iter().map(|p| project_file(p)).collect()
}

/// Runs `goce-warc process ARGS... --out OUT -q` and returns its output.
pub fn process(out: &Path, args: &[&str]) -> Output {
    let mut cmd = bin();
    cmd.arg("process").args(args).arg("--out").arg(out).arg("--quiet").stdin(Stdio::null());
    cmd.output().expect("the goce-warc binary runs")
}

pub fn process_paths(out: &Path, inputs: &[PathBuf], extra: &[&str]) -> Output {
    let mut args: Vec<&str> = inputs.iter().map(|p| p.to_str().expect("utf-8 path")).collect();
    args.extend_from_slice(extra);
    process(out, &args)
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The columns the tests look at, read back with the parquet crate.
#[derive(Debug, Clone, PartialEq)]
pub struct TestRow {
    pub url: String,
    pub title: Option<String>,
    pub text: String,
    pub charset: String,
    pub extractor: String,
    pub genre: Option<String>,
    pub page_type: Option<String>,
    pub genre_confidence: Option<f32>,
    pub extraction_confidence: Option<f32>,
    pub http_status: i32,
    pub warc_offset: Option<i64>,
    pub warc_record_id: Option<String>,
    pub warc_file: String,
    pub language: Option<String>,
    pub language_confidence: Option<f32>,
    pub declared_language: Option<String>,
    pub text_words: i32,
    pub text_sha256: String,
    pub markdown: Option<String>,
}

pub fn read_shard(path: &Path) -> Vec<TestRow> {
    let file = File::open(path).expect("shard opens");
    let reader = ParquetRecordBatchReaderBuilder::try_new(file).expect("valid parquet").build().expect("reader");
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.expect("batch");
        let strings = |name: &str| batch.column_by_name(name).and_then(|c| c.as_any().downcast_ref::<StringArray>()).cloned().expect(name);
        let (url, title, text, charset, extractor, genre, id, file) = (
            strings("url"),
            strings("title"),
            strings("text"),
            strings("charset"),
            strings("extractor"),
            strings("genre"),
            strings("warc_record_id"),
            strings("warc_file"),
        );
        let page_type = strings("page_type");
        let markdown = strings("markdown");
        let (language, declared, sha) = (strings("language"), strings("declared_language"), strings("text_sha256"));
        let language_confidence =
            batch.column_by_name("language_confidence").and_then(|c| c.as_any().downcast_ref::<Float32Array>()).cloned().expect("language_confidence");
        let words = batch.column_by_name("text_words").and_then(|c| c.as_any().downcast_ref::<Int32Array>()).cloned().expect("text_words");
        let confidence = batch.column_by_name("genre_confidence").and_then(|c| c.as_any().downcast_ref::<Float32Array>()).cloned().expect("genre_confidence");
        let extraction_confidence =
            batch.column_by_name("extraction_confidence").and_then(|c| c.as_any().downcast_ref::<Float32Array>()).cloned().expect("extraction_confidence");
        let status = batch.column_by_name("http_status").and_then(|c| c.as_any().downcast_ref::<Int32Array>()).cloned().expect("status");
        let offset = batch.column_by_name("warc_offset").and_then(|c| c.as_any().downcast_ref::<Int64Array>()).cloned().expect("offset");
        let opt = |a: &StringArray, i: usize| (!a.is_null(i)).then(|| a.value(i).to_string());
        for i in 0..batch.num_rows() {
            rows.push(TestRow {
                url: url.value(i).to_string(),
                title: opt(&title, i),
                text: text.value(i).to_string(),
                charset: charset.value(i).to_string(),
                extractor: extractor.value(i).to_string(),
                genre: opt(&genre, i),
                page_type: opt(&page_type, i),
                genre_confidence: (!confidence.is_null(i)).then(|| confidence.value(i)),
                extraction_confidence: (!extraction_confidence.is_null(i)).then(|| extraction_confidence.value(i)),
                http_status: status.value(i),
                warc_offset: (!offset.is_null(i)).then(|| offset.value(i)),
                warc_record_id: opt(&id, i),
                warc_file: file.value(i).to_string(),
                language: opt(&language, i),
                language_confidence: (!language_confidence.is_null(i)).then(|| language_confidence.value(i)),
                declared_language: opt(&declared, i),
                text_words: words.value(i),
                text_sha256: sha.value(i).to_string(),
                markdown: opt(&markdown, i),
            });
        }
    }
    rows
}

pub fn shard_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("out dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .filter(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('_')))
        .collect();
    files.sort();
    files
}

pub fn read_all_rows(dir: &Path) -> Vec<TestRow> {
    shard_files(dir).iter().flat_map(|p| read_shard(p)).collect()
}

/// The manifest of `stem`, as the JSON it holds.
pub fn manifest(dir: &Path, stem: &str) -> serde_json::Value {
    let manifest = goce_warc::output::read_manifest(&goce_warc::output::manifest_path(dir, stem)).expect("manifest exists");
    serde_json::to_value(manifest).expect("manifest is JSON")
}

/// Every manifest in `dir`, as JSON.
pub fn manifests(dir: &Path) -> Vec<serde_json::Value> {
    let (_, manifests) = goce_warc::output::summarize(dir).expect("manifests readable");
    manifests.into_iter().map(|m| serde_json::to_value(m).expect("manifest is JSON")).collect()
}

/// Splits a member-per-record gzip file into its members.
pub fn gzip_members(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut members = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let mut decoder = flate2::bufread::GzDecoder::new(rest);
        std::io::copy(&mut decoder, &mut std::io::sink()).expect("valid member");
        let left = decoder.into_inner().len();
        let used = rest.len() - left;
        members.push(rest[..used].to_vec());
        rest = &rest[used..];
    }
    members
}

pub fn gunzip(member: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(member).read_to_end(&mut out).expect("valid member");
    out
}
