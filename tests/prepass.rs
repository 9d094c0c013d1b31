//! The byte-level pass before html5ever (`src/dom/strip.rs`) must not change the tree:
//! parsing after it gives the same elements, texts and kept attributes as parsing after
//! emptying scripts and styles alone; the classifier reads from its parse the features of
//! the renderer's, and the combiner the block inputs of Web2Text's. Over the handwritten
//! pages here; over every page in `../shared/data` with `make eval` (the ignored test).

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use rayon::prelude::*;

use goce_warc::classify::Features;
use goce_warc::dom::{Dom, DomLimits, FOR_CLASSIFIER, FOR_EXTRACTION, FOR_RENDERING, FOR_WEB2TEXT, NodeData, NodeId, Prepass};
use goce_warc::extract::PageAnalysis;
use goce_warc::extract::combine::BlockTable;

const NO_LIMITS: DomLimits = DomLimits { max_elements: usize::MAX, deadline: None };

/// The tree as text, leaving out the attributes `prepass` drops.
fn outline(dom: &Dom, prepass: &Prepass) -> String {
    fn walk(dom: &Dom, id: NodeId, prepass: &Prepass, out: &mut String) {
        match &dom.nodes[id].data {
            NodeData::Element(e) => {
                out.push('<');
                out.push_str(e.tag());
                for (name, value) in &e.attrs {
                    if prepass.keeps(e.tag().as_bytes(), name.as_bytes()) {
                        out.push_str(&format!(" {name}={value:?}"));
                    }
                }
                out.push('>');
            }
            // A pass that collapses blank runs leaves each run's first character.
            NodeData::Text(text) if prepass.collapse_blank_runs => out.push_str(&format!("{:?}", squeeze(text))),
            NodeData::Text(text) => out.push_str(&format!("{text:?}")),
            NodeData::Document | NodeData::Other => out.push('#'),
        }
        for &child in dom.children(id) {
            walk(dom, child, prepass, out);
        }
        out.push_str("</>");
    }
    let mut out = String::new();
    walk(dom, 0, prepass, &mut out);
    out
}

/// Each run of whitespace as one space.
fn squeeze(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if !c.is_whitespace() {
            out.push(c);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out
}

/// The two outlines when `prepass` changes the tree of `html`: after emptying scripts and
/// styles alone, and after the whole pass.
fn tree_change(html: &str, prepass: &Prepass) -> Option<(String, String)> {
    let scripts_only = prepass.emptying_only();
    let expected = outline(&Dom::parse_with(html, NO_LIMITS, &scripts_only).expect("no limits"), prepass);
    let got = outline(&Dom::parse_with(html, NO_LIMITS, prepass).expect("no limits"), prepass);
    (got != expected).then_some((expected, got))
}

/// Whether the classifier reads other features (words included) from its own parse of
/// `html` than from the renderer's, which it trained on.
fn classifier_features_change(html: &str) -> bool {
    let url = "https://example.org/news/2024/a-page";
    let features = |prepass| Features::of(&Dom::parse_with(html, NO_LIMITS, prepass).expect("no limits"), url);
    features(&FOR_CLASSIFIER) != features(&FOR_RENDERING)
}

/// Whether the combiner reads other block inputs from the classifier's parse of `html`
/// (which the default runs) than from Web2Text's, which it trained on, style sheets left
/// as the classifier's parse leaves them (as many one-letter words as they had: on a few
/// pages the article rules read those). Rows compared as bits, so a missing value equals
/// itself.
fn combiner_inputs_change(html: &str) -> bool {
    let rows = |prepass| {
        let dom = Dom::parse_with(html, NO_LIMITS, prepass).expect("no limits");
        BlockTable::of(&PageAnalysis::new(&dom)).rows.iter().map(|v| v.to_bits()).collect::<Vec<u32>>()
    };
    rows(&FOR_CLASSIFIER) != rows(&Prepass { empty: &[b"script"], blank: &[b"style"], ..FOR_WEB2TEXT })
}

/// The pages of `dirs` whose tree differs with and without the attribute cuts, whose
/// classifier features differ between its parse and the renderer's, or whose block inputs
/// differ between the classifier's parse and Web2Text's, and how many were read.
fn pages_whose_tree_changes(dirs: &[PathBuf]) -> (Vec<String>, usize) {
    let mut paths: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        let mut in_dir: Vec<PathBuf> = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten().map(|e| e.path()).collect();
        in_dir.retain(|p| p.to_str().is_some_and(|s| s.ends_with(".html") || s.ends_with(".html.gz")));
        in_dir.sort();
        paths.extend(in_dir);
    }
    // Pages on every core: `make eval` reads thousands, each parsed twice per pass.
    let changed = paths
        .par_iter()
        .flat_map_iter(|path| {
            let html = goce_warc::page::read_html_file(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let features = classifier_features_change(&html).then(|| format!("{} (the classifier's features)", path.display()));
            let inputs = combiner_inputs_change(&html).then(|| format!("{} (the combiner's block inputs)", path.display()));
            [FOR_EXTRACTION, FOR_RENDERING, FOR_WEB2TEXT, FOR_CLASSIFIER]
                .into_iter()
                .filter(move |prepass| tree_change(&html, prepass).is_some())
                .map(move |_| path.display().to_string())
                .chain(features)
                .chain(inputs)
        })
        .collect();
    (changed, paths.len())
}

#[test]
fn the_prepass_keeps_the_tree_of_the_handwritten_pages() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pages");
    let (changed, read) = pages_whose_tree_changes(&[dir]);
    assert!(read >= 10, "only {read} fixture pages");
    assert!(changed.is_empty(), "{changed:?}");
}

#[test]
fn the_prepass_keeps_a_misnested_tree() {
    // Identical <a> in the active formatting list, an unclosed <b>, a table's foster parenting.
    let html = "<p><a href=x data-i=1>1<a href=x data-i=2>2<a href=x data-i=3>3<a href=x data-i=4>4<b data-b=1>5</p>\
                <table data-t=1><tr><td>c<div data-d=1 srcset=s>d</table><img src=i srcset=\"a 1x\"width=1>";
    for prepass in [FOR_EXTRACTION, FOR_RENDERING, FOR_WEB2TEXT, FOR_CLASSIFIER] {
        assert_eq!(tree_change(html, &prepass), None);
    }
    let web2text = outline(&Dom::parse_with(html, NO_LIMITS, &FOR_WEB2TEXT).expect("no limits"), &FOR_WEB2TEXT);
    assert!(web2text.contains("<img width=\"1\">"), "{web2text}");
}

/// Pieces of markup that meet the pass's rules at their edges: raw-text and formatting
/// elements, every attribute syntax (unquoted, quoted with `>` inside, valueless, duplicated,
/// names the pass drops or keeps), comments and their odd endings, bogus comments, CDATA,
/// doctypes, blank runs, and stray `<`, `>`, `/`, `=` and quotes.
fn markup_piece() -> impl Strategy<Value = String> {
    let names = prop::sample::select(vec![
        "p", "div", "a", "b", "i", "span", "script", "style", "textarea", "title", "noscript", "iframe", "xmp", "noembed", "plaintext", "template", "svg",
        "path", "math", "table", "tr", "td", "pre", "listing", "font", "input", "select", "option", "img", "br", "body", "head", "html", "frameset", "SCRIPT",
        "Style",
    ]);
    let attr_names = prop::sample::select(vec![
        "class", "id", "style", "href", "src", "srcset", "d", "data-x", "data-state", "type", "color", "lang", "hidden", "aria-hidden", "charset", "content",
        "name", "on<x", "\"q\"", "a/b", "'s'", "=x", "CLASS", "Data-X",
    ]);
    let values = prop::sample::select(vec!["", "x", "a b", "x>y", "'", "\"", "hidden", "[data-state]", "  ", "/", "a=b"]);
    let quote = prop::sample::select(vec!["", "\"", "'"]);
    let attr = (attr_names, prop::bool::ANY, quote, values).prop_map(
        |(name, has_value, quote, value)| {
            if has_value { format!("{name}={quote}{value}{quote}") } else { name.to_string() }
        },
    );
    let gaps = prop::sample::select(vec![" ", "", "\n", "\t ", "/", " / "]);
    let start_tag =
        (names.clone(), prop::collection::vec((gaps, attr), 0..4), prop::sample::select(vec![">", "/>", " >", ""])).prop_map(|(name, attrs, end)| {
            let attrs: String = attrs.into_iter().map(|(gap, attr)| format!("{gap}{attr}")).collect();
            format!("<{name} {attrs}{end}")
        });
    let end_tag = names.prop_map(|name| format!("</{name}>"));
    let fixed = prop::sample::select(vec![
        "<!-- c -->", "<!---->", "<!-->", "<!--->", "<!-- a --!>", "<!-- a -- b -->", "<!--", "-->", "<!x>", "<?php x ?>", "<![CDATA[ x ]]>",
        "<!DOCTYPE html>", "<", ">", "</", "/>", "=", "\"", "'", "&amp;", "&", "\u{a0}", "<!--[if IE]>", "<![endif]-->", "<!--$-->", "<!--/$-->",
    ]);
    let text = "[ \n\ta-zé<>/=!-]{0,6}";
    prop_oneof![3 => start_tag, 2 => end_tag, 2 => fixed.prop_map(str::to_string), 3 => text.prop_map(|t: String| t)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]
    /// On any mix of those pieces, every pass builds the tree the parser builds without it.
    #[test]
    fn the_prepass_keeps_the_tree_of_any_markup(pieces in prop::collection::vec(markup_piece(), 0..40)) {
        let html: String = pieces.concat();
        for prepass in [FOR_EXTRACTION, FOR_RENDERING, FOR_WEB2TEXT, FOR_CLASSIFIER] {
            if let Some((expected, got)) = tree_change(&html, &prepass) {
                prop_assert!(false, "{html:?}\nexpected {expected}\ngot      {got}");
            }
        }
    }
}

#[test]
#[ignore = "reads every page in ../shared/data (SHARED); run by make eval"]
fn the_prepass_keeps_the_tree_of_every_shared_page() {
    let shared = PathBuf::from(std::env::var("SHARED").unwrap_or_else(|_| "../shared".into())).join("data");
    let dirs: Vec<PathBuf> =
        ["wcxb-dev/html", "scrapinghub/html", "cleaneval/dev/input", "cleaneval/final/input", "trafi-dev/html"].iter().map(|d| shared.join(d)).collect();
    let (changed, read) = pages_whose_tree_changes(&dirs);
    eprintln!("{read} pages, {} whose tree changes", changed.len());
    assert!(read > 2000, "only {read} pages under {}", shared.display());
    assert!(changed.is_empty(), "{changed:?}");
}
