# Two commands set up everything: `make run` and `make test`.
PYTHON ?= python3
# The tests run on two pytest-xdist workers (the conftest keeps the browser tests together);
# PYTEST_ARGS= (empty) runs them serially, PYTEST_ARGS="-n auto --dist loadgroup" on every core.
PYTEST_ARGS ?= -n 2 --dist loadgroup
# make run PORT=8080 HOST=0.0.0.0 serves elsewhere.
HOST ?= 127.0.0.1
PORT ?= 8000
VENV := .venv
BIN := $(VENV)/bin
# Serving needs only the package's own dependencies; the tests need the [test] extras too.
# One stamp for each, so `make run` on a fresh checkout does not install the test tools.
RUN_STAMP := $(VENV)/.installed-run
STAMP := $(VENV)/.installed-test

.PHONY: run test check install validate bench schema clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/pip install --quiet -e .
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP) $(RUN_STAMP)

install: $(STAMP)

run: $(RUN_STAMP)
	$(BIN)/computeatlas serve --host $(HOST) --port $(PORT)

# PYTHONDONTWRITEBYTECODE is cleared for the tests: each of the ~15 Python processes of a run
# (two workers, the test servers, CLI subprocesses) would otherwise compile the package again.
test: check
	scripts/ensure-chromium.sh
	PYTHONDONTWRITEBYTECODE= BROWSER_TESTS=required bash scripts/with-postgres.sh $(BIN)/python -m pytest $(PYTEST_ARGS)

# The static checks, before the tests: lint and format (ruff), types (mypy), the import layers (import-linter).
check: $(STAMP)
	$(BIN)/ruff check computeatlas tests benchmarks scripts
	$(BIN)/ruff format --check computeatlas tests benchmarks scripts
	$(BIN)/mypy
	$(BIN)/lint-imports

validate: $(RUN_STAMP)
	$(BIN)/computeatlas validate

schema: $(RUN_STAMP)
	$(BIN)/computeatlas schema --out schema

bench: $(STAMP)  # ~10 min: peers in benchmarks/.peers/ (gitignored), nginx and wrk via apt-get; writes benchmarks/RESULTS.md
	$(BIN)/python benchmarks/run.py --results benchmarks/RESULTS.md

clean:
	rm -rf $(VENV) build *.egg-info
