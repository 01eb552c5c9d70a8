"""`caption --executor ray --backend vllm` through Ray Data's LLM processor (`ray.data.llm`).

>>> placement_bundles(0.0), placement_bundles(1.0)
([{'CPU': 1}], [{'CPU': 1, 'GPU': 1.0}])
>>> finish_reason_from_ids([5, 9, 2], stop_ids={2}), finish_reason_from_ids([5, 9], {2})
('eos', 'length')

Instead of actors of our own that each hold a `VLLMBackend`, the images go through
`vLLMEngineProcessorConfig` + `build_processor`: a preprocess (Ray tasks) reads each image and
forms the request (the same prompt text, image, greedy `SamplingParams` with the chosen token's
log-probability, and the same engine arguments as `VLLMBackend`: `engine_setup`), Ray Data's
engine stage runs `--workers` vLLM engines (each on a placement bundle of one CPU, plus
`--gpus-per-worker` GPUs), and the driver turns the answers into the same run-store rows.
Ray's chat-template, tokenize and detokenize stages are off: vLLM tokenizes our prompt text, as
`LLM.generate` does, and the driver decodes the ids as `VLLMBackend` does.

Two things the processor does not hand back are rebuilt exactly:
- The finish reason (its output has no such field): vLLM checks the stop tokens before the
  length (vllm/v1/core/sched/utils.py `check_stop`), so an answer ended with "eos" exactly when
  its last id is one of vLLM's stop ids for the model (the tokenizer's EOS and the generation
  config's `eos_token_id`, as its input processor collects them).
- An image that cannot be read becomes the row's `__inference_error__` in the preprocess: Ray's
  stages pass such rows on without running them (ray/llm/_internal/batch/stages/base.py,
  `StatefulStageUDF.__call__`), and they become error rows naming the file, as on the other
  executors. A request vLLM rejects is an error row too (`should_continue_on_error`).

Rows are written `batch_size` at a time as they arrive (one atomic shard each), so a killed run
resumes by keys as on the other executors.
"""

from __future__ import annotations

import logging
import math
import os
from typing import TYPE_CHECKING, Any, Callable, Sequence

from halluscope.generation.backends import (GeneratedText, check_device, default_device,
                                            default_dtype, dtype_name)
from halluscope.generation.items import CaptionItem, ImageLoadError, load_image
from halluscope.generation.vllm_backend import (VLLMBackend, decode_answer, engine_setup,
                                                import_vllm)
from halluscope.runs.executor import PREPARE_CPUS, ExecutorConfig, ray_session, worker_error

if TYPE_CHECKING:
    from halluscope.generation.captioning import CaptionBatch, CaptionJob

# The column Ray's LLM stages read to pass a row on without running it.
RAY_ERROR_COLUMN = "__inference_error__"


def placement_bundles(gpus_per_worker: float) -> list[dict[str, float]]:
    """One engine's resources: a CPU, and its GPUs when asked for (none: vLLM's CPU build)."""
    bundle: dict[str, float] = {"CPU": 1}
    if gpus_per_worker:
        bundle["GPU"] = gpus_per_worker
    return [bundle]


def finish_reason_from_ids(ids: Sequence[int], stop_ids: set[int]) -> str:
    """vLLM's finish reason ("stop" -> "eos", else "length") from the ids it generated."""
    return "eos" if ids and ids[-1] in stop_ids else "length"


def vllm_stop_ids(engine_folder: str, tokenizer: Any) -> set[int]:
    """The ids that end a greedy answer in vLLM: the tokenizer's EOS and the generation
    config's `eos_token_id` (read with vLLM's own function)."""
    from vllm.transformers_utils.config import try_get_generation_config

    ids: set[int] = set()
    if tokenizer.eos_token_id is not None:
        ids.add(int(tokenizer.eos_token_id))
    config = try_get_generation_config(engine_folder, trust_remote_code=False)
    eos = getattr(config, "eos_token_id", None) if config is not None else None
    if eos is not None:
        ids.update(int(t) for t in ([eos] if isinstance(eos, int) else eos))
    return ids


class _Request:
    """The preprocess: one row ({key, image}) -> the engine stage's request fields."""

    def __init__(self, prompt: str, max_new_tokens: int, max_image_side: int | None):
        self.prompt, self.max_new_tokens = prompt, max_new_tokens
        self.max_image_side = max_image_side

    def __call__(self, row: dict[str, Any]) -> dict[str, Any]:
        try:
            image = load_image(row["image"], self.max_image_side)
        except ImageLoadError as exc:
            return {RAY_ERROR_COLUMN: str(exc), "load_error": str(exc)}
        return {"prompt": self.prompt, "multimodal_data": {"image": image},
                # logprobs=0: the chosen token's log-probability (raw logits), nothing more.
                "sampling_params": {"temperature": 0.0, "max_tokens": self.max_new_tokens,
                                    "logprobs": 0}}


def _answer(row: dict[str, Any]) -> dict[str, Any]:
    """The postprocess (answered rows only): the key, the ids and each id's log-probability."""
    ids = [int(t) for t in row["generated_tokens"]]
    steps = row["logprobs"] or []
    # Each step maps token id -> {"logprob", "rank", "decoded_token"}.
    logprobs = [float(step[t]["logprob"]) for t, step in zip(ids, steps)]
    return {"key": row["key"], "token_ids": ids, "logprobs": logprobs, RAY_ERROR_COLUMN: ""}


def caption_with_ray_data_llm(job: CaptionJob, items: Sequence[CaptionItem],
                              executor: ExecutorConfig,
                              on_result: Callable[[CaptionBatch], None]) -> None:
    """Caption `items` (not yet in the store) with `job`'s vLLM spec on Ray Data's LLM
    processor; `on_result` gets `CaptionBatch`es of up to `job.batch_size` rows."""
    from halluscope.generation.captioning import CaptionBatch, caption_row, error_row

    spec = job.backend
    assert spec is not None and spec.name == "vllm"
    if not items:
        return
    import_vllm()
    device = spec.device or default_device()
    check_device(device)
    dtype = dtype_name(spec.dtype or default_dtype(device))
    setup = engine_setup(spec.model, dtype=dtype, device=device, max_pixels=spec.max_pixels)
    # The backend's manifest and prompt, without starting an engine in the driver.
    backend = VLLMBackend(None, setup.processor, setup.source, setup.family, dtype,
                          spec.max_pixels)
    manifest = job.manifest(backend)
    tokenizer = setup.processor.tokenizer
    engine_kwargs = dict(setup.kwargs)
    engine_folder = engine_kwargs.pop("model")
    stop_ids = vllm_stop_ids(engine_folder, tokenizer)
    by_key = {item.key: item for item in items}

    def row_of(out: dict[str, Any]) -> dict[str, Any]:
        item = by_key[out["key"]]
        if out.get("load_error"):  # set by _Request: the ImageLoadError's message
            return error_row(item, out["load_error"])
        failed = out.get(RAY_ERROR_COLUMN) or ""
        if failed:
            return error_row(item, f"{item.image}: generation failed "
                                   f"({failed.strip().splitlines()[0]})")
        ids, logprobs = list(out["token_ids"]), list(out["logprobs"])
        if len(logprobs) != len(ids):
            raise RuntimeError(f"vLLM returned {len(logprobs)} log-probabilities for "
                               f"{len(ids)} tokens ({item.image})")
        return caption_row(item, GeneratedText(
            ids, decode_answer(tokenizer, ids), logprobs,
            finish_reason_from_ids(ids, stop_ids)))

    env_vars = {"MKL_CBWR": os.environ["MKL_CBWR"]}  # see halluscope/__init__.py
    if "VLLM_CPU_KVCACHE_SPACE" in os.environ:  # engine_setup sets it on CPU
        env_vars["VLLM_CPU_KVCACHE_SPACE"] = os.environ["VLLM_CPU_KVCACHE_SPACE"]
    with ray_session(executor):
        import ray.data
        from ray.data.llm import build_processor, vLLMEngineProcessorConfig

        for name in ("ray", "ray.data", "ray.llm"):
            logging.getLogger(name).setLevel(logging.ERROR)
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        context.print_on_execution_start = False
        config = vLLMEngineProcessorConfig(
            model_source=engine_folder, engine_kwargs=engine_kwargs,
            runtime_env={"env_vars": env_vars},
            placement_group_config={"bundles": placement_bundles(executor.gpus_per_worker)},
            concurrency=executor.workers, batch_size=job.batch_size,
            chat_template_stage=False, tokenize_stage=False, detokenize_stage=False,
            should_continue_on_error=True, log_engine_metrics=False)
        processor = build_processor(config, preprocess=_Request(
            backend.prompt_text(job.prompt), job.max_new_tokens, job.max_image_side),
            postprocess=_answer, preprocess_map_kwargs={"num_cpus": PREPARE_CPUS})
        source = ray.data.from_items([{"key": i.key, "image": i.image} for i in items],
                                     override_num_blocks=math.ceil(len(items) / job.batch_size))
        rows: list[dict[str, Any]] = []
        try:
            for out in processor(source).iter_rows():
                rows.append(row_of(out))
                if len(rows) == job.batch_size:
                    on_result(CaptionBatch(manifest, rows, job.batch_size, 0))
                    rows = []
        except Exception as exc:  # noqa: BLE001 - re-raised, unwrapped when it is ours
            raise worker_error(exc) from None
        if rows:
            on_result(CaptionBatch(manifest, rows, job.batch_size, 0))
