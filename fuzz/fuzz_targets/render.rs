//! Any text as a page through the offline renderer: CSS parsing, the cascade, layout,
//! paint and inline SVG, within the renderer's box and time limits, never a panic.
#![no_main]
use goce_warc::dom::FOR_RENDERING;
use goce_warc::extract::{ExtractLimits, parse_page};
use goce_warc::render::{RenderOptions, render_lite};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let html = String::from_utf8_lossy(data);
    let limits = ExtractLimits { max_text_bytes: 64 << 10, max_elements: 20_000, max_page_time: std::time::Duration::from_millis(500) };
    let Ok(dom) = parse_page(&html, &limits, &FOR_RENDERING) else { return };
    let options = RenderOptions { size: 64, max_boxes: 5_000, time_limit: std::time::Duration::from_millis(300), ..RenderOptions::default() };
    let _ = render_lite(&dom, &options);
});
