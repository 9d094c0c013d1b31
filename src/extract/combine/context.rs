//! The second stage's inputs: what the first block trees said about a block's
//! surroundings. The first trees decide each block from its own row; a product grid's
//! one-word prices or a thread's short replies then look like chrome one by one. Here each
//! block also sees its neighbours' probabilities, the word-weighted probability of the
//! containers above it (parent to great-great-grandparent in the collapsed DOM) and of
//! the blocks that share its class path, so a second set of trees can keep a block
//! because the container it sits in is content (stacking, as Web2Text's structured
//! prediction smooths its block labels with their neighbours').

use super::blocks::BlockTable;

/// How many containers above a block are summarised.
const LEVELS: usize = 4;
/// The windows of blocks each side whose word-weighted probability is an input.
const WINDOWS: [usize; 2] = [3, 10];

/// The names of [`context_features`]' columns, in order.
pub fn context_feature_names() -> Vec<String> {
    let mut names = vec!["first_probability".to_string()];
    names.extend(["prev2", "prev1", "next1", "next2"].map(|s| format!("first_probability_{s}")));
    names.extend(WINDOWS.map(|w| format!("window{w}_probability")));
    for level in 1..=LEVELS {
        names.extend(["probability", "content_share", "log_blocks", "page_word_share"].map(|s| format!("container{level}_{s}")));
    }
    names.extend(["same_class_path_probability", "same_class_path_log_blocks", "page_probability", "page_content_share"].map(String::from));
    names
}

/// The number of context columns per block.
pub fn context_feature_count() -> usize {
    1 + 4 + WINDOWS.len() + 4 * LEVELS + 4
}

/// Row-major context columns for every block of `table` ([`context_feature_count`] per
/// block), from the first trees' `probabilities` (one per block). A block's own words
/// count at least 1, so blocks without words still weigh a little.
pub fn context_features(table: &BlockTable, probabilities: &[f64], threshold: f64) -> Vec<f32> {
    let n = table.len().min(probabilities.len());
    let cdom = &table.cdom;
    let weight: Vec<f64> = table.words.iter().map(|&w| f64::from(w.max(1))).collect();
    let total: f64 = weight.iter().sum::<f64>().max(1.0);
    let content = |i: usize| if probabilities[i] >= threshold { 1.0 } else { 0.0 };

    // Per CDOM node: summed weight, weight × probability, weight × content, leaf count.
    // Children come before their parents in `nodes` (the builder pushes them first).
    let mut sums = vec![[0.0f64; 4]; cdom.nodes.len()];
    for (i, &leaf) in cdom.leaves.iter().enumerate().take(n) {
        sums[leaf] = [weight[i], weight[i] * probabilities[i], weight[i] * content(i), 1.0];
    }
    for id in 0..cdom.nodes.len() {
        if let Some(parent) = cdom.nodes[id].parent.filter(|&p| p > id) {
            let s = sums[id];
            for (a, b) in sums[parent].iter_mut().zip(s) {
                *a += b;
            }
        }
    }

    // Prefix sums for the windows.
    let mut prefix = vec![[0.0f64; 2]; n + 1];
    for i in 0..n {
        prefix[i + 1] = [prefix[i][0] + weight[i], prefix[i][1] + weight[i] * probabilities[i]];
    }
    let window = |i: usize, w: usize| {
        let (lo, hi) = (i.saturating_sub(w), (i + w + 1).min(n));
        let mass = prefix[hi][0] - prefix[lo][0];
        if mass > 0.0 { ((prefix[hi][1] - prefix[lo][1]) / mass) as f32 } else { f32::NAN }
    };

    // Blocks that share a class path (repeated items of one template).
    let paths = cdom.leaf_class_path_ids();
    let mut by_path: foldhash::HashMap<u64, [f64; 3]> = foldhash::HashMap::default();
    for i in 0..n {
        let e = by_path.entry(paths[i]).or_insert([0.0; 3]);
        e[0] += weight[i];
        e[1] += weight[i] * probabilities[i];
        e[2] += 1.0;
    }
    let page_probability = (prefix[n][1] / total) as f32;
    let page_content = ((0..n).map(|i| weight[i] * content(i)).sum::<f64>() / total) as f32;

    let cols = context_feature_count();
    let mut out = Vec::with_capacity(n * cols);
    for i in 0..n {
        let p = |j: Option<usize>| j.filter(|&j| j < n).map_or(f32::NAN, |j| probabilities[j] as f32);
        out.push(probabilities[i] as f32);
        out.extend([p(i.checked_sub(2)), p(i.checked_sub(1)), p(Some(i + 1)), p(Some(i + 2))]);
        out.extend(WINDOWS.map(|w| window(i, w)));
        let mut above = cdom.ancestors(cdom.leaves[i]);
        for _ in 0..LEVELS {
            match above.next() {
                Some(a) => {
                    let [mass, prob, kept, blocks] = sums[a];
                    let mass = mass.max(f64::MIN_POSITIVE);
                    out.extend([(prob / mass) as f32, (kept / mass) as f32, blocks.ln_1p() as f32, (sums[a][0] / total) as f32]);
                }
                None => out.extend([f32::NAN; 4]),
            }
        }
        let [mass, prob, count] = by_path.get(&paths[i]).copied().unwrap_or([1.0, 0.0, 1.0]);
        out.extend([(prob / mass.max(f64::MIN_POSITIVE)) as f32, count.ln_1p() as f32, page_probability, page_content]);
    }
    debug_assert_eq!(out.len(), n * cols);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::Dom;
    use crate::extract::PageAnalysis;

    #[test]
    fn names_and_columns_agree() {
        assert_eq!(context_feature_names().len(), context_feature_count());
    }

    #[test]
    fn a_block_sees_its_container_and_its_template() {
        let dom = Dom::parse_unbounded(
            "<body><nav><a href=/>Home</a></nav><ul class=grid>\
             <li class=card><p class=name>First product name</p><p class=price>$1</p></li>\
             <li class=card><p class=name>Second product name</p><p class=price>$2</p></li></ul></body>",
        );
        let table = BlockTable::of(&PageAnalysis::new(&dom));
        assert_eq!(table.texts(), ["Home", "First product name", "$1", "Second product name", "$2"]);
        // The names are sure, the prices not: the prices' grid is mostly content.
        let probabilities = [0.1, 0.9, 0.2, 0.9, 0.3];
        let rows = context_features(&table, &probabilities, 0.5);
        let names = context_feature_names();
        let col = |name: &str| names.iter().position(|n| n == name).unwrap();
        let cols = context_feature_count();
        let at = |block: usize, name: &str| rows[block * cols + col(name)];
        assert_eq!(at(2, "first_probability"), 0.2);
        assert_eq!(at(2, "first_probability_prev1"), 0.9);
        assert!(at(0, "first_probability_prev1").is_nan());
        // The first price's two prices share a class path: (0.2 + 0.3) / 2 by their one word each.
        assert!((at(2, "same_class_path_probability") - 0.25).abs() < 1e-6);
        // Some container above the price is the grid: both names (3 words each) and both prices.
        let grid = (1..=LEVELS).find(|l| (at(2, &format!("container{l}_log_blocks")) - 4f32.ln_1p()).abs() < 1e-6).expect("the grid is above the price");
        let grid_probability = at(2, &format!("container{grid}_probability"));
        assert!((grid_probability - (3.0 * 0.9 + 0.2 + 3.0 * 0.9 + 0.3) / 8.0).abs() < 1e-6, "{grid_probability}");
        // Its content share counts the names' words only (the prices are under the threshold).
        assert!((at(2, &format!("container{grid}_content_share")) - 6.0 / 8.0).abs() < 1e-6);
    }
}
