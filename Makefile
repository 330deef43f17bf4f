# Two commands a new user needs: `make demo` and `make test`. Each sets up its own venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint golden bench clean

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

test: $(BIN)/.installed
	$(BIN)/pytest -n auto --dist loadgroup -q

lint: $(BIN)/.installed
	$(BIN)/ruff check k3diff tests scripts
	$(BIN)/ruff format --check k3diff tests scripts
	$(BIN)/mypy

golden: $(BIN)/.installed
	$(BIN)/pytest -q --update-golden -k golden
	git status --short golden/

bench: $(BIN)/.installed
	$(BIN)/python scripts/bench_wheels.py

clean:
	rm -rf $(VENV) demo build *.egg-info
