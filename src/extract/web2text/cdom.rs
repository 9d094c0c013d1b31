//! The Collapsed DOM of the paper's section 3.1: the page's `<body>` without empty or
//! whitespace-only nodes and without the tags that hold no extractable content, with
//! every single-child parent merged into its child, recursively. Its text leaves, in
//! document order, are the blocks Web2Text labels.
//!
//! Each node keeps the statistics the features read (words, stopwords, punctuation,
//! ...), summed over its subtree, and an approximate span in the page's source: our DOM
//! has no source offsets, so a running count of text and markup characters (tag names,
//! attributes, brackets) stands in for them.
//!
//! Beside it: `text`, the statistics of a block's text, and `fills`, the fills and drops a
//! decision's kept blocks go through before they are text.

use html5ever::{LocalName, local_name};

use crate::dom::{Dom, FOR_WEB2TEXT, NodeData, NodeId, TagList, TagSet, heading_level};
use crate::page::language::{self, LANGUAGE_SAMPLE_BYTES, stands_alone};

mod fills;
mod text;
pub use fills::ListEvidence;
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

/// What documentation generators append to a heading as its link ("Usage¶", "Usage 🔗";
/// Docusaurus writes a zero-width space as the link's text): no word of the heading.
pub const PERMALINK_MARKS: &[char] = &['¶', '§', '🔗', '\u{200B}'];
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

    /// Whether a node is (inside) `pre` or `code`.
    fn in_code(&self, id: usize) -> bool {
        self.closest(id, is_code).is_some()
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

fn is_code(node: &CNode) -> bool {
    node.has_tag(&local_name!("pre")) || node.has_tag(&local_name!("code"))
}

#[cfg(test)]
mod tests;
