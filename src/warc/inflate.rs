//! A safe wrapper over libdeflate's whole-member gzip inflate.
//!
//! libdeflate inflates a gzip member held whole in memory about 1.5x faster than
//! zlib-rs streams it. The `_ex` entry point (which the `libdeflater` crate does not
//! expose) also reports how many input bytes the member used: that is what lets the
//! reader walk Common Crawl's one-member-per-record files and know each record's offset.
#![allow(unsafe_code)]

use std::ptr::NonNull;

use libdeflate_sys::{
    libdeflate_alloc_decompressor, libdeflate_decompressor, libdeflate_free_decompressor, libdeflate_gzip_decompress_ex, libdeflate_result_LIBDEFLATE_BAD_DATA,
    libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE, libdeflate_result_LIBDEFLATE_SUCCESS,
};

/// Why one member could not be inflated whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InflateError {
    /// Corrupt, or cut short by the end of the input given.
    BadData,
    /// The output slice is too small for the member.
    OutputTooSmall,
    /// libdeflate could not allocate its state.
    OutOfMemory,
}

/// Inflated sizes of one gzip member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Inflated {
    pub consumed: usize,
    pub produced: usize,
}

pub(crate) struct GzipInflater {
    state: NonNull<libdeflate_decompressor>,
}

// SAFETY: the decompressor state is plain heap memory owned by this value alone.
unsafe impl Send for GzipInflater {}

impl GzipInflater {
    pub(crate) fn new() -> Result<Self, InflateError> {
        // SAFETY: plain allocation call; null is checked.
        let raw = unsafe { libdeflate_alloc_decompressor() };
        NonNull::new(raw).map(|state| Self { state }).ok_or(InflateError::OutOfMemory)
    }

    /// Inflates the gzip member at the start of `input` into `output`.
    /// Bytes after the member in `input` are left alone.
    pub(crate) fn inflate_member(&mut self, input: &[u8], output: &mut [u8]) -> Result<Inflated, InflateError> {
        let mut consumed = 0usize;
        let mut produced = 0usize;
        // SAFETY: pointers and lengths come from live slices; libdeflate reads at most
        // `input.len()` and writes at most `output.len()` bytes, and writes the two sizes.
        let result = unsafe {
            libdeflate_gzip_decompress_ex(
                self.state.as_ptr(),
                input.as_ptr().cast(),
                input.len(),
                output.as_mut_ptr().cast(),
                output.len(),
                &mut consumed,
                &mut produced,
            )
        };
        #[allow(non_upper_case_globals)]
        match result {
            libdeflate_result_LIBDEFLATE_SUCCESS => Ok(Inflated { consumed, produced }),
            libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE => Err(InflateError::OutputTooSmall),
            libdeflate_result_LIBDEFLATE_BAD_DATA => Err(InflateError::BadData),
            _ => Err(InflateError::BadData),
        }
    }
}

impl Drop for GzipInflater {
    fn drop(&mut self) {
        // SAFETY: allocated by libdeflate_alloc_decompressor and freed once.
        unsafe { libdeflate_free_decompressor(self.state.as_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn reports_the_member_length_and_ignores_what_follows() {
        let mut input = gzip(b"first member");
        let first_len = input.len();
        input.extend(gzip(b"second"));
        let mut out = vec![0; 64];
        let done = GzipInflater::new().unwrap().inflate_member(&input, &mut out).unwrap();
        assert_eq!(done, Inflated { consumed: first_len, produced: 12 });
        assert_eq!(&out[..12], b"first member");
    }

    #[test]
    fn tells_a_short_output_from_bad_data() {
        let input = gzip(&[b'x'; 1000]);
        let mut inflater = GzipInflater::new().unwrap();
        let mut small = vec![0; 10];
        assert_eq!(inflater.inflate_member(&input, &mut small), Err(InflateError::OutputTooSmall));
        let mut out = vec![0; 2000];
        let cut = &input[..input.len() - 5];
        assert_eq!(inflater.inflate_member(cut, &mut out), Err(InflateError::BadData));
    }
}
