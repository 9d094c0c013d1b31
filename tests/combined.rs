//! The default extractor as a user meets it: `goce-warc extract page.html` (the trained
//! combiner) on the project's handwritten pages, the same text on every run, and a clear
//! error that says how to fix a missing or damaged model.

use std::path::{Path, PathBuf};

use crate::common::{bin, project_file, stderr};

fn expected(page: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(page.with_extension("json")).unwrap()).unwrap()
}

fn extract(page: &Path, extra: &[&str]) -> std::process::Output {
    let url = expected(page)["url"].as_str().unwrap().to_string();
    bin().args(["extract", page.to_str().unwrap(), "--url", &url]).args(extra).output().unwrap()
}

fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<_> = std::fs::read_dir(project_file("tests/fixtures/pages"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    pages.sort();
    pages
}

#[test]
fn the_default_extractor_keeps_each_pages_text_and_drops_its_chrome() {
    let all = pages();
    assert_eq!(all.len(), 12);
    let (mut misses, mut kept, mut wanted) = (Vec::new(), Vec::new(), 0);
    for page in &all {
        let out = extract(page, &["--json"]);
        assert!(out.status.success(), "{}: {}", page.display(), stderr(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["extractor"], "combined");
        let text = json["text"].as_str().unwrap();
        let want = expected(page);
        assert_eq!(json["title"], want["title"], "{}", page.display());
        let must: Vec<&str> = want["must_contain"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let found = must.iter().filter(|s| text.contains(**s)).count();
        assert!(found > 0, "{}: none of the page's text in\n{text}", page.display());
        wanted += must.len();
        misses.extend(must.iter().filter(|s| !text.contains(**s)).map(|s| format!("{}: missing {s:?}", page.display())));
        for s in want["must_not_contain"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()) {
            if text.contains(s) {
                kept.push(format!("{}: kept {s:?}", page.display()));
            }
        }
        // Paragraph and heading breaks survive: the text has several lines.
        assert!(text.lines().count() >= 3, "{}: {text:?}", page.display());
    }
    // A learned model may drop a sentence (one answer of the Q&A page today): at most one
    // phrase in ten may go missing, but no boilerplate phrase may stay.
    assert!(kept.is_empty(), "{}", kept.join("\n"));
    assert!(misses.len() * 10 <= wanted, "{} of {wanted} phrases missing:\n{}", misses.len(), misses.join("\n"));
}

#[test]
fn the_same_page_gives_the_same_text_every_time() {
    let page = project_file("tests/fixtures/pages/list-forum-thread.html");
    let first = extract(&page, &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    for _ in 0..2 {
        assert_eq!(extract(&page, &[]).stdout, first.stdout);
    }
}

#[test]
fn a_page_with_no_text_gives_an_empty_text_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("empty.html");
    std::fs::write(&page, "<html><head><title>Nothing here</title></head><body><img src=a.png></body></html>").unwrap();
    let out = bin().args(["extract", page.to_str().unwrap(), "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["text"], "");
    assert_eq!(json["title"], "Nothing here");
}

#[test]
fn a_missing_or_damaged_combiner_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let page = project_file("tests/fixtures/pages/article-news.html");
    let models = dir.path().to_str().unwrap();
    let out = extract(&page, &["--models", models]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("combiner.json") && err.contains("make model-extract"), "{err}");

    let bytes = std::fs::read(project_file("models/combiner.json")).unwrap();
    std::fs::write(dir.path().join("combiner.json"), &bytes[..bytes.len() / 2]).unwrap();
    let err = stderr(&extract(&page, &["--models", models]));
    assert!(err.contains("not a combiner model") && err.contains("make model-extract"), "{err}");
}

#[test]
fn pages_in_four_scripts_keep_every_paragraph_and_drop_the_menu_and_footer() {
    // The block inputs count stopwords in the page's own language and each Chinese
    // character as a word: a paragraph in any of these is prose, not a label.
    for (file, menu, footer) in [
        ("zh.html", "首页", "城市日报"),
        ("fr.html", "Accueil", "Mentions légales"),
        ("ru.html", "Главная", "Городская газета"),
        ("ar.html", "الرئيسية", "جريدة المدينة"),
    ] {
        let page = project_file(&format!("tests/fixtures/languages/{file}"));
        let out = bin().args(["extract", page.to_str().unwrap(), "--url", "https://news.example.org/library"]).output().unwrap();
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        let html = std::fs::read_to_string(&page).unwrap();
        let paragraphs: Vec<&str> = html.split("<p>").skip(1).filter_map(|p| p.split("</p>").next()).collect();
        assert_eq!(paragraphs.len(), 3, "{file}");
        for paragraph in paragraphs {
            assert!(text.contains(paragraph), "{file}: missing {paragraph:?} in\n{text}");
        }
        assert!(!text.contains(menu) && !text.contains(footer), "{file}: kept chrome in\n{text}");
    }
}
