//! The 128 block features of the paper's Appendix A and the 25 edge features of its
//! section 3.3, computed on the CDOM. Values here are raw (binary 0/1, logarithms and
//! ratios clipped to the paper's bounds); the model standardises them with the
//! training set's mean and standard deviation, stored with it.

use html5ever::{LocalName, local_name};

use super::cdom::{Cdom, TextStats};

pub const BLOCK_FEATURES: usize = 128;
pub const EDGE_FEATURES: usize = 25;

/// Tags one-hot encoded for the block's own chain (b110–b128).
const LEAF_TAGS: [LocalName; 19] = [
    local_name!("a"),
    local_name!("p"),
    local_name!("td"),
    local_name!("b"),
    local_name!("li"),
    local_name!("span"),
    local_name!("i"),
    local_name!("tr"),
    local_name!("div"),
    local_name!("strong"),
    local_name!("em"),
    local_name!("h3"),
    local_name!("h2"),
    local_name!("table"),
    local_name!("h4"),
    local_name!("small"),
    local_name!("sup"),
    local_name!("h1"),
    local_name!("blockquote"),
];
/// Tags one-hot encoded for the parent's chain (b49–b68). The paper lists `ul` twice;
/// the second, always equal to the first, is `section` here.
const PARENT_TAGS: [LocalName; 20] = [
    local_name!("td"),
    local_name!("div"),
    local_name!("p"),
    local_name!("tr"),
    local_name!("table"),
    local_name!("body"),
    local_name!("ul"),
    local_name!("span"),
    local_name!("li"),
    local_name!("blockquote"),
    local_name!("b"),
    local_name!("small"),
    local_name!("a"),
    local_name!("ol"),
    local_name!("section"),
    local_name!("i"),
    local_name!("form"),
    local_name!("dl"),
    local_name!("strong"),
    local_name!("pre"),
];

fn flag(b: bool) -> f32 {
    if b { 1.0 } else { 0.0 }
}

fn ratio(a: usize, b: usize) -> f32 {
    if b == 0 { 0.0 } else { a as f32 / b as f32 }
}

/// ln(x) clipped to [lo, hi]; ln(0) is the lower bound.
fn log_clip(x: f32, lo: f32, hi: f32) -> f32 {
    if x <= 0.0 { lo } else { x.ln().clamp(lo, hi) }
}

/// The text features shared by blocks and inner nodes: b6–b22 of Appendix A, with the
/// character-count logarithm clipped to `chars_hi` (5.5 for blocks, 10 for nodes).
fn text_features(s: &TextStats, chars_hi: f32, out: &mut Vec<f32>) {
    let capital = ratio(s.capitalised, s.words);
    out.extend([
        if s.words == 0 { 3.0 } else { (s.word_chars as f32 / s.words as f32).clamp(3.0, 15.0) },
        flag(s.stopwords > 0),
        ratio(s.stopwords, s.words),
        log_clip(s.chars as f32, 2.5, chars_hi),
        log_clip(ratio(s.punctuation, s.chars), -4.0, -2.5),
        flag(s.numeric > 0),
        ratio(s.numeric, s.chars),
        log_clip(ratio(s.chars, s.sentences.max(1)), 2.0, 5.0),
        flag(s.ends_with_punctuation),
        flag(s.ends_with_question),
        flag(s.copyright),
        flag(s.email),
        flag(s.url),
        flag(s.year),
        capital,
        capital * capital,
        capital * capital * capital,
    ]);
}

/// The 20 features of an inner node (parent, grandparent, root, common ancestor):
/// b29–b48.
fn node_features(cdom: &Cdom, id: usize, out: &mut Vec<f32>) {
    let node = &cdom.nodes[id];
    let s = &node.stats;
    out.push((node.end - node.start) as f32 / cdom.body_length() as f32);
    out.push(ratio(s.link_chars, s.chars));
    text_features(s, 10.0, out);
    out.push(flag(s.form));
}

/// The block features of every leaf, `BLOCK_FEATURES` per block, blocks in order.
pub fn block_features(cdom: &Cdom) -> Vec<[f32; BLOCK_FEATURES]> {
    let mut same_text: foldhash::HashMap<&str, usize> = foldhash::HashMap::default();
    let mut same_path: foldhash::HashMap<u64, usize> = foldhash::HashMap::default();
    let paths = cdom.leaf_class_path_ids();
    for (&leaf, &path) in cdom.leaves.iter().zip(&paths) {
        *same_text.entry(cdom.nodes[leaf].text.as_str()).or_default() += 1;
        *same_path.entry(path).or_default() += 1;
    }
    let first = cdom.leaves.first().map_or(0, |&l| cdom.nodes[l].start);
    let body = cdom.body_length() as f32;
    let mut root = Vec::with_capacity(20);
    if let Some(r) = cdom.root {
        node_features(cdom, r, &mut root);
    } else {
        root.resize(20, 0.0);
    }
    let mut rows = Vec::with_capacity(cdom.leaves.len());
    for (&leaf, path) in cdom.leaves.iter().zip(&paths) {
        let node = &cdom.nodes[leaf];
        let s = &node.stats;
        let mut f = Vec::with_capacity(BLOCK_FEATURES);
        // b1–b3: duplicates and the class path.
        let copies = same_text[node.text.as_str()];
        f.extend([flag(copies > 1), flag(copies > 10), ratio(same_path[path], cdom.leaves.len())]);
        // b4–b27: the block's own text and position.
        let position = ((node.start + node.end) as f32 / 2.0 - first as f32) / body;
        f.extend([flag(s.words > 0), log_clip(s.words as f32, 0.0, 3.5)]);
        let mut text = Vec::with_capacity(17);
        text_features(s, 5.5, &mut text);
        // Appendix A orders these: word length, stopwords, characters, punctuation
        // (has, count, ratio), numbers, sentences, position, endings, capitals.
        f.extend_from_slice(&text[0..4]); // avg word length, has stopword, stopword ratio, log chars
        f.extend([flag(s.punctuation > 0), (s.punctuation as f32).min(10.0)]);
        f.extend_from_slice(&text[4..8]); // punctuation ratio, has numeric, numeric ratio, sentence length
        f.extend([flag(s.sentences > 1), position, position * position]);
        f.extend_from_slice(&text[8..17]); // endings, copyright, email, url, year, capitals
        // b28–b68: the parent, with its tags.
        let parent = node.parent;
        f.push(flag(parent.is_some()));
        match parent {
            Some(p) => {
                node_features(cdom, p, &mut f);
                let tags = &cdom.nodes[p];
                f.extend(PARENT_TAGS.iter().map(|t| flag(tags.has_tag(t))));
            }
            None => f.extend([0.0; 40]),
        }
        // b69–b89: the grandparent.
        let grandparent = parent.and_then(|p| cdom.nodes[p].parent);
        f.push(flag(grandparent.is_some()));
        match grandparent {
            Some(g) => node_features(cdom, g, &mut f),
            None => f.extend([0.0; 20]),
        }
        // b90–b109: the root; b110–b128: the block's own tags.
        f.extend_from_slice(&root);
        f.extend(LEAF_TAGS.iter().map(|t| flag(node.has_tag(t))));
        let mut row = [0.0; BLOCK_FEATURES];
        row.copy_from_slice(&f);
        rows.push(row);
    }
    rows
}

/// The edge features of every pair of neighbouring blocks, `EDGE_FEATURES` per pair.
pub fn edge_features(cdom: &Cdom) -> Vec<[f32; EDGE_FEATURES]> {
    cdom.leaves
        .windows(2)
        .map(|pair| {
            let mut f = Vec::with_capacity(EDGE_FEATURES);
            let (ancestor, distance) = cdom.common_ancestor(pair[0], pair[1]).unwrap_or((pair[0], usize::MAX));
            f.extend([flag(distance == 2), flag(distance == 3), flag(distance == 4), flag(distance > 4)]);
            f.push(flag(cdom.nodes[pair[1]].break_before));
            node_features(cdom, ancestor, &mut f);
            let mut row = [0.0; EDGE_FEATURES];
            row.copy_from_slice(&f);
            row
        })
        .collect()
}

/// Feature names, in order (for the model card and the stored statistics).
pub fn block_feature_names() -> Vec<String> {
    let text = [
        "avg_word_length",
        "has_stopword",
        "stopword_ratio",
        "log_n_characters",
        "log_punctuation_ratio",
        "has_numeric",
        "numeric_ratio",
        "log_avg_sentence_length",
        "ends_with_punctuation",
        "ends_with_question_mark",
        "contains_copyright",
        "contains_email",
        "contains_url",
        "contains_year",
        "ratio_words_with_capital",
        "ratio_words_with_capital^2",
        "ratio_words_with_capital^3",
    ];
    let node = |prefix: &str| {
        let mut v = vec![format!("{prefix}body_percentage"), format!("{prefix}link_density")];
        v.extend(text.iter().map(|t| format!("{prefix}{t}")));
        v.push(format!("{prefix}contains_form_element"));
        v
    };
    let mut names: Vec<String> =
        ["has_duplicate", "has_10_duplicates", "same_class_path_ratio", "has_word", "log_n_words"].iter().map(|s| s.to_string()).collect();
    names.extend(text[0..4].iter().map(|s| s.to_string()));
    names.extend(["contains_punctuation".to_string(), "n_punctuation".to_string()]);
    names.extend(text[4..8].iter().map(|s| s.to_string()));
    names.extend(["has_multiple_sentences", "relative_position", "relative_position^2"].iter().map(|s| s.to_string()));
    names.extend(text[8..17].iter().map(|s| s.to_string()));
    names.push("has_parent".into());
    names.extend(node("p_"));
    names.extend(PARENT_TAGS.iter().map(|t| format!("p_tag_{t}")));
    names.push("has_grandparent".into());
    names.extend(node("gp_"));
    names.extend(node("root_"));
    names.extend(LEAF_TAGS.iter().map(|t| format!("tag_{t}")));
    names
}

pub fn edge_feature_names() -> Vec<String> {
    let mut names: Vec<String> =
        ["tree_distance_2", "tree_distance_3", "tree_distance_4", "tree_distance_more", "line_break"].iter().map(|s| s.to_string()).collect();
    let blocks = block_feature_names();
    // The common ancestor's node features: the same 20 as the parent's.
    names.extend(blocks[28..48].iter().map(|n| format!("common_ancestor_{}", &n[2..])));
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::Dom;

    fn named(names: &[String], row: &[f32], name: &str) -> f32 {
        row[names.iter().position(|n| n == name).unwrap_or_else(|| panic!("no feature {name}"))]
    }

    #[test]
    fn counts_and_names_agree() {
        assert_eq!(block_feature_names().len(), BLOCK_FEATURES);
        assert_eq!(edge_feature_names().len(), EDGE_FEATURES);
        let names = block_feature_names();
        let unique: std::collections::HashSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
    }

    /// A small page, its feature values checked by hand.
    #[test]
    fn a_small_page_by_hand() {
        let html = "<body><ul><li><a href=/>Home</a></li><li><a href=/x>Home</a></li></ul>\
                    <div class=post><h1>Big News Today</h1><p>The cat sat on the mat. It was warm.</p></div></body>";
        let cdom = Cdom::build(
            &Dom::parse_with(html, crate::dom::DomLimits { max_elements: usize::MAX, deadline: None }, &crate::dom::FOR_WEB2TEXT).expect("no limits"),
        );
        let rows = block_features(&cdom);
        let names = block_feature_names();
        assert_eq!(rows.len(), 4); // Home, Home, Big News Today, The cat ...
        let f = |i: usize, name: &str| named(&names, &rows[i], name);
        // "Home" appears twice; the others once.
        assert_eq!((f(0, "has_duplicate"), f(2, "has_duplicate")), (1.0, 0.0));
        // Both links share the class path body>ul>li.a: 2 of 4 blocks.
        assert_eq!(f(0, "same_class_path_ratio"), 0.5);
        // "The cat sat on the mat. It was warm.": 9 words, 26 word characters (2.9, clipped to 3);
        // stopwords the, on, the, it, was → 5/9; 36 characters; two sentences
        // (". It"); punctuation 2; capitals The, It → 2/9.
        assert!((f(3, "log_n_words") - 9f32.ln()).abs() < 1e-6);
        assert_eq!(f(3, "avg_word_length"), 3.0);
        assert!((f(3, "stopword_ratio") - 5.0 / 9.0).abs() < 1e-6);
        assert!((f(3, "log_n_characters") - 36f32.ln()).abs() < 1e-6);
        assert_eq!(f(3, "n_punctuation"), 2.0);
        assert_eq!(f(3, "has_multiple_sentences"), 1.0);
        assert!((f(3, "ratio_words_with_capital") - 2.0 / 9.0).abs() < 1e-6);
        assert_eq!(f(3, "tag_p"), 1.0);
        assert_eq!(f(3, "tag_a"), 0.0);
        // Its parent is div.post (h1 + p); the links' parent is the ul (links only).
        assert_eq!(f(3, "p_tag_div"), 1.0);
        assert_eq!(f(0, "p_tag_ul"), 1.0);
        assert_eq!(f(0, "p_link_density"), 1.0);
        assert_eq!(f(3, "p_link_density"), 0.0);
        assert_eq!(f(0, "tag_a"), 1.0);
        assert_eq!(f(0, "tag_li"), 1.0);
        // Grandparent of the paragraph: body, the root.
        assert_eq!(f(3, "has_grandparent"), 1.0);
        assert_eq!(f(3, "gp_body_percentage"), 1.0);
        assert_eq!(f(3, "root_body_percentage"), 1.0);
        // Positions increase through the page.
        assert!(f(0, "relative_position") < f(2, "relative_position"));
        assert!(f(2, "relative_position") < f(3, "relative_position"));

        let edges = edge_features(&cdom);
        let enames = edge_feature_names();
        assert_eq!(edges.len(), 3);
        let e = |i: usize, name: &str| named(&enames, &edges[i], name);
        assert_eq!(e(0, "tree_distance_2"), 1.0); // the two links, siblings under the ul
        assert_eq!(e(1, "tree_distance_4"), 1.0); // link → ul → body ← div ← h1
        assert_eq!(e(2, "tree_distance_2"), 1.0); // h1 and p under the div
        assert_eq!(e(2, "line_break"), 1.0);
        assert_eq!(e(1, "line_break"), 1.0);
        assert_eq!(e(2, "common_ancestor_link_density"), 0.0);
        assert!(e(1, "common_ancestor_link_density") > 0.0); // the body holds the links
    }
}
