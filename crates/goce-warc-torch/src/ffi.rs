//! The C interface `goce-warc` opens this library through (`src/torch.rs` there). Plain
//! numbers and byte buffers cross it; a call that fails returns null or a non-zero status and
//! sets `*error` to a message the caller frees with [`goce_torch_error_free`]. No panic
//! crosses it: each body runs under `catch_unwind`.
#![allow(unsafe_code)]

use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use crate::TorchError;
use crate::device::{DeviceRequest, select};
use crate::resnet::{ResNet, ResNetShape};
use crate::web2text::{CnnShape, Web2TextNets};

/// Bumped whenever a signature below changes; goce-warc refuses a library of another version.
pub const ABI_VERSION: u32 = 1;

/// A device as it crosses: -1 the CPU, N ≥ 0 CUDA device N.
fn device_code(device: tch::Device) -> i32 {
    match device {
        tch::Device::Cuda(index) => i32::try_from(index).unwrap_or(0),
        _ => -1,
    }
}

fn device_of(code: i32) -> tch::Device {
    usize::try_from(code).map_or(tch::Device::Cpu, tch::Device::Cuda)
}

/// Runs `body`, turning its error or panic into `*error`.
fn guarded<T>(error: *mut *mut c_char, failed: T, body: impl FnOnce() -> Result<T, TorchError>) -> T {
    let message = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(value)) => return value,
        Ok(Err(e)) => e.to_string(),
        Err(panic) => {
            panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_string())).unwrap_or_else(|| "a panic".into())
        }
    };
    if !error.is_null() {
        let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
        // SAFETY: the caller passes a valid place for the message (or null, checked above).
        unsafe { *error = text.into_raw() };
    }
    failed
}

/// SAFETY: `text` is null or a NUL-terminated string that outlives the call.
unsafe fn text<'a>(text: *const c_char) -> Result<&'a str, TorchError> {
    if text.is_null() {
        return Err(TorchError::Invalid("a null string".into()));
    }
    // SAFETY: as the function's contract says.
    unsafe { CStr::from_ptr(text) }.to_str().map_err(|_| TorchError::Invalid("a string that is not UTF-8".into()))
}

/// SAFETY: `data` is null with `len` 0, or points to `len` readable values.
unsafe fn slice<'a, T>(data: *const T, len: usize) -> &'a [T] {
    if data.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: as the function's contract says.
    unsafe { std::slice::from_raw_parts(data, len) }
}

#[unsafe(no_mangle)]
pub extern "C" fn goce_torch_abi_version() -> u32 {
    ABI_VERSION
}

/// LibTorch's intra-op threads.
#[unsafe(no_mangle)]
pub extern "C" fn goce_torch_set_threads(threads: i32) {
    let _ = catch_unwind(|| tch::set_num_threads(threads.max(1)));
}

/// Resolves `--device` (kind 0 auto, 1 cpu, 2 cuda with `index`) into `*device` (-1 the CPU,
/// N CUDA device N). Returns 0, or 1 with `*error` set.
///
/// # Safety
/// `device` and `error` point to writable places.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn goce_torch_device(kind: i32, index: i32, device: *mut i32, error: *mut *mut c_char) -> i32 {
    guarded(error, 1, || {
        let request = match kind {
            0 => DeviceRequest::Auto,
            1 => DeviceRequest::Cpu,
            _ => DeviceRequest::Cuda(usize::try_from(index).unwrap_or(0)),
        };
        let code = device_code(select(request)?);
        if !device.is_null() {
            // SAFETY: the caller passes a writable place.
            unsafe { *device = code };
        }
        Ok(0)
    })
}

/// Builds the ResNet of `shape` (JSON of [`ResNetShape`]) on `device` and reads `weights`
/// (a VarStore file) into it. Null, with `*error` set, on failure.
///
/// # Safety
/// The strings are NUL-terminated; `error` points to a writable place.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn goce_torch_resnet_load(shape: *const c_char, weights: *const c_char, device: i32, error: *mut *mut c_char) -> *mut ResNet {
    guarded(error, std::ptr::null_mut(), || {
        // SAFETY: the caller passes NUL-terminated strings.
        let (shape, weights) = unsafe { (text(shape)?, text(weights)?) };
        let shape: ResNetShape = serde_json::from_str(shape).map_err(|e| TorchError::Invalid(format!("the network's shape: {e}")))?;
        Ok(Box::into_raw(Box::new(ResNet::load(shape, Path::new(weights), device_of(device))?)))
    })
}

/// The classes' probabilities of `n` pages into `out` (`n` × classes): `rgb` `n` pictures
/// of the input size, `features` `n` standardised rows. Returns 0, or 1 with `*error` set.
///
/// # Safety
/// `net` came from [`goce_torch_resnet_load`]; the buffers hold the lengths given.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn goce_torch_resnet_probabilities(
    net: *const ResNet,
    n: usize,
    rgb: *const u8,
    rgb_len: usize,
    features: *const f32,
    features_len: usize,
    out: *mut f32,
    out_len: usize,
    error: *mut *mut c_char,
) -> i32 {
    guarded(error, 1, || {
        // SAFETY: the caller passes a live network and buffers of the lengths given.
        let (net, rgb, features) = unsafe { (net.as_ref().ok_or(TorchError::Net("null"))?, slice(rgb, rgb_len), slice(features, features_len)) };
        let probabilities = net.probabilities(rgb, features, n)?;
        if probabilities.len() != out_len || (out_len > 0 && out.is_null()) {
            return Err(TorchError::Invalid(format!("{} probabilities for {out_len} places", probabilities.len())));
        }
        if out_len > 0 {
            // SAFETY: `out` holds `out_len` floats.
            unsafe { std::slice::from_raw_parts_mut(out, out_len) }.copy_from_slice(&probabilities);
        }
        Ok(0)
    })
}

/// # Safety
/// `net` came from [`goce_torch_resnet_load`] and is not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn goce_torch_resnet_free(net: *mut ResNet) {
    if !net.is_null() {
        // SAFETY: as the function's contract says.
        drop(unsafe { Box::from_raw(net) });
    }
}

/// Builds Web2Text's two networks of `shape` (JSON of [`CnnShape`]) on the CPU and reads
/// `weights` into them. Null, with `*error` set, on failure.
///
/// # Safety
/// As [`goce_torch_resnet_load`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn goce_torch_web2text_load(shape: *const c_char, weights: *const c_char, error: *mut *mut c_char) -> *mut Web2TextNets {
    guarded(error, std::ptr::null_mut(), || {
        // SAFETY: the caller passes NUL-terminated strings.
        let (shape, weights) = unsafe { (text(shape)?, text(weights)?) };
        let shape: CnnShape = serde_json::from_str(shape).map_err(|e| TorchError::Invalid(format!("the networks' shape: {e}")))?;
        Ok(Box::into_raw(Box::new(Web2TextNets::load(shape, Path::new(weights))?)))
    })
}

/// Web2Text's potentials: into `unary` 2 per block, into `pairwise` 4 per edge. `blocks` and
/// `edges` are standardised, feature by feature. Returns 0, or 1 with `*error` set.
///
/// # Safety
/// `nets` came from [`goce_torch_web2text_load`]; the buffers hold the lengths their counts
/// and the shape's features give.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn goce_torch_web2text_potentials(
    nets: *const Web2TextNets,
    blocks: *const f32,
    n_blocks: usize,
    edges: *const f32,
    n_edges: usize,
    unary: *mut f32,
    pairwise: *mut f32,
    error: *mut *mut c_char,
) -> i32 {
    guarded(error, 1, || {
        // SAFETY: the caller passes live networks.
        let nets = unsafe { nets.as_ref() }.ok_or(TorchError::Net("null"))?;
        let (bf, ef) = (usize::try_from(nets.shape.block_features).unwrap_or(0), usize::try_from(nets.shape.edge_features).unwrap_or(0));
        // SAFETY: the buffers hold what the counts and the shape give.
        let (blocks, edges) = unsafe { (slice(blocks, n_blocks * bf), slice(edges, n_edges * ef)) };
        let (u, p) = nets.potentials(blocks, n_blocks, edges, n_edges)?;
        if u.len() != 2 * n_blocks || p.len() != 4 * n_edges || (!u.is_empty() && unary.is_null()) || (!p.is_empty() && pairwise.is_null()) {
            return Err(TorchError::Invalid("potentials of another length".into()));
        }
        // SAFETY: the output buffers hold 2 per block and 4 per edge.
        unsafe {
            if !u.is_empty() {
                std::slice::from_raw_parts_mut(unary, u.len()).copy_from_slice(&u);
            }
            if !p.is_empty() {
                std::slice::from_raw_parts_mut(pairwise, p.len()).copy_from_slice(&p);
            }
        }
        Ok(0)
    })
}

/// # Safety
/// `nets` came from [`goce_torch_web2text_load`] and is not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn goce_torch_web2text_free(nets: *mut Web2TextNets) {
    if !nets.is_null() {
        // SAFETY: as the function's contract says.
        drop(unsafe { Box::from_raw(nets) });
    }
}

/// # Safety
/// `error` came from this library (an `*error` it set) and is not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn goce_torch_error_free(error: *mut c_char) {
    if !error.is_null() {
        // SAFETY: as the function's contract says.
        drop(unsafe { CString::from_raw(error) });
    }
}
