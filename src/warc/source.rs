//! Turns an input (plain WARC, gzip member per record, or one gzip stream) into
//! decoded WARC bytes, noting where each gzip member starts so records get the
//! offsets the Common Crawl index uses, and resynchronising past damaged members.

use std::collections::VecDeque;
use std::io::{self, Read};

use super::SkipReason;
use super::buffer::{ByteWindow, InputWindow};
use super::inflate::{GzipInflater, InflateError};

const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];
const READ_SIZE: usize = 1 << 20;
/// Compressed bytes kept ahead so that nearly every member is inflated in one call.
const LOOK_AHEAD: usize = 4 << 20;
/// First output size tried for a member; doubled up to the member limit.
const FIRST_OUTPUT: usize = 2 << 20;
const PLAIN_CHUNK: usize = 1 << 20;

/// What one call of [`DecodedSource::fill`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fill {
    /// Decoded bytes were appended.
    Data,
    /// Input was damaged at `offset`; the decoded bytes before it may be incomplete.
    Damaged {
        reason: SkipReason,
        offset: u64,
    },
    End,
}

/// How the input is compressed, found from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Compression {
    None,
    Gzip,
}

impl Compression {
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Gzip => "gzip",
        }
    }
}

// One State per input, moved between variants in place: boxing the streamed decoder
// would cost an allocation per streamed member and save nothing.
#[allow(clippy::large_enum_variant)]
enum State<R: Read> {
    Plain(InputWindow<R>),
    /// Whole members inflated by libdeflate.
    Members(InputWindow<R>),
    /// One member too big to inflate whole (a whole-file gzip, a huge record) streamed.
    StreamedMember(flate2::bufread::GzDecoder<InputWindow<R>>),
    Taken,
}

pub(crate) struct DecodedSource<R: Read> {
    state: State<R>,
    inflater: Option<GzipInflater>,
    compression: Compression,
    /// Largest member inflated whole; bigger ones are streamed.
    member_limit: usize,
    /// (decoded position, input offset) of each member start not yet claimed.
    member_starts: VecDeque<(u64, u64)>,
    decoded: u64,
}

impl<R: Read> DecodedSource<R> {
    pub(crate) fn new(reader: R, member_limit: usize) -> io::Result<Self> {
        let mut input = InputWindow::new(reader, READ_SIZE);
        input.fill_to(2)?;
        let gzip = input.available().starts_with(&GZIP_MAGIC[..2]);
        let (state, compression, inflater) = if gzip {
            let inflater = GzipInflater::new().map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "libdeflate state"))?;
            (State::Members(input), Compression::Gzip, Some(inflater))
        } else {
            (State::Plain(input), Compression::None, None)
        };
        Ok(Self { state, inflater, compression, member_limit: member_limit.max(FIRST_OUTPUT), member_starts: VecDeque::new(), decoded: 0 })
    }

    pub(crate) fn compression(&self) -> Compression {
        self.compression
    }

    /// Input bytes read so far (compressed bytes for gzip).
    pub(crate) fn input_offset(&self) -> u64 {
        match &self.state {
            State::Plain(w) | State::Members(w) => w.offset(),
            State::StreamedMember(d) => d.get_ref().offset(),
            State::Taken => 0,
        }
    }

    /// The input offset of the record that starts at decoded position `pos`: the byte
    /// offset for plain files, the offset of the gzip member it starts in otherwise.
    pub(crate) fn record_offset(&mut self, pos: u64) -> Option<u64> {
        if self.compression == Compression::None {
            return Some(pos);
        }
        while self.member_starts.len() > 1 && self.member_starts[1].0 <= pos {
            self.member_starts.pop_front();
        }
        match self.member_starts.front() {
            Some(&(start, offset)) if start == pos => Some(offset),
            _ => None,
        }
    }

    /// The decoded position of the first gzip member that starts strictly between
    /// `from` and `to`, if any: a record that claims bytes past one has a wrong length.
    pub(crate) fn member_start_between(&self, from: u64, to: u64) -> Option<u64> {
        self.member_starts.iter().map(|&(pos, _)| pos).find(|&pos| pos > from && pos < to)
    }

    /// Appends the next decoded bytes to `out`.
    pub(crate) fn fill(&mut self, out: &mut ByteWindow) -> io::Result<Fill> {
        loop {
            match std::mem::replace(&mut self.state, State::Taken) {
                State::Plain(mut input) => {
                    input.fill_to(1)?;
                    let available = input.available();
                    let n = available.len().min(PLAIN_CHUNK);
                    out.spare_mut(n)[..n].copy_from_slice(&available[..n]);
                    out.commit(n);
                    input.advance(n);
                    self.decoded += n as u64;
                    self.state = State::Plain(input);
                    return Ok(if n == 0 { Fill::End } else { Fill::Data });
                }
                State::Members(input) => {
                    if let Some(fill) = self.fill_member(input, out)? {
                        return Ok(fill);
                    }
                }
                State::StreamedMember(mut decoder) => {
                    let spare = out.spare_mut(READ_SIZE);
                    match decoder.read(spare) {
                        Ok(0) => self.state = State::Members(decoder.into_inner()),
                        Ok(n) => {
                            out.commit(n);
                            self.decoded += n as u64;
                            self.state = State::StreamedMember(decoder);
                            return Ok(Fill::Data);
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                            self.state = State::StreamedMember(decoder);
                        }
                        Err(e) => {
                            let mut input = decoder.into_inner();
                            let offset = input.offset();
                            let reason = if input.at_eof() && input.available().is_empty() {
                                SkipReason::GzipTruncated
                            } else if e.kind() == io::ErrorKind::InvalidInput
                                || e.kind() == io::ErrorKind::InvalidData
                                || e.kind() == io::ErrorKind::UnexpectedEof
                            {
                                SkipReason::GzipCorrupt
                            } else {
                                return Err(e);
                            };
                            skip_to_next_member(&mut input, 0)?;
                            self.state = State::Members(input);
                            return Ok(Fill::Damaged { reason, offset });
                        }
                    }
                }
                State::Taken => return Ok(Fill::End),
            }
        }
    }

    /// Inflates one member whole. `None` means the state changed and `fill` should loop.
    fn fill_member(&mut self, mut input: InputWindow<R>, out: &mut ByteWindow) -> io::Result<Option<Fill>> {
        if input.available().len() < LOOK_AHEAD / 2 {
            input.fill_to(LOOK_AHEAD)?;
        }
        if input.available().is_empty() {
            self.state = State::Members(input);
            return Ok(Some(Fill::End));
        }
        if !input.available().starts_with(&GZIP_MAGIC) {
            let offset = input.offset();
            skip_to_next_member(&mut input, 1)?;
            self.state = State::Members(input);
            return Ok(Some(Fill::Damaged { reason: SkipReason::GarbageBetweenMembers, offset }));
        }
        let Some(inflater) = self.inflater.as_mut() else {
            return Err(io::Error::other("gzip input without an inflater"));
        };
        let mut output = FIRST_OUTPUT;
        let window_limit = self.member_limit + (self.member_limit >> 4) + READ_SIZE;
        loop {
            let spare = out.spare_mut(output);
            let spare_len = output.min(spare.len());
            match inflater.inflate_member(input.available(), &mut spare[..spare_len]) {
                Ok(done) => {
                    out.commit(done.produced);
                    self.member_starts.push_back((self.decoded, input.offset()));
                    self.decoded += done.produced as u64;
                    input.advance(done.consumed);
                    self.state = State::Members(input);
                    return Ok(Some(Fill::Data));
                }
                Err(InflateError::OutputTooSmall) if output < self.member_limit => {
                    output = (output * 2).min(self.member_limit);
                }
                Err(InflateError::OutputTooSmall) => {
                    // Too big to hold whole: stream it (whole-file gzip lands here).
                    self.member_starts.push_back((self.decoded, input.offset()));
                    self.state = State::StreamedMember(flate2::bufread::GzDecoder::new(input));
                    return Ok(None);
                }
                Err(InflateError::BadData) if !input.at_eof() && input.available().len() < window_limit => {
                    // Perhaps only cut by the end of the window: look further.
                    let more = (input.available().len() * 2).min(window_limit);
                    input.fill_to(more)?;
                }
                Err(InflateError::BadData) => {
                    let offset = input.offset();
                    let truncated = input.at_eof() && memchr::memmem::find(&input.available()[1..], &GZIP_MAGIC).is_none();
                    skip_to_next_member(&mut input, 1)?;
                    self.state = State::Members(input);
                    let reason = if truncated { SkipReason::GzipTruncated } else { SkipReason::GzipCorrupt };
                    return Ok(Some(Fill::Damaged { reason, offset }));
                }
                Err(InflateError::OutOfMemory) => {
                    return Err(io::Error::new(io::ErrorKind::OutOfMemory, "libdeflate"));
                }
            }
        }
    }
}

/// Advances past `from` bytes and then to the next gzip member header (or the end).
fn skip_to_next_member<R: Read>(input: &mut InputWindow<R>, from: usize) -> io::Result<()> {
    input.advance(from);
    loop {
        input.fill_to(READ_SIZE)?;
        let available = input.available();
        if let Some(i) = memchr::memmem::find(available, &GZIP_MAGIC) {
            input.advance(i);
            return Ok(());
        }
        if input.at_eof() {
            let n = available.len();
            input.advance(n);
            return Ok(());
        }
        // Keep the last two bytes: the magic may straddle the refill.
        let n = available.len().saturating_sub(GZIP_MAGIC.len() - 1);
        input.advance(n);
    }
}
