//! What the kept blocks become before they are text: the fills and drops each extractor's
//! decision goes through (docs/extraction.md, step 5). A link inside a kept sentence, a code
//! block, data table or list mostly kept, a heading between kept sections are kept whole;
//! a script's JSON, ruby readings, a line said again and a table of contents are left out.

use html5ever::local_name;

use super::{CNode, Cdom, PERMALINK_MARKS, collapse_whitespace, heading_level_of, is_code};

/// A heading of more words than this is a paragraph set large, not a section's name
/// ([`Cdom::fill_section_headings`]).
const SECTION_HEADING_WORDS: usize = 20;

/// The fewest words of a sentence that announces the list after it ("Here are the
/// courses:"), more than a label's ("Tags:", "Share this:").
pub(super) const INTRODUCTION_WORDS: usize = 5;
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

/// A table with header cells whose links hold less than this share of its characters holds
/// records, and its links are values (an infobox: 0.52; Wikipedia's navigation boxes of
/// links 0.79-1.0). 0.6, 0.7 and 0.8 give the same CV (docs/extraction.md).
const RECORD_LINK_SHARE: f64 = 0.7;

/// The shortest JSON that [`Cdom::drop_script_data`] takes for data: a short `{}` or
/// `["a", "b"]` in prose stays text (a bracketed sentence is no JSON at any length).
const MIN_DATA_BYTES: usize = 64;

/// The fewest words of a kept line that [`Cdom::drop_repeated_lines`] leaves out when it
/// repeats an earlier one: below it are a product card's "Add to cart", a swatch's "Vintage
/// Blue", a spec sheet's "Liquid Capacity:", which the gold keeps on every card. Swept in CV
/// at 2, 5 and 10 (docs/extraction.md).
const REPEATED_LINE_WORDS: usize = 5;

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

impl Cdom {
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
}
