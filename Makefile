# Two commands set up everything: `make run` and `make test`.
PYTHON ?= python3
# The tests run on two pytest-xdist workers (the conftest keeps the browser tests together);
# PYTEST_ARGS= (empty) runs them serially, PYTEST_ARGS="-n auto --dist loadgroup" on every core.
PYTEST_ARGS ?= -n 2 --dist loadgroup
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install validate bench schema clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/computeatlas serve --host 127.0.0.1 --port 8000

test: $(STAMP)
	scripts/ensure-chromium.sh
	BROWSER_TESTS=required bash scripts/with-postgres.sh $(BIN)/python -m pytest $(PYTEST_ARGS)

validate: $(STAMP)
	$(BIN)/computeatlas validate

schema: $(STAMP)
	$(BIN)/computeatlas schema --out schema

bench: $(STAMP)  # ~10 min: peers in benchmarks/.peers/ (gitignored), nginx and wrk via apt-get; writes benchmarks/RESULTS.md
	$(BIN)/python benchmarks/run.py --results benchmarks/RESULTS.md

clean:
	rm -rf $(VENV) build *.egg-info
