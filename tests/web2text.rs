//! Web2Text as a user meets it: `--extractor web2text` and `goce-web2text` on the
//! project's handwritten pages, and a clear error when its model cannot load.

use std::path::Path;

use crate::common::{bin, project_file, stderr};

struct Expected {
    url: String,
    must_contain: Vec<String>,
    must_not_contain: Vec<String>,
}

fn expected(page: &Path) -> Expected {
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(page.with_extension("json")).unwrap()).unwrap();
    let list = |key: &str| json[key].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
    Expected { url: json["url"].as_str().unwrap().to_string(), must_contain: list("must_contain"), must_not_contain: list("must_not_contain") }
}

fn extract(page: &Path, extractor: &str, models: &Path) -> std::process::Output {
    let url = expected(page).url;
    bin().args(["extract", page.to_str().unwrap(), "--extractor", extractor, "--url", &url, "--device", "cpu", "--models"]).arg(models).output().unwrap()
}

fn pages(prefix: &str) -> Vec<std::path::PathBuf> {
    let mut pages: Vec<_> = std::fs::read_dir(project_file("tests/fixtures/pages"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "html") && p.file_name().unwrap().to_str().unwrap().starts_with(prefix))
        .collect();
    pages.sort();
    pages
}

fn assert_main_text(page: &Path, extractor: &str) {
    let out = extract(page, extractor, &project_file("models"));
    assert!(out.status.success(), "{}: {}", page.display(), stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let want = expected(page);
    for s in &want.must_contain {
        assert!(text.contains(s.as_str()), "{extractor} on {}: missing {s:?} in\n{text}", page.display());
    }
    for s in &want.must_not_contain {
        assert!(!text.contains(s.as_str()), "{extractor} on {}: kept boilerplate {s:?}", page.display());
    }
}

#[test]
fn web2text_keeps_the_article_and_drops_the_boilerplate() {
    let articles = pages("article-");
    assert_eq!(articles.len(), 6);
    for page in &articles {
        assert_main_text(page, "web2text");
    }
}

#[test]
fn goce_web2text_reads_articles_with_web2text_and_lists_with_list_view() {
    let all = pages("");
    assert_eq!(all.len(), 12);
    for page in &all {
        assert_main_text(page, "goce-web2text");
    }
}

#[test]
fn a_missing_or_damaged_web2text_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let page = project_file("tests/fixtures/pages/article-news.html");
    let out = extract(&page, "web2text", dir.path());
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("web2text.json") && err.contains("make model-web2text"), "{err}");

    for file in ["web2text.json", "web2text.safetensors"] {
        std::fs::copy(project_file("models").join(file), dir.path().join(file)).unwrap();
    }
    let weights = dir.path().join("web2text.safetensors");
    let bytes = std::fs::read(&weights).unwrap();
    std::fs::write(&weights, &bytes[..bytes.len() / 2]).unwrap();
    let err = stderr(&extract(&page, "web2text", dir.path()));
    assert!(err.contains("cannot load the weights") && err.contains("make model-web2text"), "{err}");
}
