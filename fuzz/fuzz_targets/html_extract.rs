//! Any text as a page: the byte-level pre-pass, html5ever's DOM and every extractor,
//! Web2Text and the default (`combined`) included, each also writing Markdown (with links).
//! Each gives text or a counted error within the limits, never a panic.
#![no_main]
use goce_warc::extract::{ExtractModels, ExtractRequest, ExtractLimits, Extractor, Genre, MarkdownOptions, PageSource};
use libfuzzer_sys::fuzz_target;

const EXTRACTORS: [Extractor; 10] = [
    Extractor::Combined,
    Extractor::AllText,
    Extractor::Article,
    Extractor::ArticlePaper,
    Extractor::ListView,
    Extractor::ListViewPaper,
    Extractor::Goce,
    Extractor::Oracle,
    Extractor::Web2text,
    Extractor::GoceWeb2text,
];

/// The models must load, or the model-backed extractors would only ever return their error.
static MODELS: std::sync::LazyLock<ExtractModels> = std::sync::LazyLock::new(|| {
    let models = ExtractModels::load(None, &EXTRACTORS).unwrap_or_else(|e| panic!("{e} (set GOCE_MODELS to the models folder)"));
    for extractor in [Extractor::Combined, Extractor::Web2text] {
        let page = "<html><body><h1>Title</h1><p>A paragraph of text that says something.</p></body></html>";
        if let Err(e) = extractor.extract(&models, PageSource::html(page), &ExtractRequest::default()) {
            panic!("{} cannot run: {e}", extractor.name());
        }
    }
    models
});

fuzz_target!(|data: &[u8]| {
    let models = &*MODELS;
    let html = String::from_utf8_lossy(data);
    let limits = ExtractLimits { max_text_bytes: 64 << 10, max_elements: 20_000, max_page_time: std::time::Duration::from_millis(500) };
    for extractor in EXTRACTORS {
        let genre = (extractor == Extractor::Oracle).then_some(Genre::ListView);
        let request = ExtractRequest { genre, limits, ..ExtractRequest::default() };
        if let Ok(extraction) = extractor.extract(models, PageSource::html(&html), &request) {
            assert!(extraction.text.len() <= limits.max_text_bytes);
        }
        let markdown = MarkdownOptions { links: data.first().is_some_and(|b| b & 1 == 1), page_url: Some("https://example.com/a/b".into()) };
        if let Ok(extraction) = extractor.extract(models, PageSource::html(&html), &ExtractRequest { markdown: Some(&markdown), ..request }) {
            assert!(extraction.markdown.as_ref().is_none_or(|m| m.len() <= limits.max_text_bytes));
            assert_eq!(extraction.markdown.is_some(), extractor.writes_markdown());
        }
    }
});
