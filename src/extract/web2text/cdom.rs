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

use crate::dom::{Dom, FOR_WEB2TEXT, NodeData, NodeId, TagList, TagSet, heading_level};
use crate::page::language::{self, LANGUAGE_SAMPLE_BYTES, stands_alone};

mod text;
pub use text::{STOPWORDS, TextStats, collapse_whitespace};
use text::{in_word_list, is_space, words};

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
mod tests;
