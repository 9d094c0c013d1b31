//! Broken files: every damaged record is skipped and counted by reason, the rest of
//! the file and the other files are read, and nothing panics.

use crate::common::*;

/// Members of articles.warc.gz: warcinfo, then (request, response, metadata) × 6.
fn article_members() -> Vec<Vec<u8>> {
    let bytes = std::fs::read(project_file("sample-warcs/articles.warc.gz")).unwrap();
    let members = gzip_members(&bytes);
    assert_eq!(members.len(), 19);
    members
}

fn run_on(bytes: &[u8], name: &str) -> (serde_json::Value, Vec<TestRow>, std::process::Output) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join(name);
    std::fs::write(&input, bytes).unwrap();
    let out = dir.path().join("out");
    let run = process_paths(&out, &[input], &[]);
    let stem = name.trim_end_matches(".gz").trim_end_matches(".warc");
    let manifest = manifest(&out, stem);
    let rows = read_all_rows(&out);
    (manifest, rows, run)
}

#[test]
fn a_truncated_member_at_the_end_loses_only_its_record() {
    let mut members = article_members();
    let last_response = members.len() - 2;
    members.truncate(last_response + 1);
    let cut = members[last_response].len() / 2;
    members[last_response].truncate(cut);
    let (manifest, rows, run) = run_on(&members.concat(), "cut.warc.gz");
    assert!(run.status.success(), "damage is not failure: {}", stderr(&run));
    assert_eq!(rows.len(), 5);
    assert_eq!(manifest["counts"]["skipped"]["gzip_truncated"], 1);
}

#[test]
fn corrupt_members_and_garbage_between_them_are_skipped() {
    let mut members = article_members();
    let middle = members[2].len() / 2;
    for b in &mut members[2][middle..middle + 8] {
        *b ^= 0xa5;
    }
    members.insert(7, b"this is not gzip at all".to_vec());
    let (manifest, rows, run) = run_on(&members.concat(), "corrupt.warc.gz");
    assert!(run.status.success());
    assert_eq!(rows.len(), 5, "one response lost");
    assert_eq!(manifest["counts"]["skipped"]["gzip_corrupt"], 1);
    assert_eq!(manifest["counts"]["skipped"]["garbage_between_members"], 1);
}

#[test]
fn a_lying_content_length_and_a_broken_http_head_lose_one_record_each() {
    let members = article_members();
    let mut plain: Vec<Vec<u8>> = members.iter().map(|m| gunzip(m)).collect();
    // Response 1 claims 500 bytes more than it has; response 2 has no HTTP head.
    let text = String::from_utf8(plain[2].clone()).unwrap();
    let length: usize = text.split("Content-Length: ").nth(1).unwrap().split("\r\n").next().unwrap().parse().unwrap();
    plain[2] = text.replacen(&format!("Content-Length: {length}"), &format!("Content-Length: {}", length + 500), 1).into_bytes();
    let text = String::from_utf8(plain[5].clone()).unwrap();
    plain[5] = text.replacen("HTTP/1.1 200 OK", "XTTP/one two", 1).into_bytes();
    let (manifest, rows, run) = run_on(&plain.concat(), "lies.warc");
    assert!(run.status.success());
    assert_eq!(rows.len(), 4);
    assert_eq!(manifest["counts"]["skipped"]["content_length_mismatch"], 1);
    assert_eq!(manifest["counts"]["skipped"]["bad_http_head"], 1);
}

#[test]
fn an_oversized_record_is_skipped_under_a_small_limit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = process_paths(&out, &[project_file("sample-warcs/articles.warc.gz")], &["--max-record-bytes", "4000"]);
    assert!(run.status.success());
    let manifest = manifest(&out, "articles");
    let too_large = manifest["counts"]["skipped"]["record_too_large"].as_u64().unwrap();
    assert!(too_large >= 1);
    assert_eq!(manifest["counts"]["pages"].as_u64().unwrap() + too_large, 6, "every response is a page or a skip");
}

#[test]
fn files_that_are_not_warc_at_all_yield_nothing_and_do_not_fail() {
    for (name, bytes) in [
        ("empty.warc", Vec::new()),
        ("text.warc", b"hello, this is a text file\nnot a WARC\n".to_vec()),
        ("random.warc.gz", (0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect()),
    ] {
        let (manifest, rows, run) = run_on(&bytes, name);
        assert!(run.status.success(), "{name}: {}", stderr(&run));
        assert!(rows.is_empty());
        assert_eq!(manifest["counts"]["pages"], 0);
    }
}
