//! Stage 1, the WARC reader: input bytes → records.
//!
//! Reads plain WARC, gzip with one member per record (as Common Crawl writes it) and
//! whole-file gzip, in WARC/0.18, 1.0 and 1.1. A damaged record is reported as a
//! [`Skip`] with a [`SkipReason`] and the reader moves on to the next record it can find.

mod buffer;
mod header;
mod inflate;
mod reader;
mod source;

pub use header::{RecordType, WarcHeader};
pub use reader::{Next, RawRecord, Skip, WarcReader};
pub use source::Compression;

/// Bounds on what the reader holds in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ReaderLimits {
    /// Records whose block is larger are skipped (streamed past, never held).
    pub max_record_bytes: usize,
    /// A header longer than this is treated as damage.
    pub max_header_bytes: usize,
}

impl Default for ReaderLimits {
    fn default() -> Self {
        Self { max_record_bytes: 16 << 20, max_header_bytes: 64 << 10 }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WarcError {
    #[error("bad WARC header: {0}")]
    BadHeader(String),
}

/// Why a stretch of input yielded no record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    GzipCorrupt,
    GzipTruncated,
    GarbageBetweenMembers,
    GarbageBetweenRecords,
    BadWarcHeader,
    TruncatedRecord,
    ContentLengthMismatch,
    RecordTooLarge,
}

impl SkipReason {
    pub fn name(self) -> &'static str {
        match self {
            Self::GzipCorrupt => "gzip_corrupt",
            Self::GzipTruncated => "gzip_truncated",
            Self::GarbageBetweenMembers => "garbage_between_members",
            Self::GarbageBetweenRecords => "garbage_between_records",
            Self::BadWarcHeader => "bad_warc_header",
            Self::TruncatedRecord => "truncated_record",
            Self::ContentLengthMismatch => "content_length_mismatch",
            Self::RecordTooLarge => "record_too_large",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Self::GzipCorrupt => "corrupt gzip member",
            Self::GzipTruncated => "gzip member cut off by the end of the input",
            Self::GarbageBetweenMembers => "bytes that are not gzip between members",
            Self::GarbageBetweenRecords => "bytes that are not a WARC record",
            Self::BadWarcHeader => "unreadable WARC header",
            Self::TruncatedRecord => "record cut off by the end of the input",
            Self::ContentLengthMismatch => "Content-Length does not match the record",
            Self::RecordTooLarge => "record over the size limit",
        }
    }
}

#[cfg(test)]
mod tests;
