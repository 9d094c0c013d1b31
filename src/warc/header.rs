//! The WARC record header: version line and named fields (WARC/0.18, 1.0 and 1.1).

use super::WarcError;

/// The record types goce-warc tells apart; everything else is `Other`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordType {
    Response,
    Request,
    Metadata,
    Resource,
    Revisit,
    Warcinfo,
    Other(String),
}

impl RecordType {
    fn parse(value: &str) -> Self {
        match value.to_ascii_lowercase().as_str() {
            "response" => Self::Response,
            "request" => Self::Request,
            "metadata" => Self::Metadata,
            "resource" => Self::Resource,
            "revisit" => Self::Revisit,
            "warcinfo" => Self::Warcinfo,
            _ => Self::Other(value.to_string()),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Self::Response => "response",
            Self::Request => "request",
            Self::Metadata => "metadata",
            Self::Resource => "resource",
            Self::Revisit => "revisit",
            Self::Warcinfo => "warcinfo",
            Self::Other(name) => name,
        }
    }
}

/// The header fields goce-warc uses. Values are kept as written (trimmed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarcHeader {
    /// "1.0", "1.1", "0.18", ...
    pub version: String,
    pub record_type: RecordType,
    pub record_id: Option<String>,
    pub date: Option<String>,
    pub target_uri: Option<String>,
    pub content_length: u64,
    pub content_type: Option<String>,
    /// Common Crawl's payload type as detected by the crawler (Tika).
    pub identified_payload_type: Option<String>,
    /// Why the crawler cut the payload short ("length", "time", ...), if it did.
    pub truncated: Option<String>,
}

/// Parses a header block: the version line, fields, without the blank line that ends it.
pub(crate) fn parse_header(block: &[u8]) -> Result<WarcHeader, WarcError> {
    let text = std::str::from_utf8(block).map_err(|_| WarcError::BadHeader("header is not UTF-8".into()))?;
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let first = lines.next().unwrap_or_default().trim();
    let version = first
        .strip_prefix("WARC/")
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        .ok_or_else(|| WarcError::BadHeader(format!("bad version line {:?}", clip(first))))?;

    let mut header = WarcHeader {
        version: version.to_string(),
        record_type: RecordType::Other(String::new()),
        record_id: None,
        date: None,
        target_uri: None,
        content_length: 0,
        content_type: None,
        identified_payload_type: None,
        truncated: None,
    };
    let mut content_length = None;
    let mut last: Option<&mut Option<String>> = None;
    for line in lines {
        if line.is_empty() {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            // Continuation of the previous field's value.
            if let Some(Some(value)) = last.as_deref_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
            continue;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(WarcError::BadHeader(format!("field without a colon {:?}", clip(line))));
        };
        let value = value.trim();
        let name = name.trim();
        last = None;
        let slot = if name.eq_ignore_ascii_case("WARC-Type") {
            header.record_type = RecordType::parse(value);
            continue;
        } else if name.eq_ignore_ascii_case("Content-Length") {
            content_length = Some(value.parse::<u64>().map_err(|_| WarcError::BadHeader(format!("bad Content-Length {:?}", clip(value))))?);
            continue;
        } else if name.eq_ignore_ascii_case("WARC-Record-ID") {
            &mut header.record_id
        } else if name.eq_ignore_ascii_case("WARC-Date") {
            &mut header.date
        } else if name.eq_ignore_ascii_case("WARC-Target-URI") {
            &mut header.target_uri
        } else if name.eq_ignore_ascii_case("Content-Type") {
            &mut header.content_type
        } else if name.eq_ignore_ascii_case("WARC-Identified-Payload-Type") {
            &mut header.identified_payload_type
        } else if name.eq_ignore_ascii_case("WARC-Truncated") {
            &mut header.truncated
        } else {
            continue;
        };
        if !value.is_empty() {
            *slot = Some(value.to_string());
        }
        last = Some(slot);
    }
    header.content_length = content_length.ok_or_else(|| WarcError::BadHeader("no Content-Length".into()))?;
    // WARC/0.18 wrote target URIs in angle brackets in places; 1.1 forbids them.
    if let Some(uri) = header.target_uri.as_mut()
        && uri.starts_with('<')
        && uri.ends_with('>')
        && uri.len() >= 2
    {
        *uri = uri[1..uri.len() - 1].to_string();
    }
    Ok(header)
}

fn clip(s: &str) -> &str {
    match s.char_indices().nth(60) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_common_crawl_header() {
        let block = b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Date: 2024-05-18T01:02:03Z\r\n\
            WARC-Record-ID: <urn:uuid:1>\r\nContent-Length: 42\r\n\
            Content-Type: application/http; msgtype=response\r\n\
            WARC-Target-URI: https://example.com/\r\nWARC-Identified-Payload-Type: text/html\r\n\
            WARC-Truncated: length";
        let h = parse_header(block).unwrap();
        assert_eq!(h.version, "1.0");
        assert_eq!(h.record_type, RecordType::Response);
        assert_eq!(h.content_length, 42);
        assert_eq!(h.target_uri.as_deref(), Some("https://example.com/"));
        assert_eq!(h.identified_payload_type.as_deref(), Some("text/html"));
        assert_eq!(h.truncated.as_deref(), Some("length"));
    }

    #[test]
    fn reads_warc_0_18_with_bare_newlines_and_continuations() {
        let block = b"WARC/0.18\nwarc-type: Response\nWARC-Target-URI: <http://a.jp/>\n\
            WARC-Identified-Payload-Type: \ncontent-length: 7\nContent-Type: text/\n html";
        let h = parse_header(block).unwrap();
        assert_eq!(h.version, "0.18");
        assert_eq!(h.record_type, RecordType::Response);
        assert_eq!(h.target_uri.as_deref(), Some("http://a.jp/"));
        assert_eq!(h.identified_payload_type, None);
        assert_eq!(h.content_type.as_deref(), Some("text/ html"));
    }

    #[test]
    fn rejects_a_header_without_length_or_version() {
        assert!(parse_header(b"WARC/1.0\r\nWARC-Type: response").is_err());
        assert!(parse_header(b"HTTP/1.1 200 OK\r\nContent-Length: 1").is_err());
        assert!(parse_header(b"WARC/1.0\r\nContent-Length: -3").is_err());
    }
}
