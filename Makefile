# goce-warc: the targets a user and CI run. `make help` lists them.
SHELL := bash
CARGO ?= cargo
# Profile-guided optimisation (scripts/pgo.sh, docs/performance.md): where `make setup` recorded
# a profile, every release build here uses it; the same flags on every cargo call below, so
# the tests, the lints and the binary share one build. The builds and tests also select the
# whole workspace: cargo unifies the dependencies' features over the packages a call selects,
# and a test of one package rebuilt every dependency (make eval-prepass took 280 s in the
# clean-clone CI of faf0b06; with --workspace, 39 s after make test).
PGO_PROFILE := target/pgo/goce-warc.profdata
RELEASE_CARGO := $(if $(wildcard $(PGO_PROFILE)),RUSTFLAGS="$$RUSTFLAGS -Cprofile-use=$(abspath $(PGO_PROFILE))" ,)$(CARGO)
SHARED ?= ../shared
PYTHON ?= .venv/bin/python
BIN := target/release/goce-warc
# Training and evaluation against gold data (crates/goce-warc-train).
TRAIN_BIN := target/release/goce-warc-train
BENCH_WARC := target/data/bench.warc.gz
# Pages of sites the classifier never trained on, most of them not in English: trafi-dev six
# times over (the combiner learns from their snippets since 2026-11-29; its CPU does not depend on that).
UNSEEN_BENCH_WARC := target/data/trafi-dev-x6.warc.gz

.PHONY: help setup pgo build test lint fuzz fuzz-smoke model bench-cpu bench-markdown model-extract model-web2text eval-web2text bench-e2e bench-gpu bench-scaling eval eval-timed eval-quickstart eval-warcs eval-languages compare-language-detectors eval-prepass eval-extraction eval-cv eval-unseen eval-markdown eval-trafi eval-classifier eval-new-sites eval-render eval-slurm eval-cc cc-slice cc-slurm bench bench-data contact-sheet sample-warcs demo clean

help:  ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/'

# TORCH=cuda also installs LibTorch's CUDA libraries (for GPU nodes).
TORCH ?= cpu

setup:  ## Install everything (system packages, Python check tools, LibTorch) and build
	TORCH=$(TORCH) bash scripts/setup.sh

pgo:  ## Record the build's profile again (after changes to the code) and rebuild with it (~12 min)
	rm -f $(PGO_PROFILE)
	bash scripts/pgo.sh
	$(CARGO) clean --release
	$(MAKE) build

build:  ## Release build of both binaries (goce-warc, and goce-warc-train for training and scoring)
	$(RELEASE_CARGO) build --release --locked --workspace

# --tests: the unit and integration tests without building the examples (which `cargo test`
# builds by default: about 4 min of the 2-core VM's CPU); make lint checks that they compile.
test:  ## All unit and integration tests (over the project's own fixtures)
	$(RELEASE_CARGO) test --release --locked --workspace --tests

lint:  ## rustfmt check, clippy over every target with warnings as errors (unwrap denied in the library, allowed in tests), the library built without the command line's crates
	$(CARGO) fmt --check
	$(RELEASE_CARGO) clippy --release --locked --workspace --all-targets -- -D warnings
	$(RELEASE_CARGO) check --release --locked -p goce-warc --lib --no-default-features

# The pages whose pictures and model outputs are recorded in models/check for the regression test.
CHECK_PAGES := $(sort $(wildcard tests/fixtures/pages/*.html))

# Pages of one known type from sites outside WCXB-dev, split by domain like WCXB-dev (issue 31).
MODEL_ADD := $(SHARED)/data/zyte-products=product $(SHARED)/data/scrapinghub=article

model: build  ## Retrain the ResNet, the default cascade's gate and the html-features baseline on WCXB-dev plus zyte-products and Scrapinghub on this CPU (~5 min after the build); rewrites models/
	$(TRAIN_BIN) train --dataset $(SHARED)/data/wcxb-dev $(addprefix --add ,$(MODEL_ADD)) --out models $(addprefix --check-page ,$(CHECK_PAGES))

TARGET ?= warc_reader
SECONDS ?= 60
fuzz:  ## Fuzz one target for SECONDS (TARGET=warc_reader|http_page|html_extract|render|parquet_writer; cargo-fuzz on the stable compiler); findings in fuzz/artifacts/
	scripts/fuzz.sh $(TARGET) $(SECONDS)

fuzz-smoke:  ## Every fuzz target for 20 s (~7 min with the instrumented build); not in `make eval` yet
	for t in warc_reader http_page html_extract render parquet_writer; do scripts/fuzz.sh $$t 20 || exit 1; done

model-extract: build  ## Retrain the combiner (the default extractor) on WCXB-dev, CleanEval, Scrapinghub and trafi-dev's snippets after domain-grouped 5-fold CV, and its twin for --classifier none (~10 min after the build); rewrites models/combiner.* and models/combiner-no-page-types.*
	mkdir -p target/eval
	$(TRAIN_BIN) train-extract --wcxb $(SHARED)/data/wcxb-dev --cleaneval $(SHARED)/data/cleaneval --scrapinghub $(SHARED)/data/scrapinghub --snippets $(SHARED)/data/trafi-dev --out models --json target/eval/combiner-cv.json
	$(TRAIN_BIN) train-extract --wcxb $(SHARED)/data/wcxb-dev --cleaneval $(SHARED)/data/cleaneval --scrapinghub $(SHARED)/data/scrapinghub --snippets $(SHARED)/data/trafi-dev --out models --no-page-types --json target/eval/combiner-no-page-types-cv.json

model-web2text: build  ## Retrain Web2Text's two CNNs on CleanEval (+ WCXB-dev tuning pages) on this CPU (~1 min); rewrites models/web2text.*
	$(TRAIN_BIN) train-web2text --cleaneval $(SHARED)/data/cleaneval --wcxb $(SHARED)/data/wcxb-dev --add-wcxb --out models

EVAL_TARGETS := eval-quickstart eval-warcs eval-languages eval-prepass eval-extraction eval-cv eval-unseen eval-markdown eval-trafi eval-classifier eval-new-sites eval-web2text eval-render eval-slurm eval-cc

eval: $(EVAL_TARGETS)  ## Data-driven checks over ../shared/data, a real Slurm array, cc-slice offline

eval-timed:  ## make eval one target at a time, each with its wall time (what CI runs)
	@for t in $(EVAL_TARGETS); do s=$$(date +%s); $(MAKE) --no-print-directory $$t || exit 1; echo "== make $$t: $$(( $$(date +%s) - s )) s"; done

eval-quickstart: build  ## The README's quick start line by line; the output folder opens in pyarrow, polars, DuckDB, datatrove and Hugging Face datasets
	bash scripts/test_quickstart.sh

eval-languages: eval-warcs  ## Detected against declared language on the rows eval-warcs wrote, plus CleanEval (target/eval/languages.json)
	$(PYTHON) scripts/eval_languages.py --binary $(BIN) --shared $(SHARED) --min-agreement 0.97

compare-language-detectors: eval-languages  ## whatlang against lingua on the same texts: agreement and texts/s on one core (lingua in target/lang-venv)
	[ -x target/lang-venv/bin/python ] || python3 -m venv target/lang-venv
	target/lang-venv/bin/pip install -q lingua-language-detector==2.1.1 pyarrow==26.0.1
	target/lang-venv/bin/python scripts/compare_language_detectors.py

eval-warcs: build  ## Every real WARC file in ../shared/data/warc, and the 1,678-page WCXB+Scrapinghub WARC
	$(PYTHON) scripts/eval_warcs.py --binary $(BIN) --shared $(SHARED)

bench-data: $(BENCH_WARC) $(UNSEEN_BENCH_WARC)  ## Build the benchmark WARCs (WCXB-dev + Scrapinghub, 451 MB uncompressed; trafi-dev x6, 2,820 multilingual pages)

$(BENCH_WARC):
	mkdir -p $(dir $@)
	python3 $(SHARED)/tools/make_warc.py $(SHARED)/data/wcxb-dev $(SHARED)/data/scrapinghub -o $@

$(UNSEEN_BENCH_WARC):
	mkdir -p $(dir $@)
	python3 $(SHARED)/tools/make_warc.py $(SHARED)/data/trafi-dev --repeat 6 -o $@

bench: bench-data  ## WARC read, extraction and render speed on one core (criterion), then end-to-end and Chromium timings
	GOCE_BENCH_WARC=$(BENCH_WARC) $(RELEASE_CARGO) bench --locked --bench warc_read
	GOCE_BENCH_PAGES=$(SHARED)/data/wcxb-dev $(RELEASE_CARGO) bench --locked --bench extract
	GOCE_BENCH_PAGES=$(SHARED)/data/wcxb-dev $(RELEASE_CARGO) bench --locked --bench render
	GOCE_BENCH_PAGES=$(SHARED)/data/wcxb-dev $(RELEASE_CARGO) bench --locked --bench classify
	$(RELEASE_CARGO) build --release --locked --workspace
	bash scripts/bench_cpu.sh $(BENCH_WARC)
	bash scripts/bench_process.sh $(BENCH_WARC)
	bash scripts/bench_render.sh $(SHARED)/data/wcxb-dev 60

bench-cpu: build bench-data  ## CPU per page side by side in one run: the default, the ResNet on every page, its CPU stages, extraction only, and FastWARC + Resiliparse, on the trained sites' WARC and on trafi-dev x6; then the default and the peer in turn three more times, with the median ratio (~9 min)
	bash scripts/bench_cpu.sh $(BENCH_WARC)
	bash scripts/bench_cpu.sh $(UNSEEN_BENCH_WARC)

bench-markdown: build bench-data  ## What --markdown adds to the default process: CPU (runs with and without it alternating, three each) and Parquet bytes (~4 min)
	bash scripts/bench_markdown.sh $(BENCH_WARC) 3

bench-e2e: build  ## ~22,000 WCXB-dev pages (just over 1 GB gzip) and its first 136 MB (~3,000 pages) end to end: lite+ResNet, its CPU stages alone, lite+html-features, extraction only; 1 and 2 threads; pages/s, pages per CPU-second and peak RSS; then the big input's peak RSS against each of its 136 MB slices (~30 min)
	SHARED=$(SHARED) bash scripts/bench_e2e.sh

bench-gpu: build  ## On a GPU node (TORCH=cuda make setup): CUDA against CPU predictions, ResNet images/s at batch 64, 128 and 256, process end to end with GPU inference
	BENCH_BIN=$$($(RELEASE_CARGO) bench --locked --no-run --bench classify 2>&1 | grep -o 'target/release/deps/classify-[0-9a-f]*' | head -1) \
	  PAGES=$(SHARED)/data/wcxb-dev MAKE_WARC=$(SHARED)/tools/make_warc.py bash scripts/bench_gpu.sh

bench-scaling: build bench-data  ## Pages/s per worker from 1 worker to all cores (one process; independent processes; the machine alone), with CPU per page and how busy the workers are
	bash scripts/bench_scaling.sh $(BENCH_WARC)

contact-sheet: build  ## docs/contact-sheet.png: 16 WCXB-dev pages, lite renderer beside Chromium
	$(PYTHON) scripts/contact_sheet.py $(SHARED)/data/wcxb-dev $(BIN) docs/contact-sheet.png

sample-warcs:  ## Regenerate sample-warcs/ from tests/fixtures/pages
	python3 scripts/make_sample_warcs.py --pages tests/fixtures/pages --out sample-warcs

demo: build  ## The quick start: process the sample WARCs into parquet/
	$(BIN) process sample-warcs/*.warc* --out parquet/ --overwrite

clean:
	rm -rf parquet target/eval

# The GOCE extraction issue's targets for the held-out fifth, oracle genre (README,
# "Extraction quality": measured 0.861 / 0.891 / 0.764).
EXTRACTION_FLOORS := oracle:all=0.86,article=0.89,list-view=0.75
# The combiner (the default), held-out fifth: measured 0.863 / 0.898 / 0.749 (docs/extraction.md,
# "Held-out fifth": the CV over four times the pages measures its list-view genre +0.040 over goce;
# a retrain that changed 3 of 619k training blocks moved the 72 list pages' figure by 0.003).
COMBINED_FLOORS := combined:all=0.86,article=0.89,list-view=0.74

# The combiner in domain-grouped 5-fold CV (docs/extraction.md, measured 2026-12-05: WCXB-dev 0.878
# against goce's 0.845 with 38 pages under 0.3 against 57 (36 to 41 with other seeds and training sets); list-view genre
# 0.756 against 0.699; article genre 0.912; no page type below goce; CleanEval 0.933, Scrapinghub
# 0.942; the same trees with the page types missing, as under --classifier none, 0.863;
# extraction_confidence against the real word F1 on WCXB-dev, measured 2026-11-30: Spearman
# 0.698 (0.725 to 0.698 as the fills after the trees changed, 2026-11-28 to 30), ROC AUC 0.869 for
# finding the pages under 0.5 (the issue asks 0.4 and 0.85); trafi-dev's snippets, site-grouped with the
# rest, measured 2026-11-29: F1 0.925, German 0.933, English 0.925, other 0.889, trafilatura 0.923
# on the same pages): a little under each.
CV_FLOORS := wcxb/all:f1=0.872 wcxb/all:gain=0.025 wcxb/all:under=42 wcxb/list-view_genre:f1=0.748 \
  wcxb/list-view_genre:gain=0.05 wcxb/article_genre:f1=0.906 'wcxb/*:gain=-0.01' cleaneval/all:f1=0.928 scrapinghub/all:f1=0.931 \
  wcxb/all:confidence-spearman=0.68 wcxb/all:confidence-auc=0.85 \
  trafi/all:snippet-f1=0.918 trafi/german:snippet-f1=0.924 trafi/english:snippet-f1=0.918 trafi/other:snippet-f1=0.88
# The twin for --classifier none (trees trained with the page types blanked on every page), same
# CV, measured 2026-11-29: WCXB-dev 0.864 (0.871 on 2026-12-05; the default's trees with the page
# types missing: 0.853), list-view genre 0.733, CleanEval 0.932, Scrapinghub 0.929, trafi-dev
# 0.921: a little under each, and within 0.01 of the default's 0.869 (0.878).
NO_PAGE_TYPES_CV_FLOORS := wcxb/all:f1=0.865 wcxb/list-view_genre:f1=0.725 cleaneval/all:f1=0.926 scrapinghub/all:f1=0.922 trafi/all:snippet-f1=0.914

# Web2Text retrained from scratch into target/eval/web2text (not models/): block F1 on the
# 148 CleanEval test pages and word F1 on WCXB-dev's held-aside fifth must stay above
# these floors (the shipped model's 0.857 and 0.827, less about 0.02).
WEB2TEXT_FLOORS := cleaneval_f1=0.84 wcxb_word_f1=0.80

eval-web2text: build  ## Retrain Web2Text into target/eval/web2text (~1 min), check its CleanEval Table 1 F1 and WCXB word F1 floors, compare with the shipped weights
	$(TRAIN_BIN) train-web2text --cleaneval $(SHARED)/data/cleaneval --wcxb $(SHARED)/data/wcxb-dev --add-wcxb --out target/eval/web2text
	python3 scripts/check_web2text.py target/eval/web2text models $(WEB2TEXT_FLOORS)

eval-render: build  ## Every WCXB-dev page renders (lite) within the bounds, none fails (report in target/eval/render.json)
	$(PYTHON) scripts/eval_render.py --binary $(BIN) --dataset $(SHARED)/data/wcxb-dev --out target/eval

eval-slurm: build  ## A 4-task Slurm array on a local single-node cluster: same rows as one process, a killed task redone by resubmitting
	PYTHON=$(PYTHON) bash scripts/slurm/test_array.sh

eval-cc: build  ## make cc-slice against a local HTTP server with a Common Crawl-shaped tree; a cut download resumes
	bash scripts/test_cc_slice.sh

# Common Crawl slices: CRAWL=CC-MAIN-2024-51 FIRST=0 COUNT=8 [CC_BASE=...] [CC_DIR=data/cc] [CC_OUT=out/CRAWL]
CC_BASE ?= https://data.commoncrawl.org
CC_DIR ?= data/cc
CC_OUT ?= out/$(CRAWL)

cc-slice: build  ## Fetch WARC files FIRST..FIRST+COUNT-1 of CRAWL (resumable) and process them here
	CC_BASE=$(CC_BASE) CC_DIR=$(CC_DIR) CC_OUT=$(CC_OUT) GOCE_WARC=$(BIN) bash scripts/cc_slice.sh $(CRAWL) $(FIRST) $(COUNT)

cc-slurm: build  ## The same, but submitted as a Slurm array (one task per WARC file)
	CC_SLURM=1 CC_BASE=$(CC_BASE) CC_DIR=$(CC_DIR) CC_OUT=$(CC_OUT) GOCE_WARC=$(realpath $(BIN)) bash scripts/cc_slice.sh $(CRAWL) $(FIRST) $(COUNT)

# The default classifier on sites it did not train on: the test domains of zyte-products (39
# pages, 11 sites) and Scrapinghub (33 pages, 22 sites), measured 100% type and genre on both
# (2026-11-26; before the sets were trained on, 82.1% / 87.9% and 87.3% / 88.4% over every page).
# One page is 2.6 to 3 points here, so the floors allow three misses.
NEW_SITES_FLOORS := zyte-products:type=0.9 zyte-products:genre=0.9 scrapinghub:type=0.9 scrapinghub:genre=0.9

eval-new-sites: build  ## The default classifier on 140 product pages from 62 sites (zyte-products) and Scrapinghub's 181 news pages, through process: type and genre accuracy on the sites it did not train on (the sets' test domains; target/eval/new-sites/)
	$(PYTHON) scripts/eval_new_sites.py --binary $(BIN) --shared $(SHARED) --work target/eval/new-sites $(NEW_SITES_FLOORS)

eval-classifier: build  ## goce with each classifier's genre (the default cascade, resnet, html-features) beside oracle on the classifier's held-out test domains (target/eval/classifier-*.json)
	$(TRAIN_BIN) eval --dataset $(SHARED)/data/wcxb-dev --test-domains --split all --classifier resnet \
	  --extractor goce --extractor oracle --extractor article --extractor list-view --json target/eval/classifier-resnet.json
	$(TRAIN_BIN) eval --dataset $(SHARED)/data/wcxb-dev --test-domains --split all --classifier html-features \
	  --extractor goce --json target/eval/classifier-html-features.json
	$(TRAIN_BIN) eval --dataset $(SHARED)/data/wcxb-dev --test-domains --split all --classifier cascade \
	  --extractor goce --extractor combined --json target/eval/classifier-cascade.json

eval-prepass:  ## The byte-level pass before html5ever leaves the tree of every page in ../shared/data unchanged, the classifier reads the same features from its own parse as from the renderer's, and the combiner the same block inputs as from Web2Text's (tests/prepass.rs)
	SHARED=$(abspath $(SHARED)) $(RELEASE_CARGO) test --release --locked --workspace --test sessions -- --ignored prepass::

eval-cv: build  ## The default extractor in domain-grouped 5-fold CV over WCXB-dev (+ CleanEval, Scrapinghub), beside goce on the same folds, and its `--classifier none` twin on the same folds; fails under CV_FLOORS and NO_PAGE_TYPES_CV_FLOORS (~6 min on 2 cores; reports in target/eval/combiner-cv.json and combiner-no-page-types-cv.json)
	mkdir -p target/eval
	$(TRAIN_BIN) train-extract --wcxb $(SHARED)/data/wcxb-dev --cleaneval $(SHARED)/data/cleaneval --scrapinghub $(SHARED)/data/scrapinghub --snippets $(SHARED)/data/trafi-dev --cv-only --json target/eval/combiner-cv.json \
	  --markdown-out target/eval/markdown-cv.jsonl --no-page-types-json target/eval/combiner-no-page-types-cv.json
	python3 scripts/check_cv.py target/eval/combiner-cv.json $(CV_FLOORS)
	python3 scripts/check_cv.py target/eval/combiner-no-page-types-cv.json $(NO_PAGE_TYPES_CV_FLOORS)

# On pages of sites nobody here tuned on (Mozilla Readability's test suite, from crates.io):
# the default no more than 0.01 under goce, and not under Resiliparse; `process` on a WARC of
# them writes one row per page (scripts/peers/eval_unseen.py).
UNSEEN_FLOORS := 'combined>=goce-0.01' 'combined>=resiliparse-0' 'combined>=rs-trafilatura-0'

eval-unseen: build  ## Extraction on sites nobody here tuned on: Readability's 94 real test pages (fetched from crates.io, SHA-256 pinned), the default beside goce, trafilatura, rs-trafilatura (built from crates.io) and Resiliparse (~3 min; target/eval/unseen.json)
	[ -x target/peer-venv/bin/python ] || python3 -m venv target/peer-venv
	target/peer-venv/bin/pip install -q --disable-pip-version-check -r scripts/peers/requirements.txt
	target/peer-venv/bin/python scripts/peers/eval_unseen.py --bin $(BIN) --train-bin $(TRAIN_BIN) --shared $(SHARED) --json target/eval/unseen.json \
	  --rs-trafilatura $$(bash scripts/peers/build_rs_trafilatura.sh) $(addprefix --require ,$(UNSEEN_FLOORS))

# The Markdown's structure on pages the models never trained on (WCXB-dev's held-out fifth),
# and its words no fewer than the text's (scripts/peers/eval_markdown.py; docs/markdown.md).
# A few pages hold most of the gold list items and code lines, so a retrain of the combiner
# moves these figures by several points (2026-11-29, three retrains: list items 0.764-0.800,
# table rows 0.818-0.861, code lines 0.912-0.917; the model before 0.794 / 0.806 / 0.957):
# the floors sit under the lowest.
# Tables filled from 5% of their words kept raised the held-out table rows to 0.879 with one
# model (2026-11-29); the floor stays under the spread above.
# On the other four fifths, out of fold (1,192 pages, four times the gold; measured 2026-11-29
# with the list fill, the row links and the table fill at 5%: headings 0.928, list items
# 0.915, table rows 0.915, code lines 0.978; 2026-12-01 with a table of records' links:
# 0.929 / 0.922 / 0.921 / 0.980), a little under each.
# On Readability's 94 real test pages, which no model was fitted on (2026-12-01, with the
# code-block fill and a table of records' links, the one rule written from a miss there:
# headings 0.929, list items 0.869, table rows 0.890, code lines 0.997), a little under each.
# On Scrapinghub's 181 news pages, read by nobody while the renderer was written (2026-12-03, the
# gold read in the page's charset: headings 0.982, list items 0.935, table rows 1.000), a little
# under each.
# The shipped confidence trees on the held-out fifth (2026-12-01, refitted at b2a094d: Spearman
# 0.769 with the text's word F1, AUC 0.852 for the pages under 0.5), a little under each.
MARKDOWN_FLOORS := wcxb-held-out:heading_f1=0.925,list_item_f1=0.85,table_rows=0.80,code_lines=0.90 \
  wcxb-cv:heading_f1=0.925,list_item_f1=0.92,table_rows=0.90,code_lines=0.965 \
  readability:heading_f1=0.925,list_item_f1=0.88,table_rows=0.85,code_lines=0.95 \
  scrapinghub:heading_f1=0.96,list_item_f1=0.91,table_rows=0.95 \
  wcxb-held-out:confidence_spearman=0.72,confidence_auc_under_0_5=0.80

eval-markdown: build  ## The Markdown (process --markdown) against gold headings, list items, table rows and code on WCXB-dev's held-out fifth, Readability's 94 real test pages (as eval-unseen fetches them), its other four fifths out of fold (written by make eval-cv), Scrapinghub and CleanEval, beside trafilatura's and rs-trafilatura's Markdown, the peers run on every core (~3 min on 2 cores; target/eval/markdown.json)
	@[ -f target/eval/markdown-cv.jsonl ] || { echo "eval-markdown: target/eval/markdown-cv.jsonl is missing: run make eval-cv first (it writes the out-of-fold Markdown)"; exit 1; }
	[ -x target/peer-venv/bin/python ] || python3 -m venv target/peer-venv
	target/peer-venv/bin/pip install -q --disable-pip-version-check -r scripts/peers/requirements.txt
	target/peer-venv/bin/python scripts/peers/eval_markdown.py --bin $(BIN) --shared $(SHARED) --json target/eval/markdown.json \
	  --cv-markdown target/eval/markdown-cv.jsonl --readability target/unseen --rs-trafilatura $$(bash scripts/peers/build_rs_trafilatura.sh) --require-words $(addprefix --require ,$(MARKDOWN_FLOORS))

# trafilatura's own tuning set, 470 pages in many languages with snippet gold (measured
# 2026-11-28 on the text of e21a009, before the combiner trained on their snippets: F1 0.912
# overall, German 0.919, English 0.925, other 0.869; trafilatura 0.923 on its home ground,
# rs-trafilatura 0.890, Resiliparse 0.847): a little under each (scripts/peers/eval_trafi.py).
# Since the combiner trains on these pages the shipped model scores 0.952 here; the honest
# figure is the site-grouped CV's (CV_FLOORS).
TRAFI_FLOORS := goce-warc:f1=0.905,german_f1=0.912,english_f1=0.915,other_f1=0.86

eval-trafi: build  ## The default on trafi-dev (470 multilingual pages, snippet gold, trafilatura's metric) beside trafilatura, rs-trafilatura and Resiliparse, by declared language (~2 min; target/eval/trafi.json)
	[ -x target/peer-venv/bin/python ] || python3 -m venv target/peer-venv
	target/peer-venv/bin/pip install -q --disable-pip-version-check -r scripts/peers/requirements.txt
	target/peer-venv/bin/python scripts/peers/eval_trafi.py --bin $(BIN) --shared $(SHARED) --json target/eval/trafi.json \
	  --rs-trafilatura $$(bash scripts/peers/build_rs_trafilatura.sh) $(addprefix --require ,$(TRAFI_FLOORS))

eval-extraction: build  ## Extraction quality on WCXB-dev (the paper's Table 2 shape; report in target/eval/extraction.json)
	$(TRAIN_BIN) eval --dataset $(SHARED)/data/wcxb-dev --split held-out --json target/eval/extraction.json --require $(EXTRACTION_FLOORS) --require $(COMBINED_FLOORS)
