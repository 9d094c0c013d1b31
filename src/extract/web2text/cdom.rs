//! The Collapsed DOM of the paper's section 3.1: the page's `<body>` without empty or
//! whitespace-only nodes and without the tags that hold no extractable content, with
//! every single-child parent merged into its child, recursively. Its text leaves, in
//! document order, are the blocks Web2Text labels.
//!
//! Each node keeps the statistics the features read (words, stopwords, punctuation,
//! ...), summed over its subtree, and an approximate span in the page's source: our DOM
//! has no source offsets, so a running count of text and markup characters (tag names,
//! attributes, brackets) stands in for them.

use html5ever::{LocalName, local_name};
use memchr::memmem;
use std::sync::LazyLock;

use crate::dom::{Dom, FOR_WEB2TEXT, NodeData, NodeId, TagList, TagSet, heading_level};
use crate::page::language::{self, LANGUAGE_SAMPLE_BYTES, stands_alone};

/// Tags dropped with their subtree before collapsing: no content to extract (the
/// reference implementation's list; `option`, `button`, `svg`, `template` added, and
/// MathML's `annotation` and `annotation-xml`: a formula's source, which a browser never
/// shows — MathML's `semantics` renders its first child only).
pub const SKIP_TAGS: &[&str] = &[
    "annotation", "annotation-xml", "br", "button", "checkbox", "head", "hr", "iframe", "img", "input", "meta", "noscript", "option", "radio", "script",
    "select", "style", "svg", "template", "textarea", "title", "video",
];
/// Form controls: a node holding one is "a form element" (feature b48).
const FORM_TAGS: &[&str] = &["form", "input", "select", "textarea", "button"];
/// Elements that start a new line in an unstyled page (the edge feature "line break
/// between the blocks").
pub const BLOCK_TAGS: &[&str] = &[
    "address", "article", "aside", "blockquote", "body", "br", "canvas", "center", "dd", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer",
    "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "html", "iframe", "input", "li", "main", "nav", "noscript", "ol", "output", "p",
    "pre", "section", "select", "table", "tbody", "td", "textarea", "tfoot", "th", "thead", "tr", "ul", "video",
];
/// Phrasing elements: text touching their tags is not separated ("un<em>believ</em>able",
/// "<span>一波波<span>接續性</span></span>"), but two of them side by side are
/// (`<span>2026</span><span>1h 54m</span>`: items a style sheet spaces apart). Any other
/// element's boundary separates, as a browser lays it out on its own box or line.
const INLINE_TAGS: &[&str] = &[
    "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "blink", "cite", "code", "data", "del", "dfn", "em", "font", "i", "img", "ins", "kbd", "label", "mark",
    "nobr", "q", "rb", "rp", "rt", "ruby", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr",
];
/// The 124-word English stopword list of the reference implementation.
pub const STOPWORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being",
    "below", "between", "both", "but", "by", "cannot", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had",
    "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
    "me", "more", "most", "my", "myself", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "ought", "our", "ours", "ourselves", "out",
    "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these",
    "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "why", "with", "would", "you", "your", "yours", "yourself", "yourselves",
];
/// The tag lists above as the builder asks them.
pub static SKIPPED: TagList = TagList::new(SKIP_TAGS);
/// [`SKIPPED`] without `noscript`: a page built by script (Discourse forums, many shops)
/// often puts its whole text there for crawlers, and the combiner reads it.
pub static SKIPPED_BUT_NOSCRIPT: TagList = TagList::without(SKIP_TAGS, &["noscript"]);
pub(crate) static BLOCKS: TagList = TagList::new(BLOCK_TAGS);
static FORMS: TagList = TagList::new(FORM_TAGS);
static INLINE: TagList = TagList::new(INLINE_TAGS);

/// A heading of more words than this is a paragraph set large, not a section's name
/// ([`Cdom::fill_section_headings`]).
const SECTION_HEADING_WORDS: usize = 20;

/// Characters counted as punctuation: ASCII's, the full-width marks of Chinese and
/// Japanese, Arabic's comma and question mark, the Devanagari full stop.
const PUNCTUATION: &[char] = &['.', ',', '?', ';', ':', '!', '。', '、', '，', '？', '；', '：', '！', '،', '؟', '।'];
/// Marks that end a sentence when whitespace and a capital (or a letter of a script
/// without case) follow.
const STOPS: &[char] = &['.', '?', '!', ';', '؟', '।', '۔'];
/// Full stops after which a sentence starts whatever follows (no capitals, no space).
const CJK_STOPS: &[char] = &['。', '？', '！'];
/// The fewest words of a sentence that announces the list after it ("Here are the
/// courses:"), more than a label's ("Tags:", "Share this:").
const INTRODUCTION_WORDS: usize = 5;
/// What ends the sentence before a list inside the kept text ([`Cdom::enclosed_lists`]).
const SENTENCE_ENDS: &[char] = &['.', ':', '!', '?', '。', '：', '！', '？'];
/// How much evidence the trees must give a list inside the kept text, as a share of the
/// page's cut: half (swept in CV at 0, 0.33 and 0.5 with the sentence and at 0 and 0.5
/// without it; only 0.5 with it lowered no CV figure, docs/extraction.md).
const ENCLOSED_LIST_EVIDENCE: f64 = 0.5;

/// The trees' probabilities and the page's cut (the least probability of a block with
/// words that the decision kept), for the fills that weigh the trees' doubt.
#[derive(Debug, Clone, Copy)]
pub struct ListEvidence<'a> {
    pub probabilities: &'a [f64],
    pub cut: f64,
}

/// What documentation generators append to a heading as its link ("Usage¶", "Usage 🔗";
/// Docusaurus writes a zero-width space as the link's text): no word of the heading.
pub const PERMALINK_MARKS: &[char] = &['¶', '§', '🔗', '\u{200B}'];
/// A table with header cells whose links hold less than this share of its characters holds
/// records, and its links are values (an infobox: 0.52; Wikipedia's navigation boxes of
/// links 0.79-1.0). 0.6, 0.7 and 0.8 give the same CV (docs/extraction.md).
const RECORD_LINK_SHARE: f64 = 0.7;
/// Deeper elements are read as one block of text (bounds the recursion on pathological
/// pages; no WCXB or CleanEval page comes near it).
pub const MAX_DEPTH: usize = 256;

/// Text statistics of a node, summed over its leaves.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TextStats {
    pub chars: usize,
    pub words: usize,
    pub word_chars: usize,
    pub sentences: usize,
    pub punctuation: usize,
    pub numeric: usize,
    pub stopwords: usize,
    pub capitalised: usize,
    pub link_chars: usize,
    pub ends_with_punctuation: bool,
    pub ends_with_question: bool,
    pub copyright: bool,
    pub email: bool,
    pub url: bool,
    pub year: bool,
    pub form: bool,
}

impl TextStats {
    /// Whether links hold at least half of the characters.
    pub fn mostly_links(&self) -> bool {
        self.link_chars * 2 >= self.chars.max(1)
    }

    /// The statistics of one block's text (whitespace already collapsed), in one pass over
    /// its characters: words are the runs of alphanumeric characters, and each Chinese
    /// ideograph or Japanese kana is a word by itself ([`stands_alone`]). It runs for every
    /// block of every page, so ASCII, nearly all of it, is told by its byte, and a run of
    /// lower-case ASCII letters inside a word, which changes nothing but the counts of
    /// characters, is skipped over in one step.
    pub fn of(text: &str) -> Self {
        let text = text.trim();
        let bytes = text.as_bytes();
        let mut s = Self { sentences: 1, ..Self::default() };
        // Where the word being read started, in bytes.
        let mut word_start = None;
        // A sentence ends at . ? ! ; followed by whitespace and a capital letter (or a
        // letter without case: Arabic, Hindi): `after_stop` is 1 right after such a mark,
        // 2 once whitespace has followed it; after 。？！ (3) the next character starts
        // one whatever it is.
        let mut after_stop = 0u8;
        let mut at = 0;
        while at < bytes.len() {
            let (kind, len) = match bytes[at] {
                b if b.is_ascii() => {
                    let kind = ASCII_KINDS[usize::from(b)];
                    if kind.alphanumeric && word_start.is_some() {
                        // Inside a word, after its first character: lower-case letters
                        // only add to the counts of characters.
                        let run = bytes[at..].iter().take_while(|b| b.is_ascii_lowercase()).count();
                        if run > 0 {
                            s.chars += run;
                            s.word_chars += run;
                            after_stop = 0;
                            at += run;
                            continue;
                        }
                    }
                    (kind, 1)
                }
                _ => match text[at..].chars().next() {
                    Some(c) => {
                        s.copyright |= c == '©';
                        (CharKind::general(c), c.len_utf8())
                    }
                    None => break,
                },
            };
            s.chars += 1;
            if kind.alone {
                if let Some(start) = word_start.take() {
                    s.end_word(&text[start..at]);
                }
                s.word_chars += 1;
                s.words += 1;
                s.end_word(&text[at..at + len]);
            } else if kind.alphanumeric {
                s.word_chars += 1;
                if word_start.is_none() {
                    word_start = Some(at);
                    s.words += 1;
                    s.capitalised += usize::from(kind.uppercase);
                }
            } else if let Some(start) = word_start.take() {
                s.end_word(&text[start..at]);
            }
            s.punctuation += usize::from(kind.punctuation);
            s.numeric += usize::from(kind.numeric);
            if kind.whitespace {
                if after_stop == 1 {
                    after_stop = 2;
                }
            } else {
                if (after_stop == 2 && (kind.uppercase || kind.caseless_letter)) || after_stop == 3 {
                    s.sentences += 1;
                }
                after_stop = kind.stop;
            }
            at += len;
        }
        if let Some(start) = word_start {
            s.end_word(&text[start..]);
        }
        let last = text.chars().next_back();
        s.ends_with_punctuation = last.is_some_and(|c| PUNCTUATION.contains(&c));
        s.ends_with_question = last.is_some_and(|c| c == '?' || c == '？');
        s.email = has_email(text);
        s.url = has_address(text);
        s
    }

    /// What a whole word adds beyond its count: a stopword, a year.
    fn end_word(&mut self, word: &str) {
        if is_stopword(word) {
            self.stopwords += 1;
        }
        if word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()) {
            self.year = true;
        }
    }

    fn add(&mut self, other: &Self) {
        self.chars += other.chars;
        self.words += other.words;
        self.word_chars += other.word_chars;
        self.sentences += other.sentences;
        self.punctuation += other.punctuation;
        self.numeric += other.numeric;
        self.stopwords += other.stopwords;
        self.capitalised += other.capitalised;
        self.link_chars += other.link_chars;
        // A node ends the way its last child ends.
        self.ends_with_punctuation = other.ends_with_punctuation;
        self.ends_with_question = other.ends_with_question;
        self.copyright |= other.copyright;
        self.email |= other.email;
        self.url |= other.url;
        self.year |= other.year;
        self.form |= other.form;
    }
}

/// What [`TextStats::of`] asks of a character: the `char` methods' answers, in a table for
/// ASCII ([`ASCII_KINDS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CharKind {
    /// A word by itself ([`stands_alone`]).
    alone: bool,
    alphanumeric: bool,
    uppercase: bool,
    /// A letter of a script without case (Arabic, Devanagari, Chinese).
    caseless_letter: bool,
    numeric: bool,
    whitespace: bool,
    punctuation: bool,
    /// 1 for a mark that ends a sentence before a capital ([`STOPS`]), 3 for one that
    /// ends it whatever follows ([`CJK_STOPS`]), else 0.
    stop: u8,
}

impl CharKind {
    fn general(c: char) -> Self {
        Self {
            alone: stands_alone(c),
            alphanumeric: c.is_alphanumeric(),
            uppercase: c.is_uppercase(),
            caseless_letter: c.is_alphabetic() && !c.is_uppercase() && !c.is_lowercase(),
            numeric: c.is_numeric(),
            whitespace: c.is_whitespace(),
            punctuation: PUNCTUATION.contains(&c),
            stop: if STOPS.contains(&c) {
                1
            } else if CJK_STOPS.contains(&c) {
                3
            } else {
                0
            },
        }
    }
}

/// [`CharKind::general`] of each ASCII character, worked out when the program is built.
const ASCII_KINDS: [CharKind; 128] = {
    let mut kinds = [CharKind {
        alone: false,
        alphanumeric: false,
        uppercase: false,
        caseless_letter: false,
        numeric: false,
        whitespace: false,
        punctuation: false,
        stop: 0,
    }; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        kinds[b] = CharKind {
            alone: false,
            alphanumeric: c.is_ascii_alphanumeric(),
            uppercase: c.is_ascii_uppercase(),
            caseless_letter: false,
            numeric: c.is_ascii_digit(),
            // `char::is_whitespace`: tab to carriage return, and the space.
            whitespace: matches!(c, b'\t'..=b'\r' | b' '),
            punctuation: matches!(c, b'.' | b',' | b'?' | b';' | b':' | b'!'),
            stop: if matches!(c, b'.' | b'?' | b'!' | b';') { 1 } else { 0 },
        };
        b += 1;
    }
    kinds
};

/// The words [`TextStats::of`] counts: runs of alphanumeric characters, and each
/// character that stands alone ([`stands_alone`]) by itself. It reads every block of a
/// page not in English again, so an ASCII character is told by its byte and only the others
/// are decoded.
fn words(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    // The character at a byte: whether it is in a word, whether it stands alone, its length.
    let at_char = move |at: usize| match bytes[at] {
        b if b.is_ascii() => (b.is_ascii_alphanumeric(), false, 1),
        _ => text[at..].chars().next().map_or((false, false, 1), |c| (c.is_alphanumeric(), stands_alone(c), c.len_utf8())),
    };
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let (in_word, alone, len) = at_char(at);
            let start = at;
            at += len;
            if alone {
                return Some(&text[start..at]);
            }
            if in_word {
                while at < bytes.len() {
                    let (in_word, alone, len) = at_char(at);
                    if !in_word || alone {
                        break;
                    }
                    at += len;
                }
                return Some(&text[start..at]);
            }
        }
        None
    })
}

/// Whether a word is one of [`STOPWORDS`], in any case. It runs for every word of every
/// page: most words are ruled out by their length and first letter; the other ASCII words
/// (nearly all that match) are lowered into a 128-bit key and looked up in a set of the
/// list's keys, a hash, not a search through strings.
fn is_stopword(word: &str) -> bool {
    static KEYS: LazyLock<foldhash::HashSet<u128>> = LazyLock::new(|| STOPWORDS.iter().filter_map(|w| ascii_key(w)).collect());
    let Some(&first) = word.as_bytes().first() else { return false };
    if word.len() > LONGEST_STOPWORD {
        return false;
    }
    // Most words are told apart by their length and first letter, without a lookup.
    if first.is_ascii() && !(first.is_ascii_alphabetic() && STOPWORD_STARTS[word.len()] & 1 << (first.to_ascii_lowercase() - b'a') != 0) {
        return false;
    }
    match ascii_key(word) {
        Some(key) => KEYS.contains(&key),
        // Not ASCII (a short word always fits a key otherwise): a stopword only if its
        // lower case is (the Kelvin sign lowers to `k`), since every stopword is ASCII.
        None => ascii_key(&word.to_lowercase()).is_some_and(|key| KEYS.contains(&key)),
    }
}

/// Whether `word`, lower-cased, is in `list` (of lower-case words). An ASCII word is lowered
/// on the stack: a new string for each word of every block took about 2% of the default's
/// CPU on pages in German.
fn in_word_list(word: &str, list: &foldhash::HashSet<&str>) -> bool {
    const ON_THE_STACK: usize = 32;
    let bytes = word.as_bytes();
    if !bytes.is_ascii() || bytes.len() > ON_THE_STACK {
        return list.contains(word.to_lowercase().as_str());
    }
    if !bytes.iter().any(u8::is_ascii_uppercase) {
        return list.contains(word);
    }
    let mut buffer = [0u8; ON_THE_STACK];
    let lower = &mut buffer[..bytes.len()];
    lower.copy_from_slice(bytes);
    lower.make_ascii_lowercase();
    std::str::from_utf8(lower).is_ok_and(|lower| list.contains(lower))
}

/// The longest word of [`STOPWORDS`] ("themselves", "yourselves").
const LONGEST_STOPWORD: usize = 10;

/// For each length, the first letters of the stopwords of that length (bit 0 for `a`).
const STOPWORD_STARTS: [u32; LONGEST_STOPWORD + 1] = {
    let mut starts = [0; LONGEST_STOPWORD + 1];
    let mut i = 0;
    while i < STOPWORDS.len() {
        let word = STOPWORDS[i].as_bytes();
        starts[word.len()] |= 1 << (word[0] - b'a');
        i += 1;
    }
    starts
};

/// A lower-cased ASCII word of at most 15 bytes as one number: its bytes, then its length
/// in the last byte (so "a" and "a\0" differ).
fn ascii_key(word: &str) -> Option<u128> {
    let bytes = word.as_bytes();
    if bytes.len() > 15 || !word.is_ascii() {
        return None;
    }
    let mut key = [0u8; 16];
    for (k, b) in key.iter_mut().zip(bytes) {
        *k = b.to_ascii_lowercase();
    }
    key[15] = bytes.len() as u8;
    Some(u128::from_le_bytes(key))
}

/// Whether a text holds `http://`, `https://`, `ftp://` or `www.`: each `://` is checked
/// for its scheme, so a block is searched twice, not four times (it runs for every block).
fn has_address(text: &str) -> bool {
    static WWW: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("www."));
    static SEPARATOR: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("://"));
    let bytes = text.as_bytes();
    WWW.find(bytes).is_some() || SEPARATOR.find_iter(bytes).any(|at| [b"http".as_slice(), b"https", b"ftp"].iter().any(|scheme| bytes[..at].ends_with(scheme)))
}

/// `name@host.tld`: a word character on each side of `@` and a dot after it.
fn has_email(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'@', bytes).any(|i| {
        i > 0
            && bytes[i - 1].is_ascii_alphanumeric()
            && bytes.get(i + 1).is_some_and(u8::is_ascii_alphanumeric)
            && text[i + 1..].split(char::is_whitespace).next().is_some_and(|host| host.trim_end_matches('.').contains('.'))
    })
}

/// A leaf's own place in its chain of tags, written `#text` (no element has the empty name).
pub const TEXT_TAG: LocalName = local_name!("");

/// A tag of a chain as written: `#text` for [`TEXT_TAG`].
fn tag_name(tag: &LocalName) -> &str {
    if tag.is_empty() { "#text" } else { tag }
}

/// The level (1–6) of the innermost `h1`–`h6` in a node's chain of tags.
fn heading_level_of(node: &CNode) -> Option<usize> {
    node.tags.iter().rev().find_map(heading_level)
}

/// One CDOM node.
#[derive(Debug, Clone)]
pub struct CNode {
    /// The collapsed chain of tags, outermost first; a leaf's chain ends in [`TEXT_TAG`]
    /// (`#text`). Atoms: the features ask each block about some forty tags.
    pub tags: Vec<LocalName>,
    /// The class attribute of each element in the chain (trimmed), parallel to `tags`.
    pub classes: Vec<String>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// A leaf's text, whitespace collapsed; empty for inner nodes.
    pub text: String,
    pub stats: TextStats,
    /// Approximate source span (see the module comment).
    pub start: usize,
    pub end: usize,
    /// A leaf: whether a line break separates it from the block before it.
    pub break_before: bool,
    /// A leaf: whether whitespace or a non-phrasing element separates it from the text
    /// before it (no space is added between the halves of a word split by markup).
    pub space_before: bool,
    /// A leaf inside ruby's `rt` or `rp`: a reading set above the base text, or the
    /// parentheses a browser hides around it ([`Cdom::drop_ruby_readings`]).
    pub ruby_reading: bool,
    /// The DOM node the CDOM node stands for: a leaf's text node (or, past
    /// [`MAX_DEPTH`], the element read as one block), an inner node's element. Lets
    /// other extractors' choices be read block by block.
    pub dom_node: NodeId,
}

impl CNode {
    pub fn has_tag(&self, tag: &LocalName) -> bool {
        self.tags.contains(tag)
    }

    /// The chain of tags as written, `#text` for a leaf's own: `li>a>#text`.
    pub fn tag_path(&self) -> String {
        self.tags.iter().map(tag_name).collect::<Vec<_>>().join(">")
    }
}

/// What [`Cdom::fill_data_tables`] knows of a table: its leaves' characters (all, and in
/// links), whether it has a header cell, holds another table, or has a cell too long for data.
#[derive(Debug, Clone, Copy, Default)]
struct TableShape {
    chars: usize,
    link_chars: usize,
    has_header_cell: bool,
    holds_table: bool,
    too_long: bool,
}

impl TableShape {
    /// A table of records (an infobox, a spec sheet: header cells labelling values) rather
    /// than of links (a navigation box, a menu laid out as a table).
    fn holds_records(&self) -> bool {
        self.has_header_cell && (self.link_chars as f64) < RECORD_LINK_SHARE * self.chars as f64
    }
}

/// A group of leaves' words (a code block's, a table's, a list's), all and kept.
#[derive(Debug, Default, Clone, Copy)]
struct GroupWords {
    all: usize,
    kept: usize,
}

impl GroupWords {
    /// Whether some of the words are kept, and at least `share` of them.
    fn reach(self, share: f64) -> bool {
        self.kept > 0 && self.kept as f64 >= share * self.all as f64
    }
}

/// The collapsed DOM of a page.
#[derive(Debug, Clone, Default)]
pub struct Cdom {
    pub nodes: Vec<CNode>,
    pub root: Option<usize>,
    /// The blocks: text leaves in document order.
    pub leaves: Vec<usize>,
    /// What the language detector read in the page's longest blocks.
    language_sample: LanguageSample,
}

/// A sample of blocks the language detector read, and what it said.
#[derive(Debug, Clone, Default)]
struct LanguageSample {
    /// The blocks read, as positions in [`Cdom::leaves`], longest first.
    blocks: Vec<usize>,
    detection: Option<language::Detection>,
    enough_letters: bool,
}

impl Cdom {
    pub fn build(dom: &Dom) -> Self {
        Self::build_skipping(dom, &SKIPPED)
    }

    /// The CDOM without the subtrees of the `skip` tags.
    pub fn build_skipping(dom: &Dom, skip: &TagList) -> Self {
        let start = dom.body().or_else(|| dom.html()).unwrap_or(crate::dom::DOCUMENT);
        let mut builder = Builder {
            dom,
            cdom: Cdom::default(),
            offset: 0,
            pending_break: true,
            pending_space: true,
            phrasing_closed: false,
            sibling_gap: false,
            after_cjk: false,
            in_code: 0,
            in_ruby_reading: 0,
            skip: skip.set(),
        };
        let root = builder.node(start, 0);
        let mut cdom = builder.cdom;
        cdom.root = root;
        if let Some(root) = root {
            // Leaves in document order: children are pushed before their parent, so walk
            // from the root.
            let mut stack = vec![root];
            while let Some(id) = stack.pop() {
                let node = &cdom.nodes[id];
                if node.children.is_empty() {
                    cdom.leaves.push(id);
                } else {
                    stack.extend(node.children.iter().rev());
                }
            }
        }
        cdom.detect_language();
        cdom.count_stopwords_in_page_language();
        cdom
    }

    /// Web2Text's stopword list is English, so on a page in another language every block
    /// would hold none, as a list of links does. The page's language is detected from its
    /// longest blocks; where it is not English and a list has it, the stopwords are
    /// counted again with that list (the trees read a share, whatever the language).
    fn count_stopwords_in_page_language(&mut self) {
        let Some(list) = self.language().filter(|code| code != "en").and_then(|code| language::stopwords(&code)) else {
            return;
        };
        // Children are pushed before their parents, so one pass in order sums them.
        for id in 0..self.nodes.len() {
            let node = &self.nodes[id];
            debug_assert!(node.children.iter().all(|&c| c < id));
            let count = if node.children.is_empty() {
                words(&node.text).filter(|w| in_word_list(w, list)).count()
            } else {
                node.children.iter().map(|&c| self.nodes[c].stats.stopwords).sum()
            };
            self.nodes[id].stats.stopwords = count;
        }
    }

    /// The language of the page's text, read from its longest blocks (menus and buttons
    /// are often in English on pages that are not), or None when the detector is unsure
    /// (too little text, code, names, mixed languages).
    pub fn language(&self) -> Option<String> {
        self.language_sample.detection.as_ref().filter(|d| d.reliable).map(|d| d.code.clone())
    }

    /// The language of the text of the leaves marked `content` and the detector's
    /// confidence, where the page's own detection already read it: when the page's
    /// longest blocks, the sample it read, are all kept (they are then the text's longest
    /// too, the same sample) and none is code (code reads as French to the detector), and
    /// the detector was sure of them. None otherwise: the text's language is then read
    /// from the text.
    pub fn language_of(&self, content: &[bool]) -> Option<(String, f32)> {
        let sample = &self.language_sample;
        let detection = sample.detection.as_ref().filter(|d| d.reliable && sample.enough_letters)?;
        let kept = sample.blocks.iter().all(|&i| content.get(i).copied().unwrap_or(false));
        let code = sample.blocks.iter().any(|&i| self.in_code(self.leaves[i]));
        (kept && !code).then(|| (detection.code.clone(), detection.confidence))
    }

    /// Reads the language of the page's longest blocks (first in document order among
    /// equals), as many as fill the detector's sample: a kilobyte of prose tells the
    /// language, and the detector's cost grows with the sample.
    fn detect_language(&mut self) {
        let mut blocks: Vec<usize> = (0..self.leaves.len()).collect();
        blocks.sort_by_key(|&i| std::cmp::Reverse(self.nodes[self.leaves[i]].text.len()));
        let mut sample = String::new();
        let taken = blocks
            .iter()
            .position(|&i| {
                if sample.len() >= LANGUAGE_SAMPLE_BYTES {
                    return true;
                }
                sample.push_str(&self.nodes[self.leaves[i]].text);
                sample.push('\n');
                false
            })
            .unwrap_or(blocks.len());
        blocks.truncate(taken);
        sample.truncate(language::floor_char_boundary(&sample, LANGUAGE_SAMPLE_BYTES));
        self.language_sample = LanguageSample { blocks, detection: language::detect(&sample), enough_letters: language::has_enough_letters(&sample) };
    }

    /// Ancestors of a node, nearest first.
    pub fn ancestors(&self, id: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.nodes[id].parent, |&p| self.nodes[p].parent)
    }

    /// The node itself or its nearest ancestor that `matches`.
    pub fn closest(&self, id: usize, matches: impl Fn(&CNode) -> bool) -> Option<usize> {
        std::iter::once(id).chain(self.ancestors(id)).find(|&a| matches(&self.nodes[a]))
    }

    /// The lowest common ancestor of two nodes and the number of tree edges between them.
    pub fn common_ancestor(&self, a: usize, b: usize) -> Option<(usize, usize)> {
        let up_a: Vec<usize> = std::iter::once(a).chain(self.ancestors(a)).collect();
        for (hops_b, node) in std::iter::once(b).chain(self.ancestors(b)).enumerate() {
            if let Some(hops_a) = up_a.iter().position(|&x| x == node) {
                return Some((node, hops_a + hops_b));
            }
        }
        None
    }

    /// The root's source span, at least 1.
    pub fn body_length(&self) -> usize {
        self.root.map_or(1, |r| (self.nodes[r].end - self.nodes[r].start).max(1))
    }

    /// The text of the leaves marked `content` (one flag per leaf, in order): a leaf after
    /// a line break starts a new line; others follow with a space where the source
    /// separates them (whitespace, an element that is not phrasing, or a dropped block
    /// between them), and directly where only phrasing markup does.
    pub fn text_of(&self, content: &[bool]) -> String {
        let mut out = String::new();
        let mut previous: Option<usize> = None;
        for (i, (&leaf, &keep)) in self.leaves.iter().zip(content).enumerate() {
            if !keep {
                continue;
            }
            if let Some(p) = previous {
                // A break anywhere since the last content block starts a new line.
                if self.breaks_between(p, i) {
                    out.push('\n');
                } else if self.left_out_between(p, i) || self.nodes[leaf].space_before {
                    out.push(' ');
                }
            }
            out.push_str(&self.nodes[leaf].text);
            previous = Some(i);
        }
        out
    }

    /// Whether text lies between leaves `p` and `i` that the text leaves out, so that a space
    /// stands for it; a ruby reading does not count (its base text runs on).
    pub fn left_out_between(&self, p: usize, i: usize) -> bool {
        self.leaves.get(p + 1..i).is_some_and(|between| between.iter().any(|&l| !self.nodes[l].ruby_reading))
    }

    /// Whether a line break lies anywhere after leaf `p` up to leaf `i`: kept leaves `p` and
    /// `i`, with nothing kept between them, are then on two lines of the text.
    fn breaks_between(&self, p: usize, i: usize) -> bool {
        self.leaves[p + 1..=i].iter().any(|&l| self.nodes[l].break_before)
    }

    /// Keeps the blocks between two content blocks of one line: a link or an emphasised
    /// word inside a kept sentence is part of it ("read by over 10 million people, <a>Class
    /// Central</a> has compiled ..."), whatever its own row looks like. So is the closing
    /// punctuation right after a kept block on its line ("replaced by <a>paid ones</a>."):
    /// a block of no words that the trees judge apart.
    pub fn fill_line_gaps(&self, content: &mut [bool]) {
        let mut last_kept: Option<usize> = None;
        for i in 0..content.len().min(self.leaves.len()) {
            let node = &self.nodes[self.leaves[i]];
            if node.break_before {
                last_kept = None;
            }
            if !content[i] && last_kept.is_some_and(|p| p + 1 == i) && is_closing_punctuation(&node.text) {
                content[i] = true;
            }
            if content[i] {
                if let Some(p) = last_kept {
                    content[p + 1..i].fill(true);
                }
                last_kept = Some(i);
            }
        }
    }

    /// Keeps every block of a `pre` (code, a terminal session) at least `min_kept_share` of
    /// whose words are kept: a code block is read whole, and a highlighter makes each token
    /// a block of its own (`SELECT`, `(`, `avg`), which looks like nothing on its own, so the
    /// trees keep some lines of a block and drop the others.
    pub fn fill_code_blocks(&self, content: &mut [bool], min_kept_share: f64) {
        let n = content.len().min(self.leaves.len());
        let pre_of: Vec<Option<usize>> = (0..n).map(|i| self.closest(self.leaves[i], |node| node.has_tag(&local_name!("pre")))).collect();
        let words = self.words_by_group(&pre_of, content);
        for (kept, pre) in content.iter_mut().zip(&pre_of) {
            if pre.is_some_and(|p| words.get(&p).is_some_and(|w| w.reach(min_kept_share))) {
                *kept = true;
            }
        }
    }

    /// The words of each group of leaves (a code block, a table, a list; `group_of[i]` is
    /// leaf i's), all and kept: what the fills weigh.
    fn words_by_group(&self, group_of: &[Option<usize>], content: &[bool]) -> foldhash::HashMap<usize, GroupWords> {
        let mut words: foldhash::HashMap<usize, GroupWords> = Default::default();
        for (i, group) in group_of.iter().enumerate() {
            if let Some(group) = group {
                let w = self.nodes[self.leaves[i]].stats.words;
                let entry = words.entry(*group).or_default();
                entry.all += w;
                if content[i] {
                    entry.kept += w;
                }
            }
        }
        words
    }

    /// Keeps every cell of a data table most of whose words are kept: a table of figures is
    /// read whole, and a short cell ("Yes", "2.4 GHz") looks like boilerplate on its own.
    /// A data table holds no other table and no cell of more than `max_cell_words` words.
    pub fn fill_data_tables(&self, content: &mut [bool], min_kept_share: f64, max_cell_words: usize) {
        let n = content.len().min(self.leaves.len());
        let is_cell = |id: usize| is_table_cell(&self.nodes[id]);
        // Each leaf's nearest table and cell, and each table's characters and header cells.
        let mut table_of: Vec<Option<usize>> = vec![None; n];
        let mut cell_of: Vec<Option<usize>> = vec![None; n];
        let mut tables: foldhash::HashMap<usize, TableShape> = Default::default();
        for (i, slot) in table_of.iter_mut().enumerate() {
            let leaf = self.leaves[i];
            let mut cell = is_cell(leaf).then_some(leaf);
            for a in self.ancestors(leaf) {
                if self.nodes[a].has_tag(&local_name!("table")) {
                    *slot = Some(a);
                    cell_of[i] = cell;
                    if let Some(outer) = self.ancestors(a).find(|&o| self.nodes[o].has_tag(&local_name!("table"))) {
                        tables.entry(outer).or_default().holds_table = true;
                    }
                    let shape = tables.entry(a).or_default();
                    let stats = &self.nodes[leaf].stats;
                    shape.chars += stats.chars;
                    shape.link_chars += stats.link_chars;
                    shape.has_header_cell |= cell.is_some_and(|c| self.nodes[c].has_tag(&local_name!("th")));
                    shape.too_long |= cell.is_some_and(|c| self.nodes[c].stats.words > max_cell_words);
                    break;
                }
                if cell.is_none() && is_cell(a) {
                    cell = Some(a);
                }
            }
        }
        let words = self.words_by_group(&table_of, content);
        let is_link = |i: usize| self.nodes[self.leaves[i]].stats.mostly_links();
        let filled = |t: usize| words.get(&t).is_some_and(|w| w.reach(min_kept_share)) && tables.get(&t).is_some_and(|s| !s.holds_table && !s.too_long);
        let in_filled: Vec<bool> = table_of.iter().map(|t| t.is_some_and(filled)).collect();
        for i in 0..n {
            // A link is left to the trees here: a row of links in a layout table is a menu.
            if in_filled[i] && !is_link(i) {
                content[i] = true;
            }
        }
        // A cell of links in a row whose other cells' words are kept is one of the row's
        // cells (the name of the course, the product the row describes). Not so a row of
        // links and separators (`Home | News | Contact`: a menu), links beside kept words
        // in one cell (a footer's links above its notice), nor a link text the table
        // repeats in such cells ("More", "Visit my web site": an action, not a name).
        // In a table of records (header cells, links under RECORD_LINK_SHARE of its
        // characters: an infobox, a spec sheet) every link is a value: "Capital |
        // Wellington", "Governor-General | Patsy Reddy". A navigation box of links is not.
        let row_of = |cell: usize| self.closest(cell, |n| n.has_tag(&local_name!("tr")));
        let mut cells_with_words: foldhash::HashMap<usize, Vec<usize>> = Default::default();
        for i in 0..n {
            if content[i]
                && !is_link(i)
                && self.nodes[self.leaves[i]].stats.words > 0
                && in_filled[i]
                && let Some(cell) = cell_of[i]
            {
                cells_with_words.entry(row_of(cell).unwrap_or(cell)).or_default().push(cell);
            }
        }
        let of_records = |t: usize| tables.get(&t).is_some_and(TableShape::holds_records);
        let row_links: Vec<usize> = (0..n)
            .filter(|&i| !content[i] && is_link(i) && in_filled[i])
            .filter(|&i| {
                let Some(cell) = cell_of[i] else { return false };
                let row = row_of(cell).unwrap_or(cell);
                let beside_kept = self.nodes[cell].stats.mostly_links() && cells_with_words.get(&row).is_some_and(|cells| cells.iter().any(|&c| c != cell));
                beside_kept || table_of[i].is_some_and(of_records)
            })
            .collect();
        let key = |i: usize| (table_of[i], self.nodes[self.leaves[i]].text.to_lowercase());
        let mut times: foldhash::HashMap<(Option<usize>, String), usize> = Default::default();
        for &i in &row_links {
            *times.entry(key(i)).or_default() += 1;
        }
        for i in row_links {
            if times.get(&key(i)).is_some_and(|&t| t < 2) {
                content[i] = true;
            }
        }
    }

    /// Keeps every item of a list most of whose words are kept, or announced by the kept
    /// sentence before it ("Here are some of the courses:"), even with no item kept, or
    /// enclosed in the kept text with some evidence from the trees ([`Self::enclosed_lists`],
    /// given `evidence`): a list is read whole, and a short item ("Salt", "Docker") or a list
    /// of links (course names) looks like boilerplate on its own. A list with an item of more
    /// than `max_item_words` words holds sections (comments, posts), not items.
    pub fn fill_lists(&self, content: &mut [bool], min_kept_share: f64, max_item_words: usize, evidence: Option<ListEvidence>) {
        let n = content.len().min(self.leaves.len());
        // Each leaf's nearest item and that item's list.
        let groups: Vec<Option<(usize, usize)>> = (0..n)
            .map(|i| {
                let leaf = self.leaves[i];
                let item = self.closest(leaf, |n| n.has_tag(&local_name!("li")))?;
                let list = self.closest(item, |n| n.has_tag(&local_name!("ul")) || n.has_tag(&local_name!("ol")))?;
                Some((item, list))
            })
            .collect();
        let item_words = self.words_by_group(&groups.iter().map(|g| g.map(|(item, _)| item)).collect::<Vec<_>>(), content);
        let list_words = self.words_by_group(&groups.iter().map(|g| g.map(|(_, list)| list)).collect::<Vec<_>>(), content);
        let mut sections: foldhash::HashSet<usize> = Default::default();
        // Lists a kept sentence announces: the leaf before the list's first ends with a colon.
        let mut introduced: foldhash::HashSet<usize> = Default::default();
        for (i, group) in groups.iter().enumerate() {
            let Some((item, list)) = *group else { continue };
            if item_words.get(&item).is_some_and(|w| w.all > max_item_words) {
                sections.insert(list);
            }
            let first_of_list = i > 0 && groups[i - 1].is_none_or(|(_, l)| l != list);
            if first_of_list && content[i - 1] {
                let before = &self.nodes[self.leaves[i - 1]];
                if before.text.trim_end().ends_with([':', '：']) && self.kept_line_words(content, i - 1) >= INTRODUCTION_WORDS {
                    introduced.insert(list);
                }
            }
        }
        if let Some(evidence) = evidence {
            introduced.extend(self.enclosed_lists(content, &groups, evidence));
        }
        for (i, group) in groups.iter().enumerate() {
            let Some((_, list)) = *group else { continue };
            let enough = list_words.get(&list).is_some_and(|w| w.reach(min_kept_share)) || introduced.contains(&list);
            if enough && !sections.contains(&list) {
                content[i] = true;
            }
        }
    }

    /// The lists inside the kept text: the kept line before the list is a sentence of
    /// [`INTRODUCTION_WORDS`] or more that ends with a stop or a colon ("Kaggle offers fifteen
    /// free courses."), the first block with words after it is kept too (both outside any
    /// list), and the trees give the list's dropped words, on average, at least
    /// [`ENCLOSED_LIST_EVIDENCE`] of the page's cut: a list of course links between two
    /// paragraphs of the article, not a box of related stories the trees are sure of.
    fn enclosed_lists(&self, content: &[bool], groups: &[Option<(usize, usize)>], evidence: ListEvidence) -> Vec<usize> {
        let n = groups.len();
        let words = |i: usize| self.nodes[self.leaves[i]].stats.words;
        let outside_lists = |i: usize| words(i) > 0 && groups[i].is_none();
        // The nearest block with words outside any list before and after each leaf, found in
        // one pass each way (a page of many lists would otherwise be searched once per list).
        let mut before: Vec<Option<usize>> = vec![None; n];
        let mut after: Vec<Option<usize>> = vec![None; n];
        let mut last_outside = None;
        for (i, nearest) in before.iter_mut().enumerate() {
            *nearest = last_outside;
            if outside_lists(i) {
                last_outside = Some(i);
            }
        }
        let mut next_outside = None;
        for (i, nearest) in after.iter_mut().enumerate().rev() {
            *nearest = next_outside;
            if outside_lists(i) {
                next_outside = Some(i);
            }
        }
        // Each list's first and last leaf, and its dropped words with the gold words the
        // trees expect among them.
        #[derive(Clone, Copy)]
        struct ListSpan {
            first: usize,
            last: usize,
            dropped: f64,
            expected: f64,
        }
        let mut spans: foldhash::HashMap<usize, ListSpan> = Default::default();
        for (i, group) in groups.iter().enumerate() {
            let Some((_, list)) = *group else { continue };
            let span = spans.entry(list).or_insert(ListSpan { first: i, last: i, dropped: 0.0, expected: 0.0 });
            span.last = i;
            if !content[i] {
                let w = words(i) as f64;
                span.dropped += w;
                span.expected += evidence.probabilities.get(i).copied().unwrap_or(0.0) * w;
            }
        }
        let mut enclosed = Vec::new();
        for (list, span) in spans {
            let (Some(before), Some(after)) = (before[span.first], after[span.last]) else { continue };
            if !content[before] || !content[after] {
                continue;
            }
            let closes_sentence = self.nodes[self.leaves[before]].text.trim_end().ends_with(SENTENCE_ENDS);
            if !closes_sentence || self.kept_line_words(content, before) < INTRODUCTION_WORDS {
                continue;
            }
            // The word-weighted mean probability of the list's dropped blocks.
            if span.dropped == 0.0 || span.expected >= ENCLOSED_LIST_EVIDENCE * evidence.cut * span.dropped {
                enclosed.push(list);
            }
        }
        enclosed
    }

    /// The words of the kept line that leaf `last` ends: the kept leaves back to the one that
    /// starts the line (a link inside a sentence is a leaf of its own, so the sentence that
    /// announces a list may end in a leaf of two words: "…, many with free certificates. Here's a
    /// selection:").
    fn kept_line_words(&self, content: &[bool], last: usize) -> usize {
        let mut words = 0;
        for i in (0..=last).rev() {
            let node = &self.nodes[self.leaves[i]];
            if !content[i] {
                break;
            }
            words += node.stats.words;
            if node.break_before {
                break;
            }
        }
        words
    }

    /// Leaves out the blocks that are data for the page's scripts, not text: a JSON object
    /// or array of [`MIN_DATA_BYTES`] or more outside code (Amazon writes a grid's whole
    /// state, 33 KB of it, into a `div` its style sheet hides). A JSON example inside `pre`
    /// or `code` is the page's content and stays.
    pub fn drop_script_data(&self, content: &mut [bool]) {
        for (i, &leaf) in self.leaves.iter().enumerate() {
            if content.get(i).copied().unwrap_or(false) && is_json_data(&self.nodes[leaf].text) && !self.in_code(leaf) {
                content[i] = false;
            }
        }
    }

    /// Leaves out ruby's readings (`rt`: Japanese furigana, Chinese pinyin set above the base
    /// text) and the parentheses a browser hides around them (`rp`): in the running text
    /// they split every annotated word (子こども for 子ども), and a corpus wants the base
    /// text, which is what the page says.
    pub fn drop_ruby_readings(&self, content: &mut [bool]) {
        for (i, &leaf) in self.leaves.iter().enumerate() {
            if content.get(i).copied().unwrap_or(false) && self.nodes[leaf].ruby_reading {
                content[i] = false;
            }
        }
    }

    /// Leaves out a kept line of [`REPEATED_LINE_WORDS`] words or more whose text an earlier
    /// kept line already said: a responsive page's mobile copy of its desktop block, a
    /// carousel's cloned slide, a template the page ships twice. A corpus wants the text
    /// once, and the gold holds it once. Code and table cells stay as they are: a code line
    /// or a cell repeats by meaning (`}`, "Not included"). Lines are the text's
    /// ([`Self::text_of`]): the kept blocks between two breaks.
    pub fn drop_repeated_lines(&self, content: &mut [bool]) {
        let n = content.len().min(self.leaves.len());
        let mut said: foldhash::HashSet<String> = Default::default();
        let mut line: Vec<usize> = Vec::new();
        let mut end_line = |line: &mut Vec<usize>, content: &mut [bool]| {
            let words: usize = line.iter().map(|&i| self.nodes[self.leaves[i]].stats.words).sum();
            // One walk up from each leaf finds code or a table cell.
            let exempt = || line.iter().any(|&i| self.closest(self.leaves[i], |n| is_code(n) || is_table_cell(n)).is_some());
            if words >= REPEATED_LINE_WORDS && !exempt() {
                let text: String = line.iter().flat_map(|&i| [self.nodes[self.leaves[i]].text.as_str(), " "]).collect();
                if !said.insert(text) {
                    for &i in line.iter() {
                        content[i] = false;
                    }
                }
            }
            line.clear();
        };
        let mut previous: Option<usize> = None;
        for i in 0..n {
            if !content[i] {
                continue;
            }
            if previous.is_some_and(|p| self.breaks_between(p, i)) {
                end_line(&mut line, content);
            }
            line.push(i);
            previous = Some(i);
        }
        end_line(&mut line, content);
    }

    /// Whether a node is (inside) `pre` or `code`.
    fn in_code(&self, id: usize) -> bool {
        self.closest(id, is_code).is_some()
    }

    /// The heading element (`h1`–`h6`) a node is or lies in, and its level.
    fn heading_of(&self, id: usize) -> Option<(usize, usize)> {
        std::iter::once(id).chain(self.ancestors(id)).find_map(|a| heading_level_of(&self.nodes[a]).map(|level| (a, level)))
    }

    /// The heading element each leaf lies in and its level, leaf by leaf: what
    /// [`Self::fill_section_headings`] and [`Self::drop_contents_lists`] read.
    pub fn leaf_headings(&self) -> Vec<Option<(usize, usize)>> {
        self.leaves.iter().map(|&leaf| self.heading_of(leaf)).collect()
    }

    /// Keeps a heading the trees dropped between kept text: the last block before it and
    /// the first of its section (up to the next heading of its level or above) are kept, so
    /// it names a section of the content ("Installing", "The revenge of Samus Aran"). A
    /// heading alone on its row looks like a menu entry or a teaser, and the trees drop some.
    /// Headings at the edge of the content (the page's title over the body, "Comments"
    /// under it) stay as the trees decided: news golds leave titles out.
    /// `heads` is [`Self::leaf_headings`].
    pub fn fill_section_headings(&self, heads: &[Option<(usize, usize)>], content: &mut [bool]) {
        let n = content.len().min(self.leaves.len()).min(heads.len());
        // Runs of leaves under one heading element: (first leaf, end, level).
        let mut runs: Vec<(usize, usize, usize)> = Vec::new();
        let mut i = 0;
        while i < n {
            let Some((heading, level)) = heads[i] else {
                i += 1;
                continue;
            };
            let start = i;
            while i < n && heads[i].is_some_and(|(h, _)| h == heading) {
                i += 1;
            }
            runs.push((start, i, level));
        }
        let words = |i: usize| self.nodes[self.leaves[i]].stats.words;
        let decided = content[..n].to_vec();
        for &(start, end, level) in &runs {
            let heading_words: usize = (start..end).map(words).sum();
            if decided[start..end].iter().any(|&kept| kept) || heading_words == 0 || heading_words > SECTION_HEADING_WORDS {
                continue;
            }
            // The section's first block with words, before a heading of this level or above.
            let first_kept = (end..n)
                .find(|&j| match heads[j] {
                    Some((_, l)) => l <= level,
                    None => words(j) > 0,
                })
                .is_some_and(|j| heads[j].is_none() && decided[j]);
            // As the trees decided: filling a heading does not fill the subheading under it
            // (that cost trafi-dev's English pages 0.002 in CV, docs/extraction.md).
            let last_kept = (0..start).rev().find(|&j| words(j) > 0).is_some_and(|j| decided[j]);
            if first_kept && last_kept {
                content[start..end].fill(true);
            }
        }
    }

    /// Leaves out a table of contents whose headings are kept: a list of two items or more,
    /// each the text of a kept heading of the page (less a permalink mark), repeats those
    /// headings' words. Its items stay where a heading they name is not kept.
    /// `heads` is [`Self::leaf_headings`].
    pub fn drop_contents_lists(&self, heads: &[Option<(usize, usize)>], content: &mut [bool]) {
        let n = content.len().min(self.leaves.len()).min(heads.len());
        let heads = &heads[..n];
        let mut heading_text: foldhash::HashMap<usize, (String, bool)> = Default::default();
        for (i, head) in heads.iter().enumerate() {
            if let &Some((h, _)) = head {
                let entry = heading_text.entry(h).or_default();
                entry.0.push(' ');
                entry.0.push_str(&self.nodes[self.leaves[i]].text);
                entry.1 |= content[i];
            }
        }
        let kept: foldhash::HashSet<String> = heading_text.into_values().filter(|(_, kept)| *kept).map(|(text, _)| contents_key(&text)).collect();
        // Where no heading is kept, no list is looked at.
        if kept.is_empty() {
            return;
        }
        let mut items: foldhash::HashMap<usize, (usize, String)> = Default::default();
        let mut of_list: Vec<Option<usize>> = vec![None; n];
        for i in (0..n).filter(|&i| heads[i].is_none()) {
            let leaf = self.leaves[i];
            if let Some(item) = self.closest(leaf, |n| n.has_tag(&local_name!("li")))
                && let Some(list) = self.closest(item, |n| n.has_tag(&local_name!("ul")) || n.has_tag(&local_name!("ol")))
            {
                let entry = items.entry(item).or_insert_with(|| (list, String::new()));
                entry.1.push(' ');
                entry.1.push_str(&self.nodes[leaf].text);
                of_list[i] = Some(list);
            }
        }
        // Per list: its item count, and whether every item names a kept heading (a list
        // with one item that names none, a menu, needs no more keys made).
        let mut lists: foldhash::HashMap<usize, (usize, bool)> = Default::default();
        for (list, text) in items.into_values() {
            let entry = lists.entry(list).or_insert((0, true));
            entry.0 += 1;
            entry.1 = entry.1 && kept.contains(&contents_key(&text));
        }
        for i in 0..n {
            if of_list[i].and_then(|l| lists.get(&l)).is_some_and(|&(count, all)| count >= 2 && all) {
                content[i] = false;
            }
        }
    }

    /// An identifier of each leaf's [`Self::class_path`], in order: equal paths get equal
    /// identifiers (a 64-bit hash, built from the parent's, so no path string is made).
    /// Parents are created after their children, so walking the nodes backwards meets
    /// parents first.
    pub fn leaf_class_path_ids(&self) -> Vec<u64> {
        use std::hash::BuildHasher;
        let state = foldhash::quality::FixedState::with_seed(0);
        // Folded one tag.class at a time: a merged chain and the same tags as separate
        // nodes spell the same path, as in the string.
        let extend = |above: u64, id: usize| {
            let node = &self.nodes[id];
            node.tags.iter().zip(&node.classes).fold(above, |h, (tag, class)| state.hash_one((h, tag, class)))
        };
        let mut ids = vec![0u64; self.nodes.len()];
        for id in (0..self.nodes.len()).rev() {
            let above = match self.nodes[id].parent {
                Some(p) if p > id => ids[p],
                // Not built by `build`; kept exact by folding down from the root.
                Some(_) => {
                    let chain: Vec<usize> = self.ancestors(id).collect();
                    chain.iter().rev().fold(0, |above, &n| extend(above, n))
                }
                None => 0,
            };
            ids[id] = extend(above, id);
        }
        self.leaves.iter().map(|&l| ids[l]).collect()
    }

    /// The "class path" of a leaf: its chain of tag.class names up to the root.
    pub fn class_path(&self, id: usize) -> String {
        let mut parts: Vec<String> = std::iter::once(id)
            .chain(self.ancestors(id))
            .map(|n| {
                let node = &self.nodes[n];
                node.tags.iter().zip(&node.classes).map(|(t, c)| format!("{}.{c}", tag_name(t))).collect::<Vec<_>>().join(">")
            })
            .collect();
        parts.reverse();
        parts.join(">")
    }
}

struct Builder<'d> {
    dom: &'d Dom,
    cdom: Cdom,
    /// Source characters seen so far.
    offset: usize,
    /// A block element opened or closed since the last leaf.
    pending_break: bool,
    /// Whitespace or a non-phrasing element's boundary since the last leaf's text.
    pending_space: bool,
    /// A phrasing element closed since the last leaf's text: one opening now is its
    /// sibling (`<span>2026</span><span>1h 54m</span>`), laid out as a separate item.
    phrasing_closed: bool,
    /// A phrasing element opened after a closed sibling: a space unless the next text
    /// goes on the word before (`<b>6</b><b>.5/</b>10` is "6.5/10").
    sibling_gap: bool,
    /// The last leaf's text ends in a Chinese or Japanese character: such text runs on
    /// across its tags (`<span>蹴</span><span>っ</span>たり`), where no space parts words.
    after_cjk: bool,
    /// `rt` and `rp` elements open around the node.
    in_ruby_reading: usize,
    /// `pre` and `code` elements open around the node: their text is the page's characters
    /// as they are, so touching siblings stay touching (highlighted code is made of them).
    in_code: usize,
    /// Tags dropped with their subtree.
    skip: &'d TagSet,
}

impl Builder<'_> {
    /// Builds the CDOM of a DOM node; None when nothing of it is kept.
    fn node(&mut self, id: NodeId, depth: usize) -> Option<usize> {
        let dom = self.dom;
        match &dom.nodes[id].data {
            NodeData::Text(text) => {
                self.offset += text.len();
                self.leaf(id, text, self.offset - text.len())
            }
            NodeData::Element(element) => {
                let tag = element.tag();
                // Attributes the Web2Text pre-pass drops are not counted, so a page parsed for
                // the renderer (which keeps them) gives the same features.
                let kept = element.attrs.iter().filter(|(n, _)| !FOR_WEB2TEXT.drops(n.as_bytes()));
                let markup = 2 + tag.len() + kept.map(|(n, v)| n.len() + v.len() + 4).sum::<usize>();
                let start = self.offset;
                self.offset += markup;
                let name = &element.name.local;
                // Ruby's reading leaves the spacing of the text around it as it found it: the
                // base text runs on once the reading is left out.
                let reading = matches!(*name, local_name!("rt") | local_name!("rp"));
                let spacing = (self.pending_space, self.phrasing_closed, self.sibling_gap);
                let block = BLOCKS.contains(name);
                let separates = !INLINE.contains(name);
                self.pending_space |= separates;
                self.sibling_gap |= !separates && self.phrasing_closed && self.in_code == 0;
                if self.skip.contains(name) {
                    if block {
                        self.pending_break = true;
                    }
                    return None;
                }
                self.pending_break |= block;
                let code = matches!(*name, local_name!("pre") | local_name!("code"));
                self.in_code += usize::from(code);
                self.in_ruby_reading += usize::from(reading);
                let kept: Vec<usize> = if depth >= MAX_DEPTH {
                    let text = self.subtree_text(id);
                    self.leaf(id, &text, start).into_iter().collect()
                } else {
                    dom.children(id).iter().filter_map(|&c| self.node(c, depth + 1)).collect()
                };
                self.in_code -= usize::from(code);
                self.in_ruby_reading -= usize::from(reading);
                self.offset += tag.len() + 3;
                self.pending_break |= block;
                self.pending_space |= separates;
                self.phrasing_closed |= !separates;
                if reading {
                    (self.pending_space, self.phrasing_closed, self.sibling_gap) = spacing;
                }
                let form = FORMS.contains(name) || self.has_form_control(id);
                match kept.as_slice() {
                    [] => None,
                    &[only] => {
                        // Merge the single-child parent into its child.
                        let node = &mut self.cdom.nodes[only];
                        node.tags.insert(0, name.clone());
                        node.classes.insert(0, element.class().to_string());
                        if tag == "a" {
                            node.stats.link_chars = node.stats.chars;
                        }
                        node.stats.form |= form;
                        node.start = start;
                        node.end = self.offset;
                        Some(only)
                    }
                    _ => {
                        let mut stats = TextStats::default();
                        for &child in &kept {
                            stats.add(&self.cdom.nodes[child].stats);
                        }
                        if tag == "a" {
                            stats.link_chars = stats.chars;
                        }
                        stats.form |= form;
                        let me = self.cdom.nodes.len();
                        for &child in &kept {
                            self.cdom.nodes[child].parent = Some(me);
                        }
                        self.cdom.nodes.push(CNode {
                            tags: vec![name.clone()],
                            classes: vec![element.class().to_string()],
                            parent: None,
                            children: kept,
                            text: String::new(),
                            stats,
                            start,
                            end: self.offset,
                            break_before: false,
                            space_before: false,
                            ruby_reading: false,
                            dom_node: id,
                        });
                        Some(me)
                    }
                }
            }
            NodeData::Document => {
                let kept: Vec<usize> = dom.children(id).iter().filter_map(|&c| self.node(c, depth + 1)).collect();
                kept.first().copied()
            }
            NodeData::Other => None,
        }
    }

    fn leaf(&mut self, dom_node: NodeId, raw: &str, start: usize) -> Option<usize> {
        let text = collapse_whitespace(raw);
        if text.is_empty() {
            self.pending_space |= !raw.is_empty();
            return None;
        }
        let runs_on = text.starts_with(CONTINUES_WORD) || (self.after_cjk && text.starts_with(stands_alone));
        let sibling_gap = std::mem::take(&mut self.sibling_gap) && !runs_on;
        let ruby_reading = self.in_ruby_reading > 0;
        if !ruby_reading {
            self.after_cjk = text.ends_with(stands_alone);
        }
        // A reading is left out of the text, so no gap is counted before it.
        let space_before = (std::mem::take(&mut self.pending_space) || raw.starts_with(is_space) || sibling_gap) && !ruby_reading;
        self.phrasing_closed = false;
        self.pending_space = raw.ends_with(is_space);
        let id = self.cdom.nodes.len();
        self.cdom.nodes.push(CNode {
            tags: vec![TEXT_TAG],
            classes: vec![String::new()],
            parent: None,
            children: Vec::new(),
            stats: TextStats::of(&text),
            text,
            start,
            end: self.offset.max(start + 1),
            break_before: std::mem::take(&mut self.pending_break),
            space_before,
            ruby_reading,
            dom_node,
        });
        Some(id)
    }

    fn subtree_text(&self, id: NodeId) -> String {
        let mut out = String::new();
        for d in self.dom.descendants(id) {
            if let NodeData::Text(t) = &self.dom.nodes[d].data {
                out.push_str(t);
                out.push(' ');
            }
        }
        out
    }

    /// Whether a form control sits directly under this element (deeper ones are
    /// counted when their own parents are built).
    fn has_form_control(&self, id: NodeId) -> bool {
        self.dom.element_children(id).any(|c| self.dom.element(c).is_some_and(|e| FORMS.contains(&e.name.local)))
    }
}

/// Characters that close the word before them rather than start one: no space goes between
/// a phrasing element and a sibling whose text begins with one.
const CONTINUES_WORD: [char; 11] = ['.', ',', ';', ':', '!', '?', ')', ']', '%', '/', '\u{2026}'];

/// Whitespace as the text collapses it: Unicode's, and the non-breaking space.
fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{a0}'
}

/// Collapses runs of whitespace (and non-breaking spaces) to one space and trims. It runs
/// on every text node of every page, so an ASCII byte is told by its value and only the
/// other characters are decoded.
pub fn collapse_whitespace(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::new();
    // Where the word being read started.
    let mut word_start = None;
    let mut at = 0;
    while at < bytes.len() {
        let (space, len) = match bytes[at] {
            b if b.is_ascii() => (matches!(b, b' ' | b'\t'..=b'\r'), 1),
            _ => text[at..].chars().next().map_or((false, 1), |c| (is_space(c), c.len_utf8())),
        };
        match (space, word_start) {
            (true, Some(start)) => {
                if out.is_empty() {
                    // Most text nodes between tags are blank (indentation): they allocate nothing.
                    out.reserve(text.len() - start);
                } else {
                    out.push(' ');
                }
                out.push_str(&text[start..at]);
                word_start = None;
            }
            (false, None) => word_start = Some(at),
            _ => {}
        }
        at += len;
    }
    if let Some(start) = word_start {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&text[start..]);
    }
    out
}

/// The shortest JSON that [`Cdom::drop_script_data`] takes for data: a short `{}` or
/// `["a", "b"]` in prose stays text (a bracketed sentence is no JSON at any length).
const MIN_DATA_BYTES: usize = 64;

/// The fewest words of a kept line that [`Cdom::drop_repeated_lines`] leaves out when it
/// repeats an earlier one: below it are a product card's "Add to cart", a swatch's "Vintage
/// Blue", a spec sheet's "Liquid Capacity:", which the gold keeps on every card. Swept in CV
/// at 2, 5 and 10 (docs/extraction.md).
const REPEATED_LINE_WORDS: usize = 5;

fn is_code(node: &CNode) -> bool {
    node.has_tag(&local_name!("pre")) || node.has_tag(&local_name!("code"))
}

fn is_table_cell(node: &CNode) -> bool {
    node.has_tag(&local_name!("td")) || node.has_tag(&local_name!("th"))
}

/// Whether a block's text is one JSON object or array of [`MIN_DATA_BYTES`] or more.
fn is_json_data(text: &str) -> bool {
    let text = text.trim();
    let bytes = text.as_bytes();
    text.len() >= MIN_DATA_BYTES
        && matches!((bytes.first(), bytes.last()), (Some(b'{'), Some(b'}')) | (Some(b'['), Some(b']')))
        && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// Text that only closes what comes before it: a sentence's full stop, a comma, a closing
/// bracket or quote ("." after a link, ")." after a bracket of links).
fn is_closing_punctuation(text: &str) -> bool {
    let text = text.trim();
    !text.is_empty() && text.chars().count() <= 3 && text.chars().all(|c| ".,;:!?)]}\"'”’»…。、，！？：；）」』".contains(c))
}

/// A heading's or item's text as a table of contents repeats it: lower case, whitespace
/// collapsed, a trailing permalink mark ([`PERMALINK_MARKS`], or `#`) dropped.
fn contents_key(text: &str) -> String {
    collapse_whitespace(text).trim_end_matches(|c| c == '#' || c == ' ' || PERMALINK_MARKS.contains(&c)).to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statistics as two passes over the characters work them out, the one-pass
    /// [`TextStats::of`]'s reference.
    fn two_pass_stats(text: &str) -> TextStats {
        let text = text.trim();
        let mut s = TextStats { chars: text.chars().count(), sentences: 1, ..TextStats::default() };
        let spaced: String = text.chars().flat_map(|c| if stands_alone(c) { vec![' ', c, ' '] } else { vec![c] }).collect();
        for word in spaced.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            s.words += 1;
            s.word_chars += word.chars().count();
            s.capitalised += usize::from(word.chars().next().is_some_and(char::is_uppercase));
            s.stopwords += usize::from(is_stopword(word));
            s.year |= word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit());
        }
        let mut after_stop = 0u8;
        for c in text.chars() {
            s.punctuation += usize::from(PUNCTUATION.contains(&c));
            s.numeric += usize::from(c.is_numeric());
            if c.is_whitespace() {
                after_stop = match after_stop {
                    1 | 2 => 2,
                    3 => 3,
                    _ => 0,
                };
            } else {
                let caseless = c.is_alphabetic() && !c.is_uppercase() && !c.is_lowercase();
                s.sentences += usize::from((after_stop == 2 && (c.is_uppercase() || caseless)) || after_stop == 3);
                after_stop = if STOPS.contains(&c) {
                    1
                } else if CJK_STOPS.contains(&c) {
                    3
                } else {
                    0
                };
            }
        }
        let last = text.chars().last();
        s.ends_with_punctuation = last.is_some_and(|c| PUNCTUATION.contains(&c));
        s.ends_with_question = last == Some('?') || last == Some('？');
        s.copyright = text.contains('©');
        s.email = has_email(text);
        s.url = ["http://", "https://", "ftp://", "www."].iter().any(|p| text.contains(p));
        s
    }

    #[test]
    fn the_ascii_table_answers_as_the_char_methods_do() {
        for b in 0..128u8 {
            assert_eq!(ASCII_KINDS[usize::from(b)], CharKind::general(char::from(b)), "{b:#04x}");
        }
    }

    proptest::proptest! {
        /// One pass gives what two give, on text mixing ASCII of every kind with capitals,
        /// digits and spaces beyond ASCII, stopwords and years.
        #[test]
        fn one_pass_stats_are_the_two_pass_stats(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "Z", "q", "0", "7", "_", ".", ",", "?", "!", ";", ":", "©", "@", " ", "\t", "\n", "\x0b", "\u{a0}",
                "É", "é", "ß", "Ⅻ", "٣", "²", "中", "カ", "の", "・", "。", "？", "、", "ب", "؟", "।", "😀", "\u{301}", "the", "The", "2024", "www.", "x@y.org", "Über", "http", "s", "ftp", "://", "ww",
            ]), 0..30)
        ) {
            let text: String = pieces.concat();
            proptest::prop_assert_eq!(TextStats::of(&text), two_pass_stats(&text), "{:?}", text);
        }

        /// The byte-wise word split gives the words a search by character gives.
        #[test]
        fn words_are_those_a_search_by_character_finds(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "Z", "0", "_", ".", " ", "-", "é", "ß", "Ü", "Ⅻ", "٣", "²", "中", "カ", "の", "・", "。", "한", "ب", "😀", "\u{301}", "\u{a0}", "Über", "und",
            ]), 0..30)
        ) {
            let text: String = pieces.concat();
            let mut expected = Vec::new();
            let mut rest = text.as_str();
            while let Some(start) = rest.find(char::is_alphanumeric) {
                let tail = &rest[start..];
                let first = tail.chars().next().unwrap_or_default();
                let len = if stands_alone(first) { first.len_utf8() } else { tail.find(|c: char| !c.is_alphanumeric() || stands_alone(c)).unwrap_or(tail.len()) };
                expected.push(&tail[..len]);
                rest = &tail[len..];
            }
            proptest::prop_assert_eq!(words(&text).collect::<Vec<_>>(), expected, "{:?}", text);
        }

        /// The byte-wise collapse gives what splitting at every whitespace character gives,
        /// on text mixing ASCII blanks (and controls that are none) with Unicode's spaces.
        #[test]
        fn whitespace_collapses_as_split_words_join(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "Z", "0", ".", " ", "  ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\0", "\u{85}", "\u{a0}", "\u{1680}",
                "\u{2000}", "\u{200a}", "\u{200b}", "\u{2028}", "\u{202f}", "\u{205f}", "\u{3000}", "\u{feff}", "é", "中", "😀", "word",
            ]), 0..30)
        ) {
            let text: String = pieces.concat();
            let split: Vec<&str> = text.split(is_space).filter(|w| !w.is_empty()).collect();
            proptest::prop_assert_eq!(collapse_whitespace(&text), split.join(" "), "{:?}", text);
        }
    }

    #[test]
    fn stopwords_are_found_in_any_case() {
        assert!(STOPWORDS.iter().all(|w| w.len() <= LONGEST_STOPWORD), "is_stopword skips longer words");
        assert!(STOPWORDS.iter().all(|w| w.is_ascii()), "is_stopword looks words up by their ASCII key");
        assert!(STOPWORDS.iter().all(|w| w.starts_with(|c: char| c.is_ascii_lowercase())), "is_stopword sorts them by their first letter");
        for word in STOPWORDS.iter().copied().chain(["The", "THE", "yourselves", "Ourselves", "A"]) {
            assert!(is_stopword(word), "{word}");
        }
        for word in ["cat", "thee", "th", "", "a\0", "yourselvesx", "Ünder", "théir", "aboutaboutabout", "0f", "_the", "Zoo"] {
            assert!(!is_stopword(word), "{word}");
        }
    }

    #[test]
    fn a_word_is_in_a_language_list_as_its_lower_case_is() {
        let german = crate::page::language::stopwords("de").expect("a German list");
        let (long, long_capitals) = ("x".repeat(40), "A".repeat(33));
        let words = ["und", "Und", "UND", "über", "Über", "ÜBER", "Haus", "der", "DeR", "\u{212A}ein", "İch", "ΣΟΦΙΑ", &long, &long_capitals];
        for word in words.into_iter().chain(german.iter().copied()) {
            assert_eq!(in_word_list(word, german), german.contains(word.to_lowercase().as_str()), "{word}");
        }
        assert!(in_word_list("UND", german) && in_word_list("Über", german) && !in_word_list("Haus", german));
    }

    #[test]
    fn leaves_share_a_path_id_exactly_when_they_share_the_class_path() {
        let c = cdom(
            "<body><div class=a><p class=x>one <b>two</b></p><ul><li>three</li><li class=y>four <i>five</i></li><li>six</li></ul></div>\
             <p>seven</p><div class=a><p class=x>eight <b>nine</b></p></div><div class=a><p class=x><b>ten</b></p><p>eleven</p></div></body>",
        );
        let walked: Vec<String> = c.leaves.iter().map(|&l| c.class_path(l)).collect();
        let ids = c.leaf_class_path_ids();
        assert_eq!(ids.len(), walked.len());
        let mut shared = 0;
        for i in 0..ids.len() {
            for j in 0..ids.len() {
                assert_eq!(ids[i] == ids[j], walked[i] == walked[j], "{} / {}", walked[i], walked[j]);
                shared += usize::from(i != j && ids[i] == ids[j]);
            }
        }
        assert!(shared > 0, "the page repeats a path: {walked:?}");
    }

    fn cdom(html: &str) -> Cdom {
        Cdom::build(&Dom::parse_with(html, crate::dom::DomLimits { max_elements: usize::MAX, deadline: None }, &crate::dom::FOR_WEB2TEXT).expect("no limits"))
    }

    #[test]
    fn chinese_characters_are_words_and_full_stops_end_sentences() {
        let s = TextStats::of("委员会星期二开会。决定增加开放时间。");
        assert_eq!((s.words, s.word_chars, s.sentences, s.punctuation), (16, 16, 2, 2));
        assert!(s.ends_with_punctuation);
        assert_eq!(words("東京の天気 is fine。").collect::<Vec<_>>(), ["東", "京", "の", "天", "気", "is", "fine"]);
        // Scripts without case start sentences with any letter.
        assert_eq!(TextStats::of("اجتمعت اللجنة. ناقشت الميزانية؟ وافقت").sentences, 3);
        assert_eq!(TextStats::of("समिति मिली। बजट पर चर्चा हुई।").sentences, 2);
        assert_eq!(TextStats::of("it met. then it left.").sentences, 1);
    }

    #[test]
    fn a_formula_is_its_rendered_text_not_its_source() {
        // MediaWiki and KaTeX put the TeX in an `annotation`, which no browser shows.
        let html = "<body><p>If the transpose of <math><semantics><mi>A</mi>\
                    <annotation encoding=\"application/x-tex\">{\\displaystyle A}</annotation>\
                    <annotation-xml encoding=\"MathML-Content\"><ci>A</ci></annotation-xml></semantics></math> is taken</p></body>";
        let page = cdom(html);
        let text: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(text.join(" ").split_whitespace().collect::<Vec<_>>(), ["If", "the", "transpose", "of", "A", "is", "taken"]);
    }

    #[test]
    fn ruby_text_is_its_base_text_without_the_readings() {
        // Furigana as NHK's easy Japanese news writes it, and pinyin with fallback parentheses.
        let html = "<body><p><ruby>子<rt>こ</rt></ruby>どもへの<a href=x><ruby><span>虐待</span><rp>(</rp><rt>ぎゃくたい</rt><rp>)</rp></ruby></a>をなくす</p>\
                    <p>我<ruby>爱<rt>ài</rt></ruby>你</p><p>たたいたり<a><ruby><span>蹴</span><rt>け</rt></ruby><span>っ</span></a>たり</p></body>";
        let page = cdom(html);
        let mut content = vec![true; page.leaves.len()];
        page.drop_ruby_readings(&mut content);
        assert_eq!(page.text_of(&content), "子どもへの虐待をなくす\n我爱你\nたたいたり蹴ったり");
        assert_eq!(content.iter().filter(|&&c| !c).count(), 6, "four readings and two parentheses, blocks of their own");
    }

    #[test]
    fn side_by_side_items_are_spaced_apart_but_not_inside_chinese_or_japanese_text() {
        let page = cdom("<body><p><span>2026</span><span>1h 54m</span></p><p><span>東京</span><span>都</span>に<b>住む</b></p></body>");
        assert_eq!(page.text_of(&vec![true; page.leaves.len()]), "2026 1h 54m\n東京都に住む");
    }

    #[test]
    fn the_combiner_reads_noscript_and_skips_the_rest_alike() {
        let html = "<body><p>Shown to everyone here.</p><noscript><p>Thread text for crawlers.</p></noscript><script>var x;</script>\
                    <p>If <math><semantics><mi>A</mi><annotation>{A}</annotation></semantics></math> holds</p></body>";
        let dom = Dom::parse_with(html, crate::dom::DomLimits { max_elements: usize::MAX, deadline: None }, &crate::dom::FOR_WEB2TEXT).expect("no limits");
        let words = |skipped: &TagList| {
            let page = Cdom::build_skipping(&dom, skipped);
            page.leaves.iter().map(|&l| page.nodes[l].text.clone()).collect::<Vec<_>>().join(" ").split_whitespace().map(str::to_string).collect::<Vec<_>>()
        };
        assert_eq!(words(&SKIPPED), ["Shown", "to", "everyone", "here.", "If", "A", "holds"]);
        assert_eq!(words(&SKIPPED_BUT_NOSCRIPT), ["Shown", "to", "everyone", "here.", "Thread", "text", "for", "crawlers.", "If", "A", "holds"]);
    }

    #[test]
    fn a_page_in_another_language_counts_the_stopwords_of_that_language() {
        let french =
            "<body><p>Le comité de la ville s'est réuni mardi pour discuter du nouveau budget des bibliothèques et des parcs.</p><p>Accueil</p></body>";
        let page = cdom(french);
        assert_eq!(page.language().as_deref(), Some("fr"));
        let paragraph = &page.nodes[page.leaves[0]].stats;
        // le, de, la, s, est, pour, du, des, et, des: all French stopwords, none English.
        assert!(paragraph.stopwords >= 8, "{paragraph:?}");
        assert_eq!(TextStats::of(&page.nodes[page.leaves[0]].text).stopwords, 0, "English list");
        let root = page.root.expect("a root");
        assert_eq!(page.nodes[root].stats.stopwords, page.leaves.iter().map(|&l| page.nodes[l].stats.stopwords).sum::<usize>());
        // An English page keeps Web2Text's list.
        let english = cdom("<body><p>The committee of the city met on Tuesday to discuss the new budget for its libraries and parks.</p></body>");
        assert_eq!(english.nodes[english.leaves[0]].stats, TextStats::of(&english.nodes[english.leaves[0]].text));
    }

    #[test]
    fn the_text_has_the_pages_language_when_its_longest_blocks_are_kept() {
        // A paragraph over the detector's kilobyte: the page's sample is that block alone.
        let french = "Le comité de la ville s'est réuni mardi pour discuter du nouveau budget des bibliothèques et des parcs. ".repeat(12);
        let page = cdom(&format!("<body><p>{french}</p><p>Read in English</p><p>Accueil</p></body>"));
        assert_eq!(page.language_of(&[true, false, false]).map(|(code, _)| code).as_deref(), Some("fr"));
        assert_eq!(page.language_of(&[true, true, true]).map(|(code, _)| code).as_deref(), Some("fr"));
        // The sampled block left out: the text's language is read from the text.
        assert_eq!(page.language_of(&[false, true, true]), None);
        // So it is where a sampled block is code, which the detector misreads.
        let sentence = "Le comité de la ville s'est réuni mardi pour discuter du nouveau budget des bibliothèques.";
        let code = cdom(&format!("<body><pre>function budget(city) {{ return city.parks.map(p => p.cost); }}</pre><p>{sentence}</p></body>"));
        assert_eq!(code.language().as_deref(), Some("fr"));
        assert_eq!(code.language_of(&[true, true]), None);
    }

    /// The paper's Figure 2, extended: single-child chains merge (div > ul > li > a
    /// collapses into one leaf chain), empty and content-less nodes go.
    #[test]
    fn single_child_chains_merge() {
        let page = cdom(
            "<body><div><ul><li><a href='/a'>Home</a></li><li><span><b>News</b></span></li></ul></div>\
             <p>  </p><img src=x><div><p>First paragraph of the story.</p><p>Second <i>one</i>.</p></div>\
             <script>var x = 1;</script></body>",
        );
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(texts, ["Home", "News", "First paragraph of the story.", "Second", "one", "."]);
        let tags = |i: usize| page.nodes[page.leaves[i]].tag_path();
        assert_eq!(tags(0), "li>a>#text");
        assert_eq!(tags(1), "li>span>b>#text");
        assert_eq!(tags(2), "p>#text");
        assert_eq!(tags(4), "i>#text");
        // The two list items share the <ul>, merged with its single-child <div>.
        let parent = |i: usize| page.nodes[page.leaves[i]].parent.map(|p| page.nodes[p].tag_path());
        assert_eq!(parent(0).as_deref(), Some("div>ul"));
        assert_eq!(parent(0), parent(1));
        assert_eq!(parent(3).as_deref(), Some("p"));
        // body has two kept children (the ul and the story's div): it is the root.
        let root = page.root.unwrap();
        assert_eq!(page.nodes[root].tag_path(), "body");
        assert_eq!(page.nodes[root].children.len(), 2);
        // Line breaks: between list items and paragraphs, not inside a paragraph.
        let breaks: Vec<bool> = page.leaves.iter().map(|&l| page.nodes[l].break_before).collect();
        assert_eq!(breaks, [true, true, true, true, false, false]);
        // Link characters: "Home" sits in an <a>; the root sums them.
        assert_eq!(page.nodes[page.leaves[0]].stats.link_chars, 4);
        assert_eq!(page.nodes[root].stats.link_chars, 4);
        // Tree distances: siblings are 2 apart; "First ..." and "Second" 3 (up to the div).
        assert_eq!(page.common_ancestor(page.leaves[0], page.leaves[1]).map(|x| x.1), Some(2));
        assert_eq!(page.common_ancestor(page.leaves[2], page.leaves[3]).map(|x| x.1), Some(3));
    }

    /// Phrasing markup inside a word or a CJK sentence adds no space; whitespace, a
    /// non-phrasing element or a dropped block between two kept blocks does.
    #[test]
    fn text_keeps_words_that_markup_splits() {
        let page = cdom(
            "<body><p>un<em>believ</em>able, <a href=x>link</a>s and <b>Note</b>: fine.</p>\
             <p><span>一波波<span>接續性</span>低溫</span></p>\
             <table><tr><td>cell</td><td>next</td></tr></table>\
             <p>keep<span>this</span> <i>and</i>\n<u>this</u></p></body>",
        );
        let all = vec![true; page.leaves.len()];
        assert_eq!(page.text_of(&all), "unbelievable, links and Note: fine.\n一波波接續性低溫\ncell\nnext\nkeepthis and this");
        // A block left out between two kept ones separates them.
        let mut some = all.clone();
        let believ = page.leaves.iter().position(|&l| page.nodes[l].text == "believ").expect("a block of its own");
        some[believ] = false;
        assert!(page.text_of(&some).starts_with("un able, links"), "{}", page.text_of(&some));
        // Text touching a span is one word; a non-phrasing element that is not a block
        // (here an <object>'s fallback text), and two phrasing elements side by side,
        // separate.
        let page = cdom("<body><div>x<span>y</span><object>obj</object><span>z</span><span>2026</span><b><i>1h</i></b></div></body>");
        assert_eq!(page.text_of(&vec![true; page.leaves.len()]), "xy obj z 2026 1h");
        // A sibling whose text closes the word before goes on it: a rating split over two
        // spans, a sentence's full stop after a link.
        let page = cdom("<body><p>rated <strong>6</strong><strong>.5/</strong>10, by <a href=x>them</a><span>.</span> <b>Yes</b><i>!</i></p></body>");
        assert_eq!(page.text_of(&vec![true; page.leaves.len()]), "rated 6.5/10, by them. Yes!");
        // In code, touching siblings are the page's characters as they are: highlighted code
        // is made of them. The same spans outside code are separate items.
        let page = cdom(
            "<body><pre><code><span>curl</span> -u <span>\"</span><span>sk_test</span><span>abc</span><span>:</span></code></pre>             <p>use <code><span>foo</span><span>(</span><span>x</span><span>)</span></code> or <span>sk_test</span><span>abc</span></p></body>",
        );
        assert_eq!(page.text_of(&vec![true; page.leaves.len()]), "curl -u \"sk_testabc:\nuse foo(x) or sk_test abc");
    }

    #[test]
    fn a_gap_inside_a_kept_line_is_filled_and_a_gap_across_lines_is_not() {
        let page = cdom("<body><p>Read by <a href=/a>Class Central</a> and <b>others</b> daily.</p><p>Menu</p><p>Second line.</p></body>");
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(texts, ["Read by", "Class Central", "and", "others", "daily.", "Menu", "Second line."]);
        let mut content = vec![true, false, false, false, true, false, true];
        page.fill_line_gaps(&mut content);
        assert_eq!(content, [true, true, true, true, true, false, true]);
        // The line's end is not a gap: a dropped tail stays dropped.
        let mut content = vec![true, true, false, false, false, false, false];
        page.fill_line_gaps(&mut content);
        assert_eq!(content, [true, true, false, false, false, false, false]);
    }

    #[test]
    fn a_code_block_with_kept_words_is_kept_whole() {
        let page = cdom(
            "<body><p>Run it:</p><pre><span>SELECT</span> <span>avg</span>(n)\n<span>FROM</span> series;</pre><p>Menu</p>\
             <pre><span>other</span> <span>block</span></pre></body>",
        );
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(texts, ["Run it:", "SELECT", "avg", "(n)", "FROM", "series;", "Menu", "other", "block"]);
        // The trees kept the second line of the first block: the whole block, its
        // punctuation included, is kept; the other block, with nothing kept, stays out.
        let mut content = vec![true, false, false, false, true, true, false, false, false];
        page.fill_code_blocks(&mut content, 0.05);
        assert_eq!(content, [true, true, true, true, true, true, false, false, false]);
        // Under the share kept, nothing is added.
        let mut content = vec![true, false, false, false, false, true, false, false, false];
        page.fill_code_blocks(&mut content, 0.5);
        assert_eq!(content, [true, false, false, false, false, true, false, false, false]);
    }

    #[test]
    fn the_full_stop_after_a_kept_link_is_kept_but_not_a_separator_or_the_next_line() {
        let page = cdom("<body><p>Replaced by <a href=/a>paid ones</a>.</p><p>.</p><p><a href=/h>Home</a> | <a href=/n>News</a></p></body>");
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(texts, ["Replaced by", "paid ones", ".", ".", "Home", "|", "News"]);
        let mut content = vec![true, true, false, false, true, false, false];
        page.fill_line_gaps(&mut content);
        assert_eq!(content, [true, true, true, false, true, false, false]);
        assert_eq!(page.text_of(&content), "Replaced by paid ones.\nHome");
        // Not after a dropped block.
        let mut content = vec![true, false, false, false, false, false, false];
        page.fill_line_gaps(&mut content);
        assert_eq!(content, [true, false, false, false, false, false, false]);
    }

    #[test]
    fn a_data_table_mostly_kept_is_kept_whole_with_the_links_of_its_rows_but_not_a_layout_table() {
        let page = cdom(
            "<body><table><tr><td>Model name and its long description</td><td>Price</td></tr>\
             <tr><td>The first model of the series, for daily use</td><td>12</td></tr>\
             <tr><td><a href=/m>Second model</a></td><td>Yes</td></tr>\
             <tr><td>Third model, with a name that is no link</td><td><a href=/b>Buy</a></td></tr>\
             <tr><td>Fourth model, with a name that is no link</td><td><a href=/b>Buy</a></td></tr>\
             <tr><td><a href=/p>Previous</a></td><td>|</td><td><a href=/n>Next</a></td></tr></table><p>After the table.</p></body>",
        );
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Model name and its long description",
                "Price",
                "The first model of the series, for daily use",
                "12",
                "Second model",
                "Yes",
                "Third model, with a name that is no link",
                "Buy",
                "Fourth model, with a name that is no link",
                "Buy",
                "Previous",
                "|",
                "Next",
                "After the table."
            ]
        );
        let mut content = vec![true, false, true, false, false, false, true, false, false, false, false, false, false, false];
        page.fill_data_tables(&mut content, 0.5, 50);
        // Every cell that is no link; the link of a row with kept words, unless the table
        // repeats it (an action); not a row of links and separators (a menu).
        assert_eq!(content, [true, true, true, true, true, true, true, false, true, false, false, true, false, false]);
        // Under the share kept, nothing is added.
        let mut content = vec![false, true, false, false, false, false, false, false, false, false, false, false, false, true];
        page.fill_data_tables(&mut content, 0.5, 50);
        assert_eq!(content, [false, true, false, false, false, false, false, false, false, false, false, false, false, true]);
        // A cell over the word limit makes it a layout table.
        let mut content = vec![true, false, true, false, false, false, false, false, false, false, false, false, false, false];
        page.fill_data_tables(&mut content, 0.5, 5);
        assert_eq!(content, [true, false, true, false, false, false, false, false, false, false, false, false, false, false]);
        // A table holding a table lays out the page.
        let page = cdom(
            "<body><table><tr><td>Kept words of the outer cell</td><td>Menu</td></tr><tr><td><table><tr><td>a</td><td>b</td></tr></table></td></tr></table></body>",
        );
        let mut content = vec![true, false, false, false];
        page.fill_data_tables(&mut content, 0.5, 50);
        assert_eq!(content, [true, false, false, false]);
    }

    #[test]
    fn the_links_of_a_table_of_records_are_its_values_but_not_those_of_a_navigation_box() {
        // An infobox: header cells label values, some of them links; a link the table
        // repeats is still an action.
        let page = cdom(
            "<body><table><tr><th>Capital</th><td><a href=/w>Wellington</a> 41 S 174 E</td></tr>\
             <tr><th>Governor-General</th><td><a href=/p>Patsy Reddy</a></td></tr>\
             <tr><th>Population in the census of the year</th><td>4,699,755 people counted</td></tr>\
             <tr><th><a href=/e>Edit</a></th><td><a href=/e2>Edit</a></td></tr></table>\
             <table><tr><th><a href=/r>Regions</a></th><td><a href=/n>Northland</a> <a href=/a>Auckland</a></td></tr>\
             <tr><th><a href=/c>Cities</a></th><td><a href=/h>Hamilton</a> <a href=/t>Tauranga</a></td></tr>\
             <tr><td colspan=2>More</td></tr></table></body>",
        );
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Capital",
                "Wellington",
                "41 S 174 E",
                "Governor-General",
                "Patsy Reddy",
                "Population in the census of the year",
                "4,699,755 people counted",
                "Edit",
                "Edit",
                "Regions",
                "Northland",
                "Auckland",
                "Cities",
                "Hamilton",
                "Tauranga",
                "More"
            ]
        );
        // The navigation box below it (links 80% of its characters) keeps its links out.
        let mut content = vec![true, false, false, false, false, true, true, false, false, false, false, false, false, false, false, true];
        page.fill_data_tables(&mut content, 0.1, 50);
        assert_eq!(content, [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, true]);
        // Without header cells the same table is not one of records: its rows of links
        // only stay out.
        let page = cdom(
            "<body><table><tr><td>Capital</td><td><a href=/w>Wellington</a></td></tr>\
             <tr><td>&bull;</td><td><a href=/p>Patsy Reddy</a></td></tr>\
             <tr><td>Population in the census of the year</td><td>4,699,755 people counted</td></tr></table></body>",
        );
        let mut content = vec![true, false, false, false, true, true];
        page.fill_data_tables(&mut content, 0.1, 50);
        assert_eq!(content, [true, true, true, false, true, true]);
    }

    #[test]
    fn links_beside_kept_words_in_one_cell_stay_out() {
        // A footer laid out in a table: its links share the cell of its notice.
        let page = cdom(
            "<body><table><tr><td><a href=/a>About</a> | <a href=/c>Contact</a><br>\
             This site is run by the office of public affairs for everyone</td></tr></table></body>",
        );
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(texts, ["About", "|", "Contact", "This site is run by the office of public affairs for everyone"]);
        let mut content = vec![false, false, false, true];
        page.fill_data_tables(&mut content, 0.5, 50);
        assert_eq!(content, [false, true, false, true]);
    }

    #[test]
    fn a_contents_list_of_kept_headings_is_left_out() {
        let page = cdom(
            "<body><ul><li><a href=#a>Getting started</a></li><li><a href=#b>Usage</a></li></ul>\
             <h2 id=a>Getting started ¶</h2><p>Install it first.</p><h2 id=b>Usage</h2><p>Run it.</p>\
             <ul><li>Getting started</li><li>Something else</li></ul></body>",
        );
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(texts, ["Getting started", "Usage", "Getting started ¶", "Install it first.", "Usage", "Run it.", "Getting started", "Something else"]);
        let mut content = vec![true; 8];
        page.drop_contents_lists(&page.leaf_headings(), &mut content);
        // The contents list goes; a list naming one heading among other items stays.
        assert_eq!(content, [false, false, true, true, true, true, true, true]);
        // Where a heading it names is not kept, the list is the only copy of its words.
        let mut content = vec![true, true, true, true, false, true, true, true];
        page.drop_contents_lists(&page.leaf_headings(), &mut content);
        assert_eq!(content, [true, true, true, true, false, true, true, true]);
    }

    #[test]
    fn a_heading_dropped_between_kept_text_is_kept_but_not_one_at_its_edge() {
        let page = cdom(
            "<body><h1>The history of neon signs</h1><p>Neon came to Paris in 1910.</p>\
             <h2>Into the cities</h2><h3>Las Vegas</h3><p>The Strip lit up in the fifties.</p>\
             <h2>Related stories</h2><ul><li><a href=/a>Ten signs of the times</a></li></ul></body>",
        );
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "The history of neon signs",
                "Neon came to Paris in 1910.",
                "Into the cities",
                "Las Vegas",
                "The Strip lit up in the fifties.",
                "Related stories",
                "Ten signs of the times"
            ]
        );
        // The trees kept the paragraphs only: the h2 between them comes back (its section
        // reaches past its h3 to the paragraph), not the h3 under it, whose block before is
        // that dropped h2; the title before the first kept block and the heading over the
        // dropped links stay out.
        let mut content = vec![false, true, false, false, true, false, false];
        page.fill_section_headings(&page.leaf_headings(), &mut content);
        assert_eq!(content, [false, true, true, false, true, false, false]);
        // With the h2 kept, the h3 comes back too.
        let mut content = vec![false, true, true, false, true, false, false];
        page.fill_section_headings(&page.leaf_headings(), &mut content);
        assert_eq!(content, [false, true, true, true, true, false, false]);
        // A section whose first block is dropped keeps its heading out.
        let mut content = vec![false, true, false, false, false, false, true];
        page.fill_section_headings(&page.leaf_headings(), &mut content);
        assert_eq!(content, [false, true, false, false, false, false, true]);
    }

    #[test]
    fn the_scripts_json_is_left_out_but_not_a_json_example_or_a_bracketed_sentence() {
        let state = r#"{"painterId":"AsinGridWidget","asins":["B0CXGXT6W8","B0CYNFWD2R"],"offset":0,"limit":20}"#;
        let example = r#"{ "bindings": [ { "authLevel": "function", "type": "httpTrigger" } ] }"#;
        let page = cdom(&format!(
            "<body><div class=hidden>{state}</div><p>[Update: the grid now loads twenty headphones a page, as it did before.]</p>\
             <pre>{example}</pre><p>The binding file above is {{ what the host reads }}.</p></body>"
        ));
        assert_eq!(page.leaves.len(), 4);
        let mut content = vec![true; 4];
        page.drop_script_data(&mut content);
        assert_eq!(content, [false, true, true, true]);
    }

    #[test]
    fn a_list_mostly_kept_is_kept_whole_but_not_a_list_of_sections() {
        let page = cdom(
            "<body><p>What you need:</p><ul><li>Two cups of flour, sifted twice</li><li>Salt</li>\
             <li><a href=/y>Yeast</a></li><li>Water<ul><li>Warm</li><li>Cold</li></ul></li></ul><p>After the list.</p></body>",
        );
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(texts, ["What you need:", "Two cups of flour, sifted twice", "Salt", "Yeast", "Water", "Warm", "Cold", "After the list."]);
        // The outer list's items, links too; the nested list is a list of its own (none kept).
        let mut content = vec![true, true, false, false, false, false, false, true];
        page.fill_lists(&mut content, 0.5, 50, None);
        assert_eq!(content, [true, true, true, true, true, false, false, true]);
        // A nested list mostly kept is filled alone.
        let mut content = vec![false, false, false, false, false, true, false, false];
        page.fill_lists(&mut content, 0.5, 50, None);
        assert_eq!(content, [false, false, false, false, false, true, true, false]);
        // Under the share kept, nothing is added; nor to a list with an item over the limit.
        let mut content = vec![false, false, true, false, false, false, false, false];
        page.fill_lists(&mut content, 0.5, 50, None);
        assert_eq!(content, [false, false, true, false, false, false, false, false]);
        let mut content = vec![true, true, false, false, false, false, false, true];
        page.fill_lists(&mut content, 0.5, 4, None);
        assert_eq!(content, [true, true, false, false, false, false, false, true]);
    }

    #[test]
    fn a_list_announced_by_a_kept_sentence_is_kept_whole() {
        let page = cdom(
            "<body><p>Here are some of the courses we found:</p><ul><li><a href=/a>Machine learning for everyone</a></li>\
             <li><a href=/b>Statistics</a></li><li><a href=/c>Databases</a></li><li><a href=/d>Linear algebra</a></li></ul>\
             <p>Tags:</p><ul><li>Data</li><li>Online courses</li><li>Free learning</li></ul></body>",
        );
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(texts.len(), 9, "{texts:?}");
        // One item of four kept (an eighth of the words): the sentence's colon announces the list.
        let mut content = vec![true, false, true, false, false, true, true, false, false];
        page.fill_lists(&mut content, 0.5, 50, None);
        assert_eq!(content, [true, true, true, true, true, true, true, false, false], "a label ('Tags:') announces nothing");
        // Without the sentence kept, nothing is added.
        let mut content = vec![false, false, true, false, false, false, false, false, false];
        page.fill_lists(&mut content, 0.5, 50, None);
        assert_eq!(content, [false, false, true, false, false, false, false, false, false]);
        // With it kept, the list is read whole even where the trees kept none of its links.
        let mut content = vec![true, false, false, false, false, false, false, false, false];
        page.fill_lists(&mut content, 0.5, 50, None);
        assert_eq!(content, [true, true, true, true, true, false, false, false, false]);
        // Not a list of sections (an item over the word limit: comments, posts).
        let mut content = vec![true, false, false, false, false, false, false, false, false];
        page.fill_lists(&mut content, 0.5, 3, None);
        assert_eq!(content, [true, false, false, false, false, false, false, false, false]);
    }

    #[test]
    fn a_list_inside_the_kept_text_is_kept_whole_when_the_trees_half_agree() {
        let page = cdom(
            "<body><p>Kaggle offers fifteen free courses on data science.</p><ul><li><a href=/a>Python</a></li>\
             <li><a href=/b>Intro to SQL</a></li></ul><p>Each course takes a few hours to finish.</p>\
             <h2>Home</h2><ul><li><a href=/n>News</a></li></ul><p>Every page ends with this notice.</p></body>",
        );
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Kaggle offers fifteen free courses on data science.",
                "Python",
                "Intro to SQL",
                "Each course takes a few hours to finish.",
                "Home",
                "News",
                "Every page ends with this notice."
            ]
        );
        let kept = [true, false, false, true, false, false, true];
        let fill = |probabilities: &[f64], cut: f64, kept: &[bool]| {
            let mut content = kept.to_vec();
            page.fill_lists(&mut content, 0.5, 50, Some(ListEvidence { probabilities, cut }));
            content
        };
        // The trees give the course links 0.3 where the page's cut is 0.5: more than half of it.
        let doubted = [0.9, 0.3, 0.3, 0.9, 0.1, 0.3, 0.9];
        assert_eq!(fill(&doubted, 0.5, &kept), [true, true, true, true, false, false, true], "a heading is no sentence before the menu");
        // A box the trees are sure of is not content (0.2 under half the cut), nor a list
        // without evidence, nor one after which the text is dropped.
        assert_eq!(fill(&[0.9, 0.2, 0.2, 0.9, 0.1, 0.3, 0.9], 0.5, &kept), kept);
        let mut content = kept.to_vec();
        page.fill_lists(&mut content, 0.5, 50, None);
        assert_eq!(content, kept);
        let dropped_after = [true, false, false, false, false, false, true];
        assert_eq!(fill(&doubted, 0.5, &dropped_after), dropped_after);
    }

    #[test]
    fn a_sentence_split_by_its_link_still_announces_the_list() {
        let page = cdom(
            "<body><p>The academy offers ninety courses, <a href=/all>many with certificates</a>. Here is a selection:</p>\
             <ul><li><a href=/a>Marketing</a></li><li><a href=/b>Search</a></li></ul></body>",
        );
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        assert_eq!(texts.len(), 5, "{texts:?}");
        assert!(texts[2].ends_with("selection:") && page.nodes[page.leaves[2]].stats.words < INTRODUCTION_WORDS, "{texts:?}");
        // The line's words count, from the leaf that starts it.
        let mut content = vec![true, true, true, false, false];
        page.fill_lists(&mut content, 0.5, 50, None);
        assert_eq!(content, [true, true, true, true, true]);
        // Alone, the leaf that closes the sentence is a label's length.
        let mut content = vec![false, false, true, false, false];
        page.fill_lists(&mut content, 0.5, 50, None);
        assert_eq!(content, [false, false, true, false, false]);
    }

    #[test]
    fn a_line_said_again_is_left_out_but_not_a_short_label_a_cell_or_code() {
        let copy = "<p>Designed for every day, and built to last a <b>lifetime</b>.</p>";
        let page = cdom(&format!(
            "<body>{copy}<p>Vintage Blue</p><p>Our story began in a garage.</p>{copy}<p>Vintage Blue</p>\
             <table><tr><td>Shipping is free on every order</td></tr><tr><td>Shipping is free on every order</td></tr></table>\
             <pre>let total = price * quantity;\nlet total = price * quantity;</pre><pre>let total = price * quantity;</pre></body>"
        ));
        let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
        let mut content = vec![true; texts.len()];
        page.drop_repeated_lines(&mut content);
        let kept = page.text_of(&content);
        // The second copy of the sentence (two blocks, one line) goes; the first stays.
        assert_eq!(kept.matches("Designed for every day").count(), 1, "{kept}");
        assert!(kept.starts_with("Designed for every day, and built to last a lifetime."), "{kept}");
        // A two-word label, table cells and code stay however often they repeat.
        assert_eq!(kept.matches("Vintage Blue").count(), 2, "{kept}");
        assert_eq!(kept.matches("Shipping is free on every order").count(), 2, "{kept}");
        assert_eq!(kept.matches("let total = price * quantity;").count(), 3, "{kept}");
        // Only kept lines count: the first copy dropped, the second is the page's.
        let mut content = vec![true; texts.len()];
        content[0] = false;
        content[1] = false;
        content[2] = false;
        page.drop_repeated_lines(&mut content);
        assert_eq!(page.text_of(&content).matches("Designed for every day").count(), 1);
    }

    #[test]
    fn text_statistics_by_hand() {
        let s = TextStats::of("The Quick fox, in 2024, met bob@example.org. Is it? ©");
        // words: The Quick fox in 2024 met bob example org Is it → 11
        assert_eq!(s.words, 11);
        assert_eq!(s.stopwords, 4); // the, in, is, it
        assert_eq!(s.capitalised, 3); // The Quick Is
        assert_eq!(s.punctuation, 5); // , , . . ?
        assert_eq!(s.numeric, 4);
        assert_eq!(s.sentences, 2); // ". Is"
        assert!(s.year && s.email && s.copyright && !s.url);
        assert!(!s.ends_with_punctuation);
        assert!(TextStats::of("Why?").ends_with_question);
        assert!(TextStats::of("see https://example.org/x").url);
        assert!(!has_email("a @ b"));
        // A sentence mark, whitespace, then a capital: the mark nearest the capital counts.
        for (text, sentences) in
            [("One. Two! Three? Four; Five", 5), ("e.g. this", 1), ("End.Next", 1), ("Wait.. Then", 2), (". . Then", 2), ("A.\u{a0} B", 2), ("A. 1 B", 1)]
        {
            assert_eq!(TextStats::of(text).sentences, sentences, "{text}");
        }
    }
}
