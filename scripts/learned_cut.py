#!/usr/bin/env python3
"""`make cv-cut`: can a model learn how many blocks to keep better than the expected-F1 rule?

Reads what `goce-warc train-extract --cv-only --block-rows B --selector-rows S` wrote: every
page's blocks with the block trees' out-of-fold probabilities, and its page-level inputs. Keeps
the trees' ranking of the blocks (by probability) and asks only where to cut it:

- `expected-F1 rule`: the shipped decision (src/extract/combine/decide.rs), the cut with the
  highest expected word F1 under the probabilities;
- `best cut (a bound)`: the cut with the highest real word F1, known only with the gold text;
- `share model`: a regressor predicting the share of the page's words the best cut keeps;
- `shift model`: one predicting how far the best cut lies from the rule's (logit of the share);
- `cut model, margin M`: one scoring about 35 candidate cuts per page (the rule's, fixed shares
  of the page's words, fixed probabilities) by their word F1 gain over the rule's cut, taking
  the best candidate when its predicted gain exceeds M.

The regressors are scikit-learn's histogram gradient boosting, fitted and scored in the same
domain-grouped folds as the block trees (a page is cut by a model that saw none of its domain).
Word F1 is WCXB's (bags of lower-case \\w+ tokens), computed on the blocks' texts; the
expected-F1 rule's row reproduces train-extract's own figure. Prints word F1 / pages with gold
text under 0.3 per dataset, and for WCXB-dev's list-view genre.
"""
import argparse
import collections
import json
import math
import re

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor

WORD = re.compile(r"\w+")
DATASETS = ["wcxb", "cleaneval", "scrapinghub"]
SHARES = [0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.13, 0.16, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
PROBABILITIES = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]


def logit(x):
    x = min(max(x, 1e-3), 1 - 1e-3)
    return math.log(x / (1 - x))


def sigmoid(z):
    return 1 / (1 + math.exp(-z))


class Page:
    """A page's blocks in the trees' order, and the word F1 of every cut of that order."""

    def __init__(self, row, page_inputs):
        self.dataset, self.fold, self.genre = row["dataset"], row["fold"], row["genre"]
        tokens = [[t.lower() for t in WORD.findall(text)] for text in row["texts"]]
        self.words = np.array([len(t) for t in tokens], float)
        self.probabilities = np.array(row["probabilities"], float)
        gold = collections.Counter(t.lower() for t in WORD.findall(row["gold"]))
        gold_words = sum(gold.values())
        self.has_gold = gold_words > 0
        self.order = [i for i in sorted(range(len(self.words)), key=lambda i: (-self.probabilities[i], i)) if self.words[i] > 0]
        taken, common, f1, kept = collections.Counter(), 0, [0.0 if gold_words else 1.0], [0.0]
        for i in self.order:
            for t in tokens[i]:
                if taken[t] < gold.get(t, 0):
                    common += 1
                taken[t] += 1
            kept.append(kept[-1] + self.words[i])
            f1.append(2 * common / (kept[-1] + gold_words) if kept[-1] + gold_words else 1.0)
        self.f1, self.kept = np.array(f1), np.array(kept)
        self.total = max(self.words.sum(), 1.0)
        weighted = (self.probabilities * self.words)[self.order] if self.order else np.array([])
        self.expected_hits = np.concatenate([[0.0], np.cumsum(weighted)])
        self.expected_gold = float(self.expected_hits[-1])
        self.rule = int(np.argmax([self.expected_f1(k) for k in range(len(self.kept))]))
        self.best = int(np.argmax(self.f1))
        self.page_inputs = [np.nan if v is None else v for v in page_inputs]

    def expected_f1(self, k):
        denominator = self.kept[k] + self.expected_gold
        return 2 * self.expected_hits[k] / denominator if denominator else 0.0

    def share(self, k):
        return self.kept[k] / self.total

    def cut_at_share(self, share):
        return int(np.argmin(np.abs(self.kept / self.total - share)))

    def sorted_probabilities(self):
        return self.probabilities[self.order] if self.order else np.array([])

    def inputs(self):
        """Page inputs: how the probabilities spread over the page's words, then the page's own."""
        p, w = self.probabilities, self.words
        f = [math.log1p(self.total), math.log1p(len(w)), (p * w).sum() / self.total, self.share(self.rule)]
        f += [w[p >= t].sum() / self.total for t in (0.1, 0.2, 0.3, 0.5, 0.7, 0.9)]
        f.append(p.max() if len(p) else 0.0)
        s = self.sorted_probabilities()
        if len(s) > 1:
            d = int(np.argmax(s[:-1] - s[1:]))
            f += [s[d] - s[d + 1], self.kept[d + 1] / self.total]
        else:
            f += [0.0, 1.0]
        return f + self.page_inputs

    def candidate_cuts(self):
        s = self.sorted_probabilities()
        cuts = {self.rule} | {self.cut_at_share(x) for x in SHARES} | {int((s >= t).sum()) for t in PROBABILITIES}
        return sorted(cuts)

    def cut_inputs(self, k):
        s, n = self.sorted_probabilities(), len(self.order)
        return [
            self.share(k),
            math.log1p(self.kept[k]),
            s[k - 1] if k > 0 else 1.0,
            s[k] if k < n else 0.0,
            s[k - 1] - s[k] if 0 < k < n else 0.0,
            self.expected_f1(k),
            self.expected_f1(k) - self.expected_f1(self.rule),
            self.expected_hits[k] / self.expected_gold if self.expected_gold else 0.0,
            self.expected_hits[k] / self.kept[k] if self.kept[k] else 0.0,
            self.share(k) - self.share(self.rule),
            k - self.rule,
        ]


def report(name, pages, cuts):
    cells = []
    for dataset in DATASETS:
        scores = [p.f1[k] for p, k in zip(pages, cuts) if p.dataset == dataset and p.has_gold]
        if scores:
            cells.append(f"{dataset} {np.mean(scores):.3f} / {sum(s < 0.3 for s in scores)}")
    lists = [p.f1[k] for p, k in zip(pages, cuts) if p.dataset == "wcxb" and p.has_gold and p.genre == "list-view"]
    cells.append(f"list-view genre {np.mean(lists):.3f} / {sum(s < 0.3 for s in lists)}")
    print(f"| {name} | " + " | ".join(cells) + " |")


def out_of_fold(inputs, target, folds, model):
    predicted = np.zeros(len(target))
    for fold in sorted(set(folds)):
        train, test = folds != fold, folds == fold
        fitted = model().fit(inputs[train], target[train])
        predicted[test] = fitted.predict(inputs[test])
    return predicted


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("block_rows")
    parser.add_argument("selector_rows")
    parser.add_argument("--page-inputs", type=int, default=None, help="keep only the first N of the selector's page inputs (19: those every block row carries, without the candidates' texts)")
    args = parser.parse_args()
    selector = {(r["dataset"], r["id"]): r["features"][: args.page_inputs] for r in json.load(open(args.selector_rows))}
    pages = [Page(r, selector.get((r["dataset"], r["id"]), [])) for r in json.load(open(args.block_rows))]
    folds = np.array([p.fold for p in pages])
    model = lambda: HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05, max_depth=4, min_samples_leaf=40)

    report("expected-F1 rule (shipped)", pages, [p.rule for p in pages])
    report("best cut (a bound)", pages, [p.best for p in pages])

    inputs = np.array([p.inputs() for p in pages], float)
    best_share = np.array([logit(p.share(p.best)) for p in pages])
    rule_share = np.array([logit(p.share(p.rule)) for p in pages])
    share = out_of_fold(inputs, best_share, folds, model)
    report("share model", pages, [p.cut_at_share(sigmoid(z)) for p, z in zip(pages, share)])
    shift = out_of_fold(inputs, best_share - rule_share, folds, model)
    report("shift model", pages, [p.cut_at_share(sigmoid(r + z)) for p, r, z in zip(pages, rule_share, shift)])

    rows, owners = [], []
    for index, page in enumerate(pages):
        for k in page.candidate_cuts():
            rows.append(list(inputs[index]) + page.cut_inputs(k))
            owners.append((index, k))
    rows = np.array(rows, float)
    gain = np.array([pages[i].f1[k] - pages[i].f1[pages[i].rule] for i, k in owners])
    predicted = out_of_fold(rows, gain, np.array([pages[i].fold for i, _ in owners]), model)
    best = {}
    for (i, k), z in zip(owners, predicted):
        if i not in best or z > best[i][0]:
            best[i] = (z, k)
    for margin in (0.0, 0.02, 0.05):
        report(f"cut model, margin {margin}", pages, [best[i][1] if best[i][0] > margin else p.rule for i, p in enumerate(pages)])


if __name__ == "__main__":
    main()
