# Two entry points, each creating the virtual environment it needs:
#   make demo   run the main job on the embedded default data (no network beyond PyPI, no ../shared)
#   make test   run the test suite (tests reading ../shared/data fail under CI=true if it is missing)
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip==25.3"
	$(BIN)/python -m pip install --quiet -e ".[test]"
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/halluscope demo --out demo_out

test: $(STAMP)
	$(BIN)/python -m pytest src tests

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_text.py

clean:
	rm -rf $(VENV) demo_out .pytest_cache
