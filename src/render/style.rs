//! Computed style for the CSS subset the wireframe needs: per-tag defaults, legacy
//! attributes, `<style>` rules, `style=`, `!important`, and inheritance of the few
//! properties that inherit (font size and weight, alignment, visibility, what ink text gets).

use super::css::{Declaration, parse_declarations, parse_length_px, split_top_level};
use crate::dom::Element;

pub type Rgba = [u8; 4];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    None,
    Inline,
    Block,
    InlineBlock,
    Flex,
    InlineFlex,
    Grid,
    InlineGrid,
    Table,
    TableRowGroup,
    TableRow,
    TableCell,
    ListItem,
    Contents,
}

impl Display {
    pub fn is_inline_level(self) -> bool {
        matches!(self, Self::Inline | Self::InlineBlock | Self::InlineFlex | Self::InlineGrid)
    }

    /// Lays out like a block-level box (its own taffy node) even when it sits in a line.
    pub fn is_atomic_inline(self) -> bool {
        matches!(self, Self::InlineBlock | Self::InlineFlex | Self::InlineGrid)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Length {
    Auto,
    Px(f32),
    /// 0.0..=1.0
    Percent(f32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    Static,
    Absolute,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Float {
    None,
    Left,
    Right,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Start,
    Center,
    End,
}

/// What a run of text is painted as: the distinction a glance makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ink {
    Text,
    Link,
    Heading,
}

/// Elements drawn as boxes of their own rather than as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replaced {
    Image,
    Control,
    Button,
    Media,
    Svg,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Style {
    pub display: Display,
    pub visible: bool,
    pub position: Position,
    pub float: Float,
    pub clear: bool,
    pub width: Length,
    pub height: Length,
    pub min_width: Length,
    pub max_width: Length,
    pub min_height: Length,
    pub max_height: Length,
    /// top, right, bottom, left
    pub margin: [Length; 4],
    pub padding: [Length; 4],
    pub border: [f32; 4],
    pub inset: [Length; 4],
    pub border_color: Option<Rgba>,
    pub background: Option<Rgba>,
    pub font_size: f32,
    pub bold: bool,
    pub text_align: Align,
    pub ink: Ink,
    pub flex_row: bool,
    pub flex_reverse: bool,
    pub flex_wrap: bool,
    pub flex_grow: f32,
    pub flex_shrink: f32,
    pub flex_basis: Length,
    pub justify: Option<Align>,
    pub justify_between: bool,
    pub align_items: Option<Align>,
    pub gap: [Length; 2],
    pub grid_columns: Option<String>,
    /// `grid-column` start and end.
    pub grid_column: [GridLine; 2],
}

/// One end of a grid item's placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridLine {
    Auto,
    Line(i16),
    Span(u16),
}

fn parse_grid_line(value: &str) -> GridLine {
    let v = value.trim();
    if let Some(n) = v.strip_prefix("span") {
        return n.trim().parse::<u16>().map_or(GridLine::Auto, |n| GridLine::Span(n.clamp(1, 64)));
    }
    v.parse::<i16>().map_or(GridLine::Auto, |n| GridLine::Line(n.clamp(-64, 64)))
}

/// The root's style before any rule: what a browser starts from.
pub const ROOT_FONT_SIZE: f32 = 16.0;

impl Style {
    pub fn root() -> Self {
        Self {
            display: Display::Block,
            visible: true,
            position: Position::Static,
            float: Float::None,
            clear: false,
            width: Length::Auto,
            height: Length::Auto,
            min_width: Length::Auto,
            max_width: Length::Auto,
            min_height: Length::Auto,
            max_height: Length::Auto,
            margin: [Length::Px(0.0); 4],
            padding: [Length::Px(0.0); 4],
            border: [0.0; 4],
            inset: [Length::Auto; 4],
            border_color: None,
            background: None,
            font_size: ROOT_FONT_SIZE,
            bold: false,
            text_align: Align::Start,
            ink: Ink::Text,
            flex_row: true,
            flex_reverse: false,
            flex_wrap: false,
            flex_grow: 0.0,
            flex_shrink: 1.0,
            flex_basis: Length::Auto,
            justify: None,
            justify_between: false,
            align_items: None,
            gap: [Length::Px(0.0); 2],
            grid_columns: None,
            grid_column: [GridLine::Auto; 2],
        }
    }

    /// A child's starting point: inherited properties from `self`, the rest initial.
    fn inherit(&self) -> Self {
        Self {
            font_size: self.font_size,
            bold: self.bold,
            text_align: self.text_align,
            ink: self.ink,
            visible: self.visible,
            display: Display::Inline,
            ..Self::root()
        }
    }
}

/// The user-agent defaults we honour, as data: display, vertical margin (em), font scale,
/// bold, left padding (px).
struct TagDefault {
    tags: &'static [&'static str],
    display: Display,
    margin_em: f32,
    font_scale: f32,
    bold: bool,
    padding_left: f32,
}

const fn tag(tags: &'static [&'static str], display: Display, margin_em: f32, font_scale: f32, bold: bool, padding_left: f32) -> TagDefault {
    TagDefault { tags, display, margin_em, font_scale, bold, padding_left }
}

const TAG_DEFAULTS: &[TagDefault] = &[
    tag(
        &[
            "head", "script", "style", "template", "title", "meta", "link", "base", "datalist", "param", "source", "track", "noembed", "noframes", "rp",
            "dialog", "area", "map",
        ],
        Display::None,
        0.0,
        1.0,
        false,
        0.0,
    ),
    tag(
        &[
            "html", "body", "div", "section", "article", "header", "footer", "nav", "main", "aside", "form", "figcaption", "address", "details", "summary",
            "center", "hgroup", "search", "noscript", "legend", "optgroup", "frameset", "frame",
        ],
        Display::Block,
        0.0,
        1.0,
        false,
        0.0,
    ),
    tag(&["p", "dl", "pre", "listing", "xmp", "plaintext"], Display::Block, 1.0, 1.0, false, 0.0),
    tag(&["blockquote", "figure"], Display::Block, 1.0, 1.0, false, 40.0),
    tag(&["ul", "ol", "menu", "dir"], Display::Block, 1.0, 1.0, false, 40.0),
    tag(&["dd"], Display::Block, 0.0, 1.0, false, 40.0),
    tag(&["dt", "fieldset"], Display::Block, 0.0, 1.0, false, 0.0),
    tag(&["li"], Display::ListItem, 0.0, 1.0, false, 0.0),
    tag(&["h1"], Display::Block, 0.67, 2.0, true, 0.0),
    tag(&["h2"], Display::Block, 0.83, 1.5, true, 0.0),
    tag(&["h3"], Display::Block, 1.0, 1.17, true, 0.0),
    tag(&["h4"], Display::Block, 1.33, 1.0, true, 0.0),
    tag(&["h5"], Display::Block, 1.67, 0.83, true, 0.0),
    tag(&["h6"], Display::Block, 2.33, 0.67, true, 0.0),
    tag(&["hr"], Display::Block, 0.5, 1.0, false, 0.0),
    tag(&["table"], Display::Table, 0.0, 1.0, false, 0.0),
    tag(&["thead", "tbody", "tfoot"], Display::TableRowGroup, 0.0, 1.0, false, 0.0),
    tag(&["tr"], Display::TableRow, 0.0, 1.0, false, 0.0),
    tag(&["td"], Display::TableCell, 0.0, 1.0, false, 0.0),
    tag(&["th"], Display::TableCell, 0.0, 1.0, true, 0.0),
    tag(&["caption"], Display::Block, 0.0, 1.0, false, 0.0),
    tag(&["b", "strong"], Display::Inline, 0.0, 1.0, true, 0.0),
    tag(&["small", "sub", "sup"], Display::Inline, 0.0, 0.83, false, 0.0),
    tag(&["big"], Display::Inline, 0.0, 1.2, false, 0.0),
    tag(
        &["img", "svg", "video", "iframe", "canvas", "embed", "object", "input", "textarea", "select", "button", "audio", "progress", "meter"],
        Display::InlineBlock,
        0.0,
        1.0,
        false,
        0.0,
    ),
];

/// The tags drawn as boxes, and as what.
pub fn replaced_kind(tag: &str) -> Option<Replaced> {
    Some(match tag {
        "img" | "picture" => Replaced::Image,
        "svg" => Replaced::Svg,
        "video" | "iframe" | "canvas" | "embed" | "object" | "audio" => Replaced::Media,
        "input" | "textarea" | "select" | "progress" | "meter" => Replaced::Control,
        "button" => Replaced::Button,
        _ => return None,
    })
}

/// The element's computed style, given its parent's and the declaration blocks its
/// `<style>` rules give, lowest precedence first.
pub fn compute(element: &Element, parent: &Style, rules: &[&[Declaration]]) -> Style {
    let mut style = parent.inherit();
    let tag = element.tag();
    if element.name.ns != html5ever::ns!(html) && tag != "svg" {
        // Inside inline SVG: drawn by resvg with its root.
        style.display = Display::None;
        return style;
    }
    if let Some(d) = TAG_DEFAULTS.iter().find(|d| d.tags.contains(&tag)) {
        style.display = d.display;
        style.font_size = parent.font_size * d.font_scale;
        style.bold |= d.bold;
        let m = Length::Px(d.margin_em * style.font_size);
        style.margin = [m, Length::Px(0.0), m, Length::Px(0.0)];
        style.padding[3] = Length::Px(d.padding_left);
    }
    match tag {
        "body" => style.margin = [Length::Px(8.0); 4],
        "a" if element.attr("href").is_some() => style.ink = Ink::Link,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => style.ink = Ink::Heading,
        "center" => style.text_align = Align::Center,
        "th" => {
            style.text_align = Align::Center;
            style.padding = [Length::Px(1.0); 4];
        }
        "hr" => {
            style.border = [1.0; 4];
            style.border_color = Some([160, 160, 160, 255]);
        }
        "td" => style.padding = [Length::Px(1.0); 4],
        "fieldset" => {
            style.border = [2.0; 4];
            style.padding = [Length::Px(6.0); 4];
        }
        "input" if element.attr("type").is_some_and(|t| t.eq_ignore_ascii_case("hidden")) => style.display = Display::None,
        _ => {}
    }
    apply_legacy_attributes(element, &mut style);
    let inline = element.attr("style").map(parse_declarations).unwrap_or_default();
    for important in [false, true] {
        for block in rules {
            for decl in block.iter().filter(|d| d.important == important) {
                apply(&mut style, parent, decl);
            }
        }
        for decl in inline.iter().filter(|d| d.important == important) {
            apply(&mut style, parent, decl);
        }
    }
    if element.attr("hidden").is_some() && !inline.iter().any(|d| d.name == "display") {
        style.display = Display::None;
    }
    style
}

/// width, height, bgcolor, align, border: what pre-CSS pages lay out with.
/// A `width` or `height` attribute: pixels (`120`, `120px`) or a percentage.
pub fn attribute_length(value: &str) -> Option<Length> {
    let v = value.trim();
    if let Some(p) = v.strip_suffix('%') {
        return p.trim().parse::<f32>().ok().map(|p| Length::Percent(p / 100.0));
    }
    let digits = v.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(v.len());
    v[..digits].parse::<f32>().ok().filter(|n| n.is_finite()).map(Length::Px)
}

fn apply_legacy_attributes(element: &Element, style: &mut Style) {
    if let Some(w) = element.attr("width").and_then(attribute_length) {
        style.width = w;
    }
    if let Some(h) = element.attr("height").and_then(attribute_length) {
        style.height = h;
    }
    if let Some(c) = element.attr("bgcolor").and_then(parse_color) {
        style.background = Some(c);
    }
    match element.attr("align").map(str::to_ascii_lowercase).as_deref() {
        Some("center" | "middle") => style.text_align = Align::Center,
        Some("right") if element.tag() == "img" => style.float = Float::Right,
        Some("left") if element.tag() == "img" => style.float = Float::Left,
        Some("right") => style.text_align = Align::End,
        _ => {}
    }
    if element.tag() == "table"
        && let Some(b) = element.attr("border").and_then(|b| b.trim().parse::<f32>().ok())
        && b > 0.0
    {
        style.border = [b.min(10.0); 4];
    }
}

fn apply(style: &mut Style, parent: &Style, decl: &Declaration) {
    let value = decl.value.as_str();
    let lower = value.to_ascii_lowercase();
    let em = style.font_size;
    let len = |v: &str| parse_length(v, em);
    match decl.name.as_str() {
        "display" => {
            style.display = match lower.as_str() {
                "none" => Display::None,
                "inline" => Display::Inline,
                "block" | "flow-root" | "flow" => Display::Block,
                "inline-block" => Display::InlineBlock,
                "flex" | "-webkit-box" | "-webkit-flex" | "-ms-flexbox" => Display::Flex,
                "inline-flex" | "-webkit-inline-flex" | "-webkit-inline-box" => Display::InlineFlex,
                "grid" | "-ms-grid" => Display::Grid,
                "inline-grid" => Display::InlineGrid,
                "table" | "inline-table" => Display::Table,
                "table-row-group" | "table-header-group" | "table-footer-group" => Display::TableRowGroup,
                "table-row" => Display::TableRow,
                "table-cell" => Display::TableCell,
                "list-item" => Display::ListItem,
                "contents" => Display::Contents,
                _ => style.display,
            }
        }
        "visibility" => style.visible = !matches!(lower.as_str(), "hidden" | "collapse"),
        "opacity" if lower.trim().parse::<f32>().is_ok_and(|o| o <= 0.01) => style.visible = false,
        "position" => {
            style.position = match lower.as_str() {
                "absolute" | "fixed" => Position::Absolute,
                "static" | "relative" | "sticky" | "-webkit-sticky" => Position::Static,
                _ => style.position,
            }
        }
        "float" => {
            style.float = match lower.as_str() {
                "left" => Float::Left,
                "right" => Float::Right,
                "none" => Float::None,
                _ => style.float,
            }
        }
        "clear" => style.clear = lower != "none",
        "width" => set(&mut style.width, len(value)),
        "height" => set(&mut style.height, len(value)),
        "min-width" => set(&mut style.min_width, len(value)),
        "max-width" => set(&mut style.max_width, len(value)),
        "min-height" => set(&mut style.min_height, len(value)),
        "max-height" => set(&mut style.max_height, len(value)),
        "margin" => set_sides(&mut style.margin, value, em),
        "margin-top" | "margin-block-start" => set(&mut style.margin[0], len(value)),
        "margin-right" | "margin-inline-end" => set(&mut style.margin[1], len(value)),
        "margin-bottom" | "margin-block-end" => set(&mut style.margin[2], len(value)),
        "margin-left" | "margin-inline-start" => set(&mut style.margin[3], len(value)),
        "padding" => set_sides(&mut style.padding, value, em),
        "padding-top" | "padding-block-start" => set(&mut style.padding[0], len(value)),
        "padding-right" | "padding-inline-end" => set(&mut style.padding[1], len(value)),
        "padding-bottom" | "padding-block-end" => set(&mut style.padding[2], len(value)),
        "padding-left" | "padding-inline-start" => set(&mut style.padding[3], len(value)),
        "top" => set(&mut style.inset[0], len(value)),
        "right" => set(&mut style.inset[1], len(value)),
        "bottom" => set(&mut style.inset[2], len(value)),
        "left" => set(&mut style.inset[3], len(value)),
        "border" => {
            let (width, color) = parse_border(&lower, em);
            style.border = [width; 4];
            if color.is_some() {
                style.border_color = color;
            }
        }
        "border-top" | "border-right" | "border-bottom" | "border-left" => {
            let (width, color) = parse_border(&lower, em);
            let side = ["border-top", "border-right", "border-bottom", "border-left"].iter().position(|s| *s == decl.name).unwrap_or(0);
            style.border[side] = width;
            if color.is_some() {
                style.border_color = color;
            }
        }
        "border-width" => {
            let mut sides = [Length::Px(0.0); 4];
            set_sides(&mut sides, value, em);
            style.border = sides.map(|l| if let Length::Px(px) = l { px.clamp(0.0, 50.0) } else { 0.0 });
        }
        "border-style" if lower == "none" || lower == "hidden" => style.border = [0.0; 4],
        "border-color" => style.border_color = parse_color(&lower).or(style.border_color),
        "background" | "background-color" => {
            if lower == "none" || lower == "transparent" {
                style.background = None;
            } else if let Some(c) = lower.split_whitespace().find_map(parse_color).or_else(|| parse_color(&lower)) {
                style.background = (c[3] > 0).then_some(c);
            }
        }
        "font-size" => {
            if let Some(px) = parse_font_size(&lower, parent.font_size) {
                style.font_size = px;
            }
        }
        "font" => {
            for token in lower.split_whitespace() {
                let size = token.split('/').next().unwrap_or(token);
                if let Some(px) = parse_font_size(size, parent.font_size).filter(|_| size.ends_with(|c: char| c.is_ascii_alphabetic() || c == '%')) {
                    style.font_size = px;
                }
                if token == "bold" || token == "bolder" || token.parse::<u32>().is_ok_and(|w| w >= 600) {
                    style.bold = true;
                }
            }
        }
        "font-weight" => style.bold = matches!(lower.as_str(), "bold" | "bolder") || lower.parse::<u32>().is_ok_and(|w| w >= 600),
        "text-align" => {
            style.text_align = match lower.as_str() {
                "center" | "-webkit-center" => Align::Center,
                "right" | "end" => Align::End,
                "left" | "start" | "justify" => Align::Start,
                _ => style.text_align,
            }
        }
        "flex-direction" => {
            style.flex_row = lower.starts_with("row");
            style.flex_reverse = lower.ends_with("reverse");
        }
        "flex-wrap" => style.flex_wrap = lower.starts_with("wrap"),
        "flex-flow" => {
            for token in lower.split_whitespace() {
                match token {
                    "row" | "row-reverse" => style.flex_row = true,
                    "column" | "column-reverse" => style.flex_row = false,
                    "wrap" | "wrap-reverse" => style.flex_wrap = true,
                    "nowrap" => style.flex_wrap = false,
                    _ => {}
                }
            }
        }
        "flex" => apply_flex_shorthand(style, &lower, em),
        "flex-grow" => style.flex_grow = lower.parse().unwrap_or(style.flex_grow),
        "flex-shrink" => style.flex_shrink = lower.parse().unwrap_or(style.flex_shrink),
        "flex-basis" => set(&mut style.flex_basis, len(value)),
        "justify-content" => {
            style.justify_between = lower.starts_with("space-");
            style.justify = parse_align(&lower);
        }
        "align-items" => style.align_items = parse_align(&lower),
        "gap" | "grid-gap" => {
            let mut parts = lower.split_whitespace();
            let row = parts.next().and_then(|v| parse_length(v, em));
            let column = parts.next().and_then(|v| parse_length(v, em)).or(row);
            set(&mut style.gap[0], row);
            set(&mut style.gap[1], column);
        }
        "row-gap" | "grid-row-gap" => set(&mut style.gap[0], len(value)),
        "column-gap" | "grid-column-gap" => set(&mut style.gap[1], len(value)),
        "grid-template-columns" => style.grid_columns = Some(lower).filter(|v| v != "none"),
        "grid-column" => {
            let (start, end) = lower.split_once('/').unwrap_or((&lower, "auto"));
            style.grid_column = [parse_grid_line(start), parse_grid_line(end)];
        }
        "grid-column-start" => style.grid_column[0] = parse_grid_line(&lower),
        "grid-column-end" => style.grid_column[1] = parse_grid_line(&lower),
        _ => {}
    }
}

fn set(slot: &mut Length, value: Option<Length>) {
    if let Some(v) = value {
        *slot = v;
    }
}

/// 1 to 4 values: top, right, bottom, left as CSS spreads them.
fn set_sides(sides: &mut [Length; 4], value: &str, em: f32) {
    let values: Vec<Length> = value.split_whitespace().filter_map(|v| parse_length(v, em)).collect();
    let [t, r, b, l] = match values.as_slice() {
        [a] => [*a; 4],
        [a, b] => [*a, *b, *a, *b],
        [a, b, c] => [*a, *b, *c, *b],
        [a, b, c, d, ..] => [*a, *b, *c, *d],
        [] => return,
    };
    *sides = [t, r, b, l];
}

fn apply_flex_shorthand(style: &mut Style, value: &str, em: f32) {
    match value {
        "none" => (style.flex_grow, style.flex_shrink, style.flex_basis) = (0.0, 0.0, Length::Auto),
        "auto" => (style.flex_grow, style.flex_shrink, style.flex_basis) = (1.0, 1.0, Length::Auto),
        _ => {
            let mut numbers = Vec::new();
            let mut basis = None;
            for token in value.split_whitespace() {
                match token.parse::<f32>() {
                    Ok(n) if numbers.len() < 2 => numbers.push(n),
                    _ => basis = parse_length(token, em),
                }
            }
            style.flex_grow = numbers.first().copied().unwrap_or(1.0);
            style.flex_shrink = numbers.get(1).copied().unwrap_or(1.0);
            style.flex_basis = basis.unwrap_or(if numbers.is_empty() { Length::Auto } else { Length::Px(0.0) });
        }
    }
}

fn parse_align(value: &str) -> Option<Align> {
    match value.trim_start_matches("safe ").trim_start_matches("unsafe ") {
        "center" => Some(Align::Center),
        "flex-end" | "end" | "right" => Some(Align::End),
        "flex-start" | "start" | "left" | "stretch" | "normal" | "baseline" => Some(Align::Start),
        _ => None,
    }
}

/// A length, a percentage or `auto`; `calc()` and the like give `None` (the declaration is ignored).
pub fn parse_length(value: &str, em: f32) -> Option<Length> {
    let v = value.trim();
    if v.eq_ignore_ascii_case("auto") || v.eq_ignore_ascii_case("none") {
        return Some(Length::Auto);
    }
    if let Some(p) = v.strip_suffix('%') {
        return p.trim().parse::<f32>().ok().filter(|p| p.is_finite()).map(|p| Length::Percent(p / 100.0));
    }
    parse_length_px(v, em).map(Length::Px)
}

fn parse_font_size(value: &str, parent_px: f32) -> Option<f32> {
    let px = match value.trim() {
        "xx-small" => 9.0,
        "x-small" => 10.0,
        "small" => 13.0,
        "medium" => 16.0,
        "large" => 18.0,
        "x-large" => 24.0,
        "xx-large" => 32.0,
        "smaller" => parent_px / 1.2,
        "larger" => parent_px * 1.2,
        v => match parse_length(v, parent_px)? {
            Length::Px(px) => px,
            Length::Percent(p) => parent_px * p,
            Length::Auto => return None,
        },
    };
    (px.is_finite() && px >= 0.0).then_some(px.clamp(0.0, 200.0))
}

/// `border` shorthand: its width (0 for none) and colour.
fn parse_border(value: &str, em: f32) -> (f32, Option<Rgba>) {
    let mut width = None;
    let mut styled = false;
    let mut color = None;
    for token in split_top_level(value, ' ').filter(|t| !t.is_empty()) {
        match token {
            "none" | "hidden" | "0" => return (0.0, None),
            "thin" => width = Some(1.0),
            "medium" => width = Some(3.0),
            "thick" => width = Some(5.0),
            "solid" | "dashed" | "dotted" | "double" | "groove" | "ridge" | "inset" | "outset" => styled = true,
            t => {
                if let Some(px) = parse_length_px(t, em) {
                    width = Some(px);
                } else if let Some(c) = parse_color(t) {
                    color = Some(c);
                }
            }
        }
    }
    let width = width.unwrap_or(if styled { 3.0 } else { 0.0 });
    (width.clamp(0.0, 50.0), color)
}

/// `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb()`/`rgba()`, and common names.
pub fn parse_color(value: &str) -> Option<Rgba> {
    let v = value.trim().to_ascii_lowercase();
    if let Some(hex) = v.strip_prefix('#') {
        let digit = |i: usize| u8::from_str_radix(hex.get(i..i + 1)?, 16).ok();
        let pair = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
        return match hex.len() {
            3 | 4 => Some([digit(0)? * 17, digit(1)? * 17, digit(2)? * 17, if hex.len() == 4 { digit(3)? * 17 } else { 255 }]),
            6 | 8 => Some([pair(0)?, pair(2)?, pair(4)?, if hex.len() == 8 { pair(6)? } else { 255 }]),
            _ => None,
        };
    }
    if let Some(args) = v.strip_prefix("rgba(").or_else(|| v.strip_prefix("rgb(")).and_then(|a| a.strip_suffix(')')) {
        let parts: Vec<&str> = args.split([',', ' ', '/']).filter(|p| !p.is_empty()).collect();
        let channel = |p: &str| -> Option<u8> {
            let n = match p.strip_suffix('%') {
                Some(pct) => pct.parse::<f32>().ok()? * 2.55,
                None => p.parse::<f32>().ok()?,
            };
            Some(n.clamp(0.0, 255.0) as u8)
        };
        let alpha = match parts.get(3) {
            Some(a) => match a.strip_suffix('%') {
                Some(pct) => (pct.parse::<f32>().ok()? * 2.55).clamp(0.0, 255.0) as u8,
                None => (a.parse::<f32>().ok()? * 255.0).clamp(0.0, 255.0) as u8,
            },
            None => 255,
        };
        return Some([channel(parts.first()?)?, channel(parts.get(1)?)?, channel(parts.get(2)?)?, alpha]);
    }
    NAMED_COLORS.iter().find(|(name, _)| *name == v).map(|(_, c)| *c)
}

const NAMED_COLORS: &[(&str, Rgba)] = &[
    ("transparent", [0, 0, 0, 0]),
    ("white", [255, 255, 255, 255]),
    ("black", [0, 0, 0, 255]),
    ("red", [255, 0, 0, 255]),
    ("green", [0, 128, 0, 255]),
    ("blue", [0, 0, 255, 255]),
    ("navy", [0, 0, 128, 255]),
    ("gray", [128, 128, 128, 255]),
    ("grey", [128, 128, 128, 255]),
    ("silver", [192, 192, 192, 255]),
    ("lightgray", [211, 211, 211, 255]),
    ("lightgrey", [211, 211, 211, 255]),
    ("darkgray", [169, 169, 169, 255]),
    ("whitesmoke", [245, 245, 245, 255]),
    ("gainsboro", [220, 220, 220, 255]),
    ("yellow", [255, 255, 0, 255]),
    ("orange", [255, 165, 0, 255]),
    ("maroon", [128, 0, 0, 255]),
    ("purple", [128, 0, 128, 255]),
    ("teal", [0, 128, 128, 255]),
    ("aqua", [0, 255, 255, 255]),
    ("beige", [245, 245, 220, 255]),
    ("ivory", [255, 255, 240, 255]),
    ("lightblue", [173, 216, 230, 255]),
    ("lightyellow", [255, 255, 224, 255]),
];
