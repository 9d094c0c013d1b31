//! A response record's block (HTTP head, chunked transfer, content encodings, charset) on
//! any bytes: a page, a filtered record or a counted error, never a panic, and never more
//! HTML than the limit.
#![no_main]
use goce_warc::page::{Decision, PageFilter, ResponseRecord, decode_page};
use goce_warc::warc::{RecordType, WarcHeader};
use libfuzzer_sys::fuzz_target;

const MAX_HTML: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let header = WarcHeader {
        version: "1.0".into(),
        record_type: RecordType::Response,
        record_id: Some("<urn:uuid:fuzz>".into()),
        date: None,
        target_uri: Some("http://example.com/".into()),
        content_length: data.len() as u64,
        content_type: Some("application/http; msgtype=response".into()),
        identified_payload_type: None,
        truncated: None,
    };
    let record = ResponseRecord { header, block: data.to_vec(), offset: Some(0) };
    let filter = PageFilter { statuses: Vec::new(), max_html_bytes: MAX_HTML, max_replacement_share: 1.0 };
    if let Decision::Page(page) = decode_page(record, &filter) {
        assert!(page.html_bytes <= MAX_HTML, "{} bytes of HTML", page.html_bytes);
    }
});
