//! The combiner's inputs: one row per text block of the page (Web2Text's CDOM leaves),
//! holding what every extractor already computes about that block — Web2Text's 128
//! block features, whether the article and list-view algorithms chose it or pruned it,
//! its neighbours' choices, the class/id words and tags above it — and page-level
//! figures that say how the candidates relate (their shares of the page, their overlap,
//! Algorithm 2's statistics, the genre guess).

use std::hash::BuildHasher;
use std::sync::LazyLock;

use html5ever::LocalName;

use crate::classify::{PAGE_TYPE_COUNT, PAGE_TYPES, list_view_probability};
use crate::dom::{DOCUMENT, Dom, NodeData, NodeId};
use crate::extract::profile::{ARTICLE, LIST_VIEW};
use crate::extract::view::View;
use crate::extract::web2text::cdom::{Cdom, SKIPPED_BUT_NOSCRIPT};
use crate::extract::web2text::features::{BLOCK_FEATURES, block_feature_names, block_features};
use crate::extract::{Genre, PageAnalysis, article, genre, list_view};

/// Class and id words that tell content from chrome on the web at large (matched as whole
/// words of the attribute split at non-alphanumerics, a trailing `s` ignored). The model
/// learns what each is worth; none is a rule.
const CLASS_WORDS: &[&str] = &[
    "content", "main", "article", "post", "entry", "body", "text", "story", "blog", "comment", "reply", "forum", "thread", "topic", "message", "product",
    "item", "card", "list", "listing", "result", "grid", "row", "col", "nav", "navigation", "navbar", "menu", "header", "footer", "sidebar", "aside", "widget",
    "related", "share", "social", "breadcrumb", "ad", "advert", "banner", "cookie", "popup", "modal", "login", "search", "pagination", "pager", "tag", "meta",
    "author", "date", "title", "caption", "description", "price", "review",
];

/// Ancestor tags worth knowing (Web2Text reads only the parent's and its own).
const ANCESTOR_TAGS: &[&str] = &[
    "article", "main", "nav", "aside", "header", "footer", "form", "ul", "ol", "table", "section", "blockquote", "pre", "dl", "figure", "a", "li", "td", "p",
    "h1", "h2", "h3", "h4", "h5", "h6", "noscript",
];

/// Web2Text block inputs also given relative to the page (and the block's link density):
/// a nav link list looks like content by its absolute figures on a page made of short
/// texts; what tells them apart there is how the block compares with the rest of its page.
const RELATIVE_TO_PAGE: &[&str] =
    &["log_n_words", "stopword_ratio", "log_avg_sentence_length", "avg_word_length", "p_body_percentage", "same_class_path_ratio"];

/// Where each of [`RELATIVE_TO_PAGE`] sits in a Web2Text block row.
static RELATIVE_COLUMNS: LazyLock<Vec<usize>> = LazyLock::new(|| {
    let names = block_feature_names();
    RELATIVE_TO_PAGE.iter().filter_map(|f| names.iter().position(|n| n == f)).collect()
});

/// How far each side the windowed shares of the candidates look (in blocks).
const WINDOW: usize = 3;

/// Per-block flags read from the candidate extractors, in the order of [`Candidates::inputs`].
const CANDIDATE_FLAGS: &[&str] = &["in_article", "kept_by_article_rules", "in_list_view", "in_list_item", "kept_by_list_view_rules"];

/// What the previous and the next block give of themselves.
const NEIGHBOUR_FEATURES: &[&str] = &["in_article", "in_list_view", "log_words", "link_density"];

const PAGE_FEATURES: &[&str] = &[
    "page_log_blocks",
    "page_log_words",
    "page_article_share",
    "page_list_view_share",
    "page_list_item_share",
    "page_candidates_overlap",
    "page_list_log_items",
    "page_list_log_item_words",
    "page_list_r",
    "page_genre_guess_list_view",
    "page_article_kept_share",
];

/// The classifier's page-type probabilities close each row (missing, NaN, until
/// [`BlockTable::set_page_types`] fills them), then their list-view sum.
const CLASSIFIER_FEATURES: usize = PAGE_TYPE_COUNT + 1;

/// One group of a block's inputs: their names, and how a block's values are computed from
/// what [`BlockTable::of`] gathered of the page. A row is the groups in [`INPUT_GROUPS`]
/// order; the names are stored with the model and checked when it loads.
struct InputGroup {
    names: fn() -> Vec<String>,
    values: fn(&Gathered<'_>, usize, &mut Vec<f32>),
}

/// Every input of a block, group by group.
const INPUT_GROUPS: &[InputGroup] = &[
    // Web2Text's 128 block features.
    InputGroup { names: || block_feature_names().into_iter().map(|n| format!("w2t_{n}")).collect(), values: |g, i, row| row.extend_from_slice(&g.web2text[i]) },
    // Whether the article and list-view algorithms keep or prune it.
    InputGroup { names: || names(CANDIDATE_FLAGS), values: |g, i, row| row.extend(g.candidates[i].inputs()) },
    InputGroup { names: || names(&["share_of_page_words"]), values: |g, i, row| row.push(ratio(u64::from(g.words[i]), g.total_words)) },
    // The blocks before and after it (-1 past either end).
    InputGroup {
        names: || ["prev", "next"].iter().flat_map(|side| NEIGHBOUR_FEATURES.iter().map(move |f| format!("{side}_{f}"))).collect(),
        values: |g, i, row| {
            row.extend(g.neighbour(i.checked_sub(1)));
            row.extend(g.neighbour(Some(i + 1).filter(|&j| j < g.words.len())));
        },
    },
    // The candidates' shares of the blocks around it.
    InputGroup {
        names: || names(&["window_in_article", "window_in_list_view", "window_kept_by_article_rules"]),
        values: |g, i, row| {
            row.extend([g.window_share(i, |c| c.in_article), g.window_share(i, |c| c.in_list_view), g.window_share(i, |c| c.kept_by_article_rules)])
        },
    },
    // Web2Text inputs and link density relative to the page.
    InputGroup {
        names: || {
            RELATIVE_TO_PAGE.iter().copied().chain(["link_density"]).flat_map(|f| [format!("{f}_minus_page_mean"), format!("{f}_page_percentile")]).collect()
        },
        values: |g, i, row| row.extend(g.relative.iter().flat_map(|[minus_mean, percentile]| [minus_mean[i], percentile[i]])),
    },
    InputGroup {
        names: || CLASS_WORDS.iter().map(|w| format!("class_{w}")).collect(),
        values: |g, i, row| row.extend((0..CLASS_WORDS.len()).map(|b| flag(g.class_masks[g.nodes[i]] >> b & 1 == 1))),
    },
    InputGroup {
        names: || ANCESTOR_TAGS.iter().map(|t| format!("inside_{t}")).collect(),
        values: |g, i, row| row.extend((0..ANCESTOR_TAGS.len()).map(|b| flag(g.tag_masks[g.nodes[i]] >> b & 1 == 1))),
    },
    // How much of the page's own summary (its meta description) the block says.
    InputGroup {
        names: || names(&["block_words_in_description", "description_words_in_block", "window_description_words_in_block"]),
        values: |g, i, row| {
            let [share, covered] = g.description[i];
            let window = g.description[g.window(i)].iter().map(|d| d[1]).fold(f32::NAN, f32::max);
            row.extend([share, covered, window]);
        },
    },
    // The page's figures, the same in every row.
    InputGroup { names: || names(PAGE_FEATURES), values: |g, _, row| row.extend_from_slice(&g.page) },
    // The classifier's, missing until it has run.
    InputGroup {
        names: || PAGE_TYPES.iter().map(|t| format!("classifier_{}", t.name())).chain(["classifier_list_view".to_string()]).collect(),
        values: |_, _, row| row.extend([f32::NAN; CLASSIFIER_FEATURES]),
    },
];

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// Every input's name, in row order.
static FEATURE_NAMES: LazyLock<Vec<String>> = LazyLock::new(|| INPUT_GROUPS.iter().flat_map(|g| (g.names)()).collect());

/// Where a named input sits in a row.
fn column(name: &str) -> usize {
    FEATURE_NAMES.iter().position(|n| n == name).unwrap_or(usize::MAX)
}

static IN_ARTICLE: LazyLock<usize> = LazyLock::new(|| column("in_article"));
static IN_LIST_VIEW: LazyLock<usize> = LazyLock::new(|| column("in_list_view"));

/// Blanks a block row's classifier columns (missing, as without a classifier).
fn blank_page_types(row: &mut [f32]) {
    let start = row.len().saturating_sub(CLASSIFIER_FEATURES);
    row[start..].fill(f32::NAN);
}

/// How many page-level inputs [`BlockTable::page_inputs`] gives.
pub const PAGE_INPUTS: usize = PAGE_FEATURES.len() + CLASSIFIER_FEATURES;

/// Every feature's name, in row order (stored with the model and checked on load).
pub fn feature_names() -> Vec<String> {
    FEATURE_NAMES.clone()
}

/// The number of features per block.
pub fn feature_count() -> usize {
    FEATURE_NAMES.len()
}

/// Whether each candidate extractor keeps a block.
#[derive(Debug, Clone, Copy)]
struct Candidates {
    in_article: bool,
    kept_by_article_rules: bool,
    in_list_view: bool,
    in_list_item: bool,
    kept_by_list_view_rules: bool,
}

impl Candidates {
    /// As row inputs, in the order of [`CANDIDATE_FLAGS`].
    fn inputs(self) -> [f32; 5] {
        [self.in_article, self.kept_by_article_rules, self.in_list_view, self.in_list_item, self.kept_by_list_view_rules].map(flag)
    }
}

/// What the rows of a page are computed from, gathered once for all its blocks.
struct Gathered<'c> {
    cdom: &'c Cdom,
    web2text: Vec<[f32; BLOCK_FEATURES]>,
    /// Each block's DOM node.
    nodes: Vec<NodeId>,
    words: Vec<u32>,
    total_words: u64,
    candidates: Vec<Candidates>,
    /// Per relative input: each block's value less the page's mean, and its percentile.
    relative: Vec<[Vec<f32>; 2]>,
    class_masks: Vec<u64>,
    tag_masks: Vec<u32>,
    page: [f32; PAGE_FEATURES.len()],
    /// Per block: the share of its words that are words of the page's description, and the
    /// share of the description's words it holds (NaN on a page without one).
    description: Vec<[f32; 2]>,
}

/// Calls `f` with a key of every word of `text` of three characters or more (runs of
/// letters and digits, lower-cased): the words [`description_shares`] compares. The key is the
/// word's hash, so no word is copied but for its case.
fn for_each_summary_word(text: &str, lower: &mut String, mut f: impl FnMut(u64)) {
    let state = foldhash::fast::FixedState::with_seed(0x5ea7);
    let mut key = |word: &str| {
        if word.len() < 3 {
            return;
        }
        if word.is_ascii() {
            if word.bytes().any(|b| b.is_ascii_uppercase()) {
                lower.clear();
                lower.push_str(word);
                lower.make_ascii_lowercase();
                f(state.hash_one(lower.as_str()));
            } else {
                f(state.hash_one(word));
            }
        } else if word.chars().nth(2).is_some() {
            lower.clear();
            lower.extend(word.chars().flat_map(char::to_lowercase));
            f(state.hash_one(lower.as_str()));
        }
    };
    // Words are cut at every character that is not alphanumeric; ASCII, nearly all of a
    // page, is told by its byte (this ran for every word of every block).
    let bytes = text.as_bytes();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        let (separates, len) = match bytes[i] {
            b if b.is_ascii() => (!b.is_ascii_alphanumeric(), 1),
            _ => text[i..].chars().next().map_or((false, 1), |c| (!c.is_alphanumeric(), c.len_utf8())),
        };
        if separates {
            key(&text[start..i]);
            start = i + len;
        }
        i += len;
    }
    key(&text[start..]);
}

/// [`Gathered::description`] for every block: how much of the page's own summary (its meta
/// description) the block says. Pages summarise their main text, in every language: a
/// product page its product, a news page its lead.
fn description_shares(cdom: &Cdom, description: Option<&str>) -> Vec<[f32; 2]> {
    let mut lower = String::new();
    // Each distinct word of the description and its position.
    let mut words: foldhash::HashMap<u64, usize> = Default::default();
    if let Some(description) = description {
        for_each_summary_word(description, &mut lower, |w| {
            let next = words.len();
            words.entry(w).or_insert(next);
        });
    }
    if words.is_empty() {
        return vec![[f32::NAN; 2]; cdom.leaves.len()];
    }
    // The last block that held each description word, so each counts once a block.
    let mut held_by = vec![usize::MAX; words.len()];
    cdom.leaves
        .iter()
        .enumerate()
        .map(|(block, &l)| {
            let (mut count, mut hits, mut held) = (0usize, 0usize, 0usize);
            for_each_summary_word(&cdom.nodes[l].text, &mut lower, |w| {
                count += 1;
                if let Some(&at) = words.get(&w) {
                    hits += 1;
                    if held_by[at] != block {
                        held_by[at] = block;
                        held += 1;
                    }
                }
            });
            [if count == 0 { 0.0 } else { hits as f32 / count as f32 }, held as f32 / words.len() as f32]
        })
        .collect()
}

impl Gathered<'_> {
    fn link_density(&self, i: usize) -> f32 {
        let s = &self.cdom.nodes[self.cdom.leaves[i]].stats;
        if s.chars == 0 { 0.0 } else { s.link_chars as f32 / s.chars as f32 }
    }

    fn neighbour(&self, i: Option<usize>) -> [f32; 4] {
        match i {
            Some(i) => [flag(self.candidates[i].in_article), flag(self.candidates[i].in_list_view), (self.words[i] as f32).ln_1p(), self.link_density(i)],
            None => [-1.0; 4],
        }
    }

    /// The blocks within [`WINDOW`] of block `i`, itself included.
    fn window(&self, i: usize) -> std::ops::Range<usize> {
        i.saturating_sub(WINDOW)..(i + WINDOW + 1).min(self.words.len())
    }

    /// The share of the blocks within [`WINDOW`] of block `i` (itself included) that `pick` holds for.
    fn window_share(&self, i: usize, pick: fn(&Candidates) -> bool) -> f32 {
        let window = self.window(i);
        let len = window.len();
        window.filter(|&j| pick(&self.candidates[j])).count() as f32 / len as f32
    }

    /// The share of the page's words in the blocks `pick` holds for.
    fn share(&self, pick: impl Fn(&Candidates) -> bool) -> f32 {
        let w: u64 = self.candidates.iter().zip(&self.words).filter(|(c, _)| pick(c)).map(|(_, &w)| u64::from(w)).sum();
        ratio(w, self.total_words)
    }
}

/// A page's blocks, their features (row-major, `feature_count()` per block) and words.
pub struct BlockTable {
    pub cdom: Cdom,
    pub rows: Vec<f32>,
    /// Words of each block (as Web2Text counts them).
    pub words: Vec<u32>,
}

impl BlockTable {
    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn texts(&self) -> Vec<&str> {
        self.cdom.leaves.iter().map(|&l| self.cdom.nodes[l].text.as_str()).collect()
    }

    /// The page-level inputs every row ends with (page figures and classifier columns).
    pub fn page_inputs(&self) -> &[f32] {
        let n = feature_count();
        self.rows.get(n - PAGE_INPUTS..n).unwrap_or(&[])
    }

    /// Every input's bits, rows in order: what a faster feature computation must keep.
    pub fn rows_bits(&self) -> Vec<u32> {
        self.rows.iter().map(|x| x.to_bits()).collect()
    }

    pub fn row(&self, block: usize) -> &[f32] {
        let n = feature_count();
        &self.rows[block * n..(block + 1) * n]
    }

    /// Whether the article extractor keeps the block (its row's `in_article` input).
    pub fn in_article(&self, block: usize) -> bool {
        self.rows.get(block * feature_count() + *IN_ARTICLE).is_some_and(|&v| v == 1.0)
    }

    /// Whether the list-view extractor keeps the block (its row's `in_list_view` input).
    pub fn in_list_view(&self, block: usize) -> bool {
        self.rows.get(block * feature_count() + *IN_LIST_VIEW).is_some_and(|&v| v == 1.0)
    }

    /// The page's blocks and their features.
    pub fn of(page: &PageAnalysis<'_>) -> Self {
        let dom = page.dom;
        let cdom = Cdom::build_skipping(dom, &SKIPPED_BUT_NOSCRIPT);
        let web2text = block_features(&cdom);
        let nodes: Vec<NodeId> = cdom.leaves.iter().map(|&l| cdom.nodes[l].dom_node).collect();
        let words: Vec<u32> = cdom.leaves.iter().map(|&l| u32::try_from(cdom.nodes[l].stats.words).unwrap_or(u32::MAX)).collect();

        let article_view = page.view(&ARTICLE.prune);
        let article_roots = article::article_roots(&article_view, &ARTICLE);
        let in_article = marked(dom, &article_view, &article_roots);
        let list = page.list();
        let (in_list, in_item) = match &list.choice {
            Some(choice) => (marked(dom, &list.view, &list_view::output_roots(&list.view, choice, &LIST_VIEW)), marked(dom, &list.view, &choice.items)),
            None => (vec![false; dom.nodes.len()], vec![false; dom.nodes.len()]),
        };
        let candidates = nodes
            .iter()
            .map(|&n| Candidates {
                in_article: in_article[n],
                kept_by_article_rules: article_view.keep[n],
                in_list_view: in_list[n],
                in_list_item: in_item[n],
                kept_by_list_view_rules: list.view.keep[n],
            })
            .collect();
        let (class_masks, tag_masks) = ancestor_masks(dom);
        let total_words: u64 = words.iter().map(|&w| u64::from(w)).sum();
        let mut gathered = Gathered {
            cdom: &cdom,
            web2text,
            nodes,
            words,
            total_words,
            candidates,
            relative: Vec::new(),
            class_masks,
            tag_masks,
            page: [0.0; PAGE_FEATURES.len()],
            description: description_shares(&cdom, dom.description().as_deref()),
        };

        let either = gathered.share(|c| c.in_article || c.in_list_view);
        let both = gathered.share(|c| c.in_article && c.in_list_view);
        let (items, item_words, r) =
            list.choice.as_ref().map_or((0.0, 0.0, 0.0), |c| (f64::from(c.occurrences).ln_1p() as f32, c.average_words().ln_1p() as f32, c.r as f32));
        gathered.page = [
            (gathered.words.len() as f32).ln_1p(),
            (total_words as f32).ln_1p(),
            gathered.share(|c| c.in_article),
            gathered.share(|c| c.in_list_view),
            gathered.share(|c| c.in_list_item),
            if either > 0.0 { both / either } else { 0.0 },
            items,
            item_words,
            r,
            if genre::guess(list) == Genre::ListView { 1.0 } else { 0.0 },
            gathered.share(|c| c.kept_by_article_rules),
        ];
        let mut relative: Vec<Vec<f32>> = RELATIVE_COLUMNS.iter().map(|&c| gathered.web2text.iter().map(|row| row[c]).collect()).collect();
        relative.push((0..gathered.words.len()).map(|i| gathered.link_density(i)).collect());
        gathered.relative = relative.iter().map(|values| relative_to_page(values, &gathered.words)).collect();

        let n = feature_count();
        let mut rows = Vec::with_capacity(n * gathered.words.len());
        for i in 0..gathered.words.len() {
            for group in INPUT_GROUPS {
                (group.values)(&gathered, i, &mut rows);
            }
        }
        debug_assert_eq!(rows.len(), n * gathered.words.len());
        let words = std::mem::take(&mut gathered.words);
        drop(gathered);
        Self { cdom, rows, words }
    }

    /// Fills every block's classifier columns with the page's type probabilities.
    pub fn set_page_types(&mut self, probabilities: &[f32; PAGE_TYPE_COUNT]) {
        let n = feature_count();
        let list_view = list_view_probability(probabilities);
        for row in self.rows.chunks_exact_mut(n) {
            let tail = &mut row[n - CLASSIFIER_FEATURES..];
            tail[..PAGE_TYPE_COUNT].copy_from_slice(probabilities);
            tail[PAGE_TYPE_COUNT] = list_view;
        }
    }

    /// The rows with the classifier columns missing, as `--classifier none` leaves them.
    pub fn rows_without_page_types(&self) -> Vec<f32> {
        let mut rows = self.rows.clone();
        for row in rows.chunks_exact_mut(feature_count()) {
            blank_page_types(row);
        }
        rows
    }

    /// The text of the blocks marked content: a block after a line break starts a new
    /// line, as in Web2Text's output.
    pub fn text_of(&self, content: &[bool]) -> String {
        self.cdom.text_of(content)
    }
}

/// Each block's value less the page's word-weighted mean, and its word-weighted
/// percentile on the page (the share of the page's words in blocks with a lower value,
/// half of those with the same). Blocks without words weigh nothing but are still placed.
fn relative_to_page(values: &[f32], words: &[u32]) -> [Vec<f32>; 2] {
    let total: f64 = words.iter().map(|&w| f64::from(w)).sum();
    if total == 0.0 {
        return [vec![0.0; values.len()], vec![0.5; values.len()]];
    }
    let mean = values.iter().zip(words).map(|(&v, &w)| f64::from(v) * f64::from(w)).sum::<f64>() / total;
    let minus_mean = values.iter().map(|&v| (f64::from(v) - mean) as f32).collect();
    // Sorted as one number a block, the value's order key above its index: the order
    // within a run of equal values does not matter, and a sort of plain integers is
    // faster than one of pairs or one comparing through indices.
    let mut keyed: Vec<u64> = values.iter().enumerate().map(|(i, &v)| u64::from(super::decide::total_order_key_f32(v)) << 32 | i as u64).collect();
    keyed.sort_unstable();
    let order: Vec<usize> = keyed.into_iter().map(|k| (k & u64::from(u32::MAX)) as usize).collect();
    let mut percentile = vec![0.0; values.len()];
    let mut below = 0.0;
    let mut start = 0;
    while start < order.len() {
        // One run of equal values shares its percentile.
        let end = start + order[start..].iter().take_while(|&&j| values[j].total_cmp(&values[order[start]]).is_eq()).count();
        let same: f64 = order[start..end].iter().map(|&j| f64::from(words[j])).sum();
        for &j in &order[start..end] {
            percentile[j] = ((below + same / 2.0) / total) as f32;
        }
        below += same;
        start = end;
    }
    [minus_mean, percentile]
}

fn flag(b: bool) -> f32 {
    if b { 1.0 } else { 0.0 }
}

fn ratio(a: u64, b: u64) -> f32 {
    if b == 0 { 0.0 } else { a as f32 / b as f32 }
}

/// Marks the nodes a view keeps under the given roots (the text an extractor outputs).
pub(crate) fn marked(dom: &Dom, view: &View<'_>, roots: &[NodeId]) -> Vec<bool> {
    let mut mark = vec![false; dom.nodes.len()];
    for &root in roots {
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            if !view.keep[id] || mark[id] {
                continue;
            }
            mark[id] = true;
            stack.extend(dom.children(id).iter().copied());
        }
    }
    mark
}

/// Each class word's bit, looked up by hash (a page has thousands of class words).
static CLASS_WORD_BITS: LazyLock<foldhash::HashMap<&'static str, u32>> =
    LazyLock::new(|| CLASS_WORDS.iter().enumerate().map(|(bit, &w)| (w, bit as u32)).collect());
/// The ancestor tags as atoms, compared as integers.
static ANCESTOR_TAG_ATOMS: LazyLock<Vec<LocalName>> = LazyLock::new(|| ANCESTOR_TAGS.iter().map(|&t| LocalName::from(t)).collect());

/// For every node, the class/id words and the tags of it and its ancestors, as bit masks
/// (bit i: `CLASS_WORDS[i]`, `ANCESTOR_TAGS[i]`).
fn ancestor_masks(dom: &Dom) -> (Vec<u64>, Vec<u32>) {
    let n = dom.nodes.len();
    let (mut classes, mut tags) = (vec![0u64; n], vec![0u32; n]);
    // A page repeats its class values on many elements: each distinct value is split
    // once. The values are keyed by a 64-bit hash of their bytes, not by the strings: a
    // page's long class values were compared byte by byte at every repeat (2–3% of the
    // default's CPU), and two of a page's values share a hash with odds near 10^-13.
    let hashing = foldhash::fast::FixedState::with_seed(0xc1a5);
    let mut masks: foldhash::HashMap<u64, u64> = Default::default();
    let mut stack = vec![DOCUMENT];
    while let Some(id) = stack.pop() {
        let (mut c, mut t) = dom.nodes[id].parent.map_or((0, 0), |p| (classes[p], tags[p]));
        if let NodeData::Element(e) = &dom.nodes[id].data {
            if let Some(bit) = ANCESTOR_TAG_ATOMS.iter().position(|x| *x == e.name.local) {
                t |= 1 << bit;
            }
            for value in [e.class(), e.attr("id").unwrap_or("")] {
                if !value.is_empty() {
                    c |= *masks.entry(hashing.hash_one(value.as_bytes())).or_insert_with(|| class_word_mask(value));
                }
            }
        }
        classes[id] = c;
        tags[id] = t;
        stack.extend(dom.children(id).iter().copied());
    }
    (classes, tags)
}

/// The [`CLASS_WORDS`] bits of the words of a class or id value.
fn class_word_mask(value: &str) -> u64 {
    let mut mask = 0;
    for word in value.split(|ch: char| !ch.is_alphanumeric()) {
        if word.is_empty() || word.len() > 16 {
            continue;
        }
        // Lower-cased in a buffer on the stack.
        let mut buffer = [0u8; 16];
        let lower = &mut buffer[..word.len()];
        lower.copy_from_slice(word.as_bytes());
        lower.make_ascii_lowercase();
        let Ok(lower) = std::str::from_utf8(lower) else { continue };
        let stem = lower.strip_suffix('s').filter(|s| s.len() > 2).unwrap_or(lower);
        // The first listed of the word and its stem.
        if let Some(bit) = [stem, lower].iter().filter_map(|w| CLASS_WORD_BITS.get(w)).min() {
            mask |= 1 << bit;
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The byte-wise cut gives the keys of a split at every character that is not
        /// alphanumeric, each word of three characters or more lower-cased and hashed.
        #[test]
        fn summary_words_are_the_runs_of_alphanumeric_characters(
            chars in proptest::collection::vec(proptest::sample::select(vec!['a', 'Q', 'z', '7', ' ', '.', '-', 'ä', 'Ö', 'ß', 'И', '漢', '\u{a0}', '\u{301}']), 0..60),
        ) {
            let text: String = chars.into_iter().collect();
            let state = foldhash::fast::FixedState::with_seed(0x5ea7);
            let expected: Vec<u64> = text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| w.chars().count() >= 3)
                .map(|w| state.hash_one(w.chars().flat_map(char::to_lowercase).collect::<String>().as_str()))
                .collect();
            let mut got = Vec::new();
            for_each_summary_word(&text, &mut String::new(), |key| got.push(key));
            proptest::prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn names_and_rows_agree_in_length() {
        assert_eq!(feature_names().len(), feature_count());
        let unique: std::collections::HashSet<&String> = FEATURE_NAMES.iter().collect();
        assert_eq!(unique.len(), feature_count(), "every input has a name of its own");
        assert_eq!((*IN_ARTICLE, *IN_LIST_VIEW), (BLOCK_FEATURES, BLOCK_FEATURES + 2));
        assert!(CLASS_WORDS.len() <= 64 && ANCESTOR_TAGS.len() <= 32);
        let dom = Dom::parse_unbounded("<body><nav class=menu><a href=/>Home</a></nav><article><p>One two three.</p><p>Four five.</p></article></body>");
        let table = BlockTable::of(&PageAnalysis::new(&dom));
        assert_eq!(table.len(), 3);
        assert_eq!(table.rows.len(), 3 * feature_count());
    }

    #[test]
    fn a_block_that_says_the_pages_description_is_told_apart() {
        let page = |head: &str| {
            Dom::parse_unbounded(&format!(
                "<head>{head}</head><body><nav><a href=/>Home</a></nav>\
                 <p>Die Bürgerinnen und Bürger WÄHLEN heute einen neuen Stadtrat.</p><p>Mehr zum Thema</p></body>"
            ))
        };
        let dom = page("<meta name=description content='Bürgerinnen und Bürger wählen heute den Stadtrat'>");
        let cdom = Cdom::build_skipping(&dom, &SKIPPED_BUT_NOSCRIPT);
        let shares = description_shares(&cdom, dom.description().as_deref());
        let texts: Vec<&str> = cdom.leaves.iter().map(|&l| cdom.nodes[l].text.as_str()).collect();
        assert_eq!(texts.len(), 3, "{texts:?}");
        // The lead: of its 9 words of three letters or more, 6 are the description's, case
        // aside (umlauts too; "die", "einen", "neuen" are not), and it holds 6 of the
        // description's 7 ("den" it does not).
        assert_eq!(shares[1], [6.0 / 9.0, 6.0 / 7.0]);
        assert_eq!(shares[0], [0.0, 0.0]);
        assert_eq!(shares[2], [0.0, 0.0]);
        // No description: the inputs are missing, not zero.
        let bare = page("");
        let shares = description_shares(&Cdom::build_skipping(&bare, &SKIPPED_BUT_NOSCRIPT), bare.description().as_deref());
        assert!(shares.iter().flatten().all(|v| v.is_nan()));
    }

    #[test]
    fn every_relative_input_names_a_web2text_column() {
        assert_eq!(RELATIVE_COLUMNS.len(), RELATIVE_TO_PAGE.len());
    }

    #[test]
    fn relative_inputs_place_a_block_among_its_page_by_words() {
        let [minus_mean, percentile] = relative_to_page(&[1.0, 3.0, 3.0, 5.0], &[1, 1, 1, 1]);
        assert_eq!(minus_mean, [-2.0, 0.0, 0.0, 2.0]);
        assert_eq!(percentile, [0.125, 0.5, 0.5, 0.875]);
        // A long block weighs more: the page's mean and percentiles lean towards it.
        let [minus_mean, percentile] = relative_to_page(&[0.0, 1.0, 2.0], &[6, 2, 0]);
        assert_eq!(minus_mean, [-0.25, 0.75, 1.75]);
        assert_eq!(percentile, [0.375, 0.875, 1.0]);
        // A page without words places every block in the middle.
        assert_eq!(relative_to_page(&[4.0, 9.0], &[0, 0]), [vec![0.0, 0.0], vec![0.5, 0.5]]);
    }

    #[test]
    fn page_types_can_be_set_and_blanked_without_touching_the_other_inputs() {
        let dom = Dom::parse_unbounded("<body><nav><a href=/>Home</a></nav><article><p>One two three.</p></article></body>");
        let mut table = BlockTable::of(&PageAnalysis::new(&dom));
        let names = feature_names();
        let col = |name: &str| names.iter().position(|n| n == name).unwrap();
        let mut probabilities = [0.0; PAGE_TYPE_COUNT];
        probabilities[0] = 1.0;
        table.set_page_types(&probabilities);
        let blanked = table.rows_without_page_types();
        assert_eq!(blanked.len(), table.rows.len());
        for (with, without) in table.rows.chunks_exact(feature_count()).zip(blanked.chunks_exact(feature_count())) {
            assert!(!with[col("classifier_list_view")].is_nan());
            assert!(without[col("classifier_list_view")].is_nan());
            assert!(without[feature_count() - CLASSIFIER_FEATURES..].iter().all(|v| v.is_nan()));
            assert_eq!(
                with[..feature_count() - CLASSIFIER_FEATURES].iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                without[..feature_count() - CLASSIFIER_FEATURES].iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn a_block_knows_whether_the_article_and_list_view_extractors_keep_it() {
        let names = feature_names();
        assert_eq!((names[BLOCK_FEATURES].as_str(), names[BLOCK_FEATURES + 2].as_str()), ("in_article", "in_list_view"));
        let dom = Dom::parse_unbounded(
            "<body><nav><a href=/>Home</a> <a href=/a>About</a></nav><article><h1>A title of the article</h1>\
             <p>One two three four five six seven eight nine ten eleven twelve, a sentence of the article.</p>\
             <p>Another sentence of the article with words enough to count as its text.</p></article></body>",
        );
        let page = PageAnalysis::new(&dom);
        let table = BlockTable::of(&page);
        let article = crate::extract::article_text(&page, &ARTICLE);
        for (i, text) in table.texts().into_iter().enumerate() {
            assert_eq!(table.in_article(i), article.contains(text.trim()), "block {i}: {text:?} in {article:?}");
        }
        assert!((0..table.len()).any(|i| table.in_article(i)) && (0..table.len()).any(|i| !table.in_article(i)));
        assert!(!table.in_article(table.len()) && !table.in_list_view(table.len()), "past the last block");
    }

    #[test]
    fn a_block_knows_the_class_words_and_tags_above_it() {
        let dom = Dom::parse_unbounded(
            "<body><div id=site-footer><p>Copyright words here</p></div><main><div class=post-body><p>Real text of the post.</p></div></main></body>",
        );
        let table = BlockTable::of(&PageAnalysis::new(&dom));
        let names = feature_names();
        let col = |name: &str| names.iter().position(|n| n == name).unwrap();
        assert_eq!(table.texts(), ["Copyright words here", "Real text of the post."]);
        assert_eq!(table.row(0)[col("class_footer")], 1.0);
        assert_eq!(table.row(0)[col("inside_main")], 0.0);
        assert_eq!(table.row(1)[col("class_post")], 1.0);
        assert_eq!(table.row(1)[col("class_body")], 1.0);
        assert_eq!(table.row(1)[col("inside_main")], 1.0);
        assert_eq!(table.row(1)[col("class_footer")], 0.0);
    }
}
