//! The output row and its Arrow schema: one row per HTML page kept.

use std::sync::Arc;

use arrow_array::builder::{Float32Builder, Int32Builder, Int64Builder, StringBuilder, TimestampMillisecondBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef, TimeUnit};

/// One output row. Field order and names are the Parquet columns' (see the README).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row {
    pub url: String,
    pub warc_record_id: Option<String>,
    /// Milliseconds since the epoch, UTC; None when WARC-Date is missing or malformed.
    pub warc_date: Option<i64>,
    pub warc_file: String,
    pub warc_offset: Option<i64>,
    pub http_status: i32,
    pub content_type: String,
    pub charset: String,
    pub html_bytes: i64,
    pub title: Option<String>,
    pub page_type: Option<String>,
    pub genre: Option<String>,
    pub genre_confidence: Option<f32>,
    pub extractor: String,
    /// Detected from the text (ISO 639-1, else 639-3); None when too short to tell.
    pub language: Option<String>,
    pub language_confidence: Option<f32>,
    /// What the page declares (`<html lang>`, else `Content-Language`), normalised.
    pub declared_language: Option<String>,
    /// Words of `text` by Unicode's word boundaries.
    pub text_words: i32,
    /// Lower-case hex SHA-256 of `text`.
    pub text_sha256: String,
    pub text: String,
}

pub fn schema() -> SchemaRef {
    let utf8 = |name: &str, nullable: bool| Field::new(name, DataType::Utf8, nullable);
    Arc::new(Schema::new(vec![
        utf8("url", false),
        utf8("warc_record_id", true),
        Field::new("warc_date", DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())), true),
        utf8("warc_file", false),
        Field::new("warc_offset", DataType::Int64, true),
        Field::new("http_status", DataType::Int32, false),
        utf8("content_type", false),
        utf8("charset", false),
        Field::new("html_bytes", DataType::Int64, false),
        utf8("title", true),
        utf8("page_type", true),
        utf8("genre", true),
        Field::new("genre_confidence", DataType::Float32, true),
        utf8("extractor", false),
        utf8("language", true),
        Field::new("language_confidence", DataType::Float32, true),
        utf8("declared_language", true),
        Field::new("text_words", DataType::Int32, false),
        utf8("text_sha256", false),
        utf8("text", false),
    ]))
}

/// Turns rows into one record batch.
pub fn to_batch(rows: &[Row], schema: &SchemaRef) -> Result<RecordBatch, ArrowError> {
    let n = rows.len();
    let strings = |f: &dyn Fn(&Row) -> Option<&str>| -> ArrayRef {
        let bytes: usize = rows.iter().map(|r| f(r).map_or(0, str::len)).sum();
        let mut b = StringBuilder::with_capacity(n, bytes);
        for row in rows {
            b.append_option(f(row));
        }
        Arc::new(b.finish())
    };
    let mut date = TimestampMillisecondBuilder::with_capacity(n).with_timezone("UTC");
    let mut offset = Int64Builder::with_capacity(n);
    let mut status = Int32Builder::with_capacity(n);
    let mut html_bytes = Int64Builder::with_capacity(n);
    let mut confidence = Float32Builder::with_capacity(n);
    let mut language_confidence = Float32Builder::with_capacity(n);
    let mut words = Int32Builder::with_capacity(n);
    for row in rows {
        language_confidence.append_option(row.language_confidence);
        words.append_value(row.text_words);
        date.append_option(row.warc_date);
        offset.append_option(row.warc_offset);
        status.append_value(row.http_status);
        html_bytes.append_value(row.html_bytes);
        confidence.append_option(row.genre_confidence);
    }
    let columns: Vec<ArrayRef> = vec![
        strings(&|r| Some(&r.url)),
        strings(&|r| r.warc_record_id.as_deref()),
        Arc::new(date.finish()),
        strings(&|r| Some(&r.warc_file)),
        Arc::new(offset.finish()),
        Arc::new(status.finish()),
        strings(&|r| Some(&r.content_type)),
        strings(&|r| Some(&r.charset)),
        Arc::new(html_bytes.finish()),
        strings(&|r| r.title.as_deref()),
        strings(&|r| r.page_type.as_deref()),
        strings(&|r| r.genre.as_deref()),
        Arc::new(confidence.finish()),
        strings(&|r| Some(&r.extractor)),
        strings(&|r| r.language.as_deref()),
        Arc::new(language_confidence.finish()),
        strings(&|r| r.declared_language.as_deref()),
        Arc::new(words.finish()),
        strings(&|r| Some(&r.text_sha256)),
        strings(&|r| Some(&r.text)),
    ];
    RecordBatch::try_new(schema.clone(), columns)
}

/// WARC-Date (ISO 8601, as WARC 1.0/1.1 write it) → milliseconds since the epoch.
pub fn parse_warc_date(date: &str) -> Option<i64> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(date) {
        return Some(t.timestamp_millis());
    }
    // Older writers: no zone, or a 14-digit timestamp.
    for format in ["%Y-%m-%dT%H:%M:%S", "%Y%m%d%H%M%S"] {
        if let Ok(t) = chrono::NaiveDateTime::parse_from_str(date.trim_end_matches('Z'), format) {
            return Some(t.and_utc().timestamp_millis());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_or_are_null() {
        assert_eq!(parse_warc_date("1970-01-01T00:00:01Z"), Some(1000));
        assert_eq!(parse_warc_date("2024-05-18T01:02:03.5Z"), Some(1_715_994_123_500));
        assert_eq!(parse_warc_date("19700101000002"), Some(2000));
        assert_eq!(parse_warc_date("2008-10-294T05:21:46-0700"), None);
    }

    #[test]
    fn rows_become_a_batch_with_the_schema() {
        let schema = schema();
        let rows = vec![Row { url: "u".into(), text: "t".into(), ..Row::default() }; 3];
        let batch = to_batch(&rows, &schema).unwrap();
        assert_eq!((batch.num_rows(), batch.num_columns()), (3, schema.fields().len()));
    }
}
