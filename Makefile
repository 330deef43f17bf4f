# Two commands a new user needs: `make demo` and `make test`. Each sets up its own venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint golden bench clean screenshot

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

# The example end to end (scripts/demo.py): wheels, two scripted engines captured, sampled and
# triaged (stopped by pid on every path), then the evidence bundle in demo/bundle.
demo: $(BIN)/.installed
	@$(BIN)/python scripts/demo.py demo

test: $(BIN)/.installed
	$(BIN)/pytest -n auto --dist loadgroup -q

lint: $(BIN)/.installed
	$(BIN)/ruff check k3diff tests scripts
	$(BIN)/ruff format --check k3diff tests scripts
	$(BIN)/mypy   # k3diff/ and tests/ (pyproject: files)
	$(BIN)/pytest -q -n 0 -p no:cacheprovider tests/test_layering.py

golden: $(BIN)/.installed
	$(BIN)/pytest -q -m golden --update-golden
	git status --short golden/

# Regenerates docs/report.png (shown in README) from the demo bundle in headless Chromium.
screenshot: demo
	$(BIN)/python scripts/report_screenshot.py demo/bundle/report.html docs/report.png

bench: $(BIN)/.installed
	$(BIN)/python scripts/bench_wheels.py

clean:
	rm -rf $(VENV) demo build *.egg-info
