//! The Parquet writer on any rows: any strings (empty, huge, control characters), nulls
//! wherever the schema allows them, any numbers (NaN confidences included), any shard size.
//! Every row must read back equal, in order, in the shards the writer reports.
#![no_main]
use arbitrary::Arbitrary;
use goce_warc::output::{Row, ShardWriter, read_shard};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct Input {
    rows_per_shard: u8,
    rows: Vec<FuzzRow>,
}

#[derive(Debug, Clone, Arbitrary)]
struct FuzzRow {
    url: String,
    warc_record_id: Option<String>,
    warc_date: Option<i64>,
    warc_file: String,
    warc_offset: Option<i64>,
    http_status: i32,
    content_type: String,
    charset: String,
    html_bytes: i64,
    title: Option<String>,
    page_type: Option<String>,
    genre: Option<String>,
    genre_confidence: Option<f32>,
    extractor: String,
    extraction_confidence: Option<f32>,
    language: Option<String>,
    language_confidence: Option<f32>,
    declared_language: Option<String>,
    text_words: i32,
    text_sha256: String,
    text: String,
    markdown: Option<String>,
}

impl From<FuzzRow> for Row {
    fn from(r: FuzzRow) -> Self {
        Row {
            url: r.url,
            warc_record_id: r.warc_record_id,
            warc_date: r.warc_date,
            warc_file: r.warc_file,
            warc_offset: r.warc_offset,
            http_status: r.http_status,
            content_type: r.content_type,
            charset: r.charset,
            html_bytes: r.html_bytes,
            title: r.title,
            page_type: r.page_type,
            genre: r.genre,
            genre_confidence: r.genre_confidence,
            extractor: r.extractor,
            extraction_confidence: r.extraction_confidence,
            language: r.language,
            language_confidence: r.language_confidence,
            declared_language: r.declared_language,
            text_words: r.text_words,
            text_sha256: r.text_sha256,
            text: r.text,
            markdown: r.markdown,
        }
    }
}

/// The row with its floats as bits, so that a NaN compares equal to the same NaN.
fn comparable(row: &Row) -> (Row, [Option<u32>; 3]) {
    let bits = [row.genre_confidence, row.language_confidence, row.extraction_confidence].map(|c| c.map(f32::to_bits));
    (Row { genre_confidence: None, language_confidence: None, extraction_confidence: None, ..row.clone() }, bits)
}

fuzz_target!(|input: Input| {
    let per_shard = usize::from(input.rows_per_shard.max(1));
    let rows: Vec<Row> = input.rows.into_iter().map(Row::from).collect();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut writer = ShardWriter::new(dir.path(), "input", per_shard);
    for row in &rows {
        writer.push(row.clone()).expect("rows write");
    }
    let shards = writer.finish().expect("shards close");
    assert_eq!(shards.len(), rows.len().div_ceil(per_shard));
    let mut back = Vec::new();
    for shard in &shards {
        let shard_rows = read_shard(&dir.path().join(&shard.file)).expect("the shard reads back");
        assert_eq!(shard_rows.len() as u64, shard.rows);
        back.extend(shard_rows);
    }
    let left: Vec<_> = rows.iter().map(comparable).collect();
    let right: Vec<_> = back.iter().map(comparable).collect();
    assert!(left == right, "rows read back differ");
});
