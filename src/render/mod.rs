//! Stage 4, render: a page's DOM → a small wireframe picture the genre classifier looks at.
//!
//! The lite renderer is ours: `<style>` rules and per-tag defaults ([`css`], [`style`]) →
//! a taffy layout ([`layout`]) → tiny-skia paint ([`paint`]). It never touches the network,
//! the same bytes give the same pixels, and every page is bounded (boxes, depth, time,
//! height). [`chrome`] drives headless Chromium as the optional fallback.

pub mod chrome;
pub mod css;
pub mod layout;
pub mod paint;
pub mod style;

#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

use crate::dom::{Dom, NodeData};
use css::{PageKeys, Stylesheet, media_matches};

/// The browser window the page is laid out in, in CSS px.
pub const VIEWPORT_WIDTH: f32 = 1024.0;
/// What `vh` refers to.
pub const VIEWPORT_HEIGHT: f32 = 768.0;

/// Which renderer draws the picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RendererKind {
    /// Our own offline wireframe renderer.
    #[default]
    Lite,
    /// Headless Chromium over CDP.
    Chrome,
    /// Lite, and Chromium when the lite picture is nearly empty.
    Auto,
}

/// How a picture is taken and the bounds on taking it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenderOptions {
    pub viewport_width: f32,
    /// The picture's width in pixels; the scale is `size / viewport_width`.
    pub size: u32,
    /// The whole page (up to `max_page_height`) instead of the square top `viewport_width` px.
    pub full: bool,
    pub max_boxes: usize,
    pub max_page_height: f32,
    pub time_limit: Duration,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self { viewport_width: VIEWPORT_WIDTH, size: 224, full: false, max_boxes: 20_000, max_page_height: 16_384.0, time_limit: Duration::from_millis(500) }
    }
}

/// A bound a page went over; the picture then shows what was drawn before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum RenderLimit {
    #[error("more boxes than the limit; the rest of the page is left out")]
    TooManyBoxes,
    #[error("elements nested deeper than the limit are left out")]
    TooDeep,
    #[error("the time limit ran out; the rest of the page is left out")]
    TimeLimit,
    #[error("the page is taller than the limit; cut at the limit")]
    PageTooTall,
    #[error("layout failed; a blank picture")]
    LayoutFailed,
}

impl crate::choice::Choice for RendererKind {
    const ALL: &'static [Self] = &[Self::Lite, Self::Chrome, Self::Auto];

    fn name(self) -> &'static str {
        RendererKind::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            Self::Lite => "Our own offline wireframe renderer",
            Self::Chrome => "Headless Chromium over CDP",
            Self::Auto => "Lite, and Chromium when the lite picture is nearly empty",
        }
    }
}

impl RendererKind {
    pub fn name(self) -> &'static str {
        match self {
            Self::Lite => "lite",
            Self::Chrome => "chrome",
            Self::Auto => "auto",
        }
    }
}

impl RenderLimit {
    pub fn name(self) -> &'static str {
        match self {
            Self::TooManyBoxes => "render_too_many_boxes",
            Self::TooDeep => "render_too_deep",
            Self::TimeLimit => "render_time_limit",
            Self::PageTooTall => "render_page_too_tall",
            Self::LayoutFailed => "render_layout_failed",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("cannot encode the picture as PNG: {0}")]
    Png(String),
    #[error(transparent)]
    Chrome(#[from] chrome::ChromeError),
}

/// An RGB picture, row-major, 3 bytes a pixel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
}

impl Picture {
    pub fn blank(width: u32, height: u32) -> Self {
        Self { width, height, rgb: vec![255; width as usize * height as usize * 3] }
    }

    fn from_pixmap(pixmap: &tiny_skia::Pixmap) -> Self {
        // Painted over an opaque background, so premultiplied RGBA is plain RGBA.
        let rgb = pixmap.data().chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        Self { width: pixmap.width(), height: pixmap.height(), rgb }
    }

    /// The share of pixels that differ from the top-left (background) pixel.
    pub fn ink_share(&self) -> f32 {
        let Some(bg) = self.rgb.get(..3) else { return 0.0 };
        let pixels = self.rgb.len() / 3;
        if pixels == 0 {
            return 0.0;
        }
        let inked = self.rgb.chunks_exact(3).filter(|p| p.iter().zip(bg).any(|(a, b)| a.abs_diff(*b) > 8)).count();
        inked as f32 / pixels as f32
    }

    pub fn to_png(&self) -> Result<Vec<u8>, RenderError> {
        let mut pixmap = tiny_skia::Pixmap::new(self.width, self.height).ok_or_else(|| RenderError::Png("empty picture".into()))?;
        for (dst, src) in pixmap.data_mut().chunks_exact_mut(4).zip(self.rgb.chunks_exact(3)) {
            dst.copy_from_slice(&[src[0], src[1], src[2], 255]);
        }
        pixmap.encode_png().map_err(|e| RenderError::Png(e.to_string()))
    }

    pub fn from_png(bytes: &[u8]) -> Result<Self, RenderError> {
        let pixmap = tiny_skia::Pixmap::decode_png(bytes).map_err(|e| RenderError::Png(e.to_string()))?;
        // Flatten onto white: Chromium's screenshots are opaque, but be safe.
        let rgb = pixmap
            .data()
            .chunks_exact(4)
            .flat_map(|p| {
                let a = u16::from(p[3]);
                [0, 1, 2].map(|i| (u16::from(p[i]) + (255 - a)).min(255) as u8)
            })
            .collect();
        Ok(Self { width: pixmap.width(), height: pixmap.height(), rgb })
    }
}

/// A picture and how it was taken.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub picture: Picture,
    pub renderer: RendererKind,
    pub limit: Option<RenderLimit>,
    pub boxes: usize,
    pub page_height: f32,
    /// Time spent styling and laying out, and painting.
    pub layout_time: Duration,
    pub paint_time: Duration,
}

/// The text of the page's `<style>` sheets whose `media` applies.
pub fn style_sheets(dom: &Dom, viewport_width: f32) -> Vec<&str> {
    dom.descendants(crate::dom::DOCUMENT)
        .filter(|&id| {
            dom.element(id)
                .is_some_and(|e| e.tag() == "style" && e.name.ns == html5ever::ns!(html) && e.attr("media").is_none_or(|m| media_matches(m, viewport_width)))
        })
        .flat_map(|id| dom.children(id).iter().filter_map(|&c| if let NodeData::Text(t) = &dom.nodes[c].data { Some(t.as_str()) } else { None }))
        .collect()
}

/// Styles and lays out a page without painting it (tests and `GOCE_RENDER_DEBUG`).
pub fn layout_lite(dom: &Dom, options: &RenderOptions) -> Result<layout::Layout, layout::LayoutError> {
    layout_until(dom, options, Instant::now() + options.time_limit)
}

fn layout_until(dom: &Dom, options: &RenderOptions, deadline: Instant) -> Result<layout::Layout, layout::LayoutError> {
    let keys = PageKeys::of(dom);
    let sheet = Stylesheet::parse(style_sheets(dom, options.viewport_width), &keys, options.viewport_width);
    let bounds = layout::LayoutBounds { max_boxes: options.max_boxes, deadline: Some(deadline) };
    layout::build(dom, &sheet, options.viewport_width, bounds)
}

/// Renders with the lite renderer. Never fails: over a bound, the picture shows what was
/// drawn before the bound (or is blank) and `limit` says which.
pub fn render_lite(dom: &Dom, options: &RenderOptions) -> Rendered {
    let started = Instant::now();
    let scale = options.size as f32 / options.viewport_width;
    // taffy is not ours: a panic inside it must not take the run down.
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| layout_until(dom, options, started + options.time_limit)));
    let layout_time = started.elapsed();
    let square = options.size;
    let Ok(Ok(layout)) = built else {
        return Rendered {
            picture: Picture::blank(square, square),
            renderer: RendererKind::Lite,
            limit: Some(RenderLimit::LayoutFailed),
            boxes: 0,
            page_height: 0.0,
            layout_time,
            paint_time: Duration::ZERO,
        };
    };
    let page_height = layout.tree.layout(layout.root).map_or(0.0, |l| l.size.height);
    let mut limit = layout.limit;
    let painted_height = if options.full {
        if page_height > options.max_page_height {
            limit = limit.or(Some(RenderLimit::PageTooTall));
        }
        page_height.clamp(1.0, options.max_page_height)
    } else {
        options.viewport_width
    };
    let frame = paint::Frame { page_height: painted_height, scale, width: options.size, height: ((painted_height * scale).round() as u32).max(1) };
    let paint_started = Instant::now();
    let painted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| paint::paint(&layout, dom, frame)));
    let paint_time = paint_started.elapsed();
    let picture = match painted {
        Ok(Some(pixmap)) => Picture::from_pixmap(&pixmap),
        _ => {
            limit = Some(RenderLimit::LayoutFailed);
            Picture::blank(frame.width, frame.height)
        }
    };
    Rendered { picture, renderer: RendererKind::Lite, limit, boxes: layout.boxes, page_height, layout_time, paint_time }
}

/// `auto` falls back to Chromium when the lite picture has less ink than this share:
/// a page whose content needs scripts or external CSS, or one the lite renderer cannot lay out.
pub const AUTO_FALLBACK_INK: f32 = 0.01;

/// The render stage as the pipeline uses it: the chosen renderer, its options, and the
/// Chromium browsers it keeps alive when it may need them.
pub struct PageRenderer {
    pub kind: RendererKind,
    pub options: RenderOptions,
    chrome: Option<chrome::ChromePool>,
}

/// Time a Chromium page may take before its browser is killed and the page counted.
pub const CHROME_PAGE_TIMEOUT: Duration = Duration::from_secs(10);

impl std::fmt::Debug for PageRenderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageRenderer").field("kind", &self.kind).field("options", &self.options).finish_non_exhaustive()
    }
}

impl PageRenderer {
    /// Finds Chromium up front when the kind may use it, so a missing browser is one clear
    /// error at the start rather than one per page.
    pub fn new(kind: RendererKind, options: RenderOptions) -> Result<Self, RenderError> {
        let chrome = match kind {
            RendererKind::Lite => None,
            RendererKind::Chrome | RendererKind::Auto => Some(chrome::ChromePool::new(CHROME_PAGE_TIMEOUT, options.viewport_width)?),
        };
        Ok(Self { kind, options, chrome })
    }

    /// Renders a page: `html` is its source (for Chromium), `dom` its tree parsed with styles.
    pub fn render(&self, html: &str, dom: &Dom) -> Result<Rendered, RenderError> {
        let chrome_shot = |pool: &chrome::ChromePool| -> Result<Rendered, RenderError> {
            let started = Instant::now();
            let picture = pool.screenshot(html, &self.options)?;
            Ok(Rendered {
                picture,
                renderer: RendererKind::Chrome,
                limit: None,
                boxes: 0,
                page_height: 0.0,
                layout_time: Duration::ZERO,
                paint_time: started.elapsed(),
            })
        };
        match (&self.chrome, self.kind) {
            (Some(pool), RendererKind::Chrome) => chrome_shot(pool),
            (Some(pool), RendererKind::Auto) => {
                let lite = render_lite(dom, &self.options);
                if lite.picture.ink_share() >= AUTO_FALLBACK_INK {
                    return Ok(lite);
                }
                // A failed fallback keeps the lite picture: the page is still classified.
                Ok(chrome_shot(pool).unwrap_or(lite))
            }
            _ => Ok(render_lite(dom, &self.options)),
        }
    }
}
