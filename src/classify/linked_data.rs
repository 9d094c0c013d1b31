//! The schema.org types a page declares in JSON-LD (`<script type="application/ld+json">`).
//!
//! Sites mark up what a page is for search engines: a product page a `Product` with an
//! `Offer`, a category page an `ItemList` of products, a thread a `DiscussionForumPosting`.
//! The parse before the DOM empties every script, so the features read these blocks from
//! the raw HTML here. The scan is by bytes and forgiving: JSON-LD in the wild often does not
//! parse (trailing commas, HTML entities, comments), and only the `"@type"` values matter.

use memchr::memmem;

/// Type families and the schema.org types (lowercase, without `https://schema.org/`) that
/// count for each, in the order of the `ld_*` features. Counts, not flags: a category page
/// lists many `Product`s, a product page one.
pub const LINKED_DATA_FAMILIES: [(&str, &[&str]); 9] = [
    ("ld_product", &["product", "productgroup", "individualproduct", "productmodel", "vehicle", "car"]),
    ("ld_offer", &["offer", "aggregateoffer"]),
    ("ld_item_list", &["itemlist", "offercatalog"]),
    ("ld_collection", &["collectionpage", "searchresultspage"]),
    (
        "ld_article",
        &[
            "article", "newsarticle", "blogposting", "techarticle", "scholarlyarticle", "report", "reportagenewsarticle",
            "analysisnewsarticle", "opinionnewsarticle", "backgroundnewsarticle", "liveblogposting", "recipe", "howto",
        ],
    ),
    ("ld_discussion", &["discussionforumposting", "qapage", "question", "comment", "socialmediaposting"]),
    ("ld_faq", &["faqpage"]),
    ("ld_breadcrumb", &["breadcrumblist"]),
    ("ld_service", &["aboutpage", "contactpage", "profilepage", "service", "localbusiness"]),
];

pub const FAMILY_COUNT: usize = LINKED_DATA_FAMILIES.len();

/// At most this many bytes of a page's JSON-LD are read (a bound on the work per page;
/// real blocks are rarely above 100 KB).
const MAX_BYTES_READ: usize = 1 << 20;

/// What a page's JSON-LD declares.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkedData {
    /// JSON-LD blocks on the page.
    pub blocks: u32,
    /// `"@type"` values per family of [`LINKED_DATA_FAMILIES`].
    pub families: [u32; FAMILY_COUNT],
}

impl LinkedData {
    pub fn of(html: &str) -> Self {
        let bytes = html.as_bytes();
        let mut found = Self::default();
        let mut budget = MAX_BYTES_READ;
        let mut at = 0;
        while let Some(i) = memmem::find(&bytes[at..], b"ld+json").map(|i| at + i) {
            at = i + 7;
            if !inside_script_tag(bytes, i) {
                continue;
            }
            let Some(open_end) = memchr::memchr(b'>', &bytes[at..]).map(|j| at + j + 1) else { break };
            let close = find_script_end(&bytes[open_end..]).map_or(bytes.len(), |j| open_end + j);
            let block = &bytes[open_end..close.min(open_end + budget)];
            found.blocks += 1;
            found.count_types(block);
            budget -= block.len();
            at = close;
            if budget == 0 {
                break;
            }
        }
        found
    }

    fn count_types(&mut self, block: &[u8]) {
        for key in memmem::find_iter(block, b"\"@type\"") {
            for name in type_values(&block[key + 7..]) {
                let name = name.rsplit(|&b| b == b'/' || b == b':' || b == b'#').next().unwrap_or(name);
                for (family, (_, names)) in LINKED_DATA_FAMILIES.iter().enumerate() {
                    if names.iter().any(|n| n.as_bytes().eq_ignore_ascii_case(name)) {
                        self.families[family] += 1;
                    }
                }
            }
        }
    }
}

/// Whether the `ld+json` at `i` is inside a `<script ...>` start tag (not, say, a string in
/// a program).
fn inside_script_tag(bytes: &[u8], i: usize) -> bool {
    let from = i.saturating_sub(256);
    let Some(lt) = memchr::memrchr(b'<', &bytes[from..i]).map(|j| from + j) else { return false };
    let tag = &bytes[lt + 1..i];
    tag.len() >= 6 && tag[..6].eq_ignore_ascii_case(b"script") && !tag.contains(&b'>')
}

/// Offset of the `</script` that ends a block, in any case.
fn find_script_end(bytes: &[u8]) -> Option<usize> {
    memmem::find_iter(bytes, b"</").find(|&i| bytes.get(i + 2..i + 8).is_some_and(|t| t.eq_ignore_ascii_case(b"script")))
}

/// The string values after a `"@type"` key: `: "X"` or `: ["X", "Y"]`.
fn type_values(rest: &[u8]) -> Vec<&[u8]> {
    let skip_blank = |s: &[u8], mut i: usize| {
        while s.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let mut i = skip_blank(rest, 0);
    if rest.get(i) != Some(&b':') {
        return Vec::new();
    }
    i = skip_blank(rest, i + 1);
    let in_list = rest.get(i) == Some(&b'[');
    if in_list {
        i += 1;
    }
    let mut values = Vec::new();
    loop {
        i = skip_blank(rest, i);
        if rest.get(i) != Some(&b'"') {
            break;
        }
        // Type names are short and never hold quotes; a long run is not a name.
        let Some(len) = rest[i + 1..].iter().take(128).position(|&b| b == b'"') else { break };
        values.push(&rest[i + 1..i + 1 + len]);
        i = skip_blank(rest, i + len + 2);
        if !in_list || rest.get(i) != Some(&b',') {
            break;
        }
        i += 1;
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    fn family(found: &LinkedData, name: &str) -> u32 {
        let i = LINKED_DATA_FAMILIES.iter().position(|(n, _)| *n == name).unwrap();
        found.families[i]
    }

    #[test]
    fn types_are_counted_by_family_in_every_block() {
        let html = r#"<html><head>
            <script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","offers":{"@type" : "Offer"}}</script>
            <SCRIPT TYPE='application/ld+json'>
              {"@graph": [{"@type": ["WebPage", "https://schema.org/CollectionPage"]}, {"@type":"BreadcrumbList"},
               {"@type": "ItemList", "itemListElement": [{"@type":"Product"}, {"@type": "schema:Product"}]}]}
            </SCRIPT></head></html>"#;
        let found = LinkedData::of(html);
        assert_eq!(found.blocks, 2);
        assert_eq!(family(&found, "ld_product"), 3);
        assert_eq!(family(&found, "ld_offer"), 1);
        assert_eq!(family(&found, "ld_collection"), 1, "the second value of a type list counts");
        assert_eq!(family(&found, "ld_item_list"), 1);
        assert_eq!(family(&found, "ld_breadcrumb"), 1);
        assert_eq!(family(&found, "ld_article"), 0);
    }

    #[test]
    fn only_json_ld_scripts_are_read_and_broken_ones_do_not_stop_the_scan() {
        let html = r#"<script>var t = "ld+json"; x = {"@type": "Product"};</script>
            <p>{"@type": "NewsArticle"}</p>
            <script type="application/ld+json">{"@type": "NewsArticle",, "headline": "unclosed</script>
            <script type="application/ld+json">{"@type": "#;
        let found = LinkedData::of(html);
        assert_eq!(found.blocks, 2);
        assert_eq!(family(&found, "ld_article"), 1, "one article, from the JSON-LD block only");
        assert_eq!(family(&found, "ld_product"), 0);
        assert_eq!(LinkedData::of(""), LinkedData::default());
        assert_eq!(LinkedData::of("<script type=application/ld+json"), LinkedData::default());
    }
}
