#!/usr/bin/env python3
"""`make eval-new-sites`: the default classifier on sites it never trained on, as `process`
sees them (CC-style WARC files, URLs from the WARC records): the 140 product pages of
../shared/data/zyte-products (62 sites; every page a product page, genre article) and the 181
Scrapinghub news pages (every page an article). Prints type and genre accuracy and what the
misses were called; exits 1 under the floors given as DATASET:type=A or DATASET:genre=A.

When the shipped classifier was trained on a set too (`goce-warc-train train --add`), only that
set's test domains, which `models/metrics.json` lists under `added_test_domains`, are sites it
never saw: the floors apply to those pages, and the whole set is printed beside them.

Usage: eval_new_sites.py --binary BIN --shared DIR --work DIR [--models DIR] [FLOOR...]
"""
import argparse
import collections
import glob
import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

# Every page of a set is of one type; both types are of the article genre.
SETS = {"zyte-products": ("product", "article"), "scrapinghub": ("article", "article")}


def domain_of(url: str) -> str:
    """The page's domain as `goce-warc-train train` splits by it: the host without `www.`."""
    rest = url.split("://", 1)[1] if "://" in url else url
    for sep in "/?#":
        rest = rest.split(sep, 1)[0]
    host = rest.rsplit("@", 1)[-1].split(":", 1)[0]
    return host[4:] if host.startswith("www.") else host


def accuracy(rows, page_type, genre):
    types = collections.Counter(r["page_type"] for r in rows)
    return {
        "pages": len(rows),
        "type": types[page_type] / max(len(rows), 1),
        "genre": sum(r["genre"] == genre for r in rows) / max(len(rows), 1),
        "called": dict(types.most_common()),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--shared", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--models", default="models", help="the classifier's folder, whose metrics.json says which sets it trained on")
    parser.add_argument("floors", nargs="*")
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    make_warc = Path(args.shared) / "tools" / "make_warc.py"
    warcs = []
    for name in SETS:
        warc = work / f"{name}.warc.gz"
        if not warc.exists():
            subprocess.run([sys.executable, str(make_warc), str(Path(args.shared) / "data" / name), "-o", str(warc)], check=True, stdout=subprocess.DEVNULL)
        warcs.append(str(warc))
    out = work / "out"
    subprocess.run([args.binary, "process", *warcs, "--out", str(out), "--overwrite", "--quiet"], check=True)
    trained_on = json.loads((Path(args.models) / "metrics.json").read_text()).get("added_test_domains", {})
    report = {}
    for name, (page_type, genre) in SETS.items():
        rows = [r for f in sorted(glob.glob(str(out / f"{name}.part-*.parquet"))) for r in pq.read_table(f, columns=["url", "page_type", "genre"]).to_pylist()]
        whole = accuracy(rows, page_type, genre)
        if name in trained_on:
            unseen = set(trained_on[name])
            r = accuracy([row for row in rows if domain_of(row["url"]) in unseen], page_type, genre)
            r["whole_set_with_training_domains"] = whole
            scope = f"its {len(unseen)} test domains (the classifier trained on the rest)"
        else:
            r = whole
            scope = "every page (the classifier never saw the set)"
        report[name] = r
        print(f"{name}, {scope}: {r['pages']} pages, all {page_type} ({genre}): type {r['type']:.1%}, genre {r['genre']:.1%}; called {r['called']}")
        if name in trained_on:
            print(f"  the whole set, training domains included: {whole['pages']} pages, type {whole['type']:.1%}, genre {whole['genre']:.1%}")
    (work / "new-sites.json").write_text(json.dumps(report, indent=1) + "\n")
    failed = False
    for floor in args.floors:
        where, value = floor.split("=", 1)
        name, what = where.split(":", 1)
        got = report[name][what]
        ok = got >= float(value)
        failed |= not ok
        print(f"{name} {what} accuracy {got:.1%} (floor {float(value):.0%}) {'ok' if ok else 'BELOW THE FLOOR'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
