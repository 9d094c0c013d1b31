#!/usr/bin/env python3
"""Snippet gold on trafilatura's own tuning set: ../shared/data/trafi-dev (470 pages, mostly German).

Each page's gold is 1-6 snippets that belong in the main text (`with`) and 1-6 that do not
(`without`). Scored as trafilatura's benchmark scores it (tests/eval_common.py): a snippet is
found when its whitespace-normalised text is a substring of the whitespace-normalised output;
`with` found = TP, missing = FN; `without` found = FP, absent = TN; counts summed over the set,
then precision, recall and F1. The pages are trafilatura's home ground: its figure is a home score.

Tools
- goce-warc: the default `process` (no flags) on a Common Crawl-style WARC of the pages
  (../shared/tools/make_warc.py, the raw bytes), as a new user runs it; rows mapped to pages by
  URL, a page missing from the output scored as empty text. Its `extraction_confidence` is
  averaged per language group.
- trafilatura, with its benchmark settings (include_tables=True, include_comments=False,
  include_formatting=False, default favor settings and fallback), given the raw bytes, as its
  benchmark does (it detects the charset itself).
- resiliparse (main_content=True) and rs-trafilatura (its `extract_stdin`, one process per page,
  the binary from scripts/peers/build_rs_trafilatura.sh) take text, not bytes: the page decoded
  with resiliparse's detector (the meta charset if any, else uchardet; WHATWG names).

Language groups: the primary subtag of the page's declared `<html lang>`, comments left out
(German `de`, English `en`, everything else and pages that declare none: other), as the CV of
`goce-warc-train train-extract` groups them.

    target/peer-venv/bin/python scripts/peers/eval_trafi.py --bin target/release/goce-warc --shared ../shared \\
        [--rs-trafilatura BIN] [--no-peers] [--json target/eval/trafi.json] [--require goce-warc:f1=0.90,german_f1=0.9]
"""
import argparse
import collections
import gzip
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import cpu_seconds, process_warc, rs_trafilatura

GROUPS = ("german", "english", "other")
COMMENT = re.compile(rb"<!--.*?-->", re.S)
HTML_LANG = re.compile(rb"<html\b[^>]*?\b(?:xml:)?lang\s*=\s*[\"']?\s*([A-Za-z]{1,8})", re.I)
# --require names our default by its extractor too.
ALIASES = {"combined": "goce-warc", "ours": "goce-warc"}


def norm(text):
    return " ".join(text.split())


def declared_language(html):
    # Outside comments: IE's conditional comments hold `<html lang>` tags that no browser
    # after IE 9 reads (`<!--[if IE 8]><html lang="en"><![endif]-->` before the real one).
    m = HTML_LANG.search(COMMENT.sub(b"", html))
    return m.group(1).decode("ascii").lower() if m else "none"


def group_of(lang):
    return {"de": "german", "en": "english"}.get(lang, "other")


def count(snippets_with, snippets_without, output):
    """(tp, fn, fp, tn) of one page, as trafilatura's benchmark counts them."""
    out = norm(output or "")
    tp = sum(norm(s) in out for s in snippets_with)
    fp = sum(norm(s) in out for s in snippets_without)
    return tp, len(snippets_with) - tp, fp, len(snippets_without) - fp


def scores(c):
    tp, fn, fp = c["tp"], c["fn"], c["fp"]
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return round(precision, 4), round(recall, 4), round(f1, 4)


def load_pages(shared):
    """(id, url, html bytes, with, without, declared language) for every trafi-dev page."""
    folder = shared / "data" / "trafi-dev"
    pages = []
    for path in sorted((folder / "ground-truth").glob("*.json")):
        html_path = folder / "html" / f"{path.stem}.html.gz"
        if not html_path.exists():
            continue
        gt = json.loads(path.read_text())
        gold = gt.get("ground_truth") or {}
        html = gzip.decompress(html_path.read_bytes())
        url = gt.get("url") or f"http://example.invalid/{path.stem}"
        pages.append({"id": path.stem, "url": url, "file": gt.get("file"), "html": html,
                      "with": gold.get("with") or [], "without": gold.get("without") or [],
                      "lang": declared_language(html)})
    return folder, pages


def ours(binary, shared, folder, work):
    """The default `process` on a WARC of the pages: {url: (text, confidence, language)}, the
    rows it wrote, and the wall and CPU seconds of the `process` run alone."""
    rows, wall, cpu = process_warc(binary, shared, folder, work, ["text", "extraction_confidence", "language"])
    by_url = {url: (r["text"] or "", r["extraction_confidence"], r["language"]) for url, r in rows.items()}
    return by_url, len(rows), wall, cpu


def decode(html):
    from resiliparse.parse.encoding import bytes_to_str, detect_encoding

    return bytes_to_str(html, detect_encoding(html, from_html_meta=True))


def peers(pages, rs_binary):
    """Each peer's text by page id, with the wall and CPU seconds of its run over all pages."""
    tools = {}
    try:
        import trafilatura

        tools["trafilatura"] = lambda html, url: trafilatura.extract(
            html, include_comments=False, include_tables=True, include_formatting=False
        ) or ""
    except ImportError:
        print("eval-trafi: trafilatura not installed, left out", file=sys.stderr)
    try:
        from resiliparse.extract.html2text import extract_plain_text

        tools["resiliparse"] = lambda html, url: extract_plain_text(decode(html), main_content=True) or ""
    except ImportError:
        print("eval-trafi: resiliparse not installed, left out", file=sys.stderr)
    if rs_binary:
        tools["rs-trafilatura"] = rs_trafilatura(rs_binary, decode)
    texts, times, failures = {}, {}, {}
    for tool, run in tools.items():
        wall, cpu = time.perf_counter(), cpu_seconds()
        texts[tool], failures[tool] = {}, []
        for page in pages:
            try:
                texts[tool][page["id"]] = run(page["html"], page["url"])
            except Exception as error:  # a peer's failure on one page scores as empty text, as ours would
                message = str(error).strip().splitlines()[-1][:200] if str(error).strip() else type(error).__name__
                if isinstance(error, subprocess.CalledProcessError) and error.stderr:
                    message += ": " + error.stderr.decode("utf-8", "replace").strip()[-200:]
                print(f"eval-trafi: {tool} failed on {page['id']}: {message}", file=sys.stderr)
                failures[tool].append(page["id"])
                texts[tool][page["id"]] = ""
        times[tool] = (time.perf_counter() - wall, cpu_seconds() - cpu)
        print(f"eval-trafi: {tool}: {times[tool][0]:.1f} s wall, {times[tool][1]:.1f} CPU s", file=sys.stderr)
    return texts, times, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default="target/release/goce-warc")
    parser.add_argument("--shared", default="../shared", type=Path)
    parser.add_argument("--rs-trafilatura", metavar="BIN", help="rs-trafilatura's extract_stdin (scripts/peers/build_rs_trafilatura.sh)")
    parser.add_argument("--no-peers", action="store_true", help="score goce-warc alone")
    parser.add_argument("--json", type=Path, help="the full report: summary, confidence, timings and per-page counts")
    parser.add_argument("--require", action="append", default=[], metavar="TOOL:METRIC=MIN,...",
                        help="fail unless TOOL's METRIC (precision, recall, f1, german_f1, english_f1, other_f1, ...) reaches MIN; "
                             "TOOL goce-warc (or combined), trafilatura, resiliparse, rs-trafilatura")
    args = parser.parse_args()

    started = time.perf_counter()
    folder, pages = load_pages(args.shared)
    if not pages:
        sys.exit(f"eval-trafi: no pages under {folder}")
    print(f"eval-trafi: {len(pages)} pages of {folder}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        by_url, rows, wall, cpu = ours(args.bin, args.shared, folder, Path(tmp))
    texts = {"goce-warc": {}}
    times = {"goce-warc": (wall, cpu)}
    failures = {}
    confidence, detected, missing = {}, {}, []
    for page in pages:
        text, conf, lang = by_url.get(page["url"], ("", None, None))
        if page["url"] not in by_url:
            missing.append(page["id"])
        texts["goce-warc"][page["id"]] = text
        confidence[page["id"]], detected[page["id"]] = conf, lang
    if missing:
        print(f"eval-trafi: goce-warc wrote no row for {len(missing)} pages: {' '.join(missing)}", file=sys.stderr)
    if not args.no_peers:
        peer_texts, peer_times, failures = peers(pages, args.rs_trafilatura)
        texts.update(peer_texts)
        times.update(peer_times)

    counts = {tool: collections.defaultdict(collections.Counter) for tool in texts}
    per_page = []
    for page in pages:
        group = group_of(page["lang"])
        entry = {"id": page["id"], "url": page["url"], "file": page["file"], "lang": page["lang"], "group": group,
                 "goce_confidence": confidence[page["id"]], "goce_language": detected[page["id"]], "tools": {}}
        for tool, by_page in texts.items():
            tp, fn, fp, tn = count(page["with"], page["without"], by_page[page["id"]])
            c = {"tp": tp, "fn": fn, "fp": fp, "tn": tn}
            entry["tools"][tool] = c
            for key in ("all", group):
                counts[tool][key].update(c)
        per_page.append(entry)

    group_pages = collections.Counter(group_of(p["lang"]) for p in pages)
    summary = {}
    for tool, by_group in counts.items():
        s = {}
        for key in ("all",) + GROUPS:
            c = by_group[key]
            p, r, f = scores(c)
            prefix = "" if key == "all" else key + "_"
            s[prefix + "precision"], s[prefix + "recall"], s[prefix + "f1"] = p, r, f
            s[prefix + "counts"] = {k: c[k] for k in ("tp", "fn", "fp", "tn")}
        s["wall_s"], s["cpu_s"] = round(times[tool][0], 2), round(times[tool][1], 2)
        summary[tool] = s
    conf_by_group = {}
    for key in ("all",) + GROUPS:
        values = [confidence[p["id"]] for p in pages if (key == "all" or group_of(p["lang"]) == key)]
        present = [v for v in values if v is not None]
        conf_by_group[key] = {"pages": len(values), "with_confidence": len(present),
                              "mean": round(sum(present) / len(present), 4) if present else None}

    print(f"\ntrafi-dev: {len(pages)} pages ({', '.join(f'{g} {group_pages[g]}' for g in GROUPS)}); "
          f"declared languages: {', '.join(f'{k} {n}' for k, n in collections.Counter(p['lang'] for p in pages).most_common())}")
    print(f"goce-warc process wrote {rows} rows for {len(pages)} pages; {len(missing)} pages missing (scored as empty)")
    print("| tool | precision | recall | F1 | German F1 | English F1 | other F1 | wall s | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for tool, s in summary.items():
        print(f"| {tool} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} | {s['german_f1']:.3f} | "
              f"{s['english_f1']:.3f} | {s['other_f1']:.3f} | {s['wall_s']:.1f} | {s['cpu_s']:.1f} |")
    print("\ngoce-warc's times are the `process` run alone (all cores, its own WARC reading included); the peers' are "
          "this Python process's, rs-trafilatura one process per page.")
    print("goce-warc mean extraction_confidence: " + ", ".join(
        f"{key} {c['mean']:.3f} ({c['with_confidence']}/{c['pages']} pages)" if c["mean"] is not None else f"{key} none ({c['pages']} pages)"
        for key, c in conf_by_group.items()))
    for tool, failed in failures.items():
        if failed:
            print(f"{tool} failed on {len(failed)} pages (scored as empty): {' '.join(failed)}")
    elapsed = time.perf_counter() - started
    print(f"eval-trafi: {elapsed:.0f} s in all", file=sys.stderr)

    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        report = {"dataset": str(folder), "pages": len(pages), "group_pages": dict(group_pages), "summary": summary,
                  "goce_confidence": conf_by_group, "goce_rows": rows, "goce_missing": missing,
                  "peer_failures": failures, "seconds": round(elapsed, 1), "per_page": per_page}
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")

    failed = False
    for spec in args.require:
        tool, floors = spec.split(":", 1)
        tool = ALIASES.get(tool, tool)
        if tool not in summary:
            sys.exit(f"eval-trafi: --require {spec}: no tool {tool!r} in {sorted(summary)}")
        for floor in floors.split(","):
            metric, value = floor.split("=")
            got = summary[tool].get(metric)
            if not isinstance(got, float):
                sys.exit(f"eval-trafi: --require {spec}: no metric {metric!r}")
            ok = got >= float(value)
            print(f"{'floor ok' if ok else 'FLOOR MISSED'}: {tool} {metric} {got} >= {value}")
            failed |= not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
