//! Tables: a data table as a GFM pipe table on a grid of its spans, a layout table as its
//! cells' blocks, a grid too narrow or too wide for a pipe table as lines of its cells.

use html5ever::local_name;

use super::writer::{Blocks, Kind, Line, escape_block_start, escape_paired};
use super::{Context, Renderer, is_code_block, is_list};
use crate::dom::{Dom, NodeData, NodeId, heading_level};

/// Cells a `colspan`/`rowspan` may cover at most (a page asking for 10,000 columns gets this).
const MAX_SPAN: usize = 64;
/// Cells a table's spans may cover at most before it is written as blocks, not a grid (a
/// page of 10,000 cells each spanning 64 × 64 would otherwise take seconds).
const MAX_GRID_CELLS: usize = 100_000;
/// Columns a pipe table may have at most; a wider grid is written as text lines.
const MAX_COLUMNS: usize = 64;
/// A cell with more words than this is page layout, not data, unless its table is a grid.
const LAYOUT_CELL_WORDS: usize = 150;
/// Rows of two cells or more that make a table a grid, where a long cell of plain text is a
/// long value (a product's description in its specifications).
const GRID_ROWS: usize = 4;
/// A cell with this many headings, and paragraphs, lists or quotes with text, holds a page's
/// sections, when it also has more than [`LAYOUT_SECTIONS_WORDS`] words (a price cell of three
/// short paragraphs, `<del>$12.99</del>`, a price, a link, is data).
const LAYOUT_CELL_SECTIONS: usize = 3;
const LAYOUT_SECTIONS_WORDS: usize = 40;
/// A heading in a cell with more words than this after it starts a section of the page.
const LAYOUT_WORDS_UNDER_HEADING: usize = 30;

impl Renderer<'_> {
    /// A `table`: a pipe table, or its cells' content as blocks or lines (the module's note).
    pub(super) fn table(&mut self, id: NodeId, out: &mut Blocks, ctx: Context, depth: usize) {
        let rows = table_rows(self.dom, id);
        if self.is_layout_table(id, &rows) || self.grid_cells(&rows) > MAX_GRID_CELLS {
            out.flush();
            self.children(id, out, Context { in_text_block: false, ..ctx }, depth);
            out.flush();
            return;
        }
        out.flush();
        // The caption reads before the table.
        for c in self.dom.element_children(id).filter(|&c| self.dom.element(c).is_some_and(|e| e.is(&local_name!("caption")))) {
            let caption = self.inline_of(c, out, Context { in_text_block: true, flat: true }, depth);
            if !caption.is_empty() {
                out.block(escape_block_start(&caption), Kind::Other);
            }
        }
        let cell_ctx = Context { in_text_block: true, flat: true };
        let leaf_before_cells = self.last_leaf;
        let mut grid: Vec<Vec<Line>> = Vec::new();
        // Columns taken in later rows by a cell spanning rows: (row, column).
        let mut taken: foldhash::HashSet<(usize, usize)> = Default::default();
        for (r, &row) in rows.iter().enumerate() {
            let mut cells: Vec<Line> = Vec::new();
            let mut column = 0;
            for cell in self.dom.element_children(row) {
                let Some(e) = self.dom.element(cell) else { continue };
                if !e.is(&local_name!("th")) && !e.is(&local_name!("td")) {
                    continue;
                }
                while taken.contains(&(r, column)) {
                    column += 1;
                }
                let (colspan, rowspan) = (span(e, "colspan"), span(e, "rowspan").min(rows.len() - r));
                let text = if self.has_content[cell] { self.lines_of(cell, out, cell_ctx, depth + 1, "\n") } else { Line::default() };
                for c in column..column + colspan {
                    for below in r + 1..r + rowspan {
                        taken.insert((below, c));
                    }
                }
                cells.resize_with(cells.len().max(column), Line::default);
                cells.push(text);
                cells.extend(std::iter::repeat_with(Line::default).take(colspan - 1));
                column += colspan;
            }
            grid.push(cells);
        }
        // GFM wants a header row: the first row left is it (a `th` row where the page has one).
        // Rows with nothing kept go; so do columns empty in every row left.
        let mut kept: Vec<Vec<Line>> = grid.into_iter().filter(|r| r.iter().any(|c| !c.text.is_empty())).collect();
        let width = kept.iter().map(Vec::len).max().unwrap_or(0);
        let used: Vec<usize> = (0..width).filter(|&c| kept.iter().any(|r| r.get(c).is_some_and(|t| !t.text.is_empty()))).collect();
        if kept.len() < 2 || used.len() < 2 || used.len() > MAX_COLUMNS {
            // Not a grid, so no pipe table's one-line cell to fit: a kept list in a cell (a
            // row of link columns) stays a list, and a `pre` a code block (a highlighter's
            // one-cell table around one line of code), the cells written as blocks as a
            // layout table's are; else each row is a line of its cells.
            if self.holds_kept_list_or_code(&rows) {
                self.last_leaf = leaf_before_cells;
                let is_caption = |c: NodeId| self.dom.element(c).is_some_and(|e| e.is(&local_name!("caption")));
                for child in self.dom.children(id).iter().copied().filter(|&c| !is_caption(c)).collect::<Vec<_>>() {
                    self.node(child, out, Context { in_text_block: false, ..ctx }, depth + 1);
                }
                out.flush();
                return;
            }
            for mut row in kept {
                // The row is one paragraph, where the marks of its cells may pair.
                escape_paired(&mut row);
                let line: Vec<&str> = row.iter().map(|c| c.text.as_str()).filter(|c| !c.is_empty()).collect();
                out.block(escape_block_start(&line.join(" ").replace('\n', " ")), Kind::Other);
            }
            return;
        }
        // A pipe table's reader splits a row into cells before it reads their inline markup
        // (GFM), so a cell's marks pair only within it.
        for cell in kept.iter_mut().flatten() {
            cell.escape();
            cell.text = cell.text.replace('|', "\\|");
        }
        let line = |row: &Vec<Line>| -> String {
            let cells: Vec<&str> = used.iter().map(|&c| row.get(c).map_or("", |cell| cell.text.as_str())).collect();
            format!("| {} |", cells.join(" | ")).replace('\n', "<br>")
        };
        let mut lines = vec![line(&kept[0]), format!("|{}", " --- |".repeat(used.len()))];
        lines.extend(kept[1..].iter().map(line));
        out.block(lines.join("\n"), Kind::Other);
    }

    /// Non-empty lines of a `pre`'s text.
    fn text_lines(&self, pre: NodeId) -> usize {
        self.text_content(pre).lines().filter(|l| !l.trim().is_empty()).count()
    }

    /// A cell of line numbers beside code: digits only.
    fn is_line_numbers(&self, cell: NodeId) -> bool {
        let text = self.text_content(cell);
        text.chars().any(|c| c.is_ascii_digit()) && text.chars().all(|c| c.is_ascii_digit() || c.is_whitespace())
    }

    /// The cells a table's spans cover (each bounded by [`MAX_SPAN`] both ways).
    fn grid_cells(&self, rows: &[NodeId]) -> usize {
        rows.iter()
            .flat_map(|&row| self.dom.element_children(row))
            .filter_map(|cell| self.dom.element(cell))
            .map(|e| span(e, "colspan") * span(e, "rowspan"))
            .sum()
    }

    /// Whether a cell of these rows holds a list or a `pre` with kept content.
    fn holds_kept_list_or_code(&self, rows: &[NodeId]) -> bool {
        rows.iter().flat_map(|&row| self.dom.element_children(row)).filter(|&cell| self.has_content[cell]).any(|cell| {
            self.dom
                .descendants(cell)
                .skip(1)
                .any(|d| self.has_content[d] && self.dom.element(d).is_some_and(|e| is_list(&e.name.local) || is_code_block(&e.name.local)))
        })
    }

    /// A table that lays out the page rather than holding data: it holds another table,
    /// says so (`role=presentation`), or a cell holds code of several lines (or beside its
    /// line numbers), a long text outside a grid, or a page's sections (several headings,
    /// paragraphs, lists or quotes; a heading with text under it). A title in a header cell,
    /// a short list or a one-line `pre` in a cell is data.
    fn is_layout_table(&self, id: NodeId, rows: &[NodeId]) -> bool {
        let element = self.dom.element(id);
        if element.and_then(|e| e.attr("role")).is_some_and(|r| r.eq_ignore_ascii_case("presentation") || r.eq_ignore_ascii_case("none")) {
            return true;
        }
        for d in self.dom.descendants(id).skip(1) {
            if self.dom.element(d).is_some_and(|e| e.is(&local_name!("table"))) {
                return true;
            }
        }
        let cells_of =
            |row: NodeId| self.dom.element_children(row).filter(|&c| self.dom.element(c).is_some_and(|e| e.is(&local_name!("td")) || e.is(&local_name!("th"))));
        let grid = rows.iter().filter(|&&row| cells_of(row).nth(1).is_some()).count() >= GRID_ROWS;
        for &row in rows {
            for cell in self.dom.element_children(row) {
                if !self.has_content[cell] {
                    continue;
                }
                let (mut words, mut sections, mut heading_words) = (0, 0, None::<usize>);
                for d in self.dom.descendants(cell).skip(1) {
                    match &self.dom.nodes[d].data {
                        NodeData::Element(e) => {
                            let name = &e.name.local;
                            if heading_level(name).is_some() {
                                heading_words.get_or_insert(words);
                                sections += 1;
                            } else if *name == local_name!("pre") {
                                // Code, which a pipe table's cell would flatten to one line.
                                if self.text_lines(d) > 1 || cells_of(row).any(|c| self.is_line_numbers(c)) {
                                    return true;
                                }
                            } else if self.has_content[d]
                                && matches!(*name, local_name!("p") | local_name!("ul") | local_name!("ol") | local_name!("blockquote") | local_name!("dl"))
                            {
                                sections += 1;
                            }
                        }
                        NodeData::Text(t) => words += t.split_whitespace().count(),
                        _ => {}
                    }
                }
                let text_after_heading = heading_words.is_some_and(|before| words > before + LAYOUT_WORDS_UNDER_HEADING);
                let page_sections = sections >= LAYOUT_CELL_SECTIONS && words > LAYOUT_SECTIONS_WORDS;
                // A long plain value in a grid is data; with lists or paragraphs, the pipe
                // table's one-line cell would flatten them.
                let long_text = words > LAYOUT_CELL_WORDS && (!grid || sections > 0);
                if long_text || page_sections || text_after_heading {
                    return true;
                }
            }
        }
        false
    }
}

/// A cell's `colspan` or `rowspan`: 1 when absent or unreadable, at most [`MAX_SPAN`].
fn span(cell: &crate::dom::Element, name: &str) -> usize {
    cell.attr(name).and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(1).clamp(1, MAX_SPAN)
}

/// The `tr` elements of a table (its own, not those of tables inside it).
fn table_rows(dom: &Dom, table: NodeId) -> Vec<NodeId> {
    let mut rows = Vec::new();
    for child in dom.element_children(table) {
        let Some(e) = dom.element(child) else { continue };
        if e.is(&local_name!("tr")) {
            rows.push(child);
        } else if matches!(e.name.local, local_name!("thead") | local_name!("tbody") | local_name!("tfoot")) {
            rows.extend(dom.element_children(child).filter(|&r| dom.element(r).is_some_and(|e| e.is(&local_name!("tr")))));
        }
    }
    rows
}
