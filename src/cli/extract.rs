//! `goce-warc extract`: one page's text.

use super::*;
use goce_warc::extract::{ExtractRequest, PageSource};

#[derive(Args, Debug)]
pub struct ExtractArgs {
    /// The page: an HTML file (UTF-8, or with a BOM or <meta charset>), or `-`.
    #[arg(value_name = "PAGE")]
    pub page: String,

    /// Text extraction algorithm.
    #[arg(long, value_parser = choice::<Extractor>(), default_value = "combined")]
    pub extractor: Extractor,

    /// The page's genre, when known: `goce` uses it instead of the classifier's.
    #[arg(long, value_parser = choice::<Genre>())]
    pub genre: Option<Genre>,

    /// The URL the page was fetched from, which the classifier reads (optional).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    #[command(flatten)]
    pub classifier: ClassifierArgs,

    #[command(flatten)]
    pub markdown: MarkdownArgs,

    /// Print JSON ({"title", "genre", "extractor", "text"}) instead of the text.
    #[arg(long)]
    pub json: bool,
}

pub(super) fn extract(args: ExtractArgs) -> anyhow::Result<ExitCode> {
    let html = read_page(&args.page)?;
    let models = args.classifier.extract_models(&[args.extractor])?;
    if args.extractor.needs_gold_genre() && args.genre.is_none() {
        anyhow::bail!("--extractor oracle needs --genre (or use goce, which guesses it)");
    }
    let prediction = match args.classifier.load(1)? {
        Some(classifier) if args.extractor.uses_classifier() && args.genre.is_none() => {
            Some(classifier.classify_html(&html, args.url.as_deref().unwrap_or(""), &ExtractLimits::default())?)
        }
        _ => None,
    };
    let genre = args.genre.or_else(|| prediction.as_ref().filter(|_| args.extractor.uses_genre()).map(|p| p.genre));
    let markdown = args.markdown.options(args.url.clone());
    if markdown.is_some() && !args.extractor.writes_markdown() {
        anyhow::bail!(
            "--extractor {} keeps no blocks to write as Markdown (all-text and the paper's variants); use combined, article, list-view, goce or web2text",
            args.extractor.name()
        );
    }
    let request =
        ExtractRequest { genre, page_types: prediction.as_ref().map(|p| &p.probabilities), markdown: markdown.as_ref(), limits: ExtractLimits::default() };
    let extraction = args.extractor.extract(&models, PageSource::html(&html), &request)?;
    let output = if args.json {
        let mut json = serde_json::json!({
            "title": extraction.title,
            "genre": extraction.genre.map(Genre::name),
            "extractor": args.extractor.name(),
            "extraction_confidence": extraction.confidence,
            "text": extraction.text,
        });
        if let Some(markdown) = extraction.markdown {
            json["markdown"] = serde_json::Value::String(markdown);
        }
        serde_json::to_string_pretty(&json)?
    } else if markdown.is_some() {
        extraction.markdown.unwrap_or_default()
    } else {
        extraction.text
    };
    print_stdout(&output)?;
    Ok(ExitCode::SUCCESS)
}
