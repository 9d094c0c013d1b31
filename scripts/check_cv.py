#!/usr/bin/env python3
"""`make eval-cv`: checks the combiner's domain-grouped cross-validation report (written by
`goce-warc-train train-extract --cv-only --json`) against floors, `combined` beside `goce` on the
same folds.

Usage: check_cv.py REPORT FLOOR...
  FLOOR: DATASET/SUBSET:f1=F      combined's mean word F1 is at least F
         DATASET/SUBSET:gain=G    combined's word F1 minus goce's is at least G
         DATASET/SUBSET:under=N   combined has at most N pages with gold text under word F1 0.3
         DATASET/SUBSET:f1-no-page-types=F
                                  the combiner with the page types missing (`--classifier none`)
                                  has mean word F1 at least F
         DATASET/all:confidence-spearman=R
                                  the out-of-fold extraction_confidence has Spearman's rank
                                  correlation at least R with the real word F1
         DATASET/all:confidence-auc=A
                                  and finds the pages under word F1 0.5 with ROC AUC at least A
         trafi/GROUP:snippet-f1=F the snippet-gold pages of the language GROUP (all, german,
                                  english, other) have snippet F1 at least F
  SUBSET as in the report with '_' for a space (list-view_genre); '*' is every page type.
"""
import json
import sys

NOT_PAGE_TYPES = {"all", "article genre", "list-view genre", "ResNet test domains"}


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    report = json.load(open(sys.argv[1]))
    means = report["means"]
    failed = False
    for floor in sys.argv[2:]:
        where, rule = floor.split(":", 1)
        metric, value = rule.split("=", 1)
        dataset, subset = where.split("/", 1)
        if metric.startswith("confidence-"):
            confidence = report.get("confidence", {}).get(dataset)
            if confidence is None or subset != "all":
                print(f"{floor}: no confidence report for {dataset}/{subset}", file=sys.stderr)
                return 2
            key = {"confidence-spearman": "spearman", "confidence-auc": "auc_under_0_5"}.get(metric)
            if key is None:
                print(f"unknown metric {metric!r} in {floor}", file=sys.stderr)
                return 2
            got = confidence[key]
            ok = got >= float(value)
            print(f"CV {dataset} extraction_confidence {key}: {got:.3f} (floor {value}; {confidence['pages']} pages) {'ok' if ok else 'BELOW THE FLOOR'}")
            failed |= not ok
            continue
        if metric == "snippet-f1":
            group = report.get("snippets", {}).get(subset, {})
            if "combined" not in group:
                print(f"{floor}: no snippet report for {subset}", file=sys.stderr)
                return 2
            got, ok = group["combined"]["f1"], group["combined"]["f1"] >= float(value)
            print(f"CV {dataset}/{subset} snippet F1: {got:.3f} (floor {value}; {group['combined']['pages']} pages, "
                  f"precision {group['combined']['precision']:.3f}, recall {group['combined']['recall']:.3f}) {'ok' if ok else 'BELOW THE FLOOR'}")
            failed |= not ok
            continue
        subsets = means[dataset]
        names = sorted(s for s in subsets if s not in NOT_PAGE_TYPES) if subset == "*" else [subset.replace("_", " ")]
        for name in names:
            if name not in subsets:
                print(f"{dataset}/{name}: not in the report", file=sys.stderr)
                return 2
            combined, goce = subsets[name]["combined"], subsets[name]["goce"]
            if metric == "f1":
                got, ok = combined["word_f1"], combined["word_f1"] >= float(value)
            elif metric == "gain":
                got = combined["word_f1"] - goce["word_f1"]
                ok = got >= float(value)
            elif metric == "f1-no-page-types":
                without = subsets[name]["combined, no page types"]["word_f1"]
                got, ok = without, without >= float(value)
            elif metric == "under":
                got, ok = combined["under_0_3"], combined["under_0_3"] <= int(value)
            else:
                print(f"unknown metric {metric!r} in {floor}", file=sys.stderr)
                return 2
            shown = f"{got:.3f}" if isinstance(got, float) else str(got)
            print(f"CV {dataset}/{name} {metric}: {shown} (floor {value}; combined {combined['word_f1']:.3f} / {combined['under_0_3']} under 0.3, "
                  f"goce {goce['word_f1']:.3f} / {goce['under_0_3']}) {'ok' if ok else 'BELOW THE FLOOR'}")
            failed |= not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
