//! Times goce-warc's language detection (whatlang, on the first 4 KB of each text) over
//! texts given as JSON lines on standard input (`{"text": ...}`), as
//! `scripts/compare_language_detectors.py` feeds it; prints the codes, one per line, and
//! the rate on standard error.
//!
//!     cargo run --release --example language_timing < target/eval/language-texts.jsonl
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failure here is the report

use std::io::{BufRead, Write};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut texts = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let value: serde_json::Value = serde_json::from_str(&line?)?;
        texts.push(value["text"].as_str().unwrap_or_default().to_string());
    }
    let started = Instant::now();
    let detected: Vec<Option<String>> = texts.iter().map(|t| goce_warc::annotate::detect_language(t).map(|(code, _)| code)).collect();
    let seconds = started.elapsed().as_secs_f64();
    let mut out = std::io::stdout().lock();
    for code in &detected {
        writeln!(out, "{}", code.as_deref().unwrap_or(""))?;
    }
    eprintln!("whatlang: {} texts in {seconds:.3} s, {:.0} texts/s on one core", texts.len(), texts.len() as f64 / seconds.max(1e-9));
    Ok(())
}
