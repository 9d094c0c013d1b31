//! `goce-warc classify`: pages' types and genres.

use super::*;

#[derive(Args, Debug)]
pub struct ClassifyArgs {
    /// HTML files (`.html` or `.html.gz`), or `-` for standard input.
    #[arg(value_name = "PAGE", required = true)]
    pub pages: Vec<String>,

    #[command(flatten)]
    pub classifier: ClassifierArgs,

    /// The URL the page was fetched from (one page only): its path is one of the
    /// classifier's features. Without it the page is classified as if its URL were unknown.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    /// Print a JSON line per page (with every page type's probability).
    #[arg(long)]
    pub json: bool,
}

pub(super) fn classify(args: ClassifyArgs) -> anyhow::Result<ExitCode> {
    let Some(classifier) = args.classifier.load(rayon::current_num_threads())? else {
        anyhow::bail!("--classifier none: nothing to classify with");
    };
    anyhow::ensure!(args.url.is_none() || args.pages.len() == 1, "--url names the URL of one page; give one page with it");
    let url = args.url.as_deref().unwrap_or("");
    let mut failed = 0;
    for page in &args.pages {
        let prediction = read_page(page).and_then(|html| Ok(classifier.classify_html(&html, url, &ExtractLimits::default())?));
        match prediction {
            Ok(p) if args.json => {
                let probabilities: serde_json::Map<String, serde_json::Value> =
                    goce_warc::classify::PAGE_TYPES.iter().zip(p.probabilities).map(|(t, v)| (t.name().to_string(), serde_json::json!(v))).collect();
                print_stdout(
                    &serde_json::json!({
                        "page": page,
                        "classifier": classifier.kind().name(),
                        "page_type": p.page_type.name(),
                        "genre": p.genre.name(),
                        "genre_confidence": p.genre_confidence,
                        "probabilities": probabilities,
                    })
                    .to_string(),
                )?;
            }
            Ok(p) => print_stdout(&format!("{page}\t{}\t{}\t{:.3}", p.genre.name(), p.page_type.name(), p.genre_confidence))?,
            Err(e) => {
                failed += 1;
                eprintln!("goce-warc: {page}: {e:#}");
            }
        }
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
