//! Evaluation datasets: WCXB folders (`html/ID.html.gz` + `ground-truth/ID.json`) and
//! the Scrapinghub article benchmark (`html/ID.html.gz` + `ground-truth.json`).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::GoldError;
use goce_warc::analyse::Genre;

/// One page with its gold.
#[derive(Debug, Clone)]
pub struct GoldPage {
    pub id: String,
    pub html_path: PathBuf,
    pub url: String,
    pub page_type: String,
    pub genre: Genre,
    pub main_content: String,
    pub with: Vec<String>,
    pub without: Vec<String>,
    /// The dataset gave `null` for the main content (WCXB's way of saying there is none):
    /// read as empty, and counted in the report.
    pub null_main_content: bool,
    /// Held aside from tuning: every fifth page by id.
    pub held_out: bool,
}

impl GoldPage {
    pub fn read_html(&self) -> Result<String, GoldError> {
        let bytes = std::fs::read(&self.html_path).map_err(|e| GoldError::io(&self.html_path, e))?;
        let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
            let mut out = Vec::new();
            flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_end(&mut out).map_err(|e| GoldError::io(&self.html_path, e))?;
            out
        } else {
            bytes
        };
        Ok(goce_warc::page::charset::decode(bytes, None, Some(&self.url)).text)
    }
}

/// Pages whose id is a multiple of five (or, for non-numeric ids, every fifth in
/// sorted order) are held aside from tuning.
fn held_out(id: &str, index: usize) -> bool {
    id.parse::<u64>().map_or(index % 5 == 4, |n| n % 5 == 0)
}

pub fn load(dir: &Path) -> Result<Vec<GoldPage>, GoldError> {
    let gt_dir = dir.join("ground-truth");
    let gt_file = dir.join("ground-truth.json");
    if gt_dir.is_dir() {
        load_wcxb(dir, &gt_dir)
    } else if gt_file.is_file() {
        load_scrapinghub(dir, &gt_file)
    } else {
        Err(GoldError::Dataset(format!("{}: neither a WCXB folder (ground-truth/) nor a Scrapinghub one (ground-truth.json)", dir.display())))
    }
}

#[derive(serde::Deserialize)]
struct WcxbGold {
    url: Option<String>,
    #[serde(rename = "_internal")]
    internal: Option<WcxbInternal>,
    ground_truth: Option<WcxbTruth>,
}

#[derive(serde::Deserialize)]
struct WcxbInternal {
    page_type: Option<WcxbPageType>,
}

#[derive(serde::Deserialize)]
struct WcxbPageType {
    primary: Option<String>,
}

/// WCXB writes `null` where a field is empty (`main_content` of a page with none, `author`,
/// `publish_date`, `title`): every field is optional, and a null one reads as absent.
#[derive(serde::Deserialize)]
struct WcxbTruth {
    #[serde(default)]
    main_content: Option<String>,
    #[serde(default)]
    with: Option<Vec<Option<String>>>,
    #[serde(default)]
    without: Option<Vec<Option<String>>>,
}

/// A list of snippets with its nulls dropped.
fn snippets(list: Option<Vec<Option<String>>>) -> Vec<String> {
    list.unwrap_or_default().into_iter().flatten().collect()
}

fn load_wcxb(dir: &Path, gt_dir: &Path) -> Result<Vec<GoldPage>, GoldError> {
    let mut names: Vec<String> = std::fs::read_dir(gt_dir)
        .map_err(|e| GoldError::io(gt_dir, e))?
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    let mut pages = Vec::new();
    for (index, name) in names.iter().enumerate() {
        let id = name.trim_end_matches(".json").to_string();
        let html_path = dir.join("html").join(format!("{id}.html.gz"));
        if !html_path.exists() {
            continue;
        }
        let path = gt_dir.join(name);
        let text = std::fs::read_to_string(&path).map_err(|e| GoldError::io(&path, e))?;
        let gold: WcxbGold = serde_json::from_str(&text).map_err(|e| GoldError::Dataset(format!("{}: {e}", path.display())))?;
        let truth = gold.ground_truth.unwrap_or(WcxbTruth { main_content: None, with: None, without: None });
        let mut page_type = gold.internal.and_then(|i| i.page_type).and_then(|p| p.primary).unwrap_or_else(|| "article".into());
        if page_type == "category" {
            page_type = "collection".into();
        }
        pages.push(GoldPage {
            held_out: held_out(&id, index),
            genre: Genre::of_page_type(&page_type),
            url: gold.url.unwrap_or_default(),
            page_type,
            null_main_content: truth.main_content.is_none(),
            main_content: truth.main_content.unwrap_or_default(),
            with: snippets(truth.with),
            without: snippets(truth.without),
            html_path,
            id,
        });
    }
    Ok(pages)
}

#[derive(serde::Deserialize)]
struct ScrapinghubGold {
    #[serde(rename = "articleBody", default)]
    article_body: Option<String>,
    #[serde(default)]
    url: Option<String>,
}

fn load_scrapinghub(dir: &Path, gt_file: &Path) -> Result<Vec<GoldPage>, GoldError> {
    let text = std::fs::read_to_string(gt_file).map_err(|e| GoldError::io(gt_file, e))?;
    let gold: std::collections::BTreeMap<String, ScrapinghubGold> =
        serde_json::from_str(&text).map_err(|e| GoldError::Dataset(format!("{}: {e}", gt_file.display())))?;
    let mut pages = Vec::new();
    for (index, (id, g)) in gold.into_iter().enumerate() {
        let html_path = dir.join("html").join(format!("{id}.html.gz"));
        if !html_path.exists() {
            continue;
        }
        pages.push(GoldPage {
            held_out: held_out(&id, index),
            genre: Genre::Article,
            page_type: "article".into(),
            url: g.url.unwrap_or_default(),
            null_main_content: g.article_body.is_none(),
            main_content: g.article_body.unwrap_or_default(),
            with: Vec::new(),
            without: Vec::new(),
            html_path,
            id,
        });
    }
    Ok(pages)
}

/// One CleanEval page on disk: `part/N` (`dev/12`), its HTML and its gold text file.
pub struct CleanEvalFile {
    pub id: String,
    pub html: PathBuf,
    pub gold: PathBuf,
}

/// CleanEval's pages (`dev/` and `final/`, each `input/N.html` beside `GoldStandard/N.txt`)
/// whose HTML and gold are both there, in no set order: each reader sorts them as it needs.
pub fn cleaneval_files(dir: &Path) -> Result<Vec<CleanEvalFile>, GoldError> {
    let mut files = Vec::new();
    for part in ["dev", "final"] {
        let gold_dir = dir.join(part).join("GoldStandard");
        let entries = std::fs::read_dir(&gold_dir).map_err(|e| GoldError::io(&gold_dir, e))?;
        for entry in entries.flatten() {
            let gold = entry.path();
            let Some(stem) = gold.file_stem().and_then(|s| s.to_str()) else { continue };
            let html = dir.join(part).join("input").join(format!("{stem}.html"));
            if html.is_file() {
                files.push(CleanEvalFile { id: format!("{part}/{stem}"), html, gold });
            }
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaneval_files_pair_each_gold_text_with_its_page() {
        let dir = tempfile::tempdir().expect("temporary folder");
        for part in ["dev", "final"] {
            std::fs::create_dir_all(dir.path().join(part).join("GoldStandard")).expect("gold folder");
            std::fs::create_dir_all(dir.path().join(part).join("input")).expect("input folder");
        }
        std::fs::write(dir.path().join("dev/GoldStandard/7.txt"), "URL: http://a.example/\n<p>Text").expect("gold");
        std::fs::write(dir.path().join("dev/input/7.html"), "<p>Text").expect("page");
        // A gold text whose page is missing is not a page.
        std::fs::write(dir.path().join("final/GoldStandard/8.txt"), "<p>Other").expect("gold");

        let files = cleaneval_files(dir.path()).expect("both parts are there");
        let ids: Vec<&str> = files.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["dev/7"]);
        assert_eq!(files[0].html, dir.path().join("dev/input/7.html"));
        assert_eq!(files[0].gold, dir.path().join("dev/GoldStandard/7.txt"));

        std::fs::remove_dir_all(dir.path().join("final/GoldStandard")).expect("remove");
        assert!(matches!(cleaneval_files(dir.path()), Err(GoldError::Io { .. })), "a missing part is an error, not an empty set");
    }
}
