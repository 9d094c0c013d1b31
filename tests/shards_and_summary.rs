//! A batch user splits a run into array tasks with `--shard` (or Slurm's variables), then asks
//! `goce-warc summary` what the tasks produced and which inputs still need a rerun.

use crate::common::{bin, process_paths, read_all_rows, samples, stderr};

fn urls_and_text(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = read_all_rows(dir).into_iter().map(|r| (r.url, r.text)).collect();
    rows.sort();
    rows
}

#[test]
fn shards_together_give_the_single_run_row_for_row() {
    let dir = tempfile::tempdir().expect("tempdir");
    let single = dir.path().join("single");
    let sharded = dir.path().join("sharded");
    assert!(process_paths(&single, &samples(), &[]).status.success());
    for shard in ["0/2", "1/2"] {
        let output = process_paths(&sharded, &samples(), &["--shard", shard]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let (a, b) = (urls_and_text(&single), urls_and_text(&sharded));
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

#[test]
fn slurm_array_variables_pick_the_shard() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let inputs: Vec<String> = samples().iter().map(|p| p.display().to_string()).collect();
    let output = bin()
        .arg("process")
        .args(&inputs)
        .args(["--quiet", "--out"])
        .arg(&out)
        .env("SLURM_ARRAY_TASK_ID", "12")
        .env("SLURM_ARRAY_TASK_MIN", "10")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    // Task 12 of 10..=12 is slice 2 of 3: the third input only.
    let manifests: Vec<String> = std::fs::read_dir(&out)
        .expect("out")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".manifest.parquet"))
        .collect();
    assert_eq!(manifests, vec!["_encodings.manifest.parquet".to_string()]);
}

#[test]
fn summary_adds_up_manifests_and_lists_missing_inputs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    assert!(process_paths(&out, &samples(), &["--shard", "0/3", "--extractor", "goce"]).status.success());
    let inputs: Vec<String> = samples().iter().map(|p| p.display().to_string()).collect();
    let output = bin().arg("summary").arg(&out).args(&inputs).arg("--json").output().expect("runs");
    assert_eq!(output.status.code(), Some(1), "two inputs are missing");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(json["inputs_done"], 1);
    assert_eq!(json["missing"].as_array().map(Vec::len), Some(2));
    let pages = json["counts"]["pages"].as_u64().expect("pages");
    let genres: u64 = json["counts"]["genres"].as_object().expect("genres").values().filter_map(serde_json::Value::as_u64).sum();
    assert!(pages > 0);
    assert_eq!(genres, pages, "goce gives every row a genre");

    // The rerun of the missing slices completes the folder.
    for shard in ["1/3", "2/3"] {
        assert!(process_paths(&out, &samples(), &["--shard", shard, "--extractor", "goce"]).status.success());
    }
    let output = bin().arg("summary").arg(&out).args(&inputs).output().expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
    assert!(String::from_utf8_lossy(&output.stdout).contains("0 of 3 inputs missing"));
}

#[test]
fn a_bad_shard_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = process_paths(&dir.path().join("out"), &samples(), &["--shard", "3/3"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

#[test]
fn a_folder_of_the_previous_layout_is_summarised_resumed_and_upgraded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let articles = crate::common::project_file("sample-warcs/articles.warc.gz");
    assert!(process_paths(&out, std::slice::from_ref(&articles), &["--extractor", "goce"]).status.success());
    let rows_before = urls_and_text(&out);
    // What goce-warc 0.1 left: the manifest as JSON beside the shards.
    let manifest = crate::common::manifest(&out, "articles");
    std::fs::remove_file(goce_warc::output::manifest_path(&out, "articles")).expect("remove");
    std::fs::write(out.join("articles.manifest.json"), serde_json::to_vec_pretty(&manifest).expect("json")).expect("write");

    let output = bin().arg("summary").arg(&out).arg(&articles).output().expect("runs");
    assert!(output.status.success(), "the old manifest counts as done: {}", String::from_utf8_lossy(&output.stdout));
    assert!(String::from_utf8_lossy(&output.stdout).contains("6 pages"), "{}", String::from_utf8_lossy(&output.stdout));

    // A resumed run skips the input and rewrites the manifest in the new layout.
    let output = process_paths(&out, &[articles], &["--extractor", "goce"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!out.join("articles.manifest.json").exists());
    assert_eq!(crate::common::manifest(&out, "articles"), manifest);
    assert_eq!(urls_and_text(&out), rows_before, "no row redone or lost");
    let output = bin().arg("summary").arg(&out).arg("--manifests").output().expect("runs");
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one manifest, as JSON");
    assert_eq!(printed, manifest);
}
