#!/usr/bin/env python3
"""`make eval-web2text`: checks a freshly trained Web2Text model against floors and says
whether its weights equal the shipped ones (they do on the development machine; another
CPU may round differently, so that is reported, not required).

Usage: check_web2text.py TRAINED_DIR SHIPPED_DIR cleaneval_f1=F wcxb_word_f1=F
"""
import filecmp
import json
import sys
from pathlib import Path


def main() -> int:
    trained, shipped = Path(sys.argv[1]), Path(sys.argv[2])
    floors = dict(arg.split("=", 1) for arg in sys.argv[3:])
    report = json.loads((trained / "web2text-metrics.json").read_text())
    figures = {
        "cleaneval_f1": report["test_structured"]["f1"],
        "wcxb_word_f1": (report.get("wcxb_held_out") or {}).get("word_f1", 0.0),
    }
    failed = False
    for name, floor in floors.items():
        value = figures[name]
        ok = value >= float(floor)
        failed |= not ok
        print(f"web2text {name}: {value:.3f} (floor {float(floor):.2f}) {'ok' if ok else 'BELOW THE FLOOR'}")
    s = report["test_structured"]
    print(f"web2text CleanEval test: accuracy {s['accuracy']:.3f} precision {s['precision']:.3f} recall {s['recall']:.3f} F1 {s['f1']:.3f}")
    same = filecmp.cmp(trained / "web2text.safetensors", shipped / "web2text.safetensors", shallow=False)
    print(f"web2text weights {'equal' if same else 'differ from'} the shipped models/web2text.safetensors")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
