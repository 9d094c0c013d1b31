//! `goce-warc-train eval`: extractors scored on a gold dataset.

use super::*;

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// A WCXB-style folder (html/ID.html.gz, ground-truth/ID.json) or the Scrapinghub one
    /// (html/ID.html.gz, ground-truth.json).
    #[arg(long, value_name = "DIR")]
    pub dataset: PathBuf,

    /// Extractors to score (repeat the flag); default: all of them.
    #[arg(long, value_parser = choice::<Extractor>())]
    pub extractor: Vec<Extractor>,

    /// Which pages the printed tables cover (the JSON has every split).
    #[arg(long, value_parser = choice::<goce_warc_train::eval::Split>(), default_value = "all")]
    pub split: goce_warc_train::eval::Split,

    /// Write the report (means per split, subset and extractor, and every page's scores) as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// The classifier whose genre `goce` uses.
    #[command(flatten)]
    pub classifier: ClassifierArgs,

    /// Score only the pages of the classifier's held-out test domains (the split
    /// recorded in MODELS/metrics.json), where `goce` meets pages the classifier never saw.
    #[arg(long)]
    pub test_domains: bool,

    /// Fail (exit 1) unless the held-out word F1 of EXTRACTOR reaches each floor:
    /// `oracle:all=0.86,article=0.89,list-view=0.75`. Repeatable.
    #[arg(long, value_name = "EXTRACTOR:SUBSET=F1,...")]
    pub require: Vec<String>,
}

pub(super) fn eval(args: EvalArgs) -> anyhow::Result<ExitCode> {
    use goce_warc_train::eval::{self, Split};
    let extractors = if args.extractor.is_empty() { Extractor::ALL.to_vec() } else { args.extractor.clone() };
    let floors: Vec<(Extractor, String, f64)> =
        args.require.iter().map(|r| parse_floor(r)).collect::<anyhow::Result<Vec<_>>>()?.into_iter().flatten().collect();
    let models = args.classifier.extract_models(&extractors)?;
    let mut pages = eval::load(&args.dataset)?;
    if args.test_domains {
        let models = goce_warc::classify::find_models_dir(args.classifier.models.as_deref())?;
        let split = goce_warc_train::classify::recorded_split(&models)?;
        pages.retain(|p| split.is_test(p));
        eprintln!("eval: {} pages from the classifier's held-out test domains", pages.len());
    }
    anyhow::ensure!(!pages.is_empty(), "no pages in {}", args.dataset.display());
    let started = std::time::Instant::now();
    let threads = rayon::current_num_threads();
    let (genres, genre_source) = match args.classifier.load(threads)? {
        Some(classifier) if extractors.iter().any(|e| e.uses_classifier()) => {
            let predicted = eval::predict_pages(&pages, &classifier, &ExtractLimits::default())?;
            (predicted, format!("the {} classifier's genre", classifier.kind().name()))
        }
        _ => (Default::default(), "a guess from HTML structure (list-view repetition), --classifier none".to_string()),
    };
    let scores = eval::evaluate(&pages, &extractors, &models, &ExtractLimits::default(), &genres);
    let report = eval::report(&args.dataset.display().to_string(), &extractors, scores, &genre_source);
    let splits = if args.split == Split::All { vec![Split::Tuning, Split::HeldOut, Split::All] } else { vec![args.split] };
    for split in splits {
        print_stdout(&eval::render_table(&report, split))?;
    }
    eprintln!("eval: {} pages x {} extractors in {:.1}s", pages.len(), extractors.len(), started.elapsed().as_secs_f64());
    if let Some(path) = &args.json {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, serde_json::to_string_pretty(&report)? + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    let mut failed = false;
    for (extractor, subset, floor) in floors {
        let got = report.means.get("held-out").and_then(|s| s.get(&subset)).and_then(|e| e.get(extractor.name())).map(|m| m.word_f1);
        match got {
            Some(f1) if f1 >= floor => print_stdout(&format!("floor ok: {} {subset} held-out word F1 {f1:.3} >= {floor}", extractor.name()))?,
            Some(f1) => {
                print_stdout(&format!("FLOOR MISSED: {} {subset} held-out word F1 {f1:.3} < {floor}", extractor.name()))?;
                failed = true;
            }
            None => anyhow::bail!("--require {}:{subset}: no such extractor or subset in this run", extractor.name()),
        }
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// "oracle:all=0.86,article=0.89" → [(oracle, all, 0.86), (oracle, article, 0.89)].
fn parse_floor(spec: &str) -> anyhow::Result<Vec<(Extractor, String, f64)>> {
    let (name, floors) = spec.split_once(':').context("--require wants EXTRACTOR:SUBSET=F1,...")?;
    let extractor = Extractor::from_name(name).with_context(|| format!("--require: no extractor {name:?}"))?;
    floors
        .split(',')
        .map(|f| {
            let (subset, value) = f.split_once('=').context("--require wants SUBSET=F1")?;
            Ok((extractor, subset.trim().to_string(), value.trim().parse::<f64>().context("--require: F1 must be a number")?))
        })
        .collect()
}
