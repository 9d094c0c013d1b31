//! Splits decoded WARC bytes into records, resynchronising after damage.

use std::io::{self, Read};

use memchr::memmem;

use super::buffer::ByteWindow;
use super::header::{WarcHeader, parse_header};
use super::source::{Compression, DecodedSource, Fill};
use super::{ReaderLimits, SkipReason};

/// One record, its block borrowed from the reader until the next call.
#[derive(Debug)]
pub struct RawRecord<'a> {
    pub header: WarcHeader,
    /// The record block (for a response: HTTP head and payload).
    pub block: &'a [u8],
    /// Input offset of the record: its gzip member's offset, or the byte offset of a plain file.
    pub offset: Option<u64>,
}

/// A record or stretch of input that was skipped, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    pub reason: SkipReason,
    pub offset: Option<u64>,
    pub detail: String,
}

#[derive(Debug)]
pub enum Next<'a> {
    Record(RawRecord<'a>),
    Skipped(Skip),
    End,
}

/// Streams the records of one input. Damage to one record never ends the stream;
/// only an I/O error from the underlying reader does.
pub struct WarcReader<R: Read> {
    source: DecodedSource<R>,
    buf: ByteWindow,
    /// Decoded stream position of `buf.filled()[0]`.
    position: u64,
    /// Bytes of the last record handed out, dropped at the next call.
    pending_consume: usize,
    /// A damage report to hand out before reading on.
    pending_skip: Option<Skip>,
    ended: bool,
    /// Set after a skip that left the reader inside a broken record: the bytes up to
    /// the next record belong to that skip and are not reported again as garbage.
    resyncing: bool,
    limits: ReaderLimits,
}

const VERSION_PREFIX: &[u8] = b"WARC/";

impl<R: Read> WarcReader<R> {
    pub fn new(reader: R, limits: ReaderLimits) -> io::Result<Self> {
        let member_limit = limits.max_record_bytes.saturating_add(limits.max_header_bytes);
        Ok(Self {
            source: DecodedSource::new(reader, member_limit)?,
            buf: ByteWindow::default(),
            position: 0,
            pending_consume: 0,
            pending_skip: None,
            ended: false,
            resyncing: false,
            limits,
        })
    }

    pub fn compression(&self) -> Compression {
        self.source.compression()
    }

    /// Input bytes consumed so far (compressed bytes for gzip), for progress.
    pub fn input_offset(&self) -> u64 {
        self.source.input_offset()
    }

    fn consume(&mut self, n: usize) {
        let n = n.min(self.buf.len());
        self.buf.consume(n);
        self.position += n as u64;
    }

    /// Reads more decoded bytes. Returns false at the end; damage is recorded in
    /// `pending_skip` and the bytes already buffered are dropped (they cannot be
    /// trusted to belong with what follows).
    fn fill(&mut self) -> io::Result<FillOutcome> {
        if self.ended {
            return Ok(FillOutcome::End);
        }
        match self.source.fill(&mut self.buf)? {
            Fill::Data => Ok(FillOutcome::More),
            Fill::End => {
                self.ended = true;
                Ok(FillOutcome::End)
            }
            Fill::Damaged { reason, offset } => {
                Ok(FillOutcome::Damaged(Skip { reason, offset: Some(offset), detail: format!("{} at input offset {offset}", reason.describe()) }))
            }
        }
    }

    /// Drops everything buffered; used after damage.
    fn drop_buffered(&mut self) {
        let n = self.buf.len();
        self.consume(n);
    }

    pub fn next_record(&mut self) -> io::Result<Next<'_>> {
        let n = std::mem::take(&mut self.pending_consume);
        self.consume(n);
        if let Some(skip) = self.pending_skip.take() {
            return Ok(Next::Skipped(skip));
        }
        let resync = self.seek_record_start();
        let resyncing = std::mem::take(&mut self.resyncing);
        match resync? {
            Some(skip) if !(resyncing && skip.reason == SkipReason::GarbageBetweenRecords) => {
                return Ok(Next::Skipped(skip));
            }
            _ => {}
        }
        if self.buf.is_empty() {
            return Ok(Next::End);
        }
        let start = self.position;
        let offset = self.source.record_offset(start);

        // The header, up to its blank line.
        let header_end = loop {
            let window = &self.buf.filled()[..self.buf.len().min(self.limits.max_header_bytes)];
            if let Some(end) = find_blank_line(window) {
                break end;
            }
            if self.buf.len() >= self.limits.max_header_bytes {
                self.consume(VERSION_PREFIX.len());
                self.resyncing = true;
                return Ok(Next::Skipped(skip_at(SkipReason::BadWarcHeader, offset, start, "no end of header within the header size limit")));
            }
            match self.fill()? {
                FillOutcome::More => {}
                FillOutcome::End => {
                    self.drop_buffered();
                    return Ok(Next::Skipped(skip_at(SkipReason::TruncatedRecord, offset, start, "input ends inside a record header")));
                }
                FillOutcome::Damaged(skip) => {
                    self.drop_buffered();
                    return Ok(Next::Skipped(skip));
                }
            }
        };
        let header = match parse_header(&self.buf.filled()[..header_end.text]) {
            Ok(header) => header,
            Err(e) => {
                self.consume(VERSION_PREFIX.len());
                self.resyncing = true;
                return Ok(Next::Skipped(skip_at(SkipReason::BadWarcHeader, offset, start, &e.to_string())));
            }
        };
        let body_start = header_end.total;
        let length = header.content_length;

        if length > self.limits.max_record_bytes as u64 {
            let skipped = self.discard(body_start as u64 + length)?;
            let detail = format!(
                "{} record of {length} bytes is over the {} byte limit{}",
                header.record_type.name(),
                self.limits.max_record_bytes,
                if skipped { "" } else { " (and the input ends inside it)" }
            );
            return Ok(Next::Skipped(skip_at(SkipReason::RecordTooLarge, offset, start, &detail)));
        }
        let body_end = body_start + length as usize;

        // The block, whole.
        while self.buf.len() < body_end {
            match self.fill()? {
                FillOutcome::More => {}
                FillOutcome::End => {
                    let have = self.buf.len().saturating_sub(body_start);
                    self.drop_buffered();
                    return Ok(Next::Skipped(skip_at(
                        SkipReason::TruncatedRecord,
                        offset,
                        start,
                        &format!("Content-Length says {length} bytes, the input ends after {have}"),
                    )));
                }
                FillOutcome::Damaged(skip) => {
                    self.drop_buffered();
                    return Ok(Next::Skipped(Skip { detail: format!("record at {} cut by damage: {}", describe_offset(offset, start), skip.detail), ..skip }));
                }
            }
        }

        // A record never swallows the start of another: a gzip member boundary, or in
        // a plain file a blank line followed by a version line, inside the block means
        // the length is wrong.
        if let Some(next) = self.record_start_inside(start, body_start, body_end) {
            self.consume(next);
            self.resyncing = true;
            return Ok(Next::Skipped(skip_at(SkipReason::ContentLengthMismatch, offset, start, &format!("Content-Length {length} runs into the next record"))));
        }

        // The two CRLFs that close a record, read leniently.
        if self.buf.len() < body_end + 4 {
            match self.fill()? {
                FillOutcome::More | FillOutcome::End => {}
                FillOutcome::Damaged(skip) => self.pending_skip = Some(skip),
            }
        }
        let after = &self.buf.filled()[body_end..];
        let Some(trailer) = record_trailer(after, self.pending_skip.is_some() || self.ended) else {
            // The length lies: look for the next record inside what it claimed.
            let search_from = body_start.min(self.buf.len());
            let next = memmem::find(&self.buf.filled()[search_from..], b"\nWARC/").map(|i| search_from + i + 1).unwrap_or(body_end);
            self.consume(next);
            self.resyncing = true;
            return Ok(Next::Skipped(skip_at(
                SkipReason::ContentLengthMismatch,
                offset,
                start,
                &format!("Content-Length {length} does not end at a record boundary"),
            )));
        };
        self.pending_consume = body_end + trailer;
        Ok(Next::Record(RawRecord { header, block: &self.buf.filled()[body_start..body_end], offset }))
    }

    /// Where, relative to the buffer start, a record begins inside this record's block.
    fn record_start_inside(&self, start: u64, body_start: usize, body_end: usize) -> Option<usize> {
        let filled = self.buf.filled();
        match self.source.compression() {
            Compression::Gzip => self
                .source
                .member_start_between(start, start + body_end as u64)
                .map(|pos| (pos - start) as usize)
                .filter(|&rel| filled[rel..].starts_with(VERSION_PREFIX)),
            Compression::None => {
                memmem::find(&filled[body_start..body_end], b"\r\n\r\nWARC/").map(|i| body_start + i + 4).filter(|&rel| looks_like_version_line(&filled[rel..]))
            }
        }
    }

    /// Skips blank lines and anything else up to the next "WARC/" at a line start.
    /// Returns a skip when bytes other than blank lines had to be passed over.
    fn seek_record_start(&mut self) -> io::Result<Option<Skip>> {
        let mut garbage_at: Option<u64> = None;
        loop {
            let (blank, rest_len, at_marker, rest_has_text) = {
                let filled = self.buf.filled();
                let blank = filled.iter().take_while(|b| matches!(b, b'\r' | b'\n')).count();
                let rest = &filled[blank..];
                (blank, rest.len(), rest.starts_with(VERSION_PREFIX), rest.iter().any(|b| !b.is_ascii_whitespace()))
            };
            if rest_len >= VERSION_PREFIX.len() {
                if at_marker {
                    self.consume(blank);
                    return Ok(garbage_at.map(|at| Skip {
                        reason: SkipReason::GarbageBetweenRecords,
                        offset: None,
                        detail: format!("{} bytes that are not a record skipped from decoded position {at}", self.position - at),
                    }));
                }
                garbage_at.get_or_insert(self.position + blank as u64);
                let from = blank + 1;
                match find_version_line(&self.buf.filled()[from..]) {
                    VersionLine::At(i) => {
                        self.consume(from + i);
                        continue;
                    }
                    // Judged once more bytes are in.
                    VersionLine::CutOff(i) => self.consume(from + i),
                    VersionLine::Absent => {
                        // Keep a few bytes, as the marker may straddle the refill, and read on.
                        let n = self.buf.len() - VERSION_PREFIX.len();
                        self.consume(n);
                    }
                }
            }
            match self.fill()? {
                FillOutcome::More => {}
                FillOutcome::End => {
                    if rest_has_text {
                        garbage_at.get_or_insert(self.position);
                    }
                    self.drop_buffered();
                    return Ok(garbage_at.map(|at| Skip {
                        reason: SkipReason::GarbageBetweenRecords,
                        offset: None,
                        detail: format!("{} bytes at the end of the input are not a record", self.position - at),
                    }));
                }
                FillOutcome::Damaged(skip) => {
                    self.drop_buffered();
                    return Ok(Some(skip));
                }
            }
        }
    }

    /// Drops `n` bytes from the buffer start without holding them; false if the input
    /// ended or broke first.
    fn discard(&mut self, mut n: u64) -> io::Result<bool> {
        loop {
            let take = n.min(self.buf.len() as u64) as usize;
            self.consume(take);
            n -= take as u64;
            if n == 0 {
                return Ok(true);
            }
            match self.fill()? {
                FillOutcome::More => {}
                FillOutcome::End => return Ok(false),
                FillOutcome::Damaged(skip) => {
                    self.pending_skip = Some(skip);
                    self.drop_buffered();
                    return Ok(false);
                }
            }
        }
    }
}

enum FillOutcome {
    More,
    End,
    Damaged(Skip),
}

struct HeaderEnd {
    /// Length of the header text without the blank line.
    text: usize,
    /// Length including the blank line.
    total: usize,
}

/// Finds the blank line ending a header: CRLFCRLF, or LFLF / LFCRLF from lax writers.
fn find_blank_line(window: &[u8]) -> Option<HeaderEnd> {
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'\n', &window[from..]) {
        let nl = from + i;
        let next = &window[nl + 1..];
        let text = if nl > 0 && window[nl - 1] == b'\r' { nl - 1 } else { nl };
        if next.starts_with(b"\r\n") {
            return Some(HeaderEnd { text, total: nl + 3 });
        }
        if next.starts_with(b"\n") {
            return Some(HeaderEnd { text, total: nl + 2 });
        }
        from = nl + 1;
    }
    None
}

/// The length of the record's closing CRLFs, or None when what follows the block
/// cannot be the end of a record. `at_end`: nothing more follows in this stretch.
fn record_trailer(after: &[u8], at_end: bool) -> Option<usize> {
    let newlines = after.iter().take(4).take_while(|b| matches!(b, b'\r' | b'\n')).count();
    let rest = &after[newlines..];
    if newlines == 4 || rest.starts_with(VERSION_PREFIX) || (rest.is_empty() && at_end) {
        return Some(newlines);
    }
    if rest.is_empty() {
        // Fewer than four bytes buffered and more input may follow: trust the length.
        return Some(newlines);
    }
    None
}

enum VersionLine {
    At(usize),
    /// A "WARC/" whose version runs to the end of the bytes at hand.
    CutOff(usize),
    Absent,
}

/// The first version line in `bytes`, wherever it starts: garbage written over the end
/// of one record, or before the next, need not end with a line break, so a record can
/// follow it on the same line.
fn find_version_line(bytes: &[u8]) -> VersionLine {
    for i in memmem::find_iter(bytes, VERSION_PREFIX) {
        let rest = &bytes[i..];
        if looks_like_version_line(rest) {
            return VersionLine::At(i);
        }
        let version = &rest[VERSION_PREFIX.len()..];
        if version.len() < 8 && version.iter().all(|b| b.is_ascii_digit() || *b == b'.') {
            return VersionLine::CutOff(i);
        }
    }
    VersionLine::Absent
}

/// "WARC/1.0\r\n", "WARC/0.18\n", ...
fn looks_like_version_line(bytes: &[u8]) -> bool {
    let Some(rest) = bytes.strip_prefix(VERSION_PREFIX) else { return false };
    let version_len = rest.iter().take_while(|b| b.is_ascii_digit() || **b == b'.').count();
    version_len > 0 && matches!(rest.get(version_len), Some(b'\r' | b'\n'))
}

fn describe_offset(offset: Option<u64>, position: u64) -> String {
    match offset {
        Some(o) => format!("input offset {o}"),
        None => format!("decoded position {position}"),
    }
}

fn skip_at(reason: SkipReason, offset: Option<u64>, position: u64, detail: &str) -> Skip {
    Skip { reason, offset, detail: format!("{} at {}: {detail}", reason.describe(), describe_offset(offset, position)) }
}
