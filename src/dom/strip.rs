//! A byte-level pass before html5ever: empties `<script>` and `<style>` elements and
//! comments, drops attributes that no later stage reads, and (for extraction) shortens the
//! blank runs between tags.
//!
//! Script and style contents are about 40% of a modern page's bytes (42% of the WCXB-dev
//! pages) and never text; of what is left, three quarters are start tags, mostly
//! attributes (there: `class` 20%, `data-*` 12%, SVG path data 9%, `href` 8%, `src` and
//! `srcset` 6%). The tokenizer walks every byte and the tree keeps a copy of every value, so
//! what no stage reads is cut here. The pass follows the HTML tokenizer's rules for tags,
//! attributes, comments and raw-text elements, and leaves what it does not understand to
//! the parser; elements and texts stay (blank runs shortened, not removed), so html5ever
//! builds the same tree (`tests/prepass.rs` checks every page in ../shared/data with `make eval`).

use std::borrow::Cow;

use memchr::{memchr, memmem};

use super::streamed::BoundaryMarker;
use crate::page::language::ascii_word_count;

/// What the pass removes: the content of some raw-text elements and some attributes.
#[derive(Debug, Clone, Copy)]
pub struct Prepass {
    /// Raw-text elements whose content is emptied (lowercase names).
    pub empty: &'static [&'static [u8]],
    /// Attributes dropped, by lowercase name.
    pub drop_attrs: &'static [&'static [u8]],
    /// Attributes dropped, by lowercase name prefix.
    pub drop_attr_prefixes: &'static [&'static [u8]],
    /// Attributes dropped, by lowercase name prefix, unless an attribute selector on the
    /// page names them (`[data-state` keeps every `data-state`): a selector that names no
    /// attribute of the page cannot match it.
    pub drop_unselected_prefixes: &'static [&'static [u8]],
    /// When not empty, the only attributes kept (lowercase names): every other one goes.
    pub keep_only: &'static [&'static [u8]],
    /// Whether comments are emptied (React's boundary markers stay): no stage reads them,
    /// and the tokenizer walks their bytes one by one (2% of an extraction parse's input).
    pub empty_comments: bool,
    /// Whether a run of whitespace between two tags is cut to its first character: the
    /// extractors read any run as one space, and such runs (indentation) are a tenth of
    /// what the tokenizer and tree builder see after the other cuts.
    pub collapse_blank_runs: bool,
    /// Raw-text elements whose content, where they have any, becomes as many one-letter words
    /// as it had (one space if none): each keeps its text child and its word count, as under a
    /// pass that leaves it whole, so the classifier's features (cluster keys, words per
    /// paragraph) stay the same.
    pub blank: &'static [&'static [u8]],
}

/// For the extractors: they read tags, text, and of the attributes only `class`, `id`,
/// `style`, `hidden`, `role`, `aria-hidden`, the description meta tags' `name`,
/// `property` and `content`, and the declared language (`lang`, `xml:lang`, `http-equiv`). The others kept are those html5ever's tree builder reads
/// (`type` of `<input>`, `color`/`face`/`size` of `<font>` in SVG, `shadowrootmode`,
/// the meta charset), so the tree stays the same. Keeping only these instead of dropping
/// a list makes the parse about 10% faster (`make bench`, criterion `extract`).
pub const FOR_EXTRACTION: Prepass = Prepass {
    empty: &[b"script", b"style"],
    empty_comments: true,
    collapse_blank_runs: true,
    blank: &[],
    drop_attrs: &[],
    drop_attr_prefixes: &[],
    drop_unselected_prefixes: &[],
    keep_only: &[
        b"class", b"id", b"style", b"hidden", b"role", b"aria-hidden", b"name", b"property", b"content", b"type", b"color", b"face", b"size",
        b"shadowrootmode", b"charset", b"http-equiv", b"encoding", b"lang", b"xml:lang",
    ],
};

/// For Web2Text, whose features count the markup of the attributes this keeps (its model
/// was trained so): scripts, styles, data attributes, addresses and SVG path data go.
pub const FOR_WEB2TEXT: Prepass = Prepass {
    empty: &[b"script", b"style"],
    empty_comments: true,
    collapse_blank_runs: false,
    blank: &[],
    drop_attrs: &[b"srcset", b"sizes", b"d", b"points", b"href", b"src"],
    drop_attr_prefixes: &[b"data-"],
    drop_unselected_prefixes: &[],
    keep_only: &[],
};

/// For Web2Text's blocks written as Markdown with their links: [`FOR_WEB2TEXT`] keeping
/// `href` and `src` (Web2Text's features leave out what `FOR_WEB2TEXT` drops, so they are
/// the same on either parse).
pub const FOR_MARKDOWN_LINKS: Prepass = Prepass { drop_attrs: &[b"srcset", b"sizes", b"d", b"points"], ..FOR_WEB2TEXT };

/// For a page that is classified and extracted from one parse: of the attributes, the
/// classifier's page features and words read `class`, `id`, `href`, `src`, `itemtype` and the
/// meta tags' `property` and `content`, the extractors what [`FOR_MARKDOWN_LINKS`] keeps
/// (Web2Text's features skip `href` and `src`). Against [`FOR_RENDERING`], style sheets,
/// data attributes and SVG path data go (on trafi-dev, 29% of the bytes html5ever reads);
/// only the pages the renderer draws are parsed again with their styles. A style sheet
/// becomes as many one-letter words as it had, so the features are those of the renderer's
/// parse, which the classifier trained on.
pub const FOR_CLASSIFIER: Prepass = Prepass { empty: &[b"script"], blank: &[b"style"], ..FOR_MARKDOWN_LINKS };

/// For the renderer: it reads style sheets, inline SVG and, through CSS attribute
/// selectors, any attribute. Scripts and responsive image lists go (it loads no image), and
/// the data attributes no selector names: they are a tenth of a page's markup, and cutting
/// them makes this parse about 15% faster (`make bench`, criterion `extract`).
pub const FOR_RENDERING: Prepass = Prepass {
    empty: &[b"script"],
    empty_comments: true,
    collapse_blank_runs: false,
    blank: &[],
    drop_attrs: &[b"srcset", b"sizes"],
    drop_attr_prefixes: &[],
    drop_unselected_prefixes: &[b"data-"],
    keep_only: &[],
};

/// html5ever compares the attributes of these (the "Noah's Ark" clause of the active
/// formatting elements), so dropping one could change the tree: they keep all of theirs.
const FORMATTING: &[&[u8]] = &[b"a", b"b", b"big", b"code", b"em", b"font", b"i", b"nobr", b"s", b"small", b"strike", b"strong", b"tt", b"u"];

/// Elements whose content the tokenizer reads as text up to their end tag: a `<` inside
/// them opens no tag.
const RAW_TEXT: &[&[u8]] = &[b"script", b"style", b"textarea", b"title", b"xmp", b"iframe", b"noembed", b"noframes"];
/// Where foreign content (SVG, MathML) starts: the raw-text names are no such thing there.
const FOREIGN_ROOTS: &[&[u8]] = &[b"svg", b"math"];
/// HTML start tags that end foreign content (the tree builder pops back to HTML).
const BREAKS_OUT_OF_FOREIGN: &[&[u8]] = &[
    b"b", b"big", b"blockquote", b"body", b"br", b"center", b"code", b"dd", b"div", b"dl", b"dt", b"em", b"embed", b"h1", b"h2", b"h3", b"h4", b"h5", b"h6",
    b"head", b"hr", b"i", b"img", b"li", b"listing", b"menu", b"meta", b"nobr", b"ol", b"p", b"pre", b"ruby", b"s", b"small", b"span", b"strong", b"strike",
    b"sub", b"sup", b"table", b"tt", b"u", b"ul", b"var",
];
/// Foreign elements whose content the tree builder reads as HTML.
const INTEGRATION_POINTS: &[&[u8]] = &[b"foreignobject", b"desc", b"title", b"annotation-xml", b"mi", b"mo", b"mn", b"ms", b"mtext"];

/// Where the scan is, as far as foreign content goes.
#[derive(Default)]
struct Foreign<'h> {
    /// The elements open since an <svg> or <math> began it, that one first: inside them
    /// the tokenizer reads `<style>` or `<title>` content as markup, not as raw text.
    open: Vec<&'h [u8]>,
    /// Where in `open` the HTML integration point the scan is inside is.
    integration_at: Option<usize>,
    /// Whether, since the foreign content began, an end tag came that may have closed it
    /// (`</div>` closes an `<svg>` inside that div), or an HTML element opened inside an
    /// integration point: then a raw-text element may be raw text again.
    unsure: bool,
}

impl<'h> Foreign<'h> {
    fn leave(&mut self) {
        self.open.clear();
        self.integration_at = None;
        self.unsure = false;
    }

    /// After `</`: `name` is what follows.
    fn end_tag(&mut self, name: &[u8]) {
        if self.open.is_empty() {
            return;
        }
        let is = |tag: &[u8]| starts_with_ignore_case(name, tag) && name.get(tag.len()).is_some_and(|&b| is_space(b) || b == b'>' || b == b'/');
        if is(b"p") || is(b"br") {
            // The tree builder pops back to HTML for these.
            self.leave();
            return;
        }
        // It closes the innermost open element of its name when only foreign ones lie
        // above it; else the HTML rules take it, and it may close the foreign content
        // (`<div><svg></div>`).
        match self.open.iter().rposition(|open| is(open)) {
            Some(at) => {
                self.unsure |= at + 1 != self.open.len();
                self.open.truncate(at);
                if self.integration_at.is_some_and(|i| i >= at) {
                    self.integration_at = None;
                }
            }
            None => self.unsure = true,
        }
        if self.open.is_empty() {
            self.leave();
        }
    }
}

/// The raw-text elements a self-closing slash does not close, as in browsers.
const SCRIPTS_AND_STYLES: &[&[u8]] = &[b"script", b"style"];

impl Prepass {
    /// Whether the pass drops attribute `name` (from elements other than formatting ones)
    /// on some pages: those of `drop_unselected_prefixes` stay where a selector names them.
    pub fn drops(&self, name: &[u8]) -> bool {
        if !self.keep_only.is_empty() {
            return !self.keep_only.iter().any(|a| name.eq_ignore_ascii_case(a));
        }
        self.drop_attrs.iter().any(|a| name.eq_ignore_ascii_case(a))
            || self.drop_attr_prefixes.iter().chain(self.drop_unselected_prefixes).any(|p| starts_with_ignore_case(name, p))
    }

    /// The same pass emptying only its raw-text elements: every attribute, comment and
    /// blank kept (the baseline the other cuts are checked and timed against).
    pub const fn emptying_only(self) -> Prepass {
        Prepass {
            drop_attrs: &[],
            drop_attr_prefixes: &[],
            drop_unselected_prefixes: &[],
            keep_only: &[],
            empty_comments: false,
            collapse_blank_runs: false,
            ..self
        }
    }

    /// Whether attribute `name` of a `tag` element is there after the pass on every page.
    pub fn keeps(&self, tag: &[u8], name: &[u8]) -> bool {
        is_formatting(tag) || !self.drops(name)
    }

    /// The attribute names with a `drop_unselected_prefixes` prefix that an attribute
    /// selector anywhere in `html` names (`[data-x`, `[ data-x=`, `[*|data-x`): scripts and
    /// text included, so it errs on the side of keeping.
    fn selected_names<'h>(&self, html: &'h [u8]) -> Vec<&'h [u8]> {
        if self.drop_unselected_prefixes.is_empty() {
            return Vec::new();
        }
        let mut names = Vec::new();
        for open in memchr::memchr_iter(b'[', html) {
            let mut p = open + 1;
            while html.get(p).is_some_and(|&b| is_space(b) || b == b'*' || b == b'|') {
                p += 1;
            }
            let rest = &html[p.min(html.len())..];
            if self.drop_unselected_prefixes.iter().any(|prefix| starts_with_ignore_case(rest, prefix)) {
                let len = rest.iter().position(|&b| !(b.is_ascii_alphanumeric() || b == b'-' || b == b'_')).unwrap_or(rest.len());
                names.push(&rest[..len]);
            }
        }
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The page as the parser should see it (borrowed when nothing was cut).
    pub fn apply<'h>(&self, html: &'h str) -> Cow<'h, str> {
        self.apply_noting(html).0
    }

    /// [`Prepass::apply`], and what the pass saw of the scripts it emptied.
    pub fn apply_noting<'h>(&self, html: &'h str) -> (Cow<'h, str>, ScriptNotes) {
        let bytes = html.as_bytes();
        let selected = self.selected_names(bytes);
        let mut out = Cutter { html, out: None, copied: 0 };
        let mut pos = 0;
        let mut foreign = Foreign::default();
        let mut notes = ScriptNotes::default();
        while let Some(i) = memchr(b'<', &bytes[pos..]) {
            let lt = pos + i;
            let next = match bytes.get(lt + 1) {
                Some(b'!') if bytes[lt + 2..].starts_with(b"--") => self.comment(bytes, lt, &mut out),
                Some(b'/') => {
                    foreign.end_tag(&bytes[lt + 2..]);
                    // An end tag may carry (ignored) attributes, and a quoted `>` does not end
                    // it: such rare tags are left to the parser, with the rest of the page.
                    memchr(b'>', &bytes[lt + 1..]).map(|j| lt + 1 + j + 1).filter(|&end| memchr::memchr2(b'"', b'\'', &bytes[lt..end]).is_none())
                }
                Some(b'!' | b'?') => memchr(b'>', &bytes[lt + 1..]).map(|j| lt + 1 + j + 1),
                Some(c) if c.is_ascii_alphabetic() => self.start_tag(bytes, lt, &selected, &mut foreign, &mut notes, &mut out),
                _ => Some(lt + 1),
            };
            match next {
                Some(next) => {
                    pos = next;
                    if self.collapse_blank_runs {
                        let run = bytes[next..].iter().take_while(|&&b| is_space(b)).count();
                        if run > 1 && bytes.get(next + run) == Some(&b'<') && !keeps_leading_newline(&bytes[lt + 1..]) {
                            out.cut(next + 1, next + run);
                        }
                        pos = next + run;
                    }
                }
                // The page ends inside a tag or a comment: the parser decides.
                None => break,
            }
        }
        (out.finish(), notes)
    }

    /// Skips (and empties, if asked) the comment at `lt`; returns where scanning goes on,
    /// or `None` when the page ends inside it.
    fn comment(&self, bytes: &[u8], lt: usize, out: &mut Cutter) -> Option<usize> {
        let content = lt + 4;
        // `<!-->` and `<!--->` are whole (empty) comments to the tokenizer.
        if bytes.get(content) == Some(&b'>') {
            return Some(content + 1);
        }
        if bytes[content..].starts_with(b"->") {
            return Some(content + 2);
        }
        // The first `--` followed by `>` or `!>` ends it.
        let mut from = content;
        let (dashes, next) = loop {
            let at = from + memmem::find(&bytes[from..], b"--")?;
            match bytes.get(at + 2) {
                Some(b'>') => break (at, at + 3),
                Some(b'!') if bytes.get(at + 3) == Some(&b'>') => break (at, at + 4),
                Some(_) => from = at + 1,
                None => return None,
            }
        };
        if self.empty_comments && BoundaryMarker::of_comment(&bytes[content..dashes]).is_none() {
            out.cut(content, dashes);
        }
        Some(next)
    }

    /// Rewrites the start tag at `lt` (and the content of a raw-text element); returns
    /// where scanning goes on, or `None` when the page ends first.
    fn start_tag<'h>(
        &self,
        bytes: &'h [u8],
        lt: usize,
        selected: &[&[u8]],
        foreign: &mut Foreign<'h>,
        notes: &mut ScriptNotes,
        out: &mut Cutter,
    ) -> Option<usize> {
        let name_end = lt + 1 + bytes[lt + 1..].iter().position(|&b| is_space(b) || b == b'/' || b == b'>')?;
        let name = &bytes[lt + 1..name_end];
        // In a frameset the tree builder ignores `<style>` and its kin, so the tokenizer
        // reads their content as markup: the pass leaves such a page to the parser from here.
        if name.eq_ignore_ascii_case(b"frameset") {
            return None;
        }
        let keeps_all = is_formatting(name);
        let mut p = name_end;
        let mut self_closing = false;
        // A `<script type="math/tex">` (MathJax 2's, kramdown's) holds a formula's TeX source,
        // which the Markdown writes as math: its content stays.
        let mut is_tex_source = false;
        let mut is_mathjax_config = false;
        let tag_end = loop {
            let gap_start = p;
            let mut gap_has_slash = false;
            while is_space(*bytes.get(p)?) || bytes[p] == b'/' {
                self_closing = bytes[p] == b'/';
                gap_has_slash |= self_closing;
                p += 1;
            }
            if bytes[p] == b'>' {
                break p;
            }
            self_closing = false;
            // An attribute name: its first character may be anything, even `=`.
            let name_start = p;
            p += 1;
            while !matches!(*bytes.get(p)?, b'/' | b'>' | b'=') && !is_space(bytes[p]) {
                p += 1;
            }
            let attr_name = &bytes[name_start..p];
            let mut q = p;
            while is_space(*bytes.get(q)?) {
                q += 1;
            }
            if bytes[q] == b'=' {
                q += 1;
                while is_space(*bytes.get(q)?) {
                    q += 1;
                }
                p = match bytes[q] {
                    quote @ (b'"' | b'\'') => q + 1 + memchr(quote, &bytes[q + 1..])? + 1,
                    b'>' => q,
                    _ => q + bytes[q..].iter().position(|&b| is_space(b) || b == b'>')?,
                };
                if name.eq_ignore_ascii_case(b"script") {
                    let value = &bytes[q..p];
                    let value = value.strip_prefix(b"\"").or_else(|| value.strip_prefix(b"'")).unwrap_or(value);
                    if attr_name.eq_ignore_ascii_case(b"type") {
                        is_tex_source = is_tex_script_type(value);
                        is_mathjax_config = starts_with_ignore_case(value, b"text/x-mathjax-config");
                        notes.loads_tex_typesetter |= is_mathjax_config;
                    } else if attr_name.eq_ignore_ascii_case(b"src") {
                        notes.loads_tex_typesetter |= TEX_TYPESETTERS.iter().any(|t| contains_ignore_case(value, t));
                    }
                }
            }
            // An `=` after the value starts the next attribute's name (`href="q"=`,
            // `type href=x =x`); after a cut it could read as the previous attribute's
            // value: such an attribute stays.
            let equals_follows = bytes[p..].iter().find(|&&b| !is_space(b)) == Some(&b'=');
            if !keeps_all && !equals_follows && self.drops(attr_name) && !selected.iter().any(|s| attr_name.eq_ignore_ascii_case(s)) {
                // The whitespace before goes too (the tokenizer walks it byte by byte), but
                // one space stays where it is all that parts the neighbours: `<p data-a="1"class=x>`,
                // or `<img src=a data-b/>`, where the slash would join the value `a`.
                let glued = bytes.get(p).is_some_and(|&b| !is_space(b) && b != b'>');
                let from = match (gap_has_slash, name_start - gap_start) {
                    (true, _) | (false, 0) => name_start,
                    (false, _) if glued => gap_start + 1,
                    (false, _) => gap_start,
                };
                // Not when it would leave a slash before the `>`: `<svg /href>` is not
                // self-closing, `<svg />` would be.
                if !(bytes.get(p) == Some(&b'>') && out.last_kept_before(from) == Some(b'/')) {
                    out.cut(from, p);
                }
            }
        };
        let content = tag_end + 1;
        if !foreign.open.is_empty() {
            let raw_text = RAW_TEXT.iter().chain([&b"plaintext".as_slice(), &b"font".as_slice()]).any(|r| name.eq_ignore_ascii_case(r));
            if foreign.integration_at.is_some() && !FOREIGN_ROOTS.iter().any(|r| name.eq_ignore_ascii_case(r)) {
                // Inside an HTML integration point (`<foreignObject>`, `<desc>`, `<title>`,
                // MathML's text elements) start tags are HTML's: raw-text elements are raw
                // text again, and which end tag closes what would take the tree builder.
                if raw_text {
                    return None;
                }
                foreign.unsure = true;
                return Some(content);
            }
            if BREAKS_OUT_OF_FOREIGN.iter().any(|r| name.eq_ignore_ascii_case(r)) {
                foreign.leave();
            } else if name.eq_ignore_ascii_case(b"font") || (foreign.unsure && raw_text) {
                // A `<font>` with `color`, `face` or `size` breaks out, and after an end tag
                // that may have closed the foreign content a raw-text element may be one:
                // the parser decides from here.
                return None;
            } else {
                if !self_closing {
                    if INTEGRATION_POINTS.iter().any(|r| name.eq_ignore_ascii_case(r)) {
                        foreign.integration_at = Some(foreign.open.len());
                    }
                    foreign.open.push(name);
                }
                return Some(content);
            }
        }
        if FOREIGN_ROOTS.iter().any(|r| name.eq_ignore_ascii_case(r)) {
            if !self_closing {
                foreign.open.push(name);
            }
            return Some(content);
        }
        let Some(raw) = RAW_TEXT.iter().find(|r| name.eq_ignore_ascii_case(r)) else {
            if name.eq_ignore_ascii_case(b"plaintext") {
                return None;
            }
            return Some(content);
        };
        if self_closing && !SCRIPTS_AND_STYLES.contains(raw) {
            // `<iframe src=… />`: the parser would read the rest of the page as the
            // iframe's text. Inside <noscript> (which we parse as markup) browsers never
            // see it, so pages carry it unnoticed (Google Tag Manager's snippet in React).
            out.close_tag(content, raw);
            return Some(content);
        }
        // An element without its end tag keeps its content: html5ever decides then.
        let close = find_end_tag(bytes, content, raw)?;
        if is_mathjax_config {
            notes.dollar_inline_math |= sets_dollar_inline_math(&bytes[content..close]);
        }
        notes.has_tex_scripts |= is_tex_source;
        if self.empty.contains(raw) && !is_tex_source {
            out.cut(content, close);
        } else if self.blank.contains(raw) && close > content {
            let sheet = &out.html[content..close];
            let words = ascii_word_count(sheet).unwrap_or_else(|| sheet.split_whitespace().count());
            out.cut(content, close);
            out.insert(close, &if words == 0 { " ".to_string() } else { "x ".repeat(words) });
        }
        Some(close + 2 + raw.len())
    }
}

/// Copies the page into a new string only once something is cut.
struct Cutter<'h> {
    html: &'h str,
    out: Option<String>,
    copied: usize,
}

impl<'h> Cutter<'h> {
    /// Leaves out `html[from..to]`; cuts come in document order, at ASCII bytes.
    fn cut(&mut self, from: usize, to: usize) {
        if to <= from {
            return;
        }
        let out = self.out.get_or_insert_with(|| String::with_capacity(self.html.len()));
        out.push_str(&self.html[self.copied..from]);
        self.copied = to;
    }

    /// The last byte kept before `at`, the cuts so far counted.
    fn last_kept_before(&self, at: usize) -> Option<u8> {
        if at > self.copied {
            return self.html.as_bytes().get(at - 1).copied();
        }
        match &self.out {
            Some(out) => out.as_bytes().last().copied(),
            None => at.checked_sub(1).and_then(|i| self.html.as_bytes().get(i).copied()),
        }
    }

    /// Adds `</name>` at `at`, after the cuts before it.
    fn close_tag(&mut self, at: usize, name: &[u8]) {
        let name: String = name.iter().map(|&b| char::from(b)).collect();
        self.insert(at, &format!("</{name}>"));
    }

    /// Adds `text` at `at`, after the cuts before it.
    fn insert(&mut self, at: usize, text: &str) {
        let out = self.out.get_or_insert_with(|| String::with_capacity(self.html.len()));
        out.push_str(&self.html[self.copied..at]);
        out.push_str(text);
        self.copied = at;
    }

    fn finish(self) -> Cow<'h, str> {
        match self.out {
            None => Cow::Borrowed(self.html),
            Some(mut out) => {
                out.push_str(&self.html[self.copied..]);
                Cow::Owned(out)
            }
        }
    }
}

/// Whether `tag` (what follows a `<`) starts a `<pre>` or `<listing>`, whose first newline the
/// parser drops: the run after it stays whole, so no text node disappears with it.
fn keeps_leading_newline(tag: &[u8]) -> bool {
    [b"pre".as_slice(), b"listing"]
        .iter()
        .any(|name| starts_with_ignore_case(tag, name) && tag.get(name.len()).is_none_or(|&b| is_space(b) || b == b'/' || b == b'>'))
}

/// What the pass saw of a page's scripts before emptying them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScriptNotes {
    /// The page loads a TeX typesetter (a script from MathJax or KaTeX, or MathJax's
    /// configuration): TeX between delimiters in its text is math a browser would typeset.
    pub loads_tex_typesetter: bool,
    /// MathJax's configuration makes `$…$` inline math (Stack Exchange's does; MathJax's
    /// and KaTeX's defaults do not, for the dollar signs of prices).
    pub dollar_inline_math: bool,
    /// The page holds a `<script type="math/tex">`, whose content the pass kept.
    pub has_tex_scripts: bool,
}

/// Whether a MathJax configuration lists `$` among its inline delimiters
/// (`inlineMath: [['$','$'], ...]`).
fn sets_dollar_inline_math(config: &[u8]) -> bool {
    memmem::find_iter(config, b"inlineMath").any(|at| {
        let list = &config[at..config.len().min(at + 80)];
        let list = &list[..memchr(b']', list).and_then(|first| memchr(b']', &list[first + 1..]).map(|second| first + 1 + second + 1)).unwrap_or(list.len())];
        memmem::find(list, b"'$'").or_else(|| memmem::find(list, b"\"$\"")).is_some()
    })
}

/// Names in the address of a script that typesets TeX in the browser.
const TEX_TYPESETTERS: &[&[u8]] = &[b"mathjax", b"katex"];

fn contains_ignore_case(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle))
}

/// Whether a script's `type` (its value, quotes off) marks TeX: `math/tex`, `math/tex; mode=display`.
pub fn is_tex_script_type(value: &[u8]) -> bool {
    starts_with_ignore_case(value.trim_ascii_start(), b"math/tex")
}

fn is_formatting(tag: &[u8]) -> bool {
    FORMATTING.iter().any(|f| tag.eq_ignore_ascii_case(f))
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

fn starts_with_ignore_case(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// The `<` of the first `</name` (any case) followed by the end of a tag name.
fn find_end_tag(bytes: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut pos = from;
    while let Some(i) = memmem::find(&bytes[pos..], b"</") {
        let at = pos + i;
        let rest = &bytes[at + 2..];
        if starts_with_ignore_case(rest, name) && rest.get(name.len()).is_none_or(|&b| is_space(b) || b == b'/' || b == b'>') {
            return Some(at);
        }
        pos = at + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extraction(html: &str) -> Cow<'_, str> {
        FOR_EXTRACTION.apply(html)
    }

    #[test]
    fn the_classifiers_pass_leaves_an_emptied_element_its_text_child() {
        let html = "<style>p{color:red} a{b:c}</style><style>\n</style><style></style><script>x()</script><svg><style>a{}</style></svg><p>t</p>";
        assert_eq!(FOR_CLASSIFIER.apply(html), "<style>x x </style><style> </style><style></style><script></script><svg><style>a{}</style></svg><p>t</p>");
        let children = |prepass: &Prepass| {
            let dom = crate::dom::Dom::parse_with(html, crate::dom::DomLimits { max_elements: 100, deadline: None }, prepass).expect("small page");
            (0..dom.nodes.len()).filter_map(|id| dom.element(id).map(|e| (e.tag().to_string(), dom.children(id).len()))).collect::<Vec<_>>()
        };
        assert_eq!(children(&FOR_CLASSIFIER), children(&FOR_RENDERING), "the renderer's parse keeps the style sheet");
        assert_ne!(children(&FOR_WEB2TEXT), children(&FOR_RENDERING));
    }

    #[test]
    fn empties_scripts_and_styles_and_keeps_their_tags() {
        let html = "<p>a</p><SCRIPT type=x>var s = '<p>no</p>';</script ><style>p{}</STYLE><p>b</p>";
        assert_eq!(extraction(html), "<p>a</p><SCRIPT type=x></script ><style></STYLE><p>b</p>");
        assert_eq!(FOR_RENDERING.apply(html), "<p>a</p><SCRIPT type=x></script ><style>p{}</STYLE><p>b</p>");
    }

    #[test]
    fn keeps_the_tex_source_of_a_math_script() {
        let html = "<p>Let <script type=\"math/tex\">x<y</script> and <SCRIPT TYPE='math/tex; mode=display'>\\sum_i a_i</SCRIPT><script type=text/javascript>f()</script>";
        assert_eq!(
            extraction(html),
            "<p>Let <script type=\"math/tex\">x<y</script> and <SCRIPT TYPE='math/tex; mode=display'>\\sum_i a_i</SCRIPT><script type=text/javascript></script>"
        );
        assert_eq!(FOR_WEB2TEXT.apply("<script type=math/tex>a</script>"), "<script type=math/tex>a</script>");
    }

    #[test]
    fn notes_a_page_that_loads_a_tex_typesetter() {
        let loads = |html: &str| FOR_EXTRACTION.apply_noting(html).1.loads_tex_typesetter;
        assert!(loads("<script async src=\"https://cdn.example.net/npm/MathJax@3/es5/tex-chtml.js\"></script><p>\\(x\\)</p>"));
        assert!(loads("<script src='/static/katex.min.js' defer></script>"));
        assert!(loads("<script type=\"text/x-mathjax-config\">MathJax.Hub.Config({})</script>"));
        let dollar = |html: &str| FOR_EXTRACTION.apply_noting(html).1.dollar_inline_math;
        assert!(dollar("<script type=\"text/x-mathjax-config\">MathJax.Hub.Config({tex2jax: {inlineMath: [ ['$','$'], ['\\\\(','\\\\)'] ]}})</script>"));
        assert!(dollar("<script type='text/x-mathjax-config'>x({inlineMath: [[\"\\\\(\",\"\\\\)\"], [\"$\", \"$\"]], displayMath: []})</script>"));
        assert!(!dollar("<script type=\"text/x-mathjax-config\">x({inlineMath: [['\\\\(','\\\\)']], displayMath: [['$$','$$']]})</script>"));
        assert!(!dollar("<script>x({inlineMath: [['$','$']]})</script>"));
        assert!(!loads("<script src=\"/app.js\"></script><p>about MathJax</p><img src=katex.png>"));
    }

    #[test]
    fn leaves_quoted_attributes_and_lookalikes_alone() {
        let html = "<!-- <script> --><p>keep</p><scripted>x</scripted><script type=\"a>b\">z</script>";
        assert_eq!(extraction(html), "<!----><p>keep</p><scripted>x</scripted><script type=\"a>b\"></script>");
    }

    #[test]
    fn empties_comments_where_the_tokenizer_ends_them() {
        assert_eq!(extraction("<!-- a <p data-a=1> --><p data-b=2>"), "<!----><p>");
        // `--!>` ends a comment; `<!-->` and `<!--->` are empty ones; a lone `--` does not end one.
        assert_eq!(extraction("<!-- a --!><p data-b=2>x -->"), "<!----!><p>x -->");
        assert_eq!(extraction("<!--><p data-b=2>--><!---><p data-c=3>"), "<!--><p>--><!---><p>");
        assert_eq!(extraction("<!-- a -- b --- c ---><p data-b=2>"), "<!----><p>");
        // React's suspense-boundary markers are read by the sink.
        assert_eq!(extraction("<!--$?--><template id=B:0></template><!--/$-->"), "<!--$?--><template id=B:0></template><!--/$-->");
        let unterminated = "<p>a<!-- never closed <p data-b=2>";
        assert!(matches!(extraction(unterminated), Cow::Borrowed(_)));
        let kept = Prepass { empty_comments: false, ..FOR_EXTRACTION };
        assert_eq!(kept.apply("<!-- a --><p data-b=2>"), "<!-- a --><p>");
    }

    #[test]
    fn cuts_blank_runs_between_tags_to_their_first_character() {
        let html = "<ul>\n    <li>a  b</li>\n\t<li>c</li> <!-- x -->\n  <li>d</li>\n</ul>  tail  <p>";
        assert_eq!(extraction(html), "<ul>\n<li>a  b</li>\n<li>c</li> <!---->\n<li>d</li>\n</ul>  tail  <p>");
        // The parser drops the newline that opens a <pre>: the run after it stays whole.
        let pre = "<pre>\n  <b>x</b>\n  <b>y</b></pre>";
        assert_eq!(extraction(pre), "<pre>\n  <b>x</b>\n<b>y</b></pre>");
        assert_eq!(FOR_RENDERING.apply(html), "<ul>\n    <li>a  b</li>\n\t<li>c</li> <!---->\n  <li>d</li>\n</ul>  tail  <p>");
    }

    #[test]
    fn keeps_only_the_attributes_the_extractors_and_the_tree_builder_read() {
        let html = "<div class=a ID=b title=t aria-label=l role=main><input type=hidden value=v><meta name=description content=c>";
        assert_eq!(extraction(html), "<div class=a ID=b role=main><input type=hidden><meta name=description content=c>");
    }

    #[test]
    fn drops_unread_attributes_in_every_syntax() {
        let html = "<div data-a=\"x > y\" class=a DATA-B='1' id=c data-c=u data-d\tdata-e = \"v\" hidden>t</div>\
                    <img/data-x=1 src=i.png srcset=\"i 2x\"/><path d=\"M0 0L1 1\"/><span href=h data-y>l</span>";
        assert_eq!(extraction(html), "<div class=a id=c hidden>t</div><img/ /><path /><span>l</span>");
        assert_eq!(FOR_RENDERING.apply(html), "<div class=a id=c hidden>t</div><img/ src=i.png /><path d=\"M0 0L1 1\"/><span href=h>l</span>");
    }

    #[test]
    fn the_renderer_keeps_the_data_attributes_a_selector_names() {
        let html = "<style>[data-state=open]{display:block} li[ Data-Kind ]{}</style>\
                    <div data-state=open data-id=7 DATA-KIND=x data-kind-more=y>t</div>";
        assert_eq!(FOR_RENDERING.apply(html), "<style>[data-state=open]{display:block} li[ Data-Kind ]{}</style><div data-state=open DATA-KIND=x>t</div>");
        assert_eq!(FOR_RENDERING.apply("<p data-a=1>[data-</p>"), "<p>[data-</p>", "a bare prefix names nothing");
    }

    #[test]
    fn neighbours_stay_apart() {
        let html = "<img src=\"a\"width=1><path fill=red d=\"M0\"/><p data-a=\"1\"/class=x data-b=1/c>";
        assert_eq!(extraction(html), "<img ><path /><p /class=x>");
        assert_eq!(FOR_WEB2TEXT.apply(html), "<img width=1><path fill=red /><p /class=x>");
    }

    #[test]
    fn a_self_closed_iframe_is_closed() {
        let html = "<noscript><iframe src=\"gtm\" style=\"display:none\" /></noscript><p>text</p><SCRIPT src=\"a.js\"/></script><p data-a=1>";
        assert_eq!(extraction(html), "<noscript><iframe style=\"display:none\" /></iframe></noscript><p>text</p><SCRIPT /></script><p>");
        assert_eq!(extraction("<iframe src=a/></iframe><p>x</p>"), "<iframe></iframe><p>x</p>", "a slash in a value closes nothing");
    }

    #[test]
    fn formatting_elements_keep_their_attributes() {
        // Three identical <a> in the active formatting list would make the parser forget
        // the first (Noah's Ark): the tree must not depend on the pass.
        let html = "<p><a href=1 data-x=1>a<A href=2>b<b data-y=2>c</b></a></a><i srcset=x>d</i></p>";
        assert!(matches!(extraction(html), Cow::Borrowed(_)));
    }

    #[test]
    fn text_that_looks_like_a_tag_is_left_alone() {
        let html = "<title>a <b data-x=1> b</title><textarea><i data-y=2></textarea><p data-z=3>c</p>";
        assert_eq!(extraction(html), "<title>a <b data-x=1> b</title><textarea><i data-y=2></textarea><p>c</p>");
        let html = "<p>x < y and 3<4</p><!doctype html><?xml x data-a=1?></p data-b=1><plaintext><p data-c=1>";
        assert!(matches!(extraction(html), Cow::Borrowed(_)));
    }

    #[test]
    fn an_unterminated_script_or_tag_is_left_to_the_parser() {
        for html in ["<p>a</p><script>never closed <p>b</p>", "<p data-a=1", "<p data-a=\"1>", "<p class=a data-b=", "<!-- <p data-a=1>"] {
            assert!(matches!(extraction(html), Cow::Borrowed(_)), "{html}");
        }
        assert_eq!(extraction("<p data-a=1>x<p data-b=\"2"), "<p>x<p data-b=\"2");
    }

    /// Found by `tests/prepass.rs`'s property test: cuts that would have changed the tree.
    #[test]
    fn cuts_that_would_change_the_tree_are_not_made() {
        // A slash left before the `>` would make the tag self-closing.
        assert_eq!(extraction("<svg /href><!-- c -->"), "<svg /href><!---->");
        // An `=` after the cut attribute would become the previous one's value.
        assert_eq!(extraction("<span type href=x =x>"), "<span type href=x>");
        assert_eq!(extraction("<p href=\"q\"=>"), "<p href=\"q\">");
    }

    #[test]
    fn what_the_tree_builder_decides_is_left_to_the_parser() {
        // A quoted `>` inside an end tag's (ignored) attributes does not end it.
        assert!(matches!(extraction("</a class='>'><p data-a=1>"), Cow::Borrowed(_)));
        // In a frameset `<style>` is ignored and its content read as markup.
        assert!(matches!(extraction("<frameset><style><p class='></style><p data-x=''><!-- c -->"), Cow::Borrowed(_)));
        // Inside SVG, <style> and <title> hold markup, not raw text.
        assert_eq!(extraction("<svg><style><p data-x=1></style></svg><p data-y=2>"), "<svg><style><p></style></svg><p>");
        // Once an end tag may have closed the SVG, a <script> may be raw text again.
        let unsure = "<div><svg></div><script><p data-x=1></script>";
        assert!(matches!(extraction(unsure), Cow::Borrowed(_)), "{}", extraction(unsure));
        // A sprite's icons, each with a <title>, keep the pass going.
        assert_eq!(
            extraction("<svg><symbol><title>a</title><path d=x></path></symbol><symbol><title>b</title></symbol></svg><p data-y=2>"),
            "<svg><symbol><title>a</title><path></path></symbol><symbol><title>b</title></symbol></svg><p>"
        );
    }

    #[test]
    fn non_ascii_text_and_names_survive() {
        let html = "<p é=1 data-ü=2>héllo</p><script>ünïcode</script><p>wörld</p>";
        assert_eq!(extraction(html), "<p>héllo</p><script></script><p>wörld</p>");
        assert_eq!(FOR_WEB2TEXT.apply(html), "<p é=1>héllo</p><script></script><p>wörld</p>");
    }
}
