//! Stage 3, the DOM: html5ever parses a page into an arena tree that the extractors
//! (and later the renderer and the classifier) share. Nodes are indices into one `Vec`,
//! so the tree is cheap to build, to walk and to send between threads.

mod sink;
mod streamed;
mod strip;

use std::sync::OnceLock;
use std::time::Instant;

use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::{LocalName, QualName, local_name};

pub use sink::ArenaSink;
pub use strip::{FOR_CLASSIFIER, FOR_EXTRACTION, FOR_MARKDOWN_LINKS, FOR_RENDERING, FOR_WEB2TEXT, Prepass, ScriptNotes, is_tex_script_type};

pub type NodeId = usize;

/// `name`/`property` values of the meta tags that summarise a page.
pub const DESCRIPTION_NAMES: &[&str] = &["description", "og:description", "twitter:description"];

/// The document node is always node 0.
pub const DOCUMENT: NodeId = 0;

#[derive(Debug, Clone)]
pub enum NodeData {
    Document,
    Element(Element),
    Text(String),
    /// Comments, doctypes, processing instructions: kept in the tree, never read.
    Other,
}

/// A set of tag names held as interned atoms, in an open-addressed table keyed by the
/// hash each atom carries: asking whether an element's tag is in it is one or two integer
/// comparisons, not a string comparison or a scan of the list (the extractors ask it
/// several times for every element of a page).
#[derive(Debug, Clone)]
pub struct TagSet {
    /// A power of two in length, at most a quarter full.
    slots: Vec<Option<LocalName>>,
}

impl TagSet {
    pub fn of(names: &[&str]) -> Self {
        let mut set = Self { slots: vec![None; (names.len() * 4).next_power_of_two().max(16)] };
        for &name in names {
            let name = LocalName::from(name);
            if !set.contains(&name) {
                let slot = set.slot_of(&name);
                set.slots[slot] = Some(name);
            }
        }
        set
    }

    pub fn contains(&self, name: &LocalName) -> bool {
        self.slots[self.slot_of(name)].is_some()
    }

    /// The slot that holds `name`, or the empty one where it would go.
    fn slot_of(&self, name: &LocalName) -> usize {
        let mask = self.slots.len() - 1;
        let mut slot = name.get_hash() as usize & mask;
        while let Some(held) = &self.slots[slot] {
            if held == name {
                break;
            }
            slot = (slot + 1) & mask;
        }
        slot
    }
}

/// A static list of tag names, as written, and its [`TagSet`] made on first use: how every
/// stage declares the tags it asks about (`static BLOCKS: TagList = TagList::new(&[...])`).
#[derive(Debug)]
pub struct TagList {
    pub names: &'static [&'static str],
    /// Names of `names` left out of the set (a list that is another one less a few tags).
    except: &'static [&'static str],
    set: OnceLock<TagSet>,
}

impl TagList {
    pub const fn new(names: &'static [&'static str]) -> Self {
        Self { names, except: &[], set: OnceLock::new() }
    }

    /// `names` less the tags of `except`.
    pub const fn without(names: &'static [&'static str], except: &'static [&'static str]) -> Self {
        Self { names, except, set: OnceLock::new() }
    }

    pub fn contains(&self, tag: &LocalName) -> bool {
        self.set().contains(tag)
    }

    /// The atom set itself, for a walk that holds it (the CDOM builder's skipped tags).
    pub fn set(&self) -> &TagSet {
        self.set.get_or_init(|| {
            let names: Vec<&str> = self.names.iter().copied().filter(|name| !self.except.contains(name)).collect();
            TagSet::of(&names)
        })
    }
}

/// The level (1–6) of a heading tag, `None` for any other.
pub fn heading_level(name: &LocalName) -> Option<usize> {
    match *name {
        local_name!("h1") => Some(1),
        local_name!("h2") => Some(2),
        local_name!("h3") => Some(3),
        local_name!("h4") => Some(4),
        local_name!("h5") => Some(5),
        local_name!("h6") => Some(6),
        _ => None,
    }
}

#[derive(Debug, Clone)]
pub struct Element {
    pub name: QualName,
    pub attrs: Vec<(LocalName, String)>,
}

impl Element {
    pub fn tag(&self) -> &str {
        &self.name.local
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(n, _)| &**n == name).map(|(_, v)| v.as_str())
    }

    /// [`Self::attr`] by the name's atom (`local_name!("class")`): compared as one number,
    /// not as text, for the walks that ask every element.
    pub fn get(&self, name: &LocalName) -> Option<&str> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The class attribute, as written (trimmed); empty when absent.
    pub fn class(&self) -> &str {
        self.attr("class").map_or("", str::trim)
    }

    pub fn is(&self, name: &LocalName) -> bool {
        self.name.local == *name
    }
}

#[derive(Debug, Clone)]
pub struct Node {
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
    pub data: NodeData,
}

impl Node {
    pub fn element(&self) -> Option<&Element> {
        match &self.data {
            NodeData::Element(e) => Some(e),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Dom {
    pub nodes: Vec<Node>,
    /// What the pre-pass saw of the scripts it emptied.
    pub scripts: ScriptNotes,
}

/// Bounds on parsing one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DomLimits {
    pub max_elements: usize,
    pub deadline: Option<Instant>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DomError {
    #[error("the page has more than {0} elements")]
    TooManyElements(usize),
    #[error("parsing took too long")]
    TimeLimit,
}

/// Bytes handed to the parser at a time, between checks of the limits.
const PARSE_CHUNK: usize = 64 << 10;
/// Bytes of markup per node after the extraction pre-pass: 34.5 over the held-out WCXB-dev
/// pages, so the arena is sized for a little more than the usual page needs.
const BYTES_PER_NODE: usize = 32;

impl Dom {
    pub fn parse(html: &str, limits: DomLimits) -> Result<Self, DomError> {
        Self::parse_with(html, limits, &FOR_EXTRACTION)
    }

    /// Parses keeping `<style>` sheets, which the renderer needs (scripts are still emptied).
    pub fn parse_with_styles(html: &str, limits: DomLimits) -> Result<Self, DomError> {
        Self::parse_with(html, limits, &FOR_RENDERING)
    }

    /// Parses after a given byte-level [`Prepass`].
    pub fn parse_with(html: &str, limits: DomLimits, prepass: &Prepass) -> Result<Self, DomError> {
        let (stripped, scripts) = prepass.apply_noting(html);
        let expected_nodes = (stripped.len() / BYTES_PER_NODE).min(limits.max_elements.saturating_mul(2));
        let sink = ArenaSink::new(limits.max_elements, expected_nodes);
        // Parsed as a browser with scripts off: <noscript> content becomes elements,
        // since that is what such a reader (and Common Crawl's archive) shows.
        let mut opts = html5ever::ParseOpts::default();
        opts.tree_builder.scripting_enabled = false;
        let mut parser = html5ever::parse_document(sink, opts);
        let mut rest: &str = &stripped;
        while !rest.is_empty() {
            let mut cut = rest.len().min(PARSE_CHUNK);
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            parser.process(StrTendril::from_slice(&rest[..cut]));
            rest = &rest[cut..];
            if parser.tokenizer.sink.sink.exceeded() {
                return Err(DomError::TooManyElements(limits.max_elements));
            }
            if limits.deadline.is_some_and(|d| Instant::now() > d) {
                return Err(DomError::TimeLimit);
            }
        }
        if parser.tokenizer.sink.sink.exceeded() {
            return Err(DomError::TooManyElements(limits.max_elements));
        }
        Ok(Dom { scripts, ..parser.finish() })
    }

    /// Parses without limits (tests, single pages).
    pub fn parse_unbounded(html: &str) -> Self {
        Self::parse(html, DomLimits { max_elements: usize::MAX, deadline: None }).unwrap_or_else(|_| Self::empty())
    }

    pub fn empty() -> Self {
        Self { nodes: vec![Node { parent: None, children: Vec::new(), data: NodeData::Document }], scripts: ScriptNotes::default() }
    }

    pub fn element(&self, id: NodeId) -> Option<&Element> {
        self.nodes.get(id).and_then(Node::element)
    }

    pub fn children(&self, id: NodeId) -> &[NodeId] {
        self.nodes.get(id).map_or(&[], |n| n.children.as_slice())
    }

    /// Element children only.
    pub fn element_children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.children(id).iter().copied().filter(|&c| self.element(c).is_some())
    }

    pub fn html(&self) -> Option<NodeId> {
        self.element_children(DOCUMENT).next()
    }

    pub fn body(&self) -> Option<NodeId> {
        let html = self.html()?;
        self.element_children(html).find(|&c| self.element(c).is_some_and(|e| e.is(&local_name!("body"))))
    }

    /// `id` and everything under it, in document order.
    pub fn descendants(&self, id: NodeId) -> Descendants<'_> {
        Descendants { dom: self, stack: vec![id] }
    }

    /// The page's own summary: `<meta name=description>`, Open Graph or Twitter.
    pub fn description(&self) -> Option<String> {
        self.descendants(DOCUMENT).find_map(|id| {
            let e = self.element(id).filter(|e| e.is(&local_name!("meta")))?;
            let name = e.attr("name").or_else(|| e.attr("property"))?.to_ascii_lowercase();
            let content = e.attr("content")?.split_whitespace().collect::<Vec<_>>().join(" ");
            (DESCRIPTION_NAMES.contains(&name.as_str()) && !content.is_empty()).then_some(content)
        })
    }

    /// The language the page declares: `<html lang>` (or `xml:lang`), else
    /// `<meta http-equiv=content-language>`; as written.
    pub fn declared_language(&self) -> Option<String> {
        let html = self.html().and_then(|h| self.element(h));
        let from_html = html.and_then(|e| e.attr("lang").or_else(|| e.attr("xml:lang"))).map(str::trim).filter(|l| !l.is_empty());
        if let Some(lang) = from_html {
            return Some(lang.to_string());
        }
        self.descendants(DOCUMENT).find_map(|id| {
            let e = self.element(id).filter(|e| e.is(&local_name!("meta")))?;
            e.attr("http-equiv").filter(|h| h.eq_ignore_ascii_case("content-language"))?;
            e.attr("content").map(str::trim).filter(|c| !c.is_empty()).map(str::to_string)
        })
    }

    /// The document's `<title>` text, whitespace collapsed.
    pub fn title(&self) -> Option<String> {
        let head = self.html().and_then(|h| self.element_children(h).find(|&c| self.element(c).is_some_and(|e| e.is(&local_name!("head")))))?;
        let title = self.element_children(head).find(|&c| self.element(c).is_some_and(|e| e.is(&local_name!("title"))))?;
        let mut text = String::new();
        for id in self.descendants(title) {
            if let NodeData::Text(t) = &self.nodes[id].data {
                text.push_str(t);
            }
        }
        let title = text.split_whitespace().collect::<Vec<_>>().join(" ");
        (!title.is_empty()).then_some(title)
    }
}

pub struct Descendants<'a> {
    dom: &'a Dom,
    stack: Vec<NodeId>,
}

impl Iterator for Descendants<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        let id = self.stack.pop()?;
        self.stack.extend(self.dom.children(id).iter().rev());
        Some(id)
    }
}

/// Text that starts (after whitespace) with `<` and a tag name, `</` or `<!`: markup held as
/// text, such as `<noscript>` content a live DOM serialized (see `sink.rs`).
pub fn looks_like_markup(text: &str) -> bool {
    let mut chars = text.trim_start().chars();
    chars.next() == Some('<') && chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '!')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text nodes under `root`, in document order.
    fn texts_under(dom: &Dom, root: NodeId) -> Vec<&str> {
        dom.descendants(root)
            .filter_map(|id| match &dom.nodes[id].data {
                NodeData::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_tag_set_holds_exactly_its_names() {
        let names = ["a", "span", "b", "my-widget", "blink", "a"];
        let set = TagSet::of(&names);
        for name in names {
            assert!(set.contains(&LocalName::from(name)), "{name}");
        }
        for name in ["div", "p", "li", "your-widget", "", "spa"] {
            assert!(!set.contains(&LocalName::from(name)), "{name}");
        }
        // Every tag answers as a scan of the list would, in a set of any size.
        let all = [
            "address", "article", "aside", "blockquote", "body", "br", "div", "dl", "footer", "form", "h1", "h2", "h3", "header", "li", "main", "nav", "ol",
            "p", "pre", "section", "table", "td", "th", "tr", "ul", "x-card", "my-widget",
        ];
        for size in [0, 1, 7, all.len()] {
            let set = TagSet::of(&all[..size]);
            for &name in &all {
                assert_eq!(set.contains(&LocalName::from(name)), all[..size].contains(&name), "{name} in {size}");
            }
        }
    }

    #[test]
    fn a_tag_list_less_some_tags_holds_the_rest() {
        static SKIPPED: TagList = TagList::new(&["script", "noscript", "style"]);
        static SKIPPED_BUT_NOSCRIPT: TagList = TagList::without(&["script", "noscript", "style"], &["noscript"]);
        let noscript = LocalName::from("noscript");
        assert!(SKIPPED.contains(&noscript));
        assert!(!SKIPPED_BUT_NOSCRIPT.contains(&noscript));
        assert!(SKIPPED_BUT_NOSCRIPT.contains(&LocalName::from("script")) && SKIPPED_BUT_NOSCRIPT.contains(&LocalName::from("style")));
        assert!(!SKIPPED.contains(&LocalName::from("p")));
    }

    #[test]
    fn parses_into_an_arena_with_implied_elements() {
        let dom = Dom::parse_unbounded("<title>T</title><p class=' a b '>one<p>two &amp; three");
        assert_eq!(dom.title().as_deref(), Some("T"));
        let body = dom.body().unwrap();
        let paragraphs: Vec<NodeId> = dom.element_children(body).collect();
        assert_eq!(paragraphs.len(), 2, "the second <p> closes the first");
        assert_eq!(dom.element(paragraphs[0]).unwrap().class(), "a b");
        assert_eq!(texts_under(&dom, body), ["one", "two & three"]);
    }

    /// `<noscript>` markup is read as elements; markup a live DOM serialized as escaped
    /// text is dropped; prose in `<noscript>` ("a < b" included) stays.
    #[test]
    fn escaped_markup_in_noscript_is_not_text() {
        let dom = Dom::parse_unbounded(
            "<body><noscript><p>Real text for readers without scripts</p></noscript>\
             <noscript>&lt;img src=\"pixel?a=1&amp;b=2\"&gt;</noscript><noscript> &lt;/div&gt;</noscript>\
             <noscript>Please enable JavaScript: a &lt; b</noscript><p>&lt;b&gt; outside noscript stays</p></body>",
        );
        assert_eq!(texts_under(&dom, DOCUMENT), ["Real text for readers without scripts", "Please enable JavaScript: a < b", "<b> outside noscript stays"]);
    }

    #[test]
    fn element_limit_stops_the_parse() {
        let html = "<div>x</div>".repeat(5000);
        let limits = DomLimits { max_elements: 1000, deadline: None };
        assert_eq!(Dom::parse(&html, limits).unwrap_err(), DomError::TooManyElements(1000));
    }
}
