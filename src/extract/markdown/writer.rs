//! The Markdown being written: finished blocks, the paragraph being written, and the
//! escaping CommonMark asks for, so that a page's text never turns into markup by accident.

/// The kind of a finished block, for what may follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Paragraph,
    Heading,
    List { ordered: bool },
    Other,
}

/// Finished blocks and the paragraph being written.
#[derive(Default)]
pub(super) struct Blocks {
    done: Vec<(Kind, String)>,
    /// The running paragraph, already escaped.
    pub(super) inline: String,
    /// The code span written last into `inline`.
    pub(super) last_code_span: Option<CodeSpan>,
    /// A link's text: its brackets are all escaped ([`escape_text`]).
    in_link_text: bool,
    /// Every paired mark escaped where it stands ([`PAIRED_MARKS`]): in a link's text, and in
    /// a block inside a line (a quote in a cell, a table in a heading: [`Blocks::nested`]),
    /// whose Markdown reaches that line as finished text.
    escape_every_mark: bool,
    /// The paragraphs are joined into one line ([`Blocks::joined_with`]), whose caller knows the
    /// whole of what its marks may pair with: the paired marks left bare are held for it.
    one_line: bool,
    /// Where the running paragraph holds a paired mark not escaped (yet).
    unescaped_marks: Vec<usize>,
    /// With `one_line`: a finished paragraph's index in `done` and its paired marks left bare.
    held_marks: Vec<(usize, Vec<usize>)>,
}

/// A code span in the running paragraph: where its Markdown starts and ends, and its code.
pub(super) struct CodeSpan {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) code: String,
}

/// A line of Markdown (a heading's, a table cell's) and where it holds a paired mark left bare,
/// to be escaped by [`escape_paired`] once all that the line's marks may pair with is known.
#[derive(Debug, Default)]
pub(super) struct Line {
    pub(super) text: String,
    bare_marks: Vec<usize>,
}

impl Line {
    /// Escapes the line's bare paired marks, the line read alone.
    pub(super) fn escape(&mut self) {
        escape_paired(std::slice::from_mut(self));
    }

    /// The line alone, its paired marks escaped where it holds two or more of a kind.
    pub(super) fn escaped(mut self) -> String {
        self.escape();
        self.text
    }
}

/// Escapes the paired marks left bare in `lines`, read as one stretch of inline text (a
/// paragraph, or a table's row written as a line): those of a kind that may pair there. A code
/// span's `` ` `` and a formula's `$` pair with any other of a kind, so those are escaped where
/// the stretch holds two or more (counting those escaped already and those of code spans,
/// formulas and link targets); emphasis and strikethrough (`*`, `_`, `~`) only where a run of
/// them that may open comes before one that may close ([`may_pair_as_emphasis`]).
pub(super) fn escape_paired(lines: &mut [Line]) {
    if lines.iter().all(|line| line.bare_marks.is_empty()) {
        return;
    }
    let count = |mark: u8| lines.iter().map(|line| line.text.bytes().filter(|&b| b == mark).count()).sum::<usize>();
    let may_pair = |mark: u8| match mark {
        b'*' | b'_' | b'~' => may_pair_as_emphasis(lines, mark),
        _ => count(mark) > 1,
    };
    let paired: Vec<u8> = PAIRED_MARKS.into_iter().filter(|&mark| may_pair(mark)).collect();
    for line in lines {
        for at in std::mem::take(&mut line.bare_marks).into_iter().rev() {
            if line.text.as_bytes().get(at).is_some_and(|b| paired.contains(b)) {
                line.text.insert(at, '\\');
            }
        }
    }
}

/// Whether `lines`, read as one stretch, hold a run of `mark` (`*`, `_` or `~`) that may open
/// emphasis or strikethrough before one that may close it, by CommonMark's flanking rules
/// (GFM reads `~` as `*`). Every unescaped run counts, those of code spans and formulas too;
/// a character beside a run that parsers read differently, and a line's edge, is read each
/// way it may be ([`readings`]), so a run is left bare only where no reader pairs it.
fn may_pair_as_emphasis(lines: &[Line], mark: u8) -> bool {
    let mut opener_seen = false;
    for line in lines {
        let text = line.text.as_str();
        let mut at = 0;
        while let Some(found) = text[at..].find(char::from(mark)) {
            let start = at + found;
            let end = start + text[start..].bytes().take_while(|&b| b == mark).count();
            at = end;
            let backslashes = text[..start].bytes().rev().take_while(|&b| b == b'\\').count();
            // An escaped mark opens nothing; the run is the marks after it.
            let start = start + backslashes % 2;
            if start == end {
                continue;
            }
            let (before, after) = (text[..start].chars().next_back(), text[end..].chars().next());
            let (mut may_open, mut may_close) = (false, false);
            for &(before_space, before_punct) in readings(before) {
                for &(after_space, after_punct) in readings(after) {
                    let left = !after_space && (!after_punct || before_space || before_punct);
                    let right = !before_space && (!before_punct || after_space || after_punct);
                    // `_` inside a word opens and closes nothing.
                    let (opens, closes) = match mark {
                        b'_' => (left && (!right || before_punct), right && (!left || after_punct)),
                        _ => (left, right),
                    };
                    may_open |= opens;
                    may_close |= closes;
                }
            }
            if opener_seen && may_close {
                return true;
            }
            opener_seen |= may_open;
        }
    }
    false
}

/// How CommonMark readers may take a character beside a run of marks: as (whitespace,
/// punctuation). They agree on ASCII and on letters and digits; beyond those, some count
/// symbols as punctuation and some not, and spaces differ, so such a character is read each
/// way. `None`, a line's edge, and a line break are read as anything: a line may be joined to
/// another, and a cell's line break is written `<br>`.
fn readings(beside: Option<char>) -> &'static [(bool, bool)] {
    const SPACE: &[(bool, bool)] = &[(true, false)];
    const PUNCTUATION: &[(bool, bool)] = &[(false, true)];
    const OTHER: &[(bool, bool)] = &[(false, false)];
    const PUNCTUATION_OR_OTHER: &[(bool, bool)] = &[(false, true), (false, false)];
    const ANY: &[(bool, bool)] = &[(true, false), (false, true), (false, false)];
    match beside {
        None | Some('\n') => ANY,
        Some(c) if c.is_ascii_whitespace() => SPACE,
        Some(c) if c.is_ascii_punctuation() => PUNCTUATION,
        Some(c) if c.is_alphanumeric() => OTHER,
        Some(c) if c.is_whitespace() => ANY,
        Some(_) => PUNCTUATION_OR_OTHER,
    }
}

/// Marks that make inline markup only in pairs: emphasis (`*`, `_`), strikethrough (`~`), a
/// code span (`` ` ``) and math (`$`). One alone in a paragraph stays text, so it is escaped
/// only where another of its paragraph may pair with it ([`escape_paired`]).
const PAIRED_MARKS: [u8; 5] = [b'*', b'_', b'~', b'`', b'$'];

impl Blocks {
    /// Blocks for a link's text or an image's alt text, where every bracket is escaped.
    pub(super) fn for_link_text() -> Self {
        Self { in_link_text: true, escape_every_mark: true, ..Self::default() }
    }

    /// Blocks for a line inside these (a heading, a table cell), their lines joined into one
    /// ([`Blocks::joined_with`]).
    pub(super) fn for_one_line(&self) -> Self {
        Self { one_line: true, ..self.nested() }
    }

    /// Blocks for a structure inside these (a list's item, a block quote, a line), which
    /// escape every paired mark where these are or lie inside one line: their Markdown reaches
    /// that line as finished text, beside the line's other marks.
    pub(super) fn nested(&self) -> Self {
        Self { escape_every_mark: self.escape_every_mark || self.one_line, ..Self::default() }
    }

    fn at_line_start(&self) -> bool {
        self.inline.is_empty() || self.inline.ends_with('\n')
    }

    /// Appends text (escaped), after a space when `space` and the line has begun.
    pub(super) fn text(&mut self, text: &str, space: bool) {
        if text.is_empty() {
            return;
        }
        if space && !self.at_line_start() && !self.inline.ends_with(' ') {
            self.inline.push(' ');
        }
        // In one line (a heading's, a cell's) or a link's text, a reader takes what a line
        // begins with as inline text: `#### 1. Step` is a heading, not a list.
        let opens_blocks = !self.one_line && !self.in_link_text;
        let at_start = opens_blocks && self.at_line_start();
        // A number, then `.` or more digits and `.` from the next node (`<span>1</span>. Total`,
        // `<span>3</span><span>1.</span>`) would start a list.
        if opens_blocks
            && !at_start
            && let Some(line_digits) = self.line_number_digits()
        {
            let digits = text.bytes().take_while(u8::is_ascii_digit).count();
            let marker_ends = |rest: &str| rest.is_empty() || rest.starts_with([' ', '\t']);
            if line_digits + digits <= 9 && text[digits..].strip_prefix(['.', ')']).is_some_and(marker_ends) {
                self.inline.push_str(&text[..digits]);
                self.inline.push('\\');
                self.escape(&text[digits..], false);
                return;
            }
        }
        self.escape(text, at_start);
    }

    /// Appends `text` escaped; a paired mark is left to [`Blocks::flush`] unless every one is
    /// escaped here.
    fn escape(&mut self, text: &str, at_line_start: bool) {
        let unescaped_marks = (!self.escape_every_mark).then_some(&mut self.unescaped_marks);
        escape_text(text, at_line_start, self.in_link_text, &mut self.inline, unescaped_marks);
    }

    /// The digits of the line being written where it is a number alone, as an ordered
    /// list's marker begins.
    fn line_number_digits(&self) -> Option<usize> {
        let line = self.inline.rsplit('\n').next().unwrap_or_default();
        (!line.is_empty() && line.bytes().all(|b| b.is_ascii_digit())).then_some(line.len())
    }

    /// Appends Markdown made here (a code span, a link), after a space when `space`.
    pub(super) fn raw(&mut self, markdown: &str, space: bool) {
        if space && !self.at_line_start() && !self.inline.ends_with(' ') {
            self.inline.push(' ');
        }
        escape_bare_end(markdown, &mut self.inline);
        self.inline.push_str(markdown);
    }

    pub(super) fn line_break(&mut self) {
        if !self.at_line_start() {
            self.inline.push('\n');
        }
    }

    /// Finishes the running paragraph, escaping its paired marks where it holds two or more of
    /// a kind, or, in one line, holding them for [`Blocks::joined_with`].
    pub(super) fn flush(&mut self) {
        let mut paragraph = Line { text: std::mem::take(&mut self.inline), bare_marks: std::mem::take(&mut self.unescaped_marks) };
        if !self.one_line {
            paragraph.escape();
        }
        let text = paragraph.text.trim_end();
        if !text.is_empty() {
            if !paragraph.bare_marks.is_empty() {
                self.held_marks.push((self.done.len(), paragraph.bare_marks));
            }
            self.done.push((Kind::Paragraph, text.to_string()));
        }
        self.inline = paragraph.text;
        self.inline.clear();
        self.last_code_span = None;
    }

    pub(super) fn block(&mut self, markdown: String, kind: Kind) {
        self.flush();
        if !markdown.is_empty() {
            self.done.push((kind, markdown));
        }
    }

    pub(super) fn last_kind(&self) -> Option<Kind> {
        if !self.inline.trim().is_empty() {
            return Some(Kind::Paragraph);
        }
        self.done.last().map(|(k, _)| *k)
    }

    /// The one heading these blocks hold, when they hold nothing else.
    pub(super) fn only_heading(&mut self) -> Option<String> {
        self.flush();
        match self.done.as_slice() {
            [(Kind::Heading, _)] => self.done.pop().map(|(_, heading)| heading),
            _ => None,
        }
    }

    /// The blocks, a blank line between each.
    pub(super) fn finish(mut self) -> String {
        self.flush();
        let texts: Vec<String> = self.done.into_iter().map(|(_, t)| t).collect();
        texts.join("\n\n")
    }

    /// The blocks of a list item: a list after a paragraph follows it directly (a tight
    /// item), other blocks after a blank line.
    pub(super) fn finish_tight(mut self) -> String {
        self.flush();
        let mut out = String::new();
        for (i, (kind, text)) in self.done.iter().enumerate() {
            if i > 0 {
                let tight = matches!(kind, Kind::List { .. }) && self.done[i - 1].0 == Kind::Paragraph;
                out.push_str(if tight { "\n" } else { "\n\n" });
            }
            out.push_str(text);
        }
        out
    }

    /// Every non-empty line, trimmed, `separator` between them (a space for one line: a
    /// heading, a link's text), with the paired marks left bare in them.
    pub(super) fn joined_with(mut self, separator: &str) -> Line {
        self.flush();
        let mut out = Line::default();
        let mut held = self.held_marks.into_iter().peekable();
        for (i, (_, text)) in self.done.iter().enumerate() {
            let marks = held.next_if(|(block, _)| *block == i).map(|(_, marks)| marks).unwrap_or_default();
            let mut marks = marks.into_iter().peekable();
            let mut line_start = 0;
            for line in text.split('\n') {
                let start = line_start + (line.len() - line.trim_start().len());
                line_start += line.len() + 1;
                let line = line.trim();
                if line.is_empty() {
                    continue;
                }
                if !out.text.is_empty() {
                    out.text.push_str(separator);
                }
                // A mark is never whitespace, so the trimming drops none.
                while let Some(at) = marks.next_if(|&at| at < start + line.len()) {
                    if let Some(in_line) = at.checked_sub(start) {
                        out.bare_marks.push(out.text.len() + in_line);
                    }
                }
                out.text.push_str(line);
            }
        }
        out
    }
}

/// Escapes `text` for a Markdown paragraph; `at_line_start`: it begins a line, where
/// block markers (`#`, `>`, `-`, `+`, `*`, `1.`, `=`) would start a structure; `in_link_text`: it
/// is a link's text or an image's alt text, where an unmatched `[` or `]` would end or break
/// the link, so every bracket is escaped. A paired mark ([`PAIRED_MARKS`]) is escaped, or,
/// with `unescaped_marks`, written bare and its place in `out` pushed there.
pub(super) fn escape_text(text: &str, at_line_start: bool, in_link_text: bool, out: &mut String, mut unescaped_marks: Option<&mut Vec<usize>>) {
    let rest = if at_line_start { escape_line_start(text, out) } else { text };
    escape_bare_end(rest, out);
    let before = out.chars().next_back();
    // Every character that may need a backslash is ASCII, so the text is scanned by byte
    // and copied between them in runs.
    let mut copied = 0;
    for (at, byte) in rest.bytes().enumerate() {
        if !matches!(byte, b'\\' | b'`' | b'*' | b'~' | b'_' | b'[' | b']' | b'<' | b'&' | b'$' | b'!') {
            continue;
        }
        let after = &rest[at + 1..];
        let next = after.chars().next();
        let prev = rest[..at].chars().next_back().or(before);
        // Between spaces `*`, `_` and `~` neither open nor close (CommonMark's flanking rule).
        if matches!(byte, b'*' | b'_' | b'~') && prev.is_none_or(char::is_whitespace) && next.is_some_and(char::is_whitespace) {
            continue;
        }
        let escaped = match byte {
            b'_' => !(prev.is_some_and(char::is_alphanumeric) && next.is_some_and(char::is_alphanumeric)),
            // At the text's end, [`escape_bare_end`] escapes it if the next text makes it markup.
            b'[' => in_link_text || next == Some('^'),
            b']' => in_link_text || next.is_some_and(closes_a_link_before),
            b'<' => next.is_some_and(opens_html),
            b'&' => looks_like_entity(after),
            b'!' => next == Some('['),
            // A backslash may escape what follows it wherever it stands; `` ` ``, `*` and `~`
            // may open or close a mark, and so may `$`, since math readers (GitHub's among
            // them) take `$…$` for a formula.
            _ => true,
        };
        let escaped = match unescaped_marks.as_deref_mut() {
            Some(marks) if escaped && PAIRED_MARKS.contains(&byte) => {
                // Written bare: `rest[copied..=at]` is copied after what `out` holds.
                marks.push(out.len() + at - copied);
                false
            }
            _ => escaped,
        };
        if escaped {
            out.push_str(&rest[copied..at]);
            out.push('\\');
            copied = at;
        }
    }
    out.push_str(&rest[copied..]);
}

/// Writes the start of a line that would open a block (`# `, `> `, `- `, `+ `, `* `, `1. `,
/// `===`, `***`, `_ _ _`, `~~~`) escaped; returns the rest of the text.
fn escape_line_start<'t>(text: &'t str, out: &mut String) -> &'t str {
    let bytes = text.as_bytes();
    let Some(&first) = bytes.first() else { return text };
    let next = bytes.get(1).copied();
    let ends_or_space = |b: Option<u8>| b.is_none_or(|b| b == b' ' || b == b'\t');
    match first {
        b'#' => {
            let hashes = bytes.iter().take_while(|&&b| b == b'#').count();
            if hashes <= 6 && ends_or_space(bytes.get(hashes).copied()) {
                out.push('\\');
            }
            text
        }
        b'>' => {
            out.push('\\');
            text
        }
        // A bullet, or a rule (`* * *`, `***`, `___`), whose other marks pair with nothing and
        // are left bare: escaping the first breaks the rule.
        b'*' | b'_' if (first == b'*' && ends_or_space(next)) || bytes.iter().all(|&b| b == first || b == b' ') => {
            out.push('\\');
            out.push(char::from(first));
            &text[1..]
        }
        // A code fence (`~~~`, also where the next run of text adds the third tilde).
        b'~' if text.starts_with("~~~") || bytes.iter().all(|&b| b == b'~') => {
            out.push_str("\\~");
            &text[1..]
        }
        b'-' | b'+' | b'=' => {
            let all_same = bytes.iter().all(|&b| b == first || b == b' ');
            if ends_or_space(next) || all_same {
                out.push('\\');
            }
            text
        }
        b'0'..=b'9' => {
            let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            match bytes.get(digits) {
                Some(b'.' | b')') if digits <= 9 && ends_or_space(bytes.get(digits + 1).copied()) => {
                    out.push_str(&text[..digits]);
                    out.push('\\');
                    &text[digits..]
                }
                _ => text,
            }
        }
        _ => text,
    }
}

/// A line of inline Markdown (one written by [`Blocks::for_one_line`]) written as a paragraph
/// of its own (a table's caption, a row written as a line), its start escaped where it would
/// open a block.
pub(super) fn escape_block_start(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len() + 1);
    let rest = escape_line_start(markdown, &mut out);
    out.push_str(rest);
    out
}

/// Escapes a `<`, `&`, `!`, `[` or `]` that ends what is written when `text`, written next,
/// makes it open an HTML tag, a character reference, an image, a footnote or a link's target: a
/// page's text comes in runs (`&lt;<a>b</a>` is `<` then `b`; `it!<a>[1]</a>` is `it!` then a
/// link; `[<a>x</a>](y)`), and a mark at a run's end could not see the character after it.
fn escape_bare_end(text: &str, out: &mut String) {
    let Some(mark) = out.chars().next_back() else { return };
    let forms = match mark {
        '<' => text.chars().next().is_some_and(opens_html),
        '&' => looks_like_entity(text),
        '!' => text.starts_with('['),
        '[' => text.starts_with('^'),
        ']' => text.chars().next().is_some_and(closes_a_link_before),
        _ => false,
    };
    if !forms {
        return;
    }
    // The mark is one byte; an odd run of backslashes before it has escaped it already.
    let at = out.len() - 1;
    let backslashes = out.as_bytes()[..at].iter().rev().take_while(|&&b| b == b'\\').count();
    if backslashes % 2 == 0 {
        out.insert(at, '\\');
    }
}

/// Whether a `]` before `next` may end a link's text (`](url)`, `][label]`) or a link
/// reference's label (`]: url`).
fn closes_a_link_before(next: char) -> bool {
    matches!(next, '(' | '[' | ':')
}

/// Whether a `<` before `next` may open an HTML tag, comment or declaration.
fn opens_html(next: char) -> bool {
    next.is_ascii_alphabetic() || matches!(next, '/' | '!' | '?')
}

/// Whether what follows an `&` reads as a character reference (`amp;`, `#39;`, `#x27;`).
fn looks_like_entity(after: &str) -> bool {
    let body = after.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'#').take(32).count();
    body > 0 && after.as_bytes().get(body) == Some(&b';')
}

/// A heading's text with a closing run of `#` escaped (it would be read as the closing sequence).
pub(super) fn escape_closing_hashes(text: &str) -> String {
    let trimmed = text.trim_end_matches('#');
    if trimmed.len() < text.len() && (trimmed.is_empty() || trimmed.ends_with(' ')) {
        format!("{trimmed}\\{}", &text[trimmed.len()..])
    } else {
        text.to_string()
    }
}
