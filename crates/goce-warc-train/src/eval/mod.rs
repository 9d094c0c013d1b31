//! `goce-warc-train eval`: extraction quality over a gold dataset, in the shape of the GOCE
//! paper's Table 2, with WCXB's word F1 beside the paper's metrics.

pub use crate::gold::{dataset, metrics};

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

pub use dataset::{GoldPage, load};
use goce_warc::classify::{Classifier, ClassifyError, Features, NetInput, Prediction};
use goce_warc::dom::{Dom, DomLimits, FOR_RENDERING};
use goce_warc::extract::{ExtractLimits, ExtractModels, ExtractRequest, Extractor, Genre, PageAnalysis, PageSource};
use goce_warc::render::{Picture, RenderOptions, render_lite};
use metrics::{Prf, cosine, lcs_prf, snippets, word_prf, words};

/// Reading a gold dataset is what fails here.
pub use crate::gold::GoldError as EvalError;

/// The scores of one extractor on one page.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PageScore {
    pub id: String,
    pub page_type: String,
    pub genre: Genre,
    pub held_out: bool,
    pub extractor: Extractor,
    pub word: Prf,
    pub lcs: Prf,
    pub cosine: f64,
    pub with_found: Option<f64>,
    pub without_avoided: Option<f64>,
    /// The genre `goce` used (its guess).
    pub used_genre: Option<Genre>,
    pub error: Option<String>,
    /// The gold main content was `null` in the dataset (scored as empty).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub null_gold: bool,
}

/// Means over a group of pages.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Means {
    pub pages: usize,
    pub word_f1: f64,
    pub word_precision: f64,
    pub word_recall: f64,
    pub lcs_precision: f64,
    pub lcs_recall: f64,
    pub lcs_f1: f64,
    pub cosine: f64,
    pub with_found: Option<f64>,
    pub without_avoided: Option<f64>,
}

impl Means {
    fn of(scores: &[&PageScore]) -> Self {
        let n = scores.len();
        if n == 0 {
            return Self::default();
        }
        let mean = |f: &dyn Fn(&PageScore) -> f64| scores.iter().map(|s| f(s)).sum::<f64>() / n as f64;
        let mean_opt = |f: &dyn Fn(&PageScore) -> Option<f64>| {
            let v: Vec<f64> = scores.iter().filter_map(|s| f(s)).collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        };
        Self {
            pages: n,
            word_f1: mean(&|s| s.word.f1),
            word_precision: mean(&|s| s.word.precision),
            word_recall: mean(&|s| s.word.recall),
            lcs_precision: mean(&|s| s.lcs.precision),
            lcs_recall: mean(&|s| s.lcs.recall),
            lcs_f1: mean(&|s| s.lcs.f1),
            cosine: mean(&|s| s.cosine),
            with_found: mean_opt(&|s| s.with_found),
            without_avoided: mean_opt(&|s| s.without_avoided),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    /// The pages tuning may look at (id not a multiple of 5).
    Tuning,
    /// Every fifth page by id, held aside from tuning.
    HeldOut,
    All,
}

impl goce_warc::choice::Choice for Split {
    const ALL: &'static [Self] = &[Self::Tuning, Self::HeldOut, Self::All];

    fn name(self) -> &'static str {
        Split::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            Self::Tuning => "The pages tuning may look at (id not a multiple of 5)",
            Self::HeldOut => "Every fifth page by id, held aside from tuning",
            Self::All => "Both",
        }
    }
}

impl Split {
    fn contains(self, held_out: bool) -> bool {
        match self {
            Self::Tuning => !held_out,
            Self::HeldOut => held_out,
            Self::All => true,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Tuning => "tuning",
            Self::HeldOut => "held-out",
            Self::All => "all",
        }
    }
}

#[derive(Debug, serde::Serialize)]
pub struct Report {
    pub dataset: String,
    pub extractors: Vec<Extractor>,
    /// split → subset ("all", "article", "list-view", or a page type) → extractor → means.
    pub means: BTreeMap<&'static str, BTreeMap<String, BTreeMap<&'static str, Means>>>,
    /// Agreement of the genre `goce` guessed with the gold genre, per split.
    pub genre_guess_accuracy: BTreeMap<&'static str, f64>,
    /// Where goce's genre came from (the classifier, or the HTML-structure guess).
    pub genre_source: String,
    /// Pages whose gold main content is `null` in the dataset, scored as empty.
    pub null_main_content: usize,
    pub pages: Vec<PageScore>,
}

/// Scores every page with every extractor; `goce` takes a page's genre from `predictions`
/// (the classifier's, by page id) and guesses it from HTML structure where absent;
/// `combined` reads the predicted page-type probabilities.
pub fn evaluate(
    pages: &[GoldPage],
    extractors: &[Extractor],
    models: &ExtractModels,
    limits: &ExtractLimits,
    predictions: &HashMap<String, Prediction>,
) -> Vec<PageScore> {
    pages.par_iter().flat_map_iter(|page| score_page(page, extractors, models, limits, predictions.get(&page.id))).collect()
}

/// The classifier's prediction for every page that can be read and parsed, by page id
/// (pictures drawn in parallel where the classifier reads them, then classified 64 at a time).
pub fn predict_pages(pages: &[GoldPage], classifier: &Classifier, limits: &ExtractLimits) -> Result<HashMap<String, Prediction>, ClassifyError> {
    let mut predictions = HashMap::new();
    for chunk in pages.chunks(64) {
        let prepared: Vec<(String, Option<Picture>, Features, Option<Prediction>)> = chunk
            .par_iter()
            .filter_map(|page| {
                let html = page.read_html().ok()?;
                let dom = goce_warc::extract::parse_page(&html, limits, &FOR_RENDERING).ok()?;
                let features = classifier.features_of(&goce_warc::extract::PageAnalysis::new(&dom), &page.url);
                let cheap = classifier.decide_cheaply(&features);
                let picture = (cheap.is_none() && classifier.kind().needs_picture()).then(|| render_lite(&dom, &RenderOptions::default()).picture);
                Some((page.id.clone(), picture, features, cheap))
            })
            .collect();
        let waiting: Vec<&(String, Option<Picture>, Features, Option<Prediction>)> = prepared.iter().filter(|p| p.3.is_none()).collect();
        let inputs: Vec<NetInput<'_>> = waiting.iter().map(|(_, picture, features, _)| NetInput { picture: picture.as_ref(), features }).collect();
        for ((id, ..), prediction) in waiting.iter().zip(classifier.classify(&inputs)?) {
            predictions.insert(id.clone(), prediction);
        }
        for (id, _, _, cheap) in &prepared {
            if let Some(prediction) = cheap {
                predictions.insert(id.clone(), prediction.clone());
            }
        }
    }
    Ok(predictions)
}

fn score_page(page: &GoldPage, extractors: &[Extractor], models: &ExtractModels, limits: &ExtractLimits, prediction: Option<&Prediction>) -> Vec<PageScore> {
    let predicted = prediction.map(|p| p.genre);
    let gold = words(&page.main_content);
    let html = page.read_html();
    // One parse serves every extractor: Web2Text's pre-pass keeps a superset of the others'.
    let prepass = extractors.iter().find(|e| e.uses_web2text() || **e == Extractor::Combined).map_or(Extractor::Article.prepass(), |e| e.prepass());
    let dom = html.as_ref().ok().map(|h| Dom::parse_with(h, DomLimits { max_elements: limits.max_elements, deadline: None }, prepass));
    // One analysis serves every extractor too (Algorithm 2 runs once).
    let analysis = match &dom {
        Some(Ok(dom)) => Some(PageAnalysis::new(dom)),
        _ => None,
    };
    let request = |genre| ExtractRequest { genre, page_types: prediction.map(|p| &p.probabilities), limits: *limits, ..ExtractRequest::default() };
    extractors
        .iter()
        .map(|&extractor| {
            let result = match (&html, &dom, &analysis) {
                (Err(e), _, _) => Err(e.to_string()),
                (Ok(h), _, _) if extractor == Extractor::AllText => extractor.extract(models, PageSource::html(h), &request(None)).map_err(|e| e.to_string()),
                (Ok(h), _, Some(analysis)) => {
                    let genre = match extractor {
                        Extractor::Oracle => Some(page.genre),
                        e if e.uses_genre() => predicted,
                        _ => None,
                    };
                    extractor.extract(models, PageSource::parsed(h, analysis), &request(genre)).map_err(|e| e.to_string())
                }
                (Ok(_), Some(Err(e)), None) => Err(e.to_string()),
                (Ok(_), _, None) => Err("no DOM".into()),
            };
            let (text, used_genre, error) = match result {
                Ok(e) => (e.text, e.genre, None),
                Err(e) => (String::new(), None, Some(e)),
            };
            let predicted = words(&text);
            let (with_found, without_avoided) = snippets(&text, &page.with, &page.without);
            PageScore {
                id: page.id.clone(),
                page_type: page.page_type.clone(),
                genre: page.genre,
                held_out: page.held_out,
                extractor,
                word: word_prf(&predicted, &gold),
                lcs: lcs_prf(&predicted, &gold),
                cosine: cosine(&predicted, &gold),
                with_found,
                without_avoided,
                used_genre,
                error,
                null_gold: page.null_main_content,
            }
        })
        .collect()
}

pub fn report(dataset: &str, extractors: &[Extractor], scores: Vec<PageScore>, genre_source: &str) -> Report {
    let mut means: BTreeMap<&'static str, BTreeMap<String, BTreeMap<&'static str, Means>>> = BTreeMap::new();
    let mut accuracy = BTreeMap::new();
    for split in [Split::Tuning, Split::HeldOut, Split::All] {
        let in_split: Vec<&PageScore> = scores.iter().filter(|s| split.contains(s.held_out)).collect();
        let mut subsets: Vec<String> = vec!["all".into(), "article".into(), "list-view".into()];
        let mut types: Vec<String> = in_split.iter().map(|s| s.page_type.clone()).collect();
        types.sort();
        types.dedup();
        subsets.extend(types);
        let by_subset = means.entry(split.name()).or_default();
        for subset in subsets {
            let by_extractor = by_subset.entry(subset.clone()).or_default();
            for &extractor in extractors {
                let group: Vec<&PageScore> = in_split
                    .iter()
                    .copied()
                    .filter(|s| s.extractor == extractor)
                    .filter(|s| subset == "all" || s.genre.name() == subset || s.page_type == subset)
                    .collect();
                by_extractor.insert(extractor.name(), Means::of(&group));
            }
        }
        let guesses: Vec<bool> = in_split.iter().filter(|s| s.extractor == Extractor::Goce).filter_map(|s| s.used_genre.map(|g| g == s.genre)).collect();
        if !guesses.is_empty() {
            accuracy.insert(split.name(), guesses.iter().filter(|&&ok| ok).count() as f64 / guesses.len() as f64);
        }
    }
    let null_main_content = scores.iter().filter(|s| s.null_gold).map(|s| s.id.as_str()).collect::<std::collections::BTreeSet<_>>().len();
    Report {
        dataset: dataset.to_string(),
        extractors: extractors.to_vec(),
        means,
        genre_guess_accuracy: accuracy,
        genre_source: genre_source.to_string(),
        null_main_content,
        pages: scores,
    }
}

/// The paper's Table 2 for one split: metric rows per genre subset, extractor columns.
pub fn render_table(report: &Report, split: Split) -> String {
    let Some(by_subset) = report.means.get(split.name()) else { return String::new() };
    let names: Vec<&str> = report.extractors.iter().map(|e| e.name()).collect();
    let mut out = format!("{} — {} split\n", report.dataset, split.name());
    out += &format!("{:<10} {:<12}", "subset", "metric");
    for name in &names {
        out += &format!(" {name:>15}");
    }
    out.push('\n');
    type MetricRow = (&'static str, fn(&Means) -> f64);
    let rows: [MetricRow; 5] =
        [("P (LCS)", |m| m.lcs_precision), ("R (LCS)", |m| m.lcs_recall), ("F1 (LCS)", |m| m.lcs_f1), ("cosine", |m| m.cosine), ("word F1", |m| m.word_f1)];
    for subset in ["article", "list-view", "all"] {
        let Some(by_extractor) = by_subset.get(subset) else { continue };
        let n = by_extractor.values().next().map_or(0, |m| m.pages);
        for (i, (metric, value)) in rows.iter().enumerate() {
            let label = if i == 0 { format!("{subset} ({n})") } else { String::new() };
            out += &format!("{label:<10} {metric:<12}");
            for name in &names {
                let v = by_extractor.get(name).map_or(f64::NAN, value);
                out += &format!(" {:>15.3}", v);
            }
            out.push('\n');
        }
    }
    out += "word F1 by page type:\n";
    for (subset, by_extractor) in by_subset {
        if matches!(subset.as_str(), "all" | "article" | "list-view") {
            continue;
        }
        let n = by_extractor.values().next().map_or(0, |m| m.pages);
        out += &format!("  {:<20}", format!("{subset} ({n})"));
        for name in &names {
            out += &format!(" {:>15.3}", by_extractor.get(name).map_or(f64::NAN, |m| m.word_f1));
        }
        out.push('\n');
    }
    if report.null_main_content > 0 {
        out += &format!("{} pages have a null gold main content in the dataset (scored as empty)\n", report.null_main_content);
    }
    if let Some(acc) = report.genre_guess_accuracy.get(split.name()) {
        out += &format!("goce's genre agrees with the gold genre on {:.1}% of pages ({})\n", acc * 100.0, report.genre_source);
    }
    out
}
