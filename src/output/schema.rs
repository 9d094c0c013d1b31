//! The output row and its Arrow schema: one row per HTML page kept.

use std::sync::Arc;

use arrow_array::builder::{Float32Builder, Int32Builder, Int64Builder, StringBuilder, TimestampMillisecondBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Int32Type, Int64Type, TimestampMillisecondType};
use arrow_array::{Array, ArrayRef, RecordBatch};
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
    /// The combiner's expected word F1 of `text` (0–1), calibrated on sites it never
    /// trained on; None for the other extractors.
    pub extraction_confidence: Option<f32>,
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
    /// The kept blocks as GitHub-flavoured Markdown (`process --markdown`), else None.
    pub markdown: Option<String>,
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
        Field::new("extraction_confidence", DataType::Float32, true),
        utf8("language", true),
        Field::new("language_confidence", DataType::Float32, true),
        utf8("declared_language", true),
        Field::new("text_words", DataType::Int32, false),
        utf8("text_sha256", false),
        utf8("text", false),
        utf8("markdown", true),
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
    let mut extraction_confidence = Float32Builder::with_capacity(n);
    let mut words = Int32Builder::with_capacity(n);
    for row in rows {
        language_confidence.append_option(row.language_confidence);
        extraction_confidence.append_option(row.extraction_confidence);
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
        Arc::new(extraction_confidence.finish()),
        strings(&|r| r.language.as_deref()),
        Arc::new(language_confidence.finish()),
        strings(&|r| r.declared_language.as_deref()),
        Arc::new(words.finish()),
        strings(&|r| Some(&r.text_sha256)),
        strings(&|r| Some(&r.text)),
        strings(&|r| r.markdown.as_deref()),
    ];
    RecordBatch::try_new(schema.clone(), columns)
}

/// The rows of one batch with the schema: the inverse of [`to_batch`].
pub fn from_batch(batch: &RecordBatch) -> Result<Vec<Row>, ArrowError> {
    let column = |name: &str| batch.column_by_name(name).ok_or_else(|| ArrowError::SchemaError(format!("no column {name}")));
    let wrong = |name: &str| ArrowError::SchemaError(format!("column {name} has type {:?}", batch.column_by_name(name).map(|c| c.data_type())));
    let strings = |name: &str| column(name)?.as_string_opt::<i32>().ok_or_else(|| wrong(name));
    let ints = |name: &str| column(name)?.as_primitive_opt::<Int32Type>().ok_or_else(|| wrong(name));
    let longs = |name: &str| column(name)?.as_primitive_opt::<Int64Type>().ok_or_else(|| wrong(name));
    let floats = |name: &str| column(name)?.as_primitive_opt::<Float32Type>().ok_or_else(|| wrong(name));
    let (url, record_id, warc_file, content_type, charset) =
        (strings("url")?, strings("warc_record_id")?, strings("warc_file")?, strings("content_type")?, strings("charset")?);
    let (title, page_type, genre, extractor) = (strings("title")?, strings("page_type")?, strings("genre")?, strings("extractor")?);
    let (language, declared_language, sha, text) = (strings("language")?, strings("declared_language")?, strings("text_sha256")?, strings("text")?);
    let markdown = strings("markdown")?;
    let date = column("warc_date")?.as_primitive_opt::<TimestampMillisecondType>().ok_or_else(|| wrong("warc_date"))?;
    let (offset, status, html_bytes, words) = (longs("warc_offset")?, ints("http_status")?, longs("html_bytes")?, ints("text_words")?);
    let (confidence, language_confidence) = (floats("genre_confidence")?, floats("language_confidence")?);
    let extraction_confidence = floats("extraction_confidence")?;
    Ok((0..batch.num_rows())
        .map(|i| Row {
            url: url.value(i).to_string(),
            warc_record_id: optional_string(record_id, i),
            warc_date: date.is_valid(i).then(|| date.value(i)),
            warc_file: warc_file.value(i).to_string(),
            warc_offset: offset.is_valid(i).then(|| offset.value(i)),
            http_status: status.value(i),
            content_type: content_type.value(i).to_string(),
            charset: charset.value(i).to_string(),
            html_bytes: html_bytes.value(i),
            title: optional_string(title, i),
            page_type: optional_string(page_type, i),
            genre: optional_string(genre, i),
            genre_confidence: confidence.is_valid(i).then(|| confidence.value(i)),
            extractor: extractor.value(i).to_string(),
            extraction_confidence: extraction_confidence.is_valid(i).then(|| extraction_confidence.value(i)),
            language: optional_string(language, i),
            language_confidence: language_confidence.is_valid(i).then(|| language_confidence.value(i)),
            declared_language: optional_string(declared_language, i),
            text_words: words.value(i),
            text_sha256: sha.value(i).to_string(),
            text: text.value(i).to_string(),
            markdown: optional_string(markdown, i),
        })
        .collect())
}

fn optional_string(array: &arrow_array::StringArray, i: usize) -> Option<String> {
    array.is_valid(i).then(|| array.value(i).to_string())
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
        let mut rows = vec![Row { url: "u".into(), text: "t".into(), ..Row::default() }; 3];
        rows[1].markdown = Some("# t".into());
        rows[2].extraction_confidence = Some(0.75);
        let batch = to_batch(&rows, &schema).unwrap();
        assert_eq!((batch.num_rows(), batch.num_columns()), (3, schema.fields().len()));
        assert_eq!(from_batch(&batch).unwrap(), rows);
    }
}
