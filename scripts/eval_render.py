#!/usr/bin/env python3
"""Renders every page of a WCXB-style dataset with the lite renderer and checks that each one
gives a picture within the bounds: no failure, no bound reached, a 224x224 PNG with some ink.
Writes a summary (counts, bounds hit, timing percentiles) as JSON and exits 1 on any miss."""
import argparse
import json
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--dataset", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args()
    pages = sorted(str(p) for p in (args.dataset / "html").glob("*.html*"))
    if not pages:
        print(f"eval-render: no pages under {args.dataset}/html", file=sys.stderr)
        return 1
    pictures = args.out / "render"
    pictures.mkdir(parents=True, exist_ok=True)
    run = subprocess.run([args.binary, "render", "--json", "--stats", "-o", str(pictures), *pages], capture_output=True, text=True)
    reports = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    problems = []
    if run.returncode != 0:
        problems.append(f"render exited {run.returncode}: {run.stderr.strip()[-2000:]}")
    if len(reports) != len(pages):
        problems.append(f"{len(pages)} pages but {len(reports)} reports")
    limits = Counter(r["limit"] for r in reports if r["limit"])
    if limits:
        problems.append(f"bounds reached: {dict(limits)}")
    for r in reports:
        png = Path(r["picture"]).read_bytes()
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        if png[:8] != b"\x89PNG\r\n\x1a\n" or (width, height) != (224, 224):
            problems.append(f"{r['page']}: not a 224x224 PNG")
    times = sorted(r["layout_ms"] + r["paint_ms"] for r in reports)
    blank = [r["page"] for r in reports if r["ink"] < 0.01]
    summary = {
        "pages": len(pages),
        "rendered": len(reports),
        "bounds_reached": dict(limits),
        "nearly_blank_pages": len(blank),
        "style_layout_paint_ms": {
            "median": statistics.median(times) if times else None,
            "p90": times[int(0.9 * len(times))] if times else None,
            "max": times[-1] if times else None,
        },
        "problems": problems,
    }
    (args.out / "render.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"eval-render: {len(reports)}/{len(pages)} pages rendered, bounds reached {dict(limits) or 'never'}, "
          f"{len(blank)} nearly blank (< 1% ink: the `auto` renderer's Chromium cases), "
          f"median {summary['style_layout_paint_ms']['median']:.2f} ms; {run.stderr.strip().splitlines()[-1] if run.stderr.strip() else ''}")
    for p in problems:
        print(f"eval-render: FAIL {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
