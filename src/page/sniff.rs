//! Is this payload HTML? Media types, and content sniffing for when they are missing.

pub(crate) fn is_html_media_type(media_type: &str) -> bool {
    matches!(media_type, "text/html" | "application/xhtml+xml" | "application/html" | "text/xhtml")
}

/// Media types that say nothing about the content, so sniffing decides.
pub(crate) fn is_generic_media_type(media_type: &str) -> bool {
    matches!(media_type, "" | "application/octet-stream" | "unknown/unknown" | "application/unknown" | "*/*" | "binary/octet-stream")
}

/// The tags the WHATWG MIME sniffing standard takes as a sign of HTML when they open a
/// payload (after whitespace), followed by a space or '>'.
const HTML_OPENINGS: &[&[u8]] = &[
    b"<!doctype html", b"<html", b"<head", b"<script", b"<iframe", b"<h1", b"<div", b"<font", b"<table", b"<a", b"<style", b"<title", b"<b", b"<body", b"<br",
    b"<p", b"<!--",
];

pub(crate) fn looks_like_html(payload: &[u8]) -> bool {
    let payload = payload.strip_prefix(&[0xef, 0xbb, 0xbf]).unwrap_or(payload);
    let start = payload.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(payload.len());
    let rest = &payload[start..];
    HTML_OPENINGS.iter().any(|opening| {
        rest.len() > opening.len()
            && rest[..opening.len()].eq_ignore_ascii_case(opening)
            && (opening == b"<!--" || matches!(rest[opening.len()], b' ' | b'>' | b'\t' | b'\n' | b'\r'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_html_openings_only() {
        assert!(looks_like_html(b"  <!DOCTYPE html><html>"));
        assert!(looks_like_html(b"\xef\xbb\xbf<HTML lang=en>"));
        assert!(looks_like_html(b"<p>hi"));
        assert!(!looks_like_html(b"<pre>x"));
        assert!(!looks_like_html(b"%PDF-1.4"));
        assert!(!looks_like_html(b"{\"json\": true}"));
        assert!(!looks_like_html(b"<?xml version=\"1.0\"?><rss>"));
    }
}
