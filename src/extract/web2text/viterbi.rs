//! Inference over the hidden Markov model of the paper's equation 3: the labelling
//! `l` of blocks `1..n` that maximises
//! `Σ_i log p_i(l_i) + λ Σ_i log p_{i,i+1}(l_i, l_{i+1})`,
//! with the unary CNN's probabilities `p_i` and the pairwise CNN's `p_{i,i+1}`.

/// Block labels: 0 = boilerplate, 1 = content.
pub type Label = u8;

/// Probabilities are floored here before the logarithm, so a network that is certain
/// never makes a labelling impossible.
const MIN_PROBABILITY: f32 = 1e-12;

/// The most probable labelling. `unary[i] = [p(boilerplate), p(content)]` of block `i`;
/// `pairwise[i] = [p(0,0), p(0,1), p(1,0), p(1,1)]` of blocks `i` and `i + 1` (first label
/// of block `i`); `lambda` weighs the pairwise terms. Missing pairwise rows count as
/// uninformative.
pub fn viterbi(unary: &[[f32; 2]], pairwise: &[[f32; 4]], lambda: f32) -> Vec<Label> {
    let n = unary.len();
    if n == 0 {
        return Vec::new();
    }
    let ln = |p: f32| p.max(MIN_PROBABILITY).ln();
    // best[l]: the best score of blocks 0..=i with block i labelled l; back[i][l]: the
    // label of block i - 1 on that best path.
    let mut best = [ln(unary[0][0]), ln(unary[0][1])];
    let mut back: Vec<[Label; 2]> = Vec::with_capacity(n);
    back.push([0, 0]);
    #[allow(clippy::needless_range_loop)] // i names block i in unary, pairwise and back alike
    for i in 1..n {
        let pair = pairwise.get(i - 1).copied().unwrap_or([0.25; 4]);
        let mut next = [0.0f32; 2];
        let mut from = [0 as Label; 2];
        for (to, slot) in next.iter_mut().enumerate() {
            let via = |prev: usize| best[prev] + lambda * ln(pair[prev * 2 + to]);
            let (a, b) = (via(0), via(1));
            from[to] = Label::from(b > a);
            *slot = a.max(b) + ln(unary[i][to]);
        }
        best = next;
        back.push(from);
    }
    let mut labels = vec![0 as Label; n];
    labels[n - 1] = Label::from(best[1] > best[0]);
    for i in (1..n).rev() {
        labels[i - 1] = back[i][labels[i] as usize];
    }
    labels
}

/// Each block on its own: the unary network's more probable label (the ablation).
pub fn unary_only(unary: &[[f32; 2]]) -> Vec<Label> {
    unary.iter().map(|p| Label::from(p[1] > p[0])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three blocks computed by hand. Unary: block 0 leans content (0.6), block 1 leans
    /// boilerplate (0.45 content), block 2 is content (0.9). Pairwise favours equal
    /// neighbours (0.4 each for 00 and 11, 0.1 for a change).
    /// With λ = 1 the scores of the eight labellings (sum of logs) are, for example,
    ///   111: ln .6 + ln .45 + ln .9 + 2 ln .4 = -0.511 - 0.799 - 0.105 - 1.833 = -3.248
    ///   101: ln .6 + ln .55 + ln .9 + 2 ln .1 = -0.511 - 0.598 - 0.105 - 4.605 = -5.819
    ///   011: ln .4 + ln .45 + ln .9 + ln .1 + ln .4 = -0.916 - 0.799 - 0.105 - 2.303 - 0.916 = -5.039
    ///   001: ln .4 + ln .55 + ln .9 + ln .4 + ln .1 = -0.916 - 0.598 - 0.105 - 0.916 - 2.303 = -4.838
    /// and 111 is the best: the pairwise term pulls block 1 to content.
    /// With λ = 0 only the unary terms count and block 1 is boilerplate: 101.
    #[test]
    fn three_blocks_by_hand() {
        let unary = [[0.4, 0.6], [0.55, 0.45], [0.1, 0.9]];
        let pairwise = [[0.4, 0.1, 0.1, 0.4]; 2];
        assert_eq!(viterbi(&unary, &pairwise, 1.0), vec![1, 1, 1]);
        assert_eq!(viterbi(&unary, &pairwise, 0.0), vec![1, 0, 1]);
        assert_eq!(unary_only(&unary), vec![1, 0, 1]);
    }

    /// A pairwise model that forbids changes wins over weak unaries, and the path is
    /// read back in the right order (first block's label first).
    #[test]
    fn strong_transitions_and_order() {
        let unary = [[0.9, 0.1], [0.2, 0.8], [0.2, 0.8], [0.2, 0.8]];
        let stay = [[0.5, 0.0, 0.0, 0.5]; 3];
        assert_eq!(viterbi(&unary, &stay, 1.0), vec![1, 1, 1, 1]);
        let free = [[0.25; 4]; 3];
        assert_eq!(viterbi(&unary, &free, 1.0), vec![0, 1, 1, 1]);
        assert!(viterbi(&[], &[], 0.1).is_empty());
        assert_eq!(viterbi(&[[0.3, 0.7]], &[], 0.1), vec![1]);
    }
}
