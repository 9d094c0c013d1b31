//! Layout: styled DOM → a taffy tree (block, flex, grid; tables as rows of flex items;
//! floats and absolute boxes as taffy knows them) → positions.
//!
//! Inline content is not shaped: a run of text, inline elements and inline images becomes one
//! taffy leaf whose size comes from character counts (0.5 em a character, 1.2 em a line), and
//! the painter draws the same line breaks the measure made.

use std::collections::HashMap;
use std::time::Instant;

use selectors::bloom::BloomFilter;
use selectors::context::SelectorCaches;
use taffy::prelude::TaffyZero;
use taffy::style::{
    AlignItems, AvailableSpace, Dimension, FlexDirection, FlexWrap, GridPlacement, GridTemplateComponent, GridTemplateRepetition, JustifyContent,
    LengthPercentage, LengthPercentageAuto, MaxTrackSizingFunction, MinTrackSizingFunction, RepetitionCount, TrackSizingFunction,
};
use taffy::{Line, Rect, Size, TaffyTree};

use super::RenderLimit;
use super::css::{El, Stylesheet, bloom_update};
use super::style::{self, Align, Display, Float, GridLine, Ink, Length, Position, Replaced, Rgba, Style};
use crate::dom::{Dom, NodeData, NodeId};

/// Text metrics of the wireframe: a character is this many em wide, a line this many em tall.
pub const CHAR_WIDTH_EM: f32 = 0.5;
pub const WIDE_CHAR_WIDTH_EM: f32 = 1.0;
pub const LINE_HEIGHT_EM: f32 = 1.2;
/// The size an image gets when neither the page nor its CSS says (Common Crawl has no image bytes).
pub const DEFAULT_IMAGE: (f32, f32) = (120.0, 90.0);
/// The size of an inline `<svg>` without width and height: an icon.
pub const DEFAULT_SVG: (f32, f32) = (24.0, 24.0);
/// Deeper elements are not laid out: bounds recursion here and in taffy.
pub const MAX_DEPTH: usize = 200;
/// Columns for a run of picture cards whose layout lived in an external stylesheet: what shop
/// and listing themes commonly use at a 1024 px viewport (four or five cards a row).
pub const CARD_GRID_COLUMNS: &str = "repeat(auto-fill, minmax(180px, 1fr))";
pub const CARD_GRID_GAP: f32 = 16.0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SegmentKind {
    Text(Ink),
    Box(Replaced, NodeId),
    Break,
}

/// A piece of a line: text (breakable anywhere) or an atomic inline box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    pub kind: SegmentKind,
    pub width: f32,
    pub height: f32,
    /// The widest piece that cannot be broken (a word, a box).
    pub min_width: f32,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Run {
    pub segments: Vec<Segment>,
    pub align: Option<Align>,
}

/// One placed piece of a line, relative to the run's box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub line_height: f32,
    pub segment: usize,
}

impl Run {
    fn max_content(&self) -> f32 {
        let (mut widest, mut line) = (0.0f32, 0.0f32);
        for s in &self.segments {
            if s.kind == SegmentKind::Break {
                widest = widest.max(line);
                line = 0.0;
            } else {
                line += s.width;
            }
        }
        widest.max(line)
    }

    fn min_content(&self) -> f32 {
        self.segments.iter().map(|s| s.min_width).fold(0.0, f32::max)
    }

    /// Breaks the run into lines of at most `width`; returns the pieces and the total height.
    pub fn lines(&self, width: f32) -> (Vec<Placed>, f32) {
        let width = width.max(1.0);
        let mut placed = Vec::new();
        let (mut x, mut y, mut line_height) = (0.0f32, 0.0f32, 0.0f32);
        let mut line_start = 0;
        let finish_line = |placed: &mut Vec<Placed>, start: usize, x: f32, line_height: f32| {
            let offset = match self.align {
                Some(Align::Center) => ((width - x) / 2.0).max(0.0),
                Some(Align::End) => (width - x).max(0.0),
                _ => 0.0,
            };
            for p in &mut placed[start..] {
                p.x += offset;
                p.line_height = line_height;
            }
        };
        for (i, s) in self.segments.iter().enumerate() {
            match s.kind {
                SegmentKind::Break => {
                    finish_line(&mut placed, line_start, x, line_height);
                    y += line_height.max(s.height);
                    (x, line_height, line_start) = (0.0, 0.0, placed.len());
                }
                SegmentKind::Box(..) => {
                    if x > 0.0 && x + s.width > width {
                        finish_line(&mut placed, line_start, x, line_height);
                        y += line_height;
                        (x, line_height, line_start) = (0.0, 0.0, placed.len());
                    }
                    placed.push(Placed { x, y, width: s.width, line_height: s.height, segment: i });
                    x += s.width;
                    line_height = line_height.max(s.height);
                }
                SegmentKind::Text(_) => {
                    let mut left = s.width;
                    while left > 0.0 {
                        let room = width - x;
                        if room < s.min_width.min(left) && x > 0.0 {
                            finish_line(&mut placed, line_start, x, line_height);
                            y += line_height;
                            (x, line_height, line_start) = (0.0, 0.0, placed.len());
                            continue;
                        }
                        let take = left.min(room.max(s.min_width));
                        placed.push(Placed { x, y, width: take, line_height: s.height, segment: i });
                        x += take;
                        left -= take;
                        line_height = line_height.max(s.height);
                        if left > 0.0 {
                            finish_line(&mut placed, line_start, x, line_height);
                            y += line_height;
                            (x, line_height, line_start) = (0.0, 0.0, placed.len());
                        }
                    }
                }
            }
        }
        finish_line(&mut placed, line_start, x, line_height);
        (placed, y + line_height)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Leaf {
    Run(Run),
    Replaced { kind: Replaced, node: NodeId, width: f32, height: f32 },
}

/// What the painter needs of a box.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxInfo {
    /// The element the box is for; `None` for runs and anonymous rows.
    pub element: Option<NodeId>,
    pub visible: bool,
    pub background: Option<Rgba>,
    pub border: [f32; 4],
    pub border_color: Option<Rgba>,
    pub leaf: Option<Leaf>,
}

impl BoxInfo {
    fn plain() -> Self {
        Self { element: None, visible: true, background: None, border: [0.0; 4], border_color: None, leaf: None }
    }
}

/// A laid-out box in page coordinates (CSS px), for tests and debugging.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedBox {
    pub element: Option<NodeId>,
    pub depth: usize,
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    pub is_run: bool,
}

pub struct Layout {
    pub tree: TaffyTree<BoxInfo>,
    pub root: taffy::NodeId,
    pub page_background: Option<Rgba>,
    pub boxes: usize,
    pub limit: Option<RenderLimit>,
}

impl Layout {
    /// Every box with its absolute position, in document order.
    pub fn boxes(&self) -> Vec<PlacedBox> {
        let mut out = Vec::new();
        let mut stack = vec![(self.root, 0.0f32, 0.0f32, 0usize)];
        while let Some((node, px, py, depth)) = stack.pop() {
            let Ok(l) = self.tree.layout(node) else { continue };
            let (x, y) = (px + l.location.x, py + l.location.y);
            let info = self.tree.get_node_context(node);
            out.push(PlacedBox {
                element: info.and_then(|i| i.element),
                depth,
                x,
                y,
                width: l.size.width,
                height: l.size.height,
                is_run: info.is_some_and(|i| matches!(i.leaf, Some(Leaf::Run(_)))),
            });
            if let Ok(children) = self.tree.children(node) {
                stack.extend(children.into_iter().rev().map(|c| (c, x, y, depth + 1)));
            }
        }
        out
    }
}

/// Bounds on building one page's layout.
#[derive(Debug, Clone, Copy)]
pub struct LayoutBounds {
    pub max_boxes: usize,
    pub deadline: Option<Instant>,
}

struct Builder<'a> {
    dom: &'a Dom,
    sheet: &'a Stylesheet,
    sibling_index: Vec<u32>,
    caches: SelectorCaches,
    ancestors: BloomFilter,
    tree: TaffyTree<BoxInfo>,
    bounds: LayoutBounds,
    boxes: usize,
    limit: Option<RenderLimit>,
}

/// Why a layout could not be built at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("layout failed: {0}")]
pub struct LayoutError(pub String);

pub fn build(dom: &Dom, sheet: &Stylesheet, viewport_width: f32, bounds: LayoutBounds) -> Result<Layout, LayoutError> {
    let mut sibling_index = vec![0u32; dom.nodes.len()];
    for node in &dom.nodes {
        for (i, &c) in node.children.iter().enumerate() {
            if let Some(slot) = sibling_index.get_mut(c) {
                *slot = i as u32;
            }
        }
    }
    // At most a box per node: sized up front, since growing taffy's tables one node at a
    // time (copies and fresh pages) took a sixth of the layout time.
    let tree = TaffyTree::with_capacity(dom.nodes.len().min(bounds.max_boxes.saturating_add(1)));
    let mut builder =
        Builder { dom, sheet, sibling_index, caches: SelectorCaches::default(), ancestors: BloomFilter::new(), tree, bounds, boxes: 0, limit: None };
    let root_style = Style::root();
    let mut page_background = None;
    let mut children = Vec::new();
    if let Some(html) = dom.html() {
        let html_style = builder.style_of(html, &root_style);
        page_background = html_style.background;
        if let Some(body) = dom.body() {
            // The body's background paints the whole canvas when the root has none.
            builder.enter(html, true);
            let body_style = builder.style_of(body, &html_style);
            builder.enter(html, false);
            page_background = page_background.or(body_style.background);
        }
        if let Some(node) = builder.element_box(html, html_style, 0) {
            children.push(node);
        }
    }
    let err = |e: taffy::TaffyError| LayoutError(e.to_string());
    let root_taffy = taffy::Style {
        display: taffy::Display::Block,
        size: Size { width: Dimension::length(viewport_width), height: Dimension::auto() },
        ..Default::default()
    };
    let root = builder.tree.new_with_children(root_taffy, &children).map_err(err)?;
    builder.tree.set_node_context(root, Some(BoxInfo::plain())).map_err(err)?;
    let Builder { mut tree, boxes, limit, .. } = builder;
    tree.compute_layout_with_measure(
        root,
        Size { width: AvailableSpace::Definite(viewport_width), height: AvailableSpace::MaxContent },
        |input, _node, context, _style| {
            let size = match context.and_then(|c| c.leaf.as_ref()) {
                Some(leaf) => measure(leaf, input.known_dimensions, input.available_space),
                None => Size::ZERO,
            };
            taffy::LayoutOutput::from_sizes(size, Rect::ZERO)
        },
    )
    .map_err(err)?;
    Ok(Layout { tree, root, page_background, boxes, limit })
}

fn measure(leaf: &Leaf, known: Size<Option<f32>>, available: Size<AvailableSpace>) -> Size<f32> {
    match leaf {
        Leaf::Replaced { width, height, .. } => Size { width: known.width.unwrap_or(*width), height: known.height.unwrap_or(*height) },
        Leaf::Run(run) => {
            let max_content = run.max_content();
            let min_content = run.min_content();
            let width = known.width.unwrap_or_else(|| match available.width {
                AvailableSpace::Definite(w) => max_content.min(w).max(min_content.min(w)),
                AvailableSpace::MinContent => min_content,
                AvailableSpace::MaxContent => max_content,
            });
            let height = known.height.unwrap_or_else(|| run.lines(width).1);
            Size { width, height }
        }
    }
}

impl Builder<'_> {
    fn style_of(&mut self, id: NodeId, parent: &Style) -> Style {
        let Some(element) = self.dom.element(id) else { return parent.clone() };
        let el = El { dom: self.dom, id, sibling_index: &self.sibling_index };
        let rules = self.sheet.matching(el, &mut self.caches, &self.ancestors);
        style::compute(element, parent, &rules)
    }

    /// Marks `id` as an ancestor of what is styled next (`false`: no longer).
    fn enter(&mut self, id: NodeId, entering: bool) {
        if let Some(e) = self.dom.element(id) {
            bloom_update(&mut self.ancestors, e, entering);
        }
    }

    /// Counts a box; false once a bound is reached (the rest of the page is left out).
    fn admit(&mut self) -> bool {
        if self.limit.is_some() {
            return false;
        }
        self.boxes += 1;
        if self.boxes > self.bounds.max_boxes {
            self.limit = Some(RenderLimit::TooManyBoxes);
        } else if self.boxes.is_multiple_of(64) && self.bounds.deadline.is_some_and(|d| Instant::now() > d) {
            self.limit = Some(RenderLimit::TimeLimit);
        }
        self.limit.is_none()
    }

    fn new_node(&mut self, style: taffy::Style, children: &[taffy::NodeId], info: BoxInfo) -> Option<taffy::NodeId> {
        if children.is_empty() {
            return self.tree.new_leaf_with_context(style, info).ok();
        }
        let node = self.tree.new_with_children(style, children).ok()?;
        self.tree.set_node_context(node, Some(info)).ok()?;
        Some(node)
    }

    /// A box for an element and everything under it.
    fn element_box(&mut self, id: NodeId, style: Style, depth: usize) -> Option<taffy::NodeId> {
        if style.display == Display::None || depth > MAX_DEPTH || !self.admit() {
            if depth > MAX_DEPTH && self.limit.is_none() {
                self.limit = Some(RenderLimit::TooDeep);
            }
            return None;
        }
        let element = self.dom.element(id)?;
        let info = BoxInfo {
            element: Some(id),
            visible: style.visible,
            background: style.background,
            border: style.border,
            border_color: style.border_color,
            leaf: None,
        };
        if let Some(kind) = style::replaced_kind(element.tag()) {
            let (width, height) = replaced_size(kind, id, self.dom, &style);
            let leaf = Leaf::Replaced { kind, node: id, width, height };
            return self.new_node(taffy_style(&style, None), &[], BoxInfo { leaf: Some(leaf), ..info });
        }
        let style = if style.display == Display::Block && is_card_grid(self.dom, id) { card_grid(style) } else { style };
        let children = self.children_boxes(id, &style, depth + 1);
        let container = Some(style.display);
        self.new_node(taffy_style(&style, container), &children, info)
    }

    /// The boxes of an element's children: block-level children as they are, inline content
    /// gathered into runs, atomic inlines into rows.
    fn children_boxes(&mut self, parent: NodeId, parent_style: &Style, depth: usize) -> Vec<taffy::NodeId> {
        let items_mode = matches!(
            parent_style.display,
            Display::Flex | Display::InlineFlex | Display::Grid | Display::InlineGrid | Display::Table | Display::TableRowGroup | Display::TableRow
        );
        let mut out = Vec::new();
        let mut run = Run { segments: Vec::new(), align: Some(parent_style.text_align) };
        let mut row: Vec<taffy::NodeId> = Vec::new();
        let closed_details = self.dom.element(parent).is_some_and(|e| e.tag() == "details" && e.attr("open").is_none());
        self.enter(parent, true);
        for &child in self.dom.children(parent) {
            if closed_details && self.dom.element(child).is_none_or(|e| e.tag() != "summary") {
                continue;
            }
            if self.limit.is_some() {
                break;
            }
            match &self.dom.nodes[child].data {
                NodeData::Text(text) => {
                    if text.trim().is_empty() {
                        continue;
                    }
                    self.flush_row(&mut row, &mut out, parent_style);
                    push_text(&mut run, text, parent_style);
                }
                NodeData::Element(_) => {
                    let style = self.style_of(child, parent_style);
                    match style.display {
                        Display::None => {}
                        Display::Contents => {
                            self.flush_run(&mut run, &mut out, parent_style);
                            self.flush_row(&mut row, &mut out, parent_style);
                            let inner = self.children_boxes(child, &Style { display: parent_style.display, ..style }, depth + 1);
                            out.extend(inner);
                        }
                        _ if items_mode || style.position == Position::Absolute || style.float != Float::None => {
                            self.flush_run(&mut run, &mut out, parent_style);
                            self.flush_row(&mut row, &mut out, parent_style);
                            let style = if items_mode { blockify(style) } else { style };
                            out.extend(self.element_box(child, style, depth));
                        }
                        d if d.is_inline_level() => {
                            let tag = self.dom.element(child).map_or("", |e| e.tag());
                            if let Some(kind) = style::replaced_kind(tag) {
                                if self.admit() {
                                    let (w, h) = replaced_size(kind, child, self.dom, &style);
                                    run.segments.push(Segment { kind: SegmentKind::Box(kind, child), width: w, height: h, min_width: w });
                                }
                            } else if d.is_atomic_inline() {
                                self.flush_run(&mut run, &mut out, parent_style);
                                row.extend(self.element_box(child, style, depth));
                            } else if self.has_block_inside(child) {
                                self.flush_run(&mut run, &mut out, parent_style);
                                self.flush_row(&mut row, &mut out, parent_style);
                                out.extend(self.element_box(child, Style { display: Display::Block, ..style }, depth));
                            } else {
                                self.flush_row(&mut row, &mut out, parent_style);
                                self.inline_content(child, &style, &mut run, depth + 1);
                            }
                        }
                        _ => {
                            self.flush_run(&mut run, &mut out, parent_style);
                            self.flush_row(&mut row, &mut out, parent_style);
                            out.extend(self.element_box(child, style, depth));
                        }
                    }
                }
                _ => {}
            }
        }
        self.enter(parent, false);
        self.flush_run(&mut run, &mut out, parent_style);
        self.flush_row(&mut row, &mut out, parent_style);
        out
    }

    /// Flattens an inline element's content into the current run.
    fn inline_content(&mut self, id: NodeId, style: &Style, run: &mut Run, depth: usize) {
        if depth > MAX_DEPTH || !self.admit() {
            return;
        }
        if self.dom.element(id).is_some_and(|e| e.tag() == "br") {
            run.segments.push(Segment { kind: SegmentKind::Break, width: 0.0, height: style.font_size * LINE_HEIGHT_EM, min_width: 0.0 });
            return;
        }
        self.enter(id, true);
        for &child in self.dom.children(id) {
            match &self.dom.nodes[child].data {
                NodeData::Text(text) if style.visible => push_text(run, text, style),
                NodeData::Element(e) => {
                    let child_style = self.style_of(child, style);
                    if child_style.display == Display::None {
                        continue;
                    }
                    if let Some(kind) = style::replaced_kind(e.tag()) {
                        let (w, h) = replaced_size(kind, child, self.dom, &child_style);
                        run.segments.push(Segment { kind: SegmentKind::Box(kind, child), width: w, height: h, min_width: w });
                    } else {
                        self.inline_content(child, &child_style, run, depth + 1);
                    }
                }
                _ => {}
            }
        }
        self.enter(id, false);
    }

    /// Whether an inline element wraps block-level content (a card link around divs).
    fn has_block_inside(&self, id: NodeId) -> bool {
        const LOOK_AT: usize = 200;
        self.dom.descendants(id).skip(1).take(LOOK_AT).any(|d| {
            self.dom.element(d).is_some_and(|e| {
                matches!(
                    e.tag(),
                    "div"
                        | "p"
                        | "ul"
                        | "ol"
                        | "li"
                        | "table"
                        | "section"
                        | "article"
                        | "header"
                        | "footer"
                        | "h1"
                        | "h2"
                        | "h3"
                        | "h4"
                        | "h5"
                        | "h6"
                        | "figure"
                        | "dl"
                        | "form"
                        | "blockquote"
                        | "nav"
                )
            })
        })
    }

    fn flush_run(&mut self, run: &mut Run, out: &mut Vec<taffy::NodeId>, parent_style: &Style) {
        if run.segments.iter().all(|s| s.kind == SegmentKind::Break) {
            run.segments.clear();
            return;
        }
        let leaf = Leaf::Run(Run { segments: std::mem::take(&mut run.segments), align: run.align });
        let info = BoxInfo { visible: parent_style.visible, leaf: Some(leaf), ..BoxInfo::plain() };
        let style = taffy::Style { display: taffy::Display::Block, flex_shrink: 1.0, ..Default::default() };
        out.extend(self.new_node(style, &[], info));
    }

    /// Consecutive inline-blocks share lines: an anonymous wrapping flex row.
    fn flush_row(&mut self, row: &mut Vec<taffy::NodeId>, out: &mut Vec<taffy::NodeId>, parent_style: &Style) {
        if row.is_empty() {
            return;
        }
        let justify = match parent_style.text_align {
            Align::Center => JustifyContent::CENTER,
            Align::End => JustifyContent::FLEX_END,
            Align::Start => JustifyContent::NORMAL,
        };
        let style = taffy::Style {
            display: taffy::Display::Flex,
            flex_wrap: FlexWrap::Wrap,
            justify_content: justify,
            align_items: AlignItems::FLEX_START,
            ..Default::default()
        };
        let children = std::mem::take(row);
        out.extend(self.new_node(style, &children, BoxInfo::plain()));
    }
}

/// Whether an element's children are a run of picture cards: at least three siblings of one tag,
/// most holding an image that is not an icon and a little text. A WARC record has only the
/// HTML, and the stylesheet that put such cards side by side is external, so without this a
/// shop's product grid is drawn as one tall column, like a product page's related items.
/// (Siblings of one tag, not one class: utility-class themes give each card its own classes.)
fn is_card_grid(dom: &Dom, id: NodeId) -> bool {
    const MIN_CARDS: usize = 3;
    const MAX_CARD_CHARS: usize = 400;
    const LOOK_AT: usize = 80;
    let children: Vec<(NodeId, &str)> = dom.element_children(id).filter_map(|c| dom.element(c).map(|e| (c, e.tag()))).collect();
    if children.len() < MIN_CARDS {
        return false;
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for &(_, tag) in &children {
        *counts.entry(tag).or_default() += 1;
    }
    let Some((&tag, &count)) = counts.iter().max_by_key(|&(tag, n)| (*n, *tag)) else { return false };
    if count < MIN_CARDS || count * 3 < children.len() * 2 || !CARD_TAGS.contains(&tag) {
        return false;
    }
    let is_card = |card: NodeId| {
        let mut picture = false;
        let mut chars = 0;
        for d in dom.descendants(card).take(LOOK_AT) {
            match &dom.nodes[d].data {
                NodeData::Text(t) => chars += t.trim().chars().count(),
                NodeData::Element(e) if e.tag() == "img" || e.tag() == "picture" => picture |= !is_icon(e),
                _ => {}
            }
        }
        picture && chars > 0 && chars <= MAX_CARD_CHARS
    };
    children.iter().filter(|&&(c, t)| t == tag && is_card(c)).count() * 3 >= count * 2
}

/// The elements a card is commonly made of.
const CARD_TAGS: &[&str] = &["div", "li", "article", "section", "a", "figure"];

/// An image the page sizes below 64 px in either direction: an avatar, flag, social icon or thin
/// banner, not a card's picture.
fn is_icon(image: &crate::dom::Element) -> bool {
    let small = |name| image.attr(name).and_then(style::attribute_length).is_some_and(|l| matches!(l, Length::Px(px) if px < 64.0));
    small("width") || small("height")
}

fn card_grid(style: Style) -> Style {
    Style { display: Display::Grid, grid_columns: Some(CARD_GRID_COLUMNS.to_string()), gap: [Length::Px(CARD_GRID_GAP); 2], ..style }
}

/// Flex and grid items are block-level whatever their display says.
fn blockify(style: Style) -> Style {
    let display = match style.display {
        Display::Inline | Display::InlineBlock | Display::ListItem => Display::Block,
        Display::InlineFlex => Display::Flex,
        Display::InlineGrid => Display::Grid,
        d => d,
    };
    Style { display, ..style }
}

fn push_text(run: &mut Run, text: &str, style: &Style) {
    let em = style.font_size;
    let (mut width_em, mut word_em, mut longest_em) = (0.0f32, 0.0f32, 0.0f32);
    let mut in_space = true;
    for c in text.chars() {
        if c.is_whitespace() {
            if !in_space {
                width_em += CHAR_WIDTH_EM;
                longest_em = longest_em.max(word_em);
                word_em = 0.0;
            }
            in_space = true;
            continue;
        }
        in_space = false;
        // CJK and other wide scripts: a full em, and a break allowed after every character.
        let w = if c as u32 >= 0x1100 && !('\u{2000}'..='\u{206f}').contains(&c) { WIDE_CHAR_WIDTH_EM } else { CHAR_WIDTH_EM };
        width_em += w;
        word_em = if w == WIDE_CHAR_WIDTH_EM { w } else { word_em + w };
        longest_em = longest_em.max(word_em);
    }
    if width_em == 0.0 {
        return;
    }
    let ink = if style.ink == Ink::Text && style.bold { Ink::Text } else { style.ink };
    let segment = Segment { kind: SegmentKind::Text(ink), width: width_em * em, height: LINE_HEIGHT_EM * em, min_width: longest_em.min(20.0) * em };
    // Adjacent text of the same kind merges: fewer pieces to place and paint.
    if let Some(last) = run.segments.last_mut()
        && last.kind == segment.kind
        && last.height == segment.height
    {
        last.width += segment.width;
        last.min_width = last.min_width.max(segment.min_width);
        return;
    }
    run.segments.push(segment);
}

/// A replaced element's size: CSS or attributes, else the intrinsic size we assume.
fn replaced_size(kind: Replaced, id: NodeId, dom: &Dom, style: &Style) -> (f32, f32) {
    let em = style.font_size;
    let fallback = match kind {
        Replaced::Image => DEFAULT_IMAGE,
        // Icons sized by external CSS are the common case; a viewBox only gives the ratio.
        Replaced::Svg => svg_ratio(dom, id).map_or(DEFAULT_SVG, |r| (DEFAULT_SVG.0, DEFAULT_SVG.1 / r)),
        Replaced::Media => (300.0, 150.0),
        Replaced::Control => match dom.element(id).map(|e| e.tag()) {
            Some("textarea") => (180.0, 36.0),
            Some("select") => (120.0, 1.4 * em),
            _ => (150.0, 1.4 * em),
        },
        Replaced::Button => {
            let chars = dom
                .descendants(id)
                .filter_map(|d| if let NodeData::Text(t) = &dom.nodes[d].data { Some(t.trim().chars().count()) } else { None })
                .sum::<usize>();
            (((chars.min(40) as f32) * CHAR_WIDTH_EM + 1.5) * em, 1.6 * em)
        }
    };
    let px = |l: Length| if let Length::Px(px) = l { Some(px) } else { None };
    let (w, h) = (px(style.width), px(style.height));
    match (w, h) {
        (Some(w), Some(h)) => (w, h),
        (Some(w), None) => (w, w * fallback.1 / fallback.0.max(1.0)),
        (None, Some(h)) => (h * fallback.0 / fallback.1.max(1.0), h),
        (None, None) => fallback,
    }
}

/// Width over height from the `viewBox`, bounded so a strip never becomes a wall.
fn svg_ratio(dom: &Dom, id: NodeId) -> Option<f32> {
    let view_box = dom.element(id)?.attr("viewBox")?;
    let numbers: Vec<f32> = view_box.split([' ', ',']).filter_map(|n| n.trim().parse().ok()).collect();
    match numbers.as_slice() {
        [_, _, w, h] if *w > 0.0 && *h > 0.0 => Some((w / h).clamp(0.25, 8.0)),
        _ => None,
    }
}

fn dimension(l: Length) -> Dimension {
    match l {
        Length::Auto => Dimension::auto(),
        Length::Px(px) => Dimension::length(px),
        Length::Percent(p) => Dimension::percent(p),
    }
}

fn lpa(l: Length) -> LengthPercentageAuto {
    match l {
        Length::Auto => LengthPercentageAuto::auto(),
        Length::Px(px) => LengthPercentageAuto::length(px),
        Length::Percent(p) => LengthPercentageAuto::percent(p),
    }
}

fn lp(l: Length) -> LengthPercentage {
    match l {
        Length::Auto => LengthPercentage::ZERO,
        Length::Px(px) => LengthPercentage::length(px.max(0.0)),
        Length::Percent(p) => LengthPercentage::percent(p.max(0.0)),
    }
}

fn rect<T>(sides: [T; 4]) -> Rect<T> {
    let [top, right, bottom, left] = sides;
    Rect { left, right, top, bottom }
}

/// The taffy style of an element box; `container` is its display when it has children.
fn taffy_style(style: &Style, container: Option<Display>) -> taffy::Style {
    let mut t = taffy::Style {
        display: taffy::Display::Block,
        size: Size { width: dimension(style.width), height: dimension(style.height) },
        min_size: Size { width: lpa(style.min_width), height: lpa(style.min_height) },
        max_size: Size { width: lpa(style.max_width), height: lpa(style.max_height) },
        margin: rect(style.margin.map(lpa)),
        padding: rect(style.padding.map(lp)),
        border: rect(style.border.map(LengthPercentage::length)),
        flex_grow: style.flex_grow.max(0.0),
        flex_shrink: style.flex_shrink.max(0.0),
        flex_basis: dimension(style.flex_basis),
        ..Default::default()
    };
    if style.position == Position::Absolute {
        t.position = taffy::Position::Absolute;
        t.inset = rect(style.inset.map(lpa));
    }
    t.float = match style.float {
        Float::Left => taffy::Float::Left,
        Float::Right => taffy::Float::Right,
        Float::None => taffy::Float::None,
    };
    if style.clear {
        t.clear = taffy::Clear::Both;
    }
    let placement = |line: GridLine| match line {
        GridLine::Auto | GridLine::Line(0) => GridPlacement::Auto,
        GridLine::Line(n) => GridPlacement::Line(n.into()),
        GridLine::Span(n) => GridPlacement::Span(n),
    };
    t.grid_column = Line { start: placement(style.grid_column[0]), end: placement(style.grid_column[1]) };
    let gap = Size { width: lp(style.gap[1]), height: lp(style.gap[0]) };
    let justify = style.justify.map(|a| match (a, style.justify_between) {
        (_, true) => JustifyContent::SPACE_BETWEEN,
        (Align::Center, _) => JustifyContent::CENTER,
        (Align::End, _) => JustifyContent::FLEX_END,
        (Align::Start, _) => JustifyContent::FLEX_START,
    });
    let align = style.align_items.map(|a| match a {
        Align::Center => AlignItems::CENTER,
        Align::End => AlignItems::FLEX_END,
        Align::Start => AlignItems::FLEX_START,
    });
    match container {
        Some(Display::Flex | Display::InlineFlex) => {
            t.display = taffy::Display::Flex;
            t.flex_direction = match (style.flex_row, style.flex_reverse) {
                (true, false) => FlexDirection::Row,
                (true, true) => FlexDirection::RowReverse,
                (false, false) => FlexDirection::Column,
                (false, true) => FlexDirection::ColumnReverse,
            };
            t.flex_wrap = if style.flex_wrap { FlexWrap::Wrap } else { FlexWrap::NoWrap };
            t.gap = gap;
            t.justify_content = justify.unwrap_or(JustifyContent::NORMAL);
            t.align_items = align.unwrap_or(AlignItems::NORMAL);
        }
        Some(Display::Grid | Display::InlineGrid) => {
            t.display = taffy::Display::Grid;
            t.gap = gap;
            t.grid_template_columns = style.grid_columns.as_deref().map(grid_columns).unwrap_or_default();
        }
        Some(Display::Table | Display::TableRowGroup) => {
            t.display = taffy::Display::Flex;
            t.flex_direction = FlexDirection::Column;
        }
        Some(Display::TableRow) => {
            t.display = taffy::Display::Flex;
            t.flex_direction = FlexDirection::Row;
            t.align_items = AlignItems::STRETCH;
        }
        _ => {}
    }
    if style.display == Display::TableCell {
        // Cells share the row by their content, as an auto table layout roughly does.
        t.flex_grow = 1.0;
        t.flex_shrink = 1.0;
        t.min_size.width = LengthPercentageAuto::ZERO;
        if style.width != Length::Auto {
            t.flex_basis = dimension(style.width);
            t.flex_grow = 0.0;
        }
    }
    t
}

/// `grid-template-columns`: track lists with px, %, fr, auto, `minmax()` and `repeat()`.
fn grid_columns(value: &str) -> Vec<GridTemplateComponent<String>> {
    let mut out = Vec::new();
    let mut rest = value.trim();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("repeat(") {
            let Some(close) = matching_paren(after) else { break };
            let inner = &after[..close];
            rest = after[close + 1..].trim_start();
            let Some((count, tracks)) = inner.split_once(',') else { continue };
            let tracks: Vec<TrackSizingFunction> = split_tracks(tracks).filter_map(track).collect();
            if tracks.is_empty() {
                continue;
            }
            let count = match count.trim() {
                "auto-fill" => RepetitionCount::AutoFill,
                "auto-fit" => RepetitionCount::AutoFit,
                n => match n.parse::<u16>() {
                    Ok(n) => RepetitionCount::Count(n.clamp(1, 64)),
                    Err(_) => continue,
                },
            };
            let fixed = tracks.iter().all(TrackSizingFunction::has_fixed_component);
            if matches!(count, RepetitionCount::Count(_)) || fixed {
                out.push(GridTemplateComponent::Repeat(GridTemplateRepetition { count, tracks, line_names: Vec::new() }));
            }
            continue;
        }
        let end = if rest.starts_with("minmax(") { rest.find(')').map_or(rest.len(), |i| i + 1) } else { rest.find(char::is_whitespace).unwrap_or(rest.len()) };
        let (token, tail) = rest.split_at(end);
        if let Some(t) = track(token) {
            out.push(GridTemplateComponent::Single(t));
        }
        rest = tail.trim_start();
    }
    out
}

fn matching_paren(s: &str) -> Option<usize> {
    let mut depth = 1;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn split_tracks(s: &str) -> impl Iterator<Item = &str> {
    let mut tokens = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if c.is_whitespace() && depth == 0 => {
                tokens.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    tokens.push(&s[start..]);
    tokens.into_iter().filter(|t| !t.trim().is_empty())
}

fn track(token: &str) -> Option<TrackSizingFunction> {
    let token = token.trim();
    if let Some(args) = token.strip_prefix("minmax(").and_then(|a| a.strip_suffix(')')) {
        let (min, max) = args.split_once(',')?;
        let min = match style::parse_length(min.trim(), 16.0)? {
            Length::Px(px) => MinTrackSizingFunction::length(px),
            Length::Percent(p) => MinTrackSizingFunction::percent(p),
            Length::Auto => MinTrackSizingFunction::auto(),
        };
        return Some(TrackSizingFunction { min, max: max_track(max.trim())? });
    }
    let max = max_track(token)?;
    let min = match style::parse_length(token, 16.0) {
        Some(Length::Px(px)) => MinTrackSizingFunction::length(px),
        Some(Length::Percent(p)) => MinTrackSizingFunction::percent(p),
        _ => MinTrackSizingFunction::auto(),
    };
    Some(TrackSizingFunction { min, max })
}

fn max_track(token: &str) -> Option<MaxTrackSizingFunction> {
    if let Some(fr) = token.strip_suffix("fr") {
        return fr.trim().parse::<f32>().ok().filter(|f| f.is_finite() && *f >= 0.0).map(MaxTrackSizingFunction::fr);
    }
    Some(match style::parse_length(token, 16.0)? {
        Length::Px(px) => MaxTrackSizingFunction::length(px),
        Length::Percent(p) => MaxTrackSizingFunction::percent(p),
        Length::Auto => MaxTrackSizingFunction::auto(),
    })
}
