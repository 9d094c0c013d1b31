#!/usr/bin/env python3
"""Extraction on sites nobody here tuned on: Mozilla Readability's test pages.

Readability's regression suite (about 90 real article pages from as many sites, each a saved
`source.html` with the `expected.html` that Readability's maintainers accept as its main
content) is not in ../shared/data and no model or threshold of this project was fitted on it.
It reaches this machine inside the `readabilityrs` crate on crates.io, pinned here by version
and SHA-256, so the check needs nothing but the package registries.

The gold is a reviewed tool output, not a human annotation: it keeps what Readability keeps
(figure captions, some bylines) and drops what it drops. Every tool is scored against the same
gold with WCXB's word F1 (bag of lower-case `\\w+` tokens, the scorer `goce-warc-train eval`
emulates), so the comparison is fair, but the absolute figures are not comparable with WCXB's.

The default is scored twice: through `goce-warc-train eval` on the HTML files, and through
`goce-warc process` on a Common Crawl-style WARC of the pages (../shared/tools/make_warc.py),
as a new user runs it; the check fails unless `process` writes one row per page.

Pages under 10 kB are the suite's synthetic unit tests (`replace-brs`, `rtl-1`, ...), not real
pages; they are left out (the smallest real page is 10 kB, the largest test 4 kB).

    python scripts/peers/eval_unseen.py --bin target/release/goce-warc --json target/eval/unseen.json
"""

import argparse
import gzip
import hashlib
import html.parser
import json
import pathlib
import re
import statistics
import subprocess
import sys
import tarfile
import urllib.request

from common import cpu_seconds, process_warc, rs_trafilatura

CRATE = "readabilityrs"
VERSION = "0.1.4"
SHA256 = "7c42603b08707aa2d44baa0ff2ec8fb89d66fbce4bc8eb5eec894009b6d18159"
URL = f"https://static.crates.io/crates/{CRATE}/{CRATE}-{VERSION}.crate"
MIN_SOURCE_BYTES = 10_000
OURS = ["combined", "goce", "article", "list-view", "web2text"]

BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption",
    "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav",
    "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul",
}


class Text(html.parser.HTMLParser):
    """The text of an HTML fragment, a line break at every block boundary."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.skip = [], 0
        self.url = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "style", "noscript"):
            self.skip += 1
        if tag in BLOCK_TAGS:
            self.parts.append("\n")
        if self.url is None and tag == "link" and (attrs.get("rel") or "").lower() == "canonical":
            self.url = attrs.get("href")
        if self.url is None and tag == "meta" and attrs.get("property") == "og:url":
            self.url = attrs.get("content")

    def handle_endtag(self, tag):
        if tag in ("script", "style", "noscript"):
            self.skip = max(0, self.skip - 1)
        if tag in BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)

    def text(self):
        lines = (" ".join(line.split()) for line in "".join(self.parts).split("\n"))
        return "\n".join(line for line in lines if line)


def parse(markup):
    parser = Text()
    parser.feed(markup)
    parser.close()
    return parser


def words(text):
    return re.findall(r"\w+", text.lower())


def word_f1(predicted, gold):
    """WCXB's word F1 over bags of tokens; an empty prediction of an empty gold scores 1."""
    p, g = words(predicted), words(gold)
    if not g:
        return 1.0 if not p else 0.0
    if not p:
        return 0.0
    bag = {}
    for w in g:
        bag[w] = bag.get(w, 0) + 1
    common = 0
    for w in p:
        if bag.get(w, 0) > 0:
            bag[w] -= 1
            common += 1
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def fetch(cache):
    crate = cache / f"{CRATE}-{VERSION}.crate"
    if not crate.exists():
        cache.mkdir(parents=True, exist_ok=True)
        print(f"eval-unseen: fetching {URL}", file=sys.stderr)
        with urllib.request.urlopen(URL, timeout=120) as response:
            data = response.read()
        crate.with_suffix(".part").write_bytes(data)
        crate.with_suffix(".part").rename(crate)
    digest = hashlib.sha256(crate.read_bytes()).hexdigest()
    if digest != SHA256:
        sys.exit(f"eval-unseen: {crate} has SHA-256 {digest}, expected {SHA256}; delete it and rerun")
    return crate


def build_dataset(crate, out):
    """A Scrapinghub-shaped folder (html/ID.html.gz + ground-truth.json) that `goce-warc-train eval` reads."""
    pages = {}
    with tarfile.open(crate) as tar:
        for member in tar.getmembers():
            parts = pathlib.PurePosixPath(member.name).parts
            if len(parts) == 5 and parts[1:3] == ("tests", "test-pages") and member.isfile():
                pages.setdefault(parts[3], {})[parts[4]] = tar.extractfile(member).read()
    (out / "html").mkdir(parents=True, exist_ok=True)
    gold, sources = {}, {}
    for name, files in sorted(pages.items()):
        source, expected = files.get("source.html"), files.get("expected.html")
        if source is None or expected is None or len(source) < MIN_SOURCE_BYTES:
            continue
        source_text = source.decode("utf-8", errors="replace")
        url = parse(source_text).url or f"http://fakehost/test/{name}.html"
        if any(page["url"] == url for page in gold.values()):
            url = f"{url}#{name}"  # two saves of one page: distinct rows in the WARC
        (out / "html" / f"{name}.html.gz").write_bytes(gzip.compress(source, mtime=0))
        gold[name] = {"url": url, "articleBody": parse(expected.decode("utf-8", errors="replace")).text()}
        sources[name] = source_text
    (out / "ground-truth.json").write_text(json.dumps(gold, ensure_ascii=False, indent=1) + "\n")
    return gold, sources


def peers(gold, sources, rs_trafilatura_bin):
    """Each peer's text for every page, and its CPU seconds over all pages."""
    import trafilatura
    from resiliparse.extract.html2text import extract_plain_text

    tools = {
        "trafilatura": lambda html, url: trafilatura.extract(html, url=url) or "",
        "resiliparse": lambda html, url: extract_plain_text(html, main_content=True),
    }
    if rs_trafilatura_bin:
        tools["rs-trafilatura"] = rs_trafilatura(rs_trafilatura_bin, decode=lambda html: html)
    texts, seconds = {}, {}
    for tool, run in tools.items():
        started = cpu_seconds()
        texts[tool] = {}
        for name, html in sources.items():
            try:
                texts[tool][name] = run(html, gold[name]["url"])
            except Exception as error:  # a peer's failure on one page scores 0, as ours would
                print(f"eval-unseen: {tool} failed on {name}: {error}", file=sys.stderr)
                texts[tool][name] = ""
        seconds[tool] = cpu_seconds() - started
    return texts, seconds


def ours(binary, dataset, report_path):
    command = [binary, "eval", "--dataset", str(dataset), "--json", str(report_path)]
    for extractor in OURS:
        command += ["--extractor", extractor]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    report = json.loads(report_path.read_text())
    scores = {extractor: {} for extractor in OURS}
    for page in report["pages"]:
        scores[page["extractor"]][page["id"]] = page["word"]["f1"]
    return scores


def through_process(binary, shared, dataset, gold, work):
    """The default `process` on a Common Crawl-style WARC of the pages, as a new user runs it:
    its text by page id (a page missing from the output scores 0), and the rows it wrote."""
    rows, _, _ = process_warc(binary, shared, dataset, work, ["text"])
    by_url = {url: r["text"] or "" for url, r in rows.items()}
    return {name: by_url.get(page["url"], "") for name, page in gold.items()}, len(by_url)


def summary(scores):
    values = list(scores.values())
    return {
        "pages": len(values),
        "word_f1": statistics.fmean(values),
        "median": statistics.median(values),
        "under_0.3": sum(v < 0.3 for v in values),
        "under_0.5": sum(v < 0.5 for v in values),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default="target/release/goce-warc")
    parser.add_argument("--train-bin", default="target/release/goce-warc-train", help="the binary whose `eval` scores every extractor")
    parser.add_argument("--cache", default="target/unseen", type=pathlib.Path)
    parser.add_argument("--rs-trafilatura", metavar="BIN", help="rs-trafilatura's extract_stdin (scripts/peers/build_rs_trafilatura.sh)")
    parser.add_argument("--shared", default="../shared", type=pathlib.Path, help="where tools/make_warc.py is, for the `process` run")
    parser.add_argument("--json", default="target/eval/unseen.json", type=pathlib.Path)
    parser.add_argument("--require", action="append", default=[], metavar="A>=B-MARGIN|A>=F1",
                        help="fail unless tool A's mean word F1 reaches tool B's less MARGIN (combined>=goce-0.01), or F1 (combined>=0.9)")
    args = parser.parse_args()

    crate = fetch(args.cache)
    dataset = args.cache / "readability"
    gold, sources = build_dataset(crate, dataset)
    print(f"eval-unseen: {len(gold)} pages of Readability's test suite ({CRATE} {VERSION})", file=sys.stderr)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    scores = ours(args.train_bin, dataset, args.json.with_name(args.json.stem + "-goce-warc.json"))
    # The same default through `process` on a WARC, as a user runs it: one row per page.
    processed, rows = through_process(args.bin, args.shared, dataset, gold, args.cache)
    scores["process"] = {name: word_f1(text, gold[name]["articleBody"]) for name, text in processed.items()}

    texts, seconds = peers(gold, sources, args.rs_trafilatura)
    for tool, by_page in texts.items():
        scores[tool] = {name: word_f1(text, gold[name]["articleBody"]) for name, text in by_page.items()}

    table = {tool: summary(by_page) for tool, by_page in scores.items()}
    print(f"{'tool':<14} {'pages':>5} {'word F1':>8} {'median':>7} {'<0.3':>5} {'<0.5':>5}")
    for tool, row in table.items():
        print(f"{tool:<14} {row['pages']:>5} {row['word_f1']:>8.3f} {row['median']:>7.3f} {row['under_0.3']:>5} {row['under_0.5']:>5}")
    for tool, s in seconds.items():
        how = "one process per page" if tool == "rs-trafilatura" else "in this Python process"
        print(f"{tool}: {len(gold) / s:.1f} pages per CPU-second ({how})")
    args.json.write_text(json.dumps({"source": URL, "sha256": SHA256, "summary": table, "pages": scores}, indent=1) + "\n")

    failed = rows != len(gold)
    print(f"{'ok' if not failed else 'FAILED'}: process wrote {rows} rows for {len(gold)} pages")
    for rule in args.require:
        relative = re.fullmatch(r"([\w-]+)>=([a-z][\w-]*)-([0-9.]+)", rule)
        absolute = re.fullmatch(r"([\w-]+)>=([0-9.]+)", rule)
        if relative and relative[1] in table and relative[2] in table:
            a, b, margin = relative[1], relative[2], float(relative[3])
            floor, what = table[b]["word_f1"] - margin, f"{b} {table[b]['word_f1']:.3f} - {margin}"
        elif absolute and absolute[1] in table:
            a, floor = absolute[1], float(absolute[2])
            what = f"{floor}"
        else:
            sys.exit(f"eval-unseen: --require {rule}: expected TOOL>=TOOL-MARGIN or TOOL>=F1 over {sorted(table)}")
        ok = table[a]["word_f1"] >= floor
        print(f"{'ok' if ok else 'FAILED'}: {a} {table[a]['word_f1']:.3f} >= {what}")
        failed |= not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
