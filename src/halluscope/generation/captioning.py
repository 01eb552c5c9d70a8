"""Caption images into a resumable run directory: one row per image, keyed by its image id.

>>> is_out_of_memory(RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"))
True
>>> is_out_of_memory(ValueError("bad image"))
False
>>> CaptionSummary(total=12, done=9, skipped=2, errors=1).line()
'captioned 9, skipped 2 already done, errors 1 (12 items)'

Rows (`RunStore`, Parquet): key (= str(image_id)), image_id, image, caption (special tokens
stripped), token_ids (as generated, EOS kept), logprobs (log_softmax of the raw logits at each
token), num_tokens, finish_reason ("eos", "length" or "error") and error (None, or a message
naming the image file). A missing or corrupt image is an error row, counted, and the run goes on.

Resuming: each batch is one atomically written shard, so after a kill at any point the same
command skips the finished keys and captions the rest, with no duplicates. Error rows count as
finished (use a new `--out` to retry them).

Determinism: greedy decoding, and the same rows whatever the batch size. On CPU in float32 the
logits of an item do not depend on its batch neighbours or its left padding beyond ~2e-7 for
all eight adapter families (checked once on tiny models; the tests cover LLaVA and Qwen2.5-VL,
whose differently sized images are left-padded), so no grouping by size is needed. In bf16/fp16
on a GPU, padding and batch shape change the kernels' reduction order, and near-tied greedy
choices can flip: compare runs made with the same batch size there (not checked on a GPU yet).

Out of memory: a batch that does not fit is halved and retried, and later batches keep the
smaller size; an item that does not fit alone becomes an error row.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

from halluscope.errors import ConfigError, InputError
from halluscope.generation.backends import (BackendSpec, GeneratedText, GenerationBackend,
                                            HFBackend)
from halluscope.generation.items import CaptionItem, ImageLoadError, as_items, load_image
from halluscope.io.atomic import write_json_atomic, write_jsonl_atomic
from halluscope.runs.executor import ExecutorConfig, check_model_placement, run_batches
from halluscope.runs.sharding import Shard
from halluscope.runs.store import RunStore, stored_keys

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

# NAME-Bench's captioning setup.
DEFAULT_PROMPT = "Provide a detailed description of this image."
DEFAULT_MAX_NEW_TOKENS = 128
CAPTIONS_FILE = "captions.jsonl"


@dataclass
class CaptionSummary:
    """What one `caption_images` call did."""

    total: int  # items asked for (after `limit`)
    done: int  # captioned now
    skipped: int  # already in the run directory
    errors: int  # error rows written now
    batch_size: int = 0  # batch size at the end (smaller than asked after out-of-memory)
    oom_backoffs: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        return (f"captioned {self.done}, skipped {self.skipped} already done, "
                f"errors {self.errors} ({self.total} items)")


@dataclass
class _BatchSize:
    """The batch size in force; halved on out-of-memory and kept small afterwards."""

    value: int
    backoffs: int = 0

    def back_off(self, failed: int) -> None:
        self.value = max(1, min(self.value, failed // 2))
        self.backoffs += 1


def is_out_of_memory(exc: BaseException) -> bool:
    """torch's OutOfMemoryError, or a RuntimeError that says so (MPS, older CUDA, cuBLAS)."""
    try:
        import torch

        if isinstance(exc, torch.OutOfMemoryError):
            return True
    except ImportError:  # pragma: no cover - torch is a dependency
        pass
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


def _release_memory() -> None:
    import gc

    import torch

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def caption_images(adapter: Any, items: Iterable[CaptionItem | Mapping[str, Any]],
                   out_dir: str | Path,
                   prompt: str = DEFAULT_PROMPT, max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
                   batch_size: int = 8, progress: Callable[[int], None] | None = None,
                   limit: int | None = None, max_image_side: int | None = None,
                   on_start: Callable[[int, int], None] | None = None,
                   executor: ExecutorConfig = ExecutorConfig(),
                   shard: Shard = Shard()) -> CaptionSummary:
    """Caption `items` with greedy decoding into the run directory `out_dir` (resumable).

    `items` are `CaptionItem`s or `{"image_id", "image": path}` dicts. `adapter` is a
    `VLMAdapter` (run through `HFBackend`), any `GenerationBackend`, or a `BackendSpec` (loaded
    where the work runs: required by `executor=ExecutorConfig("ray", ...)`, whose actors each
    load the model; a vllm spec on Ray runs on Ray Data's LLM processor instead: `vllm_ray`).
    `shard` keeps the items of one shard of a job array.
    `limit` keeps the first items only; `max_image_side` shrinks larger images (and sets the
    pixel budget, max_image_side², of Qwen processors). `on_start(pending, skipped)` is called
    once before generating, `progress(n)` after each batch of n items.
    """
    if batch_size < 1 or max_new_tokens < 1:
        raise ConfigError("batch_size and max_new_tokens must be at least 1")
    if max_image_side is not None and max_image_side < 1:
        raise ConfigError("max_image_side must be at least 1")
    spec, backend = _spec_or_backend(adapter, max_image_side, executor)
    job = CaptionJob(spec, prompt, max_new_tokens, max_image_side, batch_size)
    worker = CaptionWorker(job, backend) if backend is not None else None
    items = as_items(items)
    items = items[:limit] if limit is not None else items
    _check_unique(items)
    items = shard.select(items, lambda item: item.key)
    out = Path(out_dir)
    # With a loaded backend the manifest is known now; a spec's is known once a worker has
    # loaded the model (its first result), so the same settings give the same manifest.
    store = (RunStore(out, job.manifest(worker.backend), writer=shard.writer)
             if worker is not None else None)
    done = store.done_keys() if store is not None else stored_keys(out)
    pending = [item for item in items if item.key not in done]
    summary = CaptionSummary(total=len(items), done=0, skipped=len(items) - len(pending),
                             errors=0, batch_size=batch_size)
    if on_start is not None:
        on_start(len(pending), summary.skipped)
    started = time.monotonic()
    batches = [pending[i:i + batch_size] for i in range(0, len(pending), batch_size)]

    def write(result: CaptionBatch) -> None:
        nonlocal store
        if store is None:
            store = RunStore(out, result.manifest, writer=shard.writer)
        store.write_shard(result.rows)  # one atomic shard per batch: a kill loses this batch
        errors = sum(1 for r in result.rows if r["error"] is not None)
        summary.errors += errors
        summary.done += len(result.rows) - errors
        summary.batch_size = min(summary.batch_size, result.batch_size)
        summary.oom_backoffs += result.oom_backoffs
        if progress is not None:
            progress(len(result.rows))

    if spec is not None and spec.name == "vllm" and executor.kind == "ray":
        # vLLM on Ray: Ray Data's own LLM processor runs the engines (same rows).
        from halluscope.generation.vllm_ray import caption_with_ray_data_llm

        caption_with_ray_data_llm(job, pending, executor, write)
    else:
        run_batches(job, batches, executor, write, worker=worker)
    summary.seconds = round(time.monotonic() - started, 3)
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / f"summary{shard.file_suffix()}.json", asdict(summary))
    return summary


@dataclass(frozen=True)
class CaptionBatch:
    """What a worker returns for one batch: the run's manifest config and the rows."""

    manifest: dict[str, Any]
    rows: list[dict[str, Any]]
    batch_size: int  # the worker's batch size after this batch (smaller after out-of-memory)
    oom_backoffs: int  # back-offs during this batch


@dataclass(frozen=True)
class CaptionJob:
    """Captioning as a `BatchJob`: images are read on the CPU side, the backend runs in a
    worker (this process, or each Ray actor)."""

    backend: BackendSpec | None
    prompt: str
    max_new_tokens: int
    max_image_side: int | None
    batch_size: int

    def manifest(self, backend: GenerationBackend) -> dict[str, Any]:
        return {"command": "caption", **backend.describe(), "prompt": self.prompt,
                "max_new_tokens": self.max_new_tokens, "max_image_side": self.max_image_side}

    def prepare(self, batch: Sequence[CaptionItem]) -> list[tuple[CaptionItem, Any]]:
        """Each item with its decoded image, or the message of why it could not be read."""
        loaded: list[tuple[CaptionItem, Any]] = []
        for item in batch:
            try:
                loaded.append((item, load_image(item.image, self.max_image_side)))
            except ImageLoadError as exc:
                loaded.append((item, str(exc)))
        return loaded

    def load_worker(self) -> CaptionWorker:
        if self.backend is None:
            raise ConfigError("this caption job has no model to load")
        return CaptionWorker(self, self.backend.load())


class CaptionWorker:
    """Generates for prepared batches; out-of-memory halves its batch size from then on."""

    def __init__(self, job: CaptionJob, backend: GenerationBackend):
        self.job, self.backend = job, backend
        self.size = _BatchSize(job.batch_size)

    def __call__(self, prepared: Sequence[tuple[CaptionItem, Any]]) -> CaptionBatch:
        backoffs = self.size.backoffs
        rows: dict[str, dict[str, Any]] = {}
        loaded = []
        for item, image in prepared:
            if isinstance(image, str):
                rows[item.key] = error_row(item, image)
            else:
                loaded.append((item, image))
        results = _generate(self.backend, loaded, self.job.prompt, self.job.max_new_tokens,
                            self.size)
        for (item, _), result in zip(loaded, results):
            rows[item.key] = (error_row(item, result) if isinstance(result, str)
                              else caption_row(item, result))
        return CaptionBatch(self.job.manifest(self.backend),
                            [rows[item.key] for item, _ in prepared], self.size.value,
                            self.size.backoffs - backoffs)


def _spec_or_backend(adapter: Any, max_image_side: int | None, executor: ExecutorConfig
                     ) -> tuple[BackendSpec | None, GenerationBackend | None]:
    """A spec to load in each worker, or (local executor) the already loaded backend."""
    from halluscope.models.base import VLMAdapter

    if isinstance(adapter, BackendSpec):
        return adapter, None
    check_model_placement(executor, loaded=True)
    if isinstance(adapter, VLMAdapter):
        backend: GenerationBackend = HFBackend(
            adapter, max_pixels=max_image_side ** 2 if max_image_side else None)
    elif isinstance(adapter, GenerationBackend):
        backend = adapter
    else:
        raise ConfigError(f"expected a VLMAdapter, a GenerationBackend or a BackendSpec, got "
                          f"{type(adapter).__name__}")
    return None, backend


def _check_unique(items: Sequence[CaptionItem]) -> None:
    seen: set[str] = set()
    for item in items:
        if item.key in seen:
            raise InputError(f"image_id {item.image_id!r} appears twice; ids must be unique",
                             item=item.key)
        seen.add(item.key)


def _generate(backend: GenerationBackend, entries: Sequence[tuple[CaptionItem, Image.Image]],
              prompt: str, max_new_tokens: int, size: _BatchSize
              ) -> list[GeneratedText | str]:
    """Generate for `entries` in parts of `size.value`; a string is an item's error message.

    Out of memory halves the part and retries it. An input the processor rejects (ValueError,
    InputError) fails its whole batch, so the batch is redone item by item to find it.
    """
    results: list[GeneratedText | str] = []
    start = 0
    while start < len(entries):
        part = entries[start:start + size.value]
        try:
            answers = backend.generate([image for _, image in part], [prompt] * len(part),
                                       max_new_tokens)
            if len(answers) != len(part):
                raise RuntimeError(f"backend returned {len(answers)} answers for {len(part)} "
                                   "inputs")
            results.extend(answers)
        except Exception as exc:  # noqa: BLE001 - re-raised below unless OOM or a bad input
            oom = is_out_of_memory(exc)
            if not oom and not isinstance(exc, (ValueError, InputError)):
                raise
            if oom:
                _release_memory()
            if oom and len(part) > 1:
                size.back_off(len(part))
                log.warning("out of memory with %d images; retrying with %d", len(part),
                            size.value)
                continue
            if len(part) > 1:
                for entry in part:
                    results.extend(_generate(backend, [entry], prompt, max_new_tokens,
                                             _BatchSize(1)))
            else:
                what = "out of memory even alone" if oom else "generation failed"
                results.append(f"{part[0][0].image}: {what} ({_first_line(exc)})")
        start += len(part)
    return results


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def caption_row(item: CaptionItem, answer: GeneratedText) -> dict[str, Any]:
    """The stored row of a captioned item."""
    return {"key": item.key, "image_id": item.image_id, "image": item.image,
            "caption": answer.text, "token_ids": list(answer.token_ids),
            "logprobs": [float(v) for v in answer.logprobs],
            "num_tokens": len(answer.token_ids), "finish_reason": answer.finish_reason,
            "error": None}


def error_row(item: CaptionItem, message: str) -> dict[str, Any]:
    """The stored row of an item that could not be captioned (same columns, empty values).

    >>> error_row(CaptionItem(7, "x/7.jpg"), "x/7.jpg: image file not found")["finish_reason"]
    'error'
    """
    return {"key": item.key, "image_id": item.image_id, "image": item.image, "caption": "",
            "token_ids": [], "logprobs": [], "num_tokens": 0, "finish_reason": "error",
            "error": message}


@dataclass(frozen=True)
class ExportCounts:
    """What `export_captions` wrote and what it left out."""

    captions: int
    errors: int  # error rows (no caption)
    empty: int  # captions with no text (`halluscope label` rejects empty captions)
    failed: tuple[tuple[Any, str], ...] = ()  # (image_id, error message) of every error row


def open_run(out_dir: str | Path) -> RunStore:
    """The existing run directory `out_dir` (its manifest's settings), for reading."""
    manifest = Path(out_dir) / "manifest.json"
    if not manifest.is_file():
        raise ConfigError(f"{out_dir} is not a caption run directory (no manifest.json)")
    data = json.loads(manifest.read_text(encoding="utf-8"))
    return RunStore(out_dir, data["config"], key_column=data.get("key_column", "key"))


def export_captions(out_dir: str | Path, path: str | Path | None = None) -> ExportCounts:
    """Write `{"image_id", "image", "caption"}` lines in key order (atomically) to `path`
    (default `out_dir/captions.jsonl`); error rows and empty captions are left out, counted."""
    rows = open_run(out_dir).rows()
    lines = [{"image_id": r["image_id"], "image": r["image"], "caption": r["caption"]}
             for r in rows if r["error"] is None and r["caption"].strip()]
    errors = sum(1 for r in rows if r["error"] is not None)
    write_jsonl_atomic(Path(path) if path is not None else Path(out_dir) / CAPTIONS_FILE, lines)
    return ExportCounts(captions=len(lines), errors=errors,
                        empty=len(rows) - errors - len(lines),
                        failed=tuple((r["image_id"], r["error"]) for r in rows
                                     if r["error"] is not None))
