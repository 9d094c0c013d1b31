//! Block labels from a page's gold text (the paper's section 4.1.1): the gold text is
//! aligned to the blocks' characters, and a block is content when at least 2/3 of its
//! characters align.
//!
//! Whitespace and case are ignored on both sides. Unique 10-character snippets (occurring once in
//! the gold part and once in the page part) anchor the alignment and split both texts;
//! each part between anchors is aligned the same way, with snippets unique within that
//! part; a part with no unique snippet left is aligned by dynamic programming (longest
//! common subsequence).

use std::collections::HashMap;

/// Snippet length, in characters.
pub const SNIPPET: usize = 10;
/// A block is content when at least this share of its characters is aligned.
pub const CONTENT_SHARE: f64 = 2.0 / 3.0;
/// Parts larger than this many cells (gold × page characters) are not aligned by dynamic
/// programming: their characters stay unaligned. Bounds time and memory per page.
const MAX_DP_CELLS: usize = 4_000_000;

/// Labels each block: true = content.
pub fn block_labels(blocks: &[&str], gold: &str) -> Vec<bool> {
    block_shares(blocks, gold).into_iter().map(|share| share >= CONTENT_SHARE).collect()
}

/// Each block's share of non-blank characters that align with the gold text (0 for a
/// block without any).
pub fn block_shares(blocks: &[&str], gold: &str) -> Vec<f64> {
    let mut page = Vec::new();
    let mut owner = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        for c in block.chars().filter(|c| !c.is_whitespace()).flat_map(char::to_lowercase) {
            page.push(c);
            owner.push(i);
        }
    }
    let gold: Vec<char> = gold.chars().filter(|c| !c.is_whitespace()).flat_map(char::to_lowercase).collect();
    let mut aligned = vec![false; page.len()];
    align(&gold, &page, 0, &mut aligned);
    let mut hits = vec![(0usize, 0usize); blocks.len()];
    for (&i, &a) in owner.iter().zip(&aligned) {
        hits[i].1 += 1;
        hits[i].0 += usize::from(a);
    }
    hits.iter().map(|&(a, n)| if n == 0 { 0.0 } else { a as f64 / n as f64 }).collect()
}

/// CleanEval's gold text without its markup: the `URL:` line and the `<p>`, `<h>`,
/// `<l>` paragraph markers.
pub fn cleaneval_gold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (n, line) in text.lines().enumerate() {
        if n == 0 && line.trim_start().starts_with("URL:") {
            continue;
        }
        let mut rest = line.trim_start();
        for marker in ["<p>", "<h>", "<l>", "<P>", "<H>", "<L>"] {
            if let Some(r) = rest.strip_prefix(marker) {
                rest = r;
                break;
            }
        }
        out.push_str(rest.trim_start());
        out.push('\n');
    }
    out
}

/// Aligns `gold` to `page` (whose first character is `page_offset` in the whole page),
/// marking aligned page characters.
fn align(gold: &[char], page: &[char], page_offset: usize, aligned: &mut [bool]) {
    if gold.is_empty() || page.is_empty() {
        return;
    }
    let anchors = unique_anchors(gold, page);
    if anchors.is_empty() {
        lcs_mark(gold, page, page_offset, aligned);
        return;
    }
    // Cursors: where the last anchor's snippet ended in each text.
    let (mut g_end, mut p_end) = (0usize, 0usize);
    let mut last_diagonal: Option<isize> = None;
    for (g, p) in anchors {
        let diagonal = g as isize - p as isize;
        if g >= g_end && p >= p_end {
            align(&gold[g_end..g], &page[p_end..p], page_offset + p_end, aligned);
        } else if last_diagonal != Some(diagonal) {
            continue; // overlaps the previous anchor on another diagonal: a repeat
        }
        let from = p.max(p_end);
        aligned[page_offset + from..page_offset + p + SNIPPET].fill(true);
        g_end = g + SNIPPET;
        p_end = p + SNIPPET;
        last_diagonal = Some(diagonal);
    }
    align(&gold[g_end..], &page[p_end..], page_offset + p_end, aligned);
}

/// Snippets occurring exactly once in each text, as (gold, page) start positions, in
/// gold order and with increasing page positions (the longest such chain).
fn unique_anchors(gold: &[char], page: &[char]) -> Vec<(usize, usize)> {
    if gold.len() < SNIPPET || page.len() < SNIPPET {
        return Vec::new();
    }
    let in_page = once(page);
    let mut pairs: Vec<(usize, usize)> = once(gold).into_iter().filter_map(|(w, g)| Some((g?, in_page.get(w).copied().flatten()?))).collect();
    pairs.sort_unstable();
    longest_increasing(&pairs)
}

/// Each snippet of the text → its position, or None when it occurs more than once.
fn once(text: &[char]) -> HashMap<&[char], Option<usize>> {
    let mut seen: HashMap<&[char], Option<usize>> = HashMap::with_capacity(text.len());
    for (i, w) in text.windows(SNIPPET).enumerate() {
        seen.entry(w).and_modify(|v| *v = None).or_insert(Some(i));
    }
    seen
}

/// The longest subsequence of `pairs` (sorted by gold position) whose page positions
/// increase.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[k]: index of the smallest page position ending an increasing run of k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut previous = vec![usize::MAX; pairs.len()];
    for (i, &(_, p)) in pairs.iter().enumerate() {
        let k = tails.partition_point(|&t| pairs[t].1 < p);
        if k > 0 {
            previous[i] = tails[k - 1];
        }
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut chain = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied().unwrap_or(usize::MAX);
    while at != usize::MAX {
        chain.push(pairs[at]);
        at = previous[at];
    }
    chain.reverse();
    chain
}

/// Marks the page characters of a longest common subsequence of the two parts.
fn lcs_mark(gold: &[char], page: &[char], page_offset: usize, aligned: &mut [bool]) {
    let (n, m) = (gold.len(), page.len());
    if n.saturating_mul(m) > MAX_DP_CELLS {
        return;
    }
    let width = m + 1;
    let mut table = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[i * width + j] =
                if gold[i] == page[j] { table[(i + 1) * width + j + 1] + 1 } else { table[(i + 1) * width + j].max(table[i * width + j + 1]) };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if gold[i] == page[j] {
            aligned[page_offset + j] = true;
            i += 1;
            j += 1;
        } else if table[(i + 1) * width + j] >= table[i * width + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy page: navigation, a two-paragraph article with a link inside, a footer that
    /// repeats a word of the article. The gold text is the article, as an annotator would
    /// type it (different line breaks and spacing).
    #[test]
    fn toy_page_with_its_gold_text() {
        let blocks = [
            "Home",
            "News",
            "Contact us",
            "The river rose by two metres overnight,",
            "the mayor said",
            "on Tuesday morning.",
            "Schools stay closed until Friday.",
            "Copyright 2024 River News",
        ];
        let gold = "URL: http://example.com/flood\n<h> \n<p>The river rose by two metres\novernight, the mayor said on Tuesday morning.\n<p>Schools stay closed until Friday.\n";
        let labels = block_labels(&blocks, &cleaneval_gold(gold));
        assert_eq!(labels, vec![false, false, false, true, true, true, true, false]);
    }

    #[test]
    fn a_block_needs_two_thirds_of_its_characters() {
        // "abcdefghijklmnopqrstu" aligns on 12 of its 21 characters (< 2/3): boilerplate;
        // the second block aligns fully.
        let blocks = ["abcdefghijklmnopqrstu", "0123456789XYZ"];
        let labels = block_labels(&blocks, "abcdefghijkl 0123456789XYZ");
        assert_eq!(labels, vec![false, true]);
        assert_eq!(block_labels(&blocks, "abcdefghijklmnop 0123456789XYZ"), vec![true, true]);
        // The shares behind those labels; a block without characters aligns nothing.
        let shares = block_shares(&["abcdefghijklmnopqrstu", "0123456789XYZ", " "], "abcdefghijkl 0123456789XYZ");
        assert!((shares[0] - 12.0 / 21.0).abs() < 1e-12);
        assert_eq!(shares[1..], [1.0, 0.0]);
    }

    #[test]
    fn repeated_snippets_do_not_anchor_and_dp_aligns_the_rest() {
        // "Read more" appears twice on the page, once in the gold: the first one is the
        // content by position (dynamic programming between the unique anchors).
        let blocks = ["Start of the story here.", "Read more", "Middle part of it all.", "Read more", "End."];
        let gold = "Start of the story here. Read more Middle part of it all.";
        assert_eq!(block_labels(&blocks, gold), vec![true, true, true, false, false]);
        assert_eq!(cleaneval_gold("<l>  item one\n<P>Para"), "item one\nPara\n");
    }
}
