//! Training and honest evaluation of the combiner (`goce-warc-train train-extract`,
//! `make model-extract`).
//!
//! Pages: WCXB-dev (its held-out fifth stays out of everything here), CleanEval and
//! Scrapinghub (its held-out fifth likewise). Each block is labelled content when at least
//! 2/3 of its characters align with the page's gold text (Web2Text's alignment). Pages
//! are grouped by registrable domain and the domains split into k folds; each fold's pages
//! are scored by trees trained on the other folds only, beside the existing extractors
//! on the same pages. The shipped model is then trained on all of them.
//!
//! With `--snippets`, the pages of a snippet-gold set (`trafi-dev`: text a page's extraction
//! must contain and text it must not) join as partial labels: a block holding a `with`
//! snippet is content, one holding a `without` snippet boilerplate, the other blocks of the
//! page unlabelled (left out of the fit). They are scored in the CV by trafilatura's
//! snippet metric, by the language their page declares.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use forust_ml::objective::ObjectiveType;
use forust_ml::sampler::SampleMethod;
use forust_ml::{GradientBooster, Matrix};
use rayon::prelude::*;

use crate::TrainError;
use crate::classify::RecordedSplit;
use crate::gold::GoldPage;
use crate::gold::metrics::{SnippetCounts, collapse, lcs_prf, word_prf, words};
use goce_warc::annotate::normalize_declared;
use goce_warc::classify::Prediction;
use goce_warc::dom::{Dom, DomLimits, FOR_WEB2TEXT};
use goce_warc::extract::combine::blocks::{BlockTable, feature_count};
use goce_warc::extract::combine::{CombinerModel, Decision, column_major, confidence, content_blocks};
use goce_warc::extract::web2text::align;
use goce_warc::extract::{ExtractModels, ExtractRequest, Extractor, Genre, MarkdownOptions, PageAnalysis, PageSource, compose};

/// Not an extractor: the blocks the labels call content, scored against the gold text.
/// What any block decision could reach on a page (its gold text may not be in the HTML at all).
pub const ALIGNED_BLOCKS: &str = "bound: aligned blocks";

/// Word and LCS F1 of a text against a page's gold words.
fn text_scores(text: &str, gold_words: &[String]) -> (f64, f64) {
    let predicted = words(text);
    (word_prf(&predicted, gold_words).f1, lcs_prf(&predicted, gold_words).f1)
}

/// The extractors scored beside the combiner on every fold.
pub const BASELINES: [Extractor; 5] = [Extractor::Goce, Extractor::Oracle, Extractor::Article, Extractor::ListView, Extractor::Web2text];
/// The combiner scored with the page types missing (`--classifier none`), beside the rest.
pub const WITHOUT_PAGE_TYPES: &str = "combined, no page types";
/// A page with gold text under this word F1 has the wrong text (the count).
pub const BAD_PAGE_F1: f64 = 0.3;

/// The trees' settings: common defaults for boosted trees, not tuned on the scored pages.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct TreeSettings {
    pub trees: usize,
    pub learning_rate: f32,
    pub max_depth: usize,
    /// Share of the rows each tree sees, drawn afresh for each tree (1: every row, no
    /// draw). Before the 14th session this was set but never applied: forust-ml draws rows
    /// only under an explicit sample method.
    pub subsample: f32,
    /// Share of the inputs each tree may split on, drawn afresh for each tree.
    pub colsample: f64,
    /// The least summed weight (hessian) a leaf may hold: larger leaves generalise from more
    /// blocks.
    pub min_leaf_weight: f32,
    /// Seeds the draws of rows and inputs.
    pub seed: u64,
    /// A block is content at or above this probability (under [`Decision::Threshold`],
    /// and for blocks without words).
    pub threshold: f64,
    /// How the content blocks follow from their probabilities.
    pub decision: Decision,
    /// Share of the pages whose page-type inputs the trees see blanked, as
    /// `--classifier none` leaves them: without such rows the trees' branches for a missing
    /// page type are never trained (the classifier blanks URLs the same way).
    pub page_type_dropout: f64,
    /// Weight of the pages the first fit gets wrong in a second fit (0: one fit): a page's
    /// weight is multiplied by `1 + hard_pages * (1 - F1)`, F1 of its decided blocks against
    /// its aligned blocks, word-weighted.
    pub hard_pages: f64,
    /// Train on each block's aligned share of characters, mapped from chance (a third or
    /// less: 0) to content (two thirds or more: 1), instead of the 0/1 label.
    pub soft_labels: bool,
    /// Weight of a snippet-gold page against a page with gold text (its labelled blocks
    /// together weigh this many gold-text pages).
    pub snippet_weight: f64,
}

impl Default for TreeSettings {
    fn default() -> Self {
        Self {
            trees: 300,
            learning_rate: 0.1,
            max_depth: 6,
            subsample: 0.5,
            colsample: 1.0,
            min_leaf_weight: 1.0,
            seed: 2026,
            threshold: 0.5,
            decision: Decision::ExpectedF1,
            page_type_dropout: 0.0,
            hard_pages: 0.0,
            soft_labels: false,
            snippet_weight: 0.5,
        }
    }
}

#[derive(Debug, Clone)]
pub struct TrainConfig {
    pub wcxb: PathBuf,
    pub cleaneval: Option<PathBuf>,
    pub scrapinghub: Option<PathBuf>,
    /// A snippet-gold set in WCXB layout (`trafi-dev`), every page of it.
    pub snippets: Option<PathBuf>,
    pub out: PathBuf,
    pub folds: usize,
    pub trees: TreeSettings,
    /// Only cross-validate; write no model.
    pub cv_only: bool,
    /// The model's file name in `out` (its card: the same name with `.md`).
    pub model_file: &'static str,
}

/// One page ready for training: its blocks, their labels, and every baseline's text scored.
pub struct Prepared {
    pub dataset: &'static str,
    pub page: GoldPage,
    pub domain: String,
    pub table: BlockTable,
    pub labels: Vec<bool>,
    /// Which blocks carry a label: every block of a page with gold text (None), those
    /// holding a snippet on a snippet-gold page.
    pub known: Option<Vec<bool>>,
    /// Each block's aligned share of characters ([`align::block_shares`]).
    pub shares: Vec<f32>,
    gold_words: Vec<String>,
    /// Word and LCS F1 of each of [`BASELINES`] (pages with gold text).
    baselines: Vec<(f64, f64)>,
    /// Snippet counts of each of [`BASELINES`] (snippet-gold pages).
    baseline_snippets: Vec<SnippetCounts>,
    /// The page's declared language group (`german`, `english`, `other`).
    pub language: &'static str,
    /// A WCXB page of the ResNet's held-out test domains.
    pub classifier_test: bool,
}

/// One extractor's scores on one page.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Scored {
    pub dataset: &'static str,
    pub id: String,
    pub domain: String,
    pub page_type: String,
    pub genre: Genre,
    pub fold: usize,
    pub classifier_test: bool,
    /// Whether the page has gold text (WCXB marks some pages as having none: an empty
    /// text is right there, and any other scores 0).
    pub gold_text: bool,
    pub extractor: &'static str,
    pub word_f1: f64,
    pub lcs_f1: f64,
    /// The out-of-fold `extraction_confidence` (the combiner's rows only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
}

/// Means over a group of pages.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Summary {
    pub pages: usize,
    pub word_f1: f64,
    pub lcs_f1: f64,
    /// Pages with gold text scoring under [`BAD_PAGE_F1`].
    pub under_0_3: usize,
    /// Pages without gold text, and on how many of them the text was empty (right).
    pub without_gold: usize,
    pub without_gold_empty: usize,
}

#[derive(Debug, serde::Serialize)]
pub struct CvReport {
    pub folds: usize,
    pub settings: TreeSettings,
    pub pages: BTreeMap<&'static str, usize>,
    pub blocks: usize,
    pub seconds: f64,
    /// dataset → subset (all, article, list-view, page types) → extractor → means.
    pub means: BTreeMap<String, BTreeMap<String, BTreeMap<String, Summary>>>,
    /// How far the trees' out-of-fold probabilities can be taken at their word: the
    /// expected-F1 decision reads them as probabilities.
    pub calibration: Vec<CalibrationBin>,
    /// The out-of-fold `extraction_confidence` against the real word F1, by dataset.
    pub confidence: BTreeMap<&'static str, ConfidenceReport>,
    /// The snippet-gold pages: language group (`all`, `german`, ...) → extractor → counts.
    pub snippets: BTreeMap<String, BTreeMap<String, SnippetSummary>>,
    pub scores: Vec<Scored>,
}

/// Snippet counts summed over a group of snippet-gold pages, and what they give.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SnippetSummary {
    pub pages: usize,
    #[serde(flatten)]
    pub counts: SnippetCounts,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

impl SnippetSummary {
    fn add(&mut self, counts: SnippetCounts) {
        self.pages += 1;
        self.counts.add(counts);
        (self.precision, self.recall, self.f1) = (self.counts.precision(), self.counts.recall(), self.counts.f1());
    }
}

/// The blocks (with words) whose out-of-fold probability fell in `[low, low + 0.1)`.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct CalibrationBin {
    pub low: f64,
    pub blocks: usize,
    /// The share of their words that is content, each page weighing the same (as the trees
    /// were trained and as the page-averaged F1 counts).
    pub content_share: f64,
}

/// Calibration of the probabilities in ten bins: within each, the page-weighted share of
/// the words that the labels call content.
fn calibration(prepared: &[Prepared], probabilities: &[Vec<f64>]) -> Vec<CalibrationBin> {
    let mut sums = [(0usize, 0.0f64, 0.0f64); 10];
    for (page, probabilities) in prepared.iter().zip(probabilities) {
        let words = labelled_words(page);
        let total: f64 = words.iter().map(|&w| f64::from(w)).sum();
        if total == 0.0 {
            continue;
        }
        for ((&p, &w), &label) in probabilities.iter().zip(words.iter()).zip(&page.labels) {
            if w == 0 || p.is_nan() {
                continue;
            }
            // Truncation picks the bin; 1.0 joins the last one.
            let bin = &mut sums[((p.clamp(0.0, 1.0) * 10.0) as usize).min(9)];
            let weight = f64::from(w) / total;
            bin.0 += 1;
            bin.1 += weight;
            bin.2 += if label { weight } else { 0.0 };
        }
    }
    sums.iter()
        .enumerate()
        .map(|(i, &(blocks, weight, content))| CalibrationBin {
            low: i as f64 / 10.0,
            blocks,
            content_share: if weight > 0.0 { content / weight } else { f64::NAN },
        })
        .collect()
}

/// The pages of the three datasets that training may see (held-out fifths left out).
pub fn load_pages(config: &TrainConfig) -> Result<Vec<(&'static str, GoldPage)>, TrainError> {
    let mut pages = Vec::new();
    for page in crate::gold::load(&config.wcxb)? {
        if !page.held_out {
            pages.push(("wcxb", page));
        }
    }
    if let Some(dir) = &config.scrapinghub {
        for page in crate::gold::load(dir)? {
            if !page.held_out {
                pages.push(("scrapinghub", page));
            }
        }
    }
    if let Some(dir) = &config.cleaneval {
        pages.extend(load_cleaneval(dir)?.into_iter().map(|p| ("cleaneval", p)));
    }
    if let Some(dir) = &config.snippets {
        // Every page: the site-grouped CV keeps them honest, and the judge's pages are others.
        pages.extend(crate::gold::load(dir)?.into_iter().map(|p| (SNIPPET_DATASET, p)));
    }
    Ok(pages)
}

/// CleanEval's pages as gold pages: the URL from the gold file's first line, the gold text
/// without its markers. CleanEval has no page types; they count as articles.
fn load_cleaneval(dir: &Path) -> Result<Vec<GoldPage>, TrainError> {
    let mut pages = Vec::new();
    for file in crate::gold::dataset::cleaneval_files(dir)? {
        let Ok(gold) = std::fs::read(&file.gold) else { continue };
        let gold = String::from_utf8_lossy(&gold);
        let url = gold.lines().next().and_then(|l| l.trim().strip_prefix("URL:")).map(|u| u.trim().to_string()).unwrap_or_default();
        pages.push(GoldPage {
            id: file.id,
            html_path: file.html,
            url,
            page_type: "article".into(),
            genre: Genre::Article,
            main_content: align::cleaneval_gold(&gold),
            with: Vec::new(),
            without: Vec::new(),
            null_main_content: false,
            held_out: false,
        });
    }
    pages.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(pages)
}

/// The dataset name of the snippet-gold pages.
pub const SNIPPET_DATASET: &str = "trafi";

/// A page's language group as eval_trafi.py groups them: the primary subtag of its declared
/// `<html lang>` (or `xml:lang`), German and English apart, everything else (and none) `other`.
pub fn language_group(dom: &Dom) -> &'static str {
    let html = dom.html().and_then(|h| dom.element(h));
    let declared = html.and_then(|e| e.attr("lang").or_else(|| e.attr("xml:lang"))).and_then(normalize_declared);
    match declared.as_deref() {
        Some("de") => "german",
        Some("en") => "english",
        _ => "other",
    }
}

/// Block labels from a page's snippets: a block a `with` snippet covers (the snippet found
/// once in the blocks' text) is content; every block a `without` snippet covers, wherever it
/// is found, is boilerplate; a block both would cover, and every other block, is unlabelled.
/// Returns (labels, known).
pub fn snippet_labels(texts: &[&str], with: &[String], without: &[String]) -> (Vec<bool>, Vec<bool>) {
    // The blocks' whitespace-collapsed texts joined by one space, with each block's span.
    let mut joined = String::new();
    let mut spans = Vec::with_capacity(texts.len());
    for t in texts {
        let t = collapse(t);
        if !joined.is_empty() && !t.is_empty() {
            joined.push(' ');
        }
        let start = joined.len();
        joined.push_str(&t);
        spans.push((start, joined.len()));
    }
    let covered =
        |from: usize, to: usize| -> Vec<usize> { spans.iter().enumerate().filter(|&(_, &(s, e))| e > s && s < to && e > from).map(|(i, _)| i).collect() };
    let (mut content, mut boilerplate) = (vec![false; texts.len()], vec![false; texts.len()]);
    for snippet in with {
        let snippet = collapse(snippet);
        if snippet.is_empty() {
            continue;
        }
        let found: Vec<usize> = joined.match_indices(snippet.as_str()).map(|(i, _)| i).collect();
        if let [at] = found[..] {
            for i in covered(at, at + snippet.len()) {
                content[i] = true;
            }
        }
    }
    for snippet in without {
        let snippet = collapse(snippet);
        if snippet.is_empty() {
            continue;
        }
        for (at, _) in joined.match_indices(snippet.as_str()) {
            for i in covered(at, at + snippet.len()) {
                boilerplate[i] = true;
            }
        }
    }
    let known = content.iter().zip(&boilerplate).map(|(&c, &b)| c != b).collect();
    (content.iter().zip(&boilerplate).map(|(&c, &b)| c && !b).collect(), known)
}

/// A block's words as the fit and the calibration count them: nothing for an unlabelled one.
fn labelled_words(page: &Prepared) -> Cow<'_, [u32]> {
    match &page.known {
        None => Cow::Borrowed(&page.table.words),
        Some(known) => Cow::Owned(page.table.words.iter().zip(known).map(|(&w, &k)| if k { w } else { 0 }).collect()),
    }
}

/// A URL's registrable domain, roughly: the host without `www.`, cut to its last two
/// labels (three under a two-letter country code with a short second level, `co.uk`);
/// for a page of the Wayback Machine, that of the archived URL.
pub fn domain_of(url: &str) -> String {
    if let Some(archived) = archived_url(url) {
        return domain_of(archived);
    }
    let host = crate::classify::domain_of(url).to_ascii_lowercase();
    let labels: Vec<&str> = host.split('.').filter(|l| !l.is_empty()).collect();
    let keep = match labels.as_slice() {
        [.., second, tld] if tld.len() == 2 && second.len() <= 3 && labels.len() >= 3 => 3,
        _ => 2,
    };
    labels[labels.len().saturating_sub(keep)..].join(".")
}

/// The URL a `web.archive.org/web/<timestamp>/<url>` address archives.
fn archived_url(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.strip_prefix("web.archive.org/web/")?;
    let (_, archived) = rest.split_once('/')?;
    archived.contains('.').then_some(archived)
}

/// The fold of a domain: a fixed hash (FNV-1a), so folds do not move between runs.
pub fn fold_of(domain: &str, folds: usize) -> usize {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in domain.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (hash % folds.max(1) as u64) as usize
}

/// Parses every page once, builds its block table and labels, and scores the baselines
/// (`models`: what they read). `predictions`: the classifier's, by `dataset/id`, for the trees' page-type inputs and
/// `goce`'s genre (the HTML guess where absent).
/// `classifier_split`: the domains the ResNet was trained with, to report the pages of its
/// test domains apart (the only pages whose page-type inputs the ResNet never saw).
pub fn prepare(
    pages: Vec<(&'static str, GoldPage)>,
    models: &ExtractModels,
    predictions: &HashMap<String, Prediction>,
    classifier_split: Option<&RecordedSplit>,
) -> Vec<Prepared> {
    pages
        .into_par_iter()
        .filter_map(|(dataset, page)| {
            let html = page.read_html().ok()?;
            let dom = goce_warc::dom::Dom::parse_with(&html, DomLimits { max_elements: 200_000, deadline: None }, &FOR_WEB2TEXT).ok()?;
            let analysis = PageAnalysis::new(&dom);
            let prediction = predictions.get(&format!("{dataset}/{}", page.id));
            let mut table = BlockTable::of(&analysis);
            if let Some(p) = prediction {
                table.set_page_types(&p.probabilities);
            }
            let snippet_page = dataset == SNIPPET_DATASET;
            let shares = align::block_shares(&table.texts(), &page.main_content);
            let (labels, known) = if snippet_page {
                let (labels, known) = snippet_labels(&table.texts(), &page.with, &page.without);
                (labels, Some(known))
            } else {
                (shares.iter().map(|&s| s >= align::CONTENT_SHARE).collect(), None)
            };
            let shares = match &known {
                Some(_) => labels.iter().map(|&l| if l { 1.0 } else { 0.0 }).collect(),
                None => shares.iter().map(|&s| s as f32).collect(),
            };
            let gold_words = words(&page.main_content);
            let texts: Vec<String> = BASELINES
                .iter()
                .map(|&e| {
                    let genre = match e {
                        Extractor::Oracle => Some(page.genre),
                        Extractor::Goce => prediction.map(|p| p.genre),
                        _ => None,
                    };
                    let request = ExtractRequest { genre, ..ExtractRequest::default() };
                    e.extract(models, PageSource::parsed(&html, &analysis), &request).map(|x| x.text).unwrap_or_default()
                })
                .collect();
            let (baselines, baseline_snippets) = if snippet_page {
                (Vec::new(), texts.iter().map(|t| SnippetCounts::of(t, &page.with, &page.without)).collect())
            } else {
                (texts.iter().map(|t| text_scores(t, &gold_words)).collect(), Vec::new())
            };
            let classifier_test = dataset == "wcxb" && classifier_split.is_some_and(|s| s.is_test(&page));
            let language = language_group(&dom);
            Some(Prepared {
                dataset,
                domain: domain_of(&page.url),
                page,
                table,
                labels,
                known,
                shares,
                gold_words,
                baselines,
                baseline_snippets,
                language,
                classifier_test,
            })
        })
        .collect()
}

/// Whether a page's page-type inputs are blanked in training: a fixed hash of the page,
/// so every fold blanks the same pages.
fn page_types_blanked(page: &Prepared, share: f64) -> bool {
    let key = format!("{}/{}", page.dataset, page.page.id);
    (fold_of(&key, 10_000) as f64) < share * 10_000.0
}

/// Trains the first block trees on the given pages' blocks (their own rows, the page
/// types blanked on [`TreeSettings::page_type_dropout`] of the pages).
pub fn fit(pages: &[&Prepared], settings: &TreeSettings) -> Result<CombinerModel, TrainError> {
    let rows_of = |k: usize| {
        let table = &pages[k].table;
        if page_types_blanked(pages[k], settings.page_type_dropout) {
            Cow::Owned(table.rows_without_page_types())
        } else {
            Cow::Borrowed(table.rows.as_slice())
        }
    };
    let booster = fit_booster(pages, &rows_of, feature_count(), settings.trees, settings, &|_| 1.0)?;
    let model = CombinerModel::new(booster, settings.threshold)?.with_decision(settings.decision);
    if settings.hard_pages <= 0.0 {
        return Ok(model);
    }
    // Boosting over pages: the blocks of the pages the first fit decides worst weigh more.
    let factors: Vec<f64> = (0..pages.len())
        .into_par_iter()
        .map(|k| {
            let table = &pages[k].table;
            let probabilities = model.probabilities_of(&rows_of(k));
            let content = content_blocks(table, &probabilities, settings.decision, settings.threshold);
            1.0 + settings.hard_pages * (1.0 - aligned_f1(&content, &pages[k].labels, &labelled_words(pages[k])))
        })
        .collect();
    let booster = fit_booster(pages, &rows_of, feature_count(), settings.trees, settings, &|k| factors[k])?;
    Ok(CombinerModel::new(booster, settings.threshold)?.with_decision(settings.decision))
}

/// A block's training target from its aligned share under `--soft-labels`: 0 up to the
/// share that aligns by chance (as far under a half as the label's share is over it), 1 from
/// the label's share ([`align::CONTENT_SHARE`]) on, linear between.
fn soft_label(share: f64) -> f64 {
    let chance = 1.0 - align::CONTENT_SHARE;
    ((share - chance) / (align::CONTENT_SHARE - chance)).clamp(0.0, 1.0)
}

/// Word-weighted F1 of the decided blocks against the aligned ones (1 where neither has words).
fn aligned_f1(content: &[bool], labels: &[bool], words: &[u32]) -> f64 {
    let (mut both, mut decided, mut aligned) = (0u64, 0u64, 0u64);
    for ((&c, &l), &w) in content.iter().zip(labels).zip(words) {
        let w = u64::from(w);
        both += if c && l { w } else { 0 };
        decided += if c { w } else { 0 };
        aligned += if l { w } else { 0 };
    }
    if decided + aligned == 0 { 1.0 } else { 2.0 * both as f64 / (decided + aligned) as f64 }
}

/// Trains boosted trees on the blocks of `pages`, `rows_of(k)` giving page k's rows
/// (row-major, `cols` each). Blocks without words are left out (they add nothing to the
/// text); each page's blocks weigh by their share of its words, so every page of a genre
/// counts the same, as in the page-averaged word F1 the trees are judged by; `page_factor(k)`
/// multiplies page k's weight.
fn fit_booster<'a>(
    pages: &[&'a Prepared],
    rows_of: &(dyn Fn(usize) -> Cow<'a, [f32]> + Sync),
    cols: usize,
    iterations: usize,
    settings: &TreeSettings,
    page_factor: &dyn Fn(usize) -> f64,
) -> Result<GradientBooster, TrainError> {
    // The two genres weigh the same in all: list pages are a minority of the gold pages
    // (a fifth of WCXB-dev, none of CleanEval or Scrapinghub) but half of the goal.
    // Counted over the pages with gold text, so a snippet-gold page adds its weight on top
    // (`snippet_weight` times an article's) instead of taking it from the others.
    let gold_text = pages.iter().filter(|p| p.known.is_none()).count();
    let list_pages = pages.iter().filter(|p| p.known.is_none() && p.page.genre == Genre::ListView).count().max(1);
    let article_pages = (gold_text - list_pages.min(gold_text)).max(1);
    let genre_weight = |g: Genre| if g == Genre::ListView { gold_text as f64 / (2 * list_pages) as f64 } else { gold_text as f64 / (2 * article_pages) as f64 };
    let (mut rows, mut y, mut weights) = (Vec::new(), Vec::new(), Vec::new());
    for (k, page) in pages.iter().enumerate() {
        let words = labelled_words(page);
        let total: u64 = words.iter().map(|&w| u64::from(w)).sum();
        if total == 0 {
            continue;
        }
        let page_rows = rows_of(k);
        let snippet_factor = if page.known.is_some() { settings.snippet_weight } else { 1.0 };
        let page_weight = 100.0 * genre_weight(page.page.genre) * page_factor(k) * snippet_factor / total as f64;
        for (i, (&w, &label)) in words.iter().zip(&page.labels).enumerate() {
            if w == 0 {
                continue;
            }
            rows.extend_from_slice(&page_rows[i * cols..(i + 1) * cols]);
            y.push(if settings.soft_labels {
                soft_label(f64::from(page.shares[i]))
            } else if label {
                1.0
            } else {
                0.0
            });
            weights.push(page_weight * f64::from(w));
        }
    }
    let columns = column_major(&rows, y.len());
    drop(rows);
    let matrix = Matrix::new(&columns, y.len(), cols);
    let mut booster = GradientBooster::default()
        .set_iterations(iterations)
        .set_learning_rate(settings.learning_rate)
        .set_max_depth(settings.max_depth)
        .set_subsample(settings.subsample)
        .set_sample_method(if settings.subsample < 1.0 { SampleMethod::Random } else { SampleMethod::None })
        .set_colsample_bytree(settings.colsample)
        .set_seed(settings.seed)
        .set_min_leaf_weight(settings.min_leaf_weight)
        // The row-wise fill: filling histograms was 95% of the fit; this one made the CV
        // 2.6 times faster with the same text on every page (docs/extraction.md, *Training*).
        .set_tiled_histograms(true)
        .set_parallel(true);
    booster.fit(&matrix, &y, &weights, None).map_err(|source| TrainError::Trees { what: "the block trees", source })?;
    Ok(booster)
}

/// A page's out-of-fold inputs for the confidence trees, and the word F1 they learn.
pub struct ConfidenceRow {
    pub page: usize,
    pub inputs: Vec<f32>,
    pub word_f1: f64,
}

/// Trees of the confidence model: common defaults for a small regression, not tuned on the
/// scored pages.
const CONFIDENCE_TREES: usize = 100;

/// The confidence trees: small boosted regression trees predicting the text's word F1.
pub fn fit_confidence(rows: &[&ConfidenceRow], settings: &TreeSettings) -> Result<GradientBooster, TrainError> {
    let cols = rows.first().map_or(0, |r| r.inputs.len());
    let flat: Vec<f32> = rows.iter().flat_map(|r| r.inputs.iter().copied()).collect();
    let columns = column_major(&flat, rows.len());
    let matrix = Matrix::new(&columns, rows.len(), cols);
    let y: Vec<f64> = rows.iter().map(|r| r.word_f1).collect();
    let mut booster = GradientBooster::default()
        .set_objective_type(ObjectiveType::SquaredLoss)
        .set_iterations(CONFIDENCE_TREES)
        .set_learning_rate(0.05)
        .set_max_depth(3)
        .set_subsample(0.8)
        .set_sample_method(SampleMethod::Random)
        .set_min_leaf_weight(10.0)
        .set_seed(settings.seed)
        .set_parallel(false);
    booster.fit(&matrix, &y, &vec![1.0; rows.len()], None).map_err(|source| TrainError::Trees { what: "the confidence trees", source })?;
    Ok(booster)
}

/// How well the out-of-fold confidence tells good text from bad, on one dataset's pages
/// with gold text.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ConfidenceReport {
    pub pages: usize,
    /// Spearman's rank correlation of the confidence with the real word F1.
    pub spearman: f64,
    /// The area under the ROC curve of the confidence for finding the pages under 0.5
    /// (lower confidence, likelier under).
    pub auc_under_0_5: f64,
    /// Ten equal-width confidence bins: pages, mean confidence, mean real word F1.
    pub reliability: Vec<ReliabilityBin>,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ReliabilityBin {
    pub low: f64,
    pub pages: usize,
    pub mean_confidence: f64,
    pub mean_word_f1: f64,
}

/// Ranks with ties at their mean rank (1-based).
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        let mean = (start + end + 1) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = mean;
        }
        start = end;
    }
    ranks
}

/// Spearman's rank correlation (0 when either side is constant).
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let (va, vb): (f64, f64) = (ra.iter().map(|x| (x - ma).powi(2)).sum(), rb.iter().map(|y| (y - mb).powi(2)).sum());
    if va == 0.0 || vb == 0.0 { 0.0 } else { cov / (va * vb).sqrt() }
}

/// The area under the ROC curve of `score` for telling the `positive` pages apart: the
/// chance that a positive page scores above a negative one, ties counting half.
pub fn roc_auc(score: &[f64], positive: &[bool]) -> f64 {
    let r = ranks(score);
    let n_pos = positive.iter().filter(|&&p| p).count() as f64;
    let n_neg = positive.len() as f64 - n_pos;
    if n_pos == 0.0 || n_neg == 0.0 {
        return f64::NAN;
    }
    let rank_sum: f64 = r.iter().zip(positive).filter(|(_, p)| **p).map(|(r, _)| r).sum();
    (rank_sum - n_pos * (n_pos + 1.0) / 2.0) / (n_pos * n_neg)
}

impl ConfidenceReport {
    /// The report of `(confidence, real word F1)` pairs.
    pub fn of(pairs: &[(f64, f64)]) -> Self {
        let confidence: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        let word_f1: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        let under: Vec<bool> = word_f1.iter().map(|&f| f < 0.5).collect();
        let doubt: Vec<f64> = confidence.iter().map(|c| -c).collect();
        let reliability = (0..10)
            .map(|b| {
                let inside: Vec<&(f64, f64)> = pairs.iter().filter(|(c, _)| ((c.clamp(0.0, 1.0) * 10.0) as usize).min(9) == b).collect();
                let n = inside.len().max(1) as f64;
                ReliabilityBin {
                    low: b as f64 / 10.0,
                    pages: inside.len(),
                    mean_confidence: inside.iter().map(|p| p.0).sum::<f64>() / n,
                    mean_word_f1: inside.iter().map(|p| p.1).sum::<f64>() / n,
                }
            })
            .collect();
        Self { pages: pairs.len(), spearman: spearman(&confidence, &word_f1), auc_under_0_5: roc_auc(&doubt, &under), reliability }
    }
}

/// What cross-validation leaves for the final fit.
pub struct CvOutcome {
    pub report: CvReport,
    /// The confidence trees' out-of-fold rows, by page.
    pub rows: Vec<ConfidenceRow>,
    /// Every page's out-of-fold block probabilities, in the order of the prepared pages.
    pub probabilities: Vec<Vec<f64>>,
}

/// One page's out-of-fold text and Markdown (`train-extract --markdown-out`): what
/// `process --markdown` would write for it with trees that never saw its site.
#[derive(Debug, serde::Serialize)]
pub struct CvMarkdown<'a> {
    pub dataset: &'static str,
    pub id: &'a str,
    pub url: &'a str,
    pub text: String,
    pub markdown: String,
}

/// The text of a page's content blocks as the product writes it: in NFC (`Extractor::extract`).
fn written_text(table: &BlockTable, content: &[bool]) -> String {
    let mut text = table.text_of(content);
    compose(&mut text);
    text
}

/// The out-of-fold text and Markdown of the pages of `dataset`: each page parsed again as
/// [`prepare`] parsed it (so its blocks are the table's), its content blocks decided from
/// its out-of-fold probabilities, and rendered as the combined extractor renders them.
pub fn out_of_fold_markdown<'a>(prepared: &'a [Prepared], cv: &CvOutcome, config: &TrainConfig, dataset: &str) -> Vec<CvMarkdown<'a>> {
    prepared
        .par_iter()
        .zip(&cv.probabilities)
        .filter(|(page, _)| page.dataset == dataset)
        .filter_map(|(page, probabilities)| {
            let html = page.page.read_html().ok()?;
            let dom = goce_warc::dom::Dom::parse_with(&html, DomLimits { max_elements: 200_000, deadline: None }, &FOR_WEB2TEXT).ok()?;
            let content = content_blocks(&page.table, probabilities, config.trees.decision, config.trees.threshold);
            let mut markdown = goce_warc::extract::markdown::render(&dom, &page.table.cdom, &content, &MarkdownOptions::default());
            compose(&mut markdown);
            Some(CvMarkdown { dataset: page.dataset, id: &page.page.id, url: &page.page.url, text: written_text(&page.table, &content), markdown })
        })
        .collect()
}

/// What the CV reads of one page's out-of-fold text: its word and LCS F1, and either its
/// confidence trees' row (a page with gold text) or its snippet counts (a snippet-gold page).
struct PageOutcome {
    scores: (f64, f64),
    confidence_row: Option<ConfidenceRow>,
    snippets: Option<SnippetCounts>,
}

/// Domain-grouped k-fold cross-validation: every page scored by trees that never saw its
/// domain, beside the baselines on the same pages. Two levels: the block trees of each
/// fold give the confidence trees' out-of-fold inputs; those are then cross-validated on
/// them with the same folds.
pub fn cross_validate(prepared: &[Prepared], config: &TrainConfig, log: &dyn Fn(&str)) -> Result<CvOutcome, TrainError> {
    let started = Instant::now();
    let folds = config.folds.max(2);
    let fold_of_page: Vec<usize> = prepared.iter().map(|p| fold_of(&p.domain, folds)).collect();
    // The trees' out-of-fold probabilities for every page.
    let mut probabilities: Vec<Vec<f64>> = vec![Vec::new(); prepared.len()];
    let mut without_page_types: Vec<Vec<f64>> = vec![Vec::new(); prepared.len()];
    for fold in 0..folds {
        let train: Vec<&Prepared> = prepared.iter().zip(&fold_of_page).filter(|(_, f)| **f != fold).map(|(p, _)| p).collect();
        let model = fit(&train, &config.trees)?;
        let test: Vec<usize> = (0..prepared.len()).filter(|&i| fold_of_page[i] == fold).collect();
        let scored: Vec<(Vec<f64>, Vec<f64>)> =
            test.par_iter().map(|&i| (model.probabilities(&prepared[i].table), model.probabilities_of(&prepared[i].table.rows_without_page_types()))).collect();
        for (&i, (p, q)) in test.iter().zip(scored) {
            probabilities[i] = p;
            without_page_types[i] = q;
        }
        log(&format!("fold {fold}: trees trained on {} pages, scored {} ({:.0} s)", train.len(), test.len(), started.elapsed().as_secs_f64()));
    }
    let text_f1 = |page: &Prepared, probabilities: &[f64]| {
        let content = content_blocks(&page.table, probabilities, config.trees.decision, config.trees.threshold);
        let text = written_text(&page.table, &content);
        let (word_f1, lcs_f1) = text_scores(&text, &page.gold_words);
        (content, text, word_f1, lcs_f1)
    };
    // Each page's text scored: a page with gold text by its word F1, with a row for the
    // confidence trees; a snippet-gold page by its snippets (its word F1 against no gold text
    // means nothing, and it neither trains nor tests the confidence trees).
    let outcomes: Vec<PageOutcome> = (0..prepared.len())
        .into_par_iter()
        .map(|i| {
            let page = &prepared[i];
            let (content, text, word_f1, lcs_f1) = text_f1(page, &probabilities[i]);
            let (confidence_row, snippets) = match page.known {
                Some(_) => (None, Some(SnippetCounts::of(&text, &page.page.with, &page.page.without))),
                None => (Some(ConfidenceRow { page: i, inputs: confidence::inputs(&page.table, &probabilities[i], &content), word_f1 }), None),
            };
            PageOutcome { scores: (word_f1, lcs_f1), confidence_row, snippets }
        })
        .collect();
    let page_scores: Vec<(f64, f64)> = outcomes.iter().map(|o| o.scores).collect();
    let combined_snippets: Vec<Option<SnippetCounts>> = outcomes.iter().map(|o| o.snippets).collect();
    let rows: Vec<ConfidenceRow> = outcomes.into_iter().filter_map(|o| o.confidence_row).collect();
    {
        let wcxb: Vec<usize> = (0..prepared.len()).filter(|&i| prepared[i].dataset == "wcxb").collect();
        let n = wcxb.len().max(1) as f64;
        let mean = |f: &dyn Fn(usize) -> f64| wcxb.iter().map(|&i| f(i)).sum::<f64>() / n;
        log(&format!("out of fold, WCXB word F1: combined {:.3}, goce {:.3}", mean(&|i| page_scores[i].0), mean(&|i| prepared[i].baselines[0].0)));
    }

    // The confidence trees, cross-validated on the out-of-fold rows with the same folds.
    let mut confidence = vec![f64::NAN; rows.len()];
    for fold in 0..folds {
        let train: Vec<&ConfidenceRow> = rows.iter().filter(|r| fold_of_page[r.page] != fold).collect();
        let trees = fit_confidence(&train, &config.trees)?;
        for r in rows.iter().filter(|r| fold_of_page[r.page] == fold) {
            confidence[r.page] = f64::from(confidence::predict(&trees, &r.inputs));
        }
    }
    let mut scores = Vec::new();
    let mut snippets: BTreeMap<String, BTreeMap<String, SnippetSummary>> = BTreeMap::new();
    for (i, &(word_f1, lcs_f1)) in page_scores.iter().enumerate() {
        let page = &prepared[i];
        if let Some(combined) = combined_snippets[i] {
            let without = SnippetCounts::of(&text_f1(page, &without_page_types[i]).1, &page.page.with, &page.page.without);
            let counted = [("combined", combined), (WITHOUT_PAGE_TYPES, without)]
                .into_iter()
                .chain(BASELINES.iter().map(|e| e.name()).zip(page.baseline_snippets.iter().copied()));
            for (extractor, counts) in counted {
                for group in ["all", page.language] {
                    snippets.entry(group.to_string()).or_default().entry(extractor.to_string()).or_default().add(counts);
                }
            }
            continue;
        }
        let scored = |extractor: &'static str, (word_f1, lcs_f1): (f64, f64)| Scored {
            dataset: page.dataset,
            id: page.page.id.clone(),
            domain: page.domain.clone(),
            page_type: page.page.page_type.clone(),
            genre: page.page.genre,
            fold: fold_of_page[i],
            classifier_test: page.classifier_test,
            gold_text: !page.gold_words.is_empty(),
            extractor,
            word_f1,
            lcs_f1,
            confidence: (extractor == "combined").then_some(confidence[i]),
        };
        scores.push(scored("combined", (word_f1, lcs_f1)));
        let (_, _, word_f1, lcs_f1) = text_f1(page, &without_page_types[i]);
        scores.push(scored(WITHOUT_PAGE_TYPES, (word_f1, lcs_f1)));
        scores.push(scored(ALIGNED_BLOCKS, text_scores(&page.table.text_of(&page.labels), &page.gold_words)));
        for (e, &b) in BASELINES.iter().zip(&page.baselines) {
            scores.push(scored(e.name(), b));
        }
    }
    // Judged where word F1 means something: pages with gold text.
    let mut by_dataset: BTreeMap<&'static str, Vec<(f64, f64)>> = BTreeMap::new();
    for (i, page) in prepared.iter().enumerate().filter(|(_, p)| !p.gold_words.is_empty()) {
        by_dataset.entry(page.dataset).or_default().push((confidence[i], page_scores[i].0));
    }
    let confidence_report = by_dataset.into_iter().map(|(d, pairs)| (d, ConfidenceReport::of(&pairs))).collect();
    let mut pages: BTreeMap<&'static str, usize> = BTreeMap::new();
    for p in prepared {
        *pages.entry(p.dataset).or_default() += 1;
    }
    let report = CvReport {
        folds,
        settings: config.trees,
        pages,
        confidence: confidence_report,
        blocks: prepared.iter().map(|p| p.table.len()).sum(),
        seconds: started.elapsed().as_secs_f64(),
        means: summarise(&scores),
        snippets,
        calibration: calibration(prepared, &probabilities),
        scores,
    };
    Ok(CvOutcome { report, rows, probabilities })
}

fn summarise(scores: &[Scored]) -> BTreeMap<String, BTreeMap<String, BTreeMap<String, Summary>>> {
    let mut groups: BTreeMap<String, BTreeMap<String, BTreeMap<String, Vec<&Scored>>>> = BTreeMap::new();
    for s in scores {
        let mut subsets = vec!["all".to_string()];
        if s.dataset == "wcxb" {
            subsets.push(format!("{} genre", s.genre.name()));
            subsets.push(s.page_type.clone());
        }
        if s.classifier_test {
            subsets.push("ResNet test domains".into());
        }
        for subset in subsets {
            groups.entry(s.dataset.to_string()).or_default().entry(subset).or_default().entry(s.extractor.to_string()).or_default().push(s);
        }
    }
    groups
        .into_iter()
        .map(|(dataset, subsets)| {
            let subsets = subsets
                .into_iter()
                .map(|(subset, extractors)| {
                    let extractors = extractors
                        .into_iter()
                        .map(|(name, v)| {
                            let n = v.len().max(1) as f64;
                            let summary = Summary {
                                pages: v.len(),
                                word_f1: v.iter().map(|s| s.word_f1).sum::<f64>() / n,
                                lcs_f1: v.iter().map(|s| s.lcs_f1).sum::<f64>() / n,
                                under_0_3: v.iter().filter(|s| s.gold_text && s.word_f1 < BAD_PAGE_F1).count(),
                                without_gold: v.iter().filter(|s| !s.gold_text).count(),
                                without_gold_empty: v.iter().filter(|s| !s.gold_text && s.word_f1 >= 1.0).count(),
                            };
                            (name, summary)
                        })
                        .collect();
                    (subset, extractors)
                })
                .collect();
            (dataset, subsets)
        })
        .collect()
}

/// The cross-validation tables in Markdown: per dataset, word F1 / LCS F1 / pages under
/// 0.3 for each subset and extractor.
pub fn render_report(report: &CvReport) -> String {
    let names: Vec<&str> = ["combined", WITHOUT_PAGE_TYPES].into_iter().chain(BASELINES.iter().map(|e| e.name())).chain([ALIGNED_BLOCKS]).collect();
    let mut out = String::new();
    for (dataset, subsets) in &report.means {
        out += &format!("\n**{dataset}** (word F1 / LCS F1 / pages with gold text under {BAD_PAGE_F1})\n\n| subset | pages |");
        for name in &names {
            out += &format!(" {name} |");
        }
        out += "\n|---|---|";
        out += &"---|".repeat(names.len());
        out.push('\n');
        let order = |s: &str| match s {
            "all" => 0,
            "article genre" => 1,
            "list-view genre" => 2,
            "ResNet test domains" => 4,
            _ => 3,
        };
        let mut keys: Vec<&String> = subsets.keys().collect();
        keys.sort_by_key(|k| (order(k), k.to_string()));
        for subset in keys {
            let by = &subsets[subset];
            let pages = by.values().next().map_or(0, |m| m.pages);
            out += &format!("| {subset} | {pages} |");
            for name in &names {
                match by.get(*name) {
                    Some(m) => out += &format!(" {:.3} / {:.3} / {} |", m.word_f1, m.lcs_f1, m.under_0_3),
                    None => out += " |",
                }
            }
            out.push('\n');
        }
        // WCXB marks some pages as having no main content: counted apart, with how often
        // each extractor gave the empty text that is right there.
        if let Some(all) = subsets.get("all").filter(|by| by.values().any(|m| m.without_gold > 0)) {
            let pages = all.values().next().map_or(0, |m| m.without_gold);
            let right: Vec<String> = names.iter().filter_map(|n| all.get(*n).map(|m| format!("{n} {}", m.without_gold_empty))).collect();
            out += &format!(
                "\n{pages} of these pages have no gold text (included in the means; an empty text scores 1, any other 0); empty text on them: {}.\n",
                right.join(", ")
            );
        }
    }
    if !report.snippets.is_empty() {
        out += &format!("\n**{SNIPPET_DATASET}** (snippet gold as trafilatura's benchmark counts it: precision / recall / F1)\n\n| language | pages |");
        let snippet_names: Vec<&str> = names.iter().copied().filter(|n| *n != ALIGNED_BLOCKS).collect();
        for name in &snippet_names {
            out += &format!(" {name} |");
        }
        out += "\n|---|---|";
        out += &"---|".repeat(snippet_names.len());
        out.push('\n');
        let mut groups: Vec<&String> = report.snippets.keys().collect();
        groups.sort_by_key(|g| (g.as_str() != "all", g.to_string()));
        for group in groups {
            let by = &report.snippets[group];
            out += &format!("| {group} | {} |", by.values().next().map_or(0, |m| m.pages));
            for name in &snippet_names {
                match by.get(*name) {
                    Some(m) => out += &format!(" {:.3} / {:.3} / {:.3} |", m.precision, m.recall, m.f1),
                    None => out += " |",
                }
            }
            out.push('\n');
        }
    }
    if !report.calibration.is_empty() {
        out += "
**Calibration** of the block trees' out-of-fold probabilities (blocks with words; the share of their words that is content, each page weighing the same)

| probability | blocks | content share |
|---|---|---|
";
        for bin in &report.calibration {
            out += &format!("| {:.1}–{:.1} | {} | {:.2} |\n", bin.low, bin.low + 0.1, bin.blocks, bin.content_share);
        }
    }
    for (dataset, c) in &report.confidence {
        out += &format!(
            "\n**extraction_confidence on {dataset}** ({} pages with gold text, out of fold): Spearman {:.3} with the word F1; \
             area under the ROC curve for finding the pages under 0.5: {:.3}\n\n| confidence | pages | mean confidence | mean word F1 |\n|---|---|---|---|\n",
            c.pages, c.spearman, c.auc_under_0_5
        );
        for bin in c.reliability.iter().filter(|b| b.pages > 0) {
            out += &format!("| {:.1}–{:.1} | {} | {:.3} | {:.3} |\n", bin.low, bin.low + 0.1, bin.pages, bin.mean_confidence, bin.mean_word_f1);
        }
    }
    out
}

/// The model card: what the model is, how it was trained and how it scores in CV.
pub fn model_card(report: &CvReport, final_pages: usize, final_blocks: usize, seconds: f64) -> String {
    let s = &report.settings;
    let pages: Vec<String> = report.pages.iter().map(|(d, n)| format!("{d} {n}")).collect();
    let page_types = if s.page_type_dropout >= 1.0 {
        "blanked on every training page: the model `--classifier none` reads (`combiner-no-page-types.json`)".to_string()
    } else if s.page_type_dropout > 0.0 {
        format!("blanked, as `--classifier none` leaves them, on {:.0}% of the training pages (a fixed hash of the page)", 100.0 * s.page_type_dropout)
    } else {
        "the classifier's on every training page".to_string()
    };
    // One fit (the shipped model) says nothing, so its card stays as it was.
    let fits = if s.hard_pages > 0.0 {
        format!("- Fits: two, the second with each page's weight times `1 + {} * (1 - F1)`, F1 of the first fit's blocks on it.\n", s.hard_pages)
    } else {
        String::new()
    };
    format!(
        "# The combiner (`--extractor combined`)\n\n\
         Gradient-boosted trees (forust-ml) over {} features per text block, \
         written by `make model-extract`.\n\n\
         - Pages: {} (held-out fifths of WCXB-dev and Scrapinghub left out); {final_pages} pages, {final_blocks} blocks with words in the final fit.\n\
         - Trees: {}, learning rate {}, depth {}, each tree on a draw of {} of the blocks and {} of the inputs (seed {}); content blocks by {} (blocks without words at probability >= {}).\n\
         - Page-type inputs: {page_types}.\n\
         {fits}\
         - Training took {seconds:.0} s (cross-validation {:.0} s) on this machine.\n\n\
         ## Domain-grouped {}-fold cross-validation\n\n\
         Pages grouped by registrable domain; each fold scored by trees trained on the other folds. `combined` is the \
         shipped extractor, the block trees' text; its `extraction_confidence` comes from small regression trees \
         trained on the other folds' out-of-fold pages. `combined, no page types` is the same trees with the page types missing. \
         Baselines run on the same pages; `goce` takes the ResNet's genre. \
         `ResNet test domains`: the WCXB pages of the classifier's held-out test domains, the only \
         ones whose page-type inputs come from a ResNet that never saw them.\n{}",
        feature_count(),
        pages.join(", "),
        s.trees,
        s.learning_rate,
        s.max_depth,
        s.subsample,
        s.colsample,
        s.seed,
        s.decision.name(),
        s.threshold,
        report.seconds,
        report.folds,
        render_report(report)
    )
}

/// Fits the shipped model on every prepared page: the block trees, and the confidence
/// trees on the cross-validation's out-of-fold rows (pages as new sites look to the block
/// trees); writes it into `out`.
pub fn train_final(prepared: &[Prepared], cv: &CvOutcome, config: &TrainConfig) -> Result<(usize, usize), TrainError> {
    let all: Vec<&Prepared> = prepared.iter().collect();
    let model = fit(&all, &config.trees)?.with_confidence(fit_confidence(&cv.rows.iter().collect::<Vec<_>>(), &config.trees)?);
    std::fs::create_dir_all(&config.out).map_err(|e| TrainError::io(&config.out, e))?;
    model.save_file(&config.out, config.model_file)?;
    let blocks = prepared.iter().map(|p| p.table.words.iter().filter(|&&w| w > 0).count()).sum();
    Ok((prepared.len(), blocks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_label_the_blocks_they_cover() {
        let texts = ["Menu Home", "The  story begins", "and goes on.", "Foto: Getty", "Home"];
        let with = ["story begins and goes".to_string(), "Home".into(), "absent".into()];
        let without = ["Foto:".to_string(), "Home".into()];
        let (labels, known) = snippet_labels(&texts, &with, &without);
        // "Home" is found twice: as `with` it labels nothing, as `without` every copy.
        assert_eq!(known, [true, true, true, true, true]);
        assert_eq!(labels, [false, true, true, false, false]);
        let (labels, known) = snippet_labels(&texts, &["goes on. Foto".to_string()], &["Getty".to_string()]);
        assert_eq!(known, [false, false, true, false, false]);
        assert_eq!(labels, [false, false, true, false, false]);
    }

    #[test]
    fn language_groups_read_the_declared_lang() {
        let language_group = |html: &str| super::language_group(&Dom::parse_unbounded(html));
        assert_eq!(language_group("<!doctype html><HTML lang=\"de-DE\"><body>"), "german");
        assert_eq!(language_group("<html xml:lang='en' class=x>"), "english");
        assert_eq!(language_group("<html data-lang=\"de\">"), "other");
        assert_eq!(language_group("<html><body lang=de>"), "other");
        assert_eq!(language_group("<html lang=\"pl\">"), "other");
        // The first 64 KiB end inside a two-byte letter (15 bytes, then 65,521): no panic.
        assert_eq!(language_group(&format!("<html lang=en>x{}", "с".repeat(40_000))), "english");
    }

    #[test]
    fn archived_pages_take_the_domain_they_archive() {
        assert_eq!(domain_of("https://web.archive.org/web/20190101000000/https://www.example.de/a/b"), "example.de");
        assert_eq!(domain_of("http://web.archive.org/web/2019/http://news.bbc.co.uk/x"), "bbc.co.uk");
        assert_eq!(domain_of("https://web.archive.org/about"), "archive.org");
    }

    #[test]
    fn domains_group_subdomains_and_country_codes() {
        assert_eq!(domain_of("https://www.example.com/a/b"), "example.com");
        assert_eq!(domain_of("http://blog.example.com:8080/x"), "example.com");
        assert_eq!(domain_of("https://news.bbc.co.uk/story"), "bbc.co.uk");
        assert_eq!(domain_of("localhost"), "localhost");
        assert_eq!(domain_of(""), "");
    }

    #[test]
    fn rank_figures_match_hand_computed_values() {
        // Same order: 1; reversed: -1; ties take their mean rank.
        assert!((spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        assert_eq!(ranks(&[5.0, 1.0, 5.0]), [2.5, 1.0, 2.5]);
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), 0.0, "a constant side");
        // Three positives, two negatives: 5 of the 6 pairs ordered right.
        let auc = roc_auc(&[0.9, 0.8, 0.3, 0.5, 0.1], &[true, true, true, false, false]);
        assert!((auc - 5.0 / 6.0).abs() < 1e-12, "{auc}");
        assert!(roc_auc(&[0.1, 0.2], &[true, true]).is_nan(), "no negatives");
    }

    #[test]
    fn the_confidence_report_bins_pages_and_finds_the_bad_ones() {
        let pairs = [(0.95, 0.97), (0.9, 0.88), (0.42, 0.2), (0.35, 0.45), (0.05, 0.0), (1.0, 1.0)];
        let report = ConfidenceReport::of(&pairs);
        assert_eq!(report.pages, 6);
        assert!((report.auc_under_0_5 - 1.0).abs() < 1e-12, "every page under 0.5 has less confidence than every other");
        assert!(report.spearman > 0.9);
        assert_eq!(report.reliability.len(), 10);
        assert_eq!(report.reliability.iter().map(|b| b.pages).sum::<usize>(), 6);
        let top = &report.reliability[9];
        assert_eq!(top.pages, 3, "0.9, 0.95 and 1.0 share the last bin");
        assert!((top.mean_word_f1 - (0.97 + 0.88 + 1.0) / 3.0).abs() < 1e-12);
    }

    #[test]
    fn aligned_f1_weighs_blocks_by_their_words() {
        let words = [10, 30, 60, 0];
        assert_eq!(aligned_f1(&[true, true, false, false], &[true, true, false, false], &words), 1.0);
        // Decided 10 + 30 words, aligned 30 + 60, 30 in both: 60 / 130.
        assert!((aligned_f1(&[true, true, false, false], &[false, true, true, false], &words) - 60.0 / 130.0).abs() < 1e-12);
        assert_eq!(aligned_f1(&[false, false, false, true], &[true, false, false, false], &words), 0.0);
        assert_eq!(aligned_f1(&[false; 4], &[false, false, false, true], &words), 1.0);
    }

    #[test]
    fn page_type_dropout_blanks_about_its_share_and_always_the_same_pages() {
        let page = |i: usize| Prepared {
            dataset: "wcxb",
            page: GoldPage {
                id: format!("{i:04}"),
                html_path: PathBuf::new(),
                url: String::new(),
                page_type: "article".into(),
                genre: Genre::Article,
                main_content: String::new(),
                with: Vec::new(),
                without: Vec::new(),
                null_main_content: false,
                held_out: false,
            },
            domain: String::new(),
            table: BlockTable::of(&PageAnalysis::new(&goce_warc::dom::Dom::parse_unbounded("<p>x</p>"))),
            labels: Vec::new(),
            known: None,
            shares: Vec::new(),
            gold_words: Vec::new(),
            baselines: Vec::new(),
            baseline_snippets: Vec::new(),
            language: "other",
            classifier_test: false,
        };
        let pages: Vec<Prepared> = (0..1000).map(page).collect();
        let blanked = |share: f64| pages.iter().filter(|p| page_types_blanked(p, share)).count();
        assert_eq!(blanked(0.0), 0);
        assert_eq!(blanked(1.0), 1000);
        assert!((250..350).contains(&blanked(0.3)), "{}", blanked(0.3));
        // A larger share blanks the smaller share's pages and more: the choice is the page's
        // own, not a draw per call.
        let at = |share: f64| pages.iter().filter(|p| page_types_blanked(p, share)).map(|p| p.page.id.clone()).collect::<Vec<_>>();
        let (some, more) = (at(0.15), at(0.3));
        assert!(!some.is_empty() && some.len() < more.len());
        assert!(some.iter().all(|id| more.contains(id)));
    }

    #[test]
    fn folds_are_stable_and_in_range() {
        for d in ["example.com", "bbc.co.uk", ""] {
            assert!(fold_of(d, 5) < 5);
            assert_eq!(fold_of(d, 5), fold_of(d, 5));
        }
        assert_ne!((0..50).map(|i| fold_of(&format!("site{i}.org"), 5)).min(), (0..50).map(|i| fold_of(&format!("site{i}.org"), 5)).max());
    }
}
