//! `goce-warc-train train`, `train-web2text`, `train-extract`: the models retrained from data.

use super::*;

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The WCXB-style dataset to render and learn from.
    #[arg(long, value_name = "DIR", default_value = "../shared/data/wcxb-dev")]
    pub dataset: PathBuf,

    /// Where the models, metrics.json and the model card go.
    #[arg(long, value_name = "DIR", default_value = "models")]
    pub out: PathBuf,

    /// Seed of the domain split, the weight initialisation and the batch order.
    #[arg(long, default_value_t = goce_warc_train::classify::TrainConfig::default().seed)]
    pub seed: u64,

    /// Most training epochs (training stops earlier when validation loss stalls).
    #[arg(long, default_value_t = goce_warc_train::classify::TrainConfig::default().epochs)]
    pub epochs: usize,

    /// Channels per ResNet stage, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "32,64,128,256")]
    pub widths: Vec<i64>,

    /// Basic blocks per ResNet stage, comma-separated (ResNet-18 is 2,2,2,2).
    #[arg(long, value_delimiter = ',', default_value = "1,1,1,1")]
    pub blocks: Vec<i64>,

    /// Train on the picture alone (no HTML features fused into the head).
    #[arg(long)]
    pub picture_only: bool,

    /// Pages whose pictures and outputs are recorded in OUT/check for the regression test.
    #[arg(long, value_name = "PAGE")]
    pub check_page: Vec<PathBuf>,

    /// CPU threads for LibTorch and rendering.
    #[arg(long, short = 'j', default_value_t = 2)]
    pub threads: usize,

    /// Where to train: cpu, cuda, cuda:N, auto.
    #[arg(long, default_value = "cpu")]
    pub device: DeviceChoice,

    /// Only prepare the pages and write them (split, label, features, words) as JSON lines
    /// to FILE; train nothing (for analysis with other tools).
    #[arg(long, value_name = "FILE")]
    pub samples_out: Option<PathBuf>,

    /// Keep the ResNet in OUT and refit only the default cascade's gate
    /// (OUT/genre-cascade.json; the linear and word models it reads come out the same).
    #[arg(long)]
    pub cascade_only: bool,

    /// Also learn from a folder of pages that are all of one page type, split by domain like
    /// the dataset (e.g. `../shared/data/zyte-products=product`); its test domains are
    /// scored apart. Repeatable.
    #[arg(long, value_name = "DIR=TYPE")]
    pub add: Vec<goce_warc_train::classify::AddedPages>,
}

#[derive(Args, Debug)]
pub struct TrainWeb2textArgs {
    /// CleanEval: `dev/` and `final/`, each with `input/N.html` and `GoldStandard/N.txt`.
    #[arg(long, value_name = "DIR", default_value = "../shared/data/cleaneval")]
    pub cleaneval: PathBuf,

    /// A WCXB-style dataset whose held-aside fifth is scored (word F1).
    #[arg(long, value_name = "DIR")]
    pub wcxb: Option<PathBuf>,

    /// Also train on the WCXB dataset's other pages, labelled from their gold text.
    #[arg(long, requires = "wcxb")]
    pub add_wcxb: bool,

    /// Where web2text.json, web2text.safetensors and web2text-metrics.json go.
    #[arg(long, value_name = "DIR", default_value = "models")]
    pub out: PathBuf,

    /// Seed of the split, the initialisation and the excerpts.
    #[arg(long, default_value_t = 2018)]
    pub seed: u64,

    /// Most training steps per network (batches of 128 excerpts of 9 blocks).
    #[arg(long, default_value_t = 5000)]
    pub steps: usize,

    /// CPU threads.
    #[arg(long, short = 'j', default_value_t = 2)]
    pub threads: usize,
}

#[derive(Args, Debug)]
pub struct TrainExtractArgs {
    /// WCXB-dev (its held-out fifth is never read here).
    #[arg(long, value_name = "DIR", default_value = "../shared/data/wcxb-dev")]
    pub wcxb: PathBuf,

    /// CleanEval (`dev/`, `final/`); `none` leaves it out.
    #[arg(long, value_name = "DIR", default_value = "../shared/data/cleaneval")]
    pub cleaneval: PathBuf,

    /// The Scrapinghub article benchmark (its held-out fifth is never read); `none` leaves it out.
    #[arg(long, value_name = "DIR", default_value = "../shared/data/scrapinghub")]
    pub scrapinghub: PathBuf,

    /// A snippet-gold set in WCXB layout (trafi-dev): its `with`/`without` snippets label the
    /// blocks they cover, and its pages are scored by snippets in the CV; `none` leaves it out.
    #[arg(long, value_name = "DIR", default_value = "../shared/data/trafi-dev")]
    pub snippets: PathBuf,

    /// Weight of a snippet-gold page in the fit, against a page with gold text.
    #[arg(long, default_value_t = goce_warc_train::combine::TreeSettings::default().snippet_weight, value_name = "W")]
    pub snippet_weight: f64,

    /// Where combiner.json and combiner.md go.
    #[arg(long, value_name = "DIR", default_value = "models")]
    pub out: PathBuf,

    /// Folds of the domain-grouped cross-validation.
    #[arg(long, default_value_t = 5)]
    pub folds: usize,

    /// Cross-validate only; write no model.
    #[arg(long)]
    pub cv_only: bool,

    /// Write the cross-validation report (means and every page's scores) as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write each WCXB-dev and snippet-gold page's out-of-fold text and Markdown as JSON lines
    /// (dataset, id, url, text, markdown), for `scripts/peers/eval_markdown.py --cv-markdown`
    /// (WCXB-dev's) and for reading what the text keeps on trafi-dev's pages.
    #[arg(long, value_name = "FILE")]
    pub markdown_out: Option<PathBuf>,

    /// Trees to grow (300: more than 200 raised the text in CV with either seed, 400 no further;
    /// docs/extraction.md).
    #[arg(long, default_value_t = 300)]
    pub trees: usize,

    /// The most splits from a tree's root to a leaf.
    #[arg(long, default_value_t = 6)]
    pub depth: usize,

    /// How the content blocks follow from the trees' probabilities: the blocks with the
    /// highest expected word F1 (the shipped rule), or those at probability 0.5 or more (the
    /// rule before; docs/extraction.md compares them).
    #[arg(long, value_enum, default_value = "expected-f1")]
    pub decision: DecisionArg,

    /// Share of the training pages whose page-type inputs the trees see blanked, as
    /// `--classifier none` leaves them, so the trees also learn to decide without them (0:
    /// none, the shipped model; 0.15 and 0.3 cost the list pages with page types, see
    /// docs/extraction.md).
    #[arg(long, default_value_t = 0.0, value_name = "SHARE")]
    pub page_type_dropout: f64,

    /// Train the model `--classifier none` reads: the page types blanked on every page,
    /// written as `combiner-no-page-types.json` (and `.md`) beside the default's.
    #[arg(long, conflicts_with = "page_type_dropout")]
    pub no_page_types: bool,

    /// Also cross-validate, on the same prepared pages and folds, the trees `--no-page-types`
    /// trains (the page types blanked on every page), and write that report as JSON here: one
    /// preparation of the pages for both CVs `make eval-cv` checks.
    #[arg(long, value_name = "FILE", conflicts_with = "no_page_types")]
    pub no_page_types_json: Option<PathBuf>,

    /// Fit the first trees twice, the second time with each training page's weight times
    /// `1 + W * (1 - F1)`, F1 of the blocks the first fit decides on it (0: one fit, the
    /// shipped model; see docs/experiments.md).
    #[arg(long, default_value_t = 0.0, value_name = "W")]
    pub hard_pages: f64,

    /// Fit the trees to each block's aligned share of characters (a third or less: 0, two
    /// thirds or more: 1, linear between) instead of its 0/1 label (see docs/experiments.md).
    #[arg(long)]
    pub soft_labels: bool,

    /// Share of the blocks each tree is fitted on, drawn afresh per tree (1: all of them).
    #[arg(long, default_value_t = goce_warc_train::combine::TreeSettings::default().subsample)]
    pub subsample: f32,

    /// Share of the inputs each tree may split on, drawn afresh per tree (1: all of them).
    #[arg(long, default_value_t = goce_warc_train::combine::TreeSettings::default().colsample)]
    pub colsample: f64,

    /// The least summed weight (hessian) a tree's leaf may hold.
    #[arg(long, default_value_t = goce_warc_train::combine::TreeSettings::default().min_leaf_weight)]
    pub min_leaf_weight: f32,

    /// Seeds those draws. The shipped model's is the default; other seeds measure how much
    /// of a difference between two CV runs is the draw's chance (docs/experiments.md).
    #[arg(long, default_value_t = goce_warc_train::combine::TreeSettings::default().seed)]
    pub seed: u64,

    /// The classifier whose page types the trees read in training (and whose genre `goce`
    /// takes in the comparison). The ResNet's: trees trained on them score better under the
    /// default cascade too (docs/extraction.md).
    #[arg(long, value_enum, default_value = "resnet")]
    pub page_types: ClassifierArg,

    /// The models folder whose ResNet gives `goce` its genre in the comparison.
    #[arg(long, value_name = "DIR", default_value = "models")]
    pub models: PathBuf,

    /// CPU threads.
    #[arg(long, short = 'j', default_value_t = 2)]
    pub threads: usize,
}

pub(super) fn train(args: TrainArgs) -> anyhow::Result<ExitCode> {
    use goce_warc_train::classify::{self as train, TrainConfig};
    let config = TrainConfig {
        dataset: args.dataset,
        out: args.out,
        seed: args.seed,
        epochs: args.epochs,
        widths: args.widths,
        blocks: args.blocks,
        fuse_features: !args.picture_only,
        threads: args.threads,
        device: args.device,
        check_pages: args.check_page,
        cascade_only: args.cascade_only,
        added: args.add,
        ..TrainConfig::default()
    };
    rayon::ThreadPoolBuilder::new().num_threads(config.threads.max(1)).build_global().ok();
    if let Some(path) = &args.samples_out {
        let (samples, skipped) = train::prepare(&config)?;
        train::write_samples(&samples, path)?;
        eprintln!("train: wrote {} pages to {} ({} skipped)", samples.len(), path.display(), skipped.values().sum::<usize>());
        return Ok(ExitCode::SUCCESS);
    }
    let Some(report) = train::train(&config, &|line| eprintln!("train: {line}"))? else {
        eprintln!("train: wrote {}", config.out.join(goce_warc::classify::CASCADE_MODEL).display());
        return Ok(ExitCode::SUCCESS);
    };
    let card = train::model_card(&report);
    std::fs::write(config.out.join("README.md"), card).context("writing the model card")?;
    eprintln!("train: wrote {}", config.out.display());
    Ok(ExitCode::SUCCESS)
}

pub(super) fn train_web2text(args: TrainWeb2textArgs) -> anyhow::Result<ExitCode> {
    use goce_warc_train::web2text::{self as train, TrainConfig};
    let mut config = TrainConfig::new(args.cleaneval, args.out);
    config.wcxb = args.wcxb;
    config.add_wcxb = args.add_wcxb;
    config.seed = args.seed;
    config.steps = args.steps;
    rayon::ThreadPoolBuilder::new().num_threads(args.threads.max(1)).build_global().ok();
    tch::set_num_threads(i32::try_from(args.threads.max(1)).unwrap_or(1));
    let report = train::train(&config, &|line| eprintln!("train-web2text: {line}"))?;
    std::fs::write(config.out.join("web2text.md"), train::model_card(&report, &config)).context("writing the Web2Text model card")?;
    eprintln!("train-web2text: wrote {} ({:.0} s)", config.out.display(), report.seconds);
    Ok(ExitCode::SUCCESS)
}

pub(super) fn train_extract(args: TrainExtractArgs) -> anyhow::Result<ExitCode> {
    use goce_warc_train::combine::{self as train, TrainConfig, TreeSettings};
    let started = std::time::Instant::now();
    let given = |p: PathBuf| (p.as_os_str() != "none").then_some(p);
    let config = TrainConfig {
        wcxb: args.wcxb,
        cleaneval: given(args.cleaneval),
        scrapinghub: given(args.scrapinghub),
        snippets: given(args.snippets),
        out: args.out,
        folds: args.folds,
        trees: TreeSettings {
            trees: args.trees,
            max_depth: args.depth,
            decision: args.decision.into(),
            page_type_dropout: if args.no_page_types { 1.0 } else { args.page_type_dropout },
            hard_pages: args.hard_pages,
            soft_labels: args.soft_labels,
            subsample: args.subsample,
            colsample: args.colsample,
            min_leaf_weight: args.min_leaf_weight,
            seed: args.seed,
            snippet_weight: args.snippet_weight,
            ..TreeSettings::default()
        },
        cv_only: args.cv_only,
        model_file: if args.no_page_types { goce_warc::extract::combine::NO_PAGE_TYPES_FILE } else { goce_warc::extract::combine::MODEL_FILE },
    };
    rayon::ThreadPoolBuilder::new().num_threads(args.threads.max(1)).build_global().ok();
    tch::set_num_threads(i32::try_from(args.threads.max(1)).unwrap_or(1));
    let pages = train::load_pages(&config)?;
    let kind = match args.page_types {
        ClassifierArg::Cascade => ClassifierKind::Cascade,
        ClassifierArg::Resnet => ClassifierKind::Resnet,
        ClassifierArg::HtmlFeatures => ClassifierKind::HtmlFeatures,
        ClassifierArg::None => anyhow::bail!("--page-types none: the trees are trained with page types"),
    };
    eprintln!("train-extract: {} pages; the {} classifier's page types and genre for goce", pages.len(), kind.name());
    let classifier = Classifier::load(kind, &args.models, DeviceChoice::Cpu)?;
    let keyed: Vec<goce_warc_train::eval::GoldPage> =
        pages.iter().map(|(dataset, p)| goce_warc_train::eval::GoldPage { id: format!("{dataset}/{}", p.id), ..p.clone() }).collect();
    let predictions = goce_warc_train::eval::predict_pages(&keyed, &classifier, &ExtractLimits::default())?;
    drop(keyed);
    let split = goce_warc_train::classify::recorded_split(&args.models).ok();
    // The baselines scored beside the combiner read Web2Text's networks.
    let models = goce_warc::extract::ExtractModels::load(Some(&args.models), &train::BASELINES, true)?;
    let prepared = train::prepare(pages, &models, &predictions, split.as_ref());
    let blocks: usize = prepared.iter().map(|p| p.table.len()).sum();
    eprintln!("train-extract: {} pages prepared, {blocks} blocks ({:.0} s)", prepared.len(), started.elapsed().as_secs_f64());
    let cv = train::cross_validate(&prepared, &config, &|line| eprintln!("train-extract: {line}"))?;
    let report = &cv.report;
    print_stdout(&train::render_report(report))?;
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string(report)?).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.markdown_out {
        let mut lines = String::new();
        for row in ["wcxb", train::SNIPPET_DATASET].into_iter().flat_map(|dataset| train::out_of_fold_markdown(&prepared, &cv, &config, dataset)) {
            lines += &serde_json::to_string(&row)?;
            lines.push('\n');
        }
        std::fs::write(path, lines).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.no_page_types_json {
        let blanked = TrainConfig { trees: TreeSettings { page_type_dropout: 1.0, ..config.trees }, ..config.clone() };
        eprintln!("train-extract: the same folds with the page types blanked on every page (--no-page-types)");
        let cv = train::cross_validate(&prepared, &blanked, &|line| eprintln!("train-extract: {line}"))?;
        print_stdout(&train::render_report(&cv.report))?;
        std::fs::write(path, serde_json::to_string(&cv.report)?).with_context(|| format!("writing {}", path.display()))?;
    }
    if config.cv_only {
        return Ok(ExitCode::SUCCESS);
    }
    let fit_started = std::time::Instant::now();
    let (final_pages, final_blocks) = train::train_final(&prepared, &cv, &config)?;
    let card = train::model_card(report, final_pages, final_blocks, fit_started.elapsed().as_secs_f64());
    let card_file = config.model_file.replace(".json", ".md");
    std::fs::write(config.out.join(&card_file), card).with_context(|| format!("writing the combiner's model card {card_file}"))?;
    eprintln!("train-extract: wrote {} ({:.0} s)", config.out.display(), started.elapsed().as_secs_f64());
    Ok(ExitCode::SUCCESS)
}

/// `--decision`: how the combiner's content blocks follow from its trees' probabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DecisionArg {
    ExpectedF1,
    Threshold,
}

impl From<DecisionArg> for goce_warc::extract::combine::Decision {
    fn from(arg: DecisionArg) -> Self {
        match arg {
            DecisionArg::ExpectedF1 => Self::ExpectedF1,
            DecisionArg::Threshold => Self::Threshold,
        }
    }
}
