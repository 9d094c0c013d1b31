//! Parquet shards: zstd, written under a temporary name and renamed when complete,
//! with the SHA-256 of each file computed while it is written.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use sha2::{Digest, Sha256};

use super::OutputError;
use super::schema::{Row, schema, to_batch};

/// Rows per Arrow batch handed to the Parquet writer.
const BATCH_ROWS: usize = 256;
/// Rows per Parquet row group. The writer holds one row group's encoded pages in memory
/// (and the rows waiting for the next batch), and each flush is a transient on top of the
/// workers' own peaks, so small groups keep peak RSS from creeping up with the input's
/// length (README, *Peak RSS*: 512 rows / 4 MiB against 2,048 / 16 MiB cut the 1 GB
/// input's peak by about 10 MB). The shard is 0.1% larger; zstd works per data page, not
/// per group.
const ROW_GROUP_ROWS: usize = 512;
/// ... and at most this many bytes in memory before it is flushed.
const ROW_GROUP_BYTES: usize = 4 << 20;
const ZSTD_LEVEL: i32 = 3;

/// A finished shard, as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ShardInfo {
    pub file: String,
    pub rows: u64,
    pub bytes: u64,
    pub sha256: String,
}

/// Writes the rows of one input as `<stem>.part-NNNNN.parquet` files in `dir`.
pub struct ShardWriter {
    dir: PathBuf,
    stem: String,
    rows_per_shard: usize,
    schema: SchemaRef,
    pending: Vec<Row>,
    current: Option<OpenShard>,
    finished: Vec<ShardInfo>,
}

struct OpenShard {
    writer: ArrowWriter<HashingWriter>,
    temp_path: PathBuf,
    final_name: String,
    rows: u64,
}

impl ShardWriter {
    pub fn new(dir: &Path, stem: &str, rows_per_shard: usize) -> Self {
        Self {
            dir: dir.to_path_buf(),
            stem: stem.to_string(),
            rows_per_shard: rows_per_shard.max(1),
            schema: schema(),
            pending: Vec::with_capacity(BATCH_ROWS),
            current: None,
            finished: Vec::new(),
        }
    }

    pub fn shard_name(stem: &str, index: usize) -> String {
        format!("{stem}.part-{index:05}.parquet")
    }

    pub fn push(&mut self, row: Row) -> Result<(), OutputError> {
        self.pending.push(row);
        let room = self.rows_per_shard as u64 - self.current.as_ref().map_or(0, |s| s.rows);
        if self.pending.len() >= BATCH_ROWS || self.pending.len() as u64 >= room {
            self.write_pending()?;
        }
        Ok(())
    }

    fn write_pending(&mut self) -> Result<(), OutputError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        if self.current.is_none() {
            self.current = Some(self.open_shard()?);
        }
        let batch = to_batch(&self.pending, &self.schema)?;
        self.pending.clear();
        let full = match self.current.as_mut() {
            Some(shard) => {
                shard.writer.write(&batch)?;
                shard.rows += batch.num_rows() as u64;
                shard.rows >= self.rows_per_shard as u64
            }
            None => false,
        };
        if full {
            self.close_shard()?;
        }
        Ok(())
    }

    fn open_shard(&self) -> Result<OpenShard, OutputError> {
        let final_name = Self::shard_name(&self.stem, self.finished.len());
        let temp_path = self.dir.join(format!(".{final_name}.tmp-{}", std::process::id()));
        let file = File::create(&temp_path).map_err(|e| OutputError::io(&temp_path, e))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(ZSTD_LEVEL)?))
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
            .set_created_by(format!("goce-warc {}", env!("CARGO_PKG_VERSION")))
            .build();
        let sink = HashingWriter { inner: BufWriter::with_capacity(1 << 20, file), hasher: Sha256::new(), bytes: 0 };
        let writer = ArrowWriter::try_new(sink, self.schema.clone(), Some(props))?;
        Ok(OpenShard { writer, temp_path, final_name, rows: 0 })
    }

    fn close_shard(&mut self) -> Result<(), OutputError> {
        let Some(shard) = self.current.take() else { return Ok(()) };
        let OpenShard { writer, temp_path, final_name, rows } = shard;
        let sink = writer.into_inner()?;
        let HashingWriter { inner, hasher, bytes } = sink;
        let file = inner.into_inner().map_err(|e| OutputError::io(&temp_path, e.into_error()))?;
        file.sync_all().map_err(|e| OutputError::io(&temp_path, e))?;
        let final_path = self.dir.join(&final_name);
        std::fs::rename(&temp_path, &final_path).map_err(|e| OutputError::io(&final_path, e))?;
        self.finished.push(ShardInfo { file: final_name, rows, bytes, sha256: hex(&hasher.finalize()) });
        Ok(())
    }

    /// Writes what is left and returns every shard written.
    pub fn finish(mut self) -> Result<Vec<ShardInfo>, OutputError> {
        self.write_pending()?;
        self.close_shard()?;
        Ok(std::mem::take(&mut self.finished))
    }

    /// Drops the shard being written (its temporary file is removed).
    pub fn abandon(mut self) -> Vec<ShardInfo> {
        if let Some(shard) = self.current.take() {
            let _ = std::fs::remove_file(&shard.temp_path);
        }
        std::mem::take(&mut self.finished)
    }
}

/// Every row of a shard, in order.
pub fn read_shard(path: &Path) -> Result<Vec<Row>, OutputError> {
    let file = File::open(path).map_err(|e| OutputError::io(path, e))?;
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)?.build()?;
    let mut rows = Vec::new();
    for batch in reader {
        rows.extend(super::schema::from_batch(&batch?)?);
    }
    Ok(rows)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

struct HashingWriter {
    inner: BufWriter<File>,
    hasher: Sha256,
    bytes: u64,
}

impl Write for HashingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use proptest::prelude::*;

    use super::*;

    fn optional<T: std::fmt::Debug + Clone>(value: impl Strategy<Value = T>) -> impl Strategy<Value = Option<T>> {
        proptest::option::of(value)
    }

    /// Any row: any text (control characters, astral planes, empty), nulls anywhere they
    /// are allowed, the full range of the integer columns. Confidences stay finite, as the
    /// classifier writes them (NaN is not equal to itself).
    fn any_row() -> impl Strategy<Value = Row> {
        let text = "(?s).*"; // any characters, newlines and controls included
        (
            (text, optional(text), optional(any::<i64>()), text, optional(any::<i64>()), any::<i32>(), text),
            (text, any::<i64>(), optional(text), optional(text), optional(text), optional(-1e9f32..1e9), optional(0f32..=1.0)),
            (text, optional(text), optional(0f32..1.0), optional(text), any::<i32>(), text, text, optional(text)),
        )
            .prop_map(|(a, b, c)| Row {
                url: a.0,
                warc_record_id: a.1,
                warc_date: a.2,
                warc_file: a.3,
                warc_offset: a.4,
                http_status: a.5,
                content_type: a.6,
                charset: b.0,
                html_bytes: b.1,
                title: b.2,
                page_type: b.3,
                genre: b.4,
                genre_confidence: b.5,
                extraction_confidence: b.6,
                extractor: c.0,
                language: c.1,
                language_confidence: c.2,
                declared_language: c.3,
                text_words: c.4,
                text_sha256: c.5,
                text: c.6,
                markdown: c.7,
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// What the writer is given reads back equal, in order, across however many shards
        /// and batches it took, and each shard holds the rows the manifest says.
        #[test]
        fn rows_read_back_equal(rows in proptest::collection::vec(any_row(), 0..700), per_shard in 1usize..600) {
            let dir = tempfile::tempdir().unwrap();
            let mut writer = ShardWriter::new(dir.path(), "input", per_shard);
            for row in &rows {
                writer.push(row.clone()).unwrap();
            }
            let shards = writer.finish().unwrap();
            let mut back = Vec::new();
            for shard in &shards {
                let shard_rows = read_shard(&dir.path().join(&shard.file)).unwrap();
                prop_assert_eq!(shard_rows.len() as u64, shard.rows);
                prop_assert!(shard_rows.len() <= per_shard);
                back.extend(shard_rows);
            }
            prop_assert_eq!(shards.len(), rows.len().div_ceil(per_shard));
            prop_assert_eq!(back, rows);
        }
    }
}
