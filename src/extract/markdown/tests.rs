use proptest::prelude::*;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::*;
use crate::extract::web2text::cdom::SKIPPED_BUT_NOSCRIPT;

fn blocks(html: &str) -> (Dom, Cdom) {
    let dom = Dom::parse_with(html, crate::dom::DomLimits { max_elements: usize::MAX, deadline: None }, &crate::dom::FOR_MARKDOWN_LINKS)
        .unwrap_or_else(|_| Dom::empty());
    let cdom = Cdom::build_skipping(&dom, &SKIPPED_BUT_NOSCRIPT);
    (dom, cdom)
}

/// The Markdown and the text of a page whose every block is kept.
fn both(html: &str) -> (String, String) {
    both_with(html, &MarkdownOptions::default())
}

fn both_with(html: &str, options: &MarkdownOptions) -> (String, String) {
    let (dom, cdom) = blocks(html);
    let content = vec![true; cdom.leaves.len()];
    (render(&dom, &cdom, &content, options), cdom.text_of(&content))
}

fn md(html: &str) -> String {
    both(html).0
}

/// What a CommonMark + GFM reader makes of the Markdown: the structure as tags, and the
/// text outside math, image alt text and fence info strings.
#[derive(Debug, Default)]
struct ReadBack {
    headings: Vec<(usize, String)>,
    items: Vec<String>,
    table_rows: Vec<Vec<String>>,
    code_blocks: Vec<(String, String)>,
    inline_code: Vec<String>,
    math: Vec<String>,
    words: Vec<String>,
    /// The letters and digits of the text in order (what a code block's own spacing keeps).
    letters: String,
    /// The text's marks that make inline markup in pairs, in order: one that made markup
    /// instead of staying text is missing here.
    marks: String,
}

fn read_back(markdown: &str) -> ReadBack {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_MATH;
    let mut out = ReadBack::default();
    let (mut heading, mut item, mut row, mut cell, mut code) =
        (None::<(usize, String)>, Vec::<String>::new(), None::<Vec<String>>, None::<String>, None::<(String, String)>);
    let mut in_image = 0;
    let mut text = String::new();
    for event in Parser::new_ext(markdown, options) {
        // Blocks and line breaks separate words; inline markup (`we![](a.png)rde`) does not.
        let inline = matches!(
            event,
            Event::Start(Tag::Emphasis | Tag::Strong | Tag::Strikethrough | Tag::Link { .. } | Tag::Image { .. })
                | Event::End(TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link | TagEnd::Image)
        );
        if !inline && matches!(event, Event::Start(_) | Event::End(_) | Event::SoftBreak | Event::HardBreak) {
            text.push(' ');
        }
        let mut add = |s: &str, text: &mut String| {
            if let Some((_, h)) = heading.as_mut() {
                h.push_str(s);
            }
            if let Some(i) = item.last_mut() {
                i.push_str(s);
            }
            if let Some(c) = cell.as_mut() {
                c.push_str(s);
            }
            text.push_str(s);
        };
        match event {
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level as usize, String::new())),
            Event::End(TagEnd::Heading(_)) => out.headings.extend(heading.take()),
            Event::Start(Tag::Item) => item.push(String::new()),
            Event::End(TagEnd::Item) => out.items.extend(item.pop().map(|i| i.trim().to_string())),
            Event::Start(Tag::TableHead | Tag::TableRow) => row = Some(Vec::new()),
            Event::End(TagEnd::TableHead | TagEnd::TableRow) => out.table_rows.extend(row.take()),
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                if let (Some(r), Some(c)) = (row.as_mut(), cell.take()) {
                    r.push(c);
                }
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                let info = match kind {
                    pulldown_cmark::CodeBlockKind::Fenced(info) => info.to_string(),
                    pulldown_cmark::CodeBlockKind::Indented => String::new(),
                };
                code = Some((info, String::new()));
            }
            Event::End(TagEnd::CodeBlock) => out.code_blocks.extend(code.take()),
            Event::Start(Tag::Image { .. }) => in_image += 1,
            Event::End(TagEnd::Image) => in_image -= 1,
            Event::InlineMath(m) | Event::DisplayMath(m) => out.math.push(m.trim().to_string()),
            Event::Code(c) => {
                out.inline_code.push(c.to_string());
                add(&c, &mut text);
            }
            Event::Text(t) if in_image == 0 => {
                if let Some((_, body)) = code.as_mut() {
                    body.push_str(&t);
                }
                add(&t, &mut text);
            }
            // A line break, as a browser reads it (a pipe table's cell writes its lines so).
            Event::SoftBreak | Event::HardBreak => add(" ", &mut text),
            Event::InlineHtml(h) if h.eq_ignore_ascii_case("<br>") => add(" ", &mut text),
            _ => {}
        }
    }
    out.words = words(&text);
    out.letters = letters(&text);
    out.marks = marks(&text);
    out
}

fn letters(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

fn marks(text: &str) -> String {
    text.chars().filter(|c| matches!(c, '*' | '_' | '~' | '`' | '$')).collect()
}

/// Lower-case alphanumeric words, as word F1 counts them.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

#[test]
fn headings_paragraphs_and_nested_lists_keep_their_structure() {
    let html = "<body><h1>Main title</h1><p>First paragraph, with <b>bold</b> words.</p><h3>Sub part</h3>\
        <ul><li>Apples</li><li>Pears<ul><li>Green</li><li>Red</li></ul></li></ul>\
        <ol start=3><li>Third step</li><li>Fourth step</li></ol></body>";
    let (markdown, text) = both(html);
    let read = read_back(&markdown);
    assert_eq!(read.headings, [(1, "Main title".to_string()), (3, "Sub part".to_string())], "{markdown}");
    // An item ends after the items nested in it.
    assert_eq!(read.items, ["Apples", "Green", "Red", "Pears", "Third step", "Fourth step"], "{markdown}");
    assert!(markdown.contains("- Pears\n  - Green\n  - Red"), "{markdown}");
    assert!(markdown.contains("3. Third step\n4. Fourth step"), "{markdown}");
    assert_eq!(read.words, words(&text));
}

#[test]
fn ruby_readings_left_out_leave_the_base_text_as_the_text_has_it() {
    let html = "<body><h2><ruby>法律<rt>ほうりつ</rt></ruby>ができる</h2>\
        <p><ruby>子<rt>こ</rt></ruby>どもへの<a href=x><ruby><span>虐待</span><rp>(</rp><rt>ぎゃくたい</rt><rp>)</rp></ruby></a>をなくす</p></body>";
    let (dom, cdom) = blocks(html);
    let mut content = vec![true; cdom.leaves.len()];
    cdom.drop_ruby_readings(&mut content);
    let markdown = render(&dom, &cdom, &content, &MarkdownOptions::default());
    assert_eq!(markdown.trim_end(), "## 法律ができる\n\n子どもへの虐待をなくす");
    assert_eq!(cdom.text_of(&content), "法律ができる\n子どもへの虐待をなくす");
}

#[test]
fn a_data_table_becomes_a_pipe_table_with_its_spans_laid_out() {
    let html = "<body><table><tr><th>Name</th><th>Size</th><th>Note</th></tr>\
        <tr><td>alpha</td><td colspan=2>spans two</td></tr>\
        <tr><td rowspan=2>beta</td><td>3</td><td>a | b</td></tr>\
        <tr><td>4</td><td>last</td></tr></table></body>";
    let (markdown, text) = both(html);
    let read = read_back(&markdown);
    assert_eq!(
        read.table_rows,
        vec![vec!["Name", "Size", "Note"], vec!["alpha", "spans two", ""], vec!["beta", "3", "a | b"], vec!["", "4", "last"]]
            .into_iter()
            .map(|r| r.into_iter().map(String::from).collect::<Vec<_>>())
            .collect::<Vec<_>>(),
        "{markdown}"
    );
    assert_eq!(read.words, words(&text));
}

#[test]
fn the_lines_of_a_cell_are_written_with_br_in_its_one_line() {
    // A GFM cell is one line: a list, a `br` or paragraphs inside it keep their breaks as
    // `<br>`; the page's own text "<br>" stays text.
    let html = "<body><table><tr><th>Offer</th><th>Pros</th><th>Where</th></tr>\
        <tr><td>Loan</td><td><ul><li>Cash discount</li><li>Early repayment</li></ul></td><td>Main St 1<br>Springfield</td></tr>\
        <tr><td><p>Lease</p><p>3 years</p></td><td>a &lt;br&gt; b</td><td>none</td></tr></table></body>";
    let (markdown, text) = both(html);
    assert!(markdown.contains("| Loan | Cash discount<br>Early repayment | Main St 1<br>Springfield |"), "{markdown}");
    assert!(markdown.contains("| Lease<br>3 years | a \\<br> b | none |"), "{markdown}");
    let read = read_back(&markdown);
    assert_eq!(read.table_rows[1], ["Loan", "Cash discount Early repayment", "Main St 1 Springfield"], "{markdown}");
    assert_eq!(read.table_rows[2], ["Lease 3 years", "a <br> b", "none"], "{markdown}");
    assert_eq!(read.words, words(&text));
}

#[test]
fn a_heading_inside_a_cell_is_the_cell_text() {
    let html = "<body><table><tr><th><h4>Ingredient</h4></th><th><h4>Amount</h4></th></tr>\
        <tr><td>flour</td><td>200 g</td></tr></table></body>";
    let (markdown, text) = both(html);
    let read = read_back(&markdown);
    assert_eq!(read.table_rows, vec![vec!["Ingredient".to_string(), "Amount".into()], vec!["flour".into(), "200 g".into()]], "{markdown}");
    assert!(read.headings.is_empty() && !markdown.contains('#'), "{markdown}");
    assert_eq!(read.words, words(&text));
}

#[test]
fn a_layout_table_is_not_written_as_a_table() {
    let long: String = (0..200).map(|i| format!("word{i} ")).collect();
    let html = format!(
        "<body><table><tr><td>Menu</td><td><h2>Story</h2><p>{long}</p></td></tr><tr><td>x</td><td>y</td></tr></table>\
         <table><tr><td><table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table></td><td>side</td></tr></table></body>"
    );
    let markdown = md(&html);
    let read = read_back(&markdown);
    assert_eq!(read.headings, [(2, "Story".to_string())], "{markdown}");
    // Only the inner table of the second one holds data.
    assert_eq!(read.table_rows.len(), 2, "{markdown}");
    assert_eq!(read.table_rows[0], ["a", "b"]);
}

#[test]
fn a_row_of_lists_is_no_table_and_its_lists_stay_lists() {
    // A table used to lay out columns of links: one row, a list in each cell.
    let html = "<body><p>Jump to a provider:</p><table><caption>Providers</caption><tr><td><ul><li><a href=#a>FutureLearn</a></li><li><a href=#b>IBM</a></li></ul></td>\
        <td><ul><li><a href=#c>Kaggle</a></li><li><a href=#d>University of Helsinki</a></li></ul></td></tr></table>\
        <table><tr><td>Price</td><td>$5</td></tr></table></body>";
    let (markdown, text) = both(html);
    let read = read_back(&markdown);
    assert_eq!(read.items, ["FutureLearn", "IBM", "Kaggle", "University of Helsinki"], "{markdown}");
    assert!(read.table_rows.is_empty(), "{markdown}");
    // The caption once, before the lists; a one-row table without lists is a line of its cells.
    assert_eq!(markdown.matches("Providers").count(), 1, "{markdown}");
    assert!(markdown.ends_with("\n\nPrice $5"), "{markdown}");
    assert_eq!(read.words, words(&text));
}

#[test]
fn a_cell_of_short_paragraphs_is_data_and_one_of_a_pages_sections_is_layout() {
    let price = "<body><table><tr><th>Plan</th><th>Price</th></tr>\
        <tr><td>Basic</td><td><p><del>$12.99</del></p><p>$9.99 a month</p><p><a href=/buy>Buy</a></p></td></tr></table></body>";
    let markdown = md(price);
    assert_eq!(read_back(&markdown).table_rows.len(), 2, "{markdown}");
    let section: String = (0..15).map(|i| format!("<p>Paragraph {i} of the page's running story.</p>")).collect();
    let page = format!("<body><table><tr><td>Menu</td><td>{section}</td></tr><tr><td>x</td><td>y</td></tr></table></body>");
    let markdown = md(&page);
    assert!(read_back(&markdown).table_rows.is_empty(), "{markdown}");
}

#[test]
fn a_grid_with_a_long_value_or_a_one_line_pre_is_data_but_code_beside_line_numbers_is_layout() {
    let long: String = (0..200).map(|i| format!("word{i} ")).collect();
    let specs = format!(
        "<body><table><tr><th>Brand</th><td>Acme</td></tr><tr><th>Model</th><td>X1</td></tr>\
         <tr><th>Default</th><td><pre>rewrite_log off;</pre></td></tr><tr><th>Description</th><td>{long}</td></tr></table></body>"
    );
    let (markdown, text) = both(&specs);
    let read = read_back(&markdown);
    assert_eq!(read.table_rows.len(), 4, "{markdown}");
    assert_eq!(read.table_rows[2], ["Default", "rewrite_log off;"], "{markdown}");
    assert!(read.code_blocks.is_empty(), "{markdown}");
    assert_eq!(read.words, words(&text));
    // The same long value in a table of two rows lays out the page.
    let two_rows = format!("<body><table><tr><td>Menu</td><td>{long}</td></tr><tr><td>x</td><td>y</td></tr></table></body>");
    assert!(read_back(&md(&two_rows)).table_rows.is_empty());
    // Code of several lines, or beside its line numbers, stays a code block.
    for code in [
        "<table><tr><td>Example</td><td><pre>a = 1\nb = 2</pre></td></tr><tr><td>x</td><td>y</td></tr></table>",
        "<table><tr><td>1</td><td><pre>a = 1</pre></td></tr><tr><td>2</td><td><pre>b = 2</pre></td></tr></table>",
    ] {
        let markdown = md(&format!("<body>{code}</body>"));
        let read = read_back(&markdown);
        assert!(read.table_rows.is_empty() && !read.code_blocks.is_empty(), "{markdown}");
    }
    // A one-line `pre` in a table that is no grid (a highlighter's one-cell table) is a code
    // block too, its blank runs kept: there is no pipe table's one-line cell to fit.
    let highlighted = "<body><p>Increase the size:</p><div class=wp_syntax><table><tr><td class=code>\
        <pre class=r>my_ggp + theme(size = 20)      <span># All sizes</span></pre></td></tr></table></div></body>";
    let (markdown, text) = both(highlighted);
    let read = read_back(&markdown);
    assert_eq!(read.code_blocks, [(String::new(), "my_ggp + theme(size = 20)      # All sizes\n".to_string())], "{markdown}");
    assert_eq!(read.words, words(&text));
}

#[test]
fn code_blocks_keep_their_text_verbatim_and_their_language() {
    let html = "<body><p>Run this:</p><pre class=\"language-rust\"><code>fn main() {\n    if a < b {\n\n        println!(\"``` {}\", a);\n    }\n}\n</code></pre>\
        <p>Call <code>x_y()</code> or <code>a`b</code>.</p></body>";
    let (markdown, text) = both(html);
    let read = read_back(&markdown);
    assert_eq!(read.code_blocks.len(), 1, "{markdown}");
    let (info, body) = &read.code_blocks[0];
    assert_eq!(info, "rust");
    assert_eq!(body, "fn main() {\n    if a < b {\n\n        println!(\"``` {}\", a);\n    }\n}\n");
    assert_eq!(read.inline_code, ["x_y()", "a`b"]);
    assert_eq!(read.words, words(&text));
    // Highlighted code: the blank runs between the tokens are its line breaks and indentation.
    let highlighted = md("<body><pre><span class=k>if</span> <span>x</span>\n    <span>y</span>()\n</pre></body>");
    assert_eq!(highlighted, "```\nif x\n    y()\n```");
    // A highlighter's lines as blocks, each beside its line number: a line each, as in the text.
    let (numbered, text) = both("<body><pre><div><span>1</span><div>import os\n</div></div><div><span>2</span><div>os.exit()</div></div></pre></body>");
    assert_eq!(numbered, "```\n1\nimport os\n2\nos.exit()\n```");
    assert_eq!(read_back(&numbered).words, words(&text));
}

#[test]
fn math_is_written_from_its_tex_source() {
    let html = "<body><p>Energy <math><semantics><mrow><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></mrow>\
        <annotation encoding=\"application/x-tex\">E = mc^2</annotation></semantics></math> holds; costs $5.</p>\
        <math display=block alttext=\"\\sum_i x_i\"><mi>x</mi></math></body>";
    let markdown = md(html);
    let read = read_back(&markdown);
    assert_eq!(read.math, ["E = mc^2", "\\sum_i x_i"], "{markdown}");
    assert!(read.words.ends_with(&["holds".to_string(), "costs".to_string(), "5".to_string()]), "{markdown}");
}

#[test]
fn mathjax_scripts_are_written_from_their_tex_source() {
    // Served TeX (kramdown), a browser-saved MathJax 2 page (preview and rendered formula before
    // each script), display math, and a script that is no formula.
    let html = "<body><p>Let <script type=\"math/tex\">x_1^2</script>, so <span class=\"MathJax_Preview\">y</span>\
        <span class=\"MathJax\" id=\"MathJax-Element-2-Frame\"><nobr>y</nobr></span><script type=\"math/tex\" id=\"MathJax-Element-2\">y < z</script> \
        holds.</p><div class=\"MathJax_Display\"><span class=\"MathJax\">S</span></div><script type=\"math/tex; mode=display\">\\sum_i \n a_i</script>\
        <p>After <script type=\"text/javascript\">var costs = '$5';</script>it.</p></body>";
    let (markdown, text) = both(html);
    assert_eq!(markdown, "Let $x_1^2$, so $y < z$ holds.\n\n$$\n\\sum_i a_i\n$$\n\nAfter it.");
    assert_eq!(read_back(&markdown).math, ["x_1^2", "y < z", "\\sum_i a_i"]);
    // The text column has what the page shows without scripts: the rendered formulas' text.
    assert_eq!(words(&text), ["let", "so", "y", "y", "holds", "s", "after", "it"]);
}

#[test]
fn tex_between_delimiters_is_math_on_a_page_that_loads_a_typesetter() {
    let body = "<p>Let \\(x_1\\) and $y^*$ cost $5 and $10, or $5-$10; so \\[E = mc^2\\] and $$\\sum_i a_i$$ hold. \\$x\\$ is no math.</p>\
        <pre>echo $HOME$</pre>";
    let with_mathjax = format!(
        "<head><script type=\"text/x-mathjax-config\">MathJax.Hub.Config({{tex2jax: {{inlineMath: [['$','$'], ['\\\\(','\\\\)']]}}}});</script>\
        <script src=\"https://cdn.example.org/mathjax/2.7.9/MathJax.js?config=TeX-AMS_HTML\"></script></head><body>{body}</body>"
    );
    let markdown = md(&with_mathjax);
    assert_eq!(
        markdown,
        "Let $x_1$ and $y^*$ cost \\$5 and \\$10, or \\$5-\\$10; so $$E = mc^2$$ and $$\\sum_i a_i$$ hold. \\\\\\$x\\\\\\$ is no math.\n\n```\necho $HOME$\n```"
    );
    let read = read_back(&markdown);
    assert_eq!(read.math, ["x_1", "y^*", "E = mc^2", "\\sum_i a_i"]);
    // Without a typesetter on the page the same text is text.
    let plain = md(&format!("<body>{body}</body>"));
    assert!(read_back(&plain).math.is_empty(), "{plain}");
    assert!(plain.starts_with("Let \\\\(x_1\\\\) and \\$y^*\\$"), "{plain}");
}

#[test]
fn a_headings_permalink_mark_is_left_out() {
    let html = "<body><h2>Usage<a class=headerlink href=#usage>¶</a></h2><p>Text.</p><h3>Install <a href=#install>🔗</a></h3>\
        <h3>C#</h3><h3>Part #</h3><h3>§</h3><h2>Setup<a class=hash-link href=#setup>\u{200B}</a></h2></body>";
    let headings: Vec<String> = read_back(&md(html)).headings.into_iter().map(|(_, h)| h).collect();
    assert_eq!(headings, ["Usage", "Install", "C#", "Part #", "§", "Setup"]);
}

#[test]
fn text_that_looks_like_markup_stays_text() {
    let html = "<body><p>1. Not a list item</p><p># not a heading</p><p>- nor a bullet</p><p>&gt; nor a quote</p>\
        <p>2) still text</p><p><span>3</span>. nor a number from two elements</p><p><span>3</span><span>1.</span> nor one split in its digits</p><p>a *star* and _under_ and [link](x) and &lt;b&gt; and &amp;amp; and ~~gone~~</p><p>---</p><p>===</p></body>";
    let (markdown, text) = both(html);
    let read = read_back(&markdown);
    assert!(read.headings.is_empty() && read.items.is_empty() && read.code_blocks.is_empty(), "{markdown}");
    let parsed = Parser::new_ext(&markdown, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH);
    assert!(
        !parsed.into_iter().any(|e| matches!(
            e,
            Event::Start(Tag::Emphasis | Tag::Strong | Tag::Link { .. } | Tag::BlockQuote(_) | Tag::Strikethrough)
                | Event::Rule
                | Event::InlineHtml(_)
                | Event::Html(_)
        )),
        "{markdown}"
    );
    assert_eq!(read.words, words(&text));
    assert!(markdown.contains("&amp;amp;") || markdown.contains("\\&amp;"), "{markdown}");
}

#[test]
fn a_heading_or_a_cell_escapes_no_block_marker() {
    // A reader takes a heading's and a cell's content as inline text: `1.`, `#`, `-` and `>`
    // open nothing there. A caption, or a row written as a line, is a paragraph, where they do.
    let html = "<body><h4>1. Step one</h4><h4>- a dash</h4><table><caption>1. Prices</caption><tr><th>#</th><th>City</th></tr>\
        <tr><td>1. San Jose</td><td>&gt; 84.7</td></tr><tr><td>2. Oakland</td><td>- 69.0</td></tr></table>\
        <table><tr><td>1. Only</td><td>one row</td></tr></table></body>";
    let (markdown, text) = both(html);
    assert_eq!(
        markdown,
        "#### 1. Step one\n\n#### - a dash\n\n1\\. Prices\n\n| # | City |\n| --- | --- |\n| 1. San Jose | > 84.7 |\n| 2. Oakland | - 69.0 |\n\n1\\. Only one row"
    );
    let read = read_back(&markdown);
    let headings: Vec<String> = read.headings.iter().map(|(_, h)| h.clone()).collect();
    assert_eq!(headings, ["1. Step one", "- a dash"]);
    assert!(read.items.is_empty(), "{markdown}");
    assert_eq!(read.table_rows[1], ["1. San Jose", "> 84.7"], "{markdown}");
    assert_eq!(read.words, words(&text), "{markdown}");
}

#[test]
fn a_bracket_ending_a_run_of_text_is_escaped_where_the_next_run_makes_it_markup() {
    // `](`, `]:` and `[^` across two runs of the page's text; an excerpt's `[…]` at the end.
    let html = "<body><p>[x<b>]</b>(y) and [<i>^1</i>] and [email]<span>:</span> z</p><p>Read more […]</p></body>";
    let (markdown, text) = both(html);
    assert_eq!(markdown, "[x\\](y) and \\[^1] and [email\\]: z\n\nRead more […]");
    assert_eq!(read_back(&markdown).words, words(&text), "{markdown}");
}

#[test]
fn only_the_kept_blocks_are_written() {
    let html = "<body><nav><ul><li>Home</li><li>About</li></ul></nav><article><h2>Title</h2><p>Body text here.</p></article></body>";
    let (dom, cdom) = blocks(html);
    let content: Vec<bool> = cdom.leaves.iter().map(|&l| !matches!(cdom.nodes[l].text.as_str(), "Home" | "About")).collect();
    let markdown = render(&dom, &cdom, &content, &MarkdownOptions::default());
    assert_eq!(markdown, "## Title\n\nBody text here.");
    assert_eq!(render(&dom, &cdom, &vec![false; content.len()], &MarkdownOptions::default()), "");
}

#[test]
fn links_and_images_are_kept_only_when_asked_for() {
    let html = "<head><base href=\"/docs/\"></head><body><p>See <a href=\"guide.html\">the guide</a> and \
        <a href=\"javascript:void(0)\">this</a>. <img src=\"pic (1).png\" alt=\"A chart\">\
        <img src=\"data:image/svg+xml,%3Csvg%20xmlns='http://www.w3.org/2000/svg'%3E%3C/svg%3E\" alt=\"Lazy\"></p></body>";
    let plain = md(html);
    assert_eq!(plain, "See the guide and this.");
    let options = MarkdownOptions { links: true, page_url: Some("https://example.com/a/b.html".into()) };
    let (linked, _) = both_with(html, &options);
    assert_eq!(linked, "See [the guide](https://example.com/docs/guide.html) and this. ![A chart](<https://example.com/docs/pic%20(1).png>)");
}

#[test]
fn a_link_whose_text_holds_a_bracket_stays_one_link() {
    let html = "<body><p>See <a href=\"/r/1\">Price list (Riverside Press], 1873)</a>, \
        <a href=\"/git-add\">git-add[1]</a>, do it!<a href=\"#n1\">[1]</a> and <img src=\"/a.png\" alt=\"a [b\"></p></body>";
    let options = MarkdownOptions { links: true, page_url: Some("https://example.com/".into()) };
    let (linked, text) = both_with(html, &options);
    assert_eq!(
        linked,
        "See [Price list (Riverside Press\\], 1873)](https://example.com/r/1), [git-add\\[1\\]](https://example.com/git-add), do it\\![\\[1\\]](https://example.com/#n1) and ![a \\[b](https://example.com/a.png)"
    );
    assert_eq!(read_back(&linked).words, words(&text), "{linked}");
}

#[test]
fn an_image_inside_a_word_leaves_the_word_whole() {
    let html = "<body><p>Eines Tages we<img src=\"/ring.jpg\" alt=\"\">rde ich <img src=\"/b.png\" alt=\"B\"> es sehen.</p></body>";
    let options = MarkdownOptions { links: true, page_url: Some("https://example.com/".into()) };
    let (linked, text) = both_with(html, &options);
    assert_eq!(linked, "Eines Tages we![](https://example.com/ring.jpg)rde ich ![B](https://example.com/b.png) es sehen.");
    assert_eq!(read_back(&linked).words, words(&text), "{linked}");
}

#[test]
fn block_quotes_and_line_breaks() {
    let markdown = md("<body><blockquote><p>Quoted one.</p><p>Quoted two<br>- and a line</p></blockquote></body>");
    assert_eq!(markdown, "> Quoted one.\n>\n> Quoted two\n> \\- and a line");
    // On one line (a cell, a heading) a quote is its lines' text: a `>` there would be text.
    let html = "<body><table><tr><th>Who</th><th>Said</th></tr>\
        <tr><td>Ann</td><td><blockquote><p>One.</p><p>Two.</p></blockquote></td></tr></table>\
        <h2>Title <blockquote>quoted</blockquote></h2></body>";
    let (markdown, text) = both(html);
    assert_eq!(markdown, "| Who | Said |\n| --- | --- |\n| Ann | One.<br>Two. |\n\n## Title quoted");
    assert_eq!(read_back(&markdown).words, words(&text), "{markdown}");
}

#[test]
fn items_wrapped_in_other_elements_are_items_of_the_list() {
    let markdown = md("<body><ul><div class=row><li>one</li><li>two</li></div><li>three<ol><li>sub</li></ol></li></ul></body>");
    assert_eq!(markdown, "- one\n- two\n- three\n  1. sub");
}

#[test]
fn an_item_that_holds_only_a_heading_is_that_heading() {
    let html = "<body><ul><li>Intro</li><li><h3>Card one</h3></li><li><h3>Card two</h3><p>$12.00</p></li><li>Outro</li></ul></body>";
    let (markdown, text) = both(html);
    assert_eq!(markdown, "- Intro\n\n### Card one\n\n- ### Card two\n\n  $12.00\n- Outro");
    let read = read_back(&markdown);
    assert_eq!(read.headings, [(3, "Card one".to_string()), (3, "Card two".to_string())], "{markdown}");
    // The card with more than its title stays an item (the reader joins its blocks' text).
    assert_eq!(read.items, ["Intro", "Card two$12.00", "Outro"], "{markdown}");
    assert_eq!(read.words, words(&text));
}

#[test]
fn two_lists_in_a_row_stay_two_lists() {
    let markdown = md("<body><ul><li>a</li></ul><ul><li>b</li></ul></body>");
    let lists = Parser::new(&markdown).filter(|e| matches!(e, Event::Start(Tag::List(_)))).count();
    assert_eq!(lists, 2, "{markdown}");
}

#[test]
fn text_is_escaped_by_what_is_beside_each_mark_in_any_script() {
    // All that is written, and what `text` added to it.
    let written = |before: &str, text: &str| {
        let mut out = before.to_string();
        escape_text(text, false, false, &mut out, None);
        out
    };
    let escaped = |before: &str, text: &str| written(before, text)[before.len()..].to_string();
    // `_` inside a word of any script stays; beside a space, a mark or the text's edge it is escaped.
    assert_eq!(escaped("", "é_é x_y 日本_ _a"), "é_é x_y 日本\\_ \\_a");
    assert_eq!(escaped("é", "_a"), "_a", "the character already written is the mark's neighbour");
    assert_eq!(escaped("", "[^1] a[b end["), "\\[^1] a[b end[");
    assert_eq!(escaped("", "x] x]( x]y x]"), "x] x\\]( x]y x]");
    assert_eq!(escaped("", "a<b a < b"), "a\\<b a < b");
    assert_eq!(escaped("", "&amp; &#39; & x &ü;"), "\\&amp; \\&#39; & x &ü;");
    // A mark that ends what was written is escaped when the text after it makes it one.
    assert_eq!(written("x <", "b> & c"), "x \\<b> & c");
    assert_eq!(written("end [", "^1]"), "end \\[^1]");
    assert_eq!(written("x]", "(y) [z]"), "x\\](y) [z]");
    assert_eq!(written("x \\<", "b"), "x \\<b", "escaped already");
    assert_eq!(written("x \\\\<", "b"), "x \\\\\\<b", "after an escaped backslash");
    assert_eq!(written("x &", "amp; <"), "x \\&amp; <");
    assert_eq!(written("x <", " b &"), "x < b &");
    assert_eq!(written("x!", "[1]"), "x\\![1]");
    assert_eq!(escaped("", "hi! ![x"), "hi! \\![x");
    assert_eq!(escaped("", "$5 ~ * ` \\ ü"), "\\$5 ~ * \\` \\\\ ü", "`*`, `_`, `~` between spaces open nothing");
    assert_eq!(escaped("", "a*b ~c_ d~ $5"), "a\\*b \\~c\\_ d\\~ \\$5");
}

#[test]
fn a_mark_alone_in_its_paragraph_stays_bare_and_two_of_a_kind_are_escaped() {
    // German's gender star, a price, a handle, a footnote star: one of a kind makes no markup.
    let html = "<body><p>Liebe Leser*innen, das kostet $5 bei @_user.</p>\
        <p>Mitarbeiter*innen und Kund*innen zahlen $5 oder $10 bei @_user_x.</p>\
        <p>Preis <code>a*b</code> * inkl.</p><p>* Alle Preise</p><p>_ _ _</p><h2>Fragen*</h2></body>";
    let (markdown, text) = both(html);
    assert_eq!(
        markdown,
        "Liebe Leser*innen, das kostet $5 bei @_user.\n\n\
         Mitarbeiter\\*innen und Kund\\*innen zahlen \\$5 oder \\$10 bei @_user_x.\n\n\
         Preis `a*b` * inkl.\n\n\\* Alle Preise\n\n\\_ _ _\n\n## Fragen*"
    );
    let read = read_back(&markdown);
    assert_eq!(read.marks, marks(&text), "no mark made markup: {markdown}");
    assert!(read.items.is_empty() && read.headings.len() == 1, "{markdown}");
    // A cell is one line: the marks of its quote's paragraphs meet there, so each is escaped.
    let cell = md("<body><table><tr><th>a</th><th>b</th></tr><tr><td><blockquote><p>x*y</p><p>z*w</p></blockquote></td><td>c</td></tr></table></body>");
    assert!(cell.contains("x\\*y") && cell.contains("z\\*w"), "{cell}");
}

#[test]
fn emphasis_marks_are_escaped_only_where_one_may_open_before_one_that_may_close() {
    // CommonMark's flanking rules: `_` inside a word, a star after a word and before a space,
    // a tilde before a number after a space open or close nothing where nothing pairs them.
    for (html, want) in [
        ("<p>snake_case_name and other_name_x</p>", "snake_case_name and other_name_x"),
        ("<p>Preis* und Kosten* inkl.</p>", "Preis* und Kosten* inkl."),
        ("<p>~20 \u{b0}C, ~30 \u{b0}C</p>", "~20 \u{b0}C, ~30 \u{b0}C"),
        ("<p>@_user and _id_</p>", "@\\_user and \\_id\\_"),
        ("<p>2*3*4</p>", "2\\*3\\*4"),
        ("<p>*Hinweis: a*b</p>", "\\*Hinweis: a\\*b"),
        ("<p>a ~b~ c</p>", "a \\~b\\~ c"),
        // A symbol beyond ASCII is punctuation to some readers, not to others: to those,
        // `x*\u{a9}` may open.
        ("<p>x*\u{a9}y z*</p>", "x\\*\u{a9}y z\\*"),
        // Every run counts, those of code spans and formulas too (a formula is text to a
        // reader without math): the text's stars are then escaped where the order pairs them.
        ("<p>x* <code>a</code> *y</p>", "x* `a` *y"),
        ("<p>*x <code>a*</code></p>", "\\*x `a*`"),
    ] {
        let (markdown, text) = both(&format!("<body>{html}</body>"));
        assert_eq!(markdown, want, "{html}");
        assert_eq!(read_back(&markdown).marks, marks(&text), "no mark made markup: {markdown}");
    }
    // A line of marks alone would be a rule or open a code fence: its first is escaped.
    for html in ["<p>***</p>", "<p>a<br>*** *<br>b</p>", "<p>Text<br>~~~~ Kapitel ~~~~<br>mehr</p>", "<p>a<br><b>~</b>~~</p>"] {
        let (markdown, text) = both(&format!("<body>{html}</body>"));
        let read = read_back(&markdown);
        assert_eq!(read.marks, marks(&text), "{html}: {markdown}");
        assert!(read.code_blocks.is_empty(), "{html}: {markdown}");
    }
}

#[test]
fn a_table_cells_marks_pair_only_within_the_cell_and_a_rows_line_within_the_row() {
    // A pipe table's cells are read one by one: a price in each stays bare, two in a cell's
    // lines (`<br>`) are escaped.
    let html = "<body><table><tr><th>Item</th><th>Preis*</th></tr><tr><td>Tee</td><td>$5</td></tr>\
        <tr><td>Kaffee</td><td>$6</td></tr><tr><td>Set<br>x*y<br>z*w</td><td>$7</td></tr></table></body>";
    let (markdown, text) = both(html);
    assert_eq!(markdown, "| Item | Preis* |\n| --- | --- |\n| Tee | $5 |\n| Kaffee | $6 |\n| Set<br>x\\*y<br>z\\*w | $7 |");
    assert_eq!(read_back(&markdown).marks, marks(&text), "no mark made markup: {markdown}");
    // A table that is no grid is a line per row, one paragraph, where its cells' marks meet.
    let (markdown, text) = both("<body><table><tr><td>x*y</td><td>z*w $1</td></tr></table></body>");
    assert_eq!(markdown, "x\\*y z\\*w $1");
    assert_eq!(read_back(&markdown).marks, marks(&text), "{markdown}");
    // A table inside a heading reaches the heading's line as finished text, where the marks
    // of its cells meet: each is escaped.
    let nested = "<body><h2>T <table><tr><th>x*y</th><th>1</th></tr><tr><td>z*w</td><td>2</td></tr></table></h2></body>";
    let (markdown, text) = both(nested);
    assert_eq!(read_back(&markdown).marks, marks(&text), "{markdown}");
}

#[test]
fn a_mark_that_ends_one_run_of_text_is_escaped_for_the_run_after_it() {
    // rustdoc's `Option&lt;<a>Ordering</a>&gt;`: unescaped, `<Ordering>` would read as an HTML tag.
    let (markdown, text) = both("<body><p>Option&lt;<a href=\"/o\">Ordering</a>&gt; and x &amp;<b>amp;</b> y</p></body>");
    assert_eq!(read_back(&markdown).words, words(&text), "{markdown}");
}

#[test]
fn the_same_page_gives_the_same_bytes() {
    let html = "<body><h2>T</h2><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table><pre>x\n  y</pre></body>";
    assert_eq!(md(html), md(html));
}

/// Pages made of the structures the renderer writes, nested a few levels, with text that
/// holds Markdown's special characters.
fn page() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "alpha", "1.", "#", "-", "*x*", "_y_", "a|b", "`c`", "[d](e)", "<b>", "&amp;", "<", "&", "amp;", "$5", "~", "\\", "x_y", "10)", ">", "===", "3", ".",
        "a*b", "c*", "~1", "\u{a9}*", "_", "***", "~~~",
    ]);
    let text = prop::collection::vec(word, 1..5).prop_map(|w| html_escape::encode_text(&w.join(" ")).to_string());
    let leaf = text.prop_map(|t| format!("<span>{t}</span>"));
    leaf.prop_recursive(4, 40, 4, |inner| {
        let children = prop::collection::vec(inner, 1..4).prop_map(|c| c.join(""));
        (prop::sample::select(vec!["p", "div", "h2", "ul", "ol", "li", "blockquote", "pre", "code", "table", "b", "a"]), children).prop_map(|(tag, body)| {
            match tag {
                "ul" | "ol" => format!("<{tag}><li>{body}</li><li>{body}</li></{tag}>"),
                "table" => format!("<table><tr><th>{body}</th><th>h</th></tr><tr><td>{body}</td><td colspan=2>z</td></tr></table>"),
                "a" => format!("<a href=\"/x\">{body}</a>"),
                _ => format!("<{tag}>{body}</{tag}>"),
            }
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn the_markdown_reads_back_to_the_words_of_the_text(body in page(), keep_seed in any::<u64>()) {
        let html = format!("<body>{body}</body>");
        let (dom, cdom) = blocks(&html);
        // Every block, and a drawn part of them.
        for drop_some in [false, true] {
            let content: Vec<bool> = (0..cdom.leaves.len()).map(|i| !drop_some || (keep_seed >> (i % 64)) & 1 == 1).collect();
            let markdown = render(&dom, &cdom, &content, &MarkdownOptions::default());
            let text = cdom.text_of(&content);
            let read = read_back(&markdown);
            prop_assert_eq!(&read.letters, &letters(&text), "html: {}\nmarkdown:\n{}\ntext:\n{}", html, markdown, text);
            prop_assert_eq!(&read.marks, &marks(&text), "html: {}\nmarkdown:\n{}\ntext:\n{}", html, markdown, text);
            // A code block keeps the page's own spacing, where the text column separates
            // adjacent elements: its words are compared as letters only.
            if !html.contains("<pre") {
                let (mut read, mut want) = (read.words, words(&text));
                read.sort();
                want.sort();
                prop_assert_eq!(read, want, "html: {}\nmarkdown:\n{}\ntext:\n{}", html, markdown, text);
            }
        }
    }
}

#[test]
fn code_spans_side_by_side_stay_two_spans() {
    let markdown = md("<body><p>Run <code>make</code><code>test</code> now</p></body>");
    assert_eq!(markdown, "Run `make` `test` now");
    let spans: Vec<String> = Parser::new(&markdown)
        .filter_map(|e| match e {
            Event::Code(code) => Some(code.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(spans, ["make", "test"]);
    // Where the text joins them (inside a `code` that holds a block), they are one span.
    let (markdown, text) = both("<body><code><code>alpha</code><code>3</code><p>beta</p></code></body>");
    assert_eq!(markdown, "`alpha3`\n\nbeta");
    assert_eq!(read_back(&markdown).words, words(&text));
}
