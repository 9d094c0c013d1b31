//! The library's modules follow the data flow, and each imports only the ones before it:
//! a stage never reaches into a later one, so any stage can be read, tested and replaced
//! knowing only what comes before it. This test reads `src/` and holds the order, and
//! keeps training and evaluation against gold data out of the product library: they are
//! the `goce-warc-train` crate's, which imports this one (Cargo forbids the other way).

use std::path::Path;

/// Earliest first. `models` (where the model files are) and `torch` (LibTorch, opened at run
/// time) sit below the stages that load them; `pipeline` drives the stages; `flags` (the command
/// line's shared pieces) names them all.
const ORDER: &[&str] =
    &["choice", "models", "torch", "warc", "page", "dom", "analyse", "render", "classify", "extract", "annotate", "output", "pipeline", "flags"];

/// What the product library must not hold: learning and scoring against gold pages.
const NOT_IN_THE_PRODUCT: &[&str] = &["train", "eval", "gold"];

/// Every `crate::MODULE` a file's code (not its comments) names.
fn named_modules(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in source.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            found.push(name);
        }
    }
    found
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_imports_a_later_one() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut checked = 0;
    let mut wrong = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let first = relative.components().next().unwrap().as_os_str().to_string_lossy();
        let module = first.trim_end_matches(".rs");
        // The binary (main.rs, cli.rs) and the crate root may name every module.
        let Some(position) = ORDER.iter().position(|m| *m == module) else { continue };
        checked += 1;
        for named in named_modules(&std::fs::read_to_string(file).unwrap()) {
            if let Some(p) = ORDER.iter().position(|m| *m == named)
                && p > position
            {
                wrong.push(format!("{} names crate::{named}, a later module", relative.display()));
            }
        }
    }
    assert!(checked > 30, "read only {checked} files under {}", src.display());
    assert!(wrong.is_empty(), "imports against the data flow:\n{}", wrong.join("\n"));
}

#[test]
fn every_library_module_has_a_place_in_the_order() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let modules: Vec<&str> = lib.lines().filter_map(|l| l.trim_start().strip_prefix("pub mod ")).map(|m| m.trim_end_matches(';')).collect();
    assert!(modules.len() >= ORDER.len() - 1, "read only {modules:?} in src/lib.rs");
    for m in &modules {
        assert!(!NOT_IN_THE_PRODUCT.contains(m), "src/lib.rs declares `{m}`: it belongs in crates/goce-warc-train");
        assert!(ORDER.contains(m), "src/lib.rs declares `{m}`, which ORDER does not place");
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for m in NOT_IN_THE_PRODUCT {
        assert!(!src.join(m).exists() && !src.join(format!("{m}.rs")).exists(), "src/{m} belongs in crates/goce-warc-train");
    }
}

/// The product does not link LibTorch, whose loading costs every process about 0.15 CPU s and
/// 126 MB: it opens `libgoce_warc_torch.so` when a network first runs (src/torch.rs).
#[test]
fn the_product_does_not_link_libtorch() {
    let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let dependencies = manifest.split("\n[dependencies]\n").nth(1).and_then(|rest| rest.split("\n[").next()).unwrap();
    assert!(dependencies.contains("libloading"), "read the wrong section: {dependencies}");
    for crate_name in ["tch", "torch-sys", "goce-warc-torch"] {
        assert!(!dependencies.lines().any(|l| l.starts_with(&format!("{crate_name} "))), "the product depends on {crate_name}");
    }
}

#[test]
fn the_reader_sees_through_comments() {
    let source = "use crate::dom::Dom;\n// see crate::eval\n    let x = crate::extract::all_text(h);\n";
    assert_eq!(named_modules(source), ["dom", "extract"]);
}
