//! The `all-text` extractor: every visible text node, streamed through lol_html
//! without building a tree, so it runs at parsing speed.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::LazyLock;
use std::time::Instant;

use lol_html::html_content::TextType;
use lol_html::{EndTagHandler, HtmlRewriter, Settings, doc_text, element};

use super::view::{BLOCK_TAGS, tidy};
use super::{ExtractError, ExtractLimits, Extraction};
use crate::dom::DESCRIPTION_NAMES;

/// The lol_html selector for the elements that start a new line.
static BLOCK_SELECTOR: LazyLock<String> = LazyLock::new(|| BLOCK_TAGS.join(", "));

/// Elements whose text a reader does not see (script and style are raw text and are
/// told apart by their text type instead). `noscript` is *not* here: goce-warc reads
/// pages as a browser with scripts off sees them, and some sites (Discourse forums, for
/// one) put their whole content in `<noscript>` for such readers.
const HIDDEN_ELEMENTS: &str = "template, svg, math, select, datalist, object";

/// Elements between two looks at the clock.
const TIME_CHECK_EVERY: usize = 256;

#[derive(Default)]
struct State {
    text: String,
    /// Text of the current text node, whose entities are decoded once it is whole.
    pending: String,
    title: Option<String>,
    in_title: bool,
    /// `<html lang>`, as written.
    lang: Option<String>,
    hidden_depth: usize,
    /// lol_html parses `<noscript>` as a browser with scripts on does, as raw text: it
    /// is gathered here and read as HTML of its own when the element ends.
    noscript_depth: usize,
    noscript_html: String,
    /// The page's own summary (`<meta name=description>`, Open Graph, Twitter), the
    /// text of last resort for script-only pages whose body has none.
    description: Option<String>,
    elements: usize,
}

impl State {
    fn newline(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
    }

    fn push_node_text(&mut self, raw: &str) {
        let decoded = html_escape::decode_html_entities(raw);
        let mut words = decoded.split_whitespace().peekable();
        if words.peek().is_none() {
            if !decoded.is_empty() && !self.text.ends_with(['\n', ' ']) && !self.text.is_empty() {
                self.text.push(' ');
            }
            return;
        }
        if decoded.starts_with(char::is_whitespace) && !self.text.ends_with(['\n', ' ']) && !self.text.is_empty() {
            self.text.push(' ');
        }
        let mut first = true;
        for word in words {
            if !first {
                self.text.push(' ');
            }
            self.text.push_str(word);
            first = false;
        }
        if decoded.ends_with(char::is_whitespace) {
            self.text.push(' ');
        }
    }
}

pub fn all_text(html: &str, limits: &ExtractLimits) -> Result<Extraction, ExtractError> {
    let state = Rc::new(RefCell::new(State::default()));
    let max_elements = limits.max_elements;
    let (s_block, s_hidden, s_title, s_text, s_count, s_noscript, s_meta) =
        (state.clone(), state.clone(), state.clone(), state.clone(), state.clone(), state.clone(), state.clone());
    let max_page_time = limits.max_page_time;
    let deadline = Instant::now() + max_page_time;
    let nested_limits = *limits;
    let mut rewriter = HtmlRewriter::new(
        Settings::new()
            .append_element_content_handler(element!("*", move |el| {
                let mut st = s_count.borrow_mut();
                st.elements += 1;
                if st.elements == 1 && el.tag_name() == "html" {
                    st.lang = el.get_attribute("lang").map(|l| l.trim().to_string()).filter(|l| !l.is_empty());
                }
                if st.elements > max_elements {
                    return Err(Box::new(ExtractError::TooManyElements(max_elements)));
                }
                if st.elements % TIME_CHECK_EVERY == 0 && Instant::now() > deadline {
                    return Err(Box::new(ExtractError::TimeLimit(max_page_time)));
                }
                Ok(())
            }))
            .append_element_content_handler(element!(BLOCK_SELECTOR.as_str(), move |el| {
                s_block.borrow_mut().newline();
                let st = s_block.clone();
                if el.can_have_content() {
                    let on_end: EndTagHandler<'static> = Box::new(move |_end| {
                        st.borrow_mut().newline();
                        Ok(())
                    });
                    el.on_end_tag(on_end)?;
                }
                Ok(())
            }))
            .append_element_content_handler(element!(HIDDEN_ELEMENTS, move |el| {
                if el.can_have_content() && !el.is_self_closing() {
                    s_hidden.borrow_mut().hidden_depth += 1;
                    let st = s_hidden.clone();
                    let on_end: EndTagHandler<'static> = Box::new(move |_end| {
                        let mut st = st.borrow_mut();
                        st.hidden_depth = st.hidden_depth.saturating_sub(1);
                        Ok(())
                    });
                    el.on_end_tag(on_end)?;
                }
                Ok(())
            }))
            .append_element_content_handler(element!("noscript", move |el| {
                if !el.can_have_content() {
                    return Ok(());
                }
                s_noscript.borrow_mut().noscript_depth += 1;
                let st = s_noscript.clone();
                let on_end: EndTagHandler<'static> = Box::new(move |_end| {
                    let mut st = st.borrow_mut();
                    st.noscript_depth = st.noscript_depth.saturating_sub(1);
                    if st.noscript_depth == 0 && st.hidden_depth == 0 {
                        let html = std::mem::take(&mut st.noscript_html);
                        // Escaped markup (`&lt;img ...&gt;`, from a page saved with scripts on)
                        // is not text, as in the DOM the other extractors read.
                        if html.trim_start().starts_with("&lt;") && crate::dom::looks_like_markup(&html_escape::decode_html_entities(&html)) {
                            return Ok(());
                        }
                        let left = deadline.saturating_duration_since(Instant::now());
                        let limits = ExtractLimits { max_page_time: left, ..nested_limits };
                        if let Ok(inner) = all_text(&html, &limits) {
                            st.newline();
                            st.text.push_str(&inner.text);
                            st.newline();
                        }
                    }
                    Ok(())
                });
                el.on_end_tag(on_end)?;
                Ok(())
            }))
            .append_element_content_handler(element!("meta[content]", move |el| {
                let names = [el.get_attribute("name"), el.get_attribute("property")];
                let is_description = names.iter().flatten().any(|n| DESCRIPTION_NAMES.contains(&n.to_ascii_lowercase().as_str()));
                let mut st = s_meta.borrow_mut();
                if is_description && st.description.is_none() {
                    let content = el.get_attribute("content").unwrap_or_default();
                    let content = html_escape::decode_html_entities(&content).split_whitespace().collect::<Vec<_>>().join(" ");
                    if !content.is_empty() {
                        st.description = Some(content);
                    }
                }
                Ok(())
            }))
            .append_element_content_handler(element!("title", move |_el| {
                let mut st = s_title.borrow_mut();
                st.in_title = st.title.is_none() && st.hidden_depth == 0;
                Ok(())
            }))
            .append_document_content_handler(doc_text!(move |chunk| {
                let mut st = s_text.borrow_mut();
                let text_type = chunk.text_type();
                if st.in_title && text_type == TextType::RCData {
                    st.pending.push_str(chunk.as_str());
                    if chunk.last_in_text_node() {
                        let title = html_escape::decode_html_entities(&st.pending).split_whitespace().collect::<Vec<_>>().join(" ");
                        st.pending.clear();
                        st.in_title = false;
                        if !title.is_empty() {
                            st.title = Some(title);
                        }
                    }
                    return Ok(());
                }
                if st.noscript_depth > 0 {
                    if matches!(text_type, TextType::RawText | TextType::Data) {
                        st.noscript_html.push_str(chunk.as_str());
                    }
                    return Ok(());
                }
                if text_type != TextType::Data || st.hidden_depth > 0 {
                    return Ok(());
                }
                st.pending.push_str(chunk.as_str());
                if chunk.last_in_text_node() {
                    let raw = std::mem::take(&mut st.pending);
                    st.push_node_text(&raw);
                    st.pending = raw;
                    st.pending.clear();
                }
                Ok(())
            })),
        |_: &[u8]| {},
    );
    let written = rewriter.write(html.as_bytes()).and_then(|()| rewriter.end());
    match written {
        Ok(()) => {}
        // A limit the handlers hit comes back as itself.
        Err(lol_html::errors::RewritingError::ContentHandlerError(inner)) => {
            return Err(inner.downcast::<ExtractError>().map_or_else(|other| ExtractError::Parse(other.to_string()), |limit| *limit));
        }
        Err(e) => return Err(ExtractError::Parse(e.to_string())),
    }
    let mut st = state.borrow_mut();
    let mut text = tidy_lines(&std::mem::take(&mut st.text), limits.max_text_bytes);
    if text.is_empty() {
        text = tidy_lines(st.description.as_deref().unwrap_or_default(), limits.max_text_bytes);
    }
    Ok(Extraction { title: st.title.take(), declared_language: st.lang.take(), text, markdown: None, genre: None, confidence: None, language: None })
}

/// Trims every line, drops empty ones, and cuts the result at `max_bytes` (at a
/// character boundary).
fn tidy_lines(text: &str, max_bytes: usize) -> String {
    let mut out = tidy(text);
    if out.len() > max_bytes {
        let cut = (0..=max_bytes).rev().find(|&i| out.is_char_boundary(i)).unwrap_or(0);
        out.truncate(cut);
        out.truncate(out.trim_end().len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extract(html: &str) -> Extraction {
        all_text(html, &ExtractLimits::default()).unwrap()
    }

    #[test]
    fn blocks_on_their_own_lines_and_inline_runs_joined() {
        let e = extract(
            "<html><head><title> A &amp; B </title></head><body><h1>Head</h1><p>One <b>bold</b> word.</p><div><span>x</span></div>y<ul><li>i1</li><li>i2</ul></body>",
        );
        assert_eq!(e.title.as_deref(), Some("A & B"));
        assert_eq!(e.text, "Head\nOne bold word.\nx\ny\ni1\ni2");
    }

    #[test]
    fn scripts_styles_comments_and_hidden_markup_are_dropped() {
        let e = extract(
            "<p>keep</p><script>var x = '<p>no</p>';</script><style>p{}</style><!-- gone --><template>tpl</template><svg><title>icon</title><text>svg</text></svg><p>also &eacute;t&eacute;</p>",
        );
        assert_eq!(e.text, "keep\nalso été");
        assert_eq!(e.title, None);
    }

    #[test]
    fn noscript_content_is_read_as_a_browser_without_scripts_shows_it() {
        let e = extract("<div id=app></div><noscript><div class=post><p>The whole post.</p></div></noscript>");
        assert_eq!(e.text, "The whole post.");
        let saved = extract("<noscript>&lt;img src=\"pixel?a=1&amp;amp;b=2\"&gt;</noscript><p>Text.</p><noscript>a &lt; b</noscript>");
        assert_eq!(saved.text, "Text.\na < b", "escaped markup is not text; prose is");
    }

    #[test]
    fn a_script_only_page_falls_back_to_its_description() {
        let shell = "<head><meta property=\"og:description\" content=\"What the app shows &amp; more\"><title>App</title></head><body><div id=root></div><script>render()</script></body>";
        assert_eq!(extract(shell).text, "What the app shows & more");
        let page = "<head><meta name=description content=\"summary\"></head><body><p>Body text.</p></body>";
        assert_eq!(extract(page).text, "Body text.", "the description is only a last resort");
    }

    #[test]
    fn text_is_cut_at_the_limit_on_a_char_boundary() {
        let limits = ExtractLimits { max_text_bytes: 8, ..ExtractLimits::default() };
        let e = all_text("<p>ééééé</p><p>more</p>", &limits).unwrap();
        assert_eq!(e.text, "éééé");
    }

    #[test]
    fn a_page_over_the_time_limit_is_abandoned() {
        let limits = ExtractLimits { max_page_time: std::time::Duration::ZERO, ..ExtractLimits::default() };
        let html = "<p>x</p>".repeat(1000);
        assert!(matches!(all_text(&html, &limits), Err(ExtractError::TimeLimit(_))));
    }

    #[test]
    fn too_many_elements_is_an_error() {
        let limits = ExtractLimits { max_elements: 10, ..ExtractLimits::default() };
        let html = "<div>".repeat(50);
        assert!(matches!(all_text(&html, &limits), Err(ExtractError::TooManyElements(10))));
    }
}
