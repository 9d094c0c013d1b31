//! Stage 2, page decode: a WARC response record → an HTML page as UTF-8 text.
//!
//! Keeps responses with a wanted HTTP status and HTML content, undoes raw transfer
//! and content encodings, and decodes the charset. Everything else is either
//! *filtered* (a normal record that is not a page: a request, a 404, an image) or
//! *skipped* with a [`PageError`] (a page that is broken).
//!
//! [`language`] tells what language a page's text is in and what that asks of the stages
//! after this one (stopword lists, characters that are words by themselves).

pub mod charset;
pub mod http;
pub mod language;
mod sniff;

use crate::warc::{RecordType, WarcHeader};

/// A WARC response record, owned, on its way to a worker.
#[derive(Debug, Clone)]
pub struct ResponseRecord {
    pub header: WarcHeader,
    pub block: Vec<u8>,
    pub offset: Option<u64>,
}

/// An HTML page decoded to UTF-8, with what the output needs to know about its origin.
#[derive(Debug, Clone)]
pub struct Page {
    pub url: String,
    pub record_id: Option<String>,
    pub warc_date: Option<String>,
    pub offset: Option<u64>,
    pub http_status: u16,
    /// The media type (without parameters), lower-case.
    pub content_type: String,
    /// The encoding the payload was decoded from (WHATWG name).
    pub charset: &'static str,
    /// Payload bytes after transfer and content decoding, before charset decoding.
    pub html_bytes: usize,
    /// The HTTP `Content-Language` header, as sent.
    pub content_language: Option<String>,
    /// Set when the crawler cut the payload (`WARC-Truncated`).
    pub truncated: Option<String>,
    pub html: String,
}

/// Which records become pages.
#[derive(Debug, Clone, PartialEq)]
pub struct PageFilter {
    /// HTTP statuses kept; empty keeps every status.
    pub statuses: Vec<u16>,
    /// Largest payload after content decoding; bigger ones are cut to this size.
    pub max_html_bytes: usize,
    /// Pages whose decoded text has more U+FFFD than this share are skipped.
    pub max_replacement_share: f64,
}

impl Default for PageFilter {
    fn default() -> Self {
        Self { statuses: vec![200], max_html_bytes: 16 << 20, max_replacement_share: 0.05 }
    }
}

/// Why a record is not a page (normal, counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FilterReason {
    NotResponse,
    HttpStatus,
    NotHtml,
}

impl FilterReason {
    pub fn name(self) -> &'static str {
        match self {
            Self::NotResponse => "not_response",
            Self::HttpStatus => "http_status",
            Self::NotHtml => "not_html",
        }
    }
}

/// Why a response that should have been a page is broken (counted, skipped).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    #[error("unparsable HTTP head: {0}")]
    BadHttpHead(String),
    #[error("undecodable content encoding: {0}")]
    BadContentEncoding(String),
    #[error("undecodable text: {0}")]
    Undecodable(String),
    #[error("no target URI")]
    NoUrl,
}

impl PageError {
    pub fn name(&self) -> &'static str {
        match self {
            Self::BadHttpHead(_) => "bad_http_head",
            Self::BadContentEncoding(_) => "bad_content_encoding",
            Self::Undecodable(_) => "undecodable",
            Self::NoUrl => "no_url",
        }
    }
}

#[derive(Debug)]
pub enum Decision {
    Page(Box<Page>),
    Filtered(FilterReason),
    Broken(PageError),
}

/// Whether the reader should keep this record's block at all (cheap, header only).
/// A page saved as a file (`.html`, or gzipped `.gz`), decoded to UTF-8 as a page without
/// HTTP headers is (BOM, `<meta charset>`, detection).
pub fn read_html_file(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    if path.extension().is_some_and(|e| e == "gz") {
        flate2::read::MultiGzDecoder::new(file).read_to_end(&mut bytes)?;
    } else {
        std::io::BufReader::new(file).read_to_end(&mut bytes)?;
    }
    Ok(charset::decode(bytes, None, None).text)
}

pub fn wants_record(header: &WarcHeader) -> bool {
    header.record_type == RecordType::Response
}

pub fn decode_page(record: ResponseRecord, filter: &PageFilter) -> Decision {
    match try_decode(record, filter) {
        Ok(page) => Decision::Page(Box::new(page)),
        Err(Outcome::Filtered(reason)) => Decision::Filtered(reason),
        Err(Outcome::Broken(e)) => Decision::Broken(e),
    }
}

enum Outcome {
    Filtered(FilterReason),
    Broken(PageError),
}

impl From<PageError> for Outcome {
    fn from(e: PageError) -> Self {
        Self::Broken(e)
    }
}

fn try_decode(record: ResponseRecord, filter: &PageFilter) -> Result<Page, Outcome> {
    let ResponseRecord { header, mut block, offset } = record;
    if !wants_record(&header) {
        return Err(Outcome::Filtered(FilterReason::NotResponse));
    }
    let head = http::parse_head(&block)?;
    if !filter.statuses.is_empty() && !filter.statuses.contains(&head.status) {
        return Err(Outcome::Filtered(FilterReason::HttpStatus));
    }
    let http_type = head.content_type.as_deref().map(media_type).filter(|t| !t.is_empty());
    let identified = header.identified_payload_type.as_deref().map(media_type).filter(|t| !t.is_empty());

    block.drain(..head.head_len);
    let mut payload = block;
    if head.transfer_encoding.as_deref().is_some_and(|te| te.to_ascii_lowercase().contains("chunked")) {
        payload = http::dechunk(&payload);
    }
    if let Some(encodings) = head.content_encoding.as_deref() {
        // Encodings are listed in the order applied: undo them last to first.
        for encoding in encodings.rsplit(',') {
            payload = http::decode_content(encoding, payload, filter.max_html_bytes)?;
        }
    }
    payload.truncate(filter.max_html_bytes);

    let is_html = |t: &Option<String>| t.as_deref().is_some_and(sniff::is_html_media_type);
    let undetermined = |t: &Option<String>| t.as_deref().is_none_or(sniff::is_generic_media_type);
    let content_type = if is_html(&http_type) {
        http_type
    } else if is_html(&identified) {
        identified
    } else if undetermined(&http_type) && undetermined(&identified) && sniff::looks_like_html(&payload) {
        Some("text/html".to_string())
    } else {
        return Err(Outcome::Filtered(FilterReason::NotHtml));
    };

    let url = header.target_uri.clone().ok_or(PageError::NoUrl)?;
    let html_bytes = payload.len();
    let decoded = charset::decode(payload, head.content_type.as_deref(), Some(&url));
    check_text(&decoded, filter)?;
    Ok(Page {
        url,
        record_id: header.record_id,
        warc_date: header.date,
        offset,
        http_status: head.status,
        content_type: content_type.unwrap_or_default(),
        charset: decoded.encoding.name(),
        html_bytes,
        content_language: head.content_language,
        truncated: header.truncated,
        html: decoded.text,
    })
}

/// Rejects payloads that are not text: many replacement characters, or control
/// characters that no text page has (binary content served as HTML).
fn check_text(decoded: &charset::Decoded, filter: &PageFilter) -> Result<(), PageError> {
    // Counted on the UTF-8 bytes, which the compiler vectorises (decoding every character
    // took 4% of the workers' time): a character starts at every byte that is not a
    // continuation byte; C0 controls and DEL are single bytes, C1 controls are C2 80..C2 9F.
    let (chars, controls) = chars_and_controls(&decoded.text);
    let chars = chars.max(1);
    let share = decoded.replacements as f64 / chars as f64;
    if decoded.replacements > 16 && share > filter.max_replacement_share {
        return Err(PageError::Undecodable(format!("{:.0}% of the characters are invalid in {}", share * 100.0, decoded.encoding.name())));
    }
    let share = controls as f64 / chars as f64;
    if controls > 16 && share > filter.max_replacement_share {
        return Err(PageError::Undecodable(format!("{:.0}% of the characters are control characters: binary content", share * 100.0)));
    }
    Ok(())
}

/// The characters of `text`, and how many are control characters other than tab, line
/// feed, form feed and carriage return.
fn chars_and_controls(text: &str) -> (usize, usize) {
    let bytes = text.as_bytes();
    let chars = count_bytes(bytes, |b| b & 0xC0 != 0x80);
    let c0 = count_bytes(bytes, |b| (b < 0x20) & (b != b'\t') & (b != b'\n') & (b != b'\r') & (b != 0x0c) | (b == 0x7f));
    let c1 = memchr::memchr_iter(0xC2, bytes).filter(|&i| bytes.get(i + 1).is_some_and(|b| (0x80..0xA0).contains(b))).count();
    (chars, c0 + c1)
}

/// How many bytes pass `test`: counted in bytes within runs of 255, which the compiler
/// turns into 16 or 32 bytes per instruction.
fn count_bytes(bytes: &[u8], test: impl Fn(u8) -> bool) -> usize {
    bytes.chunks(255).map(|run| usize::from(run.iter().fold(0u8, |n, &b| n + u8::from(test(b))))).sum()
}

/// "Text/HTML; charset=x" → "text/html".
fn media_type(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

#[cfg(test)]
mod tests;
