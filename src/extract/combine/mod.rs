//! The trained combiner (`--extractor combined`, the default): gradient-boosted trees
//! give each block of the page a probability of being content, and the page keeps the
//! blocks with the highest expected word F1 ([`decide`]). The trees' inputs are what the
//! other extractors already compute ([`blocks`]): Web2Text's block features, the blocks
//! the article and list-view algorithms chose or pruned, the neighbours' choices, the
//! class/id words and tags above each block, and how the candidates relate on the page.
//! Trained on every page with gold text in WCXB-dev, CleanEval and Scrapinghub, labels
//! from the alignment Web2Text's trainer uses, and evaluated by domain-grouped
//! cross-validation (`goce_warc_train::combine`; `make model-extract`).

pub mod blocks;
pub mod confidence;
pub mod decide;
pub mod trees;

use std::path::{Path, PathBuf};

use forust_ml::GradientBooster;

pub use blocks::BlockTable;
pub use decide::Decision;
use trees::FlatTrees;

use crate::extract::web2text::cdom::ListEvidence;
use crate::models::ModelFileError;

pub const MODEL_FILE: &str = crate::models::COMBINER;
/// The model for pages without page types (`--classifier none`): the same inputs, the
/// trees trained with the page types blanked on every page.
pub const NO_PAGE_TYPES_FILE: &str = crate::models::COMBINER_NO_PAGE_TYPES;
/// The model file's format tag: a file of another format is refused on load.
pub const FORMAT: &str = "goce-warc combiner 2";
const HOW_TO_FIX: &str = "restore models/ from the goce-warc repository, or retrain with `make model-extract`";

#[derive(Debug, thiserror::Error)]
pub enum CombineError {
    #[error("combiner model {path}: {source}; {HOW_TO_FIX}")]
    Model { path: PathBuf, source: ModelFileError },
    #[error("the block trees cannot be laid out for prediction")]
    Unpredictable,
}

/// The stored model: the trees and what they were trained on. `B` is the booster, owned
/// when read and borrowed when written: the trees are read straight from the file, not
/// through a `serde_json::Value` and its text again (0.2 CPU s of every start-up).
#[derive(serde::Serialize, serde::Deserialize)]
struct ModelFile<B> {
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
    booster: B,
    /// The trees that predict the text's word F1 ([`confidence`]; none: no confidence).
    #[serde(default = "Option::default")]
    confidence: Option<B>,
    /// Their inputs' names; must equal [`confidence::input_names`].
    #[serde(default)]
    confidence_inputs: Vec<String>,
}

/// What the combiner decided for a page.
#[derive(Debug, Clone, Default)]
pub struct Decided {
    pub text: String,
    /// Which blocks are content (what the Markdown is written from).
    pub content: Vec<bool>,
    /// The text's expected word F1 (0–1), where the model has confidence trees.
    pub confidence: Option<f32>,
}

pub struct CombinerModel {
    booster: GradientBooster,
    /// The same trees laid out for prediction.
    flat: FlatTrees,
    pub threshold: f64,
    pub decision: Decision,
    /// Regression trees predicting the text's word F1 from [`confidence::inputs`].
    confidence: Option<GradientBooster>,
}

impl CombinerModel {
    /// A model of freshly trained trees (NaN missing values, indices in range).
    pub fn new(booster: GradientBooster, threshold: f64) -> Result<Self, CombineError> {
        let flat = FlatTrees::of(&booster, blocks::feature_count()).ok_or(CombineError::Unpredictable)?;
        Ok(Self { booster, flat, threshold, decision: Decision::default(), confidence: None })
    }

    /// Decides the content blocks by `decision`.
    pub fn with_decision(mut self, decision: Decision) -> Self {
        self.decision = decision;
        self
    }

    /// Adds the confidence trees (trained on [`confidence::inputs`] of out-of-fold pages).
    pub fn with_confidence(mut self, trees: GradientBooster) -> Self {
        self.confidence = Some(trees);
        self
    }

    /// Whether the model gives each page a confidence.
    pub fn has_confidence(&self) -> bool {
        self.confidence.is_some()
    }

    /// Loads `combiner.json` from a models folder.
    pub fn load(models: &Path) -> Result<Self, CombineError> {
        Self::load_file(models, MODEL_FILE)
    }

    /// The model for runs with page types or without: without them, the model trained so
    /// where the folder has one (a folder from before it: `combiner.json`).
    pub fn load_for(models: &Path, page_types: bool) -> Result<Self, CombineError> {
        if !page_types && models.join(NO_PAGE_TYPES_FILE).is_file() {
            return Self::load_file(models, NO_PAGE_TYPES_FILE);
        }
        Self::load(models)
    }

    /// Loads the model file `name` from a models folder.
    pub fn load_file(models: &Path, name: &str) -> Result<Self, CombineError> {
        let path = models.join(name);
        let bad = |source| CombineError::Model { path: path.clone(), source };
        let invalid = |detail: &str| bad(ModelFileError::Invalid(detail.to_string()));
        let file: ModelFile<GradientBooster> = ModelFileError::read(&path).and_then(|text| ModelFileError::parse(&text, "combiner model")).map_err(bad)?;
        if file.format != FORMAT {
            return Err(invalid(&format!("format {:?}, this build reads {FORMAT:?}", file.format)));
        }
        if file.features != blocks::feature_names() {
            return Err(invalid("trained on other features than this build computes"));
        }
        if file.confidence.is_some() && file.confidence_inputs != confidence::input_names() {
            return Err(invalid("confidence trees trained on other inputs than this build computes"));
        }
        let flat = FlatTrees::of(&file.booster, blocks::feature_count()).ok_or_else(|| invalid("trees: a node or feature index out of range"))?;
        Ok(Self { booster: file.booster, flat, threshold: file.threshold, decision: file.decision, confidence: file.confidence })
    }

    /// Writes the model as `combiner.json` into `dir`.
    pub fn save(&self, dir: &Path) -> Result<(), CombineError> {
        self.save_file(dir, MODEL_FILE)
    }

    /// Writes the model as `name` into `dir`.
    pub fn save_file(&self, dir: &Path, name: &str) -> Result<(), CombineError> {
        let path = dir.join(name);
        let bad = |source| CombineError::Model { path: path.clone(), source };
        let file = ModelFile {
            format: FORMAT.into(),
            features: blocks::feature_names(),
            threshold: self.threshold,
            decision: self.decision,
            booster: &self.booster,
            confidence: self.confidence.as_ref(),
            confidence_inputs: if self.confidence.is_some() { confidence::input_names() } else { Vec::new() },
        };
        let json = serde_json::to_string(&file).map_err(|source| bad(ModelFileError::Json { what: "combiner model", source }))?;
        std::fs::write(&path, json).map_err(|e| bad(ModelFileError::Write(e)))
    }

    /// Each block's probability of being content, from its own row.
    pub fn probabilities(&self, table: &BlockTable) -> Vec<f64> {
        self.probabilities_of(&table.rows)
    }

    /// The trees' probabilities for block rows laid out as in a [`BlockTable`].
    pub fn probabilities_of(&self, rows: &[f32]) -> Vec<f64> {
        self.flat.predict_table(rows, blocks::feature_count()).into_iter().map(sigmoid).collect()
    }

    /// The content blocks of a page.
    pub fn content(&self, table: &BlockTable) -> Vec<bool> {
        self.content_of(table, &self.probabilities(table))
    }

    /// The content blocks, given their probabilities.
    pub fn content_of(&self, table: &BlockTable, probabilities: &[f64]) -> Vec<bool> {
        content_blocks(table, probabilities, self.decision, self.threshold)
    }

    /// The main content of a page's blocks: the blocks the trees keep.
    pub fn text_of(&self, table: &BlockTable) -> String {
        self.decide(table).text
    }

    /// The content blocks, their text, and how far the text can be trusted.
    pub fn decide(&self, table: &BlockTable) -> Decided {
        let probabilities = self.probabilities(table);
        let content = self.content_of(table, &probabilities);
        let confidence = self.confidence.as_ref().map(|trees| confidence::predict(trees, &confidence::inputs(table, &probabilities, &content)));
        Decided { text: table.text_of(&content), content, confidence }
    }
}

/// A data table is kept whole (its links aside) when at least this share of its words is:
/// any of it, nearly. A table of short cells is one block of data, kept or not as a whole;
/// of the shares 0.5, 0.3, 0.15, 0.05 and 0 this gave the best CV word F1 (docs/extraction.md).
const TABLE_KEPT_SHARE: f64 = 0.05;
/// A table with a cell of more words than this lays out the page: its cells are the trees'.
const TABLE_CELL_WORDS: usize = 50;

/// A code block is kept whole when at least this share of its words is: any of it, nearly,
/// as for a data table (a `pre` is one block of code or output, kept or not as a whole).
const CODE_KEPT_SHARE: f64 = TABLE_KEPT_SHARE;

/// A list is kept whole when at least half of its items' words are: a list of links partly
/// left out is often a ranking or a menu beside the content, where a table of short cells
/// rarely is (lower shares gained nothing in CV and lost on unseen pages, docs/extraction.md).
const LIST_KEPT_SHARE: f64 = 0.5;
/// A list with an item of more words than this holds sections, not items (as a table's cells).
const LIST_ITEM_WORDS: usize = TABLE_CELL_WORDS;

/// A page's content blocks: those `decision` picks from the probabilities, the blocks
/// between two of them on one line (the link or the bold word inside a kept sentence), the
/// rest of a code block with kept words, the other cells of a data table with kept words
/// (with the links of its kept rows, and every link of a table of records), the other items of a list mostly kept
/// (or announced, or inside the kept text with half the cut's evidence from the trees), and
/// a heading dropped between kept text that opens a kept section; less a table of contents that repeats kept headings,
/// less the scripts' JSON data, less ruby's readings, and less a line of five words or more that an earlier kept line said.
/// Each step kept or raised the domain-grouped CV's word F1 and raised the Markdown's table
/// rows or list items found, or the WCXB-dev word F1 (docs/extraction.md).
pub fn content_blocks(table: &BlockTable, probabilities: &[f64], decision: Decision, threshold: f64) -> Vec<bool> {
    let mut content = decision.content(probabilities, &table.words, threshold);
    // The page's cut: the least probability of a block with words the decision kept.
    let cut = (0..content.len().min(probabilities.len()))
        .filter(|&i| content[i] && table.words.get(i).is_some_and(|&w| w > 0))
        .map(|i| probabilities[i])
        .fold(f64::INFINITY, f64::min);
    let cut = if cut.is_finite() { cut } else { threshold };
    table.cdom.fill_line_gaps(&mut content);
    table.cdom.fill_code_blocks(&mut content, CODE_KEPT_SHARE);
    table.cdom.fill_data_tables(&mut content, TABLE_KEPT_SHARE, TABLE_CELL_WORDS);
    table.cdom.fill_lists(&mut content, LIST_KEPT_SHARE, LIST_ITEM_WORDS, Some(ListEvidence { probabilities, cut }));
    let heads = table.cdom.leaf_headings();
    table.cdom.fill_section_headings(&heads, &mut content);
    table.cdom.drop_contents_lists(&heads, &mut content);
    table.cdom.drop_script_data(&mut content);
    table.cdom.drop_ruby_readings(&mut content);
    table.cdom.drop_repeated_lines(&mut content);
    content
}

pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Row-major f32 rows (`rows` of them) → the column-major f64 matrix forust-ml reads.
pub fn column_major(row_major: &[f32], rows: usize) -> Vec<f64> {
    let cols = row_major.len().checked_div(rows).unwrap_or(0);
    let mut out = vec![0.0; row_major.len()];
    for (r, row) in row_major.chunks_exact(cols.max(1)).enumerate() {
        for (c, &v) in row.iter().enumerate() {
            out[c * rows + r] = f64::from(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use forust_ml::Matrix;

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
    fn without_page_types_the_model_trained_so_is_read_where_the_folder_has_one() {
        let rows = 40;
        let x: Vec<f64> = (0..rows).map(|r| r as f64).collect();
        let y: Vec<f64> = (0..rows).map(|r| f64::from(u8::from(r >= 20))).collect();
        let fit = || {
            let mut booster = GradientBooster::default().set_iterations(2).set_max_depth(2);
            booster.fit(&Matrix::new(&x, rows, 1), &y, &vec![1.0; rows], None).unwrap();
            booster
        };
        let dir = tempfile::tempdir().unwrap();
        CombinerModel::new(fit(), 0.5).unwrap().save(dir.path()).unwrap();
        // A folder without the second model: both runs read `combiner.json`.
        assert_eq!(CombinerModel::load_for(dir.path(), false).unwrap().threshold, 0.5);
        CombinerModel::new(fit(), 0.4).unwrap().save_file(dir.path(), NO_PAGE_TYPES_FILE).unwrap();
        assert_eq!(CombinerModel::load_for(dir.path(), true).unwrap().threshold, 0.5);
        assert_eq!(CombinerModel::load_for(dir.path(), false).unwrap().threshold, 0.4);
    }

    #[test]
    fn the_confidence_trees_travel_with_the_model_and_stale_inputs_are_refused() {
        let fit = |cols: usize, y: &dyn Fn(usize) -> f64| {
            let rows = 40;
            let x: Vec<f64> = (0..rows * cols).map(|v| (v % rows) as f64).collect();
            let y: Vec<f64> = (0..rows).map(y).collect();
            let mut booster = GradientBooster::default().set_iterations(5).set_max_depth(2);
            booster.fit(&Matrix::new(&x, rows, cols), &y, &vec![1.0; rows], None).unwrap();
            booster
        };
        let dir = tempfile::tempdir().unwrap();
        let inputs = confidence::input_names().len();
        let model = CombinerModel::new(fit(1, &|r| f64::from(u8::from(r >= 20))), 0.5).unwrap().with_confidence(fit(inputs, &|r| r as f64 / 40.0));
        model.save(dir.path()).unwrap();
        let loaded = CombinerModel::load(dir.path()).unwrap();
        assert!(loaded.has_confidence());
        let path = dir.path().join(MODEL_FILE);
        let mut file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        file["confidence_inputs"] = serde_json::json!(["something else"]);
        std::fs::write(&path, file.to_string()).unwrap();
        let stale = CombinerModel::load(dir.path()).err().unwrap().to_string();
        assert!(stale.contains("confidence trees trained on other inputs"), "{stale}");
        // A model file without confidence trees loads and gives none.
        file.as_object_mut().unwrap().remove("confidence");
        std::fs::write(&path, file.to_string()).unwrap();
        assert!(!CombinerModel::load(dir.path()).unwrap().has_confidence());
    }

    #[test]
    fn a_missing_or_corrupt_model_says_how_to_fix_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = CombinerModel::load(dir.path()).err().unwrap().to_string();
        assert!(missing.contains("combiner.json") && missing.contains("make model-extract"), "{missing}");
        std::fs::write(dir.path().join(MODEL_FILE), "{\"format\": 3").unwrap();
        let corrupt = CombinerModel::load(dir.path()).err().unwrap().to_string();
        assert!(corrupt.contains("not a combiner model") && corrupt.contains("make model-extract"), "{corrupt}");
        let not_trees = serde_json::json!({"format": FORMAT, "features": blocks::feature_names(), "threshold": 0.5, "booster": {}});
        std::fs::write(dir.path().join(MODEL_FILE), not_trees.to_string()).unwrap();
        let broken = CombinerModel::load(dir.path()).err().unwrap().to_string();
        assert!(broken.contains("not a combiner model") && broken.contains("make model-extract"), "{broken}");
        let mut booster = GradientBooster::default().set_iterations(2).set_max_depth(2);
        booster.fit(&Matrix::new(&[0.0, 1.0, 2.0, 3.0], 4, 1), &[0.0, 0.0, 1.0, 1.0], &[1.0; 4], None).unwrap();
        CombinerModel::new(booster, 0.5).unwrap().save(dir.path()).unwrap();
        let path = dir.path().join(MODEL_FILE);
        let mut other: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        other["features"] = serde_json::json!(["x"]);
        std::fs::write(&path, other.to_string()).unwrap();
        let stale = CombinerModel::load(dir.path()).err().unwrap().to_string();
        assert!(stale.contains("other features") && stale.contains("make model-extract"), "{stale}");
    }
}
