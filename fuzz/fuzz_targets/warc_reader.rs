//! The WARC reader on any bytes: plain, per-record gzip or whole-file gzip (it tells them
//! apart itself). It must end (libFuzzer's timeout catches a loop), never panic, and hold
//! no record larger than its limit.
#![no_main]
use goce_warc::warc::{Next, ReaderLimits, WarcReader};
use libfuzzer_sys::fuzz_target;

const MAX_RECORD: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let limits = ReaderLimits { max_record_bytes: MAX_RECORD, max_header_bytes: 16 << 10 };
    let Ok(mut reader) = WarcReader::new(std::io::Cursor::new(data), limits) else { return };
    loop {
        match reader.next_record() {
            Ok(Next::Record(record)) => assert!(record.block.len() <= MAX_RECORD),
            Ok(Next::Skipped(_)) => {}
            Ok(Next::End) | Err(_) => break,
        }
    }
});
