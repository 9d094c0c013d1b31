//! Every heuristic of the extractors as named data: what is pruned before the
//! algorithms run, and the parameters of each algorithm. The `*-paper` extractors use
//! the paper's settings; the others the improved ones.

use html5ever::local_name;

use crate::dom::{Element, TagList};

/// What is removed from the page before an algorithm sees it.
#[derive(Debug, Clone, Copy)]
pub struct PruneRules {
    /// Elements dropped with their subtree, by tag.
    pub tags: &'static TagList,
    /// Page chrome dropped by tag like the class rules below, so under their share
    /// guard (ASP.NET pages wrap the whole body in a `<form>`).
    pub chrome_tags: &'static TagList,
    /// Drop elements marked hidden (`hidden`, `aria-hidden="true"`, inline
    /// `display:none` / `visibility:hidden`).
    pub hidden: bool,
    /// ... unless the hidden element holds more than this share of the page's readable
    /// words: pages that a script reveals (anti-flicker and "lockdown" wrappers, deferred
    /// product blocks) hide their main content until it runs (1.0 = always drop).
    pub max_hidden_share: f64,
    /// Class or id words that mark boilerplate widgets (matched against the words of
    /// the attribute split at `-`, `_` and spaces).
    pub boilerplate_words: &'static [&'static [&'static str]],
    /// A class/id rule (and a chrome tag) never removes a subtree holding more than
    /// this share of the page's readable words (guards against
    /// `class="content has-sidebar"`; measured best: 0.1 for articles, 0.2 for list pages, README).
    pub max_dropped_share: f64,
    /// Blocks whose words are at least this share link text are link lists (menus,
    /// tag clouds, "related" boxes) and are dropped like chrome (1.0 = off).
    pub max_link_density: f64,
    /// ... when they hold at least this many words.
    pub link_block_min_words: u32,
    /// In the output, a line of at least this many words that already appeared is left
    /// out (0 = off): responsive copies, cloned carousel slides, per-item controls.
    pub repeated_line_min_words: usize,
}

static NO_TAGS: TagList = TagList::new(&[]);

/// Tags no extractor ever reads (MathML's `annotation` and `annotation-xml` hold a
/// formula's source, which a browser never shows).
static NEVER_TEXT: TagList = TagList::new(&["script", "style", "template", "head", "title", "meta", "link", "annotation", "annotation-xml"]);

pub(crate) fn always_dropped(e: &Element) -> bool {
    NEVER_TEXT.contains(&e.name.local)
}

impl PruneRules {
    pub(crate) fn drops_by_tag(&self, e: &Element) -> bool {
        always_dropped(e) || self.tags.contains(&e.name.local)
    }

    pub(crate) fn drops_as_hidden(&self, e: &Element) -> bool {
        self.hidden && is_hidden(e)
    }

    /// Chrome tags and boilerplate class/id/role words; `names` is `self.names()`, built
    /// once per page.
    pub(crate) fn drops_by_name(&self, e: &Element, names: &BoilerplateNames) -> bool {
        if self.chrome_tags.contains(&e.name.local) {
            return true;
        }
        if names.is_empty() || matches!(e.tag(), "body" | "html" | "main" | "article") {
            return false;
        }
        e.attrs.iter().any(|(name, value)| {
            (*name == local_name!("class") || *name == local_name!("id") || *name == local_name!("role"))
                && value.as_bytes().split(|b| !b.is_ascii_alphanumeric()).any(|w| names.contains(w))
        })
    }

    pub(crate) fn names(&self) -> BoilerplateNames {
        BoilerplateNames::new(self.boilerplate_words)
    }
}

/// The boilerplate words as a set, matched without regard to ASCII case. Checking every
/// word of every class against each list in turn was 3.4% of a `process` profile.
pub(crate) struct BoilerplateNames {
    words: foldhash::HashSet<&'static [u8]>,
    min_len: usize,
    max_len: usize,
    /// Per word length, a bit for each first letter some word of that length has: most
    /// class words are no boilerplate word, and this turns them away before hashing.
    first_letters: [u32; Self::MAX_WORD + 1],
}

impl BoilerplateNames {
    /// Longer words are never looked up (class words are lower-cased on the stack).
    const MAX_WORD: usize = 32;

    fn new(lists: &[&[&'static str]]) -> Self {
        let words: foldhash::HashSet<&'static [u8]> = lists.iter().flat_map(|l| l.iter()).map(|w| w.as_bytes()).filter(|w| w.len() <= Self::MAX_WORD).collect();
        debug_assert!(words.iter().all(|w| !w.iter().any(u8::is_ascii_uppercase)), "boilerplate words are lower case");
        let min_len = words.iter().map(|w| w.len()).min().unwrap_or(0);
        let max_len = words.iter().map(|w| w.len()).max().unwrap_or(0);
        let mut first_letters = [0u32; Self::MAX_WORD + 1];
        for w in &words {
            first_letters[w.len()] |= Self::letter_bit(w[0]);
        }
        Self { words, min_len, max_len, first_letters }
    }

    /// A bit per ASCII letter (either case); other bytes share the last bit.
    fn letter_bit(b: u8) -> u32 {
        let b = b.to_ascii_lowercase();
        if b.is_ascii_lowercase() { 1 << (b - b'a') } else { 1 << 31 }
    }

    fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    fn contains(&self, word: &[u8]) -> bool {
        let n = word.len();
        if n < self.min_len.max(1) || n > self.max_len || self.first_letters[n] & Self::letter_bit(word[0]) == 0 {
            return false;
        }
        let mut lower = [0u8; Self::MAX_WORD];
        lower[..n].copy_from_slice(word);
        lower[..n].make_ascii_lowercase();
        self.words.contains(&lower[..n])
    }
}

/// Class names that CSS frameworks hide (Bootstrap, Tailwind, Foundation, WordPress's
/// screen-reader text), matched as whole class tokens.
const HIDDEN_CLASSES: &[&str] = &["hide", "hidden", "d-none", "is-hidden", "invisible", "visually-hidden", "sr-only", "screen-reader-text"];

/// A hidden class with a responsive "show" beside it (`hidden md:block`,
/// `d-none d-lg-flex`) hides the element on small screens only.
fn shown_at_some_width(token: &str) -> bool {
    let display = token.rsplit([':', '-']).next().unwrap_or_default();
    (token.contains(':') || (token.starts_with("d-") && token != "d-none")) && matches!(display, "block" | "flex" | "grid" | "inline" | "table" | "contents")
}

fn is_hidden(e: &Element) -> bool {
    // One pass over the attributes: this runs for every element of every page.
    e.attrs.iter().any(|(name, value)| match *name {
        local_name!("hidden") => true,
        local_name!("aria-hidden") => value.trim().eq_ignore_ascii_case("true"),
        local_name!("class") => value.split_ascii_whitespace().any(|t| HIDDEN_CLASSES.contains(&t)) && !value.split_ascii_whitespace().any(shown_at_some_width),
        local_name!("style") => hides_by_style(value),
        _ => false,
    })
}

/// Inline `display: none` or `visibility: hidden`, in any case and spacing.
fn hides_by_style(style: &str) -> bool {
    let mentions = |word: &[u8]| style.as_bytes().windows(word.len()).any(|w| w.eq_ignore_ascii_case(word));
    if !mentions(b"none") && !mentions(b"hidden") {
        return false;
    }
    let style: String = style.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    style.contains("display:none") || style.contains("visibility:hidden")
}

/// The paper's pre-processing: the text of an element is what a browser's text
/// getter returns, so only scripts, styles and templates are left out.
pub const PAPER_PRUNE: PruneRules = PruneRules {
    tags: &NO_TAGS,
    chrome_tags: &NO_TAGS,
    hidden: false,
    max_hidden_share: 1.0,
    boilerplate_words: &[],
    max_dropped_share: 1.0,
    max_link_density: 1.0,
    link_block_min_words: 0,
    repeated_line_min_words: 0,
};

/// Widgets that are boilerplate on every kind of page. Left out on purpose, measured
/// (README): "widget" (Elementor, on millions of WordPress sites, classes every block
/// `elementor-widget`, so the rule removed whole pages block by block) and "cmp"
/// (Adobe Experience Manager's core components are all `cmp-*`).
const WIDGETS: &[&str] = &[
    "cookie", "cookies", "consent", "gdpr", "banner", "share", "sharing", "social", "newsletter", "subscribe", "subscription", "signup", "breadcrumb",
    "breadcrumbs", "advert", "advertisement", "adslot", "sponsored", "promo", "popup", "modal", "overlay", "sidebar", "skip", "menu", "navbar", "nav",
    "navigation", "footer", "masthead", "toolbar", "related", "recommended", "trending", "outbrain", "taboola", "print", "login", "tags", "tagcloud",
    "pagination", "pager",
];

/// Article pages only: comment and review sections, which WCXB's gold leaves out of
/// articles and product pages, and search boxes. On list pages "search" names the
/// results (`search-results`), and the results are the content.
const ARTICLE_ONLY_WIDGETS: &[&str] = &["comment", "comments", "disqus", "respond", "replies", "reviews", "search"];

/// Page chrome, controls and embedded objects: never main text.
static CONTROL_TAGS: TagList = TagList::new(&[
    "nav", "footer", "aside", "svg", "math", "iframe", "object", "embed", "canvas", "select", "button", "input", "textarea", "option", "datalist",
]);

/// Usually boilerplate (a login or search form, a dialog), but some sites wrap the whole
/// page in one: guarded by the share rule.
static CHROME_TAGS: TagList = TagList::new(&["dialog", "form"]);

/// Measured on the tuning part of WCXB-dev (README).
const HIDDEN_CONTENT_SHARE: f64 = 0.3;
/// Measured on the tuning part of WCXB-dev (README): 1 also drops one-word lines that
/// repeat for good reason (a price, "Yes" in a table) for no gain.
const REPEATED_LINE_MIN_WORDS: usize = 2;

pub const ARTICLE_PRUNE: PruneRules = PruneRules {
    tags: &CONTROL_TAGS,
    chrome_tags: &CHROME_TAGS,
    hidden: true,
    max_hidden_share: HIDDEN_CONTENT_SHARE,
    boilerplate_words: &[WIDGETS, ARTICLE_ONLY_WIDGETS],
    max_dropped_share: 0.1,
    max_link_density: 0.85,
    link_block_min_words: 10,
    repeated_line_min_words: REPEATED_LINE_MIN_WORDS,
};

pub const LIST_VIEW_PRUNE: PruneRules = PruneRules {
    tags: &CONTROL_TAGS,
    chrome_tags: &CHROME_TAGS,
    hidden: true,
    max_hidden_share: HIDDEN_CONTENT_SHARE,
    boilerplate_words: &[WIDGETS],
    max_dropped_share: 0.2,
    max_link_density: 1.0,
    link_block_min_words: 0,
    repeated_line_min_words: REPEATED_LINE_MIN_WORDS,
};

/// Algorithm 1 (article) settings.
#[derive(Debug, Clone, Copy)]
pub struct ArticleProfile {
    pub prune: PruneRules,
    /// Children without text take no part in the standard deviation (the paper counts them).
    pub ignore_empty_children: bool,
    /// Descend into the longest child only if it holds at least this share of the
    /// node's words (0 = the paper's rule alone).
    pub min_child_share: f64,
    /// Never descend into these: the text is split across them (paragraph-level blocks).
    pub stop_at: &'static [&'static str],
    /// Never descend into a child that has at least this many siblings of its own tag
    /// and first class: it is one item of a list, and the list is the content (0 = off).
    pub stop_at_repeated: usize,
    /// When descending, keep the paragraphs (tags in `stop_at`) left beside the path
    /// that have at least this many words: an intro paragraph next to the body's
    /// container is content too (0 = off, the paper).
    pub sibling_paragraph_words: u32,
}

pub const ARTICLE_PAPER: ArticleProfile =
    ArticleProfile { prune: PAPER_PRUNE, ignore_empty_children: false, min_child_share: 0.0, stop_at: &[], stop_at_repeated: 0, sibling_paragraph_words: 0 };

pub const ARTICLE: ArticleProfile = ArticleProfile {
    prune: ARTICLE_PRUNE,
    ignore_empty_children: true,
    min_child_share: 0.5,
    stop_at: &["p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "pre", "table", "tr", "dd", "figure", "ul", "ol"],
    stop_at_repeated: 2,
    sibling_paragraph_words: 12,
};

/// Algorithm 2 (list-view) settings.
#[derive(Debug, Clone, Copy)]
pub struct ListViewProfile {
    pub prune: PruneRules,
    /// n: candidates ranked by R that compete on average text length.
    pub top_n: usize,
    /// The key of an element: (depth, class) in the paper; the improved key adds the
    /// tag and keeps only the first class word, so `card card--featured` joins `card`.
    pub key: ListKey,
    /// Elements without a class take part (the paper: yes, under the empty class).
    pub classless: bool,
    /// A candidate needs at least this many occurrences.
    pub min_occurrences: u32,
    /// Output the smallest element holding every chosen item (intro, headings and
    /// items the key missed come with it) instead of the items alone, when that
    /// element's words are at most this multiple of the items' words.
    pub container_slack: f64,
    /// Then climb from that element to its parent while the parent has at most this
    /// multiple of its words (an intro paragraph or a heading just outside the list
    /// comes along; a page's chrome does not). 1.0 = no climbing, measured best once
    /// list pages got their own share guard (README).
    pub climb_slack: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKey {
    DepthClass,
    DepthTagFirstClass,
}

pub const LIST_VIEW_PAPER: ListViewProfile =
    ListViewProfile { prune: PAPER_PRUNE, top_n: 15, key: ListKey::DepthClass, classless: true, min_occurrences: 1, container_slack: 0.0, climb_slack: 1.0 };

pub const LIST_VIEW: ListViewProfile = ListViewProfile {
    prune: LIST_VIEW_PRUNE,
    top_n: 40,
    key: ListKey::DepthTagFirstClass,
    classless: true,
    min_occurrences: 2,
    container_slack: 100.0,
    climb_slack: 1.0,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::view::View;
    use crate::dom::Dom;

    fn kept_words(html: &str, rules: &PruneRules) -> u32 {
        let dom = Dom::parse_unbounded(html);
        let view = View::new(&dom, rules);
        view.words[view.start()]
    }

    #[test]
    fn page_builder_blocks_named_widget_are_content() {
        let block = |i: usize| {
            format!(
                r#"<div class="elementor-element elementor-widget elementor-widget-text-editor"><p>Paragraph {i} of the course description, with enough words to count.</p></div>"#
            )
        };
        let html = format!("<body><main>{}</main></body>", (0..12).map(block).collect::<String>());
        assert_eq!(kept_words(&html, &ARTICLE_PRUNE), 12 * 11);
    }

    #[test]
    fn a_hidden_wrapper_holding_most_of_the_page_is_kept_a_hidden_popup_is_not() {
        // Shopify "lockdown" apps and anti-flicker snippets hide the content until a script runs.
        let content = format!("<p>{}</p>", "product ".repeat(200));
        let popup = format!(r#"<div style="display: none">{}</div>"#, "Subscribe to our newsletter today ".repeat(4));
        let page = format!(r#"<body><h1>Coffee</h1>{popup}<div class="lockdown" style="display:none">{content}</div></body>"#);
        assert_eq!(kept_words(&page, &ARTICLE_PRUNE), 1 + 200);
        assert_eq!(kept_words(&page, &LIST_VIEW_PRUNE), 1 + 200);
    }

    #[test]
    fn framework_hidden_classes_hide_unless_shown_at_some_width() {
        let words = "one two three four five";
        let page = |class: &str| format!(r#"<body><p>{}</p><div class="{class}">{words}</div></body>"#, "text ".repeat(100));
        for hidden in ["hide", "productView-info hide", "d-none", "sr-only", "hidden"] {
            assert_eq!(kept_words(&page(hidden), &ARTICLE_PRUNE), 100, "{hidden}");
        }
        for shown in ["hidden md:block", "d-none d-lg-flex", "hide-on-mobile", "hiddenish"] {
            assert_eq!(kept_words(&page(shown), &ARTICLE_PRUNE), 105, "{shown}");
        }
    }

    #[test]
    fn search_is_boilerplate_on_article_pages_only() {
        let results: String = (0..10).map(|i| format!("<li>Result {i} title and its snippet</li>")).collect();
        let page =
            format!(r#"<body><div class="search-box">Search the site</div><p>{}</p><ol class="search-results">{results}</ol></body>"#, "words ".repeat(300));
        let all = kept_words(&page, &PAPER_PRUNE);
        assert_eq!(kept_words(&page, &LIST_VIEW_PRUNE), all);
        assert_eq!(kept_words(&page, &ARTICLE_PRUNE), all - 3);
    }
}
