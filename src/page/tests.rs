use std::io::Write;

use super::*;
use crate::warc::{RecordType, WarcHeader};

fn response(http: &[u8]) -> ResponseRecord {
    ResponseRecord {
        header: WarcHeader {
            version: "1.0".into(),
            record_type: RecordType::Response,
            record_id: Some("<urn:uuid:x>".into()),
            date: Some("2024-05-18T01:02:03Z".into()),
            target_uri: Some("http://example.com/".into()),
            content_length: http.len() as u64,
            content_type: Some("application/http; msgtype=response".into()),
            identified_payload_type: None,
            truncated: None,
        },
        block: http.to_vec(),
        offset: Some(0),
    }
}

fn page(http: &[u8]) -> Page {
    match decode_page(response(http), &PageFilter::default()) {
        Decision::Page(p) => *p,
        other => panic!("expected a page, got {other:?}"),
    }
}

#[test]
fn a_plain_html_response_becomes_a_page() {
    let p = page(b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>hi</p>");
    assert_eq!(p.html, "<p>hi</p>");
    assert_eq!((p.http_status, p.content_type.as_str(), p.charset), (200, "text/html", "UTF-8"));
    assert_eq!(p.html_bytes, 9);
}

#[test]
fn statuses_and_types_are_filtered() {
    let filter = PageFilter::default();
    let redirect = response(b"HTTP/1.1 301 Moved\r\nLocation: /\r\nContent-Type: text/html\r\n\r\n<a>");
    assert!(matches!(decode_page(redirect.clone(), &filter), Decision::Filtered(FilterReason::HttpStatus)));
    let any_status = PageFilter { statuses: vec![], ..PageFilter::default() };
    assert!(matches!(decode_page(redirect, &any_status), Decision::Page(_)));
    let image = response(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG");
    assert!(matches!(decode_page(image, &filter), Decision::Filtered(FilterReason::NotHtml)));
    let mut request = response(b"GET / HTTP/1.1\r\n\r\n");
    request.header.record_type = RecordType::Request;
    assert!(matches!(decode_page(request, &filter), Decision::Filtered(FilterReason::NotResponse)));
}

#[test]
fn identified_payload_type_and_sniffing_decide_when_http_is_silent() {
    let mut r = response(b"HTTP/1.1 200 OK\r\n\r\n<div>x</div>");
    assert!(matches!(decode_page(r.clone(), &PageFilter::default()), Decision::Page(_)));
    r.header.identified_payload_type = Some("application/pdf".into());
    assert!(matches!(decode_page(r.clone(), &PageFilter::default()), Decision::Filtered(FilterReason::NotHtml)));
    let mut xhtml = response(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\nhello");
    xhtml.header.identified_payload_type = Some("application/xhtml+xml".into());
    assert!(matches!(decode_page(xhtml, &PageFilter::default()), Decision::Page(_)));
}

#[test]
fn raw_chunked_and_gzip_payloads_are_decoded() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"<p>compressed and chunked</p>").unwrap();
    let body = gz.finish().unwrap();
    let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    let (a, b) = body.split_at(10);
    for part in [a, b] {
        http.extend(format!("{:x}\r\n", part.len()).bytes());
        http.extend(part);
        http.extend(b"\r\n");
    }
    http.extend(b"0\r\n\r\n");
    assert_eq!(page(&http).html, "<p>compressed and chunked</p>");
}

#[test]
fn common_crawl_x_crawler_headers_are_not_undone_again() {
    let p = page(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Crawler-Content-Encoding: gzip\r\n\
        X-Crawler-Transfer-Encoding: chunked\r\n\r\n<p>already plain</p>",
    );
    assert_eq!(p.html, "<p>already plain</p>");
}

#[test]
fn broken_pages_are_reported_by_reason() {
    let filter = PageFilter::default();
    let no_head = response(b"<html>no http head</html>");
    assert!(matches!(decode_page(no_head, &filter), Decision::Broken(PageError::BadHttpHead(_))));
    let bad_gzip = response(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n\x1f\x8b\x08\x00garbage");
    assert!(matches!(decode_page(bad_gzip, &filter), Decision::Broken(PageError::BadContentEncoding(_))));
    let mut binary = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n".to_vec();
    binary.extend((0..4000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    assert!(matches!(decode_page(response(&binary), &filter), Decision::Broken(PageError::Undecodable(_))));
}

#[test]
fn characters_and_controls_are_counted_as_by_character() {
    let by_character = |text: &str| {
        let controls = text.chars().filter(|&c| (c < ' ' && !matches!(c, '\t' | '\n' | '\r' | '\x0c')) || ('\u{7f}'..='\u{9f}').contains(&c)).count();
        (text.chars().count(), controls)
    };
    for text in [
        "",
        "plain <b>html</b>\r\n\ttext\x0c",
        "\0\x01\x1f\x7f binary-ish",
        "C1: \u{80}\u{85}\u{9f}, not C1: \u{a0}\u{c2}\u{c2}\u{bf} Ã©",
        "Ünïcödé, 中文, emoji 🎉, NBSP\u{a0}, and \u{2028}",
    ] {
        assert_eq!(chars_and_controls(text), by_character(text), "{text:?}");
    }
}
