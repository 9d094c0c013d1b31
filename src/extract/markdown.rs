//! The kept blocks as GitHub-flavoured Markdown: the same text an extractor keeps, with the
//! structure the page's DOM gives it — headings at their level, paragraphs, nested
//! lists, block quotes, data tables as pipe tables, code blocks fenced verbatim, inline
//! code and math as LaTeX where the page carries its source.
//!
//! One renderer serves every extractor that keeps blocks: it reads the page's DOM, its
//! Collapsed DOM (Web2Text's text leaves, the blocks the extractors decide on) and one
//! flag per leaf. It emits only the leaves marked content, joined as
//! [`Cdom::text_of`] joins them, so the Markdown holds the words of the `text` column;
//! what only the Markdown carries is listed in `docs/markdown.md` (math sources, fence
//! language tags, list numbers, and with links on, URLs and images' alt text).
//!
//! Escaping follows CommonMark: a text line that starts with `1.`, `#`, `-`, `*` or `>`
//! stays text, and `[`…`](`, `<tag`, `&entity;` are escaped where they would start markup;
//! `*`, `_`, `~`, `` ` `` and `$` where what is read as one run of inline text (a paragraph,
//! a heading, a pipe table's cell) holds two of a kind, since one alone makes no emphasis, code
//! span or formula (in a link's text or a block inside a heading or a cell, each).

use html5ever::{LocalName, local_name};

use crate::dom::{Dom, NodeData, NodeId, heading_level, is_tex_script_type};
use crate::extract::web2text::cdom::{Cdom, MAX_DEPTH, PERMALINK_MARKS};

mod table;
mod tex;
mod writer;
use tex::{write_formula, write_with_tex};
use writer::{Blocks, CodeSpan, Kind, Line, escape_closing_hashes, escape_text};

/// What the Markdown holds besides the text and its structure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarkdownOptions {
    /// Keep link targets (`[text](url)`) and images (`![alt](src)`), resolved against the
    /// page's `<base href>`, else `page_url`. Without it a link is its text and an image is
    /// left out.
    pub links: bool,
    /// The record's URL, the base of relative links.
    pub page_url: Option<String>,
}

/// The Markdown of the leaves marked `content` (one flag per [`Cdom::leaves`] entry).
pub fn render(dom: &Dom, cdom: &Cdom, content: &[bool], options: &MarkdownOptions) -> String {
    if !content.iter().any(|&c| c) {
        return String::new();
    }
    let mut renderer = Renderer::new(dom, cdom, content, options);
    let start = dom.body().or_else(|| dom.html()).unwrap_or(crate::dom::DOCUMENT);
    let mut blocks = Blocks::default();
    renderer.children(start, &mut blocks, Context::default(), 0);
    blocks.finish()
}

/// A text as one Markdown paragraph (a page whose only text is its description).
pub fn paragraph(text: &str) -> String {
    let mut blocks = Blocks::default();
    blocks.text(text, false);
    blocks.finish()
}

/// Where in the page's structure the walk is.
#[derive(Debug, Clone, Copy, Default)]
struct Context {
    /// Inside a block that holds running text (a paragraph, list item, cell, caption,
    /// heading): images there are part of it.
    in_text_block: bool,
    /// Inside a heading, cell or link text, written on one line: lists and quotes there are
    /// their lines' text (a number marker would add a word), and a `pre` a code span.
    flat: bool,
}

struct Renderer<'a> {
    dom: &'a Dom,
    cdom: &'a Cdom,
    content: &'a [bool],
    /// The CDOM leaf each DOM node stands for (`u32::MAX`: none).
    leaf_at: Vec<u32>,
    /// Whether a DOM node's subtree holds a content leaf.
    has_content: Vec<bool>,
    /// The leaf emitted last, for the separator before the next.
    last_leaf: Option<usize>,
    /// The base of links, when links are kept.
    base: Option<url::Url>,
    /// After a formula written from a script: whether the page's text after it begins with
    /// whitespace (`None` once the next leaf is written).
    space_after_formula: Option<bool>,
}

impl<'a> Renderer<'a> {
    fn new(dom: &'a Dom, cdom: &'a Cdom, content: &'a [bool], options: &MarkdownOptions) -> Self {
        let n = dom.nodes.len();
        let mut leaf_at = vec![u32::MAX; n];
        let mut has_content = vec![false; n];
        for (i, (&leaf, &keep)) in cdom.leaves.iter().zip(content).enumerate() {
            let node = cdom.nodes[leaf].dom_node;
            if node >= n {
                continue;
            }
            leaf_at[node] = u32::try_from(i).unwrap_or(u32::MAX);
            if !keep {
                continue;
            }
            let mut at = Some(node);
            while let Some(id) = at {
                if has_content[id] {
                    break;
                }
                has_content[id] = true;
                at = dom.nodes[id].parent;
            }
        }
        let base = options.links.then(|| base_url(dom, options.page_url.as_deref())).flatten();
        Self { dom, cdom, content, leaf_at, has_content, last_leaf: None, base, space_after_formula: None }
    }

    fn leaf(&self, id: NodeId) -> Option<usize> {
        self.leaf_at.get(id).copied().filter(|&l| l != u32::MAX).map(|l| l as usize)
    }

    /// Renders the children of `id` into `out`.
    fn children(&mut self, id: NodeId, out: &mut Blocks, ctx: Context, depth: usize) {
        for &child in self.dom.children(id) {
            self.node(child, out, ctx, depth + 1);
        }
    }

    fn node(&mut self, id: NodeId, out: &mut Blocks, ctx: Context, depth: usize) {
        match &self.dom.nodes[id].data {
            NodeData::Text(_) => {
                if let Some(leaf) = self.leaf(id) {
                    self.emit_leaf(leaf, out);
                }
            }
            NodeData::Element(element) => {
                let name = &element.name.local;
                if *name == local_name!("img") {
                    if ctx.in_text_block {
                        self.image(id, out);
                    }
                    return;
                }
                if *name == local_name!("br") {
                    out.line_break();
                    return;
                }
                if *name == local_name!("hr") {
                    out.flush();
                    return;
                }
                // Reached only inside an element with kept text: the formula is part of it.
                if *name == local_name!("script") {
                    return self.tex_script(id, out, ctx);
                }
                if self.stands_for_tex_script(id) {
                    // MathJax 2's preview or rendered formula: the script after it carries the source.
                    self.skip_leaves_of(id);
                    return;
                }
                if !self.has_content[id] {
                    return;
                }
                // Past the CDOM's depth an element is one leaf, its text read whole.
                if let Some(leaf) = self.leaf(id) {
                    self.emit_leaf(leaf, out);
                    return;
                }
                if element.class().split_ascii_whitespace().any(|c| c == "katex-html") {
                    // KaTeX's rendered glyphs: its `math` sibling carries the source.
                    return;
                }

                if let Some(level) = heading_level(name) {
                    // Inside a cell (or another line) a heading is its text: `####` there is no
                    // heading in GFM, only four more characters in the cell.
                    if ctx.flat {
                        return self.children(id, out, ctx, depth);
                    }
                    return self.heading(id, level, out, depth);
                }
                match *name {
                    // On one line (a heading's, a cell's) a list or a quote is its lines' text: an
                    // item's number or a `>` there would be text, not structure.
                    _ if ctx.flat && (is_list(name) || matches!(*name, local_name!("li") | local_name!("blockquote"))) => {
                        out.flush();
                        self.children(id, out, ctx, depth);
                        out.flush();
                    }
                    _ if is_list(name) || *name == local_name!("li") => self.list(id, out, ctx, depth),
                    // On one line (a cell's one-line `pre`), code is a code span.
                    _ if is_code_block(name) && !ctx.flat => self.code_block(id, out, depth),
                    _ if is_code_block(name) || matches!(*name, local_name!("code") | local_name!("kbd") | local_name!("samp") | local_name!("tt")) => {
                        self.inline_code(id, out, ctx, depth)
                    }
                    local_name!("blockquote") => self.quote(id, out, ctx, depth),
                    local_name!("table") => self.table(id, out, ctx, depth),
                    local_name!("math") => self.math(id, out, ctx, depth),
                    local_name!("a") if self.base.is_some() => self.link(id, out, ctx, depth),
                    _ if is_block(name) => {
                        out.flush();
                        let text_block = ctx.in_text_block || holds_running_text(name);
                        self.children(id, out, Context { in_text_block: text_block, ..ctx }, depth);
                        out.flush();
                    }
                    _ => self.children(id, out, ctx, depth),
                }
            }
            NodeData::Document => self.children(id, out, ctx, depth),
            NodeData::Other => {}
        }
    }

    /// Appends a content leaf's text with the separator [`Cdom::text_of`] would put before it.
    fn emit_leaf(&mut self, leaf: usize, out: &mut Blocks) {
        if !self.content.get(leaf).copied().unwrap_or(false) {
            return;
        }
        let node = &self.cdom.nodes[self.cdom.leaves[leaf]];
        // Right after a formula written from a script, the page's own spacing: the text puts
        // a space where the script was (`$x$, so`, not `$x$ , so`).
        let after_formula = self.space_after_formula.take().filter(|_| self.last_leaf.is_some_and(|p| p + 1 == leaf));
        let space = after_formula.unwrap_or_else(|| self.separated(leaf));
        self.last_leaf = Some(leaf);
        if self.dom.scripts.loads_tex_typesetter {
            write_with_tex(&node.text, space, self.dom.scripts.dollar_inline_math, out);
        } else {
            out.text(&node.text, space);
        }
    }

    /// Whether the text before `leaf` and the leaf are separated (by whitespace, a block,
    /// or a dropped leaf other than a ruby reading), as the text column separates them.
    fn separated(&self, leaf: usize) -> bool {
        match self.last_leaf {
            Some(p) if p < leaf => {
                self.cdom.left_out_between(p, leaf)
                    || self.cdom.leaves[p + 1..=leaf].iter().any(|&l| {
                        let node = &self.cdom.nodes[l];
                        node.break_before || node.space_before
                    })
            }
            _ => true,
        }
    }

    /// The inline Markdown of an element's content on one line, which is read alone: a
    /// heading's, a caption's.
    fn inline_of(&mut self, id: NodeId, within: &Blocks, ctx: Context, depth: usize) -> String {
        self.lines_of(id, within, ctx, depth, " ").escaped()
    }

    /// The inline Markdown of an element's lines (a `br`, a block, a list's items), `separator`
    /// between them: a table cell's are joined by `\n`, which a pipe table writes `<br>`. Its
    /// paired marks are left for the caller to escape with what they may pair with.
    fn lines_of(&mut self, id: NodeId, within: &Blocks, ctx: Context, depth: usize, separator: &str) -> Line {
        let mut inner = within.for_one_line();
        self.children(id, &mut inner, ctx, depth);
        inner.joined_with(separator)
    }

    fn heading(&mut self, id: NodeId, level: usize, out: &mut Blocks, depth: usize) {
        out.flush();
        let text = self.inline_of(id, out, Context { in_text_block: false, flat: true }, depth);
        let text = without_permalink(&text);
        if !text.is_empty() {
            let text = escape_closing_hashes(text);
            out.block(format!("{} {text}", "#".repeat(level)), Kind::Heading);
        }
    }

    /// A `ul`/`ol` (or a stray `li`, a list of one).
    fn list(&mut self, id: NodeId, out: &mut Blocks, ctx: Context, depth: usize) {
        out.flush();
        let element = self.dom.element(id);
        let ordered = element.is_some_and(|e| e.is(&local_name!("ol")));
        let mut number: i64 = element.and_then(|e| e.attr("start")).and_then(|s| s.trim().parse().ok()).unwrap_or(1).clamp(0, 999_999_999);
        let kind = Kind::List { ordered };
        // Two lists in a row would read as one: the second takes the other marker.
        let other_marker = out.last_kind() == Some(kind);
        let marker = |n: i64| match (ordered, other_marker) {
            (true, false) => format!("{n}. "),
            (true, true) => format!("{n}) "),
            (false, false) => "- ".to_string(),
            (false, true) => "* ".to_string(),
        };
        let item_ctx = Context { in_text_block: true, ..ctx };
        let entries = if self.is_item(id) { vec![id] } else { self.list_entries(id, depth) };
        // Each item's marker width (its continuation lines' indent) and Markdown.
        let mut items: Vec<(usize, String)> = Vec::new();
        for entry in entries {
            let mut inner = out.nested();
            if self.is_item(entry) {
                self.children(entry, &mut inner, item_ctx, depth + 1);
            } else {
                self.node(entry, &mut inner, item_ctx, depth + 1);
            }
            // An item that holds only a heading (a card's title, the rest of the card left
            // out) is that heading: the list ends before it and takes up again after it.
            if let Some(heading) = inner.only_heading() {
                out.block(list_block(&mut items), kind);
                out.block(heading, Kind::Heading);
                continue;
            }
            let body = inner.finish_tight();
            if body.is_empty() {
                continue;
            }
            let nested = self.dom.element(entry).is_some_and(|e| is_list(&e.name.local));
            match items.last_mut() {
                // A list straight inside the list belongs to the item before it.
                Some((width, last)) if nested => {
                    last.push('\n');
                    last.push_str(&indent(&body, *width));
                }
                _ => {
                    let marker = marker(number);
                    number += 1;
                    items.push((marker.len(), indent_after_first(&marker, &body)));
                }
            }
        }
        out.block(list_block(&mut items), kind);
    }

    fn is_item(&self, id: NodeId) -> bool {
        self.dom.element(id).is_some_and(|e| e.is(&local_name!("li")))
    }

    /// A list's entries in order: its `li` children, those of wrappers that hold them
    /// (`<ul><div><li>…`, as frameworks write lists), and its other children with kept text
    /// (a nested list, text straight inside the list).
    fn list_entries(&self, list: NodeId, depth: usize) -> Vec<NodeId> {
        let mut entries = Vec::new();
        for &child in self.dom.children(list) {
            match self.dom.element(child) {
                Some(_) if self.is_item(child) => entries.push(child),
                Some(e) if !is_list(&e.name.local) && depth < MAX_DEPTH && self.dom.element_children(child).any(|c| self.is_item(c)) => {
                    entries.extend(self.list_entries(child, depth + 1));
                }
                _ if self.has_content[child] => entries.push(child),
                _ => {}
            }
        }
        entries
    }

    fn quote(&mut self, id: NodeId, out: &mut Blocks, ctx: Context, depth: usize) {
        out.flush();
        let mut inner = out.nested();
        self.children(id, &mut inner, Context { in_text_block: false, ..ctx }, depth);
        let body = inner.finish();
        if !body.is_empty() {
            let quoted: Vec<String> = body.lines().map(|l| if l.is_empty() { ">".to_string() } else { format!("> {l}") }).collect();
            out.block(quoted.join("\n"), Kind::Other);
        }
    }

    /// A `pre` block: its kept text verbatim, fenced, with the language its class names.
    fn code_block(&mut self, id: NodeId, out: &mut Blocks, depth: usize) {
        let mut code = String::new();
        self.raw_text(id, &mut code, depth);
        let code = code.replace("\r\n", "\n");
        let lines: Vec<&str> = code.split('\n').map(str::trim_end).collect();
        let first = lines.iter().position(|l| !l.is_empty());
        let last = lines.iter().rposition(|l| !l.is_empty());
        let (Some(first), Some(last)) = (first, last) else { return };
        let body = lines[first..=last].join("\n");
        out.flush();
        let fence = "`".repeat(longest_run(&body, '`').max(2) + 1);
        let language = self.code_language(id).unwrap_or_default();
        out.block(format!("{fence}{language}\n{body}\n{fence}"), Kind::Other);
    }

    /// The kept text under `id` as written (whitespace and line breaks kept).
    fn raw_text(&mut self, id: NodeId, out: &mut String, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for &child in self.dom.children(id) {
            match &self.dom.nodes[child].data {
                NodeData::Text(text) => match self.leaf(child) {
                    Some(leaf) if self.content.get(leaf).copied().unwrap_or(false) => {
                        self.last_leaf = Some(leaf);
                        out.push_str(text);
                    }
                    Some(_) => {}
                    // Blank runs between highlighted tokens are no block, but they are the
                    // code's line breaks and indentation.
                    None if text.trim().is_empty() => out.push_str(text),
                    None => {}
                },
                NodeData::Element(e) if e.is(&local_name!("br")) => out.push('\n'),
                // An element with no kept text may still hold the code's line breaks.
                NodeData::Element(e) => {
                    // A block inside the code (a highlighter's line, the code beside its
                    // line number) starts a line, as the text column's block does.
                    let line_begun = out.rsplit('\n').next().is_some_and(|line| !line.trim().is_empty());
                    if is_block(&e.name.local) && line_begun {
                        out.push('\n');
                    }
                    match self.leaf(child) {
                        Some(leaf) if self.content.get(leaf).copied().unwrap_or(false) => {
                            self.last_leaf = Some(leaf);
                            out.push_str(&self.cdom.nodes[self.cdom.leaves[leaf]].text);
                        }
                        Some(_) => {}
                        None => self.raw_text(child, out, depth + 1),
                    }
                }
                _ => {}
            }
        }
    }

    /// `language-x` / `lang-x` on the `pre` or the `code` inside it.
    fn code_language(&self, pre: NodeId) -> Option<String> {
        let mut candidates = vec![pre];
        candidates.extend(self.dom.element_children(pre).filter(|&c| self.dom.element(c).is_some_and(|e| e.is(&local_name!("code")))));
        candidates.iter().filter_map(|&id| self.dom.element(id)).find_map(|e| {
            e.class().split_ascii_whitespace().find_map(|c| {
                let name = c.strip_prefix("language-").or_else(|| c.strip_prefix("lang-"))?;
                let name: String = name.chars().take_while(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '+' | '#' | '-' | '_' | '.')).collect();
                (!name.is_empty()).then_some(name)
            })
        })
    }

    fn inline_code(&mut self, id: NodeId, out: &mut Blocks, ctx: Context, depth: usize) {
        let mut code = String::new();
        let first = self.first_content_leaf(id);
        // Block content inside `<code>` (a page that uses it for a block) reads as blocks.
        if self.dom.descendants(id).skip(1).any(|d| self.dom.element(d).is_some_and(|e| is_block(&e.name.local) || e.is(&local_name!("br")))) {
            return self.children(id, out, ctx, depth);
        }
        let space = first.is_some_and(|l| self.separated(l));
        self.collapsed_text(id, &mut code);
        if code.is_empty() {
            return;
        }
        // Right after another code span the two backtick runs would read as one (``` then `
        // is ````, which closes neither span): where the text parts the two, a space keeps
        // them apart; where it joins them (`<code>a</code><code>b</code>` inside a `code` that
        // holds a block), they are one span, so the words stay those of the text.
        if let Some(last) = out.last_code_span.take_if(|last| last.end == out.inline.len()) {
            if space {
                out.last_code_span = Some(last);
            } else {
                out.inline.truncate(last.start);
                code.insert_str(0, &last.code);
            }
        }
        let ticks = "`".repeat(longest_run(&code, '`') + 1);
        let pad = if code.starts_with('`') || code.ends_with('`') { " " } else { "" };
        let span = format!("{ticks}{pad}{code}{pad}{ticks}");
        out.raw(&span, space);
        let end = out.inline.len();
        out.last_code_span = Some(CodeSpan { start: end - span.len(), end, code });
    }

    /// The kept leaves under `id`, joined as the text column joins them.
    fn collapsed_text(&mut self, id: NodeId, out: &mut String) {
        for d in self.dom.descendants(id) {
            if let Some(leaf) = self.leaf(d).filter(|&l| self.content.get(l).copied().unwrap_or(false)) {
                if !out.is_empty() && self.separated(leaf) {
                    out.push(' ');
                }
                self.last_leaf = Some(leaf);
                out.push_str(&self.cdom.nodes[self.cdom.leaves[leaf]].text);
            }
        }
    }

    fn first_content_leaf(&self, id: NodeId) -> Option<usize> {
        self.dom.descendants(id).find_map(|d| self.leaf(d).filter(|&l| self.content.get(l).copied().unwrap_or(false)))
    }

    /// MathML: its TeX source (`annotation encoding=application/x-tex`, else `alttext`) as
    /// `$…$`, or `$$…$$` on its own for display math; without a source, its text.
    fn math(&mut self, id: NodeId, out: &mut Blocks, ctx: Context, depth: usize) {
        let Some(tex) = self.tex_source(id) else { return self.children(id, out, ctx, depth) };
        let first = self.first_content_leaf(id);
        let space = first.is_some_and(|l| self.separated(l));
        // The leaves inside are the rendered formula, which the source stands for.
        self.skip_leaves_of(id);
        let display = self.dom.element(id).and_then(|e| e.attr("display")).is_some_and(|d| d.eq_ignore_ascii_case("block"));
        write_formula(&tex, display, space, out);
    }

    /// A `<script type="math/tex">` (MathJax 2's, kramdown's): its TeX as `$…$`, or `$$…$$`
    /// on its own for `mode=display`. Any other script is no text.
    fn tex_script(&mut self, id: NodeId, out: &mut Blocks, ctx: Context) {
        let Some(kind) = self.dom.element(id).and_then(|e| e.attr("type")).filter(|t| is_tex_script_type(t.as_bytes())) else { return };
        let tex = self.text_content(id).split_whitespace().collect::<Vec<_>>().join(" ");
        if tex.is_empty() || tex.contains('$') {
            return;
        }
        let display = kind.to_ascii_lowercase().contains("mode=display") && !ctx.flat;
        let space = self.sibling_text(id, Direction::Before).is_none_or(|text| text.ends_with(char::is_whitespace));
        write_formula(&tex, display, space, out);
        if !display {
            self.space_after_formula = self.sibling_text(id, Direction::After).map(|text| text.starts_with(char::is_whitespace));
        }
    }

    /// The children of `id`'s parent, and where `id` is among them.
    fn siblings(&self, id: NodeId) -> Option<(&[NodeId], usize)> {
        let siblings = self.dom.children(self.dom.nodes[id].parent?);
        Some((siblings, siblings.iter().position(|&s| s == id)?))
    }

    /// The text node beside `id` (past MathJax's previews and rendered formulas), if the
    /// neighbour is one.
    fn sibling_text(&self, id: NodeId, direction: Direction) -> Option<&str> {
        let (siblings, at) = self.siblings(id)?;
        let neighbour = match direction {
            Direction::Before => siblings[..at].iter().rev().find(|&&s| !self.is_mathjax_frame(s)),
            Direction::After => siblings[at + 1..].iter().find(|&&s| !self.is_mathjax_frame(s)),
        };
        neighbour.and_then(|&s| match &self.dom.nodes[s].data {
            NodeData::Text(text) => Some(text.as_str()),
            _ => None,
        })
    }

    /// MathJax 2's preview (`MathJax_Preview`) or rendered formula (`MathJax`, `MathJax_Display`,
    /// `MathJax_CHTML`, `MathJax_SVG`, ...), which a browser-saved page holds before its script.
    fn is_mathjax_frame(&self, id: NodeId) -> bool {
        self.dom.element(id).is_some_and(|e| e.class().split_ascii_whitespace().any(|c| c == "MathJax" || c.starts_with("MathJax_")))
    }

    /// Whether `id` is a MathJax frame that a TeX script after it (past other frames) stands for.
    fn stands_for_tex_script(&self, id: NodeId) -> bool {
        // Only a page with such a script has frames that stand for one.
        if !self.dom.scripts.has_tex_scripts || !self.is_mathjax_frame(id) {
            return false;
        }
        let Some((siblings, at)) = self.siblings(id) else { return false };
        siblings[at + 1..]
            .iter()
            .filter(|&&s| self.dom.element(s).is_some())
            .find(|&&s| !self.is_mathjax_frame(s))
            .and_then(|&s| self.dom.element(s))
            .is_some_and(|e| e.is(&local_name!("script")) && e.attr("type").is_some_and(|t| is_tex_script_type(t.as_bytes())))
    }

    /// Passes over the leaves under `id` as written: the next leaf's separator is then the
    /// one after them.
    fn skip_leaves_of(&mut self, id: NodeId) {
        if let Some(last) = self.dom.descendants(id).filter_map(|d| self.leaf(d)).last() {
            self.last_leaf = Some(last);
        }
    }

    fn tex_source(&self, id: NodeId) -> Option<String> {
        let annotation = self.dom.descendants(id).find(|&d| {
            self.dom
                .element(d)
                .is_some_and(|e| e.is(&local_name!("annotation")) && e.attr("encoding").is_some_and(|enc| enc.to_ascii_lowercase().contains("tex")))
        });
        let source = match annotation {
            Some(a) => self.text_content(a),
            None => self.dom.element(id).and_then(|e| e.attr("alttext")).unwrap_or_default().to_string(),
        };
        let source = source.split_whitespace().collect::<Vec<_>>().join(" ");
        (!source.is_empty() && !source.contains('$')).then_some(source)
    }

    /// With links kept, `![alt](src)`. Without, nothing: alt text alone is rarely content
    /// ("spacer", a file name, a logo's name), and it lowered the Markdown's word F1 under
    /// the text's (docs/markdown.md).
    fn image(&mut self, id: NodeId, out: &mut Blocks) {
        let (Some(element), Some(base)) = (self.dom.element(id), &self.base) else { return };
        let Some(src) = element.attr("src").and_then(|s| resolve(base, s)) else { return };
        let alt = element.attr("alt").map(|a| a.split_whitespace().collect::<Vec<_>>().join(" ")).unwrap_or_default();
        let mut text = String::new();
        escape_text(&alt, false, true, &mut text, None);
        out.raw(&format!("![{text}]({src})"), !self.ends_a_written_word_before(id));
    }

    /// Whether the node before `id` is text just written that ends inside a word: an image
    /// there (`we<img>rde`) is written with no space before it, which would split the word.
    fn ends_a_written_word_before(&self, id: NodeId) -> bool {
        let Some(parent) = self.dom.nodes[id].parent else { return false };
        let siblings = self.dom.children(parent);
        let before = siblings.iter().position(|&s| s == id).and_then(|at| at.checked_sub(1)).and_then(|at| siblings.get(at));
        before.is_some_and(|&node| {
            self.leaf(node).is_some_and(|leaf| self.last_leaf == Some(leaf))
                && matches!(&self.dom.nodes[node].data, NodeData::Text(text) if text.ends_with(|c: char| !c.is_whitespace()))
        })
    }

    fn link(&mut self, id: NodeId, out: &mut Blocks, ctx: Context, depth: usize) {
        let target = self.dom.element(id).and_then(|e| e.attr("href")).zip(self.base.as_ref()).and_then(|(href, base)| resolve(base, href));
        let holds_blocks =
            self.dom.descendants(id).skip(1).any(|d| self.dom.element(d).is_some_and(|e| is_block(&e.name.local) || heading_level(&e.name.local).is_some()));
        let Some(target) = target.filter(|_| !holds_blocks) else { return self.children(id, out, ctx, depth) };
        let space = self.first_content_leaf(id).is_some_and(|l| self.separated(l));
        let mut inner = Blocks::for_link_text();
        self.children(id, &mut inner, Context { flat: true, ..ctx }, depth);
        let text = inner.joined_with(" ").escaped();
        if text.is_empty() {
            return;
        }
        out.raw(&format!("[{text}]({target})"), space);
    }

    /// The text of `id` and its descendants, joined as the page has it.
    fn text_content(&self, id: NodeId) -> String {
        let mut text = String::new();
        for d in self.dom.descendants(id) {
            if let NodeData::Text(t) = &self.dom.nodes[d].data {
                text.push_str(t);
            }
        }
        text
    }
}

/// The items taken so far (marker width, Markdown), one per line: a list's block (empty
/// when there are none, which `Blocks::block` leaves out).
fn list_block(items: &mut Vec<(usize, String)>) -> String {
    items.drain(..).map(|(_, item)| item).collect::<Vec<_>>().join("\n")
}

/// Which neighbour of a node.
#[derive(Debug, Clone, Copy)]
enum Direction {
    Before,
    After,
}

/// A heading's text less its closing permalink marks ([`PERMALINK_MARKS`]), unless they are
/// all of it. A closing `#` stays: it is also "Part #".
fn without_permalink(text: &str) -> &str {
    let text = text.trim_end();
    match text.trim_end_matches(|c: char| c.is_whitespace() || PERMALINK_MARKS.contains(&c)) {
        "" => text,
        rest => rest,
    }
}

/// Elements whose text is code laid out in lines.
fn is_code_block(name: &LocalName) -> bool {
    matches!(*name, local_name!("pre") | local_name!("listing") | local_name!("xmp") | local_name!("plaintext"))
}

fn is_list(name: &LocalName) -> bool {
    matches!(*name, local_name!("ul") | local_name!("ol") | local_name!("menu") | local_name!("dir"))
}

/// Elements laid out as blocks: a paragraph ends before and after them.
fn is_block(name: &LocalName) -> bool {
    crate::extract::web2text::cdom::BLOCKS.contains(name)
        || matches!(*name, local_name!("details") | local_name!("summary") | local_name!("dialog") | local_name!("legend") | local_name!("caption"))
}

/// Blocks whose content is running text (images inside belong to it).
fn holds_running_text(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("p")
            | local_name!("li")
            | local_name!("dd")
            | local_name!("dt")
            | local_name!("figure")
            | local_name!("figcaption")
            | local_name!("td")
            | local_name!("th")
    )
}

fn longest_run(text: &str, c: char) -> usize {
    let (mut longest, mut run) = (0, 0);
    for ch in text.chars() {
        run = if ch == c { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// `body` after `marker`, its later lines indented to the item's content.
fn indent_after_first(marker: &str, body: &str) -> String {
    let width = marker.chars().count();
    let mut out = String::from(marker);
    for (i, line) in body.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.is_empty() {
                out.push_str(&" ".repeat(width));
            }
        }
        out.push_str(line);
    }
    out
}

fn indent(body: &str, width: usize) -> String {
    body.split('\n').map(|l| if l.is_empty() { String::new() } else { format!("{}{l}", " ".repeat(width)) }).collect::<Vec<_>>().join("\n")
}

/// The base of the page's relative links: its `<base href>` (itself resolved against the
/// page URL), else the page URL.
fn base_url(dom: &Dom, page_url: Option<&str>) -> Option<url::Url> {
    let page = page_url.and_then(|u| url::Url::parse(u).ok());
    let base_href = dom.descendants(crate::dom::DOCUMENT).find_map(|id| dom.element(id).filter(|e| e.is(&local_name!("base"))).and_then(|e| e.attr("href")));
    match (base_href, &page) {
        (Some(href), Some(page)) => page.join(href.trim()).ok().or(Some(page.clone())),
        (Some(href), None) => url::Url::parse(href.trim()).ok(),
        (None, page) => page.clone(),
    }
}

/// A link target resolved against `base`, written for a Markdown link: none for script
/// and empty targets; `<…>` around one with parentheses.
fn resolve(base: &url::Url, href: &str) -> Option<String> {
    let href = href.trim();
    // No address on the web to keep: a script, a `data:` resource (most often a lazy
    // loader's placeholder, `data:image/svg+xml,...` until a script sets the real `src`),
    // a file on the author's disk.
    let lower = href.to_ascii_lowercase();
    if href.is_empty() || ["javascript:", "data:", "file:"].iter().any(|scheme| lower.starts_with(scheme)) {
        return None;
    }
    let url = base.join(href).ok()?;
    let s = url.as_str();
    Some(if s.contains(['(', ')', ' ']) { format!("<{s}>") } else { s.to_string() })
}

#[cfg(test)]
mod tests;
