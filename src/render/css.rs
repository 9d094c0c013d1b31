//! The CSS subset: `<style>` sheets cut into rules, selectors parsed and matched with the
//! `selectors` crate against the arena DOM, `@media` evaluated for the viewport width.
//!
//! A page's inline sheets often carry a whole framework. Most of its rules can never match
//! this page, so a rule is kept only when the id, class or tag its selector ends with occurs
//! in the page; the kept rules are bucketed by that key so an element tries only its own.

use foldhash::{HashMap, HashSet};
use std::fmt;

use cssparser::{Parser as CssParser, ParserInput, ToCss};
use html5ever::ns;
use selectors::attr::{AttrSelectorOperation, CaseSensitivity, NamespaceConstraint};
use selectors::bloom::BloomFilter;
use selectors::context::{MatchingContext, MatchingForInvalidation, MatchingMode, NeedsSelectorFlags, QuirksMode, SelectorCaches};
use selectors::matching::{ElementSelectorFlags, matches_selector};
use selectors::parser::{AncestorHashes, NonTSPseudoClass, ParseRelative, Parser, PseudoElement, Selector, SelectorImpl, SelectorList, SelectorParseErrorKind};
use selectors::{Element as SelectorElement, OpaqueElement};

use crate::dom::{Dom, NodeData, NodeId};

/// Bounds on what one page's sheets may cost.
pub const MAX_STYLESHEET_BYTES: usize = 2 << 20;
pub const MAX_RULES: usize = 20_000;

// ---------------------------------------------------------------------------------------------
// The selector implementation: plain strings, no pseudo-elements, no dynamic pseudo-classes
// (a rule with `:hover` or `::before` fails to parse and is dropped, which is what a static
// picture wants).

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Simple;

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct CssString(pub String);

impl<'a> From<&'a str> for CssString {
    fn from(s: &'a str) -> Self {
        Self(s.to_owned())
    }
}

impl AsRef<str> for CssString {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl ToCss for CssString {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        dest.write_str(&self.0)
    }
}

/// FNV-1a: the hash the ancestor bloom filter uses for tags, ids and classes.
pub fn css_hash(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

impl precomputed_hash::PrecomputedHash for CssString {
    fn precomputed_hash(&self) -> u32 {
        css_hash(&self.0)
    }
}

/// Adds (or removes) an element's tag, id and classes to the filter of the ancestors of the
/// elements being matched: selectors then rejects most descendant selectors without walking up.
pub fn bloom_update(filter: &mut BloomFilter, element: &crate::dom::Element, insert: bool) {
    let mut apply = |s: &str| {
        let h = css_hash(s);
        if insert { filter.insert_hash(h) } else { filter.remove_hash(h) }
    };
    apply(element.tag());
    if let Some(id) = element.attr("id") {
        apply(id);
    }
    for class in element.class().split_ascii_whitespace() {
        apply(class);
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NoPseudo {}

impl ToCss for NoPseudo {
    fn to_css<W: fmt::Write>(&self, _dest: &mut W) -> fmt::Result {
        match *self {}
    }
}

impl PseudoElement for NoPseudo {
    type Impl = Simple;
}

impl NonTSPseudoClass for NoPseudo {
    type Impl = Simple;

    fn is_active_or_hover(&self) -> bool {
        match *self {}
    }

    fn is_user_action_state(&self) -> bool {
        match *self {}
    }
}

impl SelectorImpl for Simple {
    type ExtraMatchingData<'a> = ();
    type AttrValue = CssString;
    type Identifier = CssString;
    type LocalName = CssString;
    type NamespaceUrl = CssString;
    type NamespacePrefix = CssString;
    type BorrowedNamespaceUrl = CssString;
    type BorrowedLocalName = CssString;
    type NonTSPseudoClass = NoPseudo;
    type PseudoElement = NoPseudo;
}

struct SimpleParser;

impl<'i> Parser<'i> for SimpleParser {
    type Impl = Simple;
    type Error = SelectorParseErrorKind<'i>;
}

/// An element of the arena DOM as `selectors` sees it.
#[derive(Clone, Copy)]
pub struct El<'a> {
    pub dom: &'a Dom,
    pub id: NodeId,
    /// Each node's index among its parent's children.
    pub sibling_index: &'a [u32],
}

impl fmt::Debug for El<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "El({})", self.id)
    }
}

impl<'a> El<'a> {
    fn at(&self, id: NodeId) -> Self {
        Self { id, ..*self }
    }

    fn element(&self) -> Option<&'a crate::dom::Element> {
        self.dom.element(self.id)
    }

    fn attr(&self, name: &str) -> Option<&'a str> {
        self.element().and_then(|e| e.attr(name))
    }

    fn sibling_element(&self, forward: bool) -> Option<Self> {
        let parent = self.dom.nodes.get(self.id)?.parent?;
        let siblings = self.dom.children(parent);
        let at = *self.sibling_index.get(self.id)? as usize;
        let found = if forward {
            siblings.get(at + 1..)?.iter().find(|&&c| self.dom.element(c).is_some())
        } else {
            siblings.get(..at)?.iter().rev().find(|&&c| self.dom.element(c).is_some())
        };
        found.map(|&c| self.at(c))
    }
}

impl SelectorElement for El<'_> {
    type Impl = Simple;

    fn opaque(&self) -> OpaqueElement {
        OpaqueElement::new(&self.dom.nodes[self.id])
    }

    fn parent_element(&self) -> Option<Self> {
        let parent = self.dom.nodes.get(self.id)?.parent?;
        self.dom.element(parent).map(|_| self.at(parent))
    }

    fn parent_node_is_shadow_root(&self) -> bool {
        false
    }

    fn containing_shadow_host(&self) -> Option<Self> {
        None
    }

    fn is_pseudo_element(&self) -> bool {
        false
    }

    fn prev_sibling_element(&self) -> Option<Self> {
        self.sibling_element(false)
    }

    fn next_sibling_element(&self) -> Option<Self> {
        self.sibling_element(true)
    }

    fn first_element_child(&self) -> Option<Self> {
        self.dom.element_children(self.id).next().map(|c| self.at(c))
    }

    fn is_html_element_in_html_document(&self) -> bool {
        self.element().is_some_and(|e| e.name.ns == ns!(html))
    }

    fn has_local_name(&self, name: &CssString) -> bool {
        self.element().is_some_and(|e| e.tag() == name.0)
    }

    fn has_namespace(&self, url: &CssString) -> bool {
        self.element().is_some_and(|e| *e.name.ns == *url.0)
    }

    fn is_same_type(&self, other: &Self) -> bool {
        match (self.element(), other.element()) {
            (Some(a), Some(b)) => a.name == b.name,
            _ => false,
        }
    }

    fn attr_matches(&self, _ns: &NamespaceConstraint<&CssString>, name: &CssString, operation: &AttrSelectorOperation<&CssString>) -> bool {
        self.attr(&name.0).is_some_and(|value| operation.eval_str(value))
    }

    fn match_non_ts_pseudo_class(&self, pc: &NoPseudo, _context: &mut MatchingContext<Simple>) -> bool {
        match *pc {}
    }

    fn match_pseudo_element(&self, pe: &NoPseudo, _context: &mut MatchingContext<Simple>) -> bool {
        match *pe {}
    }

    fn apply_selector_flags(&self, _flags: ElementSelectorFlags) {}

    fn is_link(&self) -> bool {
        self.element().is_some_and(|e| matches!(e.tag(), "a" | "area" | "link") && e.attr("href").is_some())
    }

    fn is_html_slot_element(&self) -> bool {
        false
    }

    fn has_id(&self, id: &CssString, case: CaseSensitivity) -> bool {
        self.attr("id").is_some_and(|v| case.eq(v.as_bytes(), id.0.as_bytes()))
    }

    fn has_class(&self, name: &CssString, case: CaseSensitivity) -> bool {
        self.attr("class").is_some_and(|v| v.split_ascii_whitespace().any(|c| case.eq(c.as_bytes(), name.0.as_bytes())))
    }

    fn has_custom_state(&self, _name: &CssString) -> bool {
        false
    }

    fn imported_part(&self, _name: &CssString) -> Option<CssString> {
        None
    }

    fn is_part(&self, _name: &CssString) -> bool {
        false
    }

    fn is_empty(&self) -> bool {
        self.dom.children(self.id).iter().all(|&c| match &self.dom.nodes[c].data {
            NodeData::Element(_) => false,
            NodeData::Text(t) => t.is_empty(),
            _ => true,
        })
    }

    fn is_root(&self) -> bool {
        self.dom.html() == Some(self.id)
    }

    fn add_element_unique_hashes(&self, _filter: &mut BloomFilter) -> bool {
        false
    }
}

// ---------------------------------------------------------------------------------------------
// Sheets and rules.

/// One `name: value` pair, name lowercased, value trimmed and without `!important`.
#[derive(Debug, Clone, PartialEq)]
pub struct Declaration {
    pub name: String,
    pub value: String,
    pub important: bool,
}

struct Rule {
    selector: Selector<Simple>,
    hashes: AncestorHashes,
    specificity: u32,
    order: u32,
    block: u32,
}

/// Which of a page's ids, classes and tags occur: a rule keyed on anything else is dropped.
pub struct PageKeys<'d> {
    ids: HashSet<&'d str>,
    classes: HashSet<&'d str>,
    tags: HashSet<&'d str>,
}

impl<'d> PageKeys<'d> {
    pub fn of(dom: &'d Dom) -> Self {
        let mut keys = Self { ids: HashSet::default(), classes: HashSet::default(), tags: HashSet::default() };
        for node in &dom.nodes {
            let NodeData::Element(e) = &node.data else { continue };
            keys.tags.insert(e.tag());
            if let Some(id) = e.attr("id") {
                keys.ids.insert(id);
            }
            keys.classes.extend(e.class().split_ascii_whitespace());
        }
        keys
    }
}

/// The key a selector's rightmost compound is bucketed by.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    Id(String),
    Class(String),
    Tag(String),
    Any,
}

#[derive(Default)]
pub struct Stylesheet {
    rules: Vec<Rule>,
    blocks: Vec<Vec<Declaration>>,
    /// Rule indices by the key their selector ends with (looked up by `&str`, no allocation).
    by_id: HashMap<String, Vec<u32>>,
    by_class: HashMap<String, Vec<u32>>,
    by_tag: HashMap<String, Vec<u32>>,
    any: Vec<u32>,
    /// Rules dropped because a bound was reached.
    pub truncated: bool,
}

impl Stylesheet {
    /// Parses the sheets in order; `viewport_width` decides `@media` blocks.
    pub fn parse<'s>(sheets: impl IntoIterator<Item = &'s str>, keys: &PageKeys<'_>, viewport_width: f32) -> Self {
        let mut sheet = Self::default();
        let mut budget = MAX_STYLESHEET_BYTES;
        for css in sheets {
            let css = match css.get(..budget.min(css.len())) {
                Some(c) => c,
                None => {
                    sheet.truncated = true;
                    break;
                }
            };
            budget -= css.len();
            sheet.add_rules(css, keys, viewport_width);
            if budget == 0 {
                sheet.truncated = true;
                break;
            }
        }
        sheet
    }

    fn add_rules(&mut self, css: &str, keys: &PageKeys<'_>, viewport_width: f32) {
        for item in Blocks::new(css) {
            if self.rules.len() >= MAX_RULES {
                self.truncated = true;
                return;
            }
            match item {
                Item::At { prelude, body } => {
                    let prelude = prelude.trim();
                    let name = prelude.split(|c: char| c.is_whitespace() || c == '(').next().unwrap_or(prelude).to_ascii_lowercase();
                    let include = match name.as_str() {
                        "@media" => media_matches(&prelude[name.len()..], viewport_width),
                        "@supports" | "@layer" | "@container" | "@document" => true,
                        _ => false,
                    };
                    if include && let Some(body) = body {
                        self.add_rules(body, keys, viewport_width);
                    }
                }
                Item::Qualified { prelude, body } => self.add_rule(prelude, body, keys),
            }
        }
    }

    fn add_rule(&mut self, prelude: &str, body: &str, keys: &PageKeys<'_>) {
        let mut block: Option<u32> = None;
        for selector_text in split_top_level(prelude, ',') {
            let key = rightmost_key(selector_text);
            let present = match &key {
                Key::Id(id) => keys.ids.contains(id.as_str()),
                Key::Class(c) => keys.classes.contains(c.as_str()),
                Key::Tag(t) => keys.tags.contains(t.as_str()),
                Key::Any => true,
            };
            if !present {
                continue;
            }
            let mut input = ParserInput::new(selector_text);
            let Ok(list) = SelectorList::parse(&SimpleParser, &mut CssParser::new(&mut input), ParseRelative::No) else { continue };
            let block = match block {
                Some(b) => b,
                None => {
                    let decls = parse_declarations(body);
                    if decls.is_empty() {
                        return;
                    }
                    self.blocks.push(decls);
                    let b = (self.blocks.len() - 1) as u32;
                    block = Some(b);
                    b
                }
            };
            for selector in list.slice().iter() {
                let order = self.rules.len() as u32;
                match &key {
                    Key::Id(id) => self.by_id.entry(id.clone()).or_default().push(order),
                    Key::Class(c) => self.by_class.entry(c.clone()).or_default().push(order),
                    Key::Tag(t) => self.by_tag.entry(t.clone()).or_default().push(order),
                    Key::Any => self.any.push(order),
                }
                self.rules.push(Rule {
                    hashes: AncestorHashes::new(selector, QuirksMode::NoQuirks),
                    specificity: selector.specificity(),
                    selector: selector.clone(),
                    order,
                    block,
                });
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The declaration blocks of the rules `el` matches, in cascade order (lowest first);
    /// `ancestors` holds the tags, ids and classes of `el`'s ancestors (see [`bloom_update`]).
    pub fn matching<'a>(&'a self, el: El<'_>, caches: &mut SelectorCaches, ancestors: &BloomFilter) -> Vec<&'a [Declaration]> {
        if self.rules.is_empty() {
            return Vec::new();
        }
        let Some(e) = el.element() else { return Vec::new() };
        let mut candidates: Vec<u32> = self.any.clone();
        let mut take = |map: &HashMap<String, Vec<u32>>, key: &str| {
            if let Some(rules) = map.get(key) {
                candidates.extend_from_slice(rules);
            }
        };
        take(&self.by_tag, e.tag());
        if let Some(id) = e.attr("id") {
            take(&self.by_id, id);
        }
        for class in e.class().split_ascii_whitespace() {
            take(&self.by_class, class);
        }
        if candidates.is_empty() {
            return Vec::new();
        }
        let mut context =
            MatchingContext::new(MatchingMode::Normal, Some(ancestors), caches, QuirksMode::NoQuirks, NeedsSelectorFlags::No, MatchingForInvalidation::No);
        let mut matched: Vec<&Rule> = candidates
            .into_iter()
            .filter_map(|i| self.rules.get(i as usize))
            .filter(|rule| matches_selector(&rule.selector, 0, Some(&rule.hashes), &el, &mut context))
            .collect();
        matched.sort_by_key(|r| (r.specificity, r.order));
        matched.dedup_by_key(|r| r.order);
        matched.iter().filter_map(|r| self.blocks.get(r.block as usize).map(Vec::as_slice)).collect()
    }
}

/// `@media` conditions: a comma list is true when any query is; media types other than
/// screen/all are false; width features compare with the viewport; unknown features are false.
pub fn media_matches(query_list: &str, viewport_width: f32) -> bool {
    split_top_level(query_list, ',').any(|query| {
        let q = query.trim().to_ascii_lowercase();
        let (negated, q) = match q.strip_prefix("not ") {
            Some(rest) => (true, rest.trim().to_owned()),
            None => (false, q.strip_prefix("only ").map_or(q.clone(), |r| r.trim().to_owned())),
        };
        let mut result = true;
        for part in q.split(" and ") {
            let part = part.trim();
            let ok = if let Some(feature) = part.strip_prefix('(').and_then(|p| p.strip_suffix(')')) {
                let (name, value) = feature.split_once(':').map_or((feature.trim(), ""), |(n, v)| (n.trim(), v.trim()));
                let px = parse_length_px(value, 16.0);
                match (name, px) {
                    ("min-width", Some(px)) => viewport_width >= px,
                    ("max-width", Some(px)) => viewport_width <= px,
                    ("orientation", _) => value == "landscape",
                    ("hover", _) | ("pointer", _) => value != "none" && value != "coarse",
                    ("prefers-reduced-motion" | "prefers-color-scheme" | "prefers-contrast", _) => value == "no-preference" || value == "light",
                    _ => false,
                }
            } else {
                matches!(part, "" | "screen" | "all")
            };
            result &= ok;
        }
        result != negated
    })
}

/// A CSS length in px; `em_px` is the font size `em` refers to. Percentages are not lengths here.
pub fn parse_length_px(value: &str, em_px: f32) -> Option<f32> {
    let value = value.trim();
    let split = value.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+')).unwrap_or(value.len());
    let (number, unit) = value.split_at(split);
    let number: f32 = number.parse().ok()?;
    let px = match unit.trim().to_ascii_lowercase().as_str() {
        "px" => number,
        "" if number == 0.0 => 0.0,
        "em" => number * em_px,
        "rem" => number * 16.0,
        "pt" => number * 4.0 / 3.0,
        "pc" => number * 16.0,
        "in" => number * 96.0,
        "cm" => number * 96.0 / 2.54,
        "mm" => number * 96.0 / 25.4,
        "vw" => number * super::VIEWPORT_WIDTH / 100.0,
        "vh" | "svh" | "dvh" | "lvh" => number * super::VIEWPORT_HEIGHT / 100.0,
        "ch" | "ex" => number * em_px * 0.5,
        _ => return None,
    };
    px.is_finite().then_some(px)
}

/// The key of the rightmost compound selector: its first `#id`, else its first `.class`,
/// else its tag, else `Any`.
fn rightmost_key(selector: &str) -> Key {
    let selector = selector.trim();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in selector.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ' ' | '>' | '+' | '~' | '\t' | '\n' if depth == 0 => start = i + c.len_utf8(),
            _ => {}
        }
    }
    let compound = &selector[start..];
    // The compound up to its first `[` or `:`, escapes resolved and marked: `\:` is part of a name
    // (Tailwind's `.md\:hidden`), a plain `.`, `#` or `:` is not.
    let mut plain: Vec<(char, bool)> = Vec::new();
    let mut chars = compound.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped) if !escaped.is_ascii_hexdigit() => plain.push((escaped, true)),
                // Hex escapes are rare: such a rule is matched against every element.
                _ => return Key::Any,
            },
            '[' | ':' => break,
            c => plain.push((c, false)),
        }
    }
    let name_char = |&&(c, escaped): &&(char, bool)| escaped || c.is_alphanumeric() || c == '-' || c == '_';
    let name_after = |marker: char| -> Option<String> {
        let start = plain.iter().position(|&(c, escaped)| c == marker && !escaped)? + 1;
        let name: String = plain[start..].iter().take_while(name_char).map(|&(c, _)| c).collect();
        (!name.is_empty()).then_some(name)
    };
    if let Some(id) = name_after('#') {
        return Key::Id(id);
    }
    if let Some(class) = name_after('.') {
        return Key::Class(class);
    }
    let tag: String = plain.iter().take_while(name_char).map(|&(c, _)| c.to_ascii_lowercase()).collect();
    if !tag.is_empty() && !plain.contains(&('|', false)) {
        return Key::Tag(tag);
    }
    Key::Any
}

/// Splits at `sep` outside parentheses, brackets and strings.
pub fn split_top_level(text: &str, sep: char) -> impl Iterator<Item = &str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth -= 1,
            (None, _) if c == sep && depth <= 0 => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.into_iter()
}

/// The declarations of a block or a `style=` attribute.
pub fn parse_declarations(block: &str) -> Vec<Declaration> {
    split_top_level(block, ';')
        .filter_map(|decl| {
            let (name, value) = decl.split_once(':')?;
            let name = name.trim().to_ascii_lowercase();
            if name.is_empty() || name.starts_with("--") {
                return None;
            }
            let value = value.trim();
            let (value, important) = match value.to_ascii_lowercase().rfind("!important") {
                Some(i) => (value[..i].trim(), true),
                None => (value, false),
            };
            Some(Declaration { name, value: value.to_owned(), important })
        })
        .collect()
}

enum Item<'a> {
    Qualified { prelude: &'a str, body: &'a str },
    At { prelude: &'a str, body: Option<&'a str> },
}

/// The top-level rules of a sheet, with error recovery by brace matching.
struct Blocks<'a> {
    css: &'a str,
    pos: usize,
}

impl<'a> Blocks<'a> {
    fn new(css: &'a str) -> Self {
        Self { css, pos: 0 }
    }

    /// Skips comments and CDO/CDC tokens.
    fn skip_trivia(&mut self) {
        loop {
            let rest = &self.css[self.pos..];
            let trimmed = rest.trim_start();
            self.pos += rest.len() - trimmed.len();
            if trimmed.starts_with("/*") {
                self.pos += trimmed.find("*/").map_or(trimmed.len(), |i| i + 2);
            } else if trimmed.starts_with("<!--") {
                self.pos += 4;
            } else if trimmed.starts_with("-->") {
                self.pos += 3;
            } else {
                return;
            }
        }
    }

    /// The index and byte of the first of `{`, `;` and `}` from `from` on, outside strings
    /// and comments, for which `stop` says yes.
    fn scan(&self, from: usize, mut stop: impl FnMut(u8) -> bool) -> Option<(usize, u8)> {
        let bytes = self.css.as_bytes();
        let mut i = from;
        let mut quote = 0u8;
        while i < bytes.len() {
            let b = bytes[i];
            if quote != 0 {
                if b == b'\\' {
                    i += 1;
                } else if b == quote {
                    quote = 0;
                }
            } else {
                match b {
                    b'"' | b'\'' => quote = b,
                    b'/' if bytes.get(i + 1) == Some(&b'*') => {
                        i = self.css[i + 2..].find("*/").map_or(bytes.len(), |j| i + 2 + j + 1);
                    }
                    b'{' | b';' | b'}' if stop(b) => return Some((i, b)),
                    _ => {}
                }
            }
            i += 1;
        }
        None
    }

    /// From `self.pos`, the first `{`, `;` or unmatched `}`.
    fn scan_prelude(&self) -> Option<(usize, u8)> {
        self.scan(self.pos, |_| true)
    }

    /// The end (index of the matching `}`) of a block whose `{` is at `open`.
    fn block_end(&self, open: usize) -> usize {
        let mut depth = 0usize;
        let close = self.scan(open, |b| {
            match b {
                b'{' => depth += 1,
                b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            b == b'}' && depth == 0
        });
        close.map_or(self.css.len(), |(i, _)| i)
    }
}

impl<'a> Iterator for Blocks<'a> {
    type Item = Item<'a>;

    fn next(&mut self) -> Option<Item<'a>> {
        loop {
            self.skip_trivia();
            if self.pos >= self.css.len() {
                return None;
            }
            let start = self.pos;
            let Some((at, b)) = self.scan_prelude() else {
                self.pos = self.css.len();
                return None;
            };
            let prelude = &self.css[start..at];
            match b {
                b'{' => {
                    let end = self.block_end(at);
                    let body = self.css.get(at + 1..end).unwrap_or("");
                    self.pos = (end + 1).min(self.css.len());
                    return Some(if prelude.trim_start().starts_with('@') {
                        Item::At { prelude, body: Some(body) }
                    } else {
                        Item::Qualified { prelude, body }
                    });
                }
                b';' => {
                    self.pos = at + 1;
                    if prelude.trim_start().starts_with('@') {
                        return Some(Item::At { prelude, body: None });
                    }
                }
                // A stray `}`: skip it.
                _ => self.pos = at + 1,
            }
        }
    }
}
