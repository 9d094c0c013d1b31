//! Stage 5, extraction: a page's HTML → its title and text.
//!
//! `all-text` streams the page through lol_html. The GOCE extractors parse it into the
//! shared DOM ([`crate::dom`]), prune it by a profile ([`profile`]), and run the
//! paper's article (Algorithm 1, [`article`]) or list-view (Algorithm 2,
//! [`list_view`]) algorithm; `goce` lets the page's genre choose. `combined`, the
//! default, lets trained trees decide block by block from what all of them compute
//! ([`combine`]).

mod all_text;
pub mod article;
pub mod combine;
pub mod markdown;
pub mod models;
pub mod web2text;

pub use all_text::all_text;
// The page analysis the extractors read, where it has always been found.
pub use crate::analyse::{ExtractLimits, Genre, ListAnalysis, PageAnalysis, PageError, genre, list_view, parse_page, profile, view};

use crate::classify::PAGE_TYPE_COUNT;
use crate::dom::{Dom, FOR_EXTRACTION, FOR_MARKDOWN_LINKS, FOR_WEB2TEXT, NodeId, Prepass};
pub use markdown::MarkdownOptions;
pub use models::{ExtractModels, ModelsError};
use profile::{ARTICLE, ARTICLE_PAPER, ArticleProfile, LIST_VIEW, LIST_VIEW_PAPER, ListViewProfile};
use view::View;

/// The text and title taken from one page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extraction {
    pub title: Option<String>,
    /// The language the page declares (`<html lang>`), as written.
    pub declared_language: Option<String>,
    pub text: String,
    /// The same blocks as GitHub-flavoured Markdown, when asked for and the extractor keeps
    /// blocks ([`markdown`]); `all-text` and the paper's variants leave it `None`.
    pub markdown: Option<String>,
    /// The genre that chose the algorithm (`goce`, `oracle`), when one did.
    pub genre: Option<Genre>,
    /// The text's expected word F1 (0–1), from the combiner's confidence trees
    /// ([`combine::confidence`]); `None` for the other extractors.
    pub confidence: Option<f32>,
    /// The text's language and the detector's confidence where the extractor read them
    /// already (`combined`: the page's own reading, when the blocks it read are the text's
    /// longest, [`web2text::cdom::Cdom::language_of`]); `None` leaves them to be read from
    /// the text.
    pub language: Option<(String, f32)>,
}

/// The extraction algorithms goce-warc offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Extractor {
    // What each does: `Choice::help` (the text of `--help`).
    Combined,
    AllText,
    Article,
    ArticlePaper,
    ListView,
    ListViewPaper,
    Goce,
    Oracle,
    Web2text,
    GoceWeb2text,
}

impl crate::choice::Choice for Extractor {
    const ALL: &'static [Self] = &[
        Self::Combined,
        Self::AllText,
        Self::Article,
        Self::ArticlePaper,
        Self::ListView,
        Self::ListViewPaper,
        Self::Goce,
        Self::Oracle,
        Self::Web2text,
        Self::GoceWeb2text,
    ];

    fn name(self) -> &'static str {
        Extractor::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            Self::Combined => {
                "The default: trained trees decide block by block which text is content, from what the article, list-view and Web2Text extractors compute (model in `models/combiner.json`)"
            }
            Self::AllText => "Every visible text node, block elements on their own lines (the paper's default mode)",
            Self::Article => "GOCE's article algorithm (Algorithm 1) with goce-warc's improvements",
            Self::ArticlePaper => "Algorithm 1 as the paper defines it, for comparison",
            Self::ListView => "GOCE's list-view algorithm (Algorithm 2, n = 15) with goce-warc's improvements",
            Self::ListViewPaper => "Algorithm 2 as the paper defines it, for comparison",
            Self::Goce => {
                "The page's genre picks `article` or `list-view` (the classifier's genre, or --genre; without a classifier, a guess from the page's HTML structure)"
            }
            Self::Oracle => "`goce` with the gold genre: for evaluation, where the gold is known",
            Self::Web2text => {
                "Web2Text: every text block labelled content or boilerplate by two CNNs and a hidden Markov model (the second seed system; model in `models/web2text.*`)"
            }
            Self::GoceWeb2text => "The page's genre picks `web2text` for articles and `list-view` for list pages (each where it measured best)",
        }
    }
}

impl Extraction {
    /// A page the hand-built extractors leave without text (a script-only page) gets its own
    /// summary, the only text it has, and the Markdown, where written, that summary as one
    /// paragraph. Not the combiner's: on the WCXB-dev pages where it keeps no block the gold
    /// text is empty, or (Discourse threads stored as their head) the summary scored under 0.07.
    fn or_description(mut self, description: impl FnOnce() -> Option<String>) -> Self {
        if self.text.is_empty() {
            self.text = description().unwrap_or_default();
            self.language = None;
            if self.markdown.is_some() {
                self.markdown = Some(markdown::paragraph(&self.text));
            }
        }
        self
    }

    /// The title, text and Markdown in Unicode NFC ([`compose`]).
    fn composed(mut self) -> Self {
        for field in [self.title.as_mut(), Some(&mut self.text), self.markdown.as_mut()].into_iter().flatten() {
            compose(field);
        }
        self
    }

    /// Cut to at most `max_bytes` of text (and of Markdown), at a character boundary.
    pub(crate) fn truncated(mut self, max_bytes: usize) -> Self {
        truncate(&mut self.text, max_bytes);
        if let Some(markdown) = &mut self.markdown {
            truncate(markdown, max_bytes);
        }
        self
    }
}

/// `text` in Unicode NFC, the form the web's text is compared and tokenised in: pages written
/// with decomposed letters (`a` + U+0308 for `ä`, Bengali's `য` + nukta for `য়`) give the
/// same words as pages written with composed ones, and a combining mark no longer splits a
/// word for tokenisers that cut at non-letters. Text already in NFC (nearly every page) is
/// checked and left as it is.
pub fn compose(text: &mut String) {
    if let std::borrow::Cow::Owned(composed) = icu_normalizer::ComposingNormalizerBorrowed::new_nfc().normalize(text) {
        *text = composed;
    }
}

/// Cuts `text` to at most `max_bytes`, at a character boundary.
pub(crate) fn truncate(text: &mut String, max_bytes: usize) {
    if text.len() > max_bytes {
        let mut cut = max_bytes;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
}

impl Extractor {
    /// The name written to the `extractor` column.
    pub fn name(self) -> &'static str {
        match self {
            Self::Combined => "combined",
            Self::AllText => "all-text",
            Self::Article => "article",
            Self::ArticlePaper => "article-paper",
            Self::ListView => "list-view",
            Self::ListViewPaper => "list-view-paper",
            Self::Goce => "goce",
            Self::Oracle => "oracle",
            Self::Web2text => "web2text",
            Self::GoceWeb2text => "goce-web2text",
        }
    }

    /// Whether the page's genre picks the algorithm (given, or from the classifier).
    pub fn uses_genre(self) -> bool {
        matches!(self, Self::Goce | Self::GoceWeb2text)
    }

    /// Whether the page's genre picks the algorithm: the classifier's or a guess
    /// ([`Self::uses_genre`]), or the gold genre (`oracle`).
    pub fn picks_by_genre(self) -> bool {
        self.uses_genre() || self == Self::Oracle
    }

    /// Whether the extractor reads the classifier's output: its genre, or (`combined`) its
    /// page-type probabilities.
    pub fn uses_classifier(self) -> bool {
        self.uses_genre() || self == Self::Combined
    }

    /// Whether the extractor runs the Web2Text model.
    pub fn uses_web2text(self) -> bool {
        matches!(self, Self::Web2text | Self::GoceWeb2text)
    }

    /// The pre-pass a page is parsed with for this extractor alone.
    pub fn prepass(self) -> &'static Prepass {
        if self.uses_web2text() || self == Self::Combined { &FOR_WEB2TEXT } else { &FOR_EXTRACTION }
    }

    /// The pre-pass for this extractor when it also writes Markdown: the renderer reads
    /// `colspan`, `rowspan`, `alt`, the whitespace inside `pre`, and with links `href` and `src`.
    pub fn prepass_for(self, markdown: Option<&MarkdownOptions>) -> &'static Prepass {
        match markdown {
            Some(m) if m.links => &FOR_MARKDOWN_LINKS,
            Some(_) => &FOR_WEB2TEXT,
            None => self.prepass(),
        }
    }

    /// Whether the extractor keeps blocks the Markdown renderer can write out.
    pub fn writes_markdown(self) -> bool {
        !matches!(self, Self::AllText | Self::ArticlePaper | Self::ListViewPaper)
    }

    /// What keeps a page's blocks under this extractor, given the page's genre: the one
    /// table of per-genre behaviour. `None`: `all-text`, which streams the HTML instead.
    fn algorithm(self, genre: Option<Genre>) -> Option<Algorithm> {
        Some(match (self, genre) {
            (Self::AllText, _) => return None,
            (Self::Combined, _) => Algorithm::Combined,
            (Self::Article, _) => Algorithm::Article,
            (Self::ArticlePaper, _) => Algorithm::ArticlePaper,
            (Self::ListView, _) => Algorithm::ListView,
            (Self::ListViewPaper, _) => Algorithm::ListViewPaper,
            (Self::Web2text, _) => Algorithm::Web2text,
            // The extractors the genre picks for: each genre gets what measured best on it
            // (docs/extraction.md).
            (Self::Goce | Self::Oracle, Some(Genre::Article) | None) => Algorithm::Article,
            (Self::GoceWeb2text, Some(Genre::Article) | None) => Algorithm::Web2text,
            (Self::Goce | Self::Oracle | Self::GoceWeb2text, Some(Genre::ListView)) => Algorithm::ListView,
        })
    }

    /// Extracts a page's title, text (cut at `request.limits.max_text_bytes`) and, when
    /// asked for, Markdown: the one entry point of every extractor. A page not yet parsed
    /// is parsed here with the pre-pass this extractor needs.
    pub fn extract(self, models: &ExtractModels, page: PageSource<'_, '_>, request: &ExtractRequest<'_>) -> Result<Extraction, ExtractError> {
        let extraction = match page.parsed {
            Some(parsed) => self.extract_parsed(models, page.html, parsed, request)?,
            None if self == Self::AllText => all_text(page.html, &request.limits)?,
            None => {
                let dom = parse_page(page.html, &request.limits, self.prepass_for(request.markdown))?;
                self.extract_parsed(models, page.html, &PageAnalysis::new(&dom), request)?
            }
        };
        Ok(extraction.composed().truncated(request.limits.max_text_bytes))
    }

    /// [`Self::extract`] on a parsed page, before the text is cut.
    fn extract_parsed(self, models: &ExtractModels, html: &str, page: &PageAnalysis<'_>, request: &ExtractRequest<'_>) -> Result<Extraction, ExtractError> {
        let genre = if self.picks_by_genre() {
            if self == Self::Oracle && request.genre.is_none() {
                return Err(ExtractError::NoGoldGenre);
            }
            Some(request.genre.unwrap_or_else(|| genre::guess(page.list())))
        } else {
            None
        };
        let Some(algorithm) = self.algorithm(genre) else { return all_text(html, &request.limits) };
        let dom = page.dom;
        let markdown = request.markdown.filter(|_| self.writes_markdown());
        let extraction = match algorithm {
            Algorithm::Article => article_output(page, markdown),
            Algorithm::ArticlePaper => Extraction { text: article_text(page, &ARTICLE_PAPER), ..Extraction::default() },
            Algorithm::ListView => list_view_output(page, markdown),
            Algorithm::ListViewPaper => Extraction { text: list_view_text(page, &LIST_VIEW_PAPER), ..Extraction::default() },
            Algorithm::Web2text => web2text_output(models, dom, markdown)?,
            Algorithm::Combined => CombinerBlocks::of(page).decide(models.combiner()?, request.page_types, markdown.map(|m| (dom, m))),
        };
        let extraction = if algorithm == Algorithm::Combined { extraction } else { extraction.or_description(|| dom.description()) };
        Ok(Extraction { title: dom.title(), declared_language: dom.declared_language(), genre, ..extraction })
    }

    /// Whether this extractor can run without a gold genre.
    pub fn needs_gold_genre(self) -> bool {
        self == Self::Oracle
    }
}

/// What keeps a page's blocks: the algorithms the extractors run (see `Extractor::algorithm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algorithm {
    Article,
    ArticlePaper,
    ListView,
    ListViewPaper,
    Web2text,
    Combined,
}

/// A page to extract from: its HTML and, where the caller has parsed it already (the
/// pipeline parses once for the picture, the features and the text), its analysis.
#[derive(Clone, Copy)]
pub struct PageSource<'a, 'd> {
    pub html: &'a str,
    pub parsed: Option<&'a PageAnalysis<'d>>,
}

impl<'a, 'd> PageSource<'a, 'd> {
    /// A page to be parsed by the extractor.
    pub fn html(html: &'a str) -> Self {
        Self { html, parsed: None }
    }

    /// A page parsed already (with a pre-pass that keeps what the extractor reads).
    pub fn parsed(html: &'a str, page: &'a PageAnalysis<'d>) -> Self {
        Self { html, parsed: Some(page) }
    }
}

/// What is known of a page besides its HTML, and what is asked of the extractor.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExtractRequest<'a> {
    /// The page's known genre: the genre-picking extractors take it instead of their
    /// guess, and `oracle` requires it.
    pub genre: Option<Genre>,
    /// The classifier's page-type probabilities, which `combined` reads.
    pub page_types: Option<&'a [f32; PAGE_TYPE_COUNT]>,
    /// Also write the kept blocks as Markdown.
    pub markdown: Option<&'a MarkdownOptions>,
    pub limits: ExtractLimits,
}

/// The combined extractor's work on a page before its page types are known: the block
/// table (the costly part). `combined` decides from it at once; the pipeline holds it
/// while the batch's ResNet pass runs, then decides.
pub struct CombinerBlocks {
    table: combine::BlockTable,
}

impl CombinerBlocks {
    pub fn of(page: &PageAnalysis<'_>) -> Self {
        Self { table: combine::BlockTable::of(page) }
    }

    /// The text, confidence and (with `markdown`, from the page's DOM) Markdown the trees
    /// decide, given the page types where the classifier gave them; not yet cut to the
    /// text limit.
    pub fn decide(
        mut self,
        model: &combine::CombinerModel,
        page_types: Option<&[f32; PAGE_TYPE_COUNT]>,
        markdown: Option<(&Dom, &MarkdownOptions)>,
    ) -> Extraction {
        if let Some(p) = page_types {
            self.table.set_page_types(p);
        }
        let decided = model.decide(&self.table);
        let markdown = markdown.map(|(dom, options)| markdown::render(dom, &self.table.cdom, &decided.content, options));
        let language = self.table.cdom.language_of(&decided.content);
        Extraction { text: decided.text, markdown, confidence: decided.confidence, language, ..Extraction::default() }
    }
}

/// Web2Text's text, and its blocks as Markdown when asked for.
fn web2text_output(models: &ExtractModels, dom: &Dom, markdown: Option<&MarkdownOptions>) -> Result<Extraction, ExtractError> {
    let model = models.web2text()?;
    let page = web2text::PageBlocks::of(dom);
    let labels = model.labels(&page, web2text::Inference::Structured)?;
    let content = page.content_of(&labels);
    let markdown = markdown.map(|m| markdown::render(dom, &page.cdom, &content, m));
    Ok(Extraction { text: page.cdom.text_of(&content), markdown, ..Extraction::default() })
}

/// The article extractor's text, and its kept nodes as Markdown when asked for.
fn article_output(page: &PageAnalysis<'_>, markdown: Option<&MarkdownOptions>) -> Extraction {
    let view = page.view(&ARTICLE.prune);
    let roots = article::article_roots(&view, &ARTICLE);
    let markdown = markdown.map(|m| view_markdown(&view, &roots, m));
    Extraction { text: view.text_of(&roots), markdown, ..Extraction::default() }
}

/// The list-view extractor's text, and its kept nodes as Markdown when asked for.
fn list_view_output(page: &PageAnalysis<'_>, markdown: Option<&MarkdownOptions>) -> Extraction {
    let list = page.list();
    let roots = match &list.choice {
        Some(choice) => list_view::output_roots(&list.view, choice, &LIST_VIEW),
        None => vec![list.view.start()],
    };
    let markdown = markdown.map(|m| view_markdown(&list.view, &roots, m));
    Extraction { text: list.view.text_of(&roots), markdown, ..Extraction::default() }
}

/// The Markdown of what a view keeps under `roots`: the page's blocks, each content when
/// its node is kept.
fn view_markdown(view: &View<'_>, roots: &[NodeId], options: &MarkdownOptions) -> String {
    let dom = view.dom;
    let cdom = web2text::cdom::Cdom::build_skipping(dom, &web2text::cdom::SKIPPED_BUT_NOSCRIPT);
    let kept = combine::blocks::marked(dom, view, roots);
    let content: Vec<bool> = cdom.leaves.iter().map(|&l| kept.get(cdom.nodes[l].dom_node).copied().unwrap_or(false)).collect();
    markdown::render(dom, &cdom, &content, options)
}

pub fn article_text(page: &PageAnalysis<'_>, profile: &ArticleProfile) -> String {
    let view = page.view(&profile.prune);
    view.text_of(&article::article_roots(&view, profile))
}

pub fn list_view_text(page: &PageAnalysis<'_>, profile: &ListViewProfile) -> String {
    let view = page.view(&profile.prune);
    match list_view::choose(&view, profile) {
        Some(choice) => view.text_of(&list_view::output_roots(&view, &choice, profile)),
        None => view.text_of(&[view.start()]),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error("the page has more than {0} elements")]
    TooManyElements(usize),
    #[error("the page took longer than {0:?}")]
    TimeLimit(std::time::Duration),
    #[error("the HTML could not be parsed: {0}")]
    Parse(String),
    #[error("the oracle extractor needs the page's gold genre")]
    NoGoldGenre,
    #[error("the {0} model was not loaded for this run")]
    ModelNotLoaded(&'static str),
    #[error(transparent)]
    Web2Text(#[from] web2text::Web2TextError),
}

impl From<PageError> for ExtractError {
    fn from(e: PageError) -> Self {
        match e {
            PageError::TooManyElements(n) => Self::TooManyElements(n),
            PageError::TimeLimit(d) => Self::TimeLimit(d),
        }
    }
}

impl ExtractError {
    pub fn name(&self) -> &'static str {
        match self {
            Self::TooManyElements(_) => "too_many_elements",
            Self::TimeLimit(_) => "page_time_limit",
            Self::Parse(_) => "html_parse_error",
            Self::NoGoldGenre => "no_gold_genre",
            Self::ModelNotLoaded(_) | Self::Web2Text(_) => "model_error",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<html lang=de><head><title>Ein Titel</title></head><body><nav><a href=/>Start</a> <a href=/a>Über uns</a></nav>\
        <article><h1>Ein Titel</h1><p>Der erste Absatz des Artikels, mit Wörtern genug, um als sein Text zu zählen.</p>\
        <p>Ein zweiter Absatz, der den ersten fortsetzt und noch mehr über die Sache sagt.</p></article>\
        <footer>© 2026 Ein Verlag</footer></body></html>";

    #[test]
    fn every_genre_of_a_genre_picking_extractor_gets_an_algorithm_of_its_own() {
        for extractor in [Extractor::Goce, Extractor::Oracle, Extractor::GoceWeb2text] {
            assert!(extractor.picks_by_genre());
            assert_eq!(extractor.algorithm(Some(Genre::ListView)), Some(Algorithm::ListView));
        }
        assert_eq!(Extractor::Goce.algorithm(Some(Genre::Article)), Some(Algorithm::Article));
        assert_eq!(Extractor::GoceWeb2text.algorithm(Some(Genre::Article)), Some(Algorithm::Web2text));
        // The others run their own algorithm whatever the genre; all-text streams the HTML.
        for genre in [Genre::Article, Genre::ListView] {
            assert_eq!(Extractor::ListView.algorithm(Some(genre)), Some(Algorithm::ListView));
            assert_eq!(Extractor::Combined.algorithm(Some(genre)), Some(Algorithm::Combined));
            assert_eq!(Extractor::AllText.algorithm(Some(genre)), None);
        }
    }

    #[test]
    fn a_page_parsed_for_every_stage_gives_what_the_extractor_parsing_it_gives() {
        let models = ExtractModels::none();
        let markdown = MarkdownOptions::default();
        let request = ExtractRequest { markdown: Some(&markdown), ..ExtractRequest::default() };
        let dom = Dom::parse_unbounded(PAGE);
        let parsed = PageAnalysis::new(&dom);
        for extractor in [Extractor::AllText, Extractor::Article, Extractor::ListView, Extractor::Goce, Extractor::ArticlePaper] {
            let alone = extractor.extract(&models, PageSource::html(PAGE), &request).unwrap();
            let shared = extractor.extract(&models, PageSource::parsed(PAGE, &parsed), &request).unwrap();
            assert_eq!(alone, shared, "{}", extractor.name());
        }
    }

    #[test]
    fn the_genre_picks_the_text_and_is_told_and_oracle_needs_it() {
        let models = ExtractModels::none();
        let article =
            Extractor::Goce.extract(&models, PageSource::html(PAGE), &ExtractRequest { genre: Some(Genre::Article), ..ExtractRequest::default() }).unwrap();
        assert_eq!(article.genre, Some(Genre::Article));
        assert!(article.text.contains("Der erste Absatz") && !article.text.contains("Verlag"), "{:?}", article.text);
        assert_eq!(article.text, Extractor::Article.extract(&models, PageSource::html(PAGE), &ExtractRequest::default()).unwrap().text);
        assert_eq!(Extractor::Article.extract(&models, PageSource::html(PAGE), &ExtractRequest::default()).unwrap().genre, None);
        assert_eq!((article.title.as_deref(), article.declared_language.as_deref()), (Some("Ein Titel"), Some("de")));
        let oracle = Extractor::Oracle.extract(&models, PageSource::html(PAGE), &ExtractRequest::default());
        assert!(matches!(oracle, Err(ExtractError::NoGoldGenre)));
    }

    #[test]
    fn a_page_without_content_gets_its_summary_from_the_rules_but_no_text_from_the_combiner() {
        let shell = "<html><head><meta name=description content=\"Everything for the garden, delivered.\"></head>\
            <body><div id=root></div><script>app.start()</script></body></html>";
        let article = Extractor::Article.extract(&ExtractModels::none(), PageSource::html(shell), &ExtractRequest::default()).unwrap();
        assert_eq!(article.text, "Everything for the garden, delivered.");
        let models =
            ExtractModels::load(Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models").as_path()), &[Extractor::Combined], true).unwrap();
        let markdown = MarkdownOptions::default();
        let request = ExtractRequest { markdown: Some(&markdown), ..ExtractRequest::default() };
        let combined = Extractor::Combined.extract(&models, PageSource::html(shell), &request).unwrap();
        assert_eq!((combined.text.as_str(), combined.markdown.as_deref(), combined.language), ("", Some(""), None));
    }

    #[test]
    fn a_model_not_loaded_is_an_error_not_an_empty_text() {
        let page = Extractor::Combined.extract(&ExtractModels::none(), PageSource::html(PAGE), &ExtractRequest::default());
        assert!(matches!(page, Err(ExtractError::ModelNotLoaded(_))), "{page:?}");
    }

    #[test]
    fn decomposed_letters_come_out_composed_in_the_title_text_and_markdown() {
        // "Mädchen" with `a` + U+0308, as some editors write it; U+09DF, Bengali's
        // precomposed `য়`, which NFC writes as `য` + nukta.
        let html = "<html><head><title>Ma\u{308}dchen</title></head><body><article><h1>Ma\u{308}dchen</h1>\
            <p>Jedes Ma\u{308}dchen tra\u{308}umt davon, und das ist gut so, sagt sie uns heute. \u{9df}</p></article></body></html>";
        let markdown = MarkdownOptions::default();
        let request = ExtractRequest { markdown: Some(&markdown), ..ExtractRequest::default() };
        let page = Extractor::Article.extract(&ExtractModels::none(), PageSource::html(html), &request).unwrap();
        assert_eq!(page.title.as_deref(), Some("M\u{e4}dchen"));
        assert!(page.text.contains("Jedes M\u{e4}dchen tr\u{e4}umt") && page.text.ends_with("\u{9af}\u{9bc}"), "{}", page.text);
        assert!(page.markdown.as_deref().is_some_and(|m| m.starts_with("# M\u{e4}dchen") && m.contains("tr\u{e4}umt")), "{:?}", page.markdown);
    }

    #[test]
    fn the_text_and_the_markdown_are_cut_at_the_limit() {
        let markdown = MarkdownOptions::default();
        let limits = ExtractLimits { max_text_bytes: 20, ..ExtractLimits::default() };
        let request = ExtractRequest { markdown: Some(&markdown), limits, ..ExtractRequest::default() };
        let cut = Extractor::Article.extract(&ExtractModels::none(), PageSource::html(PAGE), &request).unwrap();
        assert!(cut.text.len() <= 20 && !cut.text.is_empty());
        assert!(cut.markdown.is_some_and(|m| m.len() <= 20));
    }
}
