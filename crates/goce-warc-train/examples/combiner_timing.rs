//! Where the combiner's time goes, per phase, over WCXB pages on one thread:
//! `cargo run --release -p goce-warc-train --example combiner_timing -- ../shared/data/wcxb-dev`
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failure here is the report
use std::time::{Duration, Instant};

use goce_warc::dom::{Dom, DomLimits, FOR_WEB2TEXT};
use goce_warc::extract::PageAnalysis;
use goce_warc::extract::combine::{BlockTable, CombinerModel};

fn main() -> anyhow::Result<()> {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "../shared/data/wcxb-dev".into()));
    let model = CombinerModel::load(std::path::Path::new("models"))?;
    let pages: Vec<String> = goce_warc_train::gold::load(&dir)?.iter().filter(|p| p.held_out).filter_map(|p| p.read_html().ok()).collect();
    let mut t = [Duration::ZERO; 6];
    // Every block input's and probability's bits and every text, hashed: a speed-up must leave it unchanged.
    let mut checksum = std::hash::DefaultHasher::new();
    for html in &pages {
        let s = Instant::now();
        let dom = Dom::parse_with(html, DomLimits { max_elements: 200_000, deadline: None }, &FOR_WEB2TEXT)?;
        t[0] += s.elapsed();
        let s = Instant::now();
        let page = PageAnalysis::new(&dom);
        let table = BlockTable::of(&page);
        t[1] += s.elapsed();
        let s = Instant::now();
        let p = model.probabilities(&table);
        t[2] += s.elapsed();
        let s = Instant::now();
        let content = model.content_of(&table, &p);
        t[3] += s.elapsed();
        let s = Instant::now();
        // The model's whole path from the block table (trees again, then the decision).
        let text = model.text_of(&table);
        t[4] += s.elapsed();
        // The page's language, which the blocks phase detects once (timed again here).
        let s = Instant::now();
        std::hint::black_box(table.cdom.language());
        t[5] += s.elapsed();
        let probability_bits: Vec<u64> = p.iter().map(|v| v.to_bits()).collect();
        std::hash::Hash::hash(&(table.rows_bits(), probability_bits, text, content), &mut checksum);
    }
    for (name, d) in ["parse", "blocks", "trees", "decision", "trees + text", "language (in blocks)"].iter().zip(t) {
        println!("{name:>22}: {:.3} ms/page", d.as_secs_f64() * 1e3 / pages.len() as f64);
    }
    println!("{:>22}: {:016x}", "checksum", std::hash::Hasher::finish(&checksum));
    Ok(())
}
