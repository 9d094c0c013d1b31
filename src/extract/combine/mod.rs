//! The trained combiner (`--extractor combined`, the default): gradient-boosted trees
//! give each block of the page a probability of being content, and the page keeps the
//! blocks with the highest expected word F1 ([`decide`]). The trees' inputs are what the
//! other extractors already compute ([`blocks`]): Web2Text's block features, the blocks
//! the article and list-view algorithms chose or pruned, the neighbours' choices, the
//! class/id words and tags above each block, and how the candidates relate on the page.
//! Trained on every page with gold text in WCXB-dev, CleanEval and Scrapinghub, labels
//! from the alignment Web2Text's trainer uses, and evaluated by domain-grouped
//! cross-validation ([`crate::train::combine`]; `make model-extract`).

pub mod blocks;
pub mod context;
pub mod decide;
pub mod trees;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use forust_ml::{GradientBooster, Matrix};

use crate::extract::PageAnalysis;

pub use blocks::{BlockTable, CandidateTexts};
pub use decide::Decision;
use trees::FlatTrees;

pub const MODEL_FILE: &str = crate::models::COMBINER;
/// The model file's format tag: a file of another format is refused on load.
pub const FORMAT: &str = "goce-warc combiner 1";
const HOW_TO_FIX: &str = "restore models/ from the goce-warc repository, or retrain with `make model-extract`";

#[derive(Debug, thiserror::Error)]
pub enum CombineError {
    #[error("combiner model {path}: {detail}; {HOW_TO_FIX}")]
    Model { path: PathBuf, detail: String },
    #[error("combiner model: {0}")]
    NoModels(String),
    #[error("{what}: {detail}")]
    Training { what: String, detail: String },
}

/// The stored model: the trees and what they were trained on.
#[derive(serde::Serialize, serde::Deserialize)]
struct ModelFile {
    format: String,
    /// The feature names in row order; must equal [`blocks::feature_names`].
    features: Vec<String>,
    /// A block is content when its probability is at least this (under
    /// [`Decision::Threshold`], and for blocks without words).
    threshold: f64,
    /// How the content blocks follow from the probabilities (a file without one: the
    /// threshold, as the first models were read).
    #[serde(default)]
    decision: Decision,
    /// forust-ml's own JSON of the booster.
    booster: serde_json::Value,
    /// The second stage's trees (none: the first trees decide), over a block's row and
    /// [`context::context_features`].
    #[serde(default)]
    context: Option<serde_json::Value>,
    /// The context columns' names; must equal [`context::context_feature_names`].
    #[serde(default)]
    context_features: Vec<String>,
    /// The page-level selector's regressors, one per candidate (none: the blocks' text).
    #[serde(default)]
    selector: Vec<serde_json::Value>,
}

/// The whole-page texts the selector chooses among: the trees' blocks, and the article and
/// list-view extractors' outputs.
pub const CANDIDATES: [&str; CANDIDATE_COUNT] = ["blocks", "article", "list-view"];
pub const CANDIDATE_COUNT: usize = 3;

pub struct CombinerModel {
    booster: GradientBooster,
    /// The same trees laid out for prediction.
    flat: FlatTrees,
    pub threshold: f64,
    pub decision: Decision,
    /// One regressor per candidate, predicting its word F1 from [`selector_features`].
    selector: Vec<GradientBooster>,
    /// The second stage: trees over each block's row and its context.
    context: Option<(GradientBooster, FlatTrees)>,
}

/// The second stage's columns: the block's row, then its context.
pub fn second_stage_feature_count() -> usize {
    blocks::feature_count() + context::context_feature_count()
}

impl CombinerModel {
    /// A model of freshly trained trees (NaN missing values, indices in range).
    pub fn new(booster: GradientBooster, threshold: f64) -> Result<Self, CombineError> {
        let flat = FlatTrees::of(&booster, blocks::feature_count())
            .ok_or_else(|| CombineError::Training { what: "the block trees".into(), detail: "cannot be laid out for prediction".into() })?;
        Ok(Self { booster, flat, threshold, decision: Decision::default(), selector: Vec::new(), context: None })
    }

    /// Decides the content blocks by `decision`.
    pub fn with_decision(mut self, decision: Decision) -> Self {
        self.decision = decision;
        self
    }

    /// Adds the second stage's trees (trained on [`second_stage_rows`]).
    pub fn with_context(mut self, booster: GradientBooster) -> Result<Self, CombineError> {
        let flat = FlatTrees::of(&booster, second_stage_feature_count())
            .ok_or_else(|| CombineError::Training { what: "the context trees".into(), detail: "cannot be laid out for prediction".into() })?;
        self.context = Some((booster, flat));
        Ok(self)
    }

    /// Adds the page-level selector (one regressor per candidate, in [`CANDIDATES`] order).
    pub fn with_selector(mut self, selector: Vec<GradientBooster>) -> Self {
        self.selector = selector;
        self
    }

    /// Loads `combiner.json` from a models folder.
    pub fn load(models: &Path) -> Result<Self, CombineError> {
        let path = models.join(MODEL_FILE);
        let bad = |detail: String| CombineError::Model { path: path.clone(), detail };
        let text = std::fs::read_to_string(&path).map_err(|e| bad(e.to_string()))?;
        let file: ModelFile = serde_json::from_str(&text).map_err(|e| bad(format!("not a combiner model ({e})")))?;
        if file.format != FORMAT {
            return Err(bad(format!("format {:?}, this build reads {FORMAT:?}", file.format)));
        }
        if file.features != blocks::feature_names() {
            return Err(bad("trained on other features than this build computes".into()));
        }
        let booster = GradientBooster::from_json(&file.booster.to_string()).map_err(|e| bad(format!("trees: {e}")))?;
        let selector = file
            .selector
            .iter()
            .map(|v| GradientBooster::from_json(&v.to_string()).map_err(|e| bad(format!("selector: {e}"))))
            .collect::<Result<Vec<_>, _>>()?;
        if !selector.is_empty() && selector.len() != CANDIDATES.len() {
            return Err(bad(format!("{} selector regressors, not {}", selector.len(), CANDIDATES.len())));
        }
        let flat = FlatTrees::of(&booster, blocks::feature_count()).ok_or_else(|| bad("trees: a node or feature index out of range".into()))?;
        let context = match &file.context {
            Some(_) if file.context_features != context::context_feature_names() => {
                return Err(bad("context trees trained on other features than this build computes".into()));
            }
            Some(v) => {
                let booster = GradientBooster::from_json(&v.to_string()).map_err(|e| bad(format!("context trees: {e}")))?;
                let flat =
                    FlatTrees::of(&booster, second_stage_feature_count()).ok_or_else(|| bad("context trees: a node or feature index out of range".into()))?;
                Some((booster, flat))
            }
            None => None,
        };
        Ok(Self { booster, flat, threshold: file.threshold, decision: file.decision, selector, context })
    }

    /// Writes the model as `combiner.json` into `dir`.
    pub fn save(&self, dir: &Path) -> Result<(), CombineError> {
        let path = dir.join(MODEL_FILE);
        let bad = |detail: String| CombineError::Model { path: path.clone(), detail };
        let to_value = |b: &GradientBooster| -> Result<serde_json::Value, CombineError> {
            let json = b.json_dump().map_err(|e| bad(e.to_string()))?;
            serde_json::from_str(&json).map_err(|e| bad(e.to_string()))
        };
        let file = ModelFile {
            format: FORMAT.into(),
            features: blocks::feature_names(),
            threshold: self.threshold,
            decision: self.decision,
            booster: to_value(&self.booster)?,
            context: self.context.as_ref().map(|(b, _)| to_value(b)).transpose()?,
            context_features: if self.context.is_some() { context::context_feature_names() } else { Vec::new() },
            selector: self.selector.iter().map(to_value).collect::<Result<_, _>>()?,
        };
        let json = serde_json::to_string(&file).map_err(|e| bad(e.to_string()))?;
        std::fs::write(&path, json).map_err(|e| bad(e.to_string()))
    }

    /// Each block's probability of being content: the second stage's where the model has
    /// one, else the first trees'.
    pub fn probabilities(&self, table: &BlockTable) -> Vec<f64> {
        let first = self.first_probabilities(table);
        match &self.context {
            Some((_, flat)) => {
                let rows = second_stage_rows(table, &first, self.threshold);
                let cols = second_stage_feature_count();
                let rows: Vec<&[f32]> = rows.chunks_exact(cols).collect();
                flat.predict_rows(&rows).into_iter().map(sigmoid).collect()
            }
            None => first,
        }
    }

    /// Each block's probability by the first trees, from its own row alone.
    pub fn first_probabilities(&self, table: &BlockTable) -> Vec<f64> {
        self.first_probabilities_of(&table.rows)
    }

    /// The first trees' probabilities for block rows laid out as in a [`BlockTable`].
    pub fn first_probabilities_of(&self, rows: &[f32]) -> Vec<f64> {
        let rows: Vec<&[f32]> = rows.chunks_exact(blocks::feature_count()).collect();
        self.flat.predict_rows(&rows).into_iter().map(sigmoid).collect()
    }

    /// The content blocks of a page.
    pub fn content(&self, table: &BlockTable) -> Vec<bool> {
        self.content_of(table, &self.probabilities(table))
    }

    /// The content blocks, given their probabilities.
    pub fn content_of(&self, table: &BlockTable, probabilities: &[f64]) -> Vec<bool> {
        self.decision.content(probabilities, &table.words, self.threshold)
    }

    /// A page's block table as this model reads it: with the candidates' whole texts only
    /// where it has a page selector to choose among them.
    pub fn table_of(&self, page: &PageAnalysis<'_>) -> BlockTable {
        if self.selector.is_empty() { BlockTable::of(page) } else { BlockTable::with_candidate_texts(page) }
    }

    /// The main content of a page's blocks: the blocks the trees keep, unless the selector
    /// expects one of the whole-page candidates to score better.
    pub fn text_of(&self, table: &BlockTable) -> String {
        self.decide(table).0
    }

    /// [`Self::text_of`], and the blocks the trees keep (what the Markdown is written from).
    pub fn decide(&self, table: &BlockTable) -> (String, Vec<bool>) {
        let probabilities = self.probabilities(table);
        let content = self.content_of(table, &probabilities);
        let blocks = table.text_of(&content);
        if self.selector.is_empty() {
            return (blocks, content);
        }
        let text = match self.choose(&selector_features(table, &probabilities, &content, &blocks)) {
            1 => table.candidate_texts.as_ref().map_or(blocks, |c| c.article.clone()),
            2 => table.candidate_texts.as_ref().map_or(blocks, |c| c.list_view.clone()),
            _ => blocks,
        };
        (text, content)
    }

    /// The candidate with the best predicted word F1 (index into [`CANDIDATES`]).
    pub fn choose(&self, features: &[f32]) -> usize {
        if self.selector.is_empty() {
            return 0;
        }
        let columns: Vec<f64> = features.iter().map(|&v| f64::from(v)).collect();
        let matrix = Matrix::new(&columns, 1, columns.len());
        let predicted: Vec<f64> = self.selector.iter().map(|r| r.predict(&matrix, false).first().copied().unwrap_or(f64::MIN)).collect();
        (0..predicted.len()).fold(0, |best, i| if predicted[i] > predicted[best] { i } else { best })
    }
}

/// The second stage's rows (row-major, [`second_stage_feature_count`] per block): each
/// block's own row, then its context from the first trees' `first` probabilities.
pub fn second_stage_rows(table: &BlockTable, first: &[f64], threshold: f64) -> Vec<f32> {
    let context = context::context_features(table, first, threshold);
    let (n, c) = (blocks::feature_count(), context::context_feature_count());
    let mut rows = Vec::with_capacity(table.len() * (n + c));
    for (i, ctx) in context.chunks_exact(c).enumerate() {
        rows.extend_from_slice(table.row(i));
        rows.extend_from_slice(ctx);
    }
    rows
}

/// Every ordered pair of candidates, for the containment inputs, in the order the shipped
/// selector was trained with (another order feeds its trees the wrong columns).
fn candidate_pairs() -> impl Iterator<Item = (usize, usize)> {
    [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)].into_iter()
}

/// What the selector reads about a page: the page-level inputs of the blocks' rows, how
/// sure the trees were, the candidates' lengths, and how much of each candidate's words
/// the others contain.
pub fn selector_features(table: &BlockTable, probabilities: &[f64], content: &[bool], blocks_text: &str) -> Vec<f32> {
    let mut f: Vec<f32> = table.page_inputs().to_vec();
    f.resize(blocks::PAGE_INPUTS, f32::NAN);
    let total: f64 = table.words.iter().map(|&w| f64::from(w)).sum::<f64>().max(1.0);
    let weighted =
        |value: &dyn Fn(usize) -> f64| -> f32 { (table.words.iter().enumerate().map(|(i, &w)| f64::from(w) * value(i)).sum::<f64>() / total) as f32 };
    f.push(weighted(&|i| if content[i] { 1.0 } else { 0.0 }));
    f.push(weighted(&|i| probabilities[i]));
    f.push(weighted(&|i| if (0.2..0.8).contains(&probabilities[i]) { 1.0 } else { 0.0 }));
    let (article, list_view) = table.candidate_texts.as_ref().map_or(("", ""), |c| (c.article.as_str(), c.list_view.as_str()));
    let bags = [bag(blocks_text), bag(article), bag(list_view)];
    f.extend(bags.iter().map(|b| (b.values().sum::<u32>() as f32).ln_1p()));
    for (a, b) in candidate_pairs() {
        f.push(containment(&bags[a], &bags[b]));
    }
    f
}

/// The names of [`selector_features`], in order.
pub fn selector_feature_names() -> Vec<String> {
    let names = blocks::feature_names();
    let mut out: Vec<String> = names[names.len() - blocks::PAGE_INPUTS..].to_vec();
    out.extend(["blocks_word_share", "blocks_mean_probability", "blocks_unsure_share"].map(String::from));
    out.extend(CANDIDATES.iter().map(|c| format!("{c}_log_words")));
    for (a, b) in candidate_pairs() {
        out.push(format!("{}_in_{}", CANDIDATES[a], CANDIDATES[b]));
    }
    out
}

/// Lower-case alphanumeric words and their counts.
fn bag(text: &str) -> foldhash::HashMap<String, u32> {
    let mut bag = foldhash::HashMap::default();
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        *bag.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    bag
}

/// The share of `a`'s words that `b` also has (1 when `a` is empty).
fn containment(a: &foldhash::HashMap<String, u32>, b: &foldhash::HashMap<String, u32>) -> f32 {
    let total: u32 = a.values().sum();
    if total == 0 {
        return 1.0;
    }
    let common: u32 = a.iter().map(|(w, &n)| n.min(b.get(w).copied().unwrap_or(0))).sum();
    common as f32 / total as f32
}

pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Row-major f32 rows (`rows` of them) → the column-major f64 matrix forust-ml reads.
pub(crate) fn column_major(row_major: &[f32], rows: usize) -> Vec<f64> {
    let cols = row_major.len().checked_div(rows).unwrap_or(0);
    let mut out = vec![0.0; row_major.len()];
    for (r, row) in row_major.chunks_exact(cols.max(1)).enumerate() {
        for (c, &v) in row.iter().enumerate() {
            out[c * rows + r] = f64::from(v);
        }
    }
    out
}

static SHARED: OnceLock<Result<CombinerModel, String>> = OnceLock::new();

/// The process's combiner, loaded on first use from `models` (else where
/// [`crate::models::find_dir`] looks). Later calls return the same model.
pub fn shared_model(models: Option<&Path>) -> Result<&'static CombinerModel, CombineError> {
    let loaded = SHARED.get_or_init(|| {
        let dir = crate::models::find_dir(models).map_err(|e| e.to_string())?;
        CombinerModel::load(&dir).map_err(|e| e.to_string())
    });
    loaded.as_ref().map_err(|e| CombineError::NoModels(e.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_become_columns() {
        let rows = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(column_major(&rows, 2), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        assert!(column_major(&[], 0).is_empty());
    }

    #[test]
    fn the_decision_travels_with_the_model_and_an_older_file_keeps_the_threshold() {
        let rows = 40;
        let x: Vec<f64> = (0..rows).map(|r| r as f64).collect();
        let y: Vec<f64> = (0..rows).map(|r| f64::from(u8::from(r >= 20))).collect();
        let mut booster = GradientBooster::default().set_iterations(2).set_max_depth(2);
        booster.fit(&Matrix::new(&x, rows, 1), &y, &vec![1.0; rows], None).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let model = CombinerModel::new(booster, 0.5).unwrap().with_decision(Decision::ExpectedF1);
        model.save(dir.path()).unwrap();
        assert_eq!(CombinerModel::load(dir.path()).unwrap().decision, Decision::ExpectedF1);
        let path = dir.path().join(MODEL_FILE);
        let mut file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        file.as_object_mut().unwrap().remove("decision");
        std::fs::write(&path, file.to_string()).unwrap();
        assert_eq!(CombinerModel::load(dir.path()).unwrap().decision, Decision::Threshold);
    }

    #[test]
    fn a_missing_or_corrupt_model_says_how_to_fix_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = CombinerModel::load(dir.path()).err().unwrap().to_string();
        assert!(missing.contains("combiner.json") && missing.contains("make model-extract"), "{missing}");
        std::fs::write(dir.path().join(MODEL_FILE), "{\"format\": 3").unwrap();
        let corrupt = CombinerModel::load(dir.path()).err().unwrap().to_string();
        assert!(corrupt.contains("not a combiner model") && corrupt.contains("make model-extract"), "{corrupt}");
        let other = serde_json::json!({"format": FORMAT, "features": ["x"], "threshold": 0.5, "booster": {}});
        std::fs::write(dir.path().join(MODEL_FILE), other.to_string()).unwrap();
        let stale = CombinerModel::load(dir.path()).err().unwrap().to_string();
        assert!(stale.contains("other features"), "{stale}");
    }
}
