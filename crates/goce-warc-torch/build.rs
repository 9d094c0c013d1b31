//! Puts LibTorch's library folder into the run path of what links it (this library, which
//! `goce-warc` opens when a network is first needed, and `goce-warc-train`), so they load
//! without LD_LIBRARY_PATH. torch-sys (a direct dependency for this reason) tells us where
//! it linked LibTorch from; GOCE_TORCH_RPATH overrides it for relocatable bundles (e.g.
//! `$ORIGIN/../lib`).
fn main() {
    println!("cargo:rerun-if-env-changed=GOCE_TORCH_RPATH");
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    let rpath = std::env::var("GOCE_TORCH_RPATH").ok().or_else(|| std::env::var("DEP_TCH_LIBTORCH_LIB").ok());
    if let Some(dir) = rpath {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
    // Where libtorch_cuda.so is looked for first (see src/device.rs).
    if let Ok(dir) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-env=GOCE_LIBTORCH_LIB={dir}");
    }
}
