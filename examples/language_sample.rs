//! How much of a text the language detector needs: for each sample size, the ms per text,
//! how often the code equals the `language` column's, and how often it agrees with the
//! declared language, per source. Reads JSON lines `{"text", "language", "declared",
//! "source"}` on standard input (the rows of `process` output folders; docs/languages.md
//! shows how they were made).
//!
//!     cargo run --release --example language_sample < texts.jsonl
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failure here is the report

use std::io::BufRead;
use std::time::Instant;

use goce_warc::page::language::detect_language_in;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rows: Vec<serde_json::Value> = Vec::new();
    for line in std::io::stdin().lock().lines() {
        rows.push(serde_json::from_str(&line?)?);
    }
    let field = |row: &serde_json::Value, name: &str| row[name].as_str().unwrap_or_default().to_string();
    let mut sources: Vec<String> = rows.iter().map(|r| field(r, "source")).collect();
    sources.sort();
    sources.dedup();
    for source in &sources {
        let rows: Vec<&serde_json::Value> = rows.iter().filter(|r| &field(r, "source") == source).collect();
        for bytes in [4096usize, 2048, 1024, 512] {
            let started = Instant::now();
            let (mut same, mut declaring, mut agreeing) = (0, 0, 0);
            for row in &rows {
                let text = field(row, "text");
                let code = detect_language_in(&text, bytes).map(|(code, _)| code).unwrap_or_default();
                same += usize::from(code == field(row, "language"));
                let declared = field(row, "declared");
                if !declared.is_empty() && !code.is_empty() {
                    declaring += 1;
                    agreeing += usize::from(code == declared);
                }
            }
            let ms = started.elapsed().as_secs_f64() * 1e3 / rows.len().max(1) as f64;
            println!(
                "{source}, first {bytes} bytes: {ms:.3} ms a text; the column's code on {same} of {}; the declared language on {agreeing} of {declaring} ({:.4})",
                rows.len(),
                agreeing as f64 / declaring.max(1) as f64
            );
        }
    }
    Ok(())
}
