//! How far a page's text can be trusted: the `extraction_confidence` column. Small
//! regression trees predict the word F1 of the combiner's text from what the decision
//! already knows: how sure the block trees were, the F1 they expect of the kept blocks,
//! how much of the page was kept, whether the article and list-view extractors agree
//! with the kept blocks, and the page-level inputs every block row ends with. They are
//! trained on cross-validation's out-of-fold pages (as new sites look to the trees), so
//! the prediction is calibrated on sites the trees never saw (`goce_warc_train::combine`).

use forust_ml::{GradientBooster, Matrix};

use super::BlockTable;
use super::blocks::PAGE_INPUTS;
use super::decide::expected_f1;

/// The inputs of one page besides the block rows' page-level ones, in order.
const DECISION_INPUTS: &[&str] = &[
    "kept_word_share", "mean_probability", "unsure_word_share", "expected_f1", "expected_precision", "expected_recall", "log_kept_words", "kept_in_article",
    "article_kept", "kept_in_list_view", "list_view_kept",
];

/// The names of [`inputs`], in order (stored with the model and checked on load).
pub fn input_names() -> Vec<String> {
    let names = super::blocks::feature_names();
    let mut out: Vec<String> = names[names.len() - PAGE_INPUTS..].to_vec();
    out.extend(DECISION_INPUTS.iter().map(|s| s.to_string()));
    out
}

/// What the confidence trees read about a page: its page-level inputs, then the decision's
/// figures ([`DECISION_INPUTS`]), from each block's probability and whether it was kept.
pub fn inputs(table: &BlockTable, probabilities: &[f64], content: &[bool]) -> Vec<f32> {
    let mut f: Vec<f32> = table.page_inputs().to_vec();
    f.resize(PAGE_INPUTS, f32::NAN);
    let probability = |i: usize| probabilities.get(i).copied().filter(|p| !p.is_nan()).unwrap_or(0.0).clamp(0.0, 1.0);
    let kept = |i: usize| content.get(i).copied().unwrap_or(false);
    // Word sums over the blocks `pick` selects, each block weighing `value`.
    let sum = |pick: &dyn Fn(usize) -> bool, value: &dyn Fn(usize) -> f64| -> f64 {
        table.words.iter().enumerate().filter(|&(i, _)| pick(i)).map(|(i, &w)| f64::from(w) * value(i)).sum()
    };
    let one = |_: usize| 1.0;
    let share = |part: f64, whole: f64| if whole > 0.0 { (part / whole) as f32 } else { 0.0 };
    let total = sum(&|_| true, &one);
    let kept_words = sum(&kept, &one);
    let expected_gold = sum(&|_| true, &probability);
    let expected_hits = sum(&kept, &probability);
    let article = |i: usize| table.in_article(i);
    let list_view = |i: usize| table.in_list_view(i);
    f.extend([
        share(kept_words, total),
        share(expected_gold, total),
        share(sum(&|i| (0.2..0.8).contains(&probability(i)), &one), total),
        expected_f1(probabilities, &table.words, content) as f32,
        share(expected_hits, kept_words),
        share(expected_hits, expected_gold),
        kept_words.ln_1p() as f32,
        share(sum(&|i| kept(i) && article(i), &one), kept_words),
        share(sum(&|i| kept(i) && article(i), &one), sum(&article, &one)),
        share(sum(&|i| kept(i) && list_view(i), &one), kept_words),
        share(sum(&|i| kept(i) && list_view(i), &one), sum(&list_view, &one)),
    ]);
    debug_assert_eq!(f.len(), PAGE_INPUTS + DECISION_INPUTS.len());
    f
}

/// The trees' prediction for a page's [`inputs`], held to 0–1.
pub fn predict(trees: &GradientBooster, inputs: &[f32]) -> f32 {
    let columns: Vec<f64> = inputs.iter().map(|&v| f64::from(v)).collect();
    let matrix = Matrix::new(&columns, 1, columns.len());
    let predicted = trees.predict(&matrix, false).first().copied().unwrap_or(f64::NAN);
    if predicted.is_nan() { 0.0 } else { predicted.clamp(0.0, 1.0) as f32 }
}
