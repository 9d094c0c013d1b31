//! Decoding a payload to UTF-8: byte order mark, then the HTTP charset, then
//! `<meta charset>`, then statistical detection (chardetng).
//!
//! The BOM goes first because browsers let it override the HTTP header (WHATWG
//! "decode"), and a page with a BOM is almost never mislabelled by it.

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};

/// Where the charset came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharsetSource {
    Bom,
    Http,
    Meta,
    Detected,
}

#[derive(Debug)]
pub struct Decoded {
    pub text: String,
    pub encoding: &'static Encoding,
    pub source: CharsetSource,
    /// U+FFFD characters produced by bytes invalid in the chosen encoding.
    pub replacements: usize,
}

/// How far into the page `<meta charset>` is looked for. The HTML standard says 1024
/// bytes; real pages often put scripts first, so more is read.
const META_SCAN_BYTES: usize = 4096;
/// How much of the page chardetng reads.
const DETECT_BYTES: usize = 64 << 10;

/// Decodes `payload`; a page already in valid UTF-8 becomes its text without a copy.
pub fn decode(mut payload: Vec<u8>, http_content_type: Option<&str>, url: Option<&str>) -> Decoded {
    if let Some((encoding, bom_len)) = Encoding::for_bom(&payload) {
        payload.drain(..bom_len);
        return valid_utf8(payload, encoding, CharsetSource::Bom).unwrap_or_else(|bytes| decode_lossy(&bytes, encoding, CharsetSource::Bom));
    }
    let declared = http_content_type
        .and_then(charset_param)
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .map(|e| (e, CharsetSource::Http))
        .or_else(|| meta_charset(&payload[..payload.len().min(META_SCAN_BYTES)]).map(|e| (e, CharsetSource::Meta)));

    if let Some((encoding, source)) = declared {
        let payload = match valid_utf8(payload, encoding, source) {
            Ok(decoded) => return decoded,
            Err(bytes) => bytes,
        };
        let decoded = decode_lossy(&payload, encoding, source);
        if decoded.replacements == 0 {
            return decoded;
        }
        // Declared wrongly? Trust detection only if it decodes cleanly.
        let guess = detect(&payload, url);
        if guess != encoding {
            let detected = decode_lossy(&payload, guess, CharsetSource::Detected);
            if detected.replacements == 0 {
                return detected;
            }
        }
        return decoded;
    }
    valid_utf8(payload, UTF_8, CharsetSource::Detected).unwrap_or_else(|bytes| decode_lossy(&bytes, detect(&bytes, url), CharsetSource::Detected))
}

/// The bytes as they are, where `encoding` is UTF-8 and they are valid in it; else the bytes
/// back, for [`decode_lossy`].
fn valid_utf8(bytes: Vec<u8>, encoding: &'static Encoding, source: CharsetSource) -> Result<Decoded, Vec<u8>> {
    if encoding != UTF_8 {
        return Err(bytes);
    }
    String::from_utf8(bytes).map(|text| Decoded { text, encoding, source, replacements: 0 }).map_err(|invalid| invalid.into_bytes())
}

/// The text of `bytes` in `encoding`, with U+FFFD for each malformed sequence.
fn decode_lossy(bytes: &[u8], encoding: &'static Encoding, source: CharsetSource) -> Decoded {
    let (text, had_errors) = encoding.decode_without_bom_handling(bytes);
    let replacements = if had_errors { text.matches('\u{FFFD}').count() } else { 0 };
    Decoded { text: text.into_owned(), encoding, source, replacements }
}

fn detect(payload: &[u8], url: Option<&str>) -> &'static Encoding {
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(&payload[..payload.len().min(DETECT_BYTES)], true);
    let tld = url.and_then(top_level_domain);
    let guess = detector.guess(tld.as_deref().map(str::as_bytes), chardetng::Utf8Detection::Allow);
    if guess == encoding_rs::REPLACEMENT { WINDOWS_1252 } else { guess }
}

fn top_level_domain(url: &str) -> Option<String> {
    let host = url.split("://").nth(1)?.split(['/', ':', '?', '#']).next()?;
    let tld = host.rsplit('.').next()?;
    (!tld.is_empty() && tld.bytes().all(|b| b.is_ascii_alphabetic())).then(|| tld.to_ascii_lowercase())
}

/// The `charset=` parameter of a Content-Type value.
pub fn charset_param(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim().eq_ignore_ascii_case("charset").then(|| value.trim().trim_matches(['"', '\'']).trim())
    })
}

/// A simplified form of the HTML standard's prescan: `<meta charset=...>` or
/// `<meta http-equiv="content-type" content="...; charset=...">`.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let mut at = 0;
    while let Some(i) = memchr::memchr(b'<', &head[at..]) {
        let name_at = at + i + 1;
        if !head.get(name_at..name_at + 4).is_some_and(|n| n.eq_ignore_ascii_case(b"meta")) {
            at = name_at;
            continue;
        }
        let start = name_at + 4;
        let end = head[start..].iter().position(|&b| b == b'>').map_or(head.len(), |p| start + p);
        let tag = String::from_utf8_lossy(&head[start..end]).to_ascii_lowercase();
        if let Some(pos) = tag.find("charset") {
            let value = tag[pos + 7..].trim_start();
            if let Some(value) = value.strip_prefix('=') {
                let value = value.trim_start().trim_start_matches(['"', '\'']);
                let label: String = value.chars().take_while(|c| !matches!(c, '"' | '\'' | ';' | ' ' | '/' | '>' | '\t' | '\n' | '\r')).collect();
                if let Some(encoding) = Encoding::for_label(label.as_bytes()) {
                    // A page that reached us as bytes cannot really be UTF-16 if its meta
                    // tag was readable as ASCII (HTML standard).
                    return Some(if encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE { UTF_8 } else { encoding });
                }
            }
        }
        at = end.max(start);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_charset_wins_over_meta() {
        let page = "<meta charset=utf-8><p>caf\u{e9}</p>";
        let (bytes, _, _) = WINDOWS_1252.encode(page);
        let d = decode(bytes.into_owned(), Some("text/html; charset=ISO-8859-1"), None);
        assert_eq!(d.encoding, WINDOWS_1252);
        assert_eq!(d.source, CharsetSource::Http);
        assert!(d.text.contains("café"));
    }

    #[test]
    fn bom_wins_over_http() {
        let mut bytes = vec![0xef, 0xbb, 0xbf];
        bytes.extend_from_slice("<p>naïve</p>".as_bytes());
        let d = decode(bytes, Some("text/html; charset=windows-1252"), None);
        assert_eq!((d.encoding, d.source), (UTF_8, CharsetSource::Bom));
        assert_eq!(d.text, "<p>naïve</p>");
    }

    #[test]
    fn meta_charset_when_http_is_silent() {
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\"><p>日本語</p>");
        let d = decode(bytes.into_owned(), Some("text/html"), None);
        assert_eq!((d.encoding, d.source), (encoding_rs::SHIFT_JIS, CharsetSource::Meta));
        assert!(d.text.contains("日本語"));
    }

    #[test]
    fn detects_an_undeclared_charset() {
        let text = "<p>Съешь же ещё этих мягких французских булок, да выпей чаю. Широкая электрификация южных губерний даст мощный толчок подъёму сельского хозяйства.</p>";
        let (bytes, _, _) = encoding_rs::WINDOWS_1251.encode(text);
        let d = decode(bytes.into_owned(), None, Some("http://example.ru/"));
        assert_eq!((d.encoding, d.source), (encoding_rs::WINDOWS_1251, CharsetSource::Detected));
        assert_eq!(d.text, text);
    }

    #[test]
    fn a_wrong_declaration_is_overridden_only_by_a_clean_decode() {
        let text = "<p>Grüße aus Köln, schöne Straße</p>";
        let (latin, _, _) = WINDOWS_1252.encode(text);
        let d = decode(latin.into_owned(), Some("text/html; charset=utf-8"), Some("http://example.de/"));
        assert_eq!(d.replacements, 0);
        assert_eq!(d.text, text);
    }

    #[test]
    fn a_page_in_valid_utf8_becomes_its_text_without_a_copy() {
        for declared in [Some("text/html; charset=utf-8"), None] {
            let bytes = "<p>naïve café</p>".as_bytes().to_vec();
            let at = bytes.as_ptr();
            let d = decode(bytes, declared, None);
            assert_eq!((d.text.as_str(), d.replacements), ("<p>naïve café</p>", 0));
            assert_eq!(d.text.as_ptr(), at, "the payload's own buffer ({declared:?})");
        }
    }

    #[test]
    fn charset_parameter_parsing() {
        assert_eq!(charset_param("text/html; Charset=\"UTF-8\""), Some("UTF-8"));
        assert_eq!(charset_param("text/html"), None);
    }
}
