//! `goce-warc-train train` (`make model`): renders a WCXB-style dataset with the lite renderer,
//! splits it by domain with a fixed seed, trains the ResNet and the html-features
//! baseline on the training domains, picks the ResNet epoch by validation loss, scores
//! both on the held-out test domains and writes `models/` with its model card.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use tch::nn::{self, OptimizerConfig};
use tch::{Device, Kind, Tensor};

use crate::TrainError;
use crate::gold::dataset;
use goce_warc::analyse::{ExtractLimits, Genre, PageAnalysis, parse_page};
use goce_warc::classify::features::{FEATURE_COUNT, FEATURES, Features, PAPER_FEATURE_COUNT};
use goce_warc::classify::linear::{LINEAR_TRAINING, LinearModel, standardisation};
use goce_warc::classify::resnet::{NetInput, NetSpec, picture_bytes, standardised_rows};
use goce_warc::classify::words::{WordBag, WordModel, WordRegression, WordTraining, word_counts};
use goce_warc::classify::{
    CASCADE_MODEL, CheckRecord, CpuLayers, DeviceChoice, GenreNet, HTML_FEATURES_MODEL, PAGE_TYPE_COUNT, PAGE_TYPES, PageType, Prediction, RESNET_SPEC,
    RESNET_WEIGHTS, WORD_MODEL, cascade,
};
use goce_warc::dom::FOR_RENDERING;
use goce_warc::render::{Picture, RenderOptions, render_lite};
use goce_warc_torch::device::{DeviceRequest, select};
use goce_warc_torch::resnet::{Net, ResNetShape, features_tensor, pictures_tensor};
use goce_warc_torch::words::{SoftmaxProblem, fit_softmax_regression};

/// Everything `train` is told; the defaults are the shipped model's.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TrainConfig {
    pub dataset: PathBuf,
    pub out: PathBuf,
    pub seed: u64,
    /// Percent of domains for training and validation; the rest is the test split.
    pub train_percent: u64,
    pub validation_percent: u64,
    pub epochs: usize,
    /// Stop when validation loss has not improved for this many epochs.
    pub patience: usize,
    pub batch_size: usize,
    pub learning_rate: f64,
    pub weight_decay: f64,
    pub widths: Vec<i64>,
    pub blocks: Vec<i64>,
    pub fuse_features: bool,
    /// Fuse the word model's scores too (needs `fuse_features`).
    pub fuse_words: bool,
    pub words: WordTraining,
    /// Folds (by domain) for the word scores the training pages are shown: each page's
    /// come from a word model that did not see its domain, as at inference.
    pub word_folds: u64,
    pub dropout: f64,
    /// Random shift of the picture in training, in pixels.
    pub max_shift: usize,
    /// Share of training pages shown without their URL, so that pages whose URL is
    /// unknown (`classify` without `--url`) are still classified from the rest.
    pub url_dropout: f64,
    pub threads: usize,
    #[serde(skip)]
    pub device: DeviceChoice,
    /// Pages whose pictures and outputs are recorded for the regression test.
    pub check_pages: Vec<PathBuf>,
    /// Keep the ResNet in `out` and refit only the cascade's gate (and the linear models
    /// and word model it reads, which come out the same).
    pub cascade_only: bool,
    /// More pages of one known type each (a folder `dataset::load` reads, e.g. 140 product
    /// pages from 62 sites), split by domain like the dataset's. Their test domains are scored
    /// apart (`test: NAME`), so `test` stays the dataset's own.
    pub added: Vec<AddedPages>,
}

/// A folder of pages that are all of one page type.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AddedPages {
    pub dir: PathBuf,
    pub page_type: PageType,
}

impl AddedPages {
    /// The folder's name: the prefix of its pages' ids and the name of its test scores.
    pub fn name(&self) -> String {
        self.dir.file_name().map_or_else(|| self.dir.display().to_string(), |n| n.to_string_lossy().into_owned())
    }
}

/// `DIR=TYPE`, as `train --add` takes it: `../shared/data/zyte-products=product`.
impl std::str::FromStr for AddedPages {
    type Err = String;

    fn from_str(spec: &str) -> Result<Self, String> {
        let (dir, name) = spec.rsplit_once('=').ok_or("want DIR=TYPE, e.g. ../shared/data/zyte-products=product")?;
        let page_type = PageType::parse(name).ok_or_else(|| format!("{name:?} is not one of the seven page types"))?;
        Ok(Self { dir: PathBuf::from(dir), page_type })
    }
}

impl Default for TrainConfig {
    fn default() -> Self {
        Self {
            dataset: PathBuf::from("../shared/data/wcxb-dev"),
            out: PathBuf::from("models"),
            seed: 2026,
            train_percent: 70,
            validation_percent: 15,
            epochs: 30,
            patience: 8,
            batch_size: 32,
            learning_rate: 2e-3,
            weight_decay: 1e-4,
            widths: vec![32, 64, 128, 256],
            blocks: vec![1, 1, 1, 1],
            fuse_features: true,
            fuse_words: true,
            words: WordTraining::default(),
            word_folds: 5,
            dropout: 0.2,
            max_shift: 16,
            url_dropout: 0.3,
            threads: 2,
            device: DeviceChoice::Cpu,
            check_pages: Vec::new(),
            cascade_only: false,
            added: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    Train,
    Validation,
    Test,
}

/// The page's domain: its host without a leading `www.`.
pub fn domain_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = host.split(':').next().unwrap_or(host);
    host.strip_prefix("www.").unwrap_or(host)
}

/// A domain's split: a seeded hash, so every page of a domain lands in the same split.
pub fn split_of(domain: &str, seed: u64, train_percent: u64, validation_percent: u64) -> Split {
    let mut hash = 0xcbf2_9ce4_8422_2325u64 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for b in domain.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let bucket = splitmix(hash) % 100;
    if bucket < train_percent {
        Split::Train
    } else if bucket < train_percent + validation_percent {
        Split::Validation
    } else {
        Split::Test
    }
}

pub(crate) fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A page ready for training.
pub struct Sample {
    pub id: String,
    pub domain: String,
    /// Distinct (field, word) pairs with counts, for the word model's vocabulary.
    pub words: Vec<(usize, String, u32)>,
    pub split: Split,
    pub label: PageType,
    pub picture: Picture,
    pub features: Features,
}

/// Writes the prepared pages as JSON lines (id, domain, split, label, the fused features
/// by name, the words by field) for analysis outside goce-warc (the head experiments of
/// docs/experiments.md fitted scikit-learn heads to them).
pub fn write_samples(samples: &[Sample], path: &Path) -> Result<(), TrainError> {
    use std::io::Write;
    #[derive(serde::Serialize)]
    struct Line<'a> {
        id: &'a str,
        domain: &'a str,
        split: Split,
        label: &'static str,
        feature_names: &'a [&'static str],
        features: &'a [f32],
        /// (field, word, count); fields as in `words.rs`: text, class and id words, title, URL.
        words: &'a [(usize, String, u32)],
    }
    let err = |e| TrainError::io(path, e);
    let file = std::fs::File::create(path).map_err(err)?;
    let mut out = std::io::BufWriter::new(file);
    let feature_names: Vec<&'static str> = FEATURES.iter().map(|f| f.name).collect();
    for s in samples {
        let line = Line {
            id: &s.id,
            domain: &s.domain,
            split: s.split,
            label: s.label.name(),
            feature_names: &feature_names,
            features: &s.features.values,
            words: &s.words,
        };
        serde_json::to_writer(&mut out, &line).map_err(|e| TrainError::json(path.display(), e))?;
        out.write_all(b"\n").map_err(err)?;
    }
    out.flush().map_err(err)
}

/// Renders and featurises every page of the dataset (in parallel).
pub fn prepare(config: &TrainConfig) -> Result<(Vec<Sample>, BTreeMap<String, usize>), TrainError> {
    let load = |dir: &Path| dataset::load(dir);
    let mut pages = load(&config.dataset)?;
    for added in &config.added {
        let name = added.name();
        pages.extend(load(&added.dir)?.into_iter().map(|page| dataset::GoldPage {
            id: format!("{name}/{}", page.id),
            page_type: added.page_type.name().to_string(),
            genre: added.page_type.genre(),
            ..page
        }));
    }
    let options = RenderOptions::default();
    let limits = ExtractLimits::default();
    let results: Vec<Result<Sample, String>> = pages
        .par_iter()
        .map(|page| {
            let label = PageType::parse(&page.page_type).ok_or_else(|| format!("unknown_page_type:{}", page.page_type))?;
            let html = page.read_html().map_err(|_| "unreadable".to_string())?;
            let dom = parse_page(&html, &limits, &FOR_RENDERING).map_err(|e| e.name().to_string())?;
            let picture = render_lite(&dom, &options).picture;
            let key = if page.url.is_empty() { page.id.as_str() } else { domain_of(&page.url) };
            let words = word_counts(&dom, &page.url);
            Ok(Sample {
                id: page.id.clone(),
                domain: key.to_string(),
                split: split_of(key, config.seed, config.train_percent, config.validation_percent),
                label,
                // The bag from the counts: the page's words are walked once.
                features: Features { words: WordBag::from_counts(&words), ..Features::of_page(&PageAnalysis::new(&dom), &page.url) },
                words,
                picture,
            })
        })
        .collect();
    let mut skipped = BTreeMap::new();
    let mut samples = Vec::new();
    for r in results {
        match r {
            Ok(s) => samples.push(s),
            Err(reason) => *skipped.entry(reason).or_default() += 1,
        }
    }
    Ok((samples, skipped))
}

/// Accuracy, macro-F1 and confusion matrices of a classifier on one split.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Scores {
    pub pages: usize,
    pub type_accuracy: f64,
    pub type_macro_f1: f64,
    pub genre_accuracy: f64,
    pub genre_macro_f1: f64,
    /// Rows: gold page type; columns: predicted ([`PAGE_TYPES`] order).
    pub type_confusion: Vec<Vec<usize>>,
    /// Rows: gold genre (article, list-view); columns: predicted.
    pub genre_confusion: Vec<Vec<usize>>,
}

pub fn score(gold: &[PageType], predicted: &[Prediction]) -> Scores {
    let mut types = vec![vec![0usize; PAGE_TYPE_COUNT]; PAGE_TYPE_COUNT];
    let mut genres = vec![vec![0usize; 2]; 2];
    let genre_index = |g: Genre| usize::from(g == Genre::ListView);
    for (g, p) in gold.iter().zip(predicted) {
        types[g.index()][p.page_type.index()] += 1;
        genres[genre_index(g.genre())][genre_index(p.genre)] += 1;
    }
    let n = gold.len().max(1) as f64;
    let diagonal = |m: &Vec<Vec<usize>>| (0..m.len()).map(|i| m[i][i]).sum::<usize>() as f64;
    Scores {
        pages: gold.len(),
        type_accuracy: diagonal(&types) / n,
        type_macro_f1: macro_f1(&types),
        genre_accuracy: diagonal(&genres) / n,
        genre_macro_f1: macro_f1(&genres),
        type_confusion: types,
        genre_confusion: genres,
    }
}

/// Mean F1 over the classes that occur in gold or prediction.
#[allow(clippy::needless_range_loop)] // c is a row and a column of the matrix
fn macro_f1(confusion: &[Vec<usize>]) -> f64 {
    let k = confusion.len();
    let mut f1s = Vec::new();
    for c in 0..k {
        let tp = confusion[c][c] as f64;
        let gold: f64 = confusion[c].iter().sum::<usize>() as f64;
        let predicted: f64 = (0..k).map(|r| confusion[r][c]).sum::<usize>() as f64;
        if gold + predicted == 0.0 {
            continue;
        }
        f1s.push(2.0 * tp / (gold + predicted));
    }
    if f1s.is_empty() { 0.0 } else { f1s.iter().sum::<f64>() / f1s.len() as f64 }
}

/// Class weights that balance the page types: (n / (k · n_c))^½.
fn class_weights(labels: &[usize]) -> Vec<f32> {
    let mut counts = [0usize; PAGE_TYPE_COUNT];
    for &l in labels {
        counts[l] += 1;
    }
    let n = labels.len().max(1) as f32;
    counts.iter().map(|&c| if c == 0 { 0.0 } else { (n / (PAGE_TYPE_COUNT as f32 * c as f32)).sqrt() }).collect()
}

/// What `models/metrics.json` holds: the run's settings and every score.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TrainReport {
    pub config: TrainConfig,
    pub goce_warc_version: String,
    pub renderer: String,
    pub split_pages: BTreeMap<String, BTreeMap<String, usize>>,
    pub skipped_pages: BTreeMap<String, usize>,
    pub resnet_epochs: Vec<EpochLog>,
    pub resnet_best_epoch: usize,
    pub resnet_parameters: i64,
    pub resnet_spec: Option<NetSpec>,
    pub resnet_train_seconds: f64,
    pub resnet: BTreeMap<String, Scores>,
    pub html_features: BTreeMap<String, Scores>,
    /// Ablation, not shipped: the same linear model over all the fused features (no picture).
    pub all_features_linear: BTreeMap<String, Scores>,
    /// Ablation, not shipped: the word model alone.
    pub words_only: BTreeMap<String, Scores>,
    pub word_vocabulary: usize,
    pub prepare_seconds: f64,
    /// Each added set's test domains: the only pages of it that no model saw, so the only
    /// ones an evaluation on that set may score (`make eval-new-sites`).
    pub added_test_domains: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct EpochLog {
    pub epoch: usize,
    pub train_loss: f64,
    pub validation_loss: f64,
    pub validation_type_accuracy: f64,
    pub validation_genre_accuracy: f64,
    pub seconds: f64,
}

/// The renderer the pictures come from, recorded in the spec and the card.
pub fn renderer_description(options: &RenderOptions) -> String {
    format!(
        "goce-warc {} lite renderer: {}x{} px of the top {}x{} CSS px of a {} px wide viewport",
        env!("CARGO_PKG_VERSION"),
        options.size,
        options.size,
        options.viewport_width,
        options.viewport_width,
        options.viewport_width
    )
}

/// Trains both classifiers and writes `models/`. `log` gets a line per step.
/// Trains and writes every classifier model; with `cascade_only`, only the cascade's gate
/// (no report then: the ResNet and its figures are kept).
pub fn train(config: &TrainConfig, log: &dyn Fn(&str)) -> Result<Option<TrainReport>, TrainError> {
    tch::set_num_threads(i32::try_from(config.threads.max(1)).unwrap_or(1));
    tch::manual_seed(i64::try_from(config.seed % (1 << 62)).unwrap_or(0));
    let device = select(match config.device {
        DeviceChoice::Auto => DeviceRequest::Auto,
        DeviceChoice::Cpu => DeviceRequest::Cpu,
        DeviceChoice::Cuda(index) => DeviceRequest::Cuda(index),
    })?;
    std::fs::create_dir_all(&config.out).map_err(|e| TrainError::io(&config.out, e))?;

    let started = Instant::now();
    let (samples, skipped) = prepare(config)?;
    let prepare_seconds = started.elapsed().as_secs_f64();
    let by_split = |split: Split| samples.iter().filter(|s| s.split == split).collect::<Vec<_>>();
    let (train_set, validation_set, all_test) = (by_split(Split::Train), by_split(Split::Validation), by_split(Split::Test));
    // The added pages' test domains are scored apart; `test` stays the dataset's own.
    let added_name = |s: &Sample| s.id.split_once('/').map(|(name, _)| name.to_string());
    let test_set: Vec<&Sample> = all_test.iter().copied().filter(|s| added_name(s).is_none()).collect();
    let mut added_tests: BTreeMap<String, Vec<&Sample>> = BTreeMap::new();
    let mut added_test_domains: BTreeMap<String, Vec<String>> = config.added.iter().map(|a| (a.name(), Vec::new())).collect();
    for s in &all_test {
        if let Some(name) = added_name(s) {
            added_tests.entry(format!("test: {name}")).or_default().push(s);
            added_test_domains.entry(name).or_default().push(s.domain.clone());
        }
    }
    for domains in added_test_domains.values_mut() {
        domains.sort();
        domains.dedup();
    }
    log(&format!(
        "{} pages rendered in {prepare_seconds:.0}s ({} skipped): train {}, validation {}, test {}",
        samples.len(),
        skipped.values().sum::<usize>(),
        train_set.len(),
        validation_set.len(),
        test_set.len()
    ));
    if train_set.is_empty() || validation_set.is_empty() || test_set.is_empty() {
        return Err(TrainError::Data("a split is empty; the dataset is too small".into()));
    }
    let mut split_pages = BTreeMap::new();
    for (name, set) in
        [("train", &train_set), ("validation", &validation_set), ("test", &test_set)].into_iter().chain(added_tests.iter().map(|(n, s)| (n.as_str(), s)))
    {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for s in set.iter() {
            *counts.entry(s.label.name().to_string()).or_default() += 1;
        }
        split_pages.insert(name.to_string(), counts);
    }
    let labels: Vec<usize> = train_set.iter().map(|s| s.label.index()).collect();
    let weights = class_weights(&labels);

    // The baseline: the paper's 11 features, linear, trained on the dataset's own pages only.
    // Its few features cannot take in added sets of one type each: with zyte-products and
    // Scrapinghub it lost 3.6 points of genre accuracy on the test domains (88.3% -> 84.7%)
    // and a handwritten page (docs/classification.md).
    let paper_names: Vec<String> = FEATURES[..PAPER_FEATURE_COUNT].iter().map(|f| f.name.to_string()).collect();
    let own_pages: Vec<&Sample> = train_set.iter().copied().filter(|s| added_name(s).is_none()).collect();
    let rows: Vec<Vec<f32>> = own_pages.iter().map(|s| s.features.paper().to_vec()).collect();
    let own_labels: Vec<usize> = own_pages.iter().map(|s| s.label.index()).collect();
    let linear = LinearModel::train(paper_names, &rows, &own_labels, &class_weights(&own_labels), LINEAR_TRAINING);
    write_json(&config.out.join(HTML_FEATURES_MODEL), &linear)?;
    let mut html_features = BTreeMap::new();
    for (name, set) in [("validation", &validation_set), ("test", &test_set)] {
        let predicted: Vec<Prediction> = set.iter().map(|s| Prediction::from_probabilities(linear.probabilities(s.features.paper()))).collect();
        let gold: Vec<PageType> = set.iter().map(|s| s.label).collect();
        html_features.insert(name.to_string(), score(&gold, &predicted));
    }
    log(&format!("html-features: test type accuracy {:.3}, genre accuracy {:.3}", html_features["test"].type_accuracy, html_features["test"].genre_accuracy));
    // The word model: fitted on the training domains; the training pages' own scores come
    // from fold models that did not see their domain, so the head learns how far to trust
    // the words on pages they were not fitted to.
    let words_started = Instant::now();
    let train_docs: Vec<&[(usize, String, u32)]> = train_set.iter().map(|s| s.words.as_slice()).collect();
    let word_model = WordModel::train(&train_docs, &labels, &weights, &config.words, fit_words)?;
    let folds = config.word_folds.max(2);
    let fold_of = |s: &Sample| splitmix(goce_warc::classify::words::word_hash(0, &s.domain)) % folds;
    let mut train_word_scores = vec![[0.0f32; PAGE_TYPE_COUNT]; train_set.len()];
    for fold in 0..folds {
        let (inside, outside): (Vec<usize>, Vec<usize>) = (0..train_set.len()).partition(|&i| fold_of(train_set[i]) == fold);
        if inside.is_empty() {
            continue;
        }
        let docs: Vec<&[(usize, String, u32)]> = outside.iter().map(|&i| train_docs[i]).collect();
        let fold_labels: Vec<usize> = outside.iter().map(|&i| labels[i]).collect();
        let model = WordModel::train(&docs, &fold_labels, &weights, &config.words, fit_words)?;
        for i in inside {
            train_word_scores[i] = model.log_probabilities(&train_set[i].features.words);
        }
    }
    write_json(&config.out.join(WORD_MODEL), &word_model)?;
    log(&format!("words: {} words, fitted in {:.0}s", word_model.columns(), words_started.elapsed().as_secs_f64()));
    let mut words_only = BTreeMap::new();
    for (name, set) in [("validation", &validation_set), ("test", &test_set)] {
        let predicted: Vec<Prediction> =
            set.iter().map(|s| Prediction::from_probabilities(word_model.log_probabilities(&s.features.words).map(f32::exp))).collect();
        let gold: Vec<PageType> = set.iter().map(|s| s.label).collect();
        words_only.insert(name.to_string(), score(&gold, &predicted));
    }
    log(&format!("words alone: test type accuracy {:.3}, genre accuracy {:.3}", words_only["test"].type_accuracy, words_only["test"].genre_accuracy));

    // The fused inputs: features, then (when fused) the word scores.
    let fuse_words = config.fuse_features && config.fuse_words;
    let row = |s: &Sample, scores: Option<[f32; PAGE_TYPE_COUNT]>| {
        let mut row = s.features.values.to_vec();
        if fuse_words {
            row.extend(scores.unwrap_or_else(|| word_model.log_probabilities(&s.features.words)));
        }
        row
    };
    let train_rows: Vec<Vec<f32>> = train_set.iter().zip(&train_word_scores).map(|(s, w)| row(s, Some(*w))).collect();
    let validation_rows: Vec<Vec<f32>> = validation_set.iter().map(|s| row(s, None)).collect();
    let mut all_names: Vec<String> = FEATURES.iter().map(|f| f.name.to_string()).collect();
    if fuse_words {
        all_names.extend(PAGE_TYPES.iter().map(|t| format!("words_{}", t.name())));
    }
    let all_linear = LinearModel::train(all_names.clone(), &train_rows, &labels, &weights, LINEAR_TRAINING);
    let mut all_features_linear = BTreeMap::new();
    for (name, set) in [("validation", &validation_set), ("test", &test_set)] {
        let predicted: Vec<Prediction> = set.iter().map(|s| Prediction::from_probabilities(all_linear.probabilities(&row(s, None)))).collect();
        let gold: Vec<PageType> = set.iter().map(|s| s.label).collect();
        all_features_linear.insert(name.to_string(), score(&gold, &predicted));
    }
    log(&format!(
        "linear over the fused inputs: test type accuracy {:.3}, genre accuracy {:.3}",
        all_features_linear["test"].type_accuracy, all_features_linear["test"].genre_accuracy
    ));

    if config.cascade_only {
        let net = GenreNet::load(&config.out, DeviceChoice::Cpu, CpuLayers::LibTorch)?;
        write_cascade(config, &net, &all_linear, &validation_set, &test_set, log)?;
        return Ok(None);
    }

    // The ResNet.
    let options = RenderOptions::default();
    let (mean, std) = standardisation(&train_rows, all_names.len());
    let spec = NetSpec {
        widths: config.widths.clone(),
        blocks: config.blocks.clone(),
        input_size: i64::from(options.size),
        renderer: renderer_description(&options),
        feature_names: if config.fuse_features { all_names } else { Vec::new() },
        feature_mean: if config.fuse_features { mean } else { Vec::new() },
        feature_std: if config.fuse_features { std } else { Vec::new() },
        dropout: config.dropout,
        classes: PAGE_TYPES.iter().map(|t| t.name().to_string()).collect(),
        list_view_threshold: 0.5,
        fuses_words: fuse_words,
    };
    let trained = Instant::now();
    let start = config.fuse_features.then_some(all_linear.weights.as_slice());
    let (epochs, best_epoch, parameters) =
        train_resnet(config, &spec, device, (&train_set, &train_rows), (&validation_set, &validation_rows), &weights, start, log)?;
    let resnet_train_seconds = trained.elapsed().as_secs_f64();
    write_json(&config.out.join(RESNET_SPEC), &spec)?;

    // The genre threshold that is right most often on the validation domains.
    let net = GenreNet::load(&config.out, DeviceChoice::Cpu, CpuLayers::LibTorch)?;
    let validation_probabilities: Vec<[f32; PAGE_TYPE_COUNT]> = predict_samples(&net, &validation_set)?.iter().map(|p| p.probabilities).collect();
    let threshold = choose_threshold(&validation_set, &validation_probabilities);
    log(&format!("resnet: list-view threshold {threshold:.2} (validation domains)"));
    let spec = NetSpec { list_view_threshold: threshold, ..spec };
    write_json(&config.out.join(RESNET_SPEC), &spec)?;

    // Score the saved (best) network exactly as goce-warc will load it.
    let net = GenreNet::load(&config.out, DeviceChoice::Cpu, CpuLayers::LibTorch)?;
    let mut resnet = BTreeMap::new();
    for (name, set) in [("validation", &validation_set), ("test", &test_set)].into_iter().chain(added_tests.iter().map(|(n, s)| (n.as_str(), s))) {
        let predicted = predict_samples(&net, set)?;
        let gold: Vec<PageType> = set.iter().map(|s| s.label).collect();
        let scores = score(&gold, &predicted);
        log(&format!("resnet: {name} ({} pages) type accuracy {:.3}, genre accuracy {:.3}", set.len(), scores.type_accuracy, scores.genre_accuracy));
        resnet.insert(name.to_string(), scores);
    }
    record_check_outputs(config, &net, &linear)?;
    if fuse_words {
        let gate = write_cascade(config, &net, &all_linear, &validation_set, &test_set, log)?;
        for (name, set) in &added_tests {
            let gold: Vec<PageType> = set.iter().map(|s| s.label).collect();
            let linear = gate_predictions(&all_linear, &net, set);
            let (predicted, to_network) = cascade::combine_predictions(&linear, &predict_samples(&net, set)?, gate.sure_at);
            let scores = score(&gold, &predicted);
            log(&format!(
                "cascade: {name} type accuracy {:.3}, genre accuracy {:.3} ({to_network:.2} to the network)",
                scores.type_accuracy, scores.genre_accuracy
            ));
        }
    }

    let report = TrainReport {
        config: config.clone(),
        goce_warc_version: env!("CARGO_PKG_VERSION").to_string(),
        renderer: spec.renderer.clone(),
        split_pages,
        skipped_pages: skipped,
        resnet_epochs: epochs,
        resnet_best_epoch: best_epoch,
        resnet_parameters: parameters,
        resnet_spec: Some(spec.clone()),
        resnet_train_seconds,
        resnet,
        html_features,
        all_features_linear,
        words_only,
        word_vocabulary: word_model.columns(),
        prepare_seconds,
        added_test_domains,
    };
    write_json(&config.out.join("metrics.json"), &report)?;
    Ok(Some(report))
}

/// The cascade's gate: the linear model over the fused inputs, and the threshold above
/// which it decides alone, chosen on the validation domains ([`cascade::choose_sure_at`]);
/// the sweep over both splits is stored with it.
fn write_cascade(
    config: &TrainConfig,
    net: &GenreNet,
    fused: &LinearModel,
    validation: &[&Sample],
    test: &[&Sample],
    log: &dyn Fn(&str),
) -> Result<cascade::CascadeFile, TrainError> {
    let mut sweep = Vec::new();
    for (name, set) in [("validation", validation), ("test", test)] {
        let gold: Vec<PageType> = set.iter().map(|s| s.label).collect();
        let linear = gate_predictions(fused, net, set);
        let from_net = predict_samples(net, set)?;
        for sure_at in cascade::thresholds() {
            let (predicted, to_network) = cascade::combine_predictions(&linear, &from_net, sure_at);
            let s = score(&gold, &predicted);
            sweep.push(cascade::SweepPoint {
                split: name.into(),
                sure_at,
                to_network,
                genre_accuracy: s.genre_accuracy,
                type_accuracy: s.type_accuracy,
                pages: set.len(),
            });
        }
    }
    let validation_sweep: Vec<cascade::SweepPoint> = sweep.iter().filter(|p| p.split == "validation").cloned().collect();
    let sure_at = cascade::choose_sure_at(&validation_sweep);
    for p in sweep.iter().filter(|p| p.sure_at == sure_at) {
        log(&format!(
            "cascade: sure at {sure_at:.3} (validation domains): {} to the ResNet {:.1}%, genre accuracy {:.3}, type accuracy {:.3}",
            p.split,
            100.0 * p.to_network,
            p.genre_accuracy,
            p.type_accuracy
        ));
    }
    let file = cascade::CascadeFile { format: cascade::FORMAT.into(), fused: fused.clone(), sure_at, sweep };
    write_json(&config.out.join(CASCADE_MODEL), &file)?;
    Ok(file)
}

/// The list-view threshold in 0.20..=0.80 (steps of 0.05) with the best genre accuracy;
/// ties go to the one nearest 0.5.
fn choose_threshold(set: &[&Sample], probabilities: &[[f32; PAGE_TYPE_COUNT]]) -> f32 {
    let mut best = (0usize, 0.5f32);
    for step in 4..=16 {
        let t = step as f32 * 0.05;
        let right =
            set.iter().zip(probabilities).filter(|(s, p)| (goce_warc::classify::list_view_probability(p) > t) == (s.label.genre() == Genre::ListView)).count();
        if right > best.0 || (right == best.0 && (t - 0.5).abs() < (best.1 - 0.5).abs()) {
            best = (right, t);
        }
    }
    best.1
}

/// The cascade gate's own predictions: its linear model over each page's fused inputs.
fn gate_predictions(fused: &LinearModel, net: &GenreNet, set: &[&Sample]) -> Vec<Prediction> {
    set.iter().map(|s| Prediction::from_probabilities(fused.probabilities(&goce_warc::classify::resnet::fused_row(&s.features, net.words.as_ref())))).collect()
}

fn predict_samples(net: &GenreNet, set: &[&Sample]) -> Result<Vec<Prediction>, TrainError> {
    let mut out = Vec::with_capacity(set.len());
    for chunk in set.chunks(64) {
        let inputs: Vec<NetInput<'_>> = chunk.iter().map(|s| NetInput { picture: Some(&s.picture), features: &s.features }).collect();
        out.extend(net.predict(&inputs)?);
    }
    Ok(out)
}

/// A picture shifted by (dx, dy) pixels, white where it moved away from.
fn shifted(picture: &Picture, dx: i64, dy: i64) -> Picture {
    let (w, h) = (i64::from(picture.width), i64::from(picture.height));
    let mut out = Picture::blank(picture.width, picture.height);
    for y in 0..h {
        let sy = y - dy;
        if !(0..h).contains(&sy) {
            continue;
        }
        let (x0, x1) = (dx.max(0), (w + dx).min(w));
        if x0 >= x1 {
            continue;
        }
        let to = ((y * w + x0) * 3) as usize;
        let from = ((sy * w + x0 - dx) * 3) as usize;
        let len = ((x1 - x0) * 3) as usize;
        out.rgb[to..to + len].copy_from_slice(&picture.rgb[from..from + len]);
    }
    out
}

/// Weighted cross-entropy over a batch.
fn weighted_loss(logits: &Tensor, targets: &Tensor, weights: &Tensor) -> Tensor {
    let log_probs = logits.log_softmax(-1, Kind::Float);
    let picked = log_probs.gather(1, &targets.unsqueeze(1), false).squeeze_dim(1);
    let w = weights.index_select(0, targets);
    -(picked * &w).sum(Kind::Float) / w.sum(Kind::Float)
}

#[allow(clippy::too_many_arguments)] // one training run's inputs, each named at the one call
fn train_resnet(
    config: &TrainConfig,
    spec: &NetSpec,
    device: Device,
    (train_set, train_rows): (&[&Sample], &[Vec<f32>]),
    (validation_set, validation_rows): (&[&Sample], &[Vec<f32>]),
    class_weights: &[f32],
    start: Option<&[Vec<f32>]>,
    log: &dyn Fn(&str),
) -> Result<(Vec<EpochLog>, usize, i64), TrainError> {
    let vs = nn::VarStore::new(device);
    let mut net = Net::new(&vs.root(), &shape_of(spec)?);
    if let Some(weights) = start {
        net.start_from_linear(weights);
    }
    let side = usize::try_from(spec.input_size).unwrap_or(224);
    let features = spec.feature_names.len() as i64;
    let parameters: i64 = vs.variables().values().filter(|v| v.requires_grad()).map(Tensor::numel).map(|n| n as i64).sum();
    log(&format!("resnet: widths {:?}, blocks {:?}, {parameters} parameters, fused features: {}", spec.widths, spec.blocks, spec.fuses_features()));
    let mut optimizer = nn::AdamW { wd: config.weight_decay, ..Default::default() }.build(&vs, config.learning_rate)?;
    let weights = Tensor::from_slice(class_weights).to_device(device);
    let mut rng = config.seed ^ 0x5eed;
    let mut next = || {
        rng = splitmix(rng);
        rng
    };
    let steps_per_epoch = train_set.len().div_ceil(config.batch_size.max(1));
    let total_steps = (steps_per_epoch * config.epochs).max(1);
    let mut step = 0usize;
    let mut epochs = Vec::new();
    let mut best: Option<(f64, usize)> = None;
    let weights_path = config.out.join(RESNET_WEIGHTS);
    let shift = config.max_shift as u64;
    let url_features: Vec<usize> = FEATURES.iter().enumerate().filter(|(_, f)| f.name.starts_with("url_")).map(|(i, _)| i).collect();
    for epoch in 1..=config.epochs {
        let started = Instant::now();
        let mut order: Vec<usize> = (0..train_set.len()).collect();
        for i in (1..order.len()).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        let mut loss_sum = 0.0;
        for batch in order.chunks(config.batch_size.max(1)) {
            let lr = config.learning_rate * 0.5 * (1.0 + (std::f64::consts::PI * step as f64 / total_steps as f64).cos());
            optimizer.set_lr(lr);
            step += 1;
            let pictures: Vec<Picture> = batch
                .iter()
                .map(|&i| {
                    let dx = (next() % (2 * shift + 1)) as i64 - shift as i64;
                    let dy = (next() % (2 * shift + 1)) as i64 - shift as i64;
                    shifted(&train_set[i].picture, dx, dy)
                })
                .collect();
            let picture_refs: Vec<Option<&Picture>> = pictures.iter().map(Some).collect();
            let rows: Vec<Vec<f32>> = batch
                .iter()
                .map(|&i| {
                    let mut row = train_rows[i].clone();
                    if (next() % 1000) as f64 / 1000.0 < config.url_dropout {
                        for &k in &url_features {
                            row[k] = 0.0;
                        }
                    }
                    row
                })
                .collect();
            let targets: Vec<i64> = batch.iter().map(|&i| train_set[i].label.index() as i64).collect();
            let images = pictures_tensor(&picture_bytes(&picture_refs, side), batch.len(), spec.input_size, device);
            let feats = features_tensor(&standardised_rows(&rows, spec), batch.len(), features, device);
            let logits = net.forward(&images, &feats, true);
            let loss = weighted_loss(&logits, &Tensor::from_slice(&targets).to_device(device), &weights);
            optimizer.backward_step(&loss);
            loss_sum += loss.double_value(&[]) * batch.len() as f64;
        }
        // Validation: plain (unweighted) cross-entropy and accuracies.
        let (validation_loss, predicted) = tch::no_grad(|| {
            let mut loss = 0.0;
            let mut predicted = Vec::new();
            for (chunk, rows) in validation_set.chunks(64).zip(validation_rows.chunks(64)) {
                let pictures: Vec<Option<&Picture>> = chunk.iter().map(|s| Some(&s.picture)).collect();
                let targets: Vec<i64> = chunk.iter().map(|s| s.label.index() as i64).collect();
                let images = pictures_tensor(&picture_bytes(&pictures, side), chunk.len(), spec.input_size, device);
                let logits = net.forward(&images, &features_tensor(&standardised_rows(rows, spec), chunk.len(), features, device), false);
                let targets = Tensor::from_slice(&targets).to_device(device);
                loss += logits.cross_entropy_for_logits(&targets).double_value(&[]) * chunk.len() as f64;
                let probs = Vec::<f32>::try_from(logits.softmax(-1, Kind::Float).to_device(Device::Cpu).flatten(0, -1)).unwrap_or_default();
                predicted.extend(probs.chunks_exact(PAGE_TYPE_COUNT).map(|row| {
                    let mut p = [0.0f32; PAGE_TYPE_COUNT];
                    p.copy_from_slice(row);
                    Prediction::from_probabilities(p)
                }));
            }
            (loss / validation_set.len().max(1) as f64, predicted)
        });
        let gold: Vec<PageType> = validation_set.iter().map(|s| s.label).collect();
        let scores = score(&gold, &predicted);
        let entry = EpochLog {
            epoch,
            train_loss: loss_sum / train_set.len().max(1) as f64,
            validation_loss,
            validation_type_accuracy: scores.type_accuracy,
            validation_genre_accuracy: scores.genre_accuracy,
            seconds: started.elapsed().as_secs_f64(),
        };
        log(&format!(
            "epoch {epoch:>2}: train loss {:.3}, validation loss {:.3}, type accuracy {:.3}, genre accuracy {:.3} ({:.0}s)",
            entry.train_loss, entry.validation_loss, entry.validation_type_accuracy, entry.validation_genre_accuracy, entry.seconds
        ));
        epochs.push(entry);
        if best.is_none_or(|(loss, _)| validation_loss < loss) {
            best = Some((validation_loss, epoch));
            vs.save(&weights_path)?;
        } else if best.is_some_and(|(_, e)| epoch - e >= config.patience) {
            log(&format!("no validation improvement for {} epochs: stopping", config.patience));
            break;
        }
    }
    Ok((epochs, best.map_or(0, |(_, e)| e), parameters))
}

/// Renders the check pages and records both classifiers' outputs on them, for the
/// regression test (`tests/classify.rs`).
fn record_check_outputs(config: &TrainConfig, net: &GenreNet, linear: &LinearModel) -> Result<(), TrainError> {
    let dir = config.out.join("check");
    std::fs::create_dir_all(&dir).map_err(|e| TrainError::io(&dir, e))?;
    let mut records = Vec::new();
    for page in &config.check_pages {
        let html = std::fs::read_to_string(page).map_err(|e| TrainError::io(page, e))?;
        let dom = parse_page(&html, &ExtractLimits::default(), &FOR_RENDERING).map_err(|source| TrainError::Page { page: page.clone(), source })?;
        let picture = render_lite(&dom, &RenderOptions::default()).picture;
        let features = Features::of(&dom, "");
        let name = page.file_stem().and_then(|s| s.to_str()).unwrap_or("page").to_string();
        let png = picture.to_png().map_err(|source| TrainError::Picture { page: page.clone(), source })?;
        let png_path = dir.join(format!("{name}.png"));
        std::fs::write(&png_path, png).map_err(|e| TrainError::io(&png_path, e))?;
        let resnet = net.predict(&[NetInput { picture: Some(&picture), features: &features }])?.remove(0);
        records.push(CheckRecord {
            picture: format!("{name}.png"),
            features: features.values.to_vec(),
            words: features.words.0.clone(),
            resnet: resnet.probabilities.to_vec(),
            html_features: linear.probabilities(features.paper()).to_vec(),
        });
    }
    write_json(&dir.join("outputs.json"), &records)
}

fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), TrainError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| TrainError::json(path.display(), e))?;
    std::fs::write(path, text + "\n").map_err(|e| TrainError::io(path, e))
}

/// The domain split a shipped model was trained with (from `models/metrics.json`).
#[derive(Debug, Clone, Copy, serde::Deserialize)]
pub struct RecordedSplit {
    pub seed: u64,
    pub train_percent: u64,
    pub validation_percent: u64,
}

impl RecordedSplit {
    pub fn split(&self, page: &dataset::GoldPage) -> Split {
        let key = if page.url.is_empty() { page.id.as_str() } else { domain_of(&page.url) };
        split_of(key, self.seed, self.train_percent, self.validation_percent)
    }

    pub fn is_test(&self, page: &dataset::GoldPage) -> bool {
        self.split(page) == Split::Test
    }
}

pub fn recorded_split(models: &Path) -> Result<RecordedSplit, TrainError> {
    #[derive(serde::Deserialize)]
    struct Metrics {
        config: RecordedSplit,
    }
    let path = models.join("metrics.json");
    let text = std::fs::read_to_string(&path).map_err(|e| TrainError::io(&path, e))?;
    let metrics: Metrics = serde_json::from_str(&text).map_err(|e| TrainError::json(path.display(), e))?;
    Ok(metrics.config)
}

/// `models/README.md`, written from the training report.
pub fn model_card(report: &TrainReport) -> String {
    let c = &report.config;
    let pct = |v: f64| format!("{:.1}%", 100.0 * v);
    let mut out = String::new();
    out += "# goce-warc genre models\n\n";
    out += "Written by `make model` (`goce-warc-train train`); do not edit by hand. Figures below are from that run.\n\n";
    out += "| file | what |\n|---|---|\n";
    out += &format!("| `{RESNET_WEIGHTS}` | the ResNet's weights (safetensors) |\n");
    out += &format!("| `{RESNET_SPEC}` | its shape, input contract and feature statistics |\n");
    out += &format!("| `{WORD_MODEL}` | the word model whose scores the ResNet's head fuses (vocabulary, IDF, weights) |\n");
    out += &format!(
        "| `{CASCADE_MODEL}` | the default classifier's gate: a linear model over the ResNet's fused inputs that decides the pages it is sure of, its threshold (chosen on the validation domains) and the sweep on both splits |\n"
    );
    out += &format!("| `{HTML_FEATURES_MODEL}` | the html-features baseline (the paper's 11 features, linear) |\n");
    out += "| `metrics.json` | the training run: settings, split, epochs, every score below |\n";
    out += "| `check/` | pictures, features and recorded outputs for the regression test |\n\n";
    out += "## Data\n\n";
    out += &format!(
        "`{}` (WCXB development split), rendered by the {}. Pages are split **by domain** (host without `www.`), with a seeded hash (seed {}): {}% of domains train, {}% validate (epoch choice), the rest are the held-out test domains. No test domain was seen in training.\n\n",
        c.dataset.display(),
        report.renderer,
        c.seed,
        c.train_percent,
        c.validation_percent
    );
    for added in &c.added {
        let domains = report.added_test_domains.get(&added.name()).map_or(0, Vec::len);
        out += &format!(
            "Added: `{}`, every page of type `{}`, split by domain the same way; its {domains} test domains (`test: {}`) are scored apart and are the only pages of it an evaluation may score (`metrics.json`, `added_test_domains`).\n\n",
            added.dir.display(),
            added.page_type.name(),
            added.name()
        );
    }
    out += "| split | pages | ";
    out += &PAGE_TYPES.iter().map(|t| t.name()).collect::<Vec<_>>().join(" | ");
    out += " |\n|---|---|";
    out += &"---|".repeat(PAGE_TYPE_COUNT);
    out += "\n";
    for (split, counts) in &report.split_pages {
        let total: usize = counts.values().sum();
        out += &format!("| {split} | {total} | ");
        out += &PAGE_TYPES.iter().map(|t| counts.get(t.name()).copied().unwrap_or(0).to_string()).collect::<Vec<_>>().join(" | ");
        out += " |\n";
    }
    if !report.skipped_pages.is_empty() {
        out += &format!("\nPages not used: {:?}.\n", report.skipped_pages);
    }
    out += "\n## Classes\n\nWCXB's seven page types. The genre is derived: **list-view** = forum + listing + collection, **article** = the other four; the genre with the larger summed probability wins, and its probability is `genre_confidence`.\n\n";
    out += "## Input\n\n";
    out += &format!(
        "- Picture: 3 x {s} x {s} RGB from the lite renderer (top 1024 x 1024 CSS px of a 1024 px viewport), as `1 - value/255` (white = 0).\n",
        s = RenderOptions::default().size
    );
    out += &format!(
        "- Page features fused into the head: {} (HTML structure, Algorithm 2 list statistics, schema.org / Open Graph types, prices, URL shape and words; see src/classify/features.rs).\n\n",
        if c.fuse_features { format!("{} (log1p counts and shares, standardised with the training set's statistics)", FEATURE_COUNT) } else { "none".into() }
    );
    if report.resnet_spec.as_ref().is_some_and(|s| s.fuses_words) {
        out.truncate(out.trim_end().len());
        out += &format!(
            "\n- The word model's seven log-probabilities, fused the same way: a multinomial logistic regression (L2 {}, class-balanced, {} full-batch Adam steps) over TF-IDF (sublinear tf, each field L2-normalised) of the page's words in four fields: visible text, class and id words, title, URL path. Per field the words in at least {:?} training pages (text, class, title, url), at most {} each: {} words in all, learned from the training domains only (src/classify/words.rs). The training pages' scores come from {} fold models, split by domain, that did not see the page's domain.\n\n",
            c.words.l2, c.words.steps, c.words.min_df, c.words.max_words, report.word_vocabulary, c.word_folds
        );
    }
    out += "## Network and training\n\n";
    out += &format!(
        "ResNet with basic blocks: stem 7x7/2 conv + 3x3/2 max-pool, stages of widths {:?} with {:?} blocks, global average pooling, dropout {}; the logits are the sum of a linear head over the pooled picture features (started at zero) and a linear head over the fused inputs, which is the linear model without picture below, fixed during training: the network starts as that model and the picture corrects it. {} trained parameters.\n\n",
        c.widths, c.blocks, c.dropout, report.resnet_parameters
    );
    out += &format!(
        "AdamW (lr {}, weight decay {}), cosine schedule, batch {}, class-balanced cross-entropy (weights (n / (k n_c))^0.5), random shifts of up to {} px, the URL features blanked for {:.0}% of pages; at most {} epochs, the epoch with the lowest validation loss is kept (epoch {} of {} run), early stop after {} epochs without improvement. Trained on the {} in {:.0} s; rendering and features took {:.0} s.\n\n",
        c.learning_rate,
        c.weight_decay,
        c.batch_size,
        c.max_shift,
        100.0 * c.url_dropout,
        c.epochs,
        report.resnet_best_epoch,
        report.resnet_epochs.len(),
        c.patience,
        if c.device == DeviceChoice::Cpu { format!("CPU ({} threads)", c.threads) } else { "GPU".to_string() },
        report.resnet_train_seconds,
        report.prepare_seconds
    );
    out += "## Held-out test domains\n\n";
    out += "| classifier | pages | genre accuracy | genre macro-F1 | type accuracy | type macro-F1 |\n|---|---|---|---|---|---|\n";
    let fused = report.resnet_spec.as_ref().map_or(FEATURE_COUNT, |s| s.feature_names.len());
    let all_features = format!("linear over the {fused} fused inputs, no picture (ablation, not shipped)");
    let rows = [
        ("resnet", &report.resnet),
        ("html-features", &report.html_features),
        (all_features.as_str(), &report.all_features_linear),
        ("word model alone (ablation, not shipped)", &report.words_only),
    ];
    // The dataset's test domains for every classifier, then the ResNet on each added set's.
    let test_rows = rows.iter().filter_map(|(name, scores)| scores.get("test").map(|t| (name.to_string(), t)));
    let added_rows = report.resnet.iter().filter(|(split, _)| split.starts_with("test: ")).map(|(split, t)| (format!("resnet, {split}"), t));
    for (name, t) in test_rows.chain(added_rows) {
        out += &format!("| {name} | {} | {} | {:.3} | {} | {:.3} |\n", t.pages, pct(t.genre_accuracy), t.genre_macro_f1, pct(t.type_accuracy), t.type_macro_f1);
    }
    if let Some(spec) = &report.resnet_spec {
        out += &format!(
            "\nThe ResNet calls a page list-view when forum + listing + collection exceed {:.2} (the threshold with the best genre accuracy on the validation domains).\n",
            spec.list_view_threshold
        );
    }
    out += "\nValidation domains (used to choose the epoch, so optimistic):\n\n| classifier | genre accuracy | type accuracy |\n|---|---|---|\n";
    for (name, scores) in [("resnet", &report.resnet), ("html-features", &report.html_features)] {
        if let Some(v) = scores.get("validation") {
            out += &format!("| {name} | {} | {} |\n", pct(v.genre_accuracy), pct(v.type_accuracy));
        }
    }
    for (name, scores) in [("resnet", &report.resnet), ("html-features", &report.html_features)] {
        let Some(t) = scores.get("test") else { continue };
        out += &format!("\n### Confusion matrix, {name}, test (rows: gold, columns: predicted)\n\n| gold \\ predicted | ");
        out += &PAGE_TYPES.iter().map(|t| t.name()).collect::<Vec<_>>().join(" | ");
        out += " |\n|---|";
        out += &"---|".repeat(PAGE_TYPE_COUNT);
        out += "\n";
        for (row, gold) in t.type_confusion.iter().zip(PAGE_TYPES) {
            out += &format!("| {} | {} |\n", gold.name(), row.iter().map(usize::to_string).collect::<Vec<_>>().join(" | "));
        }
        out += &format!(
            "\nGenre (rows gold article, list-view): [[{}, {}], [{}, {}]]\n",
            t.genre_confusion[0][0], t.genre_confusion[0][1], t.genre_confusion[1][0], t.genre_confusion[1][1]
        );
    }
    out +=
        "\n## Epochs\n\n| epoch | train loss | validation loss | validation type accuracy | validation genre accuracy | seconds |\n|---|---|---|---|---|---|\n";
    for e in &report.resnet_epochs {
        out += &format!(
            "| {} | {:.3} | {:.3} | {} | {} | {:.0} |\n",
            e.epoch,
            e.train_loss,
            e.validation_loss,
            pct(e.validation_type_accuracy),
            pct(e.validation_genre_accuracy),
            e.seconds
        );
    }
    let added: String = c.added.iter().map(|a| format!(" --add {}={}", a.dir.display(), a.page_type.name())).collect();
    out += &format!("\n## Reproduce\n\n```\nmake model # goce-warc-train train --dataset {}{added} --out models\n```\n", c.dataset.display());
    out += &format!("\ngoce-warc {}.\n", report.goce_warc_version);
    out
}

/// The layers' shape of a spec, as the product's loader reads it.
fn shape_of(spec: &NetSpec) -> Result<ResNetShape, TrainError> {
    serde_json::from_str(&spec.shape_json()).map_err(|e| TrainError::Data(format!("the network's shape: {e}")))
}

/// The word model's regression, fitted with LibTorch's Adam.
fn fit_words(r: &WordRegression<'_>) -> Result<Vec<Vec<f32>>, tch::TchError> {
    fit_softmax_regression(&SoftmaxProblem {
        x: r.x,
        rows: r.rows,
        columns: r.columns,
        labels: r.labels,
        sample_weights: r.sample_weights,
        classes: r.classes,
        l2: r.settings.l2,
        steps: r.settings.steps,
        learning_rate: r.settings.learning_rate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_pages_name_a_folder_and_one_of_the_seven_types() {
        let added: AddedPages = "../shared/data/zyte-products=product".parse().unwrap();
        assert_eq!(added.dir, PathBuf::from("../shared/data/zyte-products"));
        assert_eq!(added.page_type, PageType::Product);
        assert_eq!(added.name(), "zyte-products");
        assert!("../shared/data/zyte-products".parse::<AddedPages>().unwrap_err().contains("DIR=TYPE"));
        assert!("pages=recipe".parse::<AddedPages>().unwrap_err().contains("not one of the seven page types"));
    }

    #[test]
    fn domains_ignore_scheme_www_port_and_path() {
        assert_eq!(domain_of("https://www.rei.com/product/1?x=2"), "rei.com");
        assert_eq!(domain_of("http://user@shop.example.org:8080/a"), "shop.example.org");
        assert_eq!(domain_of("example.net"), "example.net");
    }

    #[test]
    fn a_domain_always_lands_in_one_split_and_the_shares_hold() {
        let mut counts = BTreeMap::new();
        for i in 0..10_000 {
            let domain = format!("site{i}.example");
            let split = split_of(&domain, 7, 70, 15);
            assert_eq!(split, split_of(&domain, 7, 70, 15));
            *counts.entry(split).or_insert(0) += 1;
        }
        assert!((6700..7300).contains(&counts[&Split::Train]), "{counts:?}");
        assert!((1300..1700).contains(&counts[&Split::Validation]), "{counts:?}");
        assert!((1300..1700).contains(&counts[&Split::Test]), "{counts:?}");
    }

    #[test]
    fn scores_count_confusions() {
        let gold = [PageType::Article, PageType::Forum, PageType::Product, PageType::Listing];
        let one_hot = |t: PageType| {
            let mut p = [0.0; PAGE_TYPE_COUNT];
            p[t.index()] = 1.0;
            Prediction::from_probabilities(p)
        };
        let predicted = [one_hot(PageType::Article), one_hot(PageType::Listing), one_hot(PageType::Article), one_hot(PageType::Listing)];
        let s = score(&gold, &predicted);
        assert_eq!(s.type_accuracy, 0.5);
        assert_eq!(s.genre_accuracy, 1.0, "forum→listing and product→article keep the genre");
        assert_eq!(s.type_confusion[PageType::Forum.index()][PageType::Listing.index()], 1);
    }

    #[test]
    fn shifting_moves_ink_and_fills_white() {
        let mut p = Picture::blank(4, 4);
        p.rgb[0..3].copy_from_slice(&[0, 0, 0]);
        let s = shifted(&p, 1, 2);
        let at = |pic: &Picture, x: usize, y: usize| pic.rgb[(y * 4 + x) * 3];
        assert_eq!(at(&s, 1, 2), 0);
        assert_eq!(at(&s, 0, 0), 255);
    }
}
