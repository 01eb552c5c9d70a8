"""Generation backends: what turns images + prompts into token ids, text and log-probabilities.

>>> sorted(BACKENDS), default_dtype("cpu"), default_dtype("cuda:0"), dtype_name("bf16")
(['hf', 'vllm'], 'float32', 'bfloat16', 'bfloat16')
>>> finish_reason([5, 9, 2], eos_ids={2})
'eos'
>>> finish_reason([5, 9, 7], eos_ids={2})
'length'

The captioning loop only sees the `GenerationBackend` protocol, so another engine (vLLM) can be
added as one class and one `BACKENDS` entry ("name" -> "module:Class"). `HFBackend` runs
`VLMAdapter.generate` (transformers `generate`, greedy, left padding) and computes
log-probabilities from the raw logits: `log_softmax` of the model's logits at each chosen token,
not of the scores after logits processors (repetition penalty, ...), so they equal what
teacher forcing the same sequence gives.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Protocol, Sequence, runtime_checkable

from halluscope.errors import ConfigError
from halluscope.registry import Registry

if TYPE_CHECKING:
    from PIL import Image

    from halluscope.models.base import VLMAdapter

# Each class has `from_pretrained(model, dtype=, device=, max_pixels=)`.
BACKENDS = Registry("generation backend")
BACKENDS.add("hf", "halluscope.generation.backends:HFBackend")
BACKENDS.add("vllm", "halluscope.generation.vllm_backend:VLLMBackend")


@dataclass(frozen=True)
class GeneratedText:
    """One answer: token ids as generated (EOS kept when emitted), text without special tokens,
    the log-probability of each token, and why generation stopped ("eos" or "length")."""

    token_ids: list[int]
    text: str
    logprobs: list[float]
    finish_reason: str


@runtime_checkable
class GenerationBackend(Protocol):
    """What the captioning loop needs from a generation engine."""

    def generate(self, images: Sequence[Image.Image], prompts: Sequence[str],
                 max_new_tokens: int) -> list[GeneratedText]:
        """Greedy answers, one per (image, prompt), in order. Raises the engine's
        out-of-memory error (torch.OutOfMemoryError or a RuntimeError saying "out of memory")
        when the batch does not fit, so the caller can retry with fewer items."""
        ...

    def describe(self) -> dict[str, Any]:
        """Everything that changes the output (model, dtype, ...): the run's manifest config."""
        ...


def default_dtype(device: str) -> str:
    """float32 on CPU (exact, and bf16 matmuls are slow there); bfloat16 on accelerators."""
    return "float32" if str(device).split(":")[0] == "cpu" else "bfloat16"


_DTYPE_ALIASES: dict[str, str] = {"bf16": "bfloat16", "fp16": "float16", "half": "float16",
                                  "fp32": "float32", "float": "float32"}


def dtype_name(dtype: str) -> str:
    """The adapter's dtype name for a short alias (bf16, fp16, fp32); other names unchanged."""
    return _DTYPE_ALIASES.get(dtype.lower(), dtype.lower())


def check_device(device: str) -> None:
    """A ConfigError (not a CUDA traceback at model load) for an accelerator that is absent."""
    import torch

    kind = str(device).split(":")[0]
    if kind == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"device {device!r}: no CUDA device is available here; use --device cpu")
    if kind == "mps" and not torch.backends.mps.is_available():
        raise ConfigError(f"device {device!r}: MPS is not available here; use --device cpu")


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def resolve_device(device: str | None, gpus_per_worker: float = 0.0) -> str:
    """The one device rule of every model command: `auto` (or None) is cuda when this process
    sees a CUDA device, or when Ray actors are given GPUs (`gpus_per_worker` > 0), else cpu;
    any other value is kept as given.

    >>> resolve_device("cpu"), resolve_device("cuda:1"), resolve_device("auto", 1.0)
    ('cpu', 'cuda:1', 'cuda')
    """
    if device is None or device == "auto":
        return "cuda" if gpus_per_worker > 0 else default_device()
    return device


def finish_reason(token_ids: Sequence[int], eos_ids: set[int]) -> str:
    """"eos" when the last token ends the answer, else "length" (max_new_tokens reached)."""
    return "eos" if token_ids and token_ids[-1] in eos_ids else "length"


def load_backend(name: str, model: str | Path, dtype: str | None = None,
                 device: str | None = None, max_pixels: int | None = None,
                 **options: Any) -> GenerationBackend:
    """Load `model` into the backend registered as `name` (dtype default: `default_dtype`)."""
    cls = BACKENDS.load(name)
    device = device or default_device()
    check_device(device)
    return cls.from_pretrained(model, dtype=dtype_name(dtype or default_dtype(device)),
                               device=device, max_pixels=max_pixels, **options)


@dataclass(frozen=True)
class BackendSpec:
    """A backend to load later, in the process that runs it (a Ray actor): `load_backend`'s
    arguments.

    >>> BackendSpec("hf", "models/tiny", dtype="float32", device="cpu").name
    'hf'
    """

    name: str
    model: str
    dtype: str | None = None
    device: str | None = None
    max_pixels: int | None = None

    def __post_init__(self) -> None:
        BACKENDS.entry(self.name)  # a ConfigError naming the backends when unknown

    def check(self) -> None:
        """Fail now, in the driver, on what would fail in every worker: vLLM not installed for
        the vllm backend, a model folder whose family has no adapter (a hub id is checked when
        it is loaded)."""
        from halluscope.models.spec import ModelSpec

        if self.name == "vllm":
            from halluscope.generation.vllm_backend import import_vllm

            import_vllm()
        ModelSpec(self.model).check()

    def load(self) -> GenerationBackend:
        return load_backend(self.name, self.model, dtype=self.dtype, device=self.device,
                            max_pixels=self.max_pixels)


class HFBackend:
    """transformers generation through a `VLMAdapter` (greedy, left padding, float logits).

    >>> import tempfile; from PIL import Image; from halluscope.models.tiny import make_tiny
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     backend = HFBackend.from_pretrained(make_tiny("llava", folder, image_size=32))
    ...     answer, = backend.generate([Image.new("RGB", (32, 32))], ["Describe."], 4)
    >>> len(answer.token_ids), len(answer.logprobs), answer.finish_reason, backend.describe()["dtype"]
    (4, 4, 'length', 'float32')

    `max_pixels` caps the pixels per image for families whose processor resizes to a pixel
    budget (Qwen2-VL, Qwen2.5-VL, Qwen3-VL); other families resize to their fixed input size anyway.
    """

    name = "hf"

    def __init__(self, adapter: VLMAdapter, max_pixels: int | None = None):
        self.adapter = adapter
        self.max_pixels = max_pixels
        eos = adapter.model.generation_config.eos_token_id
        self.eos_ids: set[int] = set(eos if isinstance(eos, list) else
                                     [eos] if eos is not None else [])

    @classmethod
    def from_pretrained(cls, model: str | Path, dtype: str = "float32", device: str = "cpu",
                        max_pixels: int | None = None, **options: Any) -> HFBackend:
        from halluscope.models.registry import load_adapter

        # An absolute folder path, so that rerunning from another directory resumes the run.
        path = Path(model)
        source = str(path.resolve()) if path.is_dir() else str(model)
        return cls(load_adapter(source, dtype=dtype, device=device, **options), max_pixels)

    def describe(self) -> dict[str, Any]:
        model = self.adapter.model
        return {"backend": self.name, "model": str(getattr(model, "name_or_path", "")),
                "family": self.adapter.family, "dtype": str(model.dtype).removeprefix("torch."),
                "max_pixels": self.max_pixels if self.adapter.pixel_budget else None}

    def generate(self, images: Sequence[Image.Image], prompts: Sequence[str],
                 max_new_tokens: int) -> list[GeneratedText]:
        import torch

        with self._pixel_budget():
            generations = self.adapter.generate(images, prompts, max_new_tokens=max_new_tokens,
                                                return_logits=True)
        results: list[GeneratedText] = []
        for gen in generations:
            ids = list(gen.token_ids)
            if ids:
                # float32 before log_softmax: bf16 logits would round the normaliser.
                logprobs = torch.log_softmax(gen.logits.float(), dim=-1)
                chosen = logprobs.gather(-1, torch.tensor(ids, device=logprobs.device)[:, None])
                values = chosen[:, 0].cpu().tolist()
            else:
                values = []
            results.append(GeneratedText(ids, gen.text, values, finish_reason(ids, self.eos_ids)))
        return results

    @contextlib.contextmanager
    def _pixel_budget(self) -> Iterator[None]:
        """Lower the Qwen image processor's `size["longest_edge"]` (its max_pixels) for the
        call, and put it back after: the adapter may be shared with other code.

        transformers 5 deprecates `max_pixels=` as a call argument; the processor reads the
        budget from `image_processor.size` (shortest_edge = min_pixels, longest_edge =
        max_pixels).
        """
        image_processor = getattr(self.adapter.processor, "image_processor", None)
        if not self.max_pixels or not self.adapter.pixel_budget or image_processor is None:
            yield
            return
        original = image_processor.size
        size = dict(original)
        size["longest_edge"] = min(size.get("longest_edge") or self.max_pixels, self.max_pixels)
        size["shortest_edge"] = min(size.get("shortest_edge") or 0, size["longest_edge"])
        image_processor.size = type(original)(**size) if not isinstance(original, dict) else size
        try:
            yield
        finally:
            image_processor.size = original
