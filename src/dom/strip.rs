//! Empties `<script>` and `<style>` elements before html5ever sees the page.
//!
//! Their contents are about 40% of a modern page's bytes (42% of the WCXB-dev pages)
//! and never text, yet the tokenizer would walk every byte. The tags themselves stay,
//! so the tree html5ever builds has the same elements.

use std::borrow::Cow;

use memchr::{memchr, memmem};

/// Raw-text elements whose content the extractors never read; the renderer reads `style`.
pub const SCRIPTS_AND_STYLES: &[&[u8]] = &[b"script", b"style"];
pub const SCRIPTS: &[&[u8]] = &[b"script"];

pub fn strip_raw_text(html: &str) -> Cow<'_, str> {
    strip_elements(html, SCRIPTS_AND_STYLES)
}

/// Empties the content of the given raw-text elements (lowercase names).
pub fn strip_elements<'h>(html: &'h str, elements: &[&[u8]]) -> Cow<'h, str> {
    let bytes = html.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut pos = 0;
    while let Some(i) = memchr(b'<', &bytes[pos..]) {
        let lt = pos + i;
        let rest = &bytes[lt + 1..];
        if rest.starts_with(b"!--") {
            // A comment may mention <script>: skip it whole.
            match memmem::find(&bytes[lt + 4..], b"-->") {
                Some(j) => {
                    pos = lt + 4 + j + 3;
                    continue;
                }
                None => break,
            }
        }
        let Some(name) = elements.iter().find(|n| starts_with_ignore_case(rest, n) && ends_name(rest.get(n.len()))) else {
            pos = lt + 1;
            continue;
        };
        let Some(tag_end) = find_tag_end(bytes, lt + 1 + name.len()) else { break };
        let content = tag_end + 1;
        // An element without its end tag keeps its content: html5ever decides then.
        let Some(close) = find_end_tag(bytes, content, name) else { break };
        if close > content {
            let out = out.get_or_insert_with(|| String::with_capacity(html.len()));
            out.push_str(&html[copied..content]);
            copied = close;
        }
        pos = close + 2 + name.len();
    }
    match out {
        None => Cow::Borrowed(html),
        Some(mut out) => {
            out.push_str(&html[copied..]);
            Cow::Owned(out)
        }
    }
}

fn starts_with_ignore_case(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// A tag name ends at whitespace, `/` or `>`.
fn ends_name(next: Option<&u8>) -> bool {
    matches!(next, Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>'))
}

/// The `>` that closes a start tag, skipping quoted attribute values.
fn find_tag_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate().skip(from) {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => return Some(i),
            _ => {}
        }
    }
    None
}

/// The `<` of the first `</name` (any case) followed by the end of a tag name.
fn find_end_tag(bytes: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut pos = from;
    while let Some(i) = memmem::find(&bytes[pos..], b"</") {
        let at = pos + i;
        let rest = &bytes[at + 2..];
        if starts_with_ignore_case(rest, name) && (rest.len() == name.len() || ends_name(rest.get(name.len()))) {
            return Some(at);
        }
        pos = at + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empties_scripts_and_styles_and_keeps_their_tags() {
        let html = "<p>a</p><SCRIPT type=x>var s = '<p>no</p>';</script ><style>p{}</STYLE><p>b</p>";
        assert_eq!(strip_raw_text(html), "<p>a</p><SCRIPT type=x></script ><style></STYLE><p>b</p>");
    }

    #[test]
    fn leaves_comments_quoted_attributes_and_lookalikes_alone() {
        let html = "<!-- <script> --><p>keep</p><scripted>x</scripted><script data-x=\"a>b\">z</script>";
        assert_eq!(strip_raw_text(html), "<!-- <script> --><p>keep</p><scripted>x</scripted><script data-x=\"a>b\"></script>");
    }

    #[test]
    fn an_unterminated_script_is_left_to_the_parser() {
        let html = "<p>a</p><script>never closed <p>b</p>";
        assert!(matches!(strip_raw_text(html), Cow::Borrowed(_)));
    }

    #[test]
    fn non_ascii_text_survives() {
        let html = "<p>héllo</p><script>ünïcode</script><p>wörld</p>";
        assert_eq!(strip_raw_text(html), "<p>héllo</p><script></script><p>wörld</p>");
    }
}
