//! Extraction quality metrics.
//!
//! - WCXB word F1: bags of lower-case `\w+` tokens; P = overlap / |predicted|,
//!   R = overlap / |gold|; an empty gold scores 1 only for an empty prediction.
//! - The GOCE paper's sequence metric (section 4.3): precision and recall of the longest
//!   common subsequence of the two word sequences (equations 3, 4).
//! - The paper's bag-of-words cosine (equation 5).
//! - WCXB snippets: the share of `with` snippets the prediction contains and of
//!   `without` snippets it avoids.

use std::collections::HashMap;

#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Prf {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

impl Prf {
    fn from_counts(common: usize, predicted: usize, gold: usize) -> Self {
        if gold == 0 {
            let score = if predicted == 0 { 1.0 } else { 0.0 };
            return Self { precision: score, recall: score, f1: score };
        }
        if predicted == 0 || common == 0 {
            return Self::default();
        }
        let precision = common as f64 / predicted as f64;
        let recall = common as f64 / gold as f64;
        Self { precision, recall, f1: 2.0 * precision * recall / (precision + recall) }
    }
}

/// Lower-case `\w+` tokens (Unicode letters, digits, marks and connector punctuation).
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' || is_mark(c) {
            current.extend(c.to_lowercase());
        } else if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn is_mark(c: char) -> bool {
    // Combining marks belong to \w in Python's `re`; the common blocks suffice here.
    matches!(c as u32, 0x0300..=0x036F | 0x0900..=0x0DFF | 0x0E31..=0x0E4E | 0x3099..=0x309A) && !c.is_alphanumeric()
}

fn bag(tokens: &[String]) -> HashMap<&str, usize> {
    let mut bag = HashMap::with_capacity(tokens.len());
    for t in tokens {
        *bag.entry(t.as_str()).or_insert(0) += 1;
    }
    bag
}

/// WCXB's word F1.
pub fn word_prf(predicted: &[String], gold: &[String]) -> Prf {
    let (p, g) = (bag(predicted), bag(gold));
    let common = p.iter().map(|(w, n)| (*n).min(g.get(w).copied().unwrap_or(0))).sum();
    Prf::from_counts(common, predicted.len(), gold.len())
}

/// The GOCE paper's LCS precision, recall and F1 over word sequences.
pub fn lcs_prf(predicted: &[String], gold: &[String]) -> Prf {
    Prf::from_counts(lcs_len(predicted, gold), predicted.len(), gold.len())
}

/// Cosine of the bag-of-words vectors (1 when both are empty).
pub fn cosine(predicted: &[String], gold: &[String]) -> f64 {
    if predicted.is_empty() && gold.is_empty() {
        return 1.0;
    }
    let (p, g) = (bag(predicted), bag(gold));
    let dot: f64 = p.iter().map(|(w, n)| (*n * g.get(w).copied().unwrap_or(0)) as f64).sum();
    let norm = |b: &HashMap<&str, usize>| b.values().map(|n| (n * n) as f64).sum::<f64>().sqrt();
    let denominator = norm(&p) * norm(&g);
    if denominator == 0.0 { 0.0 } else { dot / denominator }
}

/// Length of the longest common subsequence, bit-parallel (Hyyrö 2004):
/// O(|a| · |b| / 64), fast enough for whole pages.
pub fn lcs_len(a: &[String], b: &[String]) -> usize {
    let (a, b) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if a.is_empty() {
        return 0;
    }
    let blocks = a.len().div_ceil(64);
    let mut masks: HashMap<&str, Vec<u64>> = HashMap::new();
    for (i, w) in a.iter().enumerate() {
        masks.entry(w.as_str()).or_insert_with(|| vec![0; blocks])[i / 64] |= 1 << (i % 64);
    }
    let mut v = vec![u64::MAX; blocks];
    for w in b {
        let Some(m) = masks.get(w.as_str()) else { continue };
        let mut carry = 0u64;
        let mut borrow = 0u64;
        for k in 0..blocks {
            let u = v[k] & m[k];
            // (V + U) with carry, (V - U) with borrow, per 64-bit block.
            let (sum, c1) = v[k].overflowing_add(u);
            let (sum, c2) = sum.overflowing_add(carry);
            carry = u64::from(c1 || c2);
            let (diff, b1) = v[k].overflowing_sub(u);
            let (diff, b2) = diff.overflowing_sub(borrow);
            borrow = u64::from(b1 || b2);
            v[k] = sum | diff;
        }
    }
    let zeros: usize = v.iter().map(|x| x.count_zeros() as usize).sum();
    // Bits past |a| in the last block start as ones and never turn to zero.
    zeros
}

/// Case- and whitespace-insensitive containment, as WCXB checks its snippets.
pub fn normalise(text: &str) -> String {
    text.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join(" ")
}

/// (share of `with` snippets found, share of `without` snippets avoided); None when a
/// page has no snippets of that kind.
pub fn snippets(predicted: &str, with: &[String], without: &[String]) -> (Option<f64>, Option<f64>) {
    let text = normalise(predicted);
    let share = |list: &[String], want: bool| {
        let list: Vec<String> = list.iter().map(|s| normalise(s)).filter(|s| !s.is_empty()).collect();
        (!list.is_empty()).then(|| list.iter().filter(|s| text.contains(s.as_str()) == want).count() as f64 / list.len() as f64)
    };
    (share(with, true), share(without, false))
}

/// A page's snippet counts as trafilatura's benchmark counts them (case-sensitive, the
/// whitespace-normalised snippet a substring of the whitespace-normalised text): `with`
/// found = true positive, missing = false negative; `without` found = false positive,
/// absent = true negative. Summed over a set, they give its precision, recall and F1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SnippetCounts {
    pub tp: usize,
    #[serde(rename = "fn")]
    pub fn_: usize,
    pub fp: usize,
    pub tn: usize,
}

impl SnippetCounts {
    pub fn of(predicted: &str, with: &[String], without: &[String]) -> Self {
        let text = collapse(predicted);
        let found = |s: &String| text.contains(collapse(s).as_str());
        let tp = with.iter().filter(|s| found(s)).count();
        let fp = without.iter().filter(|s| found(s)).count();
        Self { tp, fn_: with.len() - tp, fp, tn: without.len() - fp }
    }

    pub fn add(&mut self, other: Self) {
        self.tp += other.tp;
        self.fn_ += other.fn_;
        self.fp += other.fp;
        self.tn += other.tn;
    }

    pub fn precision(&self) -> f64 {
        if self.tp + self.fp == 0 { 0.0 } else { self.tp as f64 / (self.tp + self.fp) as f64 }
    }

    pub fn recall(&self) -> f64 {
        if self.tp + self.fn_ == 0 { 0.0 } else { self.tp as f64 / (self.tp + self.fn_) as f64 }
    }

    pub fn f1(&self) -> f64 {
        if self.tp == 0 { 0.0 } else { 2.0 * self.tp as f64 / (2 * self.tp + self.fp + self.fn_) as f64 }
    }
}

/// Whitespace runs as one space, case kept.
pub fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        words(s)
    }

    #[test]
    fn tokens_are_lower_case_word_runs() {
        assert_eq!(w("Hello, World! It's 2024_05 — Köln."), ["hello", "world", "it", "s", "2024_05", "köln"]);
    }

    #[test]
    fn word_f1_is_a_bag_overlap() {
        let prf = word_prf(&w("a b b c"), &w("b b d"));
        assert!((prf.precision - 0.5).abs() < 1e-9);
        assert!((prf.recall - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(word_prf(&w(""), &w("")).f1, 1.0);
        assert_eq!(word_prf(&w("x"), &w("")).f1, 0.0);
        assert_eq!(word_prf(&w(""), &w("x")).f1, 0.0);
    }

    #[test]
    fn lcs_matches_the_dynamic_programme() {
        fn slow(a: &[String], b: &[String]) -> usize {
            let mut dp = vec![vec![0; b.len() + 1]; a.len() + 1];
            for i in 1..=a.len() {
                for j in 1..=b.len() {
                    dp[i][j] = if a[i - 1] == b[j - 1] { dp[i - 1][j - 1] + 1 } else { dp[i - 1][j].max(dp[i][j - 1]) };
                }
            }
            dp[a.len()][b.len()]
        }
        let mut seed = 7u64;
        for round in 0..50 {
            let mut make = |n: usize| -> Vec<String> {
                (0..n)
                    .map(|_| {
                        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                        format!("w{}", (seed >> 33) % 5)
                    })
                    .collect()
            };
            let a = make(round * 7 % 150 + 1);
            let b = make(round * 13 % 170);
            assert_eq!(lcs_len(&a, &b), slow(&a, &b), "round {round}");
        }
        assert_eq!(lcs_len(&w("the cat sat on the mat"), &w("the dog sat on a mat")), 4);
    }

    #[test]
    fn cosine_of_bags() {
        assert!((cosine(&w("a b"), &w("a b")) - 1.0).abs() < 1e-9);
        assert_eq!(cosine(&w("a"), &w("b")), 0.0);
    }

    #[test]
    fn snippets_found_and_avoided() {
        let (with, without) = snippets("The  Main text here.", &["main TEXT".into(), "absent".into()], &["menu".into()]);
        assert_eq!((with, without), (Some(0.5), Some(1.0)));
        assert_eq!(snippets("x", &[], &[]), (None, None));
    }

    #[test]
    fn snippet_counts_follow_trafilaturas_benchmark() {
        let with = ["Main  text".to_string(), "main text".into(), "absent".into()];
        let without = ["Menu".to_string(), "Footer".into()];
        let c = SnippetCounts::of("The Main\ntext here. Menu", &with, &without);
        assert_eq!(c, SnippetCounts { tp: 1, fn_: 2, fp: 1, tn: 1 });
        assert!((c.precision() - 0.5).abs() < 1e-9);
        assert!((c.recall() - 1.0 / 3.0).abs() < 1e-9);
        assert!((c.f1() - 0.4).abs() < 1e-9);
    }
}
