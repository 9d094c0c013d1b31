//! Paint: the laid-out boxes drawn straight at the picture's scale with tiny-skia,
//! anti-aliased (thin text bars vanish without it), inline SVG through resvg.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use tiny_skia::{Paint, Pixmap, Rect, Transform};

use super::layout::{BoxInfo, Layout, Leaf, Placed, SegmentKind};
use super::style::{Ink, Replaced, Rgba};
use crate::dom::{Dom, NodeData, NodeId};

/// The wireframe's palette: what a glance tells apart.
pub mod palette {
    use super::Rgba;
    pub const PAGE: Rgba = [255, 255, 255, 255];
    pub const TEXT: Rgba = [110, 110, 110, 255];
    pub const LINK: Rgba = [30, 80, 220, 255];
    pub const HEADING: Rgba = [20, 20, 20, 255];
    pub const IMAGE_FILL: Rgba = [196, 208, 222, 255];
    pub const IMAGE_EDGE: Rgba = [130, 150, 175, 255];
    pub const CONTROL_FILL: Rgba = [246, 246, 246, 255];
    pub const CONTROL_EDGE: Rgba = [118, 118, 118, 255];
    pub const BUTTON_FILL: Rgba = [225, 225, 225, 255];
    pub const MEDIA: Rgba = [60, 60, 60, 255];
    pub const BORDER: Rgba = [150, 150, 150, 255];
}

/// A text bar is this share of its line's height.
const BAR_SHARE: f32 = 0.5;
/// Inline SVG larger than this is drawn as an image box instead.
pub const MAX_SVG_BYTES: usize = 256 << 10;
const SVG_CACHE_ENTRIES: usize = 512;

/// The region of the page painted, in CSS px, and the picture's size.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub page_height: f32,
    pub scale: f32,
    pub width: u32,
    pub height: u32,
}

pub fn paint(layout: &Layout, dom: &Dom, frame: Frame) -> Option<Pixmap> {
    let mut pixmap = Pixmap::new(frame.width.max(1), frame.height.max(1))?;
    let background = layout.page_background.filter(|c| c[3] > 0).unwrap_or(palette::PAGE);
    pixmap.fill(color(background));
    let mut painter = Painter { pixmap, dom, layout, transform: Transform::from_scale(frame.scale, frame.scale), bottom: frame.page_height };
    painter.node(layout.root, 0.0, 0.0, 0);
    Some(painter.pixmap)
}

fn color(c: Rgba) -> tiny_skia::Color {
    tiny_skia::Color::from_rgba8(c[0], c[1], c[2], c[3])
}

struct Painter<'a> {
    pixmap: Pixmap,
    dom: &'a Dom,
    layout: &'a Layout,
    transform: Transform,
    bottom: f32,
}

impl Painter<'_> {
    fn fill(&mut self, x: f32, y: f32, w: f32, h: f32, c: Rgba) {
        // Nothing to draw, and tiny-skia would log about an empty path.
        if w <= 0.0 || h <= 0.0 || !(w * h).is_finite() || c[3] == 0 {
            return;
        }
        let Some(rect) = Rect::from_xywh(x, y, w, h) else { return };
        let mut paint = Paint::default();
        paint.set_color(color(c));
        paint.anti_alias = true;
        self.pixmap.fill_rect(rect, &paint, self.transform, None);
    }

    fn outlined(&mut self, x: f32, y: f32, w: f32, h: f32, fill: Rgba, edge: Rgba) {
        self.fill(x, y, w, h, fill);
        self.border(x, y, w, h, [1.0; 4], edge);
    }

    fn border(&mut self, x: f32, y: f32, w: f32, h: f32, widths: [f32; 4], c: Rgba) {
        let [top, right, bottom, left] = widths;
        if top > 0.0 {
            self.fill(x, y, w, top, c);
        }
        if bottom > 0.0 {
            self.fill(x, y + h - bottom, w, bottom, c);
        }
        if left > 0.0 {
            self.fill(x, y, left, h, c);
        }
        if right > 0.0 {
            self.fill(x + w - right, y, right, h, c);
        }
    }

    fn node(&mut self, node: taffy::NodeId, parent_x: f32, parent_y: f32, depth: usize) {
        let Ok(layout) = self.layout.tree.layout(node) else { return };
        let (x, y) = (parent_x + layout.location.x, parent_y + layout.location.y);
        let (w, h) = (layout.size.width, layout.size.height);
        if y > self.bottom || depth > 4 * super::layout::MAX_DEPTH {
            return;
        }
        if let Some(info) = self.layout.tree.get_node_context(node)
            && info.visible
        {
            self.decorate(info, x, y, w, h);
        }
        let Ok(children) = self.layout.tree.children(node) else { return };
        for child in children {
            self.node(child, x, y, depth + 1);
        }
    }

    fn decorate(&mut self, info: &BoxInfo, x: f32, y: f32, w: f32, h: f32) {
        if let Some(bg) = info.background {
            self.fill(x, y, w, h, bg);
        }
        if info.border.iter().any(|&b| b > 0.0) {
            self.border(x, y, w, h, info.border, info.border_color.unwrap_or(palette::BORDER));
        }
        match &info.leaf {
            Some(Leaf::Replaced { kind, node, .. }) => self.replaced(*kind, *node, x, y, w, h),
            Some(Leaf::Run(run)) => {
                let (placed, _) = run.lines(w);
                for Placed { x: px, y: py, width, line_height, segment } in placed {
                    let Some(s) = run.segments.get(segment) else { continue };
                    match s.kind {
                        SegmentKind::Text(ink) => {
                            let bar = s.height * BAR_SHARE;
                            let top = y + py + (line_height - s.height) + (s.height - bar) / 2.0;
                            let c = match ink {
                                Ink::Text => palette::TEXT,
                                Ink::Link => palette::LINK,
                                Ink::Heading => palette::HEADING,
                            };
                            self.fill(x + px, top, width, bar, c);
                        }
                        SegmentKind::Box(kind, node) => self.replaced(kind, node, x + px, y + py + line_height - s.height, s.width, s.height),
                        SegmentKind::Break => {}
                    }
                }
            }
            None => {}
        }
    }

    fn replaced(&mut self, kind: Replaced, node: NodeId, x: f32, y: f32, w: f32, h: f32) {
        match kind {
            Replaced::Image => self.outlined(x, y, w, h, palette::IMAGE_FILL, palette::IMAGE_EDGE),
            Replaced::Control => self.outlined(x, y, w, h, palette::CONTROL_FILL, palette::CONTROL_EDGE),
            Replaced::Button => self.outlined(x, y, w, h, palette::BUTTON_FILL, palette::CONTROL_EDGE),
            Replaced::Media => self.fill(x, y, w, h, palette::MEDIA),
            Replaced::Svg => {
                if !self.svg(node, x, y, w, h) {
                    self.outlined(x, y, w, h, palette::IMAGE_FILL, palette::IMAGE_EDGE);
                }
            }
        }
    }

    /// Draws an inline `<svg>` into its box; false when it cannot be drawn.
    fn svg(&mut self, node: NodeId, x: f32, y: f32, w: f32, h: f32) -> bool {
        if w <= 0.0 || h <= 0.0 {
            return true;
        }
        let Some(tree) = svg_tree(self.dom, node) else { return false };
        let size = tree.size();
        let (sx, sy) = (w / size.width(), h / size.height());
        let transform = self.transform.pre_translate(x, y).pre_scale(sx, sy);
        resvg::render(&tree, transform, &mut self.pixmap.as_mut());
        true
    }
}

thread_local! {
    /// Parsed inline SVGs by source: icons repeat within and across pages.
    static SVG_CACHE: RefCell<HashMap<u64, Option<Arc<resvg::usvg::Tree>>>> = RefCell::new(HashMap::new());
}

fn svg_tree(dom: &Dom, node: NodeId) -> Option<Arc<resvg::usvg::Tree>> {
    let source = serialize_svg(dom, node)?;
    let mut hasher = DefaultHasher::new();
    source.hash(&mut hasher);
    let key = hasher.finish();
    if let Some(hit) = SVG_CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return hit;
    }
    let tree = resvg::usvg::Tree::from_str(&source, &resvg::usvg::Options::default()).ok().map(Arc::new);
    SVG_CACHE.with(|c| {
        let mut cache = c.borrow_mut();
        if cache.len() >= SVG_CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(key, tree.clone());
    });
    tree
}

/// The `<svg>` subtree as standalone SVG XML (with the namespace html5ever keeps apart).
pub fn serialize_svg(dom: &Dom, node: NodeId) -> Option<String> {
    let mut out = String::new();
    write_svg(dom, node, &mut out, true, 0);
    (out.len() <= MAX_SVG_BYTES).then_some(out)
}

fn write_svg(dom: &Dom, node: NodeId, out: &mut String, root: bool, depth: usize) {
    if out.len() > MAX_SVG_BYTES || depth > 64 {
        return;
    }
    match dom.nodes.get(node).map(|n| &n.data) {
        Some(NodeData::Element(e)) => {
            out.push('<');
            out.push_str(e.tag());
            if root {
                out.push_str(" xmlns=\"http://www.w3.org/2000/svg\"");
            }
            for (name, value) in &e.attrs {
                if &**name == "xmlns" || name.starts_with("xmlns:") || name.contains(':') {
                    continue;
                }
                out.push(' ');
                out.push_str(name);
                out.push_str("=\"");
                out.push_str(&html_escape::encode_double_quoted_attribute(value));
                out.push('"');
            }
            out.push('>');
            for &child in dom.children(node) {
                write_svg(dom, child, out, false, depth + 1);
            }
            out.push_str("</");
            out.push_str(e.tag());
            out.push('>');
        }
        Some(NodeData::Text(t)) => out.push_str(&html_escape::encode_text(t)),
        _ => {}
    }
}
