//! Stage 3b, page analysis: what several later stages read about a parsed page, made
//! once. The pruned views of the DOM ([`view`], under the profiles of [`profile`]) and
//! GOCE's Algorithm 2 ([`list_view`]), whose choice serves the classifier's features, the
//! genre guess ([`genre`]) and the extractors alike.

pub mod genre;
pub mod list_view;
pub mod profile;
pub mod view;

use std::cell::OnceCell;
use std::sync::Arc;
use std::time::Instant;

pub use genre::Genre;

use crate::dom::{Dom, DomError, DomLimits, Prepass};
use profile::{LIST_VIEW, PruneRules};
use view::{PageCounts, View};

/// Parses a page within the extraction limits after `prepass`: [`crate::dom::FOR_RENDERING`] keeps
/// what every stage reads, `Extractor::prepass` only what one extractor does.
pub fn parse_page(html: &str, limits: &ExtractLimits, prepass: &Prepass) -> Result<Dom, PageError> {
    let deadline = Instant::now().checked_add(limits.max_page_time);
    let dom_limits = DomLimits { max_elements: limits.max_elements, deadline };
    Dom::parse_with(html, dom_limits, prepass).map_err(|e| match e {
        DomError::TooManyElements(n) => PageError::TooManyElements(n),
        DomError::TimeLimit => PageError::TimeLimit(limits.max_page_time),
    })
}

/// A page over the limits of [`ExtractLimits`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    #[error("the page has more than {0} elements")]
    TooManyElements(usize),
    #[error("the page took longer than {0:?}")]
    TimeLimit(std::time::Duration),
}

impl PageError {
    /// The reason counted in the run's summary (the same names as `ExtractError`'s).
    pub fn name(&self) -> &'static str {
        match self {
            Self::TooManyElements(_) => "too_many_elements",
            Self::TimeLimit(_) => "page_time_limit",
        }
    }
}

/// A parsed page with the analyses that several stages read, each made on first use:
/// Algorithm 2 under the improved list-view profile serves the `goce` genre guess, the
/// classifier's features and the list-view extractor, so a page under `goce` with the
/// classifier runs it once instead of twice.
pub struct PageAnalysis<'d> {
    pub dom: &'d Dom,
    counts: OnceCell<Arc<PageCounts>>,
    list: OnceCell<ListAnalysis<'d>>,
}

/// Algorithm 2 on a page: its pruned view and the id it chose.
pub struct ListAnalysis<'d> {
    pub view: View<'d>,
    pub choice: Option<list_view::ListChoice>,
}

impl<'d> PageAnalysis<'d> {
    pub fn new(dom: &'d Dom) -> Self {
        Self { dom, counts: OnceCell::new(), list: OnceCell::new() }
    }

    /// The word counts every view of the page shares.
    pub fn counts(&self) -> Arc<PageCounts> {
        Arc::clone(self.counts.get_or_init(|| Arc::new(PageCounts::new(self.dom))))
    }

    /// A pruned view of the page under `rules`.
    pub fn view(&self, rules: &PruneRules) -> View<'d> {
        View::with_counts(self.dom, self.counts(), rules)
    }

    /// Algorithm 2 with the `LIST_VIEW` profile.
    pub fn list(&self) -> &ListAnalysis<'d> {
        self.list.get_or_init(|| {
            let view = self.view(&LIST_VIEW.prune);
            let choice = list_view::choose(&view, &LIST_VIEW);
            ListAnalysis { view, choice }
        })
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
