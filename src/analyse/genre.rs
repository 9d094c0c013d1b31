//! The two GOCE genres, and a guess at them from HTML structure alone, which `goce`
//! uses when no classifier runs (`--classifier none`): a page is list-view when
//! Algorithm 2 finds a repeated element that holds much of the page's text in short items.

use super::ListAnalysis;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Genre {
    Article,
    ListView,
}

impl crate::choice::Choice for Genre {
    const ALL: &'static [Self] = &[Self::Article, Self::ListView];

    fn name(self) -> &'static str {
        Genre::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            Self::Article => "One main text: news, blogs, documentation, a product or a service page",
            Self::ListView => "Repeated items: forums, listings, product grids, search results",
        }
    }
}

impl Genre {
    pub fn name(self) -> &'static str {
        match self {
            Self::Article => "article",
            Self::ListView => "list-view",
        }
    }

    /// WCXB page type → genre (list-view = forum, listing, collection/category).
    pub fn of_page_type(page_type: &str) -> Self {
        match page_type {
            "forum" | "listing" | "collection" | "category" => Self::ListView,
            _ => Self::Article,
        }
    }
}

/// The thresholds of the HTML-feature guess.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct GuessRules {
    pub min_items: u32,
    /// The items' share of the words under `<body>`.
    pub min_share: f64,
    /// Items longer than this on average are paragraphs of an article.
    pub max_item_words: f64,
}

pub const GUESS: GuessRules = GuessRules { min_items: 5, min_share: 0.3, max_item_words: 60.0 };

/// The guess from Algorithm 2's analysis of the page under the `LIST_VIEW` profile.
pub fn guess(list: &ListAnalysis<'_>) -> Genre {
    let total = f64::from(list.view.words[list.view.start()].max(1));
    match &list.choice {
        Some(choice)
            if choice.occurrences >= GUESS.min_items && choice.words as f64 / total >= GUESS.min_share && choice.average_words() <= GUESS.max_item_words =>
        {
            Genre::ListView
        }
        _ => Genre::Article,
    }
}
