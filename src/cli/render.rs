//! `goce-warc render`: pages drawn as the classifier sees them.

use super::*;

#[derive(Args, Debug)]
pub struct RenderArgs {
    /// HTML files (`.html` or `.html.gz`), or `-` for standard input.
    #[arg(value_name = "PAGE", required = true)]
    pub pages: Vec<String>,

    /// Where the picture goes: a `.png` file for one page, else a folder (PAGE-STEM.png each).
    #[arg(short, long, value_name = "PATH")]
    pub output: PathBuf,

    /// Which renderer draws the picture.
    #[arg(long, value_parser = choice::<goce_warc::render::RendererKind>(), default_value = "lite")]
    pub renderer: goce_warc::render::RendererKind,

    /// Viewport width in CSS px.
    #[arg(long, default_value_t = goce_warc::render::VIEWPORT_WIDTH)]
    pub width: f32,

    /// Picture width in pixels (the top WIDTH x WIDTH px of the page, scaled to SIZE x SIZE).
    #[arg(long, default_value_t = 224)]
    pub size: u32,

    /// The whole page, as tall as it is (up to 16,384 CSS px), instead of the square top.
    #[arg(long)]
    pub full: bool,

    /// Print a JSON line per page (renderer, limit hit, boxes, milliseconds).
    #[arg(long)]
    pub json: bool,

    /// Pages rendered at once (with `chrome`, one browser each).
    #[arg(long, short = 'j', default_value_t = 1, value_name = "N")]
    pub threads: usize,

    /// Print pages/s for the whole run on standard error.
    #[arg(long)]
    pub stats: bool,
}

pub(super) fn render(args: RenderArgs) -> anyhow::Result<ExitCode> {
    use goce_warc::dom::{Dom, DomLimits};
    use goce_warc::render::{PageRenderer, RenderOptions};
    anyhow::ensure!(args.size >= 8 && args.size <= 4096, "--size must be between 8 and 4096");
    anyhow::ensure!(args.width >= 64.0 && args.width <= 8192.0, "--width must be between 64 and 8192");
    let options = RenderOptions { viewport_width: args.width, size: args.size, full: args.full, ..RenderOptions::default() };
    let renderer = PageRenderer::new(args.renderer, options)?;
    let single_file = args.pages.len() == 1 && args.output.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !single_file {
        std::fs::create_dir_all(&args.output).with_context(|| format!("creating {}", args.output.display()))?;
    }
    let render_one = |page: &String| -> anyhow::Result<serde_json::Value> {
        let html = read_page(page)?;
        let limits = DomLimits { max_elements: ExtractLimits::default().max_elements, deadline: None };
        let dom = Dom::parse_with_styles(&html, limits)?;
        let rendered = renderer.render(&html, &dom)?;
        let target = if single_file {
            args.output.clone()
        } else {
            let name = std::path::Path::new(page).file_name().and_then(|n| n.to_str()).unwrap_or("stdin");
            let stem = name.trim_end_matches(".gz").trim_end_matches(".html").trim_end_matches(".htm");
            args.output.join(format!("{}.png", if stem.is_empty() { "page" } else { stem }))
        };
        std::fs::write(&target, rendered.picture.to_png()?).with_context(|| format!("writing {}", target.display()))?;
        Ok(serde_json::json!({
            "page": page,
            "picture": target,
            "renderer": rendered.renderer,
            "limit": rendered.limit.map(|l| l.name()),
            "boxes": rendered.boxes,
            "page_height": rendered.page_height,
            "layout_ms": rendered.layout_time.as_secs_f64() * 1e3,
            "paint_ms": rendered.paint_time.as_secs_f64() * 1e3,
            "ink": rendered.picture.ink_share(),
        }))
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.max(1)).build().context("starting worker threads")?;
    let started = std::time::Instant::now();
    // Pages in order, in chunks, so reports come out as they are done.
    let mut failed = 0;
    for chunk in args.pages.chunks(64) {
        let outcomes: Vec<anyhow::Result<serde_json::Value>> = pool.install(|| {
            use rayon::prelude::*;
            chunk.par_iter().map(render_one).collect()
        });
        for (page, outcome) in chunk.iter().zip(outcomes) {
            match outcome {
                Ok(report) if args.json => print_stdout(&report.to_string())?,
                Ok(_) => {}
                Err(e) => {
                    failed += 1;
                    eprintln!("goce-warc: {page}: {e:#}");
                }
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    tracing::info!("{} pages in {secs:.2} s: {:.1} pages/s with {} threads", args.pages.len(), args.pages.len() as f64 / secs.max(1e-9), args.threads);
    if args.stats {
        eprintln!(
            "rendered {} pages ({failed} failed) in {secs:.2} s: {:.1} pages/s with {} threads",
            args.pages.len(),
            args.pages.len() as f64 / secs.max(1e-9),
            args.threads
        );
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
