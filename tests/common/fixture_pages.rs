//! The handwritten pages of `tests/fixtures/pages` (each `NAME.html` with its gold in
//! `NAME.json`) and the same pages as a WCXB-style gold folder: shared by the tests of
//! `goce-warc` and of `goce-warc-train`, which include this file.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

#[derive(serde::Deserialize)]
pub struct Gold {
    pub url: String,
    pub page_type: String,
    pub genre: String,
    pub must_contain: Vec<String>,
    pub must_not_contain: Vec<String>,
}

/// The folder of the handwritten pages.
pub fn pages_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(REPOSITORY_ROOT).join("tests/fixtures/pages")
}

/// From this crate's folder to the repository's (set by the file that includes this one).
const REPOSITORY_ROOT: &str = super::REPOSITORY_ROOT;

/// Every page with its gold, sorted by path.
pub fn fixtures() -> Vec<(String, Gold)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(pages_dir()).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "html") {
            let gold: Gold = serde_json::from_str(&std::fs::read_to_string(path.with_extension("json")).unwrap()).unwrap();
            out.push((path.to_str().unwrap().to_string(), gold));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The pages as a WCXB-style folder: html/ID.html.gz and ground-truth/ID.json, with the
/// phrases each page must contain as its gold text; IDs 0001, 0002, ... in path order.
pub fn fixture_dataset(dir: &Path) {
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

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).expect("in memory");
    gz.finish().expect("in memory")
}
