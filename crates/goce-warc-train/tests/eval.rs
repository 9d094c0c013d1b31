//! `goce-warc-train eval` on the handwritten pages as a small gold set.

use crate::fixture_pages::fixture_dataset;
use crate::{bin, stderr};

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

#[test]
fn every_split_is_found_by_its_own_name_and_has_help() {
    use goce_warc::choice::Choice;
    use goce_warc_train::eval::Split;
    for &split in Split::ALL {
        assert_eq!(Split::from_name(split.name()), Some(split));
        assert!(!split.help().is_empty(), "{split:?} has no help");
    }
    assert_eq!(Split::from_name("no-such-split"), None);
}
