# The two set-up commands of the README:
#   make book   builds the book (executes every chapter) into _build/html
#   make test   runs every test: ruff, unit tests, nbval over notebooks/, browser test of the built book
# Both create .venv and install what is needed on their first run.

VENV      ?= .venv
PYTHON    ?= python3
BIN       := $(abspath $(VENV))/bin
PY        := $(BIN)/python
STAMP     := $(VENV)/.installed
MATHJAX   := book/_static/mathjax/tex-chtml.js
PLOTLYJS  := book/_static/plotly.min.js
CHROMIUM  ?= $(shell command -v chromium || command -v chromium-browser)

export PATH := $(BIN):$(PATH)
export PYTHONHASHSEED := 0
export TOKEN_SELECTION_DATA ?= $(abspath ../shared/data)

.PHONY: install book test lint unit notebooks browser explorer-grid clean

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -r requirements.txt -e .
	touch $(STAMP)

# MathJax from the npm registry, served by the site itself (no CDN).
$(MATHJAX):
	rm -rf /tmp/mathjax-pkg && mkdir -p /tmp/mathjax-pkg book/_static/mathjax
	cd /tmp/mathjax-pkg && npm pack --silent mathjax@3.2.2 >/dev/null && tar xzf mathjax-3.2.2.tgz
	cp -r /tmp/mathjax-pkg/package/es5/. book/_static/mathjax/

# plotly.js from the installed plotly package, served by the site itself.
$(PLOTLYJS): $(STAMP)
	cp "$$($(PY) -c 'import plotly, pathlib; print(pathlib.Path(plotly.__file__).parent / "package_data" / "plotly.min.js")')" $@

book: $(STAMP) $(MATHJAX) $(PLOTLYJS)
	$(BIN)/jupyter-book build . -W --keep-going

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check src benchmarks

unit: $(STAMP)
	$(PY) -m pytest src

browser:
	@if [ -z "$(CHROMIUM)" ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; \
	fi

test: $(STAMP) lint browser book
	$(PY) scripts/build_explorer_grid.py --check
	$(PY) -m pytest src book notebooks --nbval-lax --durations=15

# Recompute the static explorer's precomputed grid (book/_static/explorer/grid.json) when it is stale.
explorer-grid: $(STAMP)
	$(PY) scripts/build_explorer_grid.py

# Re-execute every chapter at the fast scale and strip outputs, keeping only the
# cells whose output nbval compares (cell metadata keep_output: true).
notebooks: $(STAMP)
	$(PY) scripts/refresh_notebooks.py notebooks/*.ipynb

clean:
	rm -rf _build $(VENV)
