//! The language the combiner's blocks are counted in (`Cdom::language`), for each HTML
//! file given: `cargo run --release --example page_language -- FILE...`
fn main() {
    for path in std::env::args().skip(1) {
        let html = match std::fs::read(&path) {
            Ok(bytes) if path.ends_with(".gz") => {
                let mut out = String::new();
                let _ = std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut out);
                out
            }
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let dom = goce_warc::dom::Dom::parse_unbounded(&html);
        let cdom = goce_warc::extract::web2text::cdom::Cdom::build(&dom);
        println!("{path}\t{}", cdom.language().unwrap_or_else(|| "-".into()));
    }
}
