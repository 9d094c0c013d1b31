//! The HTTP response inside a WARC response record: status, headers, and the payload
//! with transfer and content encodings undone where the WARC stored them raw.

use std::io::Read;

use super::PageError;

/// What goce-warc reads from an HTTP response head.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpHead {
    pub status: u16,
    pub content_type: Option<String>,
    pub transfer_encoding: Option<String>,
    pub content_encoding: Option<String>,
    /// Common Crawl undoes encodings before writing and renames the original headers
    /// to `X-Crawler-*`: these say what the server sent, not what the payload is.
    pub crawler_content_encoding: Option<String>,
    /// The server's `Content-Language`, as sent.
    pub content_language: Option<String>,
    /// Length of the head, blank line included.
    pub head_len: usize,
}

const HEADER_SLOTS: usize = 128;
const MAX_HEADER_SLOTS: usize = 2048;

pub fn parse_head(block: &[u8]) -> Result<HttpHead, PageError> {
    // HTTP/2 and /3 status lines (some archivers write them) are not HTTP/1 syntax:
    // read the status by hand and the fields with httparse.
    if block.starts_with(b"HTTP/2") || block.starts_with(b"HTTP/3") {
        return parse_h2_head(block);
    }
    let mut slots = HEADER_SLOTS;
    loop {
        let mut headers = vec![httparse::EMPTY_HEADER; slots];
        let mut response = httparse::Response::new(&mut headers);
        let parsed = parser_config().parse_response(&mut response, block);
        match parsed {
            Ok(httparse::Status::Complete(head_len)) => {
                let status = response.code.unwrap_or_default();
                return Ok(head_from_fields(status, response.headers, head_len));
            }
            Ok(httparse::Status::Partial) => {
                return Err(PageError::BadHttpHead("the HTTP head has no end".into()));
            }
            Err(httparse::Error::TooManyHeaders) if slots < MAX_HEADER_SLOTS => slots *= 4,
            Err(e) => return Err(PageError::BadHttpHead(e.to_string())),
        }
    }
}

fn parser_config() -> httparse::ParserConfig {
    let mut config = httparse::ParserConfig::default();
    config
        .allow_spaces_after_header_name_in_responses(true)
        .allow_obsolete_multiline_headers_in_responses(true)
        .allow_multiple_spaces_in_response_status_delimiters(true)
        .ignore_invalid_headers_in_responses(true);
    config
}

fn parse_h2_head(block: &[u8]) -> Result<HttpHead, PageError> {
    let line_end = memchr::memchr(b'\n', block).ok_or_else(|| PageError::BadHttpHead("no status line".into()))?;
    let line = String::from_utf8_lossy(&block[..line_end]);
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| PageError::BadHttpHead(format!("bad status line {:?}", line.trim())))?;
    let mut headers = vec![httparse::EMPTY_HEADER; MAX_HEADER_SLOTS];
    match httparse::parse_headers(&block[line_end + 1..], &mut headers) {
        Ok(httparse::Status::Complete((len, fields))) => Ok(head_from_fields(status, fields, line_end + 1 + len)),
        Ok(httparse::Status::Partial) => Err(PageError::BadHttpHead("the HTTP head has no end".into())),
        Err(e) => Err(PageError::BadHttpHead(e.to_string())),
    }
}

fn head_from_fields(status: u16, fields: &[httparse::Header<'_>], head_len: usize) -> HttpHead {
    let mut head = HttpHead { status, head_len, ..HttpHead::default() };
    for field in fields {
        let slot = if field.name.eq_ignore_ascii_case("content-type") {
            &mut head.content_type
        } else if field.name.eq_ignore_ascii_case("transfer-encoding") {
            &mut head.transfer_encoding
        } else if field.name.eq_ignore_ascii_case("content-encoding") {
            &mut head.content_encoding
        } else if field.name.eq_ignore_ascii_case("x-crawler-content-encoding") {
            &mut head.crawler_content_encoding
        } else if field.name.eq_ignore_ascii_case("content-language") {
            &mut head.content_language
        } else {
            continue;
        };
        let value = String::from_utf8_lossy(field.value).trim().to_string();
        if slot.is_none() && !value.is_empty() {
            *slot = Some(value);
        }
    }
    head
}

/// Undoes chunked transfer encoding. Lenient as browsers are: a payload that is not
/// chunked at all is returned as it is, and a cut-off one keeps the chunks it has.
pub fn dechunk(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len());
    let mut rest = payload;
    let mut chunks = 0;
    while let Some(line_end) = memchr::memchr(b'\n', rest) {
        let line = &rest[..line_end];
        let size_text = line.split(|&b| b == b';').next().unwrap_or_default();
        let size_text = std::str::from_utf8(size_text).unwrap_or("").trim();
        let Ok(size) = usize::from_str_radix(size_text, 16) else { break };
        rest = &rest[line_end + 1..];
        if size == 0 {
            return out;
        }
        let take = size.min(rest.len());
        out.extend_from_slice(&rest[..take]);
        chunks += 1;
        rest = &rest[take..];
        rest = rest.strip_prefix(b"\r\n").or_else(|| rest.strip_prefix(b"\n")).unwrap_or(rest);
    }
    if chunks == 0 { payload.to_vec() } else { out }
}

/// Undoes one content encoding, producing at most `limit` bytes.
/// A payload that does not start like its claimed encoding is taken to be decoded
/// already (many crawlers store it so and keep the header).
pub fn decode_content(encoding: &str, payload: Vec<u8>, limit: usize) -> Result<Vec<u8>, PageError> {
    let encoding = encoding.trim().to_ascii_lowercase();
    let limit = limit as u64;
    let mut out = Vec::new();
    let result = match encoding.as_str() {
        "" | "identity" | "none" | "utf-8" | "utf8" | "text/html" => return Ok(payload),
        "gzip" | "x-gzip" => {
            if !payload.starts_with(&[0x1f, 0x8b]) {
                return Ok(payload);
            }
            flate2::read::MultiGzDecoder::new(&payload[..]).take(limit).read_to_end(&mut out)
        }
        "deflate" => {
            if looks_like_html(&payload) {
                return Ok(payload);
            }
            // Servers send both zlib-wrapped and raw deflate under this name.
            let zlib = flate2::read::ZlibDecoder::new(&payload[..]).take(limit).read_to_end(&mut out);
            if zlib.is_err() && out.is_empty() { flate2::read::DeflateDecoder::new(&payload[..]).take(limit).read_to_end(&mut out) } else { zlib }
        }
        "br" => {
            if looks_like_html(&payload) {
                return Ok(payload);
            }
            brotli_decompressor::Decompressor::new(&payload[..], 64 << 10).take(limit).read_to_end(&mut out)
        }
        "zstd" => {
            if !payload.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
                return Ok(payload);
            }
            zstd::stream::read::Decoder::new(&payload[..]).and_then(|d| d.take(limit).read_to_end(&mut out))
        }
        other => return Err(PageError::BadContentEncoding(format!("unknown content encoding {other:?}"))),
    };
    match result {
        Ok(_) => Ok(out),
        // A payload the crawler cut short still gives the text before the cut.
        Err(_) if !out.is_empty() => Ok(out),
        Err(e) => Err(PageError::BadContentEncoding(format!("{encoding}: {e}"))),
    }
}

fn looks_like_html(payload: &[u8]) -> bool {
    payload.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<')
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn reads_status_and_the_fields_that_matter() {
        let block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=gb2312\r\n\
            X-Crawler-Content-Encoding: gzip\r\nX-Crawler-Transfer-Encoding: chunked\r\n\r\n<html>";
        let head = parse_head(block).unwrap();
        assert_eq!(head.status, 200);
        assert_eq!(head.content_type.as_deref(), Some("text/html; charset=gb2312"));
        assert_eq!(head.content_encoding, None);
        assert_eq!(head.transfer_encoding, None);
        assert_eq!(head.crawler_content_encoding.as_deref(), Some("gzip"));
        assert_eq!(&block[head.head_len..], b"<html>");
    }

    #[test]
    fn accepts_bare_newlines_missing_reasons_and_http2() {
        let head = parse_head(b"HTTP/1.1 404\nContent-Type: text/html\n\nx").unwrap();
        assert_eq!(head.status, 404);
        let head = parse_head(b"HTTP/2 301\r\nlocation: /\r\n\r\n").unwrap();
        assert_eq!(head.status, 301);
    }

    #[test]
    fn rejects_what_is_not_http() {
        assert!(matches!(parse_head(b"<html>hello</html>"), Err(PageError::BadHttpHead(_))));
        assert!(matches!(parse_head(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"), Err(PageError::BadHttpHead(_))));
    }

    #[test]
    fn dechunks_and_tolerates_what_is_not_chunked() {
        assert_eq!(dechunk(b"5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n"), b"hello, world");
        assert_eq!(dechunk(b"<html>not chunked</html>"), b"<html>not chunked</html>");
        assert_eq!(dechunk(b"5\r\nhel"), b"hel");
    }

    #[test]
    fn undoes_gzip_deflate_and_brotli() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"<p>zipped</p>").unwrap();
        assert_eq!(decode_content("gzip", gz.finish().unwrap(), 1 << 20).unwrap(), b"<p>zipped</p>");
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(b"<p>deflated</p>").unwrap();
        assert_eq!(decode_content("Deflate", z.finish().unwrap(), 1 << 20).unwrap(), b"<p>deflated</p>");
        // The brotli encoding of "<p>br</p>" made by `brotli -c`.
        let br = vec![0x0b, 0x04, 0x80, 0x3c, 0x70, 0x3e, 0x62, 0x72, 0x3c, 0x2f, 0x70, 0x3e, 0x03];
        assert_eq!(decode_content("br", br, 1 << 20).unwrap(), b"<p>br</p>");
    }

    #[test]
    fn keeps_a_payload_that_was_already_decoded() {
        assert_eq!(decode_content("gzip", b"<html>plain".to_vec(), 100).unwrap(), b"<html>plain");
    }

    #[test]
    fn stops_a_decompression_bomb_at_the_limit() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&vec![b'a'; 10 << 20]).unwrap();
        let out = decode_content("gzip", gz.finish().unwrap(), 1 << 20).unwrap();
        assert_eq!(out.len(), 1 << 20);
    }

    #[test]
    fn unknown_encoding_is_an_error() {
        assert!(matches!(decode_content("compress", vec![1, 2, 3], 100), Err(PageError::BadContentEncoding(_))));
    }
}
