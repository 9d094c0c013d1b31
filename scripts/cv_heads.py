#!/usr/bin/env python3
"""`make cv-heads`: how far the ResNet's fused inputs can carry the genre, whatever head reads them.

Reads the pages `goce-warc train --samples-out` wrote (split, label, the 39 page features, the
words by field), keeps the training and validation domains (the held-out test domains are never
read), and runs a 5-fold cross-validation grouped by domain: every page is scored by heads that
saw none of its domain. The word model is refitted per fold as `src/classify/words.rs` builds it
(per field TF-IDF, sublinear tf, each field L2-normalised, words on at least 3/3/2/2 training
pages, at most 5,000 per field; a class-balanced multinomial logistic regression), and the fused
heads see out-of-fold word scores for their own training pages, as `goce-warc train` does.

Heads: the word model alone, the features alone, the fused inputs under a logistic regression
at five strengths, gradient-boosted trees, a small MLP, a direct two-genre regression, and the
fused inputs plus 17 more markup cues counted by regular expressions (optional: --dataset).
Prints type and genre accuracy (list-view = forum + listing + collection > 0.5) per head.
"""
import argparse
import collections
import gzip
import hashlib
import json
import re
import sys

import numpy as np
from scipy import sparse
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

TYPES = ["article", "forum", "product", "collection", "listing", "documentation", "service"]
LIST_VIEW = [TYPES.index(t) for t in ("forum", "collection", "listing")]
MIN_PAGES = [3, 3, 2, 2]  # text, class and id words, title, URL (words.rs)
MAX_WORDS = 5000
FOLDS = 5

# Markup cues that the 39 features do not count directly: list pages' repeated titles and
# pagination, shops' grids and sorting, articles' bylines. Ordinary web conventions.
CUES = {
    "article_tags": r"<article\b",
    "heading_links": r"<h[1-4][^>]*>\s*(?:<[^a>][^>]*>\s*)*<a\b",
    "pagination": r"class\s*=\s*[\"'][^\"']*(?:pagination|pager|page-numbers|nav-links)",
    "rel_next": r"<link[^>]+rel\s*=\s*[\"']?next|<a[^>]+rel\s*=\s*[\"']?next",
    "read_more": r">\s*(?:read more|continue reading|mehr lesen|lire la suite|leer m[aá]s)",
    "og_article": r"property\s*=\s*[\"']og:type[\"'][^>]*content\s*=\s*[\"']article",
    "linked_images": r"<a\b[^>]*>\s*(?:<[^>]+>\s*){0,3}<img\b",
    "sort_filter": r">\s*(?:sort by|sort|filter|filters|refine)\s*<",
    "result_counts": r"\b\d[\d,]*\s+(?:results|items|products)\b",
    "add_to_cart": r"add[ -]to[ -](?:cart|bag|basket)",
    "h1": r"<h1\b",
    "h2": r"<h2\b",
    "h3": r"<h3\b",
    "comment_classes": r"class\s*=\s*[\"'][^\"']*comment",
    "bylines": r"(?:rel\s*=\s*[\"']author|class\s*=\s*[\"'][^\"']*(?:author|byline))",
    "card_classes": r"class\s*=\s*[\"'][^\"']*(?:product-card|product-item|product-tile|productcard|product_item|grid-item|card)",
    "quantity_inputs": r"name\s*=\s*[\"']?(?:quantity|qty)",
}


def fold_of(domain, salt):
    return int(hashlib.sha256(f"{salt}:{domain}".encode()).hexdigest(), 16) % FOLDS


def class_weights(labels):
    counts = np.bincount(labels, minlength=len(TYPES))
    per_class = np.where(counts > 0, (len(labels) / (len(TYPES) * np.maximum(counts, 1))) ** 0.5, 0.0)
    return per_class[labels]


class WordModel:
    def __init__(self, pages, labels):
        self.vocab = []
        for field in range(4):
            seen = collections.Counter(w for p in pages for (f, w, _) in p["words"] if f == field)
            kept = sorted((w for w, n in seen.items() if n >= MIN_PAGES[field]), key=lambda w: (-seen[w], w))[:MAX_WORDS]
            self.vocab.append({w: (j, np.log((1 + len(pages)) / (1 + seen[w])) + 1) for j, w in enumerate(kept)})
        self.offsets = np.cumsum([0] + [len(v) for v in self.vocab])
        self.model = LogisticRegression(C=20.0, max_iter=2000)
        self.model.fit(self.matrix(pages), labels, sample_weight=class_weights(labels))

    def matrix(self, pages):
        rows, cols, vals = [], [], []
        for r, page in enumerate(pages):
            per_field = [[] for _ in range(4)]
            for field, word, count in page["words"]:
                hit = self.vocab[field].get(word)
                if hit:
                    per_field[field].append((self.offsets[field] + hit[0], (1 + np.log(count)) * hit[1]))
            for entries in per_field:
                norm = np.sqrt(sum(v * v for _, v in entries)) or 1.0
                for col, v in entries:
                    rows.append(r)
                    cols.append(col)
                    vals.append(v / norm)
        return sparse.csr_matrix((vals, (rows, cols)), shape=(len(pages), self.offsets[-1]))

    def log_probabilities(self, pages):
        out = np.full((len(pages), len(TYPES)), -30.0)
        out[:, self.model.classes_] = self.model.predict_log_proba(self.matrix(pages))
        return out


def out_of_fold_word_scores(pages, labels):
    """Each page's word scores from a word model that did not see its domain."""
    scores = np.zeros((len(pages), len(TYPES)))
    folds = np.array([fold_of(p["domain"], "inner") for p in pages])
    for k in range(FOLDS):
        inside = np.flatnonzero(folds == k)
        outside = np.flatnonzero(folds != k)
        if len(inside):
            model = WordModel([pages[i] for i in outside], labels[outside])
            scores[inside] = model.log_probabilities([pages[i] for i in inside])
    return scores


def cue_counts(dataset, pages):
    patterns = [re.compile(p, re.I | re.S) for p in CUES.values()]
    rows = []
    for page in pages:
        with gzip.open(f"{dataset}/html/{page['id']}.html.gz", "rb") as f:
            html = f.read().decode("utf-8", "replace")
        rows.append([np.log1p(len(p.findall(html))) for p in patterns])
    return np.array(rows)


def probabilities(model, train_x, train_y, test_x, weighted=True):
    scaler = StandardScaler().fit(train_x)
    if weighted:
        model.fit(scaler.transform(train_x), train_y, sample_weight=class_weights(train_y))
    else:
        model.fit(scaler.transform(train_x), train_y)
    out = np.zeros((len(test_x), len(TYPES)))
    out[:, model.classes_] = model.predict_proba(scaler.transform(test_x))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("samples", help="JSON lines from goce-warc train --samples-out")
    parser.add_argument("--dataset", help="the WCXB-style folder, to count the extra markup cues")
    args = parser.parse_args()
    with open(args.samples) as f:
        pages = [p for p in map(json.loads, f) if p["split"] != "test"]
    labels = np.array([TYPES.index(p["label"]) for p in pages])
    features = np.array([p["features"] for p in pages], dtype=np.float64)
    cues = cue_counts(args.dataset, pages) if args.dataset else None
    folds = np.array([fold_of(p["domain"], "outer") for p in pages])
    print(f"{len(pages)} pages of {len({p['domain'] for p in pages})} training and validation domains, {FOLDS} folds by domain", file=sys.stderr)

    heads = {
        "word model alone": None,
        "39 features alone, logistic regression": None,
        **{f"fused, logistic regression C={c:g}": (lambda c=c: LogisticRegression(C=c, max_iter=5000)) for c in (0.1, 0.3, 1, 3, 10)},
        "fused, gradient-boosted trees": lambda: HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15, random_state=0),
        "fused, MLP (64 hidden, alpha 1)": lambda: MLPClassifier((64,), alpha=1.0, max_iter=2000, random_state=0),
        "fused, two genres directly": None,
    }
    if cues is not None:
        heads[f"fused + {len(CUES)} markup cues, logistic regression C=0.3"] = None
    scored = {name: np.zeros((len(pages), len(TYPES))) for name in heads}
    genre_scores = np.zeros(len(pages))
    is_list = np.isin(labels, LIST_VIEW)
    for k in range(FOLDS):
        train = np.flatnonzero(folds != k)
        test = np.flatnonzero(folds == k)
        train_words = out_of_fold_word_scores([pages[i] for i in train], labels[train])
        test_words = WordModel([pages[i] for i in train], labels[train]).log_probabilities([pages[i] for i in test])
        fused_train = np.hstack([features[train], train_words])
        fused_test = np.hstack([features[test], test_words])
        for name, make in heads.items():
            if name == "word model alone":
                scored[name][test] = np.exp(test_words)
            elif name.startswith("39 features"):
                scored[name][test] = probabilities(LogisticRegression(C=0.3, max_iter=5000), features[train], labels[train], features[test])
            elif name == "fused, two genres directly":
                model = LogisticRegression(C=0.3, max_iter=5000, class_weight="balanced")
                scaler = StandardScaler().fit(fused_train)
                model.fit(scaler.transform(fused_train), is_list[train])
                genre_scores[test] = model.predict_proba(scaler.transform(fused_test))[:, 1]
            elif "markup cues" in name:
                scored[name][test] = probabilities(
                    LogisticRegression(C=0.3, max_iter=5000), np.hstack([fused_train, cues[train]]), labels[train], np.hstack([fused_test, cues[test]])
                )
            else:
                scored[name][test] = probabilities(make(), fused_train, labels[train], fused_test, weighted="MLP" not in name)
        print(f"fold {k + 1} of {FOLDS} done", file=sys.stderr)

    print(f"{'head':<58} {'type acc':>9} {'genre acc':>10}")
    for name in heads:
        if name == "fused, two genres directly":
            genre = np.mean((genre_scores > 0.5) == is_list)
            print(f"{name:<58} {'':>9} {genre:>10.3f}")
            continue
        p = scored[name]
        genre = np.mean((p[:, LIST_VIEW].sum(1) > 0.5) == is_list)
        print(f"{name:<58} {np.mean(p.argmax(1) == labels):>9.3f} {genre:>10.3f}")


if __name__ == "__main__":
    main()
