#!/usr/bin/env python3
"""`make cv-heads`: how far the ResNet's fused inputs can carry the genre, whatever head reads them.

Reads the pages `goce-warc train --samples-out` wrote (split, label, the 39 page features, the
words by field), keeps the training and validation domains (the held-out test domains are never
used), and runs a 5-fold cross-validation grouped by domain: every page is scored by heads that
saw none of its domain. The word model is refitted per fold with the vocabulary and weighting of
`src/classify/words.rs` (per field TF-IDF, sublinear tf, each field L2-normalised, words on at
least 3/3/2/2 training pages, at most 5,000 per field), scikit-learn's class-balanced multinomial
logistic regression standing in for goce-warc's own; the fused heads see out-of-fold word scores
for their own training pages, as `goce-warc train` does.

Heads: the word model alone, the features alone, the fused inputs under a logistic regression
at five strengths, gradient-boosted trees, a small MLP, a direct two-genre regression, and the
fused inputs plus 17 more markup cues counted by regular expressions, and the fused inputs plus the
schema.org types a page declares in JSON-LD (both read from the raw HTML; optional: --dataset).
Prints type and genre accuracy (list-view = forum + listing + collection > 0.5) per head.

With --learning-curve: the same folds, but the word model and the fused logistic regression
(C=0.1) are fitted on a growing share of each fold's training domains (a fixed, seeded order
of domains), to show how accuracy grows with more labelled domains.
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

# The schema.org types of a page's JSON-LD blocks (`"@type"` values), counted in families; the
# parse before the DOM empties scripts, so the 39 features never see them.
_TYPE = r'"@type"\s*:\s*\[?\s*(?:"[^"]*"\s*,\s*)*"(?:https?://schema\.org/)?'
LINKED_DATA = {
    "ld_product": _TYPE + r'(?:Product|ProductGroup|IndividualProduct)"',
    "ld_offer": _TYPE + r'(?:Offer|AggregateOffer)"',
    "ld_item_list": _TYPE + r'(?:ItemList|OfferCatalog)"',
    "ld_collection": _TYPE + r'(?:CollectionPage|SearchResultsPage)"',
    "ld_article": _TYPE + r'(?:Article|NewsArticle|BlogPosting|TechArticle|ReportageNewsArticle|AnalysisNewsArticle|OpinionNewsArticle|Recipe|HowTo)"',
    "ld_discussion": _TYPE + r'(?:DiscussionForumPosting|QAPage|Question|Comment|SocialMediaPosting)"',
    "ld_faq": _TYPE + r'FAQPage"',
    "ld_breadcrumb": _TYPE + r'BreadcrumbList"',
    "ld_service": _TYPE + r'(?:AboutPage|ContactPage|ProfilePage|Service|LocalBusiness)"',
    "ld_blocks": r'application/ld\+json',
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


def fold_inputs(pages, labels, features, train, test):
    """One fold's inputs for the heads: the page features, and word scores that are out of fold
    for the training part and from a word model fitted on all of it for the test part."""
    train_pages, test_pages = [pages[i] for i in train], [pages[i] for i in test]
    words_train = out_of_fold_word_scores(train_pages, labels[train])
    words_test = WordModel(train_pages, labels[train]).log_probabilities(test_pages)
    return {
        "y_train": labels[train],
        "features_train": features[train],
        "features_test": features[test],
        "words_test": words_test,
        "fused_train": np.hstack([features[train], words_train]),
        "fused_test": np.hstack([features[test], words_test]),
    }


def cue_counts(dataset, pages, cue_sets):
    """Per cue set, the pages' log1p pattern counts; each page's HTML is read once."""
    compiled = {name: [re.compile(p, re.I | re.S) for p in cues.values()] for name, cues in cue_sets.items()}
    rows = {name: [] for name in cue_sets}
    for page in pages:
        with gzip.open(f"{dataset}/html/{page['id']}.html.gz", "rb") as f:
            html = f.read().decode("utf-8", "replace")
        for name, patterns in compiled.items():
            rows[name].append([np.log1p(len(p.findall(html))) for p in patterns])
    return {name: np.array(r) for name, r in rows.items()}


def probabilities(model, train_x, train_y, test_x, weighted=True):
    """A scikit-learn classifier's seven type probabilities, inputs standardised on the training part."""
    scaler = StandardScaler().fit(train_x)
    if weighted:
        model.fit(scaler.transform(train_x), train_y, sample_weight=class_weights(train_y))
    else:
        model.fit(scaler.transform(train_x), train_y)
    out = np.zeros((len(test_x), len(TYPES)))
    out[:, model.classes_] = model.predict_proba(scaler.transform(test_x))
    return out


def list_view_probability(type_probabilities):
    return type_probabilities[:, LIST_VIEW].sum(1)


# The heads, as data: each maps one fold (a dict of its inputs) to the test pages' seven type
# probabilities, or (`genre_only`) to their list-view probability.
def lr(c):
    return lambda fold: probabilities(LogisticRegression(C=c, max_iter=5000), fold["fused_train"], fold["y_train"], fold["fused_test"])


def two_genres(fold):
    scaler = StandardScaler().fit(fold["fused_train"])
    model = LogisticRegression(C=0.3, max_iter=5000, class_weight="balanced")
    model.fit(scaler.transform(fold["fused_train"]), np.isin(fold["y_train"], LIST_VIEW))
    return model.predict_proba(scaler.transform(fold["fused_test"]))[:, 1]


HEADS = [
    ("the word model alone", False, lambda fold: np.exp(fold["words_test"])),
    ("the page features alone, logistic regression C=0.3", False,
     lambda fold: probabilities(LogisticRegression(C=0.3, max_iter=5000), fold["features_train"], fold["y_train"], fold["features_test"])),
    *[(f"fused, logistic regression C={c:g}", False, lr(c)) for c in (0.1, 0.3, 1, 3, 10)],
    ("fused, gradient-boosted trees", False,
     lambda fold: probabilities(HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15, random_state=0),
                                fold["fused_train"], fold["y_train"], fold["fused_test"])),
    # scikit-learn's MLP takes no sample weights: unweighted.
    ("fused, MLP (64 hidden, alpha 1)", False,
     lambda fold: probabilities(MLPClassifier((64,), alpha=1.0, max_iter=2000, random_state=0), fold["fused_train"], fold["y_train"], fold["fused_test"], weighted=False)),
    ("fused, two genres directly (logistic regression C=0.3)", True, two_genres),
]


def with_cues(name):
    """The fused inputs and one set of markup counts under a logistic regression (C=0.3)."""
    return lambda fold: probabilities(LogisticRegression(C=0.3, max_iter=5000), np.hstack([fold["fused_train"], fold[f"{name}_train"]]),
                                      fold["y_train"], np.hstack([fold["fused_test"], fold[f"{name}_test"]]))


# Heads over counts read from the raw HTML (with --dataset): each set's name and patterns.
CUE_SETS = {"cues": CUES, "ld": LINKED_DATA}
CUE_HEADS = [
    (f"fused + {len(CUES)} markup cues, logistic regression C=0.3", False, with_cues("cues")),
    (f"fused + {len(LINKED_DATA)} JSON-LD type counts, logistic regression C=0.3", False, with_cues("ld")),
]


CURVE_SHARES = (0.25, 0.5, 0.75, 1.0)


def learning_curve(pages, labels, features, folds):
    """Out-of-fold type and genre accuracy of the word model and the fused regression, per share of training domains."""
    # A domain's place in a fixed order: the first `share` of the order is kept.
    place = np.array([int(hashlib.sha256(f"curve:{p['domain']}".encode()).hexdigest(), 16) % 1000 / 1000 for p in pages])
    is_list = np.isin(labels, LIST_VIEW)
    print(f"{'share of training domains':<26} {'pages':>6} {'words: type':>12} {'genre':>6} {'fused: type':>12} {'genre':>6}")
    for share in CURVE_SHARES:
        words = np.zeros((len(pages), len(TYPES)))
        fused = np.zeros((len(pages), len(TYPES)))
        sizes = []
        for k in range(FOLDS):
            train = np.flatnonzero((folds != k) & (place < share))
            test = np.flatnonzero(folds == k)
            sizes.append(len(train))
            fold = fold_inputs(pages, labels, features, train, test)
            words[test] = np.exp(fold["words_test"])
            fused[test] = lr(0.1)(fold)
        row = [f"{np.mean(p.argmax(1) == labels):.3f} {np.mean((list_view_probability(p) > 0.5) == is_list):.3f}" for p in (words, fused)]
        print(f"{share:<26.2f} {np.mean(sizes):>6.0f} {row[0]:>19} {row[1]:>19}")
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("samples", help="JSON lines from goce-warc train --samples-out")
    parser.add_argument("--dataset", help="the WCXB-style folder, to count the extra markup cues")
    parser.add_argument("--learning-curve", action="store_true", help="accuracy against the share of training domains, instead of the heads")
    args = parser.parse_args()
    with open(args.samples) as f:
        pages = [p for p in map(json.loads, f) if p["split"] != "test"]
    labels = np.array([TYPES.index(p["label"]) for p in pages])
    features = np.array([p["features"] for p in pages], dtype=np.float64)
    folds = np.array([fold_of(p["domain"], "outer") for p in pages])
    print(f"{len(pages)} pages of {len({p['domain'] for p in pages})} training and validation domains, {FOLDS} folds by domain", file=sys.stderr)
    if args.learning_curve:
        learning_curve(pages, labels, features, folds)
        return
    cues = cue_counts(args.dataset, pages, CUE_SETS) if args.dataset else {}
    heads = HEADS + (CUE_HEADS if args.dataset else [])

    list_view = {name: np.zeros(len(pages)) for name, _, _ in heads}
    predicted_type = {name: np.zeros(len(pages), dtype=int) for name, _, _ in heads}
    for k in range(FOLDS):
        train = np.flatnonzero(folds != k)
        test = np.flatnonzero(folds == k)
        fold = {
            **fold_inputs(pages, labels, features, train, test),
            **{f"{name}_train": counts[train] for name, counts in cues.items()},
            **{f"{name}_test": counts[test] for name, counts in cues.items()},
        }
        for name, genre_only, head in heads:
            out = head(fold)
            if genre_only:
                list_view[name][test] = out
            else:
                list_view[name][test] = list_view_probability(out)
                predicted_type[name][test] = out.argmax(1)
        print(f"fold {k + 1} of {FOLDS} done", file=sys.stderr)

    is_list = np.isin(labels, LIST_VIEW)
    print(f"{'head':<58} {'type acc':>9} {'genre acc':>10}")
    for name, genre_only, _ in heads:
        types = "" if genre_only else f"{np.mean(predicted_type[name] == labels):.3f}"
        print(f"{name:<58} {types:>9} {np.mean((list_view[name] > 0.5) == is_list):>10.3f}")


if __name__ == "__main__":
    main()
