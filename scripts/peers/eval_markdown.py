#!/usr/bin/env python3
"""Structure of the Markdown (`process --markdown`) against gold, beside the peers' Markdown.

Pages: WCXB-dev's held-out fifth (page ids divisible by five: the combiner and the classifier
never trained on them), Mozilla Readability's 94 real test pages (`readability`: sites nobody
here trained or tuned on, one content rule read from them (a table of records' links,
docs/extraction.md step 5 (g)); the pages and their accepted main
content come from the `readabilityrs` crate, fetched and checked as `make eval-unseen` does, the
gold text being that content's text and the gold structure read from the page's HTML within
it, as for WCXB), Scrapinghub's 181 news pages (gold structure from the page's HTML
within its gold text, as for WCXB; the combiner trained on four fifths of them) and CleanEval
(dev + final; the combiner trained on these pages, so its content decisions there are
in-fold: the structure figures still measure the renderer). With --cv-markdown, also WCXB-dev's
other four fifths (1,192 pages, `wcxb-cv`), each page's content decided by combiner trees that
never saw its site (`make eval-cv` writes them: train-extract --markdown-out) and rendered as
`process --markdown` renders them; the peers run on the same pages.

Gold structure
- CleanEval: its gold text marks headings (`<h>`), list items (`<l>`) and paragraphs (`<p>`).
- WCXB, from the page's HTML within its gold text (lines compared lower-cased, whitespace
  collapsed): an h1-h6 whose text, or its text less a permalink mark ("Usage¶", Docusaurus's
  zero-width space), is a gold line is a gold heading, read less the mark as every tool's
  headings are; an li with no list inside
  whose text is a gold line, a gold list item, unless the page's headings of that text (less a
  permalink mark) already claim every time the gold text holds the line (a table of contents
  repeating the headings is not in a gold text that holds each heading once; the issue's first
  wording, every such li, is reported beside as list_item_as_filed); a table with no table inside, >= 2 rows and
  >= 2 columns, whose non-empty cells are >= 80% inside the gold text, a gold table (each row
  compared as its non-empty cells in order, a cell repeated in adjacent columns counted once);
  a pre whose text is inside the gold text, a gold code block (its non-empty lines, leading
  whitespace kept, trailing dropped).

Each tool's Markdown is read with markdown-it-py (CommonMark, GFM tables and strikethrough).
Heading / list-item precision is taken among the Markdown headings / items whose text is a
gold line; recall over the gold ones. Table rows: the share of gold rows found as a Markdown
table row. Code lines: the share of gold code lines found in Markdown code blocks. Word F1
(WCXB's: lower-case \\w+ bags) of the Markdown's text, and of our `text` column beside it;
for `process`'s rows, how well their `extraction_confidence` ranks the text's word F1
(Spearman, and ROC AUC for finding the pages under 0.5: on the held-out fifth and
Readability's pages a blind check of the shipped confidence trees). Beside goce-warc's
structure figures, their 95% interval over the dataset's pages drawn again with replacement
(`*_95`; 1,000 draws, a fixed seed): how far another sample of pages like these could move a
figure, which on a few hundred pages where a few pages hold most of the gold is far.

    python scripts/peers/eval_markdown.py --bin target/release/goce-warc --shared ../shared \\
        [--rs-trafilatura BIN] [--json target/eval/markdown.json] [--require combined:heading_f1=0.9,...]
"""
import argparse
import collections
import gzip
import itertools
import json
import os
import random
import re
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from common import process_warc, rs_trafilatura

WORD = re.compile(r"\w+")


def norm(text):
    return " ".join(text.lower().split())


def words(text):
    return WORD.findall(text.lower())


def word_f1(predicted, gold):
    p, g = collections.Counter(words(predicted)), collections.Counter(words(gold))
    if not g:
        return 1.0 if not p else 0.0
    overlap = sum((p & g).values())
    if not overlap:
        return 0.0
    precision, recall = overlap / sum(p.values()), overlap / sum(g.values())
    return 2 * precision * recall / (precision + recall)


def merged_cells(cells):
    """Non-empty cells in order, a cell repeated in adjacent columns counted once."""
    out = []
    for cell in cells:
        if cell and (not out or out[-1] != cell):
            out.append(cell)
    return tuple(out)


class Gold:
    def __init__(self, text, headings=(), items=(), rows=(), code_lines=(), items_as_filed=None):
        self.text = text
        self.lines = {norm(line) for line in text.split("\n") if norm(line)}
        # Distinct texts: a page that repeats a heading (a hidden mobile copy, a table of
        # contents) asks for it once.
        self.headings = collections.Counter(set(headings))
        self.items = collections.Counter(set(items))
        # The list items by the first wording (every li whose text is a gold line),
        # reported beside the claimed-once items above.
        self.items_as_filed = collections.Counter(set(items if items_as_filed is None else items_as_filed))
        self.rows = collections.Counter(set(rows))
        self.code_lines = collections.Counter(code_lines)


# What documentation generators append to a heading as its link ("Usage¶"; Docusaurus writes
# a zero-width space as the link's text).
PERMALINK_MARKS = " ¶#§🔗\u200b"


# MediaWiki's link to edit a section, which it writes after the section's heading.
EDIT_LINK = re.compile(r"\s*\[\s*edit(?: source)?\s*\]$")


def without_permalink(heading):
    """A heading's text less the permalink mark a documentation generator appends ("usage¶",
    "usage §") or MediaWiki's section edit link ("history[edit]"), for the gold's headings and
    every tool's alike: the gold text holds the words without the mark. A closing "#" stays
    ("part #")."""
    return EDIT_LINK.sub("", heading).rstrip(PERMALINK_MARKS.replace("#", "")) or heading


def parse_html(html_bytes):
    """The page's tree, its bytes decoded as a browser decodes them (BOM, `<meta charset>`,
    else a guess: resiliparse's detector). Given the bytes, lxml reads a page as Latin-1 even
    where `<meta charset="utf-8">` says otherwise, which garbled every gold heading, item, row
    and code line with a character outside ASCII (a curly apostrophe, an umlaut, Cyrillic)."""
    import lxml.html
    from resiliparse.parse.encoding import bytes_to_str, detect_encoding

    text = bytes_to_str(html_bytes, detect_encoding(html_bytes, from_html_meta=True))
    return lxml.html.document_fromstring(text.encode("utf-8"), parser=lxml.html.HTMLParser(encoding="utf-8"))


def wcxb_gold(html_bytes, text):
    line_count = collections.Counter(norm(line) for line in text.split("\n") if norm(line))
    lines = set(line_count)
    flat = norm(text)
    try:
        root = parse_html(html_bytes)
    except Exception:
        return Gold(text)
    headings, items, items_as_filed, rows, code = [], [], [], [], []
    # A gold line explains one element: a line the gold text holds once, and a heading of the
    # page has (less a permalink mark), is that heading, not also the table-of-contents entry
    # or menu item that repeats it (the gold text of a page with a contents list holds each
    # heading once).
    heading_count = collections.Counter()
    for el in root.iter("h1", "h2", "h3", "h4", "h5", "h6"):
        t = norm(el.text_content())
        if t and (without_permalink(t) in lines or t in lines):
            headings.append(without_permalink(t))
        heading_count[t.strip(PERMALINK_MARKS)] += 1
    for el in root.iter("li"):
        if next(el.iter("ul", "ol"), None) is not None:
            continue
        t = norm(el.text_content())
        if t and t in lines:
            items_as_filed.append(t)
            if line_count[t] > heading_count[t]:
                items.append(t)
    for table in root.iter("table"):
        if any(True for _ in table.iterdescendants("table")):
            continue
        grid = [[norm(c.text_content()) for c in tr if c.tag in ("td", "th")] for tr in table.iter("tr")]
        grid = [r for r in grid if r]
        if len(grid) < 2 or max(len(r) for r in grid) < 2:
            continue
        cells = [c for r in grid for c in r if c]
        if not cells or sum(c in flat for c in cells) < 0.8 * len(cells):
            continue
        rows.extend(k for k in (merged_cells(r) for r in grid) if k)
    seen = set()
    for pre in root.iter("pre"):
        body = pre.text_content()
        if norm(body) and norm(body) in flat and body not in seen:
            seen.add(body)
            code.extend(line.rstrip() for line in body.split("\n") if line.strip())
    return Gold(text, headings, items, rows, code, items_as_filed)


CLEANEVAL_MARK = re.compile(r"<(p|h|l)>", re.I)


def cleaneval_gold(raw):
    body = raw.split("\n", 1)[1] if raw.startswith("URL:") else raw
    parts = CLEANEVAL_MARK.split(body)
    segments = [(parts[i].lower(), norm(parts[i + 1])) for i in range(1, len(parts) - 1, 2)]
    segments = [(kind, t) for kind, t in segments if t]
    text = "\n".join(t for _, t in segments)
    return Gold(text, [t for k, t in segments if k == "h"], [t for k, t in segments if k == "l"])


# Math written as TeX between dollars (Pandoc's rule: no space inside the delimiters, no digit
# after the closing one, so "$5 and $10" stays text). The issue lists math sources among what
# only the Markdown carries, so its words are left out of the Markdown's word F1, every tool's
# alike.
DISPLAY_MATH = re.compile(r"\$\$.+?\$\$")
INLINE_MATH = re.compile(r"\$(?![\s$]).+?(?<![\s\\])\$(?!\d)")


# An escaped `\$` while math is looked for: text, never a delimiter.
ESCAPED_DOLLAR = "\ue000"


def without_math(text):
    return INLINE_MATH.sub(" ", DISPLAY_MATH.sub(" ", text)).replace(ESCAPED_DOLLAR, "$")


BR = re.compile(r"<br\s*/?>", re.I)


def read_markdown(markdown):
    """Headings, list items, table rows, code lines and plain text of a Markdown document.
    An item's text is all of its text, its code blocks and nested lists included, as a gold
    item's is its `li`'s whole text (so an item the gold cannot hold is not counted)."""
    from markdown_it import MarkdownIt

    # Escapes kept apart from text (`text_join` off), so that an escaped `\$` is no math delimiter.
    md = MarkdownIt("commonmark").enable("table").enable("strikethrough").disable("text_join")
    headings, items, rows, code, text, math = [], [], [], [], [], 0
    item_stack, row, cell, heading = [], None, None, None

    def inline_text(token):
        out = []
        for child in token.children or []:
            if child.type == "text_special" and child.info == "escape" and child.content == "$":
                out.append(ESCAPED_DOLLAR)
            elif child.type == "code_inline":
                # A `$` in code is no math delimiter: `$RL.d/S*; do $script` is shell, not math.
                out.append(child.content.replace("$", ESCAPED_DOLLAR))
            elif child.type in ("text", "text_special"):
                out.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                out.append(" ")
            elif child.type == "html_inline" and BR.fullmatch(child.content):
                # A line break inside a table cell, which GFM writes as `<br>`.
                out.append(" ")
        return "".join(out)

    for token in md.parse(markdown or ""):
        if token.type == "heading_open":
            heading = []
        elif token.type == "heading_close":
            headings.append(without_permalink(norm(" ".join(heading))))
            heading = None
        elif token.type == "list_item_open":
            item_stack.append([])
        elif token.type == "list_item_close":
            items.append(norm(" ".join(item_stack.pop())))
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close":
            rows.append(merged_cells(row))
            row = None
        elif token.type in ("th_open", "td_open"):
            cell = []
        elif token.type in ("th_close", "td_close"):
            if row is not None:
                row.append(norm(" ".join(cell)))
            cell = None
        elif token.type in ("fence", "code_block"):
            code.extend(line.rstrip() for line in token.content.split("\n") if line.strip())
            text.append(token.content)
            for item in item_stack:
                item.append(token.content)
        elif token.type == "inline":
            t = inline_text(token)
            plain = without_math(t)
            t = t.replace(ESCAPED_DOLLAR, "$")
            math += plain != t
            text.append(plain)
            for target in (heading, cell, *item_stack):
                if target is not None:
                    target.append(t)
    return {
        "headings": collections.Counter({h for h in headings if h}),
        "items": collections.Counter({i for i in items if i}),
        "rows": collections.Counter({r for r in rows if r}),
        "code_lines": collections.Counter(code),
        "text": "\n".join(text),
        "has_math": math > 0,
    }


def ranks(values):
    """Each value's rank from 0, ties given their mean rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            out[order[k]] = (start + end) / 2
        start = end + 1
    return out


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    spread = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return cov / spread if spread else None


def auc_low(confidence, f1, below=0.5):
    """ROC AUC of a low confidence for finding the pages whose word F1 is under `below`."""
    low = [c for c, f in zip(confidence, f1) if f < below]
    high = [c for c, f in zip(confidence, f1) if f >= below]
    if not low or not high:
        return None
    return sum((l < h) + 0.5 * (l == h) for l in low for h in high) / (len(low) * len(high))


# The counts each structure figure is made of, kept page by page for the intervals.
PAGE_COUNTS = [kind + part for kind in ("headings", "items") for part in ("_right", "_predicted", "_found", "_gold")] + [
    "rows_found", "rows_gold", "code_found", "code_gold"]
# The figures that get an interval, from those counts.
STRUCTURE_FIGURES = ["heading_f1", "list_item_f1", "table_rows", "code_lines"]
INTERVAL_DRAWS = 1000


def precision_recall_f1(c, kind):
    """Precision, recall and F1 of headings, items or items as filed (`kind`) from their counts."""
    p = c[kind + "_right"] / c[kind + "_predicted"] if c[kind + "_predicted"] else 0.0
    r = c[kind + "_found"] / c[kind + "_gold"] if c[kind + "_gold"] else 0.0
    return p, r, 2 * p * r / (p + r) if p + r else 0.0


def structure_figures(c):
    """Heading and list-item F1, the share of table rows and of code lines found, from the
    counts of `PAGE_COUNTS` (None where the gold has none)."""
    out = {name + "_f1": precision_recall_f1(c, kind)[2] if c[kind + "_gold"] else None for kind, name in (("headings", "heading"), ("items", "list_item"))}
    out["table_rows"] = c["rows_found"] / c["rows_gold"] if c["rows_gold"] else None
    out["code_lines"] = c["code_found"] / c["code_gold"] if c["code_gold"] else None
    return out


def intervals(pages, draws=INTERVAL_DRAWS):
    """The 2.5th and 97.5th percentiles of each structure figure over `draws` samples of the
    pages (rows of `PAGE_COUNTS`) drawn with replacement, seeded so a run repeats."""
    if not pages:
        return {}
    rng = random.Random(2026)
    columns = [list(column) for column in zip(*pages)]
    drawn = collections.defaultdict(list)
    for _ in range(draws):
        picks = [rng.randrange(len(pages)) for _ in pages]
        sums = collections.Counter({name: sum(map(column.__getitem__, picks)) for name, column in zip(PAGE_COUNTS, columns)})
        for name, value in structure_figures(sums).items():
            if value is not None:
                drawn[name].append(value)
    out = {}
    for name, values in drawn.items():
        values.sort()
        out[name + "_95"] = [round(values[int(0.025 * len(values))], 4), round(values[int(0.975 * len(values)) - 1], 4)]
    return out


class Tally:
    def __init__(self):
        self.c = collections.Counter()
        self.pages = []
        self.f1 = []
        self.text_f1 = []
        # The text's word F1 and `extraction_confidence`, pages with gold text only.
        self.confidence = []

    def add(self, gold, read, text=None, confidence=None):
        """One page: its gold structure, its Markdown as `read_markdown` reads it, and for
        `process`'s rows the text and the confidence."""
        before = {name: self.c[name] for name in PAGE_COUNTS}
        for kind in ("headings", "items", "items_as_filed"):
            ours = read["items" if kind == "items_as_filed" else kind]
            # Precision among the Markdown's structures whose text is a gold line.
            on_gold_lines = collections.Counter({t: n for t, n in ours.items() if t in gold.lines})
            self.c[kind + "_predicted"] += sum(on_gold_lines.values())
            self.c[kind + "_right"] += sum((on_gold_lines & getattr(gold, kind)).values())
            self.c[kind + "_gold"] += sum(getattr(gold, kind).values())
            self.c[kind + "_found"] += sum((ours & getattr(gold, kind)).values())
        self.c["rows_gold"] += sum(gold.rows.values())
        self.c["rows_found"] += sum((read["rows"] & gold.rows).values())
        self.c["code_gold"] += sum(gold.code_lines.values())
        self.c["code_found"] += sum((read["code_lines"] & gold.code_lines).values())
        self.pages.append(tuple(self.c[name] - before[name] for name in PAGE_COUNTS))
        # The same without lines that are a number alone: a highlighter's gutter of line
        # numbers is a `pre` of its own, which the gold counts as code and the Markdown leaves out.
        code = collections.Counter({line: n for line, n in gold.code_lines.items() if not line.strip().isdigit()})
        self.c["code_gold_unnumbered"] += sum(code.values())
        self.c["code_found_unnumbered"] += sum((read["code_lines"] & code).values())
        self.f1.append(word_f1(read["text"], gold.text))
        if text is not None:
            self.text_f1.append(word_f1(text, gold.text))
            # The Markdown holds the text's words, each as often, and no others (alt text,
            # fence languages and URLs are not read as text); a page with math is left out,
            # its text holding the rendered formula and its Markdown the TeX.
            if not read["has_math"]:
                self.c["pages_words_differ"] += collections.Counter(words(read["text"])) != collections.Counter(words(text))
            if confidence is not None and gold.text.strip():
                self.confidence.append((confidence, self.text_f1[-1]))
        self.c["pages"] += 1

    def summary(self, with_intervals=False):
        c = self.c
        out = {"pages": c["pages"]}
        for kind, name in (("headings", "heading"), ("items", "list_item"), ("items_as_filed", "list_item_as_filed")):
            p, r, f1 = precision_recall_f1(c, kind)
            out[name + "_precision"], out[name + "_recall"], out[name + "_f1"] = round(p, 4), round(r, 4), round(f1, 4)
            out[name + "_gold"] = c[kind + "_gold"]
        shares = structure_figures(c)
        out["table_rows"] = None if shares["table_rows"] is None else round(shares["table_rows"], 4)
        out["table_rows_gold"] = c["rows_gold"]
        out["code_lines"] = None if shares["code_lines"] is None else round(shares["code_lines"], 4)
        out["code_lines_gold"] = c["code_gold"]
        out["code_lines_without_numbers"] = round(c["code_found_unnumbered"] / c["code_gold_unnumbered"], 4) if c["code_gold_unnumbered"] else None
        out["markdown_word_f1"] = round(sum(self.f1) / len(self.f1), 4) if self.f1 else None
        if self.text_f1:
            out["text_word_f1"] = round(sum(self.text_f1) / len(self.text_f1), 4)
            out["pages_words_differ"] = c["pages_words_differ"]
        if self.confidence:
            confidence, f1 = [c for c, _ in self.confidence], [f for _, f in self.confidence]
            rho, auc = spearman(confidence, f1), auc_low(confidence, f1)
            out["confidence_spearman"] = None if rho is None else round(rho, 4)
            out["confidence_auc_under_0_5"] = None if auc is None else round(auc, 4)
            out["confidence_pages"] = len(self.confidence)
        if with_intervals:
            out.update(intervals(self.pages))
        return out


def readability_pages(cache):
    """(dataset, id, url, html bytes, gold) for Readability's real test pages: eval_unseen.py's
    pages and gold text, the gold structure from each page's HTML within that text."""
    from eval_unseen import build_dataset, fetch

    folder = cache / "readability"
    gold, _ = build_dataset(fetch(cache), folder)
    pages = []
    for name, page in gold.items():
        html = gzip.decompress((folder / "html" / f"{name}.html.gz").read_bytes())
        pages.append(("readability", name, page["url"], html, wcxb_gold(html, page["articleBody"])))
    return pages


def load_pages(shared, readability_cache=None):
    """(dataset, id, url, html bytes, gold) for WCXB-dev's held-out fifth, Readability's test
    pages (with `readability_cache`), Scrapinghub and CleanEval."""
    pages = readability_pages(readability_cache) if readability_cache else []
    wcxb = shared / "data" / "wcxb-dev"
    for path in sorted((wcxb / "ground-truth").glob("*.json")):
        pid = path.stem
        if not pid.isdigit() or int(pid) % 5:
            continue
        html_path = wcxb / "html" / f"{pid}.html.gz"
        if not html_path.exists():
            continue
        gt = json.loads(path.read_text())
        text = (gt.get("ground_truth") or {}).get("main_content") or ""
        html = gzip.decompress(html_path.read_bytes())
        pages.append(("wcxb-held-out", pid, gt.get("url") or f"http://example.invalid/{pid}", html, wcxb_gold(html, text)))
    scrapinghub = shared / "data" / "scrapinghub"
    gold_file = scrapinghub / "ground-truth.json"
    if gold_file.exists():
        for pid, gt in sorted(json.loads(gold_file.read_text()).items()):
            html_path = scrapinghub / "html" / f"{pid}.html.gz"
            if html_path.exists():
                html = gzip.decompress(html_path.read_bytes())
                pages.append(("scrapinghub", pid, gt.get("url") or f"http://example.invalid/{pid}", html, wcxb_gold(html, gt.get("articleBody") or "")))
    cleaneval = shared / "data" / "cleaneval"
    for part in ("dev", "final"):
        for gold_path in sorted((cleaneval / part / "GoldStandard").glob("*.txt")):
            html_path = cleaneval / part / "input" / f"{gold_path.stem}.html"
            if html_path.exists():
                pid = f"{part}/input/{gold_path.stem}.html"
                raw = gold_path.read_bytes().decode("utf-8", "replace")
                pages.append(("cleaneval", pid, f"http://pages.invalid/{pid}", html_path.read_bytes(), cleaneval_gold(raw)))
    return pages


def cv_pages(shared, path):
    """WCXB-dev's other four fifths with the combiner's out-of-fold text and Markdown
    (`goce-warc-train train-extract --markdown-out`): [(dataset, id, url, html, gold)] and
    {url: (text, markdown)}."""
    wcxb = shared / "data" / "wcxb-dev"
    pages, by_url = [], {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if row["dataset"] != "wcxb":
            continue
        pid = row["id"]
        gt = json.loads((wcxb / "ground-truth" / f"{pid}.json").read_text())
        text = (gt.get("ground_truth") or {}).get("main_content") or ""
        html = gzip.decompress((wcxb / "html" / f"{pid}.html.gz").read_bytes())
        url = f"cv:{pid}"
        pages.append(("wcxb-cv", pid, gt.get("url") or url, html, wcxb_gold(html, text)))
        by_url[("wcxb-cv", pid)] = (row["text"], row["markdown"])
    return pages, by_url


def ours(binary, shared, pages, work):
    """The default `process --markdown` over a WARC of the pages: (text, markdown,
    extraction_confidence) by URL."""
    folder = work / "pages"
    (folder / "html").mkdir(parents=True)
    (folder / "ground-truth").mkdir()
    for n, (_, _, url, html, _) in enumerate(pages):
        (folder / "html" / f"{n}.html.gz").write_bytes(gzip.compress(html, compresslevel=1, mtime=0))
        (folder / "ground-truth" / f"{n}.json").write_text(json.dumps({"url": url}))
    rows, _, _ = process_warc(binary, shared, folder, work, ["text", "markdown", "extraction_confidence"], flags=["--markdown"])
    return {url: (r["text"] or "", r["markdown"] or "", r["extraction_confidence"]) for url, r in rows.items()}


def trafilatura_markdown(page):
    """trafilatura's Markdown of one (html, url) page, with its benchmark's settings (tables
    and formatting on, comments off); a module-level function, so worker processes can run it."""
    import trafilatura

    html, url = page
    return trafilatura.extract(
        html, url=url, output_format="markdown", include_tables=True, include_formatting=True, include_comments=False
    ) or ""


def guarded(run, page):
    """(`run(page)`, None), or ("", the error) where the peer fails on the page: it scores 0 there,
    as ours would."""
    try:
        return run(page), None
    except Exception as error:
        return "", f"{type(error).__name__}: {error}"


def each_page(tool, run, pages, pool):
    """`run` over every page's (html, url) in `pool`, by (dataset, page id)."""
    inputs = [(html, url) for _, _, url, html, _ in pages]
    out = {}
    for (dataset, pid, *_), (markdown, error) in zip(pages, pool.map(guarded, itertools.repeat(run), inputs, chunksize=16)):
        if error:
            print(f"eval-markdown: {tool} failed on {dataset}/{pid}: {error}", file=sys.stderr)
        out[(dataset, pid)] = markdown
    return out


def peers(pages, rs_binary, pool):
    """Each peer's Markdown of every page, the pages spread over `pool`'s processes (only the
    figures are compared here, not the peers' speed: make eval-unseen and eval-trafi time them
    on one core)."""
    out = {}
    try:
        import trafilatura  # noqa: F401
    except ImportError:
        print("eval-markdown: trafilatura not installed, left out", file=sys.stderr)
    else:
        started = time.perf_counter()
        out["trafilatura"] = each_page("trafilatura", trafilatura_markdown, pages, pool)
        print(f"eval-markdown: trafilatura: {time.perf_counter() - started:.1f} s wall", file=sys.stderr)
    if rs_binary:
        # Its own Markdown (tables, links and formatting on); the page as UTF-8, one process
        # per page, so threads suffice to use every core.
        run = rs_trafilatura(rs_binary, decode=lambda html: html.decode("utf-8", "replace"), markdown=True)
        started = time.perf_counter()
        with ThreadPoolExecutor(os.cpu_count()) as threads:
            out["rs-trafilatura"] = each_page("rs-trafilatura", lambda page: run(*page), pages, threads)
        print(f"eval-markdown: rs-trafilatura: {time.perf_counter() - started:.1f} s wall", file=sys.stderr)
    return out


def check_reading():
    """The reading this report depends on, on a document small enough to check by eye."""
    read = read_markdown("- Run:\n\n  ```\n  make\n  ```\n- Steps:\n  1. one\n- plain\n\n# Title\n")
    assert read["items"] == collections.Counter({"run: make": 1, "steps: one": 1, "one": 1, "plain": 1}), read["items"]
    assert read["headings"] == collections.Counter({"title": 1}) and read["code_lines"] == collections.Counter({"make": 1}), read
    # A line break inside a cell (`<br>`) reads as a space, as a browser shows it.
    read = read_markdown("| a | b |\n| --- | --- |\n| x<br>y | z |\n")
    assert "x y" in read["text"] and "xy" not in read["text"], read
    # Math is left out of the text, but dollars inside code spans are the code's own.
    read = read_markdown("$x^2$ and `for f in $A; do $f; done`\n")
    assert read["text"] == "  and for f in $A; do $f; done" and read["has_math"], read


def main():
    check_reading()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--shared", required=True, type=Path)
    parser.add_argument("--rs-trafilatura", metavar="BIN", help="rs-trafilatura's extract_stdin (scripts/peers/build_rs_trafilatura.sh)")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--readability", type=Path, metavar="CACHE",
                        help="also score Readability's real test pages (dataset readability), its crate fetched into CACHE as make eval-unseen does")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--cv-markdown", type=Path, metavar="JSONL",
                        help="also score WCXB-dev's other four fifths from the combiner's out-of-fold Markdown "
                             "(train-extract --markdown-out), as dataset wcxb-cv")
    parser.add_argument("--require", action="append", default=[], metavar="DATASET:METRIC=MIN,...", help="fail unless our figure reaches each floor")
    parser.add_argument("--require-words", action="store_true", help="fail unless, on every dataset, every page's Markdown reads back to the words of its text, and so its word F1 is the text's")
    args = parser.parse_args()

    pages = load_pages(args.shared, args.readability)
    with tempfile.TemporaryDirectory() as tmp:
        by_url = ours(args.bin, args.shared, pages, Path(tmp))
    results = {}
    tallies = collections.defaultdict(Tally)
    # The Markdown is read (markdown-it) and the peers run on every core; the pages are
    # tallied in the same order whatever the cores.
    with ProcessPoolExecutor(os.cpu_count()) as pool:
        rows = [by_url.get(url, ("", "", None)) for _, _, url, _, _ in pages]
        reads = pool.map(read_markdown, [markdown for _, markdown, _ in rows], chunksize=32)
        for (dataset, _, _, _, gold), (text, _, confidence), read in zip(pages, rows, reads):
            tallies[(dataset, "goce-warc")].add(gold, read, text, confidence)
        if args.cv_markdown:
            more, by_page = cv_pages(args.shared, args.cv_markdown)
            rows = [by_page[(dataset, pid)] for dataset, pid, _, _, _ in more]
            reads = pool.map(read_markdown, [markdown for _, markdown in rows], chunksize=32)
            for (dataset, _, _, _, gold), (text, _), read in zip(more, rows, reads):
                tallies[(dataset, "goce-warc")].add(gold, read, text)
            pages += more
        if not args.no_peers:
            for tool, markdowns in peers(pages, args.rs_trafilatura, pool).items():
                reads = pool.map(read_markdown, [markdowns[(dataset, pid)] for dataset, pid, _, _, _ in pages], chunksize=32)
                for (dataset, _, _, _, gold), read in zip(pages, reads):
                    tallies[(dataset, tool)].add(gold, read)
    for (dataset, tool), tally in sorted(tallies.items()):
        results.setdefault(dataset, {})[tool] = tally.summary(with_intervals=tool == "goce-warc")

    columns = ["heading_precision", "heading_recall", "heading_f1", "list_item_precision", "list_item_recall", "list_item_f1", "list_item_as_filed_f1", "table_rows", "code_lines", "code_lines_without_numbers", "markdown_word_f1", "text_word_f1", "confidence_spearman"]
    for dataset, tools in results.items():
        any_tool = next(iter(tools.values()))
        print(f"\n{dataset}: {any_tool['pages']} pages; gold: {any_tool['heading_gold']} headings, {any_tool['list_item_gold']} list items, "
              f"{any_tool['table_rows_gold']} table rows, {any_tool['code_lines_gold']} code lines")
        print("| tool | " + " | ".join(columns) + " |")
        print("|---" * (len(columns) + 1) + "|")
        for tool, s in tools.items():
            print(f"| {tool} | " + " | ".join("" if s.get(c) is None else f"{s[c]:.3f}" for c in columns) + " |")
        ours_95 = tools.get("goce-warc", {})
        spans = [f"{name} {ours_95[name + '_95'][0]:.3f}-{ours_95[name + '_95'][1]:.3f}" for name in STRUCTURE_FIGURES if name + "_95" in ours_95]
        if spans:
            print("goce-warc, 95% over the pages drawn again: " + ", ".join(spans))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1) + "\n")

    failed = False
    for spec in args.require:
        dataset, floors = spec.split(":", 1)
        for floor in floors.split(","):
            metric, value = floor.split("=")
            got = results.get(dataset, {}).get("goce-warc", {}).get(metric)
            ok = got is not None and got >= float(value)
            print(f"{'floor ok' if ok else 'FLOOR MISSED'}: {dataset} {metric} {got} >= {value}")
            failed |= not ok
    if args.require_words:
        for dataset, tools in results.items():
            s = tools["goce-warc"]
            ok = s["pages_words_differ"] == 0 and s["markdown_word_f1"] >= s["text_word_f1"]
            print(f"{'floor ok' if ok else 'FLOOR MISSED'}: {dataset} Markdown word F1 {s['markdown_word_f1']} >= text {s['text_word_f1']}, "
                  f"{s['pages_words_differ']} of {s['pages']} pages whose Markdown's words are not the text's")
            failed |= not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
