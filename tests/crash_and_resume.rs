//! A batch user's worst case: the process is killed with SIGKILL mid-input (a node dies, the
//! scheduler preempts the task). The rerun must finish the input with no row lost or repeated,
//! and no file that a reader would take for a complete shard of a finished input.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{bin, project_file, read_all_rows, stderr};

/// One input made of the article sample repeated: long enough to be killed midway.
fn long_input(dir: &Path, copies: usize) -> std::path::PathBuf {
    let sample = std::fs::read(project_file("sample-warcs/articles.warc.gz")).expect("sample");
    let path = dir.join("long.warc.gz");
    std::fs::write(&path, sample.repeat(copies)).expect("write");
    path
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect()).unwrap_or_default();
    names.sort();
    names
}

#[test]
fn kill_9_midway_then_a_rerun_gives_every_row_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = long_input(dir.path(), 1500);
    let reference = dir.path().join("reference");
    let out = dir.path().join("out");
    let args = |out: &Path| {
        let mut cmd = bin();
        cmd.arg("process")
            .arg(&input)
            .arg("--out")
            .arg(out)
            .args(["--quiet", "-j", "1", "--rows-per-shard", "500", "--renderer", "lite", "--classifier", "html-features"]);
        cmd
    };

    let run = args(&reference).output().expect("runs");
    assert!(run.status.success(), "{}", stderr(&run));
    let expected = read_all_rows(&reference);
    assert!(expected.len() >= 6000);

    // Kill once a shard is complete and more are being written.
    let mut child = args(&out).spawn().expect("runs");
    let started = Instant::now();
    while !names(&out).iter().any(|n| n == "long.part-00001.parquet") {
        assert!(started.elapsed() < Duration::from_secs(120), "no shard appeared: {:?}", names(&out));
        assert!(child.try_wait().expect("poll").is_none(), "the run finished before it could be killed; make the input longer");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    let left = names(&out);
    assert!(!left.iter().any(|n| n.contains(".manifest.")), "a killed input has no manifest: {left:?}");

    let rerun = args(&out).output().expect("runs");
    assert!(rerun.status.success(), "{}", stderr(&rerun));
    let got = read_all_rows(&out);
    assert_eq!(got.len(), expected.len(), "every row, once");
    let mut offsets: Vec<Option<i64>> = got.iter().map(|r| r.warc_offset).collect();
    offsets.sort();
    offsets.dedup();
    assert_eq!(offsets.len(), expected.len(), "no record twice");
    assert!(names(&out).iter().all(|n| !n.contains(".tmp-")), "no temporary file left: {:?}", names(&out));
}
