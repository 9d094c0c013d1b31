#!/usr/bin/env python3
"""Detected language against the language pages declare, on real pages.

Reads the rows `make eval-warcs` wrote (the WCXB-dev + Scrapinghub WARC and the
genuine Common Crawl / archive WARCs in ../shared/data/warc), and processes a WARC
of CleanEval's pages (English and Chinese, built with ../shared/tools/make_warc.py).
Every row whose page declares a language (`<html lang>`, else Content-Language)
counts: the share whose detected `language` agrees, per declared language, with the
most frequent confusions. Rows whose text is too short to tell (null `language`) are
counted apart. The report goes to target/eval/languages.json.

Declared languages are not the truth either (templates say `en` on pages in other
languages), so agreement is a lower bound on accuracy.
"""

import argparse
import collections
import json
import os
import subprocess
import sys

import pyarrow.parquet as pq

SOURCES = {
    "wcxb-dev + scrapinghub": "target/eval/warcs/dev",
    "genuine WARCs (../shared/data/warc)": "target/eval/warcs/files",
    "cleaneval": "target/eval/languages/cleaneval",
}


def rows_under(folder):
    """Rows of every output folder at or under `folder` (one per processed input)."""
    rows = []
    for root, _dirs, files in os.walk(folder):
        if any(f.endswith(".parquet") and not f.startswith(("_", ".")) for f in files):
            rows.extend(pq.read_table(root, columns=["url", "language", "language_confidence", "declared_language", "text_words"]).to_pylist())
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="target/release/goce-warc")
    parser.add_argument("--shared", default="../shared")
    parser.add_argument("--report", default="target/eval/languages.json")
    parser.add_argument("--min-agreement", type=float, default=0.0, help="fail below this overall agreement")
    args = parser.parse_args()

    cleaneval_warc = "target/data/cleaneval.warc.gz"
    if not os.path.exists(cleaneval_warc):
        os.makedirs(os.path.dirname(cleaneval_warc), exist_ok=True)
        inputs = [os.path.join(args.shared, "data", "cleaneval", part, "input") for part in ("dev", "final")]
        subprocess.run([sys.executable, os.path.join(args.shared, "tools", "make_warc.py"), *inputs, "-o", cleaneval_warc], check=True)
    out = SOURCES["cleaneval"]
    subprocess.run([args.binary, "process", cleaneval_warc, "--out", out, "--quiet", "--overwrite"], check=True)

    report = {"sources": {}}
    all_pairs = []
    for name, folder in SOURCES.items():
        rows = rows_under(folder)
        if not rows:
            sys.exit(f"no rows under {folder}: run `make eval-warcs` first")
        declared = [r for r in rows if r["declared_language"]]
        undecided = [r for r in declared if not r["language"]]
        pairs = [(r["declared_language"], r["language"]) for r in declared if r["language"]]
        all_pairs.extend(pairs)
        agree = sum(d == g for d, g in pairs)
        report["sources"][name] = {
            "rows": len(rows),
            "declaring": len(declared),
            "too_short": len(undecided),
            "agreement": round(agree / len(pairs), 4) if pairs else None,
            "detected": dict(collections.Counter(r["language"] or "null" for r in rows).most_common()),
        }

    by_declared = collections.defaultdict(collections.Counter)
    for d, g in all_pairs:
        by_declared[d][g] += 1
    table = []
    for lang, detected in sorted(by_declared.items(), key=lambda kv: -sum(kv[1].values())):
        n = sum(detected.values())
        confusions = [(g, c) for g, c in detected.most_common() if g != lang][:3]
        table.append({"declared": lang, "pages": n, "agreement": round(detected[lang] / n, 4), "confused_with": confusions})
    agree = sum(d == g for d, g in all_pairs)
    overall = agree / len(all_pairs) if all_pairs else 0.0
    report["overall"] = {"pages": len(all_pairs), "agreement": round(overall, 4)}
    report["by_declared_language"] = table

    print("detected language against the declared one (pages that declare one and have enough text):")
    for name, s in report["sources"].items():
        print(f"  {name:<38} {s['declaring']:>5} of {s['rows']:>5} rows declare; {s['too_short']} too short to tell; agreement {s['agreement']}")
    print(f"  {'declared':<8} {'pages':>6} {'agree':>7}  confused with")
    for t in table:
        confused = ", ".join(f"{g} {c}" for g, c in t["confused_with"])
        print(f"  {t['declared']:<8} {t['pages']:>6} {t['agreement']:>7.1%}  {confused}")
    print(f"overall: {agree} of {len(all_pairs)} agree ({overall:.1%})")
    os.makedirs(os.path.dirname(args.report), exist_ok=True)
    with open(args.report, "w") as f:
        json.dump(report, f, indent=2)
    if overall < args.min_agreement:
        sys.exit(f"agreement {overall:.3f} below the floor {args.min_agreement}")


if __name__ == "__main__":
    main()
