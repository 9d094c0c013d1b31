//! Stage 6, output: rows → zstd Parquet shards, and a manifest per input written last.
//!
//! An input is done when its manifest exists. Shards are renamed into place only when
//! complete, and a rerun first removes whatever an interrupted run left for that input,
//! so the output never holds a partial shard or a duplicate row.

mod manifest;
mod schema;
mod shards;

use std::path::{Path, PathBuf};

pub use manifest::{
    Counts, MANIFEST_KEY, Manifest, StageSeconds, Summary, manifest_exists, manifest_path, read_manifest, remove_leftovers, summarize,
    upgrade_legacy_manifests, write_manifest,
};
pub use schema::{Row, parse_warc_date, schema};
pub use shards::{ShardInfo, ShardWriter, read_shard};

#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("Parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    #[error("Arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    #[error("manifest {path}: {source}")]
    Manifest { path: PathBuf, source: serde_json::Error },
    #[error("{path} is not a goce-warc manifest (no {MANIFEST_KEY} metadata)")]
    NotAManifest { path: PathBuf },
}

impl OutputError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io { path: path.to_path_buf(), source }
    }
}
