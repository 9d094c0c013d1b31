//! Where the ResNet runs (`--device auto|cpu|cuda[:N]`, [`DeviceChoice`]; resolved by
//! [`crate::torch`]) and how many pages it reads at once there.

pub use crate::torch::{Device, DeviceChoice};

/// `--batch-size` on CUDA. On an H100 (`make bench-gpu`, docs/results/2026-11-23-45e55f2-h100-bench-gpu.log) a forward pass of
/// 64 pictures took 3.4–6 ms and one of 256 took 40–53 ms: 64 gives about three times the images/s.
pub const CUDA_BATCH: usize = 64;
/// `--batch-size` on the CPU. Criterion `resnet-cpu` on 2 cores gave the same images/s at 8, 16
/// and 32 (1 thread: 120 / 116 / 105; 2 threads: 213 / 217 / 209), but LibTorch's working memory
/// grows with the batch: `process` peaked at 651–711 MB with 16 against 874–1,058 MB with 32.
pub const CPU_BATCH: usize = 16;
