//! Reader behaviour on well-formed and damaged inputs built in memory.

use std::io::Write;

use super::*;

fn record(kind: &str, uri: &str, body: &[u8]) -> Vec<u8> {
    let mut r =
        format!("WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\nWARC-Record-ID: <urn:uuid:{uri}>\r\nContent-Length: {}\r\n\r\n", body.len())
            .into_bytes();
    r.extend_from_slice(body);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn three_records() -> Vec<Vec<u8>> {
    vec![
        record("warcinfo", "info", b"software: test\r\n"),
        record("response", "http://a/", b"HTTP/1.1 200 OK\r\n\r\n<p>a</p>"),
        record("response", "http://b/", b"HTTP/1.1 200 OK\r\n\r\n<p>b</p>"),
    ]
}

/// (uri or skip reason, offset) for everything the reader yields.
fn read_all(input: &[u8], limits: ReaderLimits) -> Vec<(String, Option<u64>)> {
    let mut reader = WarcReader::new(input, limits).unwrap();
    let mut seen = Vec::new();
    loop {
        match reader.next_record().unwrap() {
            Next::Record(r) => seen.push((r.header.target_uri.clone().unwrap_or_default(), r.offset)),
            Next::Skipped(s) => seen.push((s.reason.name().to_string(), s.offset)),
            Next::End => return seen,
        }
    }
}

fn uris(seen: &[(String, Option<u64>)]) -> Vec<&str> {
    seen.iter().map(|(u, _)| u.as_str()).collect()
}

#[test]
fn plain_warc_gives_records_with_byte_offsets() {
    let records = three_records();
    let input = records.concat();
    let seen = read_all(&input, ReaderLimits::default());
    assert_eq!(uris(&seen), ["info", "http://a/", "http://b/"]);
    assert_eq!(seen[1].1, Some(records[0].len() as u64));
}

#[test]
fn member_per_record_gzip_gives_member_offsets() {
    let members: Vec<Vec<u8>> = three_records().iter().map(|r| gzip(r)).collect();
    let input = members.concat();
    let seen = read_all(&input, ReaderLimits::default());
    assert_eq!(uris(&seen), ["info", "http://a/", "http://b/"]);
    assert_eq!(seen[0].1, Some(0));
    assert_eq!(seen[2].1, Some((members[0].len() + members[1].len()) as u64));
}

#[test]
fn whole_file_gzip_bigger_than_one_member_limit_streams() {
    let mut plain = Vec::new();
    for i in 0..400 {
        plain.extend(record("response", &format!("http://x/{i}"), &vec![b'a' + (i % 26) as u8; 20_000]));
    }
    let input = gzip(&plain);
    let limits = ReaderLimits { max_record_bytes: 100_000, max_header_bytes: 4096 };
    let seen = read_all(&input, limits);
    assert_eq!(seen.len(), 400);
    assert!(seen.iter().all(|(u, _)| u.starts_with("http://x/")));
    assert_eq!(seen[399].0, "http://x/399");
}

#[test]
fn record_block_is_the_exact_content() {
    let input = record("response", "http://a/", b"HTTP/1.1 200 OK\r\n\r\nbody");
    let mut reader = WarcReader::new(&input[..], ReaderLimits::default()).unwrap();
    match reader.next_record().unwrap() {
        Next::Record(r) => assert_eq!(r.block, b"HTTP/1.1 200 OK\r\n\r\nbody"),
        other => panic!("expected a record, got {other:?}"),
    }
}

#[test]
fn corrupt_member_is_skipped_and_the_next_member_read() {
    let mut members: Vec<Vec<u8>> = three_records().iter().map(|r| gzip(r)).collect();
    let middle = members[1].len() / 2;
    members[1][middle] ^= 0xff;
    members[1][middle + 1] ^= 0x55;
    let seen = read_all(&members.concat(), ReaderLimits::default());
    assert_eq!(uris(&seen), ["info", "gzip_corrupt", "http://b/"]);
}

#[test]
fn member_cut_short_then_another_member_resynchronises() {
    let members: Vec<Vec<u8>> = three_records().iter().map(|r| gzip(r)).collect();
    let cut = &members[1][..members[1].len() - 10];
    let input = [members[0].clone(), cut.to_vec(), members[2].clone()].concat();
    let seen = read_all(&input, ReaderLimits::default());
    assert_eq!(uris(&seen), ["info", "gzip_corrupt", "http://b/"]);
}

#[test]
fn member_cut_by_end_of_file_is_a_truncated_gzip() {
    let members: Vec<Vec<u8>> = three_records().iter().map(|r| gzip(r)).collect();
    let cut = &members[2][..members[2].len() / 2];
    let input = [members[0].clone(), members[1].clone(), cut.to_vec()].concat();
    let seen = read_all(&input, ReaderLimits::default());
    assert_eq!(uris(&seen), ["info", "http://a/", "gzip_truncated"]);
}

#[test]
fn garbage_between_members_is_skipped() {
    let members: Vec<Vec<u8>> = three_records().iter().map(|r| gzip(r)).collect();
    let input = [members[0].clone(), b"junk junk".to_vec(), members[1].clone(), members[2].clone()].concat();
    let seen = read_all(&input, ReaderLimits::default());
    assert_eq!(uris(&seen), ["info", "garbage_between_members", "http://a/", "http://b/"]);
}

#[test]
fn garbage_between_plain_records_is_skipped() {
    let r = three_records();
    let input = [r[0].clone(), b"\r\nthis is not a record\r\n".to_vec(), r[1].clone(), r[2].clone()].concat();
    let seen = read_all(&input, ReaderLimits::default());
    assert_eq!(uris(&seen), ["info", "garbage_between_records", "http://a/", "http://b/"]);
}

#[test]
fn content_length_too_long_loses_only_that_record() {
    let r = three_records();
    let mut lying = r[1].clone();
    let text = String::from_utf8(lying.clone()).unwrap();
    let real = text.split("Content-Length: ").nth(1).unwrap().split('\r').next().unwrap().to_string();
    let fake = (real.parse::<usize>().unwrap() + 40).to_string();
    lying = text.replacen(&format!("Content-Length: {real}"), &format!("Content-Length: {fake}"), 1).into_bytes();
    let input = [r[0].clone(), lying, r[2].clone(), record("response", "http://c/", b"x")].concat();
    let seen = read_all(&input, ReaderLimits::default());
    assert_eq!(uris(&seen), ["info", "content_length_mismatch", "http://b/", "http://c/"]);
}

#[test]
fn content_length_too_short_loses_only_that_record() {
    let r = three_records();
    let text = String::from_utf8(r[1].clone()).unwrap();
    let lying = text.replacen("Content-Length: 27", "Content-Length: 10", 1).into_bytes();
    assert_ne!(lying, r[1]);
    let input = [r[0].clone(), lying, r[2].clone()].concat();
    let seen = read_all(&input, ReaderLimits::default());
    assert_eq!(uris(&seen), ["info", "content_length_mismatch", "http://b/"]);
}

#[test]
fn record_cut_by_end_of_input_is_truncated() {
    let r = three_records();
    let input = [r[0].clone(), r[1][..r[1].len() - 12].to_vec()].concat();
    let seen = read_all(&input, ReaderLimits::default());
    assert_eq!(uris(&seen), ["info", "truncated_record"]);
}

#[test]
fn oversized_record_is_skipped_without_losing_the_next() {
    let big = record("response", "http://big/", &vec![b'z'; 50_000]);
    let r = three_records();
    let limits = ReaderLimits { max_record_bytes: 10_000, max_header_bytes: 4096 };
    for input in [[r[0].clone(), big.clone(), r[2].clone()].concat(), [gzip(&r[0]), gzip(&big), gzip(&r[2])].concat()] {
        let seen = read_all(&input, limits);
        assert_eq!(uris(&seen), ["info", "record_too_large", "http://b/"]);
    }
}

#[test]
fn unparsable_header_is_skipped() {
    let r = three_records();
    let bad = b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: lots\r\n\r\nxyz\r\n\r\n".to_vec();
    let input = [r[0].clone(), bad, r[2].clone()].concat();
    let seen = read_all(&input, ReaderLimits::default());
    assert_eq!(uris(&seen), ["info", "bad_warc_header", "http://b/"]);
}

#[test]
fn empty_input_has_no_records() {
    assert!(read_all(b"", ReaderLimits::default()).is_empty());
    assert!(read_all(b"\r\n\r\n", ReaderLimits::default()).is_empty());
}

#[test]
fn random_bytes_never_panic() {
    let mut state = 0x2545_f491_u64;
    let records = three_records().concat();
    let gz: Vec<u8> = three_records().iter().flat_map(|r| gzip(r)).collect();
    for round in 0..300 {
        let mut input = if round % 2 == 0 { records.clone() } else { gz.clone() };
        for _ in 0..(1 + round % 7) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = (state as usize) % input.len();
            input[at] = (state >> 32) as u8;
        }
        let seen = read_all(&input, ReaderLimits { max_record_bytes: 4096, max_header_bytes: 1024 });
        assert!(seen.len() <= 12, "{seen:?}");
    }
}

#[test]
fn content_length_that_swallows_exactly_the_next_record_is_caught() {
    let r = three_records();
    let text = String::from_utf8(r[1].clone()).unwrap();
    let fake = 27 + r[2].len();
    let lying = text.replacen("Content-Length: 27", &format!("Content-Length: {fake}"), 1).into_bytes();
    let extra = record("response", "http://c/", b"x");
    let plain = [r[0].clone(), lying.clone(), r[2].clone(), extra.clone()].concat();
    assert_eq!(uris(&read_all(&plain, ReaderLimits::default())), ["info", "content_length_mismatch", "http://b/", "http://c/"]);
    // Gzip members make the boundary explicit.
    let members = [gzip(&r[0]), gzip(&lying), gzip(&r[2]), gzip(&extra)].concat();
    assert_eq!(uris(&read_all(&members, ReaderLimits::default())), ["info", "content_length_mismatch", "http://b/", "http://c/"]);
}

/// `n` bytes from a xorshift generator: garbage that is the same on every run.
fn garbage(seed: u64, n: usize) -> Vec<u8> {
    let mut state = seed | 1;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

fn five_records() -> Vec<Vec<u8>> {
    (0..5).map(|i| record("response", &format!("http://{i}/"), format!("HTTP/1.1 200 OK\r\n\r\n<p>{i}</p>").as_bytes())).collect()
}

/// Each URI read, once, in order, and nothing but garbage skipped.
fn assert_every_record_once(seen: &[(String, Option<u64>)], expected: &[&str], skip: &str, context: &str) {
    let records: Vec<&str> = seen.iter().map(|(u, _)| u.as_str()).filter(|u| u.starts_with("http://")).collect();
    assert_eq!(records, expected, "{context}: {seen:?}");
    let skips: Vec<&str> = seen.iter().map(|(u, _)| u.as_str()).filter(|u| !u.starts_with("http://")).collect();
    assert!(!skips.is_empty() && skips.iter().all(|s| *s == skip), "{context}: {seen:?}");
}

#[test]
fn random_garbage_between_plain_records_loses_only_the_garbage() {
    let r = five_records();
    let all = ["http://0/", "http://1/", "http://2/", "http://3/", "http://4/"];
    for seed in 0..200 {
        let after = 1 + (seed as usize) % 4;
        let junk = garbage(seed, 50 + (seed as usize * 37) % 400);
        let input = [r[..after].concat(), junk, r[after..].concat()].concat();
        let seen = read_all(&input, ReaderLimits::default());
        assert_every_record_once(&seen, &all, "garbage_between_records", &format!("seed {seed}"));
    }
}

#[test]
fn garbage_straight_before_a_version_line_does_not_hide_the_record() {
    let r = five_records();
    // Neither a line break before the record nor after the garbage.
    let input = [r[0].clone(), b"\x00\xffjunk".to_vec(), r[1].clone(), r[2].clone()].concat();
    let seen = read_all(&input, ReaderLimits::default());
    assert_eq!(uris(&seen), ["http://0/", "garbage_between_records", "http://1/", "http://2/"]);
}

#[test]
fn random_garbage_between_gzip_members_loses_only_the_garbage() {
    let members: Vec<Vec<u8>> = five_records().iter().map(|r| gzip(r)).collect();
    let all = ["http://0/", "http://1/", "http://2/", "http://3/", "http://4/"];
    for seed in 0..200 {
        let after = 1 + (seed as usize) % 4;
        let junk = garbage(seed, 50 + (seed as usize * 37) % 400);
        // Garbage that happens to hold a gzip magic is tried as a member and fails as one.
        let input = [members[..after].concat(), junk, members[after..].concat()].concat();
        let seen = read_all(&input, ReaderLimits::default());
        let records: Vec<&str> = seen.iter().map(|(u, _)| u.as_str()).filter(|u| u.starts_with("http://")).collect();
        assert_eq!(records, all, "seed {seed}: {seen:?}");
        assert!(seen.iter().all(|(u, _)| u.starts_with("http://") || u.starts_with("g")), "seed {seed}: {seen:?}");
    }
}

#[test]
fn garbage_inside_a_header_loses_that_record_only() {
    let r = five_records();
    for seed in 0..100 {
        let damaged = 1 + (seed as usize) % 3;
        let mut record = r[damaged].clone();
        // Into the header, after the version line.
        let at = 12 + (seed as usize) % 40;
        let junk = garbage(seed, 20 + (seed as usize * 13) % 200);
        record.splice(at..at, junk);
        let input = [r[..damaged].concat(), record, r[damaged + 1..].concat()].concat();
        let seen = read_all(&input, ReaderLimits::default());
        let expected: Vec<String> = (0..5).filter(|&i| i != damaged).map(|i| format!("http://{i}/")).collect();
        let records: Vec<&str> = seen.iter().map(|(u, _)| u.as_str()).filter(|u| u.starts_with("http://")).collect();
        // The damaged record may survive when the junk only lengthened a header value.
        let without_damaged: Vec<&str> = records.iter().copied().filter(|u| *u != format!("http://{damaged}/")).collect();
        assert_eq!(without_damaged, expected, "seed {seed}: {seen:?}");
        assert!(records.len() <= 5, "seed {seed}: {seen:?}");
    }
}
