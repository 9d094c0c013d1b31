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
pub mod web2text;

pub use all_text::all_text;
// The page analysis the extractors read, where it has always been found.
pub use crate::analyse::{ExtractLimits, Genre, ListAnalysis, PageAnalysis, PageError, genre, list_view, parse_page, profile, view};

use crate::classify::PAGE_TYPE_COUNT;
use crate::dom::{Dom, FOR_EXTRACTION, FOR_WEB2TEXT, Prepass};
use profile::{ARTICLE, ARTICLE_PAPER, ArticleProfile, LIST_VIEW, LIST_VIEW_PAPER, ListViewProfile};
use view::View;

/// The text and title taken from one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extraction {
    pub title: Option<String>,
    /// The language the page declares (`<html lang>`), as written.
    pub declared_language: Option<String>,
    pub text: String,
    /// The genre that chose the algorithm (`goce`, `oracle`), when one did.
    pub genre: Option<Genre>,
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
    /// Cut to at most `max_bytes` of text, at a character boundary.
    pub(crate) fn truncated(mut self, max_bytes: usize) -> Self {
        if self.text.len() > max_bytes {
            let mut cut = max_bytes;
            while !self.text.is_char_boundary(cut) {
                cut -= 1;
            }
            self.text.truncate(cut);
        }
        self
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

    /// Extracts with this algorithm. `genre`: the known genre of the page, which
    /// `goce` uses instead of its guess and `oracle` requires.
    pub fn extract(self, html: &str, genre: Option<Genre>, limits: &ExtractLimits) -> Result<Extraction, ExtractError> {
        self.extract_with(html, genre, None, limits)
    }

    /// [`Self::extract`] with the classifier's page-type probabilities, which `combined` reads.
    pub fn extract_with(
        self,
        html: &str,
        genre: Option<Genre>,
        page_types: Option<[f32; PAGE_TYPE_COUNT]>,
        limits: &ExtractLimits,
    ) -> Result<Extraction, ExtractError> {
        if self == Self::AllText {
            return all_text(html, limits);
        }
        let dom = parse_page(html, limits, self.prepass())?;
        let extraction = self.extract_page(&PageAnalysis::with_page_types(&dom, page_types), genre)?;
        Ok(extraction.truncated(limits.max_text_bytes))
    }

    /// Extracts from a page already parsed (with [`parse_page`]); `html` serves `all-text`.
    pub fn extract_parsed(self, html: &str, page: &PageAnalysis<'_>, genre: Option<Genre>, limits: &ExtractLimits) -> Result<Extraction, ExtractError> {
        if self == Self::AllText {
            return all_text(html, limits);
        }
        Ok(self.extract_page(page, genre)?.truncated(limits.max_text_bytes))
    }

    /// Extracts from a parsed page.
    pub fn extract_dom(self, dom: &Dom, genre: Option<Genre>) -> Result<Extraction, ExtractError> {
        self.extract_page(&PageAnalysis::new(dom), genre)
    }

    /// Extracts from a parsed page, reusing the analyses already made of it.
    pub fn extract_page(self, page: &PageAnalysis<'_>, genre: Option<Genre>) -> Result<Extraction, ExtractError> {
        let dom = page.dom;
        let title = dom.title();
        let (mut text, genre) = match self {
            Self::AllText => (page.view(&profile::PAPER_PRUNE).text_of(&[view_start(dom)]), None),
            Self::Article => (article_text(page, &ARTICLE), None),
            Self::ArticlePaper => (article_text(page, &ARTICLE_PAPER), None),
            Self::ListView => (list_view_output(&page.list().view, page.list().choice.as_ref(), &LIST_VIEW), None),
            Self::ListViewPaper => (list_view_text(page, &LIST_VIEW_PAPER), None),
            Self::Web2text => (web2text_text(dom)?, None),
            Self::Combined => {
                let model = combine::shared_model(None).map_err(|e| ExtractError::Model(e.to_string()))?;
                let mut table = model.table_of(page);
                if let Some(p) = page.page_types().and_then(|p| <&[f32; PAGE_TYPE_COUNT]>::try_from(p).ok()) {
                    table.set_page_types(p);
                }
                (model.text_of(&table), None)
            }
            Self::Goce | Self::Oracle | Self::GoceWeb2text => {
                if self == Self::Oracle && genre.is_none() {
                    return Err(ExtractError::NoGoldGenre);
                }
                let genre = genre.unwrap_or_else(|| genre::guess(page.list()));
                let text = match genre {
                    Genre::Article if self == Self::GoceWeb2text => web2text_text(dom)?,
                    Genre::Article => article_text(page, &ARTICLE),
                    Genre::ListView => list_view_output(&page.list().view, page.list().choice.as_ref(), &LIST_VIEW),
                };
                (text, Some(genre))
            }
        };
        if text.is_empty() {
            // A script-only page: its own summary is the only text it has.
            text = dom.description().unwrap_or_default();
        }
        Ok(Extraction { title, declared_language: dom.declared_language(), text, genre })
    }

    /// Whether this extractor can run without a gold genre.
    pub fn needs_gold_genre(self) -> bool {
        self == Self::Oracle
    }
}

fn web2text_text(dom: &Dom) -> Result<String, ExtractError> {
    let model = web2text::shared_model(None).map_err(|e| ExtractError::Model(e.to_string()))?;
    model.extract(dom).map_err(|e| ExtractError::Model(e.to_string()))
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

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    #[error("the page has more than {0} elements")]
    TooManyElements(usize),
    #[error("the page took longer than {0:?}")]
    TimeLimit(std::time::Duration),
    #[error("the HTML could not be parsed: {0}")]
    Parse(String),
    #[error("the oracle extractor needs the page's gold genre")]
    NoGoldGenre,
    #[error("{0}")]
    Model(String),
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
            Self::Model(_) => "model_error",
        }
    }
}
