#!/usr/bin/env python3
"""Second stages over the combiner's block trees, in the same domain-grouped folds (experiments).

Reads what `goce-warc train-extract --cv-only --block-rows ROWS --block-inputs INPUTS` wrote: every
page's blocks with their labels, texts and the trees' out-of-fold probabilities, and the trees'
inputs (little-endian f32, one row per block, pages in the same order). Refits, fold by fold, a
second model on the other folds' pages and decides each held-out page's blocks by the shipped
expected-F1 rule (src/extract/combine/decide.rs), then prints word F1 / pages with gold text under
0.3 beside the trees' own decision:

- `lexicon`: scikit-learn's histogram gradient boosting over the trees' logit and the block's words,
  alone (`stage2`) and with a word lexicon learned from the training folds (`stage2+lexicon`): each
  word's log ratio of the domains where it occurs in content blocks to those where it occurs in
  other blocks (words seen on 5 or more training domains), summed up per block (mean, highest,
  lowest, share of its words known), for the last short block before it, and over +-3 blocks;
- `average` (ROWS OTHER_ROWS instead of ROWS INPUTS): the mean of two cross-validations'
  probabilities (trees fitted with another `--seed`), and the mean of their logits;
- `losses` (ROWS INPUTS): no second stage; where the trees' decision loses word F1 on WCXB-dev
  (pages whose text holds too much or too little), and which candidate's output holds the
  blocks kept wrongly (the inputs' names from models/combiner.json);
- `sequence`: a bidirectional GRU over the page's blocks (PyTorch), its inputs the trees' inputs
  (standardised on the training folds) and the trees' logit. FOLDS=0,1 limits the folds scored.

Word F1 is WCXB's (bags of lower-case \\w+ tokens) on the blocks' texts, so the trees' row
reproduces train-extract's own figure. Commands and results: docs/experiments.md.
"""
import collections
import json
import math
import os
import re
import sys
import time

import numpy as np

WORD = re.compile(r"\w+")


def load(rows_path, inputs_path):
    rows = json.load(open(rows_path))
    total = sum(len(r["texts"]) for r in rows)
    inputs = np.fromfile(inputs_path, dtype="<f4") if inputs_path else np.zeros(total, np.float32)
    inputs = inputs.reshape(total, inputs.size // total)
    offsets = np.cumsum([0] + [len(r["texts"]) for r in rows])
    pages = []
    for k, r in enumerate(rows):
        tokens = [[t.lower() for t in WORD.findall(x)] for x in r["texts"]]
        pages.append(dict(r=r, tokens=tokens, gold=collections.Counter(t.lower() for t in WORD.findall(r["gold"])),
                          p=np.array(r["probabilities"], float), y=np.array(r["labels"], bool),
                          w=np.array([len(t) for t in tokens], float), x=inputs[offsets[k]:offsets[k + 1]]))
    return pages


def logit(p):
    p = np.clip(p, 1e-3, 1 - 1e-3)
    return np.log(p / (1 - p))


def decide(p, w):
    """The expected-F1 rule: the likeliest blocks, as many as maximise the expected word F1."""
    order = [i for i in np.argsort(-p, kind="stable") if w[i] > 0]
    expected_gold = float((p * w).sum())
    best, best_k, hits, kept = -1.0, 0, 0.0, 0.0
    for k, i in enumerate(order, 1):
        hits += p[i] * w[i]
        kept += w[i]
        f1 = 2 * hits / (kept + expected_gold) if kept + expected_gold else 0.0
        if f1 > best:
            best, best_k = f1, k
    keep = np.zeros(len(p), bool)
    keep[order[:best_k]] = True
    return keep


def word_f1(page, keep):
    taken = collections.Counter(t for i, tokens in enumerate(page["tokens"]) if keep[i] for t in tokens)
    gold, kept = sum(page["gold"].values()), sum(taken.values())
    if gold == 0:
        return 1.0 if kept == 0 else 0.0
    return 2 * sum(min(v, page["gold"].get(t, 0)) for t, v in taken.items()) / (kept + gold)


def genre_weights(train):
    lists = sum(1 for pg in train if pg["r"]["genre"] == "list-view")
    return {"list-view": len(train) / (2 * max(lists, 1)), "article": len(train) / (2 * max(len(train) - lists, 1))}


def learn_lexicon(train, min_domains=5):
    content, other = collections.defaultdict(set), collections.defaultdict(set)
    for pg in train:
        for tokens, y in zip(pg["tokens"], pg["y"]):
            for t in set(tokens):
                (content if y else other)[t].add(pg["r"]["domain"])
    lexicon = {}
    for t in set(content) | set(other):
        c, o = len(content.get(t, ())), len(other.get(t, ()))
        if c + o >= min_domains:
            lexicon[t] = math.log((c + 1) / (o + 1))
    return lexicon


def lexicon_inputs(page, lexicon):
    n, w = len(page["tokens"]), page["w"]
    mean, high, low, known = (np.full(n, np.nan) for _ in range(4))
    for i, tokens in enumerate(page["tokens"]):
        scores = [lexicon[t] for t in tokens if t in lexicon]
        if scores:
            mean[i], high[i], low[i], known[i] = np.mean(scores), max(scores), min(scores), len(scores) / len(tokens)
    before, last = np.full(n, np.nan), np.nan
    for i in range(n):
        before[i] = last
        if 0 < w[i] <= 6 and not np.isnan(mean[i]):
            last = mean[i]
    weighted, weights = np.nan_to_num(mean) * w, np.where(np.isnan(mean), 0, w)
    window = np.full(n, np.nan)
    for i in range(n):
        lo, hi = max(0, i - 3), min(n, i + 4)
        if weights[lo:hi].sum() > 0:
            window[i] = weighted[lo:hi].sum() / weights[lo:hi].sum()
    return [mean, high, low, known, before, window]


def run_lexicon(pages, folds):
    from sklearn.ensemble import HistGradientBoostingClassifier

    results = {"trees": {}, "stage2": {}, "stage2+lexicon": {}}
    for fold in folds:
        train = [pg for pg in pages if pg["r"]["fold"] != fold and pg["w"].sum() > 0]
        lexicon = learn_lexicon(train)
        weights = genre_weights(train)
        for name in ["stage2", "stage2+lexicon"]:
            def inputs(pg):
                cols = [logit(pg["p"]), np.log1p(pg["w"])]
                return np.column_stack(cols + (lexicon_inputs(pg, lexicon) if name == "stage2+lexicon" else []))
            xs, ys, ws = [], [], []
            for pg in train:
                m = pg["w"] > 0
                xs.append(inputs(pg)[m]); ys.append(pg["y"][m])
                ws.append(pg["w"][m] / pg["w"].sum() * weights[pg["r"]["genre"]])
            model = HistGradientBoostingClassifier(max_iter=200, max_depth=6, learning_rate=0.1, random_state=0)
            model.fit(np.vstack(xs), np.concatenate(ys), sample_weight=np.concatenate(ws))
            for k, pg in enumerate(pages):
                if pg["r"]["fold"] == fold:
                    p = model.predict_proba(inputs(pg))[:, 1] if len(pg["w"]) else pg["p"]
                    results[name][k] = word_f1(pg, decide(p, pg["w"]))
        print(f"fold {fold}: lexicon of {len(lexicon)} words", file=sys.stderr)
    return results


def run_sequence(pages, folds, epochs=5, hidden=64):
    import torch
    from torch import nn

    torch.manual_seed(0)
    np.random.seed(0)

    class Net(nn.Module):
        def __init__(self, n_inputs):
            super().__init__()
            self.inputs = nn.Sequential(nn.Linear(n_inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
            self.gru = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
            self.out = nn.Sequential(nn.Linear(3 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

        def forward(self, x, lengths):
            h = self.inputs(x)
            packed = nn.utils.rnn.pack_padded_sequence(h, lengths, batch_first=True, enforce_sorted=False)
            s, _ = self.gru(packed)
            s, _ = nn.utils.rnn.pad_packed_sequence(s, batch_first=True, total_length=x.shape[1])
            return self.out(torch.cat([h, s], -1)).squeeze(-1)

    def inputs(pg, mean, std):
        x = np.clip(np.nan_to_num((pg["x"] - mean) / std), -6, 6)
        return np.concatenate([x, np.isnan(pg["x"][:, -1:]), logit(pg["p"])[:, None] / 3], 1).astype(np.float32)

    results = {"trees": {}, "sequence": {}}
    for fold in folds:
        started = time.time()
        train = [pg for pg in pages if pg["r"]["fold"] != fold and pg["w"].sum() > 0]
        stacked = np.concatenate([pg["x"] for pg in train])
        mean, std = np.nan_to_num(np.nanmean(stacked, 0)), np.nanstd(stacked, 0)
        std[~(std > 1e-6)] = 1.0
        weights = genre_weights(train)
        data = []
        for pg in train:
            x, y = inputs(pg, mean, std), pg["y"].astype(np.float32)
            w = (pg["w"] / pg["w"].sum() * weights[pg["r"]["genre"]]).astype(np.float32)
            # Long pages in pieces of 768 blocks: the GRU's steps are sequential.
            data += [(x[c:c + 768], y[c:c + 768], w[c:c + 768]) for c in range(0, len(y), 768)]
        net = Net(data[0][0].shape[1])
        optimiser = torch.optim.Adam(net.parameters(), lr=2e-3)
        schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, epochs)
        order = sorted(range(len(data)), key=lambda i: len(data[i][1]))
        batches = [order[i:i + 16] for i in range(0, len(order), 16)]
        for epoch in range(epochs):
            np.random.shuffle(batches)
            for b in batches:
                length = max(len(data[i][1]) for i in b)
                xb, yb, wb = torch.zeros(len(b), length, data[0][0].shape[1]), torch.zeros(len(b), length), torch.zeros(len(b), length)
                for j, i in enumerate(b):
                    n = len(data[i][1])
                    xb[j, :n], yb[j, :n], wb[j, :n] = (torch.from_numpy(a) for a in data[i])
                loss = (nn.functional.binary_cross_entropy_with_logits(net(xb, torch.tensor([len(data[i][1]) for i in b])), yb, reduction="none") * wb).sum() / len(b)
                optimiser.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 1.0)
                optimiser.step()
            schedule.step()
            print(f"fold {fold}, epoch {epoch} ({time.time() - started:.0f} s)", file=sys.stderr)
        net.eval()
        with torch.no_grad():
            for k, pg in enumerate(pages):
                if pg["r"]["fold"] == fold:
                    if len(pg["w"]):
                        x = torch.from_numpy(inputs(pg, mean, std))[None]
                        p = torch.sigmoid(net(x, torch.tensor([x.shape[1]])))[0].numpy().astype(float)
                    else:
                        p = pg["p"]
                    results["sequence"][k] = word_f1(pg, decide(p, pg["w"]))
    return results


def run_average(pages, other_rows_path):
    other = json.load(open(other_rows_path))
    if [pg["r"]["id"] for pg in pages] != [r["id"] for r in other]:
        sys.exit("the two block-rows files do not list the same pages in the same order")
    results = {"trees": {}, "other seed": {}, "mean": {}, "mean logit": {}}
    for k, (pg, r) in enumerate(zip(pages, other)):
        p = np.array(r["probabilities"], float)
        results["other seed"][k] = word_f1(pg, decide(p, pg["w"]))
        results["mean"][k] = word_f1(pg, decide((pg["p"] + p) / 2, pg["w"]))
        results["mean logit"][k] = word_f1(pg, decide(1 / (1 + np.exp(-(logit(pg["p"]) + logit(p)) / 2)), pg["w"]))
    return results


def report_losses(pages):
    names = json.load(open(os.path.join(os.path.dirname(__file__), "..", "models", "combiner.json")))["features"]
    column = {n: i for i, n in enumerate(names)}
    lost, wrong = collections.Counter(), collections.Counter()
    for pg in (pg for pg in pages if pg["r"]["dataset"] == "wcxb" and sum(pg["gold"].values()) > 0):
        keep = decide(pg["p"], pg["w"])
        taken = collections.Counter(t for i, tokens in enumerate(pg["tokens"]) if keep[i] for t in tokens)
        common = sum(min(v, pg["gold"].get(t, 0)) for t, v in taken.items())
        precision, recall = common / max(sum(taken.values()), 1), common / sum(pg["gold"].values())
        kind = "holds too much" if precision < recall - 0.1 else "holds too little" if recall < precision - 0.1 else "both or neither"
        lost[kind] += 1 - word_f1(pg, keep)
        for i in np.where(keep & ~pg["y"])[0]:
            wrong["all"] += pg["w"][i]
            for flag in ["in_article", "in_list_view"]:
                wrong[flag] += pg["w"][i] * (pg["x"][i, column[flag]] > 0.5)
    for kind, loss in lost.most_common():
        print(f"word F1 lost on WCXB-dev pages whose text {kind}: {loss / sum(lost.values()):.0%}")
    for flag in ["in_article", "in_list_view"]:
        print(f"words kept wrongly that are {flag}: {wrong[flag] / wrong['all']:.0%}")


def main():
    mode, rows_path, second_path = sys.argv[1:4]
    folds = [int(f) for f in os.environ.get("FOLDS", "0,1,2,3,4").split(",")]
    if mode == "losses":
        return report_losses(load(rows_path, second_path))
    if mode == "average":
        pages = load(rows_path, None)
        results = run_average(pages, second_path)
    else:
        pages = load(rows_path, second_path)
        results = run_lexicon(pages, folds) if mode == "lexicon" else run_sequence(pages, folds)
    for k, pg in enumerate(pages):
        if pg["r"]["fold"] in folds:
            results["trees"][k] = word_f1(pg, decide(pg["p"], pg["w"]))
    for dataset in ["wcxb", "cleaneval", "scrapinghub"]:
        for subset in ["all", "article", "list-view"]:
            if dataset != "wcxb" and subset != "all":
                continue
            scored = [k for k, pg in enumerate(pages) if k in results["trees"] and pg["r"]["dataset"] == dataset and subset in ("all", pg["r"]["genre"])]
            line = f"{dataset:12} {subset:10} {len(scored):5}"
            for name, by_page in results.items():
                under = sum(1 for k in scored if by_page[k] < 0.3 and sum(pages[k]["gold"].values()) > 0)
                line += f"  {name} {np.mean([by_page[k] for k in scored]):.4f} / {under}"
            print(line)


if __name__ == "__main__":
    main()
