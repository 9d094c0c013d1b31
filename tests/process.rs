//! `goce-warc process` as a user runs it: sample WARCs in, Parquet and manifests out.

use std::path::PathBuf;

use crate::common::*;
use sha2::{Digest, Sha256};

#[derive(serde::Deserialize)]
struct Gold {
    url: String,
    title: String,
    must_contain: Vec<String>,
    must_not_contain: Vec<String>,
}

fn fixture_golds() -> Vec<Gold> {
    let mut golds = Vec::new();
    for entry in std::fs::read_dir(project_file("tests/fixtures/pages")).unwrap().flatten() {
        let path = entry.path();
        let is_page_gold = path.extension().is_some_and(|e| e == "json") && path.with_extension("html").exists();
        if is_page_gold {
            golds.push(serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap());
        }
    }
    assert_eq!(golds.len(), 12, "twelve handwritten pages");
    golds
}

#[test]
fn sample_warcs_give_one_row_per_html_page_with_visible_text() {
    let out = tempfile::tempdir().unwrap();
    let run = process_paths(out.path(), &samples(), &["--extractor", "all-text", "--classifier", "none"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let rows = read_all_rows(out.path());
    assert_eq!(rows.len(), 15, "12 pages + 3 encoding variants; the redirect, robots.txt and PNG are not pages");

    for gold in fixture_golds() {
        let row = rows.iter().find(|r| r.url == gold.url).unwrap_or_else(|| panic!("{} missing", gold.url));
        assert_eq!(row.title.as_deref(), Some(gold.title.as_str()));
        for phrase in &gold.must_contain {
            assert!(row.text.contains(phrase.as_str()), "{}: {phrase:?} missing", gold.url);
        }
        for phrase in &gold.must_not_contain {
            assert!(!row.text.contains(phrase.as_str()), "{}: hidden {phrase:?} leaked", gold.url);
        }
        assert_eq!((row.extractor.as_str(), row.genre.as_deref(), row.page_type.as_deref(), row.http_status), ("all-text", None, None, 200));
        assert_eq!(row.extraction_confidence, None, "only the combiner gives a confidence");
        assert!(row.warc_record_id.as_deref().is_some_and(|id| id.starts_with("<urn:uuid:")));
        assert!(row.warc_offset.is_some());
    }
}

#[test]
fn charsets_and_raw_encodings_are_decoded() {
    #[derive(serde::Deserialize)]
    struct Variant {
        url: String,
        must_contain: Vec<String>,
    }
    #[derive(serde::Deserialize)]
    struct Variants {
        pages: Vec<Variant>,
    }
    let sidecar = std::fs::read_to_string(project_file("tests/fixtures/pages/encodings.json")).unwrap();
    let variants: Variants = serde_json::from_str(&sidecar).unwrap();
    let out = tempfile::tempdir().unwrap();
    let run = process_paths(out.path(), &[project_file("sample-warcs/encodings.warc")], &["--extractor", "all-text", "--classifier", "none"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let rows = read_all_rows(out.path());
    assert_eq!(rows.len(), 3);
    for variant in &variants.pages {
        let row = rows.iter().find(|r| r.url == variant.url).unwrap();
        for phrase in &variant.must_contain {
            assert!(row.text.contains(phrase.as_str()), "{}: {phrase:?} missing from {:?}", row.url, row.text);
        }
    }
    let charsets: Vec<&str> = rows.iter().map(|r| r.charset.as_str()).collect();
    assert_eq!(charsets, ["windows-1252", "UTF-8", "windows-1251"]);
}

#[test]
fn offsets_point_at_the_gzip_member_of_each_record() {
    let out = tempfile::tempdir().unwrap();
    let input = project_file("sample-warcs/articles.warc.gz");
    assert!(process_paths(out.path(), std::slice::from_ref(&input), &[]).status.success());
    let bytes = std::fs::read(&input).unwrap();
    for row in read_all_rows(out.path()) {
        let offset = usize::try_from(row.warc_offset.unwrap()).unwrap();
        let member = gzip_members(&bytes[offset..]).remove(0);
        let record = String::from_utf8_lossy(&gunzip(&member)).into_owned();
        assert!(record.contains(&format!("WARC-Target-URI: {}", row.url)), "offset {offset} is not {}", row.url);
    }
}

#[test]
fn manifest_marks_an_input_done_and_a_rerun_skips_it() {
    let out = tempfile::tempdir().unwrap();
    let input = vec![project_file("sample-warcs/listings.warc.gz")];
    assert!(process_paths(out.path(), &input, &[]).status.success());
    let manifest = manifest(out.path(), "listings");
    assert_eq!(manifest["counts"]["pages"], 6);
    assert_eq!(manifest["counts"]["filtered"]["http_status"], 1);
    assert_eq!(manifest["counts"]["filtered"]["not_html"], 2);
    assert_eq!(manifest["compression"], "gzip");

    let shard = out.path().join("listings.part-00000.parquet");
    let before = std::fs::metadata(&shard).unwrap().modified().unwrap();
    let stats = out.path().join("stats.json");
    let again = process_paths(out.path(), &input, &["--stats", stats.to_str().unwrap()]);
    assert!(again.status.success());
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(summary["inputs_already_done"], 1);
    assert_eq!(std::fs::metadata(&shard).unwrap().modified().unwrap(), before, "untouched");

    assert!(process_paths(out.path(), &input, &["--overwrite"]).status.success());
    assert_eq!(read_all_rows(out.path()).len(), 6, "redone, not duplicated");
}

#[test]
fn the_summary_says_what_the_stages_cost_on_the_cpu_and_skip_network_keeps_every_page() {
    let out = tempfile::tempdir().unwrap();
    let input = vec![project_file("sample-warcs/listings.warc.gz")];
    let stats = out.path().join("stats.json");
    // --skip-network (benchmarks): the ResNet path's CPU work without the forward pass.
    let run = process_paths(out.path(), &input, &["--device", "cpu", "--classifier", "resnet", "--skip-network", "--stats", stats.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let stages = &summary["stage_seconds"];
    assert!(stages["workers_cpu"].as_f64().unwrap() > 0.0, "{stages}");
    assert!(stages["reader_cpu"].as_f64().unwrap() > 0.0, "{stages}");
    assert!(summary["pages_per_stage_cpu_second"].as_f64().unwrap() > 0.0);
    assert_eq!(manifest(out.path(), "listings")["stage_seconds"]["workers_cpu"], stages["workers_cpu"]);
    let rows = read_all_rows(out.path());
    assert_eq!(rows.len(), 6);
    // Even type probabilities: list-view's three types sum to 3/7, so every page is an article.
    assert!(rows.iter().all(|r| r.genre.as_deref() == Some("article")));
}

#[test]
fn a_rerun_after_a_crash_removes_partial_output_first() {
    let out = tempfile::tempdir().unwrap();
    // What a killed run leaves: a finished shard and a temporary one, no manifest.
    std::fs::write(out.path().join("articles.part-00003.parquet"), b"stale").unwrap();
    std::fs::write(out.path().join(".articles.part-00004.parquet.tmp-999"), b"partial").unwrap();
    let run = process_paths(out.path(), &[project_file("sample-warcs/articles.warc.gz")], &[]);
    assert!(run.status.success(), "{}", stderr(&run));
    let names: Vec<String> = std::fs::read_dir(out.path()).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    let mut names = names;
    names.sort();
    assert_eq!(names, ["_articles.manifest.parquet", "articles.part-00000.parquet"]);
}

#[test]
fn rows_per_shard_splits_an_input_and_the_manifest_checksums_match() {
    let out = tempfile::tempdir().unwrap();
    let run = process_paths(out.path(), &[project_file("sample-warcs/articles.warc.gz")], &["--rows-per-shard", "4"]);
    assert!(run.status.success());
    let manifest = manifest(out.path(), "articles");
    let shards = manifest["shards"].as_array().unwrap();
    assert_eq!(shards.len(), 2);
    let rows: Vec<u64> = shards.iter().map(|s| s["rows"].as_u64().unwrap()).collect();
    assert_eq!(rows, [4, 2]);
    for shard in shards {
        let bytes = std::fs::read(out.path().join(shard["file"].as_str().unwrap())).unwrap();
        let digest: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(shard["sha256"].as_str().unwrap(), digest);
        assert_eq!(shard["bytes"].as_u64().unwrap(), bytes.len() as u64);
    }
}

#[test]
fn standard_input_and_paths_lists_are_inputs_too() {
    let out = tempfile::tempdir().unwrap();
    let mut cmd = bin();
    let stdin = std::fs::File::open(project_file("sample-warcs/articles.warc.gz")).unwrap();
    let run = cmd.args(["process", "-", "-q", "--out"]).arg(out.path()).stdin(stdin).output().unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(manifest(out.path(), "stdin")["counts"]["pages"], 6);
    assert!(read_all_rows(out.path()).iter().all(|r| r.warc_file == "-"));

    let list_dir = tempfile::tempdir().unwrap();
    let list = list_dir.path().join("warc.paths");
    std::fs::write(&list, "sample-warcs/listings.warc.gz\nsample-warcs/encodings.warc\n").unwrap();
    let prefix = project_file("");
    let run = process(out.path(), &["--paths", list.to_str().unwrap(), "--prefix", prefix.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(manifest(out.path(), "listings")["counts"]["pages"], 6);
    assert_eq!(manifest(out.path(), "encodings")["counts"]["pages"], 3);
}

#[test]
fn inputs_processed_together_give_the_rows_each_gives_alone() {
    // The next input starts while the one before drains: the rows must not depend on it.
    let together = tempfile::tempdir().unwrap();
    let run = process_paths(together.path(), &samples(), &["--device", "cpu", "-j", "2"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let key = |r: &TestRow| (r.warc_file.clone(), r.warc_offset, r.text_sha256.clone(), r.genre.clone(), r.page_type.clone());
    let mut rows_together: Vec<_> = read_all_rows(together.path()).iter().map(key).collect();
    let mut rows_alone = Vec::new();
    for input in samples() {
        let alone = tempfile::tempdir().unwrap();
        assert!(process_paths(alone.path(), &[input], &["--device", "cpu", "-j", "2"]).status.success());
        rows_alone.extend(read_all_rows(alone.path()).iter().map(key));
    }
    rows_together.sort();
    rows_alone.sort();
    assert_eq!(rows_together.len(), 15);
    assert_eq!(rows_together, rows_alone);
    assert_eq!(manifests(together.path()).len(), 3);
}

#[test]
fn batches_of_one_record_give_the_same_rows_in_the_same_order() {
    // Batches finish in any order and are classified by the workers; the writer puts them
    // back in input order. One record a batch and one batch in flight push that hardest.
    let run_with = |env: &[(&str, &str)]| {
        let out = tempfile::tempdir().unwrap();
        let mut cmd = bin();
        cmd.arg("process").args(samples()).args(["--device", "cpu", "-j", "2", "--quiet", "--out"]).arg(out.path());
        for (name, value) in env {
            cmd.env(name, value);
        }
        let run = cmd.output().unwrap();
        assert!(run.status.success(), "{}", stderr(&run));
        let rows = read_all_rows(out.path());
        (out, rows)
    };
    let (_default_out, default_rows) = run_with(&[]);
    for env in [[("GOCE_BATCH_RECORDS", "1"), ("GOCE_IN_FLIGHT_BATCHES", "1")], [("GOCE_BATCH_RECORDS", "1"), ("GOCE_IN_FLIGHT_BATCHES", "7")]] {
        let (_out, rows) = run_with(&env);
        assert_eq!(rows.len(), 15);
        let key = |r: &TestRow| (r.warc_file.clone(), r.warc_offset, r.text_sha256.clone(), r.genre.clone(), r.page_type.clone());
        assert_eq!(rows.iter().map(key).collect::<Vec<_>>(), default_rows.iter().map(key).collect::<Vec<_>>(), "{env:?}");
        for pair in rows.windows(2).filter(|p| p[0].warc_file == p[1].warc_file) {
            assert!(pair[0].warc_offset < pair[1].warc_offset, "rows out of input order under {env:?}");
        }
    }
}

#[test]
fn two_inputs_with_one_file_name_are_refused_before_any_work() {
    // Same file name in two folders: the same shard and manifest names in one --out.
    let dirs = tempfile::tempdir().unwrap();
    let inputs: Vec<PathBuf> = ["a", "b"]
        .iter()
        .map(|d| {
            let path = dirs.path().join(d).join("articles.warc.gz");
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::copy(project_file("sample-warcs/articles.warc.gz"), &path).unwrap();
            path
        })
        .collect();
    let out = tempfile::tempdir().unwrap();
    let run = process_paths(out.path(), &inputs, &["--classifier", "none"]);
    assert!(!run.status.success());
    assert!(stderr(&run).contains("would write the same output name \"articles\""), "{}", stderr(&run));
    assert!(shard_files(out.path()).is_empty());
}

#[test]
fn a_missing_input_is_named_and_the_other_inputs_still_finish() {
    let out = tempfile::tempdir().unwrap();
    let missing = PathBuf::from("/nonexistent/CC-MAIN-missing.warc.gz");
    let run = process_paths(out.path(), &[missing, project_file("sample-warcs/articles.warc.gz")], &[]);
    assert_eq!(run.status.code(), Some(1), "an input failed outright");
    assert!(stderr(&run).contains("/nonexistent/CC-MAIN-missing.warc.gz"), "{}", stderr(&run));
    assert_eq!(manifest(out.path(), "articles")["counts"]["pages"], 6);
    assert!(!goce_warc::output::manifest_exists(out.path(), "CC-MAIN-missing"));
}

#[test]
fn an_unwritable_output_directory_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_dir = dir.path().join("a-file");
    std::fs::write(&not_a_dir, b"x").unwrap();
    let run = process_paths(&not_a_dir.join("out"), &samples(), &[]);
    assert_eq!(run.status.code(), Some(1));
    let err = stderr(&run);
    assert!(err.contains("output directory") && err.contains("a-file"), "{err}");
}

/// A tmpfs of a few KiB mounted for one test, unmounted when dropped.
struct SmallFileSystem {
    dir: tempfile::TempDir,
}

impl SmallFileSystem {
    /// None where this user may not mount (not root, or a container without the right).
    fn mount(kib: u32) -> Option<Self> {
        let dir = tempfile::tempdir().ok()?;
        let size = format!("size={kib}k");
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &size, "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        mounted.then_some(Self { dir })
    }
}

impl Drop for SmallFileSystem {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
fn a_full_output_directory_is_a_clear_error_and_a_rerun_after_freeing_space_completes() {
    let Some(small) = SmallFileSystem::mount(64) else {
        eprintln!("skipped: cannot mount a tmpfs here (needs root)");
        return;
    };
    // Leave 8 KiB: less than one input's Parquet shard.
    let filler = small.dir.path().join("filler");
    std::fs::write(&filler, vec![0u8; 56 * 1024]).unwrap();
    let out = small.dir.path().join("out");
    let run = process_paths(&out, &samples(), &["--classifier", "html-features"]);
    assert_eq!(run.status.code(), Some(1), "inputs failed outright");
    let err = stderr(&run);
    assert!(err.contains("No space left on device") && err.contains(out.to_str().unwrap()), "{err}");
    let left: Vec<_> = std::fs::read_dir(&out).map(|d| d.flatten().map(|e| e.file_name()).collect()).unwrap_or_default();
    assert!(left.is_empty(), "no partial shard or manifest is left: {left:?}");

    std::fs::remove_file(&filler).unwrap();
    let rerun = process_paths(&out, &samples(), &["--classifier", "html-features"]);
    assert!(rerun.status.success(), "{}", stderr(&rerun));
    assert_eq!(read_all_rows(&out).len(), 15, "every page of the three inputs");
}

#[test]
fn help_explains_every_flag() {
    let help = bin().args(["process", "--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--out", "--paths", "--prefix", "--rows-per-shard", "--overwrite", "--threads", "--status", "--any-status", "--extractor", "--max-record-bytes",
        "--max-html-bytes", "--max-text-bytes", "--max-elements", "--max-page-ms", "--quiet", "--stats", "--verbose",
    ] {
        assert!(text.contains(flag), "{flag} not in --help");
    }
    let usage = bin().args(["process"]).output().unwrap();
    assert_eq!(usage.status.code(), Some(2), "missing --out is a usage error");
}

#[test]
fn by_default_the_cascade_classifies_every_page_and_the_combiner_takes_the_text() {
    let out = tempfile::tempdir().unwrap();
    let run = process_paths(out.path(), &samples()[..2], &["--device", "cpu", "--batch-size", "5"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let rows = read_all_rows(out.path());
    assert_eq!(rows.len(), 12);
    let types = ["article", "forum", "product", "collection", "listing", "documentation", "service"];
    for row in &rows {
        assert_eq!(row.extractor, "combined");
        assert!(matches!(row.genre.as_deref(), Some("article" | "list-view")), "{row:?}");
        assert!(row.page_type.as_deref().is_some_and(|t| types.contains(&t)), "{row:?}");
        assert!(row.genre_confidence.is_some_and(|c| (0.5..=1.0).contains(&c)), "{row:?}");
        assert!(row.extraction_confidence.is_some_and(|c| (0.0..=1.0).contains(&c)), "{row:?}");
        assert!(!row.text.is_empty());
    }
    // The manifests count the rows by page type and genre.
    let (mut by_type, mut drawn) = (0, 0);
    for sample in &samples()[..2] {
        let stem = sample.file_name().unwrap().to_str().unwrap().split('.').next().unwrap().to_string();
        let m = manifest(out.path(), &stem);
        by_type += m["counts"]["page_types"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum::<u64>();
        drawn += m["counts"]["rendered"].as_object().map_or(0, |r| r.values().map(|v| v.as_u64().unwrap()).sum::<u64>());
        assert_eq!(m["extractor"], "combined");
    }
    assert_eq!(by_type, 12);
    // Pictures are drawn only for the pages the cascade's gate leaves to the ResNet.
    assert!(drawn < 12, "{drawn} of 12 pages drawn");
    // Each row's text is what the combiner gives for the page on its own.
    let mut compared = 0;
    for entry in std::fs::read_dir(project_file("tests/fixtures/pages")).unwrap().flatten() {
        let page = entry.path().with_extension("html");
        if entry.path().extension().is_none_or(|e| e != "json") || !page.exists() {
            continue;
        }
        let gold: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(entry.path()).unwrap()).unwrap();
        let Some(row) = rows.iter().find(|r| r.url == gold["url"].as_str().unwrap()) else { continue };
        compared += 1;
        let out = bin().args(["extract", page.to_str().unwrap(), "--url", &row.url, "--json"]).output().unwrap();
        let extracted: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(extracted["text"].as_str().unwrap().trim_end(), row.text.trim_end(), "{}", row.url);
        // The same confidence too: one decision, whether the page waited for the ResNet or not.
        let confidence = extracted["extraction_confidence"].as_f64().unwrap();
        assert!((confidence - f64::from(row.extraction_confidence.unwrap())).abs() < 1e-6, "{}: {confidence} {row:?}", row.url);
    }
    assert!(compared >= 6, "only {compared} rows compared");
    let grid = rows.iter().find(|r| r.url.contains("kettles-teapots")).unwrap();
    assert!(grid.text.contains("Whistling Stovetop Kettle 2.5 L") && grid.text.contains("Yixing Clay Teapot Small"));
}
