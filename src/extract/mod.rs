//! Stage 5, extraction: a page's HTML → its title and text.
//!
//! The extractor is chosen per run (`--extractor`); later the page genre chooses it.

mod all_text;

pub use all_text::all_text;

/// The text and title taken from one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extraction {
    pub title: Option<String>,
    pub text: String,
}

/// The extraction algorithms goce-warc offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Extractor {
    /// Every visible text node, block elements on their own lines.
    AllText,
}

impl Extractor {
    /// The name written to the `extractor` column.
    pub fn name(self) -> &'static str {
        match self {
            Self::AllText => "all-text",
        }
    }

    pub fn extract(self, html: &str, limits: &ExtractLimits) -> Result<Extraction, ExtractError> {
        match self {
            Self::AllText => all_text(html, limits),
        }
    }
}

/// Bounds on the work done for one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ExtractLimits {
    /// Output text is cut at this many bytes (at a character boundary).
    pub max_text_bytes: usize,
    /// Pages with more elements are skipped.
    pub max_elements: usize,
    /// Pages that take longer are abandoned and skipped.
    pub max_page_time: std::time::Duration,
}

impl Default for ExtractLimits {
    fn default() -> Self {
        Self { max_text_bytes: 4 << 20, max_elements: 200_000, max_page_time: std::time::Duration::from_secs(2) }
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
}

impl ExtractError {
    pub fn name(&self) -> &'static str {
        match self {
            Self::TooManyElements(_) => "too_many_elements",
            Self::TimeLimit(_) => "page_time_limit",
            Self::Parse(_) => "html_parse_error",
        }
    }
}
