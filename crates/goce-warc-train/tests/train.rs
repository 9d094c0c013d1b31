//! `goce-warc-train train` over the handwritten pages.

use std::collections::BTreeMap;

use crate::fixture_pages::{fixture_dataset, fixtures};
use crate::{bin, stderr};
use goce_warc::classify::FEATURE_COUNT;

#[test]
fn train_can_write_its_prepared_pages_for_analysis_and_train_nothing() {
    // A WCXB-style folder made of the handwritten pages: html/ID.html.gz + ground-truth/ID.json.
    let dir = tempfile::tempdir().unwrap();
    let dataset = dir.path().join("dataset");
    fixture_dataset(&dataset);
    let expected: BTreeMap<String, String> = fixtures().into_iter().enumerate().map(|(i, (_, gold))| (format!("{:04}", i + 1), gold.page_type)).collect();
    assert!(expected.len() >= 8);

    let samples = dir.path().join("samples.jsonl");
    let models = dir.path().join("models");
    let out = bin()
        .args(["train", "--dataset", dataset.to_str().unwrap(), "--out", models.to_str().unwrap(), "--samples-out", samples.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!models.exists(), "--samples-out trains nothing and writes no models");

    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&samples).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), expected.len(), "one line per page");
    for line in &lines {
        let id = line["id"].as_str().unwrap();
        assert_eq!(line["label"].as_str(), Some(expected[id].as_str()), "{id}");
        assert!(["train", "validation", "test"].contains(&line["split"].as_str().unwrap()), "{id}");
        assert_eq!(line["features"].as_array().unwrap().len(), FEATURE_COUNT, "{id}");
        assert_eq!(line["feature_names"].as_array().unwrap().len(), FEATURE_COUNT, "{id}");
        assert!(!line["domain"].as_str().unwrap().is_empty(), "{id}");
        // (field, word, count), with the page's visible text among the fields.
        let words = line["words"].as_array().unwrap();
        assert!(words.iter().any(|w| w[0] == 0 && w[2].as_u64().unwrap() >= 1), "{id} has text words");
    }
}
