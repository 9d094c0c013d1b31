//! `goce-warc extract` on single pages and `goce-warc eval` on a small gold set, as a
//! user runs them.

use std::io::Write;
use std::process::Stdio;

use crate::common::*;

#[derive(serde::Deserialize)]
struct Gold {
    url: String,
    page_type: String,
    genre: String,
    must_contain: Vec<String>,
    must_not_contain: Vec<String>,
}

fn fixtures() -> Vec<(String, Gold)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(project_file("tests/fixtures/pages")).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "html") {
            let gold: Gold = serde_json::from_str(&std::fs::read_to_string(path.with_extension("json")).unwrap()).unwrap();
            out.push((path.to_str().unwrap().to_string(), gold));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

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
fn fixture_dataset(dir: &std::path::Path) {
    std::fs::create_dir_all(dir.join("html")).unwrap();
    std::fs::create_dir_all(dir.join("ground-truth")).unwrap();
    for (i, (page, gold)) in fixtures().into_iter().enumerate() {
        let id = format!("{:04}", i + 1);
        std::fs::write(dir.join("html").join(format!("{id}.html.gz")), gzip(&std::fs::read(&page).unwrap())).unwrap();
        let truth = serde_json::json!({
            "url": gold.url,
            "_internal": {"page_type": {"primary": gold.page_type}},
            "ground_truth": {"main_content": gold.must_contain.join("\n\n"), "with": gold.must_contain, "without": gold.must_not_contain},
        });
        std::fs::write(dir.join("ground-truth").join(format!("{id}.json")), truth.to_string()).unwrap();
    }
}

#[test]
fn eval_scores_every_extractor_by_split_and_genre_and_enforces_floors() {
    let dir = tempfile::tempdir().unwrap();
    let dataset = dir.path().join("gold");
    fixture_dataset(&dataset);
    let report_path = dir.path().join("report.json");
    let run = bin()
        .args(["eval", "--dataset", dataset.to_str().unwrap(), "--json", report_path.to_str().unwrap()])
        .args(["--require", "oracle:all=0.0"])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    let table = String::from_utf8(run.stdout).unwrap();
    for header in ["combined", "all-text", "article-paper", "list-view-paper", "goce", "oracle", "web2text", "goce-web2text", "F1 (LCS)", "cosine", "word F1"] {
        assert!(table.contains(header), "{header} not in\n{table}");
    }
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    let all = &report["means"]["all"];
    assert_eq!(all["all"]["oracle"]["pages"], 12);
    assert_eq!(all["article"]["oracle"]["pages"], 6);
    assert_eq!(all["list-view"]["oracle"]["pages"], 6);
    // Pages 5 and 10 are held out (ids that are multiples of five).
    assert_eq!(report["means"]["held-out"]["all"]["oracle"]["pages"], 2);
    // all-text keeps every gold phrase, so its recall is perfect.
    assert_eq!(all["all"]["all-text"]["word_recall"], 1.0);
    assert_eq!(all["all"]["all-text"]["with_found"], 1.0);
    let extractors = <goce_warc::extract::Extractor as goce_warc::choice::Choice>::ALL.len();
    assert_eq!(extractors, 10);
    assert_eq!(report["pages"].as_array().unwrap().len(), 12 * extractors);

    let strict = bin().args(["eval", "--dataset", dataset.to_str().unwrap(), "--extractor", "oracle", "--require", "oracle:all=1.01"]).output().unwrap();
    assert_eq!(strict.status.code(), Some(1), "a missed floor fails the run");
    assert!(String::from_utf8_lossy(&strict.stdout).contains("FLOOR MISSED"));
}

#[test]
fn eval_reads_null_ground_truth_fields_as_empty_and_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let dataset = dir.path().join("gold");
    fixture_dataset(&dataset);
    // WCXB's published release writes null for empty fields.
    let truth = serde_json::json!({
        "url": null,
        "_internal": {"page_type": {"primary": "article"}},
        "ground_truth": {"title": null, "author": null, "publish_date": null, "main_content": null, "with": null, "without": [null, "Subscribe"]},
    });
    std::fs::write(dataset.join("ground-truth").join("0003.json"), truth.to_string()).unwrap();
    let report_path = dir.path().join("report.json");
    let run = bin().args(["eval", "--dataset", dataset.to_str().unwrap(), "--extractor", "article", "--json", report_path.to_str().unwrap()]).output().unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(String::from_utf8_lossy(&run.stdout).contains("1 pages have a null gold main content"));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    assert_eq!(report["null_main_content"], 1);
    assert_eq!(report["means"]["all"]["all"]["article"]["pages"], 12, "the page is still scored");
}

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
    names_round_trip::<goce_warc::eval::Split>();
}
