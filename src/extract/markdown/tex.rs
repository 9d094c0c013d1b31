//! TeX in the Markdown: a formula's source as `$…$` or `$$…$$`, and the TeX a page that
//! loads MathJax or KaTeX writes between delimiters in its text.

use super::writer::{Blocks, Kind};

/// A formula's TeX: `$$…$$` on lines of its own for display math, else `$…$` in the line.
pub(super) fn write_formula(tex: &str, display: bool, space: bool, out: &mut Blocks) {
    if display {
        out.flush();
        out.block(format!("$$\n{tex}\n$$"), Kind::Other);
    } else {
        out.raw(&format!("${tex}$"), space);
    }
}

/// A text of a page that loads MathJax or KaTeX, its TeX between delimiters written as math
/// (`$…$`, `$$…$$`) and the rest escaped as text.
pub(super) fn write_with_tex(text: &str, space: bool, dollar_inline: bool, out: &mut Blocks) {
    let mut from = 0;
    let mut space = space;
    for span in tex_spans(text, dollar_inline) {
        out.text(&text[from..span.start], space);
        let before_is_space = text[..span.start].ends_with(' ') || (span.start == 0 && space);
        let fence = if span.display { "$$" } else { "$" };
        out.raw(&format!("{fence}{}{fence}", span.tex), before_is_space);
        from = span.end;
        space = false;
    }
    out.text(&text[from..], space);
}

/// TeX between delimiters in a text: where the delimited span is, its TeX, whether display.
#[derive(Debug, PartialEq, Eq)]
struct TexSpan<'t> {
    start: usize,
    end: usize,
    tex: &'t str,
    display: bool,
}

/// The longest TeX span read from a text (a stray delimiter does not make the rest math).
const MAX_TEX_BYTES: usize = 4096;

/// The TeX spans of `text`, in the delimiters MathJax and KaTeX read by default (`\(…\)`,
/// `\[…\]`, `$$…$$`) and, with `dollar_inline` (the page's configuration asks for it),
/// `$…$` by Pandoc's rule, so that prices stay text: the opening `$` has no space after it,
/// the closing one none before it and no digit after it (`$5 and $10`, `$5-$10` are no
/// math). `\$` is a dollar sign.
fn tex_spans(text: &str, dollar_inline: bool) -> Vec<TexSpan<'_>> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let found = match (bytes[i], bytes.get(i + 1)) {
            (b'\\', Some(b'$')) => {
                i += 2;
                continue;
            }
            (b'\\', Some(b'(')) => closing(text, i + 2, "\\)").map(|end| (i + 2, end, end + 2, false)),
            (b'\\', Some(b'[')) => closing(text, i + 2, "\\]").map(|end| (i + 2, end, end + 2, true)),
            (b'$', Some(b'$')) => closing(text, i + 2, "$$").map(|end| (i + 2, end, end + 2, true)),
            (b'$', Some(&next)) if dollar_inline && !next.is_ascii_whitespace() => closing(text, i + 1, "$")
                .filter(|&end| !bytes[end - 1].is_ascii_whitespace() && !bytes.get(end + 1).is_some_and(u8::is_ascii_digit))
                .map(|end| (i + 1, end, end + 1, false)),
            _ => None,
        };
        match found {
            Some((tex_start, tex_end, end, display)) if !text[tex_start..tex_end].trim().is_empty() && !text[tex_start..tex_end].contains('$') => {
                spans.push(TexSpan { start: i, end, tex: text[tex_start..tex_end].trim(), display });
                i = end;
            }
            _ => i += 1,
        }
    }
    spans
}

/// Where the first `delimiter` at or after `from` (within [`MAX_TEX_BYTES`]) begins.
fn closing(text: &str, from: usize, delimiter: &str) -> Option<usize> {
    let window = &text.as_bytes()[from..text.len().min(from + MAX_TEX_BYTES)];
    memchr::memmem::find(window, delimiter.as_bytes()).map(|at| from + at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tex_spans_follow_the_delimiters_and_leave_prices_alone() {
        fn tex(text: &str) -> Vec<(&str, bool)> {
            tex_spans(text, true).into_iter().map(|s| (s.tex, s.display)).collect()
        }
        assert_eq!(tex("$a$, $$b$$, \\(c\\), \\[d\\]"), [("a", false), ("b", true), ("c", false), ("d", true)]);
        assert!(tex("from $5 to $10, or $5-$10").is_empty());
        assert!(tex("\\(unclosed and $ alone").is_empty());
        assert!(tex("\\$1\\$ and $ $").is_empty());
        assert_eq!(tex("x $é$ y"), [("é", false)]);
        // Without `$` configured as a delimiter, only the default ones are read.
        let defaults: Vec<_> = tex_spans("$a$ and \\(b\\)", false).into_iter().map(|s| s.tex).collect();
        assert_eq!(defaults, ["b"]);
    }
}
