//! `goce-warc-train train-web2text` (`make model-web2text`): CleanEval pages → blocks,
//! features and labels aligned from the gold text → the paper's split (531 train, 58
//! validation, 148 test; fixed seed) → the unary and the pairwise CNN trained apart with
//! Adam on random 9-block excerpts, each kept at its best validation score → the model
//! in `models/`, block-level scores on the test pages (the paper's Table 1) and word F1
//! on WCXB-dev's held-aside fifth.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use tch::nn::{self, OptimizerConfig};
use tch::{Device, Tensor};

use crate::TrainError;
use crate::classify::splitmix;
use crate::gold::metrics::{word_prf, words};
use goce_warc::extract::ExtractLimits;
use goce_warc::extract::web2text::features::{BLOCK_FEATURES, EDGE_FEATURES};
use goce_warc::extract::web2text::net::{ModelSpec, Web2TextModel, feature_major, standardise};
use goce_warc::extract::web2text::viterbi::Label;
use goce_warc::extract::web2text::{Inference, MODEL_SPEC, MODEL_WEIGHTS, PageBlocks, Web2TextError, align};
use goce_warc_torch::web2text::{CnnShape, SequenceCnn, probabilities, sequence_tensor};

/// The paper's split sizes.
pub const TEST_PAGES: usize = 148;
pub const VALIDATION_PAGES: usize = 58;
pub const TRAIN_PAGES: usize = 531;
/// Excerpts per batch and blocks per excerpt (the reference implementation's).
const BATCH: usize = 128;
const PATCH: usize = 9;

#[derive(Debug, Clone)]
pub struct TrainConfig {
    pub cleaneval: PathBuf,
    /// WCXB-dev: its held-aside fifth is scored; with `add_wcxb` its other pages are
    /// labelled from their gold text and added to the training set.
    pub wcxb: Option<PathBuf>,
    pub add_wcxb: bool,
    pub out: PathBuf,
    pub seed: u64,
    pub steps: usize,
    pub eval_every: usize,
    /// Evaluations without improvement before stopping.
    pub patience: usize,
    pub learning_rate: f64,
    pub weight_decay: f64,
    pub lambda: f32,
}

impl TrainConfig {
    pub fn new(cleaneval: PathBuf, out: PathBuf) -> Self {
        Self {
            cleaneval,
            wcxb: None,
            add_wcxb: false,
            out,
            seed: 2018,
            steps: 5000,
            eval_every: 250,
            patience: 6,
            learning_rate: 1e-3,
            weight_decay: 1e-4,
            lambda: 0.1,
        }
    }
}

/// A page's blocks with their gold labels.
pub struct LabelledPage {
    pub id: String,
    pub page: PageBlocks,
    pub labels: Vec<Label>,
    /// The gold text (for word F1).
    pub gold: String,
}

/// Block-level scores, content being the positive class.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct BlockScores {
    pub accuracy: f64,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub blocks: usize,
}

impl BlockScores {
    fn from_counts(tp: usize, fp: usize, fn_: usize, tn: usize) -> Self {
        let n = tp + fp + fn_ + tn;
        let div = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let (precision, recall) = (div(tp, tp + fp), div(tp, tp + fn_));
        let f1 = if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
        Self { accuracy: div(tp + tn, n), precision, recall, f1, blocks: n }
    }
}

/// Reads CleanEval (`dev/` and `final/`, each `input/N.html` + `GoldStandard/N.txt`)
/// into labelled pages, ids `dev/N` and `final/N`, sorted. Pages without blocks are left
/// out (counted in the returned number).
pub fn load_cleaneval(dir: &Path) -> Result<(Vec<LabelledPage>, usize), TrainError> {
    let mut files = crate::gold::dataset::cleaneval_files(dir)?;
    files.sort_by_key(|f| natural_key(&f.id));
    let loaded: Vec<Option<LabelledPage>> = files
        .par_iter()
        .map(|file| {
            let html = std::fs::read(&file.html).ok()?;
            let gold = std::fs::read(&file.gold).ok()?;
            let html = goce_warc::page::charset::decode(html, None, None).text;
            let gold = align::cleaneval_gold(&String::from_utf8_lossy(&gold));
            labelled(file.id.clone(), &html, gold)
        })
        .collect();
    let missing = loaded.iter().filter(|p| p.is_none()).count();
    Ok((loaded.into_iter().flatten().collect(), missing))
}

/// `dev/9` before `dev/10`.
fn natural_key(id: &str) -> (String, u64, String) {
    let (part, rest) = id.split_once('/').unwrap_or(("", id));
    (part.to_string(), rest.parse().unwrap_or(u64::MAX), rest.to_string())
}

fn labelled(id: String, html: &str, gold: String) -> Option<LabelledPage> {
    let dom = goce_warc::extract::parse_page(html, &ExtractLimits::default(), &goce_warc::dom::FOR_WEB2TEXT).ok()?;
    let page = PageBlocks::of(&dom);
    if page.blocks.is_empty() {
        return None;
    }
    let labels = align::block_labels(&page.texts(), &gold).into_iter().map(Label::from).collect();
    Some(LabelledPage { id, page, labels, gold })
}

/// WCXB pages labelled from their gold `main_content`: (tuning part, held-aside part).
pub fn load_wcxb(dir: &Path) -> Result<(Vec<LabelledPage>, Vec<LabelledPage>), TrainError> {
    let pages = crate::gold::dataset::load(dir)?;
    let loaded: Vec<(bool, Option<LabelledPage>)> =
        pages.par_iter().map(|p| (p.held_out, p.read_html().ok().and_then(|html| labelled(format!("wcxb/{}", p.id), &html, p.main_content.clone())))).collect();
    let (mut tuning, mut held) = (Vec::new(), Vec::new());
    for (held_out, page) in loaded {
        if let Some(page) = page {
            if held_out { held.push(page) } else { tuning.push(page) }
        }
    }
    Ok((tuning, held))
}

/// Shuffles the pages with the seed and cuts the paper's split: (train, validation, test).
pub fn paper_split(mut pages: Vec<LabelledPage>, seed: u64) -> (Vec<LabelledPage>, Vec<LabelledPage>, Vec<LabelledPage>) {
    let mut state = seed;
    for i in (1..pages.len()).rev() {
        state = splitmix(state);
        pages.swap(i, (state % (i as u64 + 1)) as usize);
    }
    let test: Vec<_> = pages.drain(..TEST_PAGES.min(pages.len())).collect();
    let validation: Vec<_> = pages.drain(..VALIDATION_PAGES.min(pages.len())).collect();
    pages.truncate(TRAIN_PAGES);
    (pages, validation, test)
}

/// Mean and standard deviation of each feature over the rows.
fn statistics<const N: usize>(rows: impl Iterator<Item = [f32; N]>) -> (Vec<f32>, Vec<f32>) {
    let (mut sum, mut sq, mut n) = ([0f64; N], [0f64; N], 0f64);
    for row in rows {
        for i in 0..N {
            sum[i] += f64::from(row[i]);
            sq[i] += f64::from(row[i]) * f64::from(row[i]);
        }
        n += 1.0;
    }
    let n = n.max(1.0);
    let mean: Vec<f32> = sum.iter().map(|s| (s / n) as f32).collect();
    let std = sq.iter().zip(&sum).map(|(q, s)| ((q / n - (s / n).powi(2)).max(0.0).sqrt() as f32).max(1e-3)).collect();
    (mean, std)
}

/// What training reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TrainReport {
    pub pages: SplitSizes,
    pub unary_parameters: i64,
    pub pairwise_parameters: i64,
    pub unary_best_step: usize,
    pub unary_validation_f1: f64,
    pub pairwise_best_step: usize,
    pub pairwise_validation_accuracy: f64,
    pub test_structured: BlockScores,
    pub test_unary_only: BlockScores,
    /// Every block labelled content: the trivial baseline.
    pub test_all_content: BlockScores,
    pub wcxb_held_out: Option<WcxbScores>,
    pub seconds: f64,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct SplitSizes {
    pub train: usize,
    pub wcxb_train: usize,
    pub validation: usize,
    pub test: usize,
    pub left_out: usize,
}

/// WCXB-dev held-aside pages: mean word F1 of the extracted text, and block scores
/// against labels aligned from the gold text.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WcxbScores {
    pub pages: usize,
    pub word_f1: f64,
    pub word_f1_unary_only: f64,
    pub blocks: BlockScores,
}

pub fn train(config: &TrainConfig, log: &dyn Fn(&str)) -> Result<TrainReport, TrainError> {
    let started = Instant::now();
    tch::manual_seed(i64::try_from(config.seed % (1 << 62)).unwrap_or(0));
    let (pages, left_out) = load_cleaneval(&config.cleaneval)?;
    log(&format!("cleaneval: {} pages with blocks ({left_out} without), {:.0} s", pages.len(), started.elapsed().as_secs_f64()));
    let (mut train_set, validation, test) = paper_split(pages, config.seed);
    let base_train = train_set.len();
    let mut wcxb_held = Vec::new();
    if let Some(dir) = &config.wcxb {
        let (tuning, held) = load_wcxb(dir)?;
        log(&format!("wcxb: {} tuning pages, {} held-aside pages labelled", tuning.len(), held.len()));
        if config.add_wcxb {
            train_set.extend(tuning);
        }
        wcxb_held = held;
    }
    let mut spec = ModelSpec::paper_shape(config.lambda);
    (spec.block_mean, spec.block_std) = statistics(train_set.iter().flat_map(|p| p.page.blocks.iter().copied()));
    (spec.edge_mean, spec.edge_std) = statistics(train_set.iter().flat_map(|p| p.page.edges.iter().copied()));
    spec.trained_on = format!(
        "CleanEval {} train pages{} (seed {})",
        base_train,
        if config.add_wcxb { format!(" + {} WCXB-dev tuning pages", train_set.len() - base_train) } else { String::new() },
        config.seed
    );

    let shape: CnnShape = serde_json::from_str(&spec.shape_json()).map_err(|e| TrainError::json("the networks' shape", e))?;
    let vs_unary = nn::VarStore::new(Device::Cpu);
    let unary = SequenceCnn::new(&vs_unary.root() / "unary", BLOCK_FEATURES as i64, 2, &shape);
    let vs_pairwise = nn::VarStore::new(Device::Cpu);
    let pairwise = SequenceCnn::new(&vs_pairwise.root() / "pairwise", EDGE_FEATURES as i64, 4, &shape);
    let count = |vs: &nn::VarStore| vs.variables().values().map(Tensor::numel).sum::<usize>() as i64;
    let (unary_parameters, pairwise_parameters) = (count(&vs_unary), count(&vs_pairwise));
    log(&format!("unary CNN: {unary_parameters} parameters; pairwise CNN: {pairwise_parameters}"));

    let usable: Vec<&LabelledPage> = train_set.iter().filter(|p| p.labels.len() >= PATCH).collect();
    if usable.is_empty() {
        return Err(TrainError::Data(format!("no training page has the {PATCH} blocks of a patch")));
    }
    let (unary_best_step, unary_validation_f1) = fit(
        config,
        &vs_unary,
        &usable,
        &spec,
        Head::Unary,
        log,
        |_| {
            Ok(score(&validation, |p| {
                let xs = sequence_tensor(&feature_major(&p.page.blocks, &spec.block_mean, &spec.block_std), BLOCK_FEATURES, p.page.blocks.len());
                let probs = probabilities::<2>(&tch::no_grad(|| unary.forward_t(&xs, false))).map_err(|e| Web2TextError::Torch(e.to_string()))?;
                Ok(goce_warc::extract::web2text::viterbi::unary_only(&probs))
            })?
            .f1)
        },
        &unary,
    )?;
    let (pairwise_best_step, pairwise_validation_accuracy) = fit(
        config,
        &vs_pairwise,
        &usable,
        &spec,
        Head::Pairwise,
        log,
        |_| {
            let (mut right, mut all) = (0usize, 0usize);
            for p in &validation {
                if p.page.edges.is_empty() {
                    continue;
                }
                let es = sequence_tensor(&feature_major(&p.page.edges, &spec.edge_mean, &spec.edge_std), EDGE_FEATURES, p.page.edges.len());
                let probs = probabilities::<4>(&tch::no_grad(|| pairwise.forward_t(&es, false)))?;
                for (i, pr) in probs.iter().enumerate() {
                    let want = usize::from(p.labels[i]) * 2 + usize::from(p.labels[i + 1]);
                    let got = (0..4).max_by(|&a, &b| pr[a].total_cmp(&pr[b])).unwrap_or(0);
                    right += usize::from(want == got);
                    all += 1;
                }
            }
            Ok(right as f64 / all.max(1) as f64)
        },
        &pairwise,
    )?;

    // Save both networks in one file, then load it back exactly as `extract` will.
    std::fs::create_dir_all(&config.out).map_err(|e| TrainError::io(&config.out, e))?;
    let mut named: Vec<(String, Tensor)> = Vec::new();
    for vs in [&vs_unary, &vs_pairwise] {
        named.extend(vs.variables());
    }
    named.sort_by(|a, b| a.0.cmp(&b.0));
    Tensor::write_safetensors(&named, config.out.join(MODEL_WEIGHTS))?;
    let spec_json = serde_json::to_string_pretty(&spec).map_err(|e| TrainError::json(MODEL_SPEC, e))?;
    let spec_path = config.out.join(MODEL_SPEC);
    std::fs::write(&spec_path, spec_json + "\n").map_err(|e| TrainError::io(&spec_path, e))?;
    let model = Web2TextModel::load(&config.out)?;

    let test_structured = score(&test, |p| model.labels(&p.page, Inference::Structured))?;
    let test_unary_only = score(&test, |p| model.labels(&p.page, Inference::UnaryOnly))?;
    let test_all_content = score(&test, |p| Ok(vec![1; p.labels.len()]))?;
    log(&format!(
        "cleaneval test ({} pages): structured acc {:.3} P {:.3} R {:.3} F1 {:.3}; unary only F1 {:.3}",
        test.len(),
        test_structured.accuracy,
        test_structured.precision,
        test_structured.recall,
        test_structured.f1,
        test_unary_only.f1
    ));
    let wcxb_held_out = if wcxb_held.is_empty() {
        None
    } else {
        let mut f1 = (0.0, 0.0);
        for p in &wcxb_held {
            let gold = words(&p.gold);
            for (inference, total) in [(Inference::Structured, &mut f1.0), (Inference::UnaryOnly, &mut f1.1)] {
                let labels = model.labels(&p.page, inference)?;
                *total += word_prf(&words(&p.page.text_of(&labels)), &gold).f1;
            }
        }
        let n = wcxb_held.len() as f64;
        let blocks = score(&wcxb_held, |p| model.labels(&p.page, Inference::Structured))?;
        log(&format!("wcxb held-aside ({} pages): word F1 {:.3} (unary only {:.3}); blocks F1 {:.3}", wcxb_held.len(), f1.0 / n, f1.1 / n, blocks.f1));
        Some(WcxbScores { pages: wcxb_held.len(), word_f1: f1.0 / n, word_f1_unary_only: f1.1 / n, blocks })
    };
    let report = TrainReport {
        pages: SplitSizes { train: base_train, wcxb_train: train_set.len() - base_train, validation: validation.len(), test: test.len(), left_out },
        unary_parameters,
        pairwise_parameters,
        unary_best_step,
        unary_validation_f1,
        pairwise_best_step,
        pairwise_validation_accuracy,
        test_structured,
        test_unary_only,
        test_all_content,
        wcxb_held_out,
        seconds: started.elapsed().as_secs_f64(),
    };
    let metrics_path = config.out.join("web2text-metrics.json");
    let json = serde_json::to_string_pretty(&report).map_err(|e| TrainError::json(metrics_path.display(), e))?;
    std::fs::write(&metrics_path, json + "\n").map_err(|e| TrainError::io(&metrics_path, e))?;
    Ok(report)
}

/// Block scores of a labelling function over pages.
pub fn score(pages: &[LabelledPage], mut label: impl FnMut(&LabelledPage) -> Result<Vec<Label>, Web2TextError>) -> Result<BlockScores, TrainError> {
    let (mut tp, mut fp, mut fn_, mut tn) = (0, 0, 0, 0);
    for p in pages {
        for (&got, &want) in label(p)?.iter().zip(&p.labels) {
            match (got, want) {
                (1, 1) => tp += 1,
                (1, _) => fp += 1,
                (_, 1) => fn_ += 1,
                _ => tn += 1,
            }
        }
    }
    Ok(BlockScores::from_counts(tp, fp, fn_, tn))
}

#[derive(Clone, Copy, PartialEq)]
enum Head {
    Unary,
    Pairwise,
}

/// Trains one network with Adam on random excerpts; every `eval_every` steps scores it
/// on validation (higher is better) and keeps the best weights. Returns (best step, score).
#[allow(clippy::too_many_arguments)]
fn fit(
    config: &TrainConfig,
    vs: &nn::VarStore,
    pages: &[&LabelledPage],
    spec: &ModelSpec,
    head: Head,
    log: &dyn Fn(&str),
    validate: impl Fn(usize) -> Result<f64, TrainError>,
    net: &SequenceCnn,
) -> Result<(usize, f64), TrainError> {
    let mut optimizer = nn::Adam { wd: config.weight_decay, ..Default::default() }.build(vs, config.learning_rate)?;
    let mut rng = config.seed ^ if head == Head::Unary { 0x0a } else { 0x0b };
    let mut next = |bound: usize| {
        rng = splitmix(rng);
        (rng % bound as u64) as usize
    };
    let (features, outputs, length) = match head {
        Head::Unary => (BLOCK_FEATURES, 2, PATCH),
        Head::Pairwise => (EDGE_FEATURES, 4, PATCH - 1),
    };
    type Checkpoint = (f64, usize, Vec<(String, Tensor)>);
    let mut best: Option<Checkpoint> = None;
    let mut since_best = 0;
    for step in 1..=config.steps {
        let mut data = vec![0f32; BATCH * features * length];
        let mut targets = vec![0i64; BATCH * length];
        for b in 0..BATCH {
            let page = pages[next(pages.len())];
            let start = next(page.labels.len() - PATCH + 1);
            for t in 0..length {
                let i = start + t;
                let (row, mean, std): (&[f32], &[f32], &[f32]) = match head {
                    Head::Unary => (&page.page.blocks[i], &spec.block_mean, &spec.block_std),
                    Head::Pairwise => (&page.page.edges[i], &spec.edge_mean, &spec.edge_std),
                };
                for f in 0..features {
                    data[(b * features + f) * length + t] = standardise(row[f], mean[f], std[f]);
                }
                targets[b * length + t] = match head {
                    Head::Unary => i64::from(page.labels[i]),
                    Head::Pairwise => i64::from(page.labels[i]) * 2 + i64::from(page.labels[i + 1]),
                };
            }
        }
        let xs = Tensor::from_slice(&data).reshape([BATCH as i64, features as i64, length as i64]);
        let ys = Tensor::from_slice(&targets);
        let logits = net.forward_t(&xs, true).permute([0, 2, 1]).reshape([-1, outputs]);
        let loss = logits.cross_entropy_for_logits(&ys);
        optimizer.backward_step(&loss);
        if step % config.eval_every == 0 || step == config.steps {
            let value = validate(step)?;
            let improved = best.as_ref().is_none_or(|b| value > b.0);
            log(&format!(
                "{} step {step}: loss {:.4}, validation {value:.4}{}",
                if head == Head::Unary { "unary" } else { "pairwise" },
                loss.double_value(&[]),
                if improved { " (best)" } else { "" }
            ));
            if improved {
                let weights = vs.variables().into_iter().map(|(k, v)| (k, v.detach().copy())).collect();
                best = Some((value, step, weights));
                since_best = 0;
            } else {
                since_best += 1;
                if since_best >= config.patience {
                    break;
                }
            }
        }
    }
    let Some((value, step, weights)) = best else {
        return Err(TrainError::Data("training gave no validation score".into()));
    };
    let variables = vs.variables();
    tch::no_grad(|| {
        for (name, weight) in &weights {
            if let Some(v) = variables.get(name) {
                let mut v = v.shallow_clone();
                v.copy_(weight);
            }
        }
    });
    Ok((step, value))
}

/// The model card, `models/web2text.md`.
pub fn model_card(r: &TrainReport, config: &TrainConfig) -> String {
    let row = |name: &str, s: &BlockScores| format!("| {name} | {:.3} | {:.3} | {:.3} | {:.3} |\n", s.accuracy, s.precision, s.recall, s.f1);
    let mut card = String::new();
    card.push_str("# Web2Text model card\n\n");
    card.push_str("Written by `goce-warc-train train-web2text` (`make model-web2text`); do not edit by hand.\n\n");
    card.push_str(&format!(
        "- **Data**: CleanEval 2007 (`../shared/data/cleaneval`, dev + final), labels aligned from the gold text \
         (unique 10-character snippets, divide and conquer, LCS for the rest; content when ≥ 2/3 of a block's \
         characters align). Split with seed {}: {} train, {} validation, {} test pages ({} pages without blocks left out; \
         CleanEval has 739 pairs, the paper 737, so the two left over after the paper's 531/58/148 are unused).{}\n",
        config.seed,
        r.pages.train,
        r.pages.validation,
        r.pages.test,
        r.pages.left_out,
        if r.pages.wcxb_train > 0 { format!(" Plus {} WCXB-dev tuning pages labelled the same way.", r.pages.wcxb_train) } else { String::new() }
    ));
    card.push_str(&format!(
        "- **Blocks**: the Collapsed DOM's text leaves; 128 block features (Appendix A) and 25 edge features (section 3.3), \
         clipped, then standardised with the training set's mean and standard deviation (stored in `web2text.json`).\n\
         - **Networks**: unary CNN {} parameters, pairwise CNN {} parameters (the paper: 17,960 and 12,870); 1-D convolutions, \
         filters 50-50-50-10-out, kernels 1-1-3-3-3, ReLU, dropout 0.2; Adam (learning rate {}, weight decay {}), batches of \
         {BATCH} excerpts of {PATCH} blocks, at most {} steps, validation every {} steps, best kept (unary: block F1 {:.3} at \
         step {}; pairwise: edge-label accuracy {:.3} at step {}).\n\
         - **Inference**: Viterbi over equation 3 with λ = {}.\n\n",
        r.unary_parameters,
        r.pairwise_parameters,
        config.learning_rate,
        config.weight_decay,
        config.steps,
        config.eval_every,
        r.unary_validation_f1,
        r.unary_best_step,
        r.pairwise_validation_accuracy,
        r.pairwise_best_step,
        config.lambda
    ));
    card.push_str(&format!("## CleanEval test pages ({} pages, {} blocks): the paper's Table 1\n\n", r.pages.test, r.test_structured.blocks));
    card.push_str("| method | accuracy | precision | recall | F1 |\n|---|---|---|---|---|\n");
    card.push_str(&row("goce-warc web2text (unary + pairwise, Viterbi)", &r.test_structured));
    card.push_str(&row("goce-warc web2text, unary CNN only", &r.test_unary_only));
    card.push_str(&row("every block content", &r.test_all_content));
    card.push_str("| Web2Text, the paper (531/58/148 split) | 0.86 | 0.87 | 0.90 | 0.88 |\n");
    card.push_str("| CRF (Spousta et al.), from the paper | 0.82 | 0.88 | 0.81 | 0.84 |\n");
    card.push_str("| BTE, from the paper | 0.75 | 0.76 | 0.84 | 0.80 |\n");
    card.push_str("| boilerpipe default-ext, from the paper | 0.79 | 0.89 | 0.74 | 0.81 |\n\n");
    if let Some(w) = &r.wcxb_held_out {
        card.push_str(&format!(
            "## WCXB-dev held-aside fifth ({} pages)\n\nWord F1 of the extracted text: {:.3} (unary CNN only: {:.3}). \
             Blocks against labels aligned from the gold text: accuracy {:.3}, precision {:.3}, recall {:.3}, F1 {:.3}.\n\n",
            w.pages, w.word_f1, w.word_f1_unary_only, w.blocks.accuracy, w.blocks.precision, w.blocks.recall, w.blocks.f1
        ));
    }
    card.push_str(&format!("Trained in {:.0} s on this machine's CPU.\n", r.seconds));
    card
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_scores_from_counts() {
        let s = BlockScores::from_counts(6, 2, 3, 9);
        assert!((s.accuracy - 15.0 / 20.0).abs() < 1e-12);
        assert!((s.precision - 0.75).abs() < 1e-12);
        assert!((s.recall - 6.0 / 9.0).abs() < 1e-12);
        assert_eq!(s.blocks, 20);
    }

    #[test]
    fn natural_order_of_ids() {
        let mut ids = vec!["final/10", "dev/9", "final/9", "dev/10"];
        ids.sort_by_key(|id| natural_key(id));
        assert_eq!(ids, ["dev/9", "dev/10", "final/9", "final/10"]);
    }
}
