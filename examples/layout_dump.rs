//! Prints the lite renderer's boxes for a page: `cargo run --release --example layout_dump PAGE.html [MAX_DEPTH]`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failure here is the report
use goce_warc::dom::Dom;
use goce_warc::render::{RenderOptions, layout_lite};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or_else(|| anyhow::anyhow!("usage: layout_dump PAGE.html [MAX_DEPTH]"))?;
    let max_depth: usize = args.next().and_then(|d| d.parse().ok()).unwrap_or(12);
    let html = goce_warc::page::read_html_file(std::path::Path::new(&path))?;
    let dom = Dom::parse_with_styles(&html, goce_warc::dom::DomLimits { max_elements: 1 << 20, deadline: None })?;
    let layout = layout_lite(&dom, &RenderOptions::default())?;
    for b in layout.boxes().iter().filter(|b| b.depth <= max_depth && b.height > 0.0) {
        let label = match b.element.and_then(|e| dom.element(e)) {
            Some(e) => format!(
                "<{}{}{}>",
                e.tag(),
                e.attr("id").map(|i| format!(" #{i}")).unwrap_or_default(),
                if e.class().is_empty() { String::new() } else { format!(" .{}", e.class().split_whitespace().next().unwrap_or("")) }
            ),
            None if b.is_run => "text".into(),
            None => "anon".into(),
        };
        println!("{:indent$}{label} {:.0},{:.0} {:.0}x{:.0}", "", b.x, b.y, b.width, b.height, indent = b.depth);
    }
    Ok(())
}
