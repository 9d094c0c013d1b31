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
    /// Cut to at most `max_bytes` of text (and of Markdown), at a character boundary.
    pub(crate) fn truncated(mut self, max_bytes: usize) -> Self {
        truncate(&mut self.text, max_bytes);
        if let Some(markdown) = &mut self.markdown {
            truncate(markdown, max_bytes);
        }
        self
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

    /// Extracts with this algorithm. `genre`: the known genre of the page, which
    /// `goce` uses instead of its guess and `oracle` requires.
    pub fn extract(self, models: &ExtractModels, html: &str, genre: Option<Genre>, limits: &ExtractLimits) -> Result<Extraction, ExtractError> {
        self.extract_with(models, html, genre, None, limits, None)
    }

    /// [`Self::extract`] with the classifier's page-type probabilities, which `combined`
    /// reads, and the Markdown when asked for.
    pub fn extract_with(
        self,
        models: &ExtractModels,
        html: &str,
        genre: Option<Genre>,
        page_types: Option<[f32; PAGE_TYPE_COUNT]>,
        limits: &ExtractLimits,
        markdown: Option<&MarkdownOptions>,
    ) -> Result<Extraction, ExtractError> {
        if self == Self::AllText {
            return all_text(html, limits);
        }
        let dom = parse_page(html, limits, self.prepass_for(markdown))?;
        let extraction = self.extract_page(models, &PageAnalysis::with_page_types(&dom, page_types), genre, markdown)?;
        Ok(extraction.truncated(limits.max_text_bytes))
    }

    /// Extracts from a page already parsed (with [`parse_page`]); `html` serves `all-text`.
    pub fn extract_parsed(
        self,
        models: &ExtractModels,
        html: &str,
        page: &PageAnalysis<'_>,
        genre: Option<Genre>,
        limits: &ExtractLimits,
        markdown: Option<&MarkdownOptions>,
    ) -> Result<Extraction, ExtractError> {
        if self == Self::AllText {
            return all_text(html, limits);
        }
        Ok(self.extract_page(models, page, genre, markdown)?.truncated(limits.max_text_bytes))
    }

    /// Extracts from a parsed page, reusing the analyses already made of it; with
    /// `markdown`, the kept blocks are also written as Markdown.
    pub fn extract_page(
        self,
        models: &ExtractModels,
        page: &PageAnalysis<'_>,
        genre: Option<Genre>,
        markdown: Option<&MarkdownOptions>,
    ) -> Result<Extraction, ExtractError> {
        let dom = page.dom;
        let title = dom.title();
        let markdown = markdown.filter(|_| self.writes_markdown());
        let mut confidence = None;
        let (mut text, mut markdown_text, genre) = match self {
            Self::AllText => (page.view(&profile::PAPER_PRUNE).text_of(&[view_start(dom)]), None, None),
            Self::Article => {
                let (text, md) = article_output(page, markdown);
                (text, md, None)
            }
            Self::ArticlePaper => (article_text(page, &ARTICLE_PAPER), None, None),
            Self::ListView => {
                let (text, md) = list_view_output_with_markdown(page, markdown);
                (text, md, None)
            }
            Self::ListViewPaper => (list_view_text(page, &LIST_VIEW_PAPER), None, None),
            Self::Web2text => {
                let (text, md) = web2text_output(models, dom, markdown)?;
                (text, md, None)
            }
            Self::Combined => {
                let model = models.combiner()?;
                let mut table = combine::BlockTable::of(page);
                if let Some(p) = page.page_types().and_then(|p| <&[f32; PAGE_TYPE_COUNT]>::try_from(p).ok()) {
                    table.set_page_types(p);
                }
                let decided = model.decide(&table);
                let md = markdown.map(|m| markdown::render(dom, &table.cdom, &decided.content, m));
                confidence = decided.confidence;
                (decided.text, md, None)
            }
            Self::Goce | Self::Oracle | Self::GoceWeb2text => {
                if self == Self::Oracle && genre.is_none() {
                    return Err(ExtractError::NoGoldGenre);
                }
                let genre = genre.unwrap_or_else(|| genre::guess(page.list()));
                let (text, md) = match genre {
                    Genre::Article if self == Self::GoceWeb2text => web2text_output(models, dom, markdown)?,
                    Genre::Article => article_output(page, markdown),
                    Genre::ListView => list_view_output_with_markdown(page, markdown),
                };
                (text, md, Some(genre))
            }
        };
        if text.is_empty() {
            // A script-only page: its own summary is the only text it has.
            text = dom.description().unwrap_or_default();
            if markdown.is_some() {
                markdown_text = Some(markdown::paragraph(&text));
            }
        }
        Ok(Extraction { title, declared_language: dom.declared_language(), text, markdown: markdown_text, genre, confidence })
    }

    /// Whether this extractor can run without a gold genre.
    pub fn needs_gold_genre(self) -> bool {
        self == Self::Oracle
    }
}

/// Web2Text's text, and its blocks as Markdown when asked for.
fn web2text_output(models: &ExtractModels, dom: &Dom, markdown: Option<&MarkdownOptions>) -> Result<(String, Option<String>), ExtractError> {
    let model = models.web2text()?;
    let page = web2text::PageBlocks::of(dom);
    let labels = model.labels(&page, web2text::Inference::Structured)?;
    let content: Vec<bool> = labels.iter().map(|&l| l == 1).collect();
    let md = markdown.map(|m| markdown::render(dom, &page.cdom, &content, m));
    Ok((page.cdom.text_of(&content), md))
}

/// The article extractor's text, and its kept nodes as Markdown when asked for.
fn article_output(page: &PageAnalysis<'_>, markdown: Option<&MarkdownOptions>) -> (String, Option<String>) {
    let view = page.view(&ARTICLE.prune);
    let roots = article::article_roots(&view, &ARTICLE);
    let md = markdown.map(|m| view_markdown(&view, &roots, m));
    (view.text_of(&roots), md)
}

/// The list-view extractor's text, and its kept nodes as Markdown when asked for.
fn list_view_output_with_markdown(page: &PageAnalysis<'_>, markdown: Option<&MarkdownOptions>) -> (String, Option<String>) {
    let list = page.list();
    let text = list_view_output(&list.view, list.choice.as_ref(), &LIST_VIEW);
    let md = markdown.map(|m| {
        let roots = match &list.choice {
            Some(choice) => list_view::output_roots(&list.view, choice, &LIST_VIEW),
            None => vec![list.view.start()],
        };
        view_markdown(&list.view, &roots, m)
    });
    (text, md)
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

fn view_start(dom: &Dom) -> crate::dom::NodeId {
    dom.body().or_else(|| dom.html()).unwrap_or(crate::dom::DOCUMENT)
}

pub fn article_text(page: &PageAnalysis<'_>, profile: &ArticleProfile) -> String {
    let view = page.view(&profile.prune);
    view.text_of(&article::article_roots(&view, profile))
}

pub fn list_view_text(page: &PageAnalysis<'_>, profile: &ListViewProfile) -> String {
    let view = page.view(&profile.prune);
    let choice = list_view::choose(&view, profile);
    list_view_output(&view, choice.as_ref(), profile)
}

pub(crate) fn list_view_output(view: &View<'_>, choice: Option<&list_view::ListChoice>, profile: &ListViewProfile) -> String {
    match choice {
        Some(choice) => view.text_of(&list_view::output_roots(view, choice, profile)),
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
