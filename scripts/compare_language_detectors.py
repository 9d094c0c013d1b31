#!/usr/bin/env python3
"""whatlang (goce-warc's detector) against lingua, on the same texts, side by side.

The texts are the extracted text of the rows `make eval-languages` read (pages that
declare a language and have enough text); each detector reads the first 4,096 bytes of
each, as goce-warc does. Agreement with the declared language and texts per second on
one core are printed for whatlang (through examples/language_timing.rs) and for lingua
(lingua-language-detector, the Python binding of the Rust crate, in its high- and
low-accuracy modes). Run: make compare-language-detectors.
"""

import json
import os
import subprocess
import sys
import time

import pyarrow.parquet as pq
from lingua import LanguageDetectorBuilder

FOLDERS = ["target/eval/warcs/dev", "target/eval/warcs/files", "target/eval/languages/cleaneval"]
SAMPLE_BYTES = 4096


def sample(text):
    return text.encode("utf-8")[:SAMPLE_BYTES].decode("utf-8", "ignore")


def main():
    rows = []
    for folder in FOLDERS:
        for root, _dirs, files in os.walk(folder):
            if any(f.endswith(".parquet") and not f.startswith(("_", ".")) for f in files):
                rows.extend(pq.read_table(root, columns=["declared_language", "language", "text"]).to_pylist())
    rows = [r for r in rows if r["declared_language"] and r["language"]]
    if not rows:
        sys.exit("no rows: run make eval-languages first")
    texts_path = "target/eval/language-texts.jsonl"
    with open(texts_path, "w") as f:
        for r in rows:
            f.write(json.dumps({"text": r["text"]}) + "\n")
    run = subprocess.run(["cargo", "run", "--quiet", "--release", "--locked", "--example", "language_timing"],
                         stdin=open(texts_path), capture_output=True, text=True, check=True)
    whatlang = run.stdout.splitlines()
    print(run.stderr.strip())
    results = {"whatlang": whatlang}
    for mode in ("high", "low"):
        builder = LanguageDetectorBuilder.from_all_languages()
        if mode == "low":
            builder = builder.with_low_accuracy_mode()
        detector = builder.build()
        detector.detect_language_of("warm up")
        started = time.perf_counter()
        found = []
        for r in rows:
            lang = detector.detect_language_of(sample(r["text"]))
            found.append(lang.iso_code_639_1.name.lower() if lang else "")
        seconds = time.perf_counter() - started
        print(f"lingua ({mode} accuracy): {len(rows)} texts in {seconds:.3f} s, {len(rows) / seconds:.0f} texts/s on one core")
        results[f"lingua-{mode}"] = found
    print(f"agreement with the declared language on {len(rows)} pages:")
    for name, found in results.items():
        agree = sum(r["declared_language"] == g for r, g in zip(rows, found))
        print(f"  {name:<14} {agree / len(rows):.1%}")


if __name__ == "__main__":
    main()
