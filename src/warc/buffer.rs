//! Growable byte windows with initialised spare space, so readers and inflaters can
//! write straight into them without zeroing memory on every call.

use std::io::{self, BufRead, Read};

/// Bytes `data[start..end]` are live; `data[end..]` is scratch space.
#[derive(Debug, Default)]
pub(crate) struct ByteWindow {
    data: Vec<u8>,
    start: usize,
    end: usize,
}

impl ByteWindow {
    pub(crate) fn filled(&self) -> &[u8] {
        &self.data[self.start..self.end]
    }

    pub(crate) fn len(&self) -> usize {
        self.end - self.start
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.start == self.end
    }

    pub(crate) fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// Scratch space of at least `want` bytes after the live bytes (moving them to the
    /// front first when that frees enough room).
    pub(crate) fn spare_mut(&mut self, want: usize) -> &mut [u8] {
        if self.data.len() - self.end < want && self.start > 0 {
            self.data.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.data.len() - self.end < want {
            self.data.resize(self.end + want, 0);
        }
        &mut self.data[self.end..]
    }

    /// Marks `n` bytes of the scratch space handed out by `spare_mut` as live.
    pub(crate) fn commit(&mut self, n: usize) {
        self.end = (self.end + n).min(self.data.len());
    }
}

/// A reader with a look-ahead window that can hold a whole gzip member, and that knows
/// the input offset of its first live byte.
pub(crate) struct InputWindow<R> {
    reader: R,
    window: ByteWindow,
    /// Input offset of `window.filled()[0]`.
    offset: u64,
    eof: bool,
    read_size: usize,
}

impl<R: Read> InputWindow<R> {
    pub(crate) fn new(reader: R, read_size: usize) -> Self {
        Self { reader, window: ByteWindow::default(), offset: 0, eof: false, read_size }
    }

    pub(crate) fn available(&self) -> &[u8] {
        self.window.filled()
    }

    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }

    pub(crate) fn at_eof(&self) -> bool {
        self.eof
    }

    pub(crate) fn advance(&mut self, n: usize) {
        let n = n.min(self.window.len());
        self.window.consume(n);
        self.offset += n as u64;
    }

    /// Reads until at least `want` bytes are available or the input ends.
    pub(crate) fn fill_to(&mut self, want: usize) -> io::Result<()> {
        while !self.eof && self.window.len() < want {
            let chunk = self.read_size.max(want - self.window.len());
            let spare = self.window.spare_mut(chunk);
            let n = loop {
                match self.reader.read(spare) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            if n == 0 {
                self.eof = true;
            }
            self.window.commit(n);
        }
        Ok(())
    }
}

impl<R: Read> Read for InputWindow<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for InputWindow<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.window.is_empty() {
            self.fill_to(1)?;
        }
        Ok(self.window.filled())
    }

    fn consume(&mut self, n: usize) {
        self.advance(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spare_space_keeps_live_bytes() {
        let mut w = ByteWindow::default();
        w.spare_mut(4)[..4].copy_from_slice(b"abcd");
        w.commit(4);
        w.consume(2);
        let spare = w.spare_mut(100);
        assert!(spare.len() >= 100);
        spare[..2].copy_from_slice(b"ef");
        w.commit(2);
        assert_eq!(w.filled(), b"cdef");
    }

    #[test]
    fn input_window_tracks_offsets() {
        let mut input = InputWindow::new(&b"0123456789"[..], 3);
        input.fill_to(5).unwrap();
        assert!(input.available().len() >= 5);
        input.advance(4);
        assert_eq!(input.offset(), 4);
        let mut rest = String::new();
        input.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "456789");
        assert!(input.at_eof());
    }
}
