#!/usr/bin/env python3
"""Contact sheet: 16 WCXB-dev pages (8 of the article genre, 8 list-view), each drawn by the
lite renderer and by Chromium, side by side.

Pages are chosen without looking at them: from the held-out fifth (every fifth page by id),
the first pages of each page type in id order (article genre: 2 each of article, product,
documentation, service; list-view: 3 forum, 3 listing, 2 collection).

usage: contact_sheet.py DATASET_DIR BINARY OUT.png
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw

QUOTA = [("article", 2), ("product", 2), ("documentation", 2), ("service", 2),
         ("forum", 3), ("listing", 3), ("collection", 2)]
SIZE = 224
GAP = 12
LABEL = 18


def page_type(gold_path: Path) -> str:
    gold = json.loads(gold_path.read_text())
    internal = gold.get("_internal") or {}
    kind = ((internal.get("page_type") or {}).get("primary")) or "article"
    return "collection" if kind == "category" else kind


def choose(dataset: Path):
    htmls = sorted((dataset / "html").glob("*.html.gz"))
    held_out = [p for i, p in enumerate(htmls) if i % 5 == 4]
    chosen = []
    for kind, count in QUOTA:
        matches = [p for p in held_out if page_type(dataset / "ground-truth" / (p.name.split(".")[0] + ".json")) == kind]
        chosen += [(kind, p) for p in matches[:count]]
    return chosen


def main() -> int:
    dataset, binary, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    chosen = choose(dataset)
    with tempfile.TemporaryDirectory() as tmp:
        for renderer in ("lite", "chrome"):
            subprocess.run([binary, "render", "--renderer", renderer, "-o", f"{tmp}/{renderer}", *[str(p) for _, p in chosen]], check=True)
        per_row = 4
        cell_w = 2 * SIZE + GAP // 2
        rows = (len(chosen) + per_row - 1) // per_row
        sheet = Image.new("RGB", (per_row * (cell_w + GAP) + GAP, rows * (SIZE + LABEL + GAP) + GAP + LABEL), "#d8d8d8")
        draw = ImageDraw.Draw(sheet)
        draw.text((GAP, 2), "each pair: lite renderer (left) | Chromium (right); top 1024x1024 CSS px at 224x224", fill="black")
        for i, (kind, path) in enumerate(chosen):
            x = GAP + (i % per_row) * (cell_w + GAP)
            y = LABEL + GAP + (i // per_row) * (SIZE + LABEL + GAP)
            stem = path.name.split(".")[0]
            genre = "list-view" if kind in ("forum", "listing", "collection") else "article"
            draw.text((x, y), f"{stem} {kind} ({genre})", fill="black")
            for j, renderer in enumerate(("lite", "chrome")):
                picture = Image.open(f"{tmp}/{renderer}/{stem}.png").convert("RGB")
                sheet.paste(picture, (x + j * (SIZE + GAP // 2), y + LABEL))
        out.parent.mkdir(parents=True, exist_ok=True)
        sheet.save(out, optimize=True)
    print(f"contact sheet: {len(chosen)} pages -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
