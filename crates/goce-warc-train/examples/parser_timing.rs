//! The parse against other HTML tokenizers on the same pages, one thread: what a faster
//! tokenizer could save. Each page goes through the default's pre-pass first (as in
//! `process`), then: goce-warc's whole parse (`Dom::parse_with`: pre-pass, html5ever's
//! tokenizer and tree builder, the arena), html5ever's tokenizer alone (tokens counted),
//! html5gum's tokenizer (tokens counted), and lol_html's (every element and text chunk
//! seen by a handler, nothing rewritten).
//! `cargo run --release -p goce-warc-train --example parser_timing -- ../shared/data/wcxb-dev ../shared/data/trafi-dev`
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failure here is the report
use std::cell::Cell;
use std::time::{Duration, Instant};

use goce_warc::dom::{Dom, DomLimits, FOR_WEB2TEXT};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{BufferQueue, Token, TokenSink, TokenSinkResult, Tokenizer};

/// Counts html5ever's tokens and does nothing else.
#[derive(Default)]
struct Count(Cell<u64>);

impl TokenSink for Count {
    type Handle = ();
    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        if !matches!(token, Token::ParseError(_)) {
            self.0.set(self.0.get() + 1);
        }
        TokenSinkResult::Continue
    }
}

fn main() -> anyhow::Result<()> {
    for dir in std::env::args().skip(1) {
        let pages: Vec<String> = goce_warc_train::gold::load(std::path::Path::new(&dir))?.iter().filter_map(|p| p.read_html().ok()).collect();
        let mut t = [Duration::ZERO; 5];
        let (mut bytes, mut html5ever_tokens, mut html5gum_tokens, mut lol_events) = (0usize, 0u64, 0u64, 0u64);
        for html in &pages {
            let s = Instant::now();
            let stripped = FOR_WEB2TEXT.apply(html).into_owned();
            t[0] += s.elapsed();
            bytes += stripped.len();

            let s = Instant::now();
            std::hint::black_box(Dom::parse_with(html, DomLimits { max_elements: 200_000, deadline: None }, &FOR_WEB2TEXT)?);
            t[1] += s.elapsed();

            let s = Instant::now();
            let tokenizer = Tokenizer::new(Count::default(), Default::default());
            let input = BufferQueue::default();
            input.push_back(StrTendril::from_slice(&stripped));
            let _ = tokenizer.feed(&input);
            tokenizer.end();
            html5ever_tokens += tokenizer.sink.0.get();
            t[2] += s.elapsed();

            let s = Instant::now();
            for token in html5gum::Tokenizer::new(stripped.as_str()).flatten() {
                if !matches!(token, html5gum::Token::Error(_)) {
                    html5gum_tokens += 1;
                }
            }
            t[3] += s.elapsed();

            let s = Instant::now();
            let events = Cell::new(0u64);
            let mut rewriter = lol_html::HtmlRewriter::new(
                lol_html::Settings::new()
                    .append_element_content_handler(lol_html::element!("*", |_el| {
                        events.set(events.get() + 1);
                        Ok(())
                    }))
                    .append_element_content_handler(lol_html::text!("*", |_t| {
                        events.set(events.get() + 1);
                        Ok(())
                    })),
                |_: &[u8]| {},
            );
            rewriter.write(stripped.as_bytes())?;
            rewriter.end()?;
            lol_events += events.get();
            t[4] += s.elapsed();
        }
        let n = pages.len().max(1) as f64;
        let ms = |d: Duration| d.as_secs_f64() * 1000.0 / n;
        println!("{dir}: {} pages, {:.0} KB a page after the pre-pass", pages.len(), bytes as f64 / n / 1024.0);
        println!("{:>40}: {:.2} ms/page", "pre-pass", ms(t[0]));
        println!("{:>40}: {:.2} ms/page", "goce-warc parse (pre-pass, html5ever, tree)", ms(t[1]));
        println!("{:>40}: {:.2} ms/page ({html5ever_tokens} tokens)", "html5ever tokenizer alone", ms(t[2]));
        println!("{:>40}: {:.2} ms/page ({html5gum_tokens} tokens)", "html5gum 0.9 tokenizer", ms(t[3]));
        println!("{:>40}: {:.2} ms/page ({lol_events} elements and text chunks)", "lol_html 3, handlers on every element", ms(t[4]));
    }
    Ok(())
}
