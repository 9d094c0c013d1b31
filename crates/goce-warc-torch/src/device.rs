//! Where a network runs. rustc links with `--as-needed`, which drops `libtorch_cuda.so`
//! from what links LibTorch, and linking it hard would stop the library from loading on
//! machines without CUDA. So the CUDA half of LibTorch is loaded at run time, before the
//! first CUDA call; when it cannot be loaded the CPU is used (`Auto`) or the caller is told
//! why (`Cuda`).

use std::sync::OnceLock;

use tch::Device;

use crate::TorchError;

/// `--device auto|cpu|cuda[:N]`, as asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceRequest {
    /// CUDA when LibTorch's CUDA library loads and a GPU is present, else the CPU.
    Auto,
    Cpu,
    Cuda(usize),
}

/// Loads `libtorch_cuda.so` once (from the LibTorch this library was linked against, then
/// the library path); the error text when it cannot be loaded.
fn load_cuda_library() -> &'static Result<(), String> {
    static LOADED: OnceLock<Result<(), String>> = OnceLock::new();
    LOADED.get_or_init(|| {
        let mut candidates = Vec::new();
        if let Some(dir) = option_env!("GOCE_LIBTORCH_LIB") {
            candidates.push(format!("{dir}/libtorch_cuda.so"));
        }
        candidates.push("libtorch_cuda.so".to_string());
        let mut errors = Vec::new();
        for name in candidates {
            match open_global(&name) {
                Ok(()) => return Ok(()),
                Err(e) => errors.push(e),
            }
        }
        Err(errors.join("; "))
    })
}

#[allow(unsafe_code)]
fn open_global(name: &str) -> Result<(), String> {
    // SAFETY: loading LibTorch's CUDA library runs its static initialisers, which only
    // register CUDA kernels with the already-loaded libtorch_cpu. The handle is leaked on
    // purpose: the library must stay loaded for the life of the process.
    let library = unsafe { libloading::os::unix::Library::open(Some(name), libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_GLOBAL) };
    match library {
        Ok(lib) => {
            std::mem::forget(lib);
            Ok(())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// The tch device for a request.
pub fn select(request: DeviceRequest) -> Result<Device, TorchError> {
    match request {
        DeviceRequest::Cpu => Ok(Device::Cpu),
        DeviceRequest::Auto => {
            if load_cuda_library().is_err() {
                return Ok(Device::Cpu);
            }
            Ok(if tch::Cuda::is_available() { Device::Cuda(0) } else { Device::Cpu })
        }
        DeviceRequest::Cuda(index) => {
            if let Err(e) = load_cuda_library() {
                return Err(TorchError::Device(format!(
                    "--device cuda: LibTorch's CUDA library could not be loaded ({e}). Install the CUDA LibTorch \
                     (`make setup TORCH=cuda`) or use --device cpu"
                )));
            }
            let count = usize::try_from(tch::Cuda::device_count()).unwrap_or(0);
            if index >= count {
                return Err(TorchError::Device(format!(
                    "--device cuda:{index}: {count} CUDA device(s) visible (is the NVIDIA driver loaded? is CUDA_VISIBLE_DEVICES set?); use --device cpu"
                )));
            }
            Ok(Device::Cuda(index))
        }
    }
}
