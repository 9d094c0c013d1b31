//! `goce-warc extract` on single pages, as a user runs it.

use std::io::Write;
use std::process::Stdio;

use crate::common::*;

fn extract_json(args: &[&str]) -> serde_json::Value {
    let run = bin().arg("extract").args(args).arg("--json").output().unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    serde_json::from_slice(&run.stdout).unwrap()
}

#[test]
fn goce_with_the_known_genre_keeps_the_content_and_drops_the_hidden_parts() {
    for (page, gold) in fixtures() {
        let out = extract_json(&[&page, "--extractor", "goce", "--genre", &gold.genre]);
        assert_eq!(out["genre"], gold.genre.as_str());
        let text = out["text"].as_str().unwrap();
        for phrase in &gold.must_contain {
            assert!(text.contains(phrase.as_str()), "{page}: {phrase:?} missing from\n{text}");
        }
        for phrase in &gold.must_not_contain {
            assert!(!text.contains(phrase.as_str()), "{page}: {phrase:?} leaked");
        }
    }
}

#[test]
fn the_article_algorithm_leaves_the_page_chrome_out() {
    let page = project_file("tests/fixtures/pages/article-news.html");
    let all = extract_json(&[page.to_str().unwrap(), "--extractor", "all-text"]);
    let article = extract_json(&[page.to_str().unwrap(), "--extractor", "article"]);
    let (all, article) = (all["text"].as_str().unwrap(), article["text"].as_str().unwrap());
    assert!(article.len() < all.len() * 9 / 10, "the article is a part of the page");
    assert!(all.contains("We use cookies") && !article.contains("We use cookies"));
}

#[test]
fn a_page_on_standard_input_and_plain_text_output() {
    let html = std::fs::read(project_file("tests/fixtures/pages/list-classifieds-table.html")).unwrap();
    let mut child = bin().args(["extract", "-", "--extractor", "list-view"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(&html).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Tandem for touring, with luggage racks"));
    assert!(text.lines().count() >= 10, "one line per row at least:\n{text}");
}

#[test]
fn a_gzipped_page_file_is_read_like_the_plain_one() {
    let page = project_file("tests/fixtures/pages/article-news.html");
    let dir = tempfile::tempdir().unwrap();
    let gzipped = dir.path().join("article-news.html.gz");
    std::fs::write(&gzipped, gzip(&std::fs::read(&page).unwrap())).unwrap();
    let plain = extract_json(&[page.to_str().unwrap(), "--extractor", "article"]);
    let from_gz = extract_json(&[gzipped.to_str().unwrap(), "--extractor", "article"]);
    assert!(!plain["text"].as_str().unwrap().is_empty());
    assert_eq!(plain["text"], from_gz["text"]);
}

#[test]
fn oracle_without_a_genre_is_refused_with_a_reason() {
    let page = project_file("tests/fixtures/pages/article-news.html");
    let run = bin().args(["extract", page.to_str().unwrap(), "--extractor", "oracle"]).output().unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert!(stderr(&run).contains("--genre"));
}

/// The fixtures as a WCXB-style folder: html/ID.html.gz and ground-truth/ID.json, with
/// the must-contain phrases as the main content.
/// Every option of every flag the library offers is found by its own name and says what it does.
#[test]
fn every_option_is_found_by_its_own_name_and_has_help() {
    use goce_warc::choice::Choice;
    fn names_round_trip<T: Choice + PartialEq + std::fmt::Debug>() {
        let mut names: Vec<&str> = T::ALL.iter().map(|c| c.name()).collect();
        for &c in T::ALL {
            assert_eq!(T::from_name(c.name()), Some(c));
            assert!(!c.help().is_empty(), "{c:?} has no help");
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), T::ALL.len(), "two options share a name");
        assert_eq!(T::from_name("no-such-option"), None);
    }
    names_round_trip::<goce_warc::extract::Extractor>();
    names_round_trip::<goce_warc::extract::Genre>();
    names_round_trip::<goce_warc::render::RendererKind>();
}
