#!/usr/bin/env python3
"""`make eval-new-sites`: the default classifier on sites it never trained on, as `process`
sees them (CC-style WARC files, URLs from the WARC records): the 140 product pages of
../shared/data/zyte-products (62 sites; every page a product page, genre article) and the 181
Scrapinghub news pages (every page an article). Prints type and genre accuracy and what the
misses were called; exits 1 under the floors given as DATASET:type=A or DATASET:genre=A.

Usage: eval_new_sites.py --binary BIN --shared DIR --work DIR [FLOOR...]
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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--shared", required=True)
    parser.add_argument("--work", required=True)
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
    report = {}
    for name, (page_type, genre) in SETS.items():
        rows = [r for f in sorted(glob.glob(str(out / f"{name}.part-*.parquet"))) for r in pq.read_table(f, columns=["page_type", "genre"]).to_pylist()]
        types = collections.Counter(r["page_type"] for r in rows)
        report[name] = {
            "pages": len(rows),
            "type": types[page_type] / max(len(rows), 1),
            "genre": sum(r["genre"] == genre for r in rows) / max(len(rows), 1),
            "called": dict(types.most_common()),
        }
        r = report[name]
        print(f"{name}: {r['pages']} pages, all {page_type} ({genre}): type {r['type']:.1%}, genre {r['genre']:.1%}; called {r['called']}")
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
