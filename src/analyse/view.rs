//! A pruned view of a DOM: which nodes are kept, the words under each, and text
//! rendering with block breaks. Extractors read the page through it.

use std::sync::{Arc, OnceLock};

use html5ever::{LocalName, local_name};

use super::profile::PruneRules;
use crate::dom::{DOCUMENT, Dom, NodeData, NodeId, TagList};
use crate::page::language::{ascii_word_count, stands_alone};

pub struct View<'a> {
    pub dom: &'a Dom,
    /// What no prune rule changes, shared by every view of the page.
    counts: Arc<PageCounts>,
    pub keep: Vec<bool>,
    /// Words of kept text under each node.
    pub words: Vec<u32>,
    /// `PruneRules::repeated_line_min_words`.
    repeated_line_min_words: usize,
}

/// The counts a view needs that no prune rule changes. `goce` builds two views of an
/// article page (Algorithm 2's for the genre, then Algorithm 1's), so they are made once
/// per page: counting words was a third of building a view.
pub struct PageCounts {
    /// Every node reachable from the document, parents before children.
    order: Vec<NodeId>,
    /// Words of each text node.
    own_words: Vec<u32>,
    /// Words a reader could see under each node, before pruning: a class rule
    /// ("sidebar" in `site-content has-sidebar`) must not remove most of them. Script
    /// and style text does not count, or a page heavy with inline JSON would let the
    /// rules remove its real content.
    readable_words: Vec<u32>,
    /// Words inside `<a>` elements under each node, counted for the first rules that read
    /// them (the list-view rules do not).
    link_words: OnceLock<Vec<u32>>,
    /// Depth of each element (`<html>` is 0, as in the paper).
    depth: Vec<u32>,
}

impl PageCounts {
    pub fn new(dom: &Dom) -> Self {
        let n = dom.nodes.len();
        let order = preorder(dom);
        let mut readable = vec![true; n];
        let mut depth = vec![0u32; n];
        for &id in &order {
            let parent = dom.nodes[id].parent;
            readable[id] = parent.is_none_or(|p| readable[p])
                && match &dom.nodes[id].data {
                    NodeData::Element(e) => !super::profile::always_dropped(e),
                    NodeData::Other => false,
                    _ => true,
                };
            depth[id] = match parent {
                Some(p) if p != DOCUMENT => depth[p] + 1,
                _ => 0,
            };
        }
        let own_words: Vec<u32> = dom
            .nodes
            .iter()
            .map(|n| match &n.data {
                NodeData::Text(t) => word_count(t),
                _ => 0,
            })
            .collect();
        let readable_words = count_words(dom, &order, &readable, &own_words);
        Self { order, own_words, readable_words, link_words: OnceLock::new(), depth }
    }
}

/// Elements that start a new line (HTML's block-level and table elements).
pub(crate) const BLOCK_TAGS: &[&str] = &[
    "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer",
    "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td",
    "tfoot", "th", "thead", "tr", "ul",
];

static BLOCKS: TagList = TagList::new(BLOCK_TAGS);

pub(crate) fn is_block(tag: &LocalName) -> bool {
    BLOCKS.contains(tag) || *tag == local_name!("body") || *tag == local_name!("html")
}

impl<'a> View<'a> {
    pub fn new(dom: &'a Dom, rules: &PruneRules) -> Self {
        Self::with_counts(dom, Arc::new(PageCounts::new(dom)), rules)
    }

    /// A view over counts already made of `dom` (by [`PageCounts::new`]).
    pub fn with_counts(dom: &'a Dom, counts: Arc<PageCounts>, rules: &PruneRules) -> Self {
        let PageCounts { order, own_words, readable_words, .. } = &*counts;
        let link_words: &[u32] = if rules.max_link_density < 1.0 { counts.link_words.get_or_init(|| count_link_words(dom, order, own_words)) } else { &[] };
        let limit = (f64::from(readable_words[DOCUMENT]) * rules.max_dropped_share) as u32;
        let hidden_limit = (f64::from(readable_words[DOCUMENT]) * rules.max_hidden_share) as u32;
        let names = rules.names();
        let link_list = |id: NodeId, tag: &LocalName| {
            !link_words.is_empty()
                && BLOCKS.contains(tag)
                && readable_words[id] >= rules.link_block_min_words
                && f64::from(link_words[id]) >= rules.max_link_density * f64::from(readable_words[id])
        };

        let mut keep = vec![false; dom.nodes.len()];
        for &id in order {
            if id != DOCUMENT && !dom.nodes[id].parent.is_some_and(|p| keep[p]) {
                continue;
            }
            keep[id] = match &dom.nodes[id].data {
                NodeData::Element(e) => {
                    let soft = rules.drops_by_name(e, &names) || link_list(id, &e.name.local);
                    let hidden = rules.drops_as_hidden(e) && readable_words[id] <= hidden_limit.max(1);
                    !(rules.drops_by_tag(e) || hidden || (soft && readable_words[id] <= limit.max(1)))
                }
                NodeData::Other => false,
                _ => true,
            };
        }
        let words = count_words(dom, order, &keep, own_words);
        Self { dom, keep, words, counts, repeated_line_min_words: rules.repeated_line_min_words }
    }

    /// Depth of an element (`<html>` is 0, as in the paper).
    pub fn depth(&self, id: NodeId) -> u32 {
        self.counts.depth[id]
    }

    /// Kept element children.
    pub fn children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.dom.element_children(id).filter(move |&c| self.keep[c])
    }

    pub fn tag(&self, id: NodeId) -> &str {
        self.dom.element(id).map_or("", |e| e.tag())
    }

    /// Where extraction starts: `<body>`, else `<html>`, else the document.
    pub fn start(&self) -> NodeId {
        self.dom.body().filter(|&b| self.keep[b]).or_else(|| self.dom.html()).unwrap_or(DOCUMENT)
    }

    /// The kept text under the given roots, in order: block elements on their own lines.
    pub fn text_of(&self, roots: &[NodeId]) -> String {
        let mut out = String::new();
        for &root in roots {
            self.write_text(root, &mut out);
            newline(&mut out);
        }
        let text = tidy(&out);
        if self.repeated_line_min_words == 0 { text } else { drop_repeated_lines(&text, self.repeated_line_min_words) }
    }

    fn write_text(&self, id: NodeId, out: &mut String) {
        if !self.keep[id] {
            return;
        }
        match &self.dom.nodes[id].data {
            NodeData::Text(t) => push_words(out, t),
            NodeData::Element(e) => {
                let block = is_block(&e.name.local);
                if block {
                    newline(out);
                }
                if e.is(&local_name!("td")) || e.is(&local_name!("th")) {
                    out.push(' ');
                }
                for &c in self.dom.children(id) {
                    self.write_text(c, out);
                }
                if block {
                    newline(out);
                }
            }
            NodeData::Document => {
                for &c in self.dom.children(id) {
                    self.write_text(c, out);
                }
            }
            NodeData::Other => {}
        }
    }
}

/// `text.split_whitespace().count()`, except that each Chinese ideograph or Japanese kana
/// is a word by itself ([`stands_alone`]: those scripts put no spaces between words, and a
/// paragraph is not one word). It runs over every text node of every page: ASCII text (most
/// is) is counted as the places where a non-space follows a space, a sum the compiler
/// vectorises ([`ascii_word_count`]); other text character by character.
fn word_count(text: &str) -> u32 {
    if let Some(words) = ascii_word_count(text) {
        return u32::try_from(words).unwrap_or(u32::MAX);
    }
    let (mut words, mut in_word) = (0, false);
    for c in text.chars() {
        let (alone, space) = (stands_alone(c), c.is_whitespace());
        words += u32::from(alone || (!in_word && !space));
        in_word = !alone && !space;
    }
    words
}

/// Every node reachable from the document, parents before children.
fn preorder(dom: &Dom) -> Vec<NodeId> {
    let mut order = Vec::with_capacity(dom.nodes.len());
    let mut stack = vec![DOCUMENT];
    while let Some(id) = stack.pop() {
        order.push(id);
        stack.extend(dom.children(id).iter().rev());
    }
    order
}

/// Words of kept text under each node, from a pre-order walk taken backwards.
fn count_words(dom: &Dom, order: &[NodeId], keep: &[bool], own_words: &[u32]) -> Vec<u32> {
    let mut words = vec![0u32; dom.nodes.len()];
    for &id in order.iter().rev() {
        if !keep[id] {
            continue;
        }
        let own = own_words[id];
        let below: u32 = dom.children(id).iter().filter(|&&c| keep[c]).map(|&c| words[c]).sum();
        words[id] = own + below;
    }
    words
}

/// Words inside `<a>` elements under each node.
fn count_link_words(dom: &Dom, order: &[NodeId], own_words: &[u32]) -> Vec<u32> {
    let mut link = vec![0u32; dom.nodes.len()];
    let mut inside = vec![false; dom.nodes.len()];
    for &id in order {
        let parent_inside = dom.nodes[id].parent.is_some_and(|p| inside[p]);
        inside[id] = parent_inside || dom.element(id).is_some_and(|e| e.is(&local_name!("a")));
    }
    for &id in order.iter().rev() {
        let own = if inside[id] { own_words[id] } else { 0 };
        link[id] = own + dom.children(id).iter().map(|&c| link[c]).sum::<u32>();
    }
    link
}

fn newline(out: &mut String) {
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
}

fn push_words(out: &mut String, text: &str) {
    let starts_space = text.starts_with(char::is_whitespace);
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else {
        if !text.is_empty() && !out.is_empty() && !out.ends_with(['\n', ' ']) {
            out.push(' ');
        }
        return;
    };
    if starts_space && !out.is_empty() && !out.ends_with(['\n', ' ']) {
        out.push(' ');
    }
    out.push_str(first);
    for w in words {
        out.push(' ');
        out.push_str(w);
    }
    if text.ends_with(char::is_whitespace) {
        out.push(' ');
    }
}

/// Keeps the first copy of every line of at least `min_words` words. The same text twice
/// on one page is a copy for another screen size (desktop and mobile variants), a
/// carousel's cloned slides or a control repeated per item ("Reply", "Add to cart").
fn drop_repeated_lines(text: &str, min_words: usize) -> String {
    let mut seen = foldhash::HashSet::default();
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if line.split_whitespace().nth(min_words - 1).is_some() && !seen.insert(line) {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

/// Trims lines and drops empty ones.
pub(crate) fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::profile::{ARTICLE_PRUNE, PAPER_PRUNE};

    #[test]
    fn words_are_counted_as_split_whitespace_counts_them() {
        for text in ["", " ", "one", " two  words\t", "a\x0bb\x0cc\rd\ne", "\u{a0}non\u{2003}ascii spaces é", "x\x1fy"] {
            assert_eq!(word_count(text) as usize, text.split_whitespace().count(), "{text:?}");
        }
    }

    proptest::proptest! {
        /// The counts are those of a plain pass over the characters, on ASCII and other text.
        #[test]
        fn word_counts_are_those_of_a_pass_over_the_characters(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "Z", "7", ".", " ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1f", "\u{a0}", "\u{2003}", "\u{3000}", "é", "中", "カ", "・", "한", "\u{85}",
            ]), 0..40)
        ) {
            let text: String = pieces.concat();
            let (mut words, mut in_word) = (0u32, false);
            for c in text.chars() {
                let alone = stands_alone(c);
                words += u32::from(alone || (!in_word && !c.is_whitespace()));
                in_word = !alone && !c.is_whitespace();
            }
            proptest::prop_assert_eq!(word_count(&text), words, "{:?}", text);
        }
    }

    #[test]
    fn chinese_and_japanese_characters_are_words_by_themselves() {
        assert_eq!(word_count("市图书馆重新开放"), 8);
        assert_eq!(word_count("東京の天気 is fine。"), 5 + 2);
        assert_eq!(word_count("한국어 문장"), 2);
    }

    #[test]
    fn a_repeated_line_is_kept_once_except_by_the_paper_rules() {
        // The same block for desktop and for mobile, and a one-word control per item.
        let block = "<div><p>Packaging design that sells your product.</p><p>Reply</p></div>";
        let html = format!("<body><div class=desktop>{block}</div><div class=mobile>{block}</div></body>");
        let dom = Dom::parse_unbounded(&html);
        let improved = View::new(&dom, &ARTICLE_PRUNE);
        assert_eq!(improved.text_of(&[improved.start()]), "Packaging design that sells your product.\nReply\nReply");
        let paper = View::new(&dom, &PAPER_PRUNE);
        assert_eq!(paper.text_of(&[paper.start()]).lines().count(), 4);
    }
}
