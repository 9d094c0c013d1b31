#!/usr/bin/env python3
"""Data checks for the WARC-to-Parquet foundation (`make eval`).

1. Every file in ../shared/data/warc is processed on its own; the number of HTML pages
   (status 200 unless noted), the skips by reason and a few decoded values are checked
   against what each file is known to hold (../shared/data/README.md, and the files
   themselves), and each output is read back with pyarrow.
2. DuckDB reads all those shards at once and counts the same rows.
3. A Common Crawl-style WARC of the WCXB-dev and Scrapinghub pages (1,678 pages) is
   built with ../shared/tools/make_warc.py and processed; every page must arrive with its
   gold URL and non-empty text.

Writes target/eval/warc-files.json and exits non-zero on any failed check.
"""

import argparse
import collections
import glob
import gzip
import html.parser
import json
import os
import subprocess
import sys
import time

import duckdb
import pyarrow.parquet as pq

# file → (expected pages, extra flags, expected skips, check on rows)
EXPECTED = {
    "resiliparse/warcfile.warc.gz": (16, [], {}, None),
    "resiliparse/clipped.warc.gz": (0, [], {"gzip_truncated": 1}, None),
    "resiliparse/clueweb-quirk.warc.gz": (
        29, [], {},
        lambda rows: all(r["charset"] == "EUC-JP" and r["warc_date"] is None and r["text"] for r in rows),
    ),
    "resiliparse/block-sized-records.warc.gz": (0, [], {}, None),
    "jwarc/cc.warc.gz": (1, [], {}, lambda rows: rows[0]["title"] == "Common Crawl"),
    "iawc/IAH-urls-wget.warc": (2, [], {}, None),
    "iawc/IAH-urls-wget.warc.gz": (11, ["--any-status"], {}, None),
    "iawc/link-extraction-test.warc": (9, [], {}, None),
    "iawc/text-extraction-test.warc": (1, [], {}, None),
    "warcio/example-iana.org-chunked.warc": (
        1, [], {}, lambda rows: rows[0]["title"] == "Internet Assigned Numbers Authority" and "Root Zone" in rows[0]["text"]),
    # The page's paragraph arrived decoded (which blocks the combiner keeps around it, the
    # two-word heading or the "More information..." link, is the model's call).
    "warcio/example.warc": (1, [], {}, lambda rows: "used for illustrative examples in documents" in rows[0]["text"]),
    "warcio/example.warc.gz": (1, [], {}, lambda rows: rows[0]["title"] == "Example Domain"),
    "warcio/example-resource.warc.gz": (0, [], {}, None),
    "warcio/post-test.warc.gz": (0, [], {}, None),
    "whirlwind/whirlwind.warc": (1, [], {}, lambda rows: rows[0]["url"] == "https://an.wikipedia.org/wiki/Escopete"),
    "whirlwind/whirlwind.warc.gz": (1, [], {}, lambda rows: rows[0]["url"] == "https://an.wikipedia.org/wiki/Escopete"),
    "whirlwind/whirlwind.warc.wat": (0, [], {}, None),
    "whirlwind/whirlwind.warc.wat.gz": (0, [], {}, None),
    "whirlwind/whirlwind.warc.wet": (0, [], {}, None),
    "whirlwind/whirlwind.warc.wet.gz": (0, [], {}, None),
}


def run(binary, inputs, out, extra):
    cmd = [binary, "process", *inputs, "--out", out, "--quiet", "--overwrite", *extra]
    done = subprocess.run(cmd, capture_output=True, text=True)
    return done.returncode, done.stderr


def read_rows(out):
    """The output folder read as one dataset, as users read it."""
    return pq.read_table(out).to_pylist()


def read_manifest(path):
    """A manifest: JSON in the key-value metadata of a Parquet file with no rows."""
    return json.loads(pq.read_metadata(path).metadata[b"goce-warc.manifest"])


def check_warc_files(binary, data, work, failures):
    results = {}
    on_disk = sorted(
        os.path.relpath(p, data) for p in glob.glob(os.path.join(data, "**", "*"), recursive=True) if os.path.isfile(p)
    )
    unknown = [f for f in on_disk if f not in EXPECTED]
    if unknown:
        failures.append(f"files without an expectation (add them): {unknown}")
    total_rows = 0
    for name in on_disk:
        if name not in EXPECTED:
            continue
        pages, extra, skips, check = EXPECTED[name]
        out = os.path.join(work, "files", name.replace("/", "__"))
        rc, err = run(binary, [os.path.join(data, name)], out, extra)
        stem = os.path.basename(name)
        for ending in (".gz", ".warc", ".arc"):
            stem = stem[: -len(ending)] if stem.endswith(ending) else stem
        manifest_path = os.path.join(out, "_" + stem + ".manifest.parquet")
        got = {"exit": rc}
        if rc != 0 or not os.path.exists(manifest_path):
            failures.append(f"{name}: exit {rc}, no manifest: {err.strip()}")
            results[name] = got
            continue
        manifest = read_manifest(manifest_path)
        rows = read_rows(out)
        total_rows += len(rows)
        got.update(pages=manifest["counts"]["pages"], rows_read_by_pyarrow=len(rows),
                   skipped=manifest["counts"]["skipped"], records=manifest["counts"]["records"])
        if manifest["counts"]["pages"] != pages or len(rows) != pages:
            failures.append(f"{name}: expected {pages} pages, manifest {manifest['counts']['pages']}, pyarrow {len(rows)}")
        for reason, count in skips.items():
            if manifest["counts"]["skipped"].get(reason) != count:
                failures.append(f"{name}: expected {count} x {reason}, got {manifest['counts']['skipped']}")
        unexpected = set(manifest["counts"]["skipped"]) - set(skips)
        if unexpected:
            failures.append(f"{name}: unexpected skips {unexpected}")
        if check and rows and not check(rows):
            failures.append(f"{name}: decoded values are not as expected")
        results[name] = got
        print(f"  {name:45} pages {got['pages']:3}  skipped {got['skipped'] or '-'}")
    # DuckDB, a second outside reader, over every shard at once.
    pattern = os.path.join(work, "files", "*", "*.parquet")
    count = duckdb.connect().execute(f"select count(*) from read_parquet('{pattern}')").fetchall()[0][0]
    if count != total_rows:
        failures.append(f"DuckDB counts {count} rows, pyarrow {total_rows}")
    print(f"  DuckDB reads {count} rows from all shards (pyarrow: {total_rows})")
    return results


class BodyText(html.parser.HTMLParser):
    """Whether a page's body holds any text outside scripts and styles."""

    def __init__(self):
        super().__init__()
        self.in_body = self.skipping = 0
        self.found = False

    def handle_starttag(self, tag, attrs):
        self.in_body |= tag == "body"
        self.skipping += tag in ("script", "style", "template")

    def handle_endtag(self, tag):
        self.skipping -= self.skipping > 0 and tag in ("script", "style", "template")

    def handle_data(self, data):
        self.found |= bool(self.in_body and not self.skipping and data.strip())


def body_has_text(html_bytes):
    reader = BodyText()
    reader.feed(html_bytes.decode("utf-8", "replace"))
    return reader.found


def gold_urls(shared, empty_gold=None, html_paths=None):
    """The URL of every page make_warc.py writes (its rules: the gold URL, else a made-up one).
    URLs whose gold main text is empty (the page has none) go into `empty_gold` when given, and
    each WCXB page's HTML file into `html_paths` by URL."""
    urls = collections.Counter()
    wcxb = os.path.join(shared, "data", "wcxb-dev")
    for path in sorted(glob.glob(os.path.join(wcxb, "ground-truth", "*.json"))):
        pid = os.path.basename(path)[:-5]
        if os.path.exists(os.path.join(wcxb, "html", pid + ".html.gz")):
            gold = json.load(open(path))
            url = gold.get("url") or f"http://example.invalid/{pid}"
            urls[url] += 1
            if empty_gold is not None and not ((gold.get("ground_truth") or {}).get("main_content") or "").strip():
                empty_gold.add(url)
            if html_paths is not None:
                html_paths[url] = os.path.join(wcxb, "html", pid + ".html.gz")
    scrapinghub = os.path.join(shared, "data", "scrapinghub")
    for pid, entry in json.load(open(os.path.join(scrapinghub, "ground-truth.json"))).items():
        if os.path.exists(os.path.join(scrapinghub, "html", pid + ".html.gz")):
            urls[entry.get("url") or f"http://example.invalid/{pid}"] += 1
    return urls


def check_dev_warc(binary, shared, work, failures):
    warc = os.path.join("target", "data", "dev.warc.gz")
    if not os.path.exists(warc):
        os.makedirs(os.path.dirname(warc), exist_ok=True)
        subprocess.run([sys.executable, os.path.join(shared, "tools", "make_warc.py"),
                        os.path.join(shared, "data", "wcxb-dev"), os.path.join(shared, "data", "scrapinghub"),
                        "-o", warc], check=True)
    out = os.path.join(work, "dev")
    started = time.time()
    rc, err = run(binary, [warc], out, ["--stats", os.path.join(work, "dev-stats.json")])
    seconds = time.time() - started
    if rc != 0:
        failures.append(f"dev WARC: exit {rc}: {err.strip()}")
        return {}
    rows = read_rows(out)
    empty_gold, html_paths = set(), {}
    expected = gold_urls(shared, empty_gold, html_paths)
    got = collections.Counter(r["url"] for r in rows)
    # An empty text is right for a page whose gold text is empty (a script-only shell) or whose
    # stored body holds no text (Discourse threads WCXB kept as their head and description: the
    # gold text is not in the page); only the empty texts' pages are read for it.
    empty = [
        r["url"]
        for r in rows
        if not r["text"].strip()
        and r["url"] not in empty_gold
        and (r["url"] not in html_paths or body_has_text(gzip.decompress(open(html_paths[r["url"]], "rb").read())))
    ]
    missing = expected - got
    extra = got - expected
    if missing or extra:
        failures.append(f"dev WARC: {sum(missing.values())} gold pages missing, {sum(extra.values())} unexpected")
    if empty:
        failures.append(f"dev WARC: {len(empty)} pages with empty text, e.g. {empty[:3]}")
    print(f"  dev WARC: {len(rows)} of {sum(expected.values())} pages arrived, {len(empty)} with empty text, {seconds:.1f}s")
    return {"pages": len(rows), "expected": sum(expected.values()), "empty_text": len(empty), "seconds": round(seconds, 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="target/release/goce-warc")
    parser.add_argument("--shared", default="../shared")
    parser.add_argument("--work", default="target/eval/warcs")
    parser.add_argument("--report", default="target/eval/warc-files.json")
    args = parser.parse_args()
    failures = []
    print("WARC files in ../shared/data/warc:")
    files = check_warc_files(args.binary, os.path.join(args.shared, "data", "warc"), args.work, failures)
    print("WCXB-dev + Scrapinghub WARC:")
    dev = check_dev_warc(args.binary, args.shared, args.work, failures)
    os.makedirs(os.path.dirname(args.report), exist_ok=True)
    with open(args.report, "w") as f:
        json.dump({"files": files, "dev_warc": dev, "failures": failures}, f, indent=2)
    for failure in failures:
        print("FAIL:", failure)
    print(f"eval-warcs: {'FAILED' if failures else 'ok'} ({len(failures)} failures); report in {args.report}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
