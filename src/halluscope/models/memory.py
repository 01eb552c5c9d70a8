"""GPU memory a model command needs, estimated from a model's config.json before loading it.

>>> from transformers import LlavaConfig, CLIPVisionConfig, LlamaConfig
>>> cfg = LlavaConfig(vision_config=CLIPVisionConfig(hidden_size=32, intermediate_size=64,
...                   num_hidden_layers=1, num_attention_heads=2, image_size=28, patch_size=14),
...                   text_config=LlamaConfig(vocab_size=100, hidden_size=32, intermediate_size=64,
...                   num_hidden_layers=2, num_attention_heads=4))
>>> kv_cache_bytes_per_token(cfg, dtype="float32")  # K and V, 2 layers, 4 heads x 8 dims, 4 bytes
512
>>> est = estimate_memory(cfg, dtype="bfloat16", batch_size=2, image_tokens=4, prompt_tokens=10,
...                       new_tokens=6)
>>> est.parameters == count_parameters(cfg), est.sequence_tokens
(True, 20)

Parameters are counted exactly, by building the model on PyTorch's meta device (no memory, no
weights). Everything else is arithmetic on the config, so the figures are estimates:

- weights: parameters x bytes of `dtype`;
- KV cache: K and V of every layer (KV heads x head dim) for the whole sequence (image + prompt +
  new tokens), per sequence of the batch; sliding-window layers are counted at full length, so
  this is an upper bound for Gemma 3;
- logits: float32, one vocabulary row per sequence (generation keeps the last position's;
  `signals` asks for one and reads the mentions' log-probabilities from its captured states);
- activations: the largest single layer's working set (the MLP's gate and up projections and the
  residual stream) over the whole sequence; transformers frees each layer's before the next;
  `signals` runs without a KV cache (one teacher-forced pass);
- `signals` adds the logit lens (Internal Confidence): 64 image tokens at a time through the
  vocabulary, float32.
A 10% allocator margin is added to the total. CUDA's context (~0.5 GiB) is not included.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

GIB = 1024 ** 3
DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}
LOGIT_LENS_CHUNK = 64  # image tokens projected through lm_head at a time (signals.features)
ALLOCATOR_MARGIN = 1.10


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes per part for one model command at one batch size and sequence length."""

    command: str
    parameters: int
    batch_size: int
    sequence_tokens: int
    weights: int
    kv_cache: int
    logits: int
    activations: int
    logit_lens: int

    @property
    def total(self) -> int:
        parts = self.weights + self.kv_cache + self.logits + self.activations + self.logit_lens
        return int(parts * ALLOCATOR_MARGIN)

    def as_gib(self) -> dict[str, Any]:
        """The estimate as a row: bytes in GiB (2 decimals), counts as integers."""
        row = asdict(self)
        for key in ("weights", "kv_cache", "logits", "activations", "logit_lens"):
            row[key + "_gib"] = round(row.pop(key) / GIB, 2)
        row["total_gib"] = round(self.total / GIB, 2)
        return row


def text_config(config: Any) -> Any:
    """The language model's config of a VLM config (the config itself for a text model)."""
    return getattr(config, "text_config", None) or getattr(config, "llm_config", None) or config


def _head_dim(text: Any) -> int:
    head_dim = getattr(text, "head_dim", None)
    return int(head_dim) if head_dim else text.hidden_size // text.num_attention_heads


def kv_cache_bytes_per_token(config: Any, dtype: str = "bfloat16") -> int:
    """Bytes of K and V that one token occupies over every decoder layer."""
    text = text_config(config)
    kv_heads = getattr(text, "num_key_value_heads", None) or text.num_attention_heads
    return 2 * text.num_hidden_layers * kv_heads * _head_dim(text) * DTYPE_BYTES[dtype]


def count_parameters(config: Any) -> int:
    """Exact parameter count of the family's model built from `config` on the meta device
    (tied embeddings counted once)."""
    import torch

    from halluscope.models.base import _import
    from halluscope.models.registry import adapter_class, family_for_model_type

    model_cls = _import(adapter_class(family_for_model_type(config.model_type)).model_class)
    with torch.device("meta"):
        model = model_cls._from_config(config)
    return sum(p.numel() for p in model.parameters())


def estimate_memory(config: Any, *, command: str = "caption", dtype: str = "bfloat16",
                    batch_size: int = 1, image_tokens: int = 576, prompt_tokens: int = 64,
                    new_tokens: int = 512, parameters: int | None = None) -> MemoryEstimate:
    """The memory `command` ("caption", "signals" or "probe") needs; see the module docstring."""
    if dtype not in DTYPE_BYTES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPE_BYTES)}, not {dtype!r}")
    if command not in ("caption", "signals", "probe"):
        raise ValueError(f"command must be caption, signals or probe, not {command!r}")
    if min(batch_size, image_tokens, prompt_tokens, new_tokens) < 0 or batch_size == 0:
        raise ValueError("batch size must be positive and token counts non-negative")
    text = text_config(config)
    width = DTYPE_BYTES[dtype]
    tokens = image_tokens + prompt_tokens + new_tokens
    params = count_parameters(config) if parameters is None else parameters
    vocab = text.vocab_size
    generating = command != "signals"
    kv_cache = batch_size * tokens * kv_cache_bytes_per_token(config, dtype) if generating else 0
    logits = batch_size * vocab * 4
    activations = batch_size * tokens * (2 * text.intermediate_size + 4 * text.hidden_size) * width
    logit_lens = 0
    if command == "signals":
        logit_lens = LOGIT_LENS_CHUNK * vocab * 4 + LOGIT_LENS_CHUNK * text.hidden_size * 4
    return MemoryEstimate(command=command, parameters=params, batch_size=batch_size,
                          sequence_tokens=tokens, weights=params * width, kv_cache=kv_cache,
                          logits=logits, activations=activations, logit_lens=logit_lens)
