//! From the block trees' probabilities to the page's content blocks. The text is judged
//! by its word F1 against the gold text, so the blocks are chosen to maximise that F1 as
//! the probabilities expect it, not by a fixed cut: a page where the trees doubt every
//! block still gets its likeliest blocks, and a page they are sure of keeps the sure ones.

/// How a page's content blocks follow from their probabilities (stored in the model file,
/// so a model is read the way it was cross-validated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// A block is content at or above the model's threshold (the first models' rule; a
    /// model file that names no decision is read so).
    #[default]
    Threshold,
    /// The blocks, taken in order of probability, up to the count with the highest expected
    /// word F1 (the plug-in rule for F1: Jansche 2007, Nan et al. 2012).
    ExpectedF1,
}

impl Decision {
    pub fn name(self) -> &'static str {
        match self {
            Self::Threshold => "threshold",
            Self::ExpectedF1 => "expected-f1",
        }
    }

    /// Which blocks are content, given each block's probability and word count. Blocks
    /// without words change no word F1: they follow the threshold under either rule.
    pub fn content(self, probabilities: &[f64], words: &[u32], threshold: f64) -> Vec<bool> {
        let by_threshold = |i: usize| probabilities.get(i).is_some_and(|&p| p >= threshold);
        match self {
            Self::Threshold => (0..words.len()).map(by_threshold).collect(),
            Self::ExpectedF1 => {
                let mut content: Vec<bool> = (0..words.len()).map(|i| words[i] == 0 && by_threshold(i)).collect();
                for i in expected_f1_blocks(probabilities, words) {
                    content[i] = true;
                }
                content
            }
        }
    }
}

/// The blocks with words that maximise the expected word F1. With `p` a block's
/// probability and `w` its words, the page's gold words are expected to number Σ p·w over
/// all blocks, and a set S of blocks to hold Σ_S p·w of them among its Σ_S w words, so
/// its F1 is expected near 2·Σ_S p·w / (Σ_S w + Σ p·w). For any size, the likeliest
/// blocks maximise it; the best size is found by trying each (one pass after a sort).
fn expected_f1_blocks(probabilities: &[f64], words: &[u32]) -> Vec<usize> {
    // A probability that is no number counts as none.
    let weighted = |i: usize| probabilities.get(i).copied().filter(|p| !p.is_nan()).unwrap_or(0.0).clamp(0.0, 1.0);
    // Likeliest first, ties in document order, so the same page always gives the same
    // text: sorted as (descending probability, index) keys, which a plain sort orders
    // faster than a comparison of the probabilities does.
    let mut keyed: Vec<(std::cmp::Reverse<u64>, usize)> =
        (0..words.len()).filter(|&i| words[i] > 0).map(|i| (std::cmp::Reverse(total_order_key(weighted(i))), i)).collect();
    keyed.sort_unstable();
    let mut order: Vec<usize> = keyed.into_iter().map(|(_, i)| i).collect();
    let expected_gold: f64 = order.iter().map(|&i| weighted(i) * f64::from(words[i])).sum();
    let (mut best, mut best_count) = (0.0, 0);
    let (mut expected_hits, mut taken) = (0.0, 0.0);
    for (k, &i) in order.iter().enumerate() {
        expected_hits += weighted(i) * f64::from(words[i]);
        taken += f64::from(words[i]);
        let f1 = 2.0 * expected_hits / (taken + expected_gold);
        if f1 > best {
            (best, best_count) = (f1, k + 1);
        }
    }
    // The empty text is the right one when the page holds no content at all: the chance
    // that no block is (the blocks taken as independent) against what the best blocks expect.
    let log_none: f64 = order.iter().map(|&i| (1.0 - weighted(i)).ln()).sum();
    let none = log_none.exp();
    if none > (1.0 - none) * best {
        best_count = 0;
    }
    order.truncate(best_count);
    order
}

/// A number whose unsigned order is `x`'s [`f64::total_cmp`] order.
fn total_order_key(x: f64) -> u64 {
    let bits = x.to_bits();
    // Negative numbers: all bits flipped (larger magnitude, smaller key); others: the sign bit set.
    if bits >> 63 == 1 { !bits } else { bits | (1 << 63) }
}

/// [`total_order_key`] of an `f32`, in its own bits.
pub(super) fn total_order_key_f32(x: f32) -> u32 {
    let bits = x.to_bits();
    if bits >> 31 == 1 { !bits } else { bits | (1 << 31) }
}

/// The word F1 the probabilities expect of the blocks in `content` (0 when they expect no
/// gold words): the figure [`Decision::ExpectedF1`] maximises, for any choice of blocks.
pub fn expected_f1(probabilities: &[f64], words: &[u32], content: &[bool]) -> f64 {
    let weighted = |i: usize| probabilities.get(i).copied().filter(|p| !p.is_nan()).unwrap_or(0.0).clamp(0.0, 1.0);
    let (mut expected_gold, mut expected_hits, mut taken) = (0.0, 0.0, 0.0);
    for (i, &w) in words.iter().enumerate() {
        let w = f64::from(w);
        expected_gold += weighted(i) * w;
        if content.get(i).copied().unwrap_or(false) {
            expected_hits += weighted(i) * w;
            taken += w;
        }
    }
    if taken + expected_gold > 0.0 { 2.0 * expected_hits / (taken + expected_gold) } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_order_numbers_as_total_cmp_does() {
        let values = [f64::NEG_INFINITY, -2.5, -1e-30, -0.0, 0.0, 1e-30, 0.5, 1.0, f64::INFINITY, f64::NAN, -f64::NAN];
        for a in values {
            for b in values {
                assert_eq!(total_order_key(a).cmp(&total_order_key(b)), a.total_cmp(&b), "{a} against {b}");
                let (a, b) = (a as f32, b as f32);
                assert_eq!(total_order_key_f32(a).cmp(&total_order_key_f32(b)), a.total_cmp(&b), "{a} against {b} (f32)");
            }
        }
    }

    #[test]
    fn a_threshold_keeps_what_reaches_it() {
        let content = Decision::Threshold.content(&[0.9, 0.5, 0.49, 0.1], &[10, 3, 8, 0], 0.5);
        assert_eq!(content, [true, true, false, false]);
    }

    #[test]
    fn expected_f1_keeps_the_likeliest_blocks_of_a_doubted_page() {
        // Every block under one half: a threshold keeps nothing, expected F1 the likeliest.
        let probabilities = [0.05, 0.45, 0.4, 0.02, 0.3];
        let words = [50, 40, 60, 30, 20];
        assert!(Decision::Threshold.content(&probabilities, &words, 0.5).iter().all(|&c| !c));
        let content = Decision::ExpectedF1.content(&probabilities, &words, 0.5);
        assert_eq!(content, [false, true, true, false, true]);
    }

    #[test]
    fn expected_f1_leaves_out_what_would_cost_more_than_it_brings() {
        // A sure block and a long doubtful one: taking the doubtful one lowers the expected F1.
        let content = Decision::ExpectedF1.content(&[0.95, 0.3], &[100, 400], 0.5);
        assert_eq!(content, [true, false]);
        // On a page the trees are less sure of, a doubtful block is worth taking.
        let content = Decision::ExpectedF1.content(&[0.7, 0.45], &[100, 5], 0.5);
        assert_eq!(content, [true, true]);
    }

    #[test]
    fn a_page_of_doubted_blocks_only_gives_no_text() {
        // A few blocks, none likely: the chance that none is content (0.95 · 0.9 · 0.92 =
        // 0.79) outweighs what the best of them expect, so the text is empty.
        assert_eq!(Decision::ExpectedF1.content(&[0.05, 0.1, 0.08], &[10, 20, 5], 0.5), [false, false, false]);
        // One likely block among them is worth its doubt.
        assert_eq!(Decision::ExpectedF1.content(&[0.05, 0.6, 0.08], &[10, 20, 5], 0.5), [false, true, false]);
        // Many doubted blocks: some of them surely are content.
        let (probabilities, words) = (vec![0.1; 40], vec![20; 40]);
        assert!(Decision::ExpectedF1.content(&probabilities, &words, 0.5).contains(&true));
    }

    #[test]
    fn blocks_without_words_follow_the_threshold_and_nothing_likely_gives_nothing() {
        let content = Decision::ExpectedF1.content(&[0.9, 0.7, 0.2], &[0, 0, 0], 0.5);
        assert_eq!(content, [true, true, false]);
        let content = Decision::ExpectedF1.content(&[0.0, 0.0], &[10, 20], 0.5);
        assert_eq!(content, [false, false], "no expected gold words: an empty text");
        assert!(Decision::ExpectedF1.content(&[], &[], 0.5).is_empty());
    }

    #[test]
    fn the_expected_f1_is_what_the_decision_maximises() {
        let probabilities = [0.95, 0.3, 0.8];
        let words = [100, 400, 50];
        let chosen = Decision::ExpectedF1.content(&probabilities, &words, 0.5);
        let best = expected_f1(&probabilities, &words, &chosen);
        for other in [[true, true, true], [true, false, false], [false, false, true], [false, true, false]] {
            assert!(expected_f1(&probabilities, &words, &other) <= best, "{other:?}");
        }
        // Sure blocks, all kept: near one; nothing expected: zero.
        assert!(expected_f1(&[1.0, 1.0], &[10, 10], &[true, true]) > 0.999);
        assert_eq!(expected_f1(&[0.0], &[10], &[true]), 0.0);
        assert_eq!(expected_f1(&[], &[], &[]), 0.0);
    }

    #[test]
    fn the_same_probabilities_give_the_same_blocks() {
        let probabilities = [0.6, 0.6, 0.6, 0.1, f64::NAN];
        let words = [5, 5, 5, 5, 5];
        let first = Decision::ExpectedF1.content(&probabilities, &words, 0.5);
        assert_eq!(first, Decision::ExpectedF1.content(&probabilities, &words, 0.5));
        assert_eq!(first, [true, true, true, false, false]);
    }
}
