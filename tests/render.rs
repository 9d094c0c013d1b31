//! A user draws pages as the classifier sees them: `goce-warc render`, `process --pictures`,
//! and the Chromium fallback, which must never leave a browser behind.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::{bin, project_file, samples, stderr};

fn page(name: &str) -> PathBuf {
    project_file(&format!("tests/fixtures/pages/{name}.html"))
}

fn fixture_pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(project_file("tests/fixtures/pages"))
        .expect("fixtures")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    pages.sort();
    pages
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).expect("picture written");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{} is a PNG", path.display());
    let word = |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    (word(16), word(20))
}

#[test]
fn a_page_becomes_a_224_pixel_picture() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("grid.png");
    let output = bin().args(["render", "-o"]).arg(&out).arg(page("list-product-grid")).output().expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(png_size(&out), (224, 224));
}

#[test]
fn many_pages_go_to_a_folder_with_a_json_line_each() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pages = fixture_pages();
    let output = bin().args(["render", "--json", "--full", "-o"]).arg(dir.path()).args(&pages).output().expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert_eq!(lines.len(), pages.len());
    for line in &lines {
        let picture = PathBuf::from(line["picture"].as_str().expect("picture path"));
        let (w, h) = png_size(&picture);
        assert_eq!(w, 224);
        // --full: as tall as the page at the same scale.
        let page_height = line["page_height"].as_f64().expect("page height");
        assert_eq!(h, ((page_height.min(16_384.0) * 224.0 / 1024.0).round() as u32).max(1), "{line}");
        assert!(line["ink"].as_f64().expect("ink") > 0.0, "every fixture draws something: {line}");
        assert_eq!(line["renderer"], "lite");
    }
}

#[test]
fn a_missing_page_is_reported_and_the_others_still_render() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = bin().args(["render", "-o"]).arg(dir.path()).arg("no-such-page.html").arg(page("article-news")).output().expect("runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no-such-page.html"), "{}", stderr(&output));
    assert_eq!(png_size(&dir.path().join("article-news.png")).0, 224);
}

#[test]
fn process_can_render_every_page_and_keep_the_pictures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let pictures = dir.path().join("pictures");
    let output = crate::common::process_paths(&out, &samples(), &["--pictures", pictures.to_str().expect("utf-8"), "--extractor", "goce"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let manifests = crate::common::manifests(&out);
    let pages: u64 = manifests.iter().map(|m| m["counts"]["pages"].as_u64().expect("pages")).sum();
    let rendered: u64 = manifests.iter().map(|m| m["counts"]["rendered"]["lite"].as_u64().unwrap_or(0)).sum();
    assert!(pages > 0);
    assert_eq!(rendered, pages, "every page is rendered once");
    assert_eq!(std::fs::read_dir(&pictures).expect("pictures").count() as u64, pages);
}

// ---------------------------------------------------------------------------------------------
// Chromium. `make setup` installs it; these tests fail (rather than skip) without it, so a CI
// machine that lost its browser is noticed.

fn require_chromium() {
    if let Err(e) = goce_warc::render::chrome::find_chromium() {
        panic!("Chromium is required for this test: {e}");
    }
}

/// Live (not zombie) processes whose command line mentions `marker`: the browsers a run
/// started with its profile under that folder.
fn processes_mentioning(marker: &str) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().chars().all(|c| c.is_ascii_digit()))
        .filter(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            let zombie = stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z'));
            !zombie && String::from_utf8_lossy(&cmdline).contains(marker)
        })
        .count()
}

/// Processes, zombies included, of session `sid`: a run started with `setsid` and its
/// browsers (which start new process groups, not sessions).
fn processes_in_session(sid: u32) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().chars().all(|c| c.is_ascii_digit()))
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            // pid (comm) state ppid pgrp session ...
            let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or_default().split_whitespace().collect();
            fields.get(3).and_then(|s| s.parse::<u32>().ok()) == Some(sid)
        })
        .collect()
}

fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    done()
}

/// `render --renderer chrome` over the fixtures, `repeat` times, with its temporary folder
/// (where the browser profiles go) set to `tmp`.
/// In a session of its own (`setsid` execs it, so the session id is the child's pid).
fn chrome_render(tmp: &Path, out: &Path, repeat: usize) -> Child {
    let pages: Vec<PathBuf> = std::iter::repeat_n(fixture_pages(), repeat).flatten().collect();
    let goce_warc = bin();
    let mut setsid = std::process::Command::new("setsid");
    for (var, value) in goce_warc.get_envs() {
        match value {
            Some(v) => setsid.env(var, v),
            None => setsid.env_remove(var),
        };
    }
    setsid
        .arg(goce_warc.get_program())
        .args(["render", "--renderer", "chrome", "-o"])
        .arg(out)
        .args(&pages)
        .env("TMPDIR", tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs")
}

#[test]
fn chromium_draws_the_picture_and_leaves_no_process_behind() {
    require_chromium();
    let dir = tempfile::tempdir().expect("tempdir");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let marker = tmp.to_string_lossy().into_owned();
    let pictures = dir.path().join("pictures");

    // A normal run: the moment it has returned, none of its processes is left, not even
    // a zombie waiting for init.
    let child = chrome_render(&tmp, &pictures, 1);
    let session = child.id();
    let output = child.wait_with_output().expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(processes_in_session(session), Vec::<String>::new(), "left after a normal run");
    assert_eq!(png_size(&pictures.join("list-product-grid.png")).0, 224);

    // Killed midway, by SIGTERM (the handler kills and reaps the browsers: nothing is left
    // once it has returned) and by SIGKILL (the browser sees its DevTools pipe close and
    // exits by itself, soon after).
    for signal in ["-TERM", "-KILL"] {
        let mut child = chrome_render(&tmp, &pictures, 50);
        assert!(wait_until(Duration::from_secs(30), || processes_mentioning(&marker) > 0), "Chromium never started");
        let killed = std::process::Command::new("kill").arg(signal).arg(child.id().to_string()).status().expect("kill runs");
        assert!(killed.success());
        let session = child.id();
        let status = child.wait().expect("reaped");
        assert!(!status.success(), "{signal}: the run was meant to be cut short");
        if signal == "-TERM" {
            assert_eq!(processes_in_session(session), Vec::<String>::new(), "left after SIGTERM");
        }
        assert!(
            wait_until(Duration::from_secs(15), || processes_mentioning(&marker) == 0),
            "{signal}: {} Chromium processes left",
            processes_mentioning(&marker)
        );
    }
}

#[test]
fn auto_asks_chromium_only_for_a_nearly_empty_picture() {
    require_chromium();
    let dir = tempfile::tempdir().expect("tempdir");
    // A script-only shell: nothing for the lite renderer to draw.
    let shell = dir.path().join("app-shell.html");
    std::fs::write(&shell, "<html><head><title>App</title></head><body><div id=root></div><script>render()</script></body></html>").expect("write");
    let output = bin()
        .args(["render", "--renderer", "auto", "--json", "-o"])
        .arg(dir.path().join("out"))
        .arg(&shell)
        .arg(page("article-news"))
        .env("TMPDIR", dir.path())
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let renderers: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json")["renderer"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(renderers, vec!["chrome".to_string(), "lite".to_string()]);
}

#[test]
fn render_reports_into_a_closed_pipe_end_quietly() {
    // `goce-warc render --json ... | head -1`: the reader goes away after one line.
    let dir = tempfile::tempdir().expect("tempdir");
    let pages: Vec<PathBuf> = std::iter::repeat_n(fixture_pages(), 20).flatten().collect();
    let mut child = bin()
        .args(["render", "--renderer", "lite", "--json", "-o"])
        .arg(dir.path())
        .args(&pages)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).expect("one report");
    drop(stdout);
    let output = child.wait_with_output().expect("ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(first.starts_with('{'), "{first}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(output.status.success(), "{stderr}");
}
