//! Where the ResNet runs: `--device auto|cpu|cuda[:N]`.
//!
//! rustc links with `--as-needed`, which drops `libtorch_cuda.so` from the binary, and
//! linking it hard would stop goce-warc from starting on machines without CUDA. So the
//! CUDA half of LibTorch is loaded at run time, before the first CUDA call; when it
//! cannot be loaded the CPU is used (`auto`) or the run stops with the reason (`cuda`).

use std::sync::OnceLock;

use super::ClassifyError;

/// `--batch-size` on CUDA. On an H100 (`make bench-gpu`, docs/results/2026-11-23-45e55f2-h100-bench-gpu.log) a forward pass of
/// 64 pictures took 3.4–6 ms and one of 256 took 40–53 ms: 64 gives about three times the images/s.
pub const CUDA_BATCH: usize = 64;
/// `--batch-size` on the CPU. Criterion `resnet-cpu` on 2 cores gave the same images/s at 8, 16
/// and 32 (1 thread: 120 / 116 / 105; 2 threads: 213 / 217 / 209), but LibTorch's working memory
/// grows with the batch: `process` peaked at 651–711 MB with 16 against 874–1,058 MB with 32.
pub const CPU_BATCH: usize = 16;

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

/// Loads `libtorch_cuda.so` once (from the LibTorch the binary was linked against,
/// then the library path); the error text when it cannot be loaded.
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

/// The tch device for a choice.
pub fn select_device(choice: DeviceChoice) -> Result<tch::Device, ClassifyError> {
    match choice {
        DeviceChoice::Cpu => Ok(tch::Device::Cpu),
        DeviceChoice::Auto => {
            if let Err(e) = load_cuda_library() {
                tracing::debug!("CUDA LibTorch not loaded, using the CPU: {e}");
                return Ok(tch::Device::Cpu);
            }
            Ok(if tch::Cuda::is_available() { tch::Device::Cuda(0) } else { tch::Device::Cpu })
        }
        DeviceChoice::Cuda(index) => {
            if let Err(e) = load_cuda_library() {
                return Err(ClassifyError::Device(format!(
                    "--device cuda: LibTorch's CUDA library could not be loaded ({e}). Install the CUDA LibTorch \
                     (`make setup TORCH=cuda`) or use --device cpu"
                )));
            }
            let count = usize::try_from(tch::Cuda::device_count()).unwrap_or(0);
            if index >= count {
                return Err(ClassifyError::Device(format!(
                    "--device cuda:{index}: {count} CUDA device(s) visible (is the NVIDIA driver loaded? is CUDA_VISIBLE_DEVICES set?); use --device cpu"
                )));
            }
            Ok(tch::Device::Cuda(index))
        }
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
