//! goce-warc's LibTorch networks: the genre ResNet ([`resnet`]), Web2Text's two CNNs
//! ([`web2text`]), the word model's fit ([`words`]) and where they run ([`device`]).
//!
//! `goce-warc` does not link LibTorch: loading it costs every process about 0.15 CPU s and
//! 126 MB before `main` (its operator registry and the pages its relocations touch), and the
//! default's cascade sends almost no page to the ResNet. It opens this library, built as a
//! `cdylib` beside the binary, the first time a network is needed, through the C interface in
//! [`ffi`] (`src/torch.rs` in goce-warc). `goce-warc-train` links it as a Rust library and
//! trains the same networks.

pub mod device;
pub mod ffi;
pub mod resnet;
pub mod web2text;
pub mod words;

/// What a network call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum TorchError {
    #[error("LibTorch: {0}")]
    Torch(#[from] tch::TchError),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Device(String),
    /// The network's state, not LibTorch, failed (a poisoned lock).
    #[error("the network: {0}")]
    Net(&'static str),
}
