//! Cheap features of a page: the GOCE paper's 11 HTML features (section 4.2), which the
//! `html-features` baseline uses alone, and more that the ResNet's head fuses with the
//! picture: structural counts, Algorithm 2's list statistics, schema.org / Open Graph
//! types, prices, and the URL's shape and words. The word lists are ordinary web
//! conventions (data, [`URL_WORDS`]), not learned from any dataset.

use foldhash::HashMap;
use html5ever::local_name;

use super::words::{WordBag, WordModel};
use crate::analyse::{ListAnalysis, PageAnalysis};
use crate::dom::{DOCUMENT, Dom, NodeData, TagList};
use crate::page::language::ascii_word_count;

/// One feature: its name and whether the paper defines it.
pub struct FeatureDef {
    pub name: &'static str,
    pub paper: bool,
}

/// The feature vector's layout. The paper's 11 come first, in its order.
pub const FEATURES: &[FeatureDef] = &[
    FeatureDef { name: "text_length", paper: true },
    FeatureDef { name: "repeated_clusters", paper: true },
    FeatureDef { name: "repeated_elements", paper: true },
    FeatureDef { name: "image_urls", paper: true },
    FeatureDef { name: "periods", paper: true },
    FeatureDef { name: "commas", paper: true },
    FeatureDef { name: "semicolons", paper: true },
    FeatureDef { name: "colons", paper: true },
    FeatureDef { name: "question_marks", paper: true },
    FeatureDef { name: "exclamation_marks", paper: true },
    FeatureDef { name: "digits", paper: true },
    FeatureDef { name: "links", paper: false },
    FeatureDef { name: "link_text_share", paper: false },
    FeatureDef { name: "list_items", paper: false },
    FeatureDef { name: "paragraphs", paper: false },
    FeatureDef { name: "words_per_paragraph", paper: false },
    FeatureDef { name: "headings", paper: false },
    FeatureDef { name: "form_controls", paper: false },
    FeatureDef { name: "code_blocks", paper: false },
    FeatureDef { name: "table_cells", paper: false },
    FeatureDef { name: "time_elements", paper: false },
    FeatureDef { name: "largest_cluster_share", paper: false },
    FeatureDef { name: "list_items_chosen", paper: false },
    FeatureDef { name: "list_word_share", paper: false },
    FeatureDef { name: "list_item_words", paper: false },
    FeatureDef { name: "meta_article", paper: false },
    FeatureDef { name: "meta_product", paper: false },
    FeatureDef { name: "meta_list", paper: false },
    FeatureDef { name: "meta_discussion", paper: false },
    FeatureDef { name: "prices", paper: false },
    FeatureDef { name: "url_depth", paper: false },
    FeatureDef { name: "url_query", paper: false },
    FeatureDef { name: "url_article", paper: false },
    FeatureDef { name: "url_forum", paper: false },
    FeatureDef { name: "url_product", paper: false },
    FeatureDef { name: "url_collection", paper: false },
    FeatureDef { name: "url_listing", paper: false },
    FeatureDef { name: "url_documentation", paper: false },
    FeatureDef { name: "url_service", paper: false },
];

/// Words of a URL's path and query that hint at a page type, one list per type in the
/// order of the `url_*` features. A four-digit year counts as `article`.
pub const URL_WORDS: [&[&str]; 7] = [
    &["news", "blog", "blogs", "article", "articles", "story", "stories", "post", "posts", "opinion"],
    &[
        "forum", "forums", "thread", "threads", "topic", "topics", "community", "discussion", "discussions", "questions", "viewtopic", "showthread", "board",
        "boards", "comments",
    ],
    &["product", "products", "item", "items", "dp", "sku", "buy", "p"],
    &["category", "categories", "collection", "collections", "shop", "catalog", "catalogue", "department", "browse", "c"],
    &["search", "list", "listing", "listings", "results", "tag", "tags", "archive", "archives", "jobs", "q", "page"],
    &["docs", "doc", "documentation", "api", "reference", "manual", "guide", "guides", "wiki", "kb", "tutorial", "learn"],
    &["help", "support", "contact", "about", "login", "signin", "signup", "account", "pricing", "faq", "terms", "privacy", "services", "service", "careers"],
];

/// schema.org / Open Graph type words, by family (article, product, list, discussion).
const META_TYPES: [&[&str]; 4] = [
    &["article", "newsarticle", "blogposting", "report", "techarticle", "scholarlyarticle"],
    &["product", "offer", "aggregateoffer", "og:product", "product.item"],
    &["itemlist", "collectionpage", "searchresultspage", "offercatalog"],
    &["discussionforumposting", "qapage", "question", "comment", "socialmediaposting"],
];

pub const FEATURE_COUNT: usize = FEATURES.len();
/// The paper's features are the first this many.
pub const PAPER_FEATURE_COUNT: usize = 11;

/// Features as model input: counts are log1p-scaled, shares stay in [0, 1]; and, for
/// the classifiers that read them, the page's words.
#[derive(Debug, Clone, PartialEq)]
pub struct Features {
    pub values: [f32; FEATURE_COUNT],
    /// Empty unless asked for ([`Features::with_words`]).
    pub words: WordBag,
}

impl Features {
    /// The features of a parsed page fetched from `url` (empty when unknown), words included.
    pub fn of(dom: &Dom, url: &str) -> Self {
        Self::of_page(&PageAnalysis::new(dom), url).with_words(dom, url)
    }

    /// Adds the page's words (the ResNet's word model reads them; html-features does not).
    pub fn with_words(self, dom: &Dom, url: &str) -> Self {
        Self { words: WordBag::of(dom, url), ..self }
    }

    /// Adds the page's words that `model` knows, which is all its scores read.
    pub fn with_known_words(self, dom: &Dom, url: &str, model: &WordModel) -> Self {
        Self { words: WordBag::of_known(dom, url, model), ..self }
    }

    /// The counts alone, reusing (or leaving for the extractors) the page's list-view analysis.
    pub fn of_page(page: &PageAnalysis<'_>, url: &str) -> Self {
        let dom = page.dom;
        let mut counts = Counts::default();
        let mut clusters: HashMap<u64, u32> = HashMap::default();
        walk(dom, &mut counts, &mut clusters);
        let repeated: Vec<u32> = clusters.values().copied().filter(|&n| n >= 2).collect();
        let repeated_elements: u32 = repeated.iter().sum();
        let largest = repeated.iter().copied().max().unwrap_or(0);
        let log = |n: f64| (n.max(0.0) + 1.0).ln() as f32;
        let share = |part: f64, whole: f64| if whole > 0.0 { (part / whole).clamp(0.0, 1.0) as f32 } else { 0.0 };
        let words_per_paragraph = if counts.paragraphs > 0 { counts.paragraph_words as f64 / counts.paragraphs as f64 } else { 0.0 };
        let ListAnalysis { view, choice } = page.list();
        let body_words = f64::from(view.words[view.start()]);
        let (list_items, list_share, list_item_words) = match choice {
            Some(c) => (f64::from(c.occurrences), share(c.words as f64, body_words), c.average_words()),
            None => (0.0, 0.0, 0.0),
        };
        let flag = |b: bool| if b { 1.0f32 } else { 0.0 };
        let url = UrlShape::of(url);
        let values = [
            log(counts.text_chars as f64),
            log(repeated.len() as f64),
            log(f64::from(repeated_elements)),
            log(counts.images as f64),
            log(counts.punctuation[0] as f64),
            log(counts.punctuation[1] as f64),
            log(counts.punctuation[2] as f64),
            log(counts.punctuation[3] as f64),
            log(counts.punctuation[4] as f64),
            log(counts.punctuation[5] as f64),
            log(counts.digits as f64),
            log(counts.links as f64),
            share(counts.link_chars as f64, counts.text_chars as f64),
            log(counts.list_items as f64),
            log(counts.paragraphs as f64),
            log(words_per_paragraph),
            log(counts.headings as f64),
            log(counts.form_controls as f64),
            log(counts.code_blocks as f64),
            log(counts.table_cells as f64),
            log(counts.times as f64),
            share(f64::from(largest), counts.elements as f64),
            log(list_items),
            list_share,
            log(list_item_words),
            flag(counts.meta[0]),
            flag(counts.meta[1]),
            flag(counts.meta[2]),
            flag(counts.meta[3]),
            log(counts.prices as f64),
            log(url.depth as f64),
            flag(url.query),
            flag(url.words[0]),
            flag(url.words[1]),
            flag(url.words[2]),
            flag(url.words[3]),
            flag(url.words[4]),
            flag(url.words[5]),
            flag(url.words[6]),
        ];
        Self { values, words: WordBag::default() }
    }

    /// The paper's 11 features alone.
    pub fn paper(&self) -> &[f32] {
        &self.values[..PAPER_FEATURE_COUNT]
    }
}

#[derive(Default)]
struct Counts {
    elements: u64,
    text_chars: u64,
    link_chars: u64,
    /// . , ; : ? !
    punctuation: [u64; 6],
    digits: u64,
    images: u64,
    links: u64,
    list_items: u64,
    paragraphs: u64,
    paragraph_words: u64,
    headings: u64,
    form_controls: u64,
    code_blocks: u64,
    table_cells: u64,
    times: u64,
    /// schema.org / Open Graph type families seen (article, product, list, discussion).
    meta: [bool; 4],
    /// Amounts of money in the text ("$12", "12,99 €").
    prices: u64,
}

struct UrlShape {
    depth: usize,
    query: bool,
    words: [bool; 7],
}

impl UrlShape {
    fn of(url: &str) -> Self {
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        let path_and_query = rest.find('/').map_or("", |i| &rest[i..]);
        let (path, query) = path_and_query.split_once('?').map_or((path_and_query, ""), |(p, q)| (p, q));
        let path = path.split('#').next().unwrap_or(path);
        let depth = path.split('/').filter(|s| !s.is_empty()).count();
        let lower = format!("{path} {query}").to_ascii_lowercase();
        let mut words = [false; 7];
        for word in lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
            for (family, list) in URL_WORDS.iter().enumerate() {
                words[family] |= list.contains(&word);
            }
            words[0] |= word.len() == 4 && (word.starts_with("19") || word.starts_with("20")) && word.bytes().all(|b| b.is_ascii_digit());
        }
        Self { depth, query: !query.is_empty(), words }
    }
}

/// Marks the schema.org / Open Graph families that `value` (an itemtype URL or og:type) names.
fn note_meta_type(meta: &mut [bool; 4], value: &str) {
    for part in value.split_whitespace() {
        let last = part.rsplit('/').next().unwrap_or(part).to_ascii_lowercase();
        for (family, names) in META_TYPES.iter().enumerate() {
            meta[family] |= names.contains(&last.as_str());
        }
    }
}

const CURRENCY_SIGNS: &[char] = &['$', '€', '£', '¥', '₹'];

/// Counts amounts of money: a currency sign next to a digit (either side, one space allowed).
fn count_prices(text: &str) -> u64 {
    let chars: Vec<char> = text.chars().collect();
    let digit_at = |i: Option<usize>| i.and_then(|i| chars.get(i)).is_some_and(char::is_ascii_digit);
    let mut n = 0;
    for (i, c) in chars.iter().enumerate() {
        if CURRENCY_SIGNS.contains(c) {
            let after = digit_at(Some(i + 1)) || (chars.get(i + 1) == Some(&' ') && digit_at(Some(i + 2)));
            let before = digit_at(i.checked_sub(1)) || (i >= 2 && chars[i - 1] == ' ' && digit_at(Some(i - 2)));
            n += u64::from(after || before);
        }
    }
    n
}

/// What an ASCII byte is to [`count_text`]: another character (0), one of the six
/// punctuation marks in `Counts::punctuation`'s order (1 to 6), a digit (7), the dollar
/// sign (8), or white space as `char::is_whitespace` has it (9).
const ASCII_CLASSES: [u8; 128] = {
    let mut classes = [0u8; 128];
    let punctuation = *b".,;:?!";
    let mut i = 0;
    while i < punctuation.len() {
        classes[punctuation[i] as usize] = i as u8 + 1;
        i += 1;
    }
    let mut digit = b'0';
    while digit <= b'9' {
        classes[digit as usize] = 7;
        digit += 1;
    }
    classes[b'$' as usize] = 8;
    let spaces = *b"\t\n\x0b\x0c\r ";
    let mut i = 0;
    while i < spaces.len() {
        classes[spaces[i] as usize] = 9;
        i += 1;
    }
    classes
};

/// Counts a text's punctuation and digits into `counts`; returns its characters that are
/// not white space and whether it has a currency sign. One pass: the text is most of what
/// the walk reads, and an ASCII byte (most of them) adds one to its class's count without
/// a branch on what it is.
fn count_text(text: &str, counts: &mut Counts) -> (u64, bool) {
    let (mut classes, mut ascii) = ([0u64; 10], 0u64);
    let (mut chars, mut money) = (0u64, false);
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        if let Some(&class) = ASCII_CLASSES.get(usize::from(byte)) {
            classes[usize::from(class)] += 1;
            ascii += 1;
            at += 1;
            continue;
        }
        // A character beyond ASCII starts here (`at` always sits on a character's first byte).
        let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) else { break };
        chars += u64::from(!c.is_whitespace());
        money |= CURRENCY_SIGNS.contains(&c);
        at += c.len_utf8();
    }
    for (count, class) in counts.punctuation.iter_mut().zip(&classes[1..7]) {
        *count += class;
    }
    counts.digits += classes[7];
    money |= classes[8] > 0;
    (chars + ascii - classes[9], money)
}

/// Tags whose text is not shown: the word bag's, less `svg` (the page features were trained
/// counting an inline SVG's text).
static HIDDEN: TagList = TagList::without(super::words::HIDDEN_TEXT, &["svg"]);

fn walk(dom: &Dom, counts: &mut Counts, clusters: &mut HashMap<u64, u32>) {
    // (node, inside a link, inside hidden text)
    let mut stack = vec![(DOCUMENT, false, false)];
    while let Some((id, in_link, hidden)) = stack.pop() {
        let node = &dom.nodes[id];
        match &node.data {
            NodeData::Text(text) if !hidden => {
                let (chars, money) = count_text(text, counts);
                counts.text_chars += chars;
                if money {
                    counts.prices += count_prices(text);
                }
                if in_link {
                    counts.link_chars += chars;
                }
            }
            NodeData::Element(element) => {
                counts.elements += 1;
                let tag = element.tag();
                if let Some(itemtype) = element.get(&local_name!("itemtype")) {
                    note_meta_type(&mut counts.meta, itemtype);
                }
                if element.is(&local_name!("meta")) && element.get(&local_name!("property")).is_some_and(|p| p.eq_ignore_ascii_case("og:type")) {
                    note_meta_type(&mut counts.meta, element.get(&local_name!("content")).unwrap_or(""));
                }
                match tag {
                    "img" if element.get(&local_name!("src")).is_some_and(|s| !s.trim().is_empty()) => counts.images += 1,
                    "a" if element.get(&local_name!("href")).is_some() => counts.links += 1,
                    "li" | "dt" => counts.list_items += 1,
                    "p" => {
                        counts.paragraphs += 1;
                        counts.paragraph_words += words_under(dom, id);
                    }
                    "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => counts.headings += 1,
                    "input" | "select" | "textarea" | "button" => counts.form_controls += 1,
                    "pre" | "code" => counts.code_blocks += 1,
                    "td" | "th" => counts.table_cells += 1,
                    "time" => counts.times += 1,
                    _ => {}
                }
                if !node.children.is_empty() {
                    *clusters.entry(signature(dom, id)).or_default() += 1;
                }
                let hidden = hidden || HIDDEN.contains(&element.name.local);
                let in_link = in_link || element.is(&local_name!("a"));
                stack.extend(node.children.iter().rev().map(|&c| (c, in_link, hidden)));
            }
            _ => stack.extend(node.children.iter().rev().map(|&c| (c, in_link, hidden))),
        }
    }
}

/// The paper's cluster key: tag, class, number of children, and the children's tags
/// and classes.
fn signature(dom: &Dom, id: usize) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    // Only equality matters, and the same page must give the same features: a fast,
    // fixed-seed hash.
    let mut hasher = foldhash::fast::FixedState::default().build_hasher();
    if let Some(element) = dom.element(id) {
        element.tag().hash(&mut hasher);
        element.class().hash(&mut hasher);
    }
    dom.children(id).len().hash(&mut hasher);
    for child in dom.element_children(id) {
        if let Some(e) = dom.element(child) {
            e.tag().hash(&mut hasher);
            e.class().hash(&mut hasher);
        }
    }
    hasher.finish()
}

fn words_under(dom: &Dom, id: usize) -> u64 {
    dom.descendants(id)
        .map(|d| match &dom.nodes[d].data {
            NodeData::Text(t) => ascii_word_count(t).unwrap_or_else(|| t.split_whitespace().count()) as u64,
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The byte-wise ASCII branch counts what the plain Unicode tests count.
        #[test]
        fn text_is_counted_as_the_unicode_tests_count_it(
            chars in proptest::collection::vec(proptest::sample::select(vec![
                'a', 'Z', '0', '9', '.', ',', ';', ':', '?', '!', '$', '€', '£', '¥', '₹', ' ', '\t', '\n', '\r', '\x0b', '\x0c', '\x1c', '\x1f',
                '\u{85}', '\u{a0}', '\u{2003}', '\u{3000}', 'é', '中', '٣',
            ]), 0..40)
        ) {
            let text: String = chars.into_iter().collect();
            let mut counts = Counts::default();
            let (chars, money) = count_text(&text, &mut counts);
            proptest::prop_assert_eq!(chars, text.chars().filter(|c| !c.is_whitespace()).count() as u64);
            proptest::prop_assert_eq!(money, text.chars().any(|c| CURRENCY_SIGNS.contains(&c)));
            proptest::prop_assert_eq!(counts.digits, text.chars().filter(char::is_ascii_digit).count() as u64);
            for (i, p) in ['.', ',', ';', ':', '?', '!'].into_iter().enumerate() {
                proptest::prop_assert_eq!(counts.punctuation[i], text.chars().filter(|&c| c == p).count() as u64);
            }
        }
    }

    fn feature(features: &Features, name: &str) -> f32 {
        let i = FEATURES.iter().position(|f| f.name == name).unwrap();
        features.values[i]
    }

    fn count(features: &Features, name: &str) -> f32 {
        (feature(features, name).exp() - 1.0).round()
    }

    #[test]
    fn counts_the_papers_features_on_a_small_page() {
        let html = "<title>Not. Counted!</title><style>p{a:b;}</style><body>\
            <p>One, two; three: four? Five! 42.</p>\
            <ul class=l><li class=i><a href=/a>A</a></li><li class=i><a href=/b>B</a></li><li class=i><a href=/c>C</a></li></ul>\
            <img src=x.png><img></body>";
        let dom = Dom::parse_with_styles(html, crate::dom::DomLimits { max_elements: 1000, deadline: None }).unwrap();
        let f = Features::of(&dom, "https://shop.example/forum/thread/12?page=2");
        assert_eq!(count(&f, "periods"), 1.0, "the title and the style sheet are not text");
        assert_eq!(count(&f, "commas"), 1.0);
        assert_eq!(count(&f, "semicolons"), 1.0);
        assert_eq!(count(&f, "colons"), 1.0);
        assert_eq!(count(&f, "question_marks"), 1.0);
        assert_eq!(count(&f, "exclamation_marks"), 1.0);
        assert_eq!(count(&f, "digits"), 2.0);
        assert_eq!(count(&f, "image_urls"), 1.0, "an <img> without src has no URL");
        assert_eq!(count(&f, "links"), 3.0);
        assert_eq!(count(&f, "list_items"), 3.0);
        // The three <li class=i> (one <a> each) are one cluster, their three <a> another.
        assert_eq!(count(&f, "repeated_clusters"), 2.0);
        assert_eq!(count(&f, "repeated_elements"), 6.0);
        let text: u32 = "One,two;three:four?Five!42.ABC".len() as u32;
        assert_eq!(count(&f, "text_length"), text as f32);
        assert!((feature(&f, "link_text_share") - 3.0 / text as f32).abs() < 1e-6);
        assert_eq!(count(&f, "url_depth"), 3.0);
        assert_eq!((feature(&f, "url_query"), feature(&f, "url_forum"), feature(&f, "url_listing"), feature(&f, "url_product")), (1.0, 1.0, 1.0, 0.0));
    }

    #[test]
    fn prices_and_schema_types_are_noticed() {
        assert_eq!(count_prices("Now $12.99, was 15 € or £ 3; $ alone; 7 dollars"), 3);
        let html = r#"<meta property="og:type" content="product"><div itemscope itemtype="https://schema.org/ItemList"><p>x</p></div>"#;
        let dom = Dom::parse_with_styles(html, crate::dom::DomLimits { max_elements: 1000, deadline: None }).unwrap();
        let f = Features::of(&dom, "");
        assert_eq!((feature(&f, "meta_product"), feature(&f, "meta_list"), feature(&f, "meta_article")), (1.0, 1.0, 0.0));
        assert_eq!(feature(&f, "url_depth"), 0.0);
    }
}
