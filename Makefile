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

demo: $(BIN)/.installed
	$(BIN)/python scripts/make_example_wheels.py demo
	@echo '$$ k3diff wheels demo/base/engine-1.0-cp311-cp311-linux_x86_64.whl demo/patch/engine-1.0-cp311-cp311-linux_x86_64.whl --source demo/engine-src --commit HEAD'
	@$(BIN)/k3diff wheels demo/base/engine-1.0-cp311-cp311-linux_x86_64.whl demo/patch/engine-1.0-cp311-cp311-linux_x86_64.whl --source demo/engine-src --commit HEAD; echo "(exit code $$?)"
	@echo
	@echo '$$ k3diff wheels demo/base/engine-1.0-cp311-cp311-linux_x86_64.whl demo/tampered/engine-1.0-cp311-cp311-linux_x86_64.whl --explain'
	@$(BIN)/k3diff wheels demo/base/engine-1.0-cp311-cp311-linux_x86_64.whl demo/tampered/engine-1.0-cp311-cp311-linux_x86_64.whl --explain; echo "(exit code $$?)"
	@echo
	@echo '$$ k3diff report demo/wheels.json demo/cmp.json demo/run/samples.jsonl demo/triage.json --out demo/bundle'
	@$(BIN)/python scripts/make_example_captures.py demo
	@$(BIN)/k3diff wheels demo/base/engine-1.0-cp311-cp311-linux_x86_64.whl demo/patch/engine-1.0-cp311-cp311-linux_x86_64.whl --source demo/engine-src --commit HEAD --format json -o demo/wheels.json 2>/dev/null; true
	@$(BIN)/k3diff responses demo/responses/base.jsonl demo/responses/patch.jsonl --format json -o demo/cmp.json 2>/dev/null; true
	@$(BIN)/k3diff triage demo/cmp.json demo/run/samples.jsonl --format json -o demo/triage.json 2>/dev/null; true
	@rm -rf demo/bundle
	@$(BIN)/k3diff report demo/wheels.json demo/cmp.json demo/run/samples.jsonl demo/triage.json --out demo/bundle --title 'engine 1.0 patch: evidence bundle'; echo "(exit code $$?)"
	@echo "Open demo/bundle/report.html in a browser (REPORT.md and summary.json beside it)."

test: $(BIN)/.installed
	$(BIN)/pytest -n auto --dist loadgroup -q

lint: $(BIN)/.installed
	$(BIN)/ruff check k3diff tests scripts
	$(BIN)/ruff format --check k3diff tests scripts
	$(BIN)/mypy

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
