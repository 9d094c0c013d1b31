//! LibTorch, opened when a network needs it. goce-warc does not link it: loading LibTorch
//! costs a process about 0.15 CPU s and 126 MB before it reads a page (its operator
//! registry, and the pages its relocations touch), and the default's cascade on the CPU runs
//! its few ResNet pages without it ([`crate::classify::cpu_net`]). The networks live in `libgoce_warc_torch.so` (the
//! `crates/goce-warc-torch` library, built beside the binary), which this module opens
//! the first time the ResNet or Web2Text is asked for, through a small C interface:
//! plain numbers and byte buffers, errors as messages.
#![allow(unsafe_code)]

use std::ffi::{CStr, CString, c_char, c_void};
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, Ordering};

/// The library's file name, looked for beside the binary.
pub const LIBRARY_FILE: &str = "libgoce_warc_torch.so";
/// The environment variable that names the library's path instead.
pub const LIBRARY_VARIABLE: &str = "GOCE_WARC_TORCH";
/// The interface version this build speaks (`goce_warc_torch::ffi::ABI_VERSION`).
const ABI_VERSION: u32 = 1;

#[derive(Debug, Clone, thiserror::Error)]
pub enum TorchError {
    #[error(
        "goce-warc's LibTorch library ({LIBRARY_FILE}) was not found (looked in {looked}); `make build` writes it beside the \
         goce-warc binary, where it must stay, or set {LIBRARY_VARIABLE} to its path"
    )]
    NotFound { looked: String },
    #[error("goce-warc's LibTorch library {path} cannot be opened: {reason}")]
    Open { path: PathBuf, reason: String },
    #[error("{0}")]
    Call(String),
}

/// `--device auto|cpu|cuda[:N]`: where the ResNet runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeviceChoice {
    /// CUDA when LibTorch's CUDA library loads and a GPU is present, else the CPU.
    #[default]
    Auto,
    Cpu,
    Cuda(usize),
}

impl std::str::FromStr for DeviceChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Self::Auto),
            "cpu" => Ok(Self::Cpu),
            "cuda" => Ok(Self::Cuda(0)),
            _ => s.strip_prefix("cuda:").and_then(|n| n.parse().ok()).map(Self::Cuda).ok_or_else(|| format!("{s:?}: expected auto, cpu, cuda or cuda:N")),
        }
    }
}

/// Where a network runs, once resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Device {
    Cpu,
    Cuda(usize),
}

impl Device {
    pub fn is_cuda(self) -> bool {
        matches!(self, Self::Cuda(_))
    }

    fn code(self) -> i32 {
        match self {
            Self::Cpu => -1,
            Self::Cuda(index) => i32::try_from(index).unwrap_or(0),
        }
    }
}

/// Whether this machine shows an NVIDIA GPU to its driver, read without LibTorch: with none,
/// `--device auto` is the CPU, and LibTorch can wait until a network runs.
pub fn nvidia_gpu_present() -> bool {
    std::fs::read_dir("/proc/driver/nvidia/gpus").is_ok_and(|mut gpus| gpus.next().is_some())
}

type Error = *mut *mut c_char;

struct Functions {
    set_threads: unsafe extern "C" fn(i32),
    device: unsafe extern "C" fn(i32, i32, *mut i32, Error) -> i32,
    resnet_load: unsafe extern "C" fn(*const c_char, *const c_char, i32, Error) -> *mut c_void,
    resnet_probabilities: unsafe extern "C" fn(*const c_void, usize, *const u8, usize, *const f32, usize, *mut f32, usize, Error) -> i32,
    resnet_free: unsafe extern "C" fn(*mut c_void),
    web2text_load: unsafe extern "C" fn(*const c_char, *const c_char, Error) -> *mut c_void,
    web2text_potentials: unsafe extern "C" fn(*const c_void, *const f32, usize, *const f32, usize, *mut f32, *mut f32, Error) -> i32,
    web2text_free: unsafe extern "C" fn(*mut c_void),
    error_free: unsafe extern "C" fn(*mut c_char),
}

struct Library {
    functions: Functions,
    // Kept open for the life of the process (a static is never dropped).
    _library: libloading::Library,
}

/// LibTorch's threads, as `--threads` asked (0: not asked): applied when the library opens.
static THREADS: AtomicI32 = AtomicI32::new(0);
static LIBRARY: OnceLock<Result<Library, TorchError>> = OnceLock::new();

/// Sets LibTorch's intra-op threads, now if the library is open, else when it opens.
pub fn set_threads(threads: usize) {
    let threads = i32::try_from(threads.max(1)).unwrap_or(1);
    THREADS.store(threads, Ordering::Relaxed);
    if let Some(Ok(library)) = LIBRARY.get() {
        // SAFETY: a function of the open library, taking a number.
        unsafe { (library.functions.set_threads)(threads) };
    }
}

/// Whether this process has opened LibTorch.
pub fn is_open() -> bool {
    matches!(LIBRARY.get(), Some(Ok(_)))
}

/// Where the library is: `$GOCE_WARC_TORCH`, else beside the running binary, else one folder
/// up (a test binary in `target/*/deps`).
pub fn library_path() -> Result<PathBuf, TorchError> {
    let mut candidates = Vec::new();
    if let Some(path) = std::env::var_os(LIBRARY_VARIABLE) {
        candidates.push(PathBuf::from(path));
    } else if let Ok(exe) = std::env::current_exe() {
        let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
        candidates.push(dir.join(LIBRARY_FILE));
        if let Some(up) = dir.parent() {
            candidates.push(up.join(LIBRARY_FILE));
        }
    }
    candidates
        .iter()
        .find(|path| path.is_file())
        .cloned()
        .ok_or_else(|| TorchError::NotFound { looked: candidates.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ") })
}

fn library() -> Result<&'static Library, TorchError> {
    LIBRARY.get_or_init(open).as_ref().map_err(Clone::clone)
}

fn open() -> Result<Library, TorchError> {
    let path = library_path()?;
    let fail = |reason: String| TorchError::Open { path: path.clone(), reason };
    // SAFETY: the library is goce-warc's own (checked by its interface version below); opening
    // it runs LibTorch's static initialisers, which only set up LibTorch.
    let library = unsafe { libloading::Library::new(&path) }.map_err(|e| fail(e.to_string()))?;
    // SAFETY: each symbol is read with the type `goce_warc_torch::ffi` defines it with.
    let functions = unsafe {
        let version = library.get::<unsafe extern "C" fn() -> u32>(b"goce_torch_abi_version\0").map_err(|e| fail(e.to_string()))?;
        let version = version();
        if version != ABI_VERSION {
            return Err(fail(format!("it speaks interface {version}, this goce-warc {ABI_VERSION}: rebuild both with `make build`")));
        }
        macro_rules! symbol {
            ($name:literal) => {
                *library.get(concat!($name, "\0").as_bytes()).map_err(|e| fail(e.to_string()))?
            };
        }
        Functions {
            set_threads: symbol!("goce_torch_set_threads"),
            device: symbol!("goce_torch_device"),
            resnet_load: symbol!("goce_torch_resnet_load"),
            resnet_probabilities: symbol!("goce_torch_resnet_probabilities"),
            resnet_free: symbol!("goce_torch_resnet_free"),
            web2text_load: symbol!("goce_torch_web2text_load"),
            web2text_potentials: symbol!("goce_torch_web2text_potentials"),
            web2text_free: symbol!("goce_torch_web2text_free"),
            error_free: symbol!("goce_torch_error_free"),
        }
    };
    let threads = THREADS.load(Ordering::Relaxed);
    if threads > 0 {
        // SAFETY: as in `set_threads`.
        unsafe { (functions.set_threads)(threads) };
    }
    tracing::debug!("opened {}", path.display());
    Ok(Library { functions, _library: library })
}

impl Library {
    /// The message of a failed call, freed in the library that wrote it.
    fn error(&self, error: *mut c_char) -> TorchError {
        if error.is_null() {
            return TorchError::Call("a LibTorch call failed without saying why".into());
        }
        // SAFETY: the library set `error` to a NUL-terminated message of its own.
        let message = unsafe { CStr::from_ptr(error) }.to_string_lossy().into_owned();
        // SAFETY: freed once, by the library that allocated it.
        unsafe { (self.functions.error_free)(error) };
        TorchError::Call(message)
    }
}

fn c_string(text: &str) -> Result<CString, TorchError> {
    CString::new(text).map_err(|_| TorchError::Call(format!("{text:?} holds a NUL")))
}

/// Resolves a device choice; opens LibTorch (and, for CUDA, its CUDA library).
pub fn resolve_device(choice: DeviceChoice) -> Result<Device, TorchError> {
    let library = library()?;
    let (kind, index) = match choice {
        DeviceChoice::Auto => (0, 0),
        DeviceChoice::Cpu => (1, 0),
        DeviceChoice::Cuda(index) => (2, i32::try_from(index).unwrap_or(i32::MAX)),
    };
    let (mut code, mut error) = (-1i32, std::ptr::null_mut());
    // SAFETY: writable places for the answer and the message.
    let status = unsafe { (library.functions.device)(kind, index, &mut code, &mut error) };
    if status != 0 {
        return Err(library.error(error));
    }
    Ok(usize::try_from(code).map_or(Device::Cpu, Device::Cuda))
}

/// The genre ResNet, loaded in the library.
pub struct ResNet {
    raw: NonNull<c_void>,
    library: &'static Library,
}

// SAFETY: the library's network holds its LibTorch modules behind a mutex.
unsafe impl Send for ResNet {}
// SAFETY: as above.
unsafe impl Sync for ResNet {}

impl ResNet {
    /// `shape`: JSON of `goce_warc_torch::resnet::ResNetShape`; `weights`: a VarStore file.
    pub fn load(shape: &str, weights: &Path, device: Device) -> Result<Self, TorchError> {
        let library = library()?;
        let (shape, weights) = (c_string(shape)?, c_string(&weights.to_string_lossy())?);
        let mut error = std::ptr::null_mut();
        // SAFETY: NUL-terminated strings and a writable place for the message.
        let raw = unsafe { (library.functions.resnet_load)(shape.as_ptr(), weights.as_ptr(), device.code(), &mut error) };
        NonNull::new(raw).map(|raw| Self { raw, library }).ok_or_else(|| library.error(error))
    }

    /// `classes` probabilities for each of `n` pages: `rgb` their pictures at the network's
    /// input size, row by row; `features` their standardised rows.
    pub fn probabilities(&self, rgb: &[u8], features: &[f32], n: usize, classes: usize) -> Result<Vec<f32>, TorchError> {
        let mut out = vec![0f32; n * classes];
        let mut error = std::ptr::null_mut();
        // SAFETY: a live network and buffers of the lengths passed.
        let status = unsafe {
            (self.library.functions.resnet_probabilities)(
                self.raw.as_ptr(),
                n,
                rgb.as_ptr(),
                rgb.len(),
                features.as_ptr(),
                features.len(),
                out.as_mut_ptr(),
                out.len(),
                &mut error,
            )
        };
        if status != 0 {
            return Err(self.library.error(error));
        }
        Ok(out)
    }
}

impl Drop for ResNet {
    fn drop(&mut self) {
        // SAFETY: the network came from this library and is freed once.
        unsafe { (self.library.functions.resnet_free)(self.raw.as_ptr()) };
    }
}

/// Web2Text's two networks, loaded in the library (on the CPU).
pub struct Web2TextNets {
    raw: NonNull<c_void>,
    library: &'static Library,
    block_features: usize,
    edge_features: usize,
}

// SAFETY: the library's networks are held behind a mutex.
unsafe impl Send for Web2TextNets {}
// SAFETY: as above.
unsafe impl Sync for Web2TextNets {}

impl Web2TextNets {
    /// `shape`: JSON of `goce_warc_torch::web2text::CnnShape`, whose feature counts are given
    /// again here.
    pub fn load(shape: &str, weights: &Path, block_features: usize, edge_features: usize) -> Result<Self, TorchError> {
        let library = library()?;
        let (shape, weights) = (c_string(shape)?, c_string(&weights.to_string_lossy())?);
        let mut error = std::ptr::null_mut();
        // SAFETY: NUL-terminated strings and a writable place for the message.
        let raw = unsafe { (library.functions.web2text_load)(shape.as_ptr(), weights.as_ptr(), &mut error) };
        NonNull::new(raw).map(|raw| Self { raw, library, block_features, edge_features }).ok_or_else(|| library.error(error))
    }

    /// 2 probabilities per block and 4 per edge, from standardised values laid out feature by
    /// feature.
    pub fn potentials(&self, blocks: &[f32], n_blocks: usize, edges: &[f32], n_edges: usize) -> Result<(Vec<f32>, Vec<f32>), TorchError> {
        if blocks.len() != n_blocks * self.block_features || edges.len() != n_edges * self.edge_features {
            return Err(TorchError::Call(format!("{n_blocks} blocks and {n_edges} edges given {} and {} values", blocks.len(), edges.len())));
        }
        let (mut unary, mut pairwise) = (vec![0f32; 2 * n_blocks], vec![0f32; 4 * n_edges]);
        let mut error = std::ptr::null_mut();
        // SAFETY: live networks and buffers of the lengths their counts give.
        let status = unsafe {
            (self.library.functions.web2text_potentials)(
                self.raw.as_ptr(),
                blocks.as_ptr(),
                n_blocks,
                edges.as_ptr(),
                n_edges,
                unary.as_mut_ptr(),
                pairwise.as_mut_ptr(),
                &mut error,
            )
        };
        if status != 0 {
            return Err(self.library.error(error));
        }
        Ok((unary, pairwise))
    }
}

impl Drop for Web2TextNets {
    fn drop(&mut self) {
        // SAFETY: the networks came from this library and are freed once.
        unsafe { (self.library.functions.web2text_free)(self.raw.as_ptr()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_choices_parse() {
        assert_eq!("auto".parse(), Ok(DeviceChoice::Auto));
        assert_eq!("cpu".parse(), Ok(DeviceChoice::Cpu));
        assert_eq!("cuda".parse(), Ok(DeviceChoice::Cuda(0)));
        assert_eq!("cuda:3".parse(), Ok(DeviceChoice::Cuda(3)));
        assert!("gpu".parse::<DeviceChoice>().is_err());
    }
}
