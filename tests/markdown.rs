//! Markdown as a user asks for it: `process --markdown` fills the `markdown` column without
//! changing the text, a folder resumed with and without the flag keeps one schema, and
//! `extract --markdown` prints the page's structure.

use std::collections::HashMap;

use pulldown_cmark::{Event, Options, Parser, Tag};

use crate::common::*;

/// Lower-case words of a text.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// The words a CommonMark + GFM reader finds in the Markdown (math and image alt text
/// included), and how many headings, list items and table rows it holds.
fn read_back(markdown: &str) -> (Vec<String>, [usize; 3]) {
    let mut text = String::new();
    let mut counts = [0; 3];
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_MATH) {
        match event {
            Event::Start(Tag::Heading { .. }) => counts[0] += 1,
            Event::Start(Tag::Item) => counts[1] += 1,
            Event::Start(Tag::TableRow | Tag::TableHead) => counts[2] += 1,
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                text.push(' ');
                text.push_str(&t);
            }
            _ => text.push(' '),
        }
    }
    (words(&text), counts)
}

/// Every word of `text`, as often as it occurs there, is in `markdown`'s words.
fn holds_every_word(markdown: &[String], text: &[String]) -> Result<(), String> {
    let mut have: HashMap<&str, i64> = HashMap::new();
    for w in markdown {
        *have.entry(w).or_default() += 1;
    }
    for w in text {
        let n = have.entry(w).or_default();
        *n -= 1;
        if *n < 0 {
            return Err(format!("{w:?} missing"));
        }
    }
    Ok(())
}

#[test]
fn process_markdown_fills_the_column_and_leaves_the_text_as_it_was() {
    let (plain, with) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let run = process_paths(plain.path(), &samples(), &[]);
    assert!(run.status.success(), "{}", stderr(&run));
    let run = process_paths(with.path(), &samples(), &["--markdown"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let (plain, with) = (read_all_rows(plain.path()), read_all_rows(with.path()));
    assert_eq!(plain.len(), with.len());
    assert!(plain.iter().all(|r| r.markdown.is_none()), "without --markdown the column is null");
    let mut structure = [0; 3];
    for (a, b) in plain.iter().zip(&with) {
        assert_eq!((&a.url, &a.text, &a.text_sha256), (&b.url, &b.text, &b.text_sha256), "the text does not change");
        let markdown = b.markdown.as_deref().unwrap_or_else(|| panic!("{}: no markdown", b.url));
        let (read, counts) = read_back(markdown);
        if let Err(e) = holds_every_word(&read, &words(&b.text)) {
            panic!("{}: {e}\nmarkdown:\n{markdown}\ntext:\n{}", b.url, b.text);
        }
        for (total, n) in structure.iter_mut().zip(counts) {
            *total += n;
        }
    }
    let [headings, items, rows] = structure;
    assert!(headings >= 10 && items >= 10 && rows >= 3, "the sample pages' headings, lists and the classifieds table: {structure:?}");
}

#[test]
fn a_folder_resumed_with_and_without_markdown_keeps_one_schema() {
    let out = tempfile::tempdir().unwrap();
    let [articles, listings, _] = &samples()[..] else { panic!("three sample WARCs") };
    let run = process_paths(out.path(), std::slice::from_ref(articles), &[]);
    assert!(run.status.success(), "{}", stderr(&run));
    let run = process_paths(out.path(), &[articles.clone(), listings.clone()], &["--markdown"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let rows = read_all_rows(out.path());
    // The first input was done without the flag and is not redone; the second has Markdown.
    let (done_before, done_after): (Vec<_>, Vec<_>) = rows.iter().partition(|r| r.warc_file.contains("articles"));
    assert!(!done_before.is_empty() && done_before.iter().all(|r| r.markdown.is_none()));
    assert!(!done_after.is_empty() && done_after.iter().all(|r| r.markdown.is_some()));
    let schemas: Vec<String> = shard_files(out.path())
        .iter()
        .map(|p| {
            let file = std::fs::File::open(p).unwrap();
            let reader = parquet::file::reader::SerializedFileReader::new(file).unwrap();
            use parquet::file::reader::FileReader;
            format!("{:?}", reader.metadata().file_metadata().schema_descr().columns().iter().map(|c| c.path().string()).collect::<Vec<_>>())
        })
        .collect();
    assert!(schemas.windows(2).all(|w| w[0] == w[1]), "{schemas:?}");
    assert!(schemas[0].contains("markdown"));
}

#[test]
fn markdown_links_keep_the_words_and_add_only_addresses() {
    let out = tempfile::tempdir().unwrap();
    let run = process_paths(out.path(), &samples(), &["--markdown", "--markdown-links"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let mut links = 0;
    for row in read_all_rows(out.path()) {
        let markdown = row.markdown.as_deref().unwrap_or_else(|| panic!("{}: no markdown", row.url));
        links += Parser::new(markdown).filter(|e| matches!(e, Event::Start(Tag::Link { .. }))).count();
        // An address is no word of the Markdown's text: a link the reader could not read would
        // leave its address among the words, and a word the text lacks shows it.
        let (read, _) = read_back(markdown);
        let text = words(&row.text);
        if let Err(e) = holds_every_word(&read, &text).and(holds_every_word(&text, &read)) {
            panic!("{}: {e}\nmarkdown:\n{markdown}\ntext:\n{}", row.url, row.text);
        }
    }
    assert!(links >= 3, "the sample pages' links: {links}");
}

#[test]
fn extract_prints_the_page_as_markdown() {
    let page = project_file("tests/fixtures/pages/article-docs.html");
    let out = bin().args(["extract", page.to_str().unwrap(), "--markdown"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let markdown = String::from_utf8(out.stdout).unwrap();
    let (_, [headings, _, _]) = read_back(&markdown);
    assert!(headings >= 1, "{markdown}");

    let out = bin().args(["extract", page.to_str().unwrap(), "--markdown", "--json"]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["markdown"].as_str().map(str::trim_end), Some(markdown.trim_end()));
    assert!(json["text"].as_str().is_some_and(|t| !t.contains("## ")));

    let out = bin().args(["extract", page.to_str().unwrap(), "--json"]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json.get("markdown").is_none(), "only when asked for");

    let out = bin().args(["extract", page.to_str().unwrap(), "--markdown", "--extractor", "all-text"]).output().unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("keeps no blocks"), "{}", stderr(&out));
}
