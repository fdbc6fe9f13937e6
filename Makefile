# The two set-up commands of the README:
#   make book   builds the book (executes every chapter not already executed) into _build/html
#   make test   runs every test: ruff, nbval over notebooks/ (each chapter executes once, here), the book
#               built from those same runs, unit tests, browser test of the built book
# Both create .venv and install exactly requirements.lock (uv, every sha256 checked) on their first run.

VENV      ?= .venv
PYTHON    ?= python3
BIN       := $(abspath $(VENV))/bin
PY        := $(BIN)/python
LOCK      := requirements.lock
# The stamp is named after the lock's hash: a changed lock installs again.
STAMP     := $(VENV)/.installed-$(shell sha256sum $(LOCK) 2>/dev/null | cut -c1-16)
MATHJAX   := book/_static/mathjax/tex-chtml.js
PLOTLYJS  := book/_static/plotly.min.js
CHROMIUM  ?= $(shell command -v chromium || command -v chromium-browser)

export PATH := $(BIN):$(PATH)
export PYTHONHASHSEED := 0
# uv installs without compiling bytecode (pip compiled every module at install); Python compiles a
# module at its first import and caches it (in .venv and the ignored __pycache__ folders). Where the
# environment forbids that cache, every process (each chapter's kernel) would compile torch and the
# rest again, about 20 s each on two cores.
unexport PYTHONDONTWRITEBYTECODE
export TOKEN_SELECTION_DATA ?= $(abspath ../shared/data)

.PHONY: records install lock book execute test site offsite-tests static-checks lint lint-workflows unit nbval notebooks notebook-limits browser explorer-grid opening-figures \
        sync-setup-cells tidy-notebooks colab-check pdf release-check mutation full clean clean-caches

install: $(STAMP)

# Exactly the lock (what it does not list is removed), every file checked against its sha256:
# `uv pip sync --require-hashes`, uv itself bootstrapped from the lock's own entry with
# `pip --require-hashes` when the locked uv is not on PATH; `pip install --require-hashes --no-deps`
# where uv cannot be had (INSTALLER=pip forces it). Then the package itself, editable, without
# dependencies, and a dependency check. uv gets pip's configuration (find-links, index URLs) from
# scripts/lock_requirements.py. A lock older than requirements.txt stops here: `make lock`.
INSTALLER ?= auto
$(STAMP): $(LOCK) pyproject.toml requirements.txt
	$(PYTHON) scripts/lock_requirements.py --check
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) scripts/lock_requirements.py --install --installer $(INSTALLER)
	rm -f $(VENV)/.installed*
	touch $@

# Pin every package requirements.txt resolves to, with the sha256 of each file (uv pip compile
# --generate-hashes, this machine's pip configuration); pins that still fit are kept.
# `make lock LOCK_ARGS=--upgrade` takes the newest versions the ranges allow.
lock:
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) scripts/lock_requirements.py $(LOCK_ARGS)

# MathJax from the npm registry, served by the site itself (no CDN).
$(MATHJAX):
	rm -rf /tmp/mathjax-pkg && mkdir -p /tmp/mathjax-pkg book/_static/mathjax
	cd /tmp/mathjax-pkg && npm pack --silent mathjax@3.2.2 >/dev/null && tar xzf mathjax-3.2.2.tgz
	cp -r /tmp/mathjax-pkg/package/es5/. book/_static/mathjax/

# plotly.js from the installed plotly package, served by the site itself.
$(PLOTLYJS): $(STAMP)
	cp "$$($(PY) -c 'import plotly, pathlib; print(pathlib.Path(plotly.__file__).parent / "package_data" / "plotly.min.js")')" $@

# Chapters run before the build, each under its limit (notebooks/execution_limits.json), into the
# jupyter-cache the build reads (execute_notebooks: cache); a chapter already run on the same code is reused.
book: execute $(MATHJAX) $(PLOTLYJS)
	$(BIN)/jupyter-book build . -W --keep-going

execute: $(STAMP)
	$(PY) scripts/execute_notebooks.py

# ruff checks the chapters at their own line length (notebooks/ruff.toml); tidy_notebooks.py --check
# fails when a chapter is not tidied (a test marker as a comment, glue plumbing shown, code unformatted).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check src benchmarks
	$(PY) scripts/tidy_notebooks.py --check
	$(PY) scripts/reading_times.py --check

# Every check that reads the sources and runs nothing: lint, the workflows, the chapters' set-up cells.
static-checks: lint lint-workflows
	$(PY) scripts/sync_setup_cells.py --check

# The GitHub workflows, checked offline.
lint-workflows: $(STAMP)
	$(BIN)/actionlint -no-color -oneline

unit: $(STAMP)
	$(PY) -m pytest src $(XDIST)

browser:
	@if [ -z "$(CHROMIUM)" ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; \
	fi

# Tests and chapters run in TEST_JOBS processes (pytest-xdist; default: one per CPU core, each with its
# share of the cores: conftest.py); a worker that runs out of tests takes some of another's, and a
# chapter runs whole in one worker. TEST_JOBS=0 runs everything in this process.
TEST_JOBS ?= auto
XDIST     := $(if $(filter 0,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist worksteal)
XDIST_NB  := $(if $(filter 0,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist loadfile)

# nbval first: it executes and checks every chapter once and caches each run, so `book` executes nothing again;
# the checks that run on one core (`static-checks`) run beside it. Then two make jobs at once: the book and its PDF
# (`site`), and every test that reads neither (`offsite-tests`); last, the tests of the built site and PDF.
# Each pytest run goes under scripts/watchdog.sh: past its limit (several times its usual time) it is
# stopped, prints where each process was, and runs once more.
WATCHDOG := bash scripts/watchdog.sh
test: $(STAMP) browser
	$(MAKE) --no-print-directory -j2 --output-sync=target static-checks nbval
	$(MAKE) --no-print-directory -j2 --output-sync=target site offsite-tests
	$(WATCHDOG) 900 $(PY) -m pytest book $(SITE_TESTS) $(XDIST) --durations=10

SITE_TESTS := tests_publish/test_pdf.py
site: book
	$(MAKE) --no-print-directory pdf

offsite-tests: $(STAMP)
	$(PY) scripts/build_explorer_grid.py --check
	$(WATCHDOG) 900 $(PY) -m pytest src scripts tests_publish --ignore=$(SITE_TESTS) $(XDIST) --durations=10

nbval: $(STAMP)
	$(WATCHDOG) 1500 $(PY) -m pytest notebooks --nbval-lax $(XDIST_NB) --durations=5

# Recompute the static explorer's precomputed grid (src/token_selection/explorer/grid.json, shipped with the package) when
# it is missing, damaged or on other settings; when recomputed points differ from it, it says so and recomputes nothing.
explorer-grid: $(STAMP)
	$(PY) scripts/build_explorer_grid.py

# Redraw each chapter's opening figure (book/figures/opening/) from the chapter's own cells, its record and the
# chapters' opening cells; scripts/test_draw_opening_figures.py fails while one is stale.
opening-figures: $(STAMP)
	$(PY) scripts/draw_opening_figures.py

# Re-execute every chapter at the fast scale and strip outputs, keeping only the
# cells whose output nbval compares (tag nbval-check-output, cell metadata keep_output: true).
notebooks: $(STAMP)
	$(PY) scripts/refresh_notebooks.py notebooks/*.ipynb

# Rewrite each chapter's execution limit (5x its last measured time, at least 60 s) from the cached runs.
notebook-limits: $(STAMP)
	$(PY) scripts/execute_notebooks.py --update-limits

# Rewrite every chapter's first code cell from the template, for the repository and ref in _config.yml.
sync-setup-cells: $(STAMP)
	$(PY) scripts/sync_setup_cells.py

# Test markers to tags, glue plumbing off the page, code formatted to the book's column (scripts/tidy_notebooks.py).
tidy-notebooks: $(STAMP)
	$(PY) scripts/tidy_notebooks.py

# Every chapter as in Colab: the Colab image's versions (ci/colab-versions.txt) in .venv-colab, a
# stand-in google.colab module, each chapter alone, the course installed by its own first cell.
colab-check: $(STAMP)
	$(PY) scripts/colab_check.py

# The whole book as one PDF, _build/pdf/course.pdf: singlehtml build (from the execution cache)
# printed by headless Chromium.
pdf: $(STAMP) $(MATHJAX) $(PLOTLYJS) browser
	$(PY) scripts/build_pdf.py

# Every fast-scale record the chapters read (real-data experiments, diagnoses, studies, the theory claims), through
# the one runner; resumable: a record whose settings are current is skipped. Running a chapter never rewrites a record.
records: $(STAMP)
	$(PY) scripts/run_records.py --scale fast $(FULL_ARGS)

# Every full-scale result the book shows, resumable (a record whose settings are current is skipped),
# on the GPU when there is one: real-data experiments over their seeds, the diagnoses, the studies, the
# report's theory claims. Prints its estimated and its actual time.
# `make full FULL_ARGS=--dry-run` lists every record and whether it is current. `make full JOBS=8` runs the
# real-data records in 8 processes at once (one GPU holds them all).
JOBS ?= 1
full: $(STAMP)
	$(PY) scripts/run_records.py --scale full --jobs $(JOBS) $(FULL_ARGS)

# Mutation testing of every module of the package, each against its own unit tests (slow: hours on two cores;
# the weekly CI job runs it in six parts). One part or one subpackage: MUTATION_ARGS="--part 2/6" or
# MUTATION_ARGS="--modules real_data"; MUTATION_JOBS mutants at a time (default 1). Writes mutation/summary.md.
mutation: $(STAMP)
	$(PY) scripts/mutation.py --max-children $(or $(MUTATION_JOBS),1) $(MUTATION_ARGS)

release-check: $(STAMP)
	$(PY) scripts/release_check.py

clean:
	rm -rf _build $(VENV) .venv-colab

# Executed chapters (_build/.jupyter_cache) and the package's tokenised reviews and checkpoints.
clean-caches:
	rm -rf _build/.jupyter_cache .cache/token_selection
