"""Per-mention signals for a caption file: one teacher-forced pass per caption, into a RunStore.

>>> from halluscope.errors import InputError
>>> _error_kind(FileNotFoundError("x")), _error_kind(InputError("too long")), _error_kind(OSError())
('missing_image', 'input_error', 'corrupt_image')

`extract_signals(adapter, items, out_dir)` takes captions `{"image_id", "image", "caption"}`
(+ optional `"token_ids"`: the generated ids, teacher-forced exactly; optional `"prompt"`) and
writes
- `out_dir/mentions/`: one row per aligned mention, key `f"{caption_index}:{mention_index}"`
  (mention_index = the mention's index in `extract_mentions(caption_text)`), with its span,
  category, token position and every feature of `halluscope.signals.features` (matrices as
  nested lists: `np.asarray(row["dhcp_attention"])` has shape (L, H, 36));
- `out_dir/captions/`: one row per processed caption, key `str(caption_index)`, with its
  `input_ids` (unpadded, as the model read them), prompt length, image span, HALP hidden state;
- `out_dir/summary.json`: counts of this run and the recorded per-item errors.
Positions stored are positions in the unpadded sequence (independent of batching).
With `perturbations=PerturbationConfig(...)` every mention row also holds its perturbation
signature (`halluscope.signals.perturbations`: one more batched forward per condition) and the
manifest records the conditions, so a store resumes only with the same ones.

Resuming: captions whose caption row exists are skipped; a caption is written mentions first,
caption row last, so a crash in between only redoes that caption (mention keys already present
are not written twice). Errors (missing or corrupt image, a sequence longer than the model's
context, a failed forward) are recorded in the summary and counted, never stored as done: a
rerun tries those items again. A caption with no mentions is done (a caption row with
`n_mentions=0`) and counted as `no_mentions`.
"""

from __future__ import annotations

import inspect
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from halluscope.errors import ConfigError, InputError
from halluscope.generation.captioning import DEFAULT_PROMPT  # NAME-Bench's prompt
from halluscope.io.atomic import write_json_atomic
from halluscope.models.spec import ModelSpec
from halluscope.runs.executor import ExecutorConfig, check_model_placement, run_batches
from halluscope.runs.sharding import Shard
from halluscope.runs.store import RunStore, stored_keys
from halluscope.signals.alignment import TokenAlignment, align_mentions
from halluscope.signals.features import (FeatureCollector, MentionSlot, RowLayout, SignalConfig,
                                         dhcp_grid, encode_text_only)

if TYPE_CHECKING:
    from halluscope.models.base import EncodedBatch, VLMAdapter
    from halluscope.signals.perturbations import PerturbationConfig, PerturbationRequest
    from halluscope.text.mentions import Mention


@dataclass
class Prepared:
    """One caption ready to encode."""

    index: int
    item: Mapping[str, Any]
    image: Any
    caption: Any  # text or token ids, as given to `adapter.encode`
    prompt: str
    mentions: list[Mention]


def _error_kind(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError):
        return "missing_image"
    if isinstance(exc, InputError):
        return "input_error"
    if isinstance(exc, OSError):  # PIL.UnidentifiedImageError, truncated files
        return "corrupt_image"
    return "failed"


def load_image(path: str | Path) -> Any:
    """The image as RGB, fully decoded now (a truncated file fails here, not in the batch)."""
    from PIL import Image

    with Image.open(path) as image:
        return image.convert("RGB")


def _to_list(value: Any) -> Any:
    return value.detach().cpu().tolist() if hasattr(value, "detach") else value


def _model_accepts(model: Any, name: str) -> bool:
    return name in inspect.signature(model.forward).parameters


def _max_length(adapter: VLMAdapter) -> int | None:
    config = adapter.model.config.get_text_config()
    return getattr(config, "max_position_embeddings", None)


def _layouts(adapter: VLMAdapter, batch: EncodedBatch, mentions: Sequence[Sequence[Mention]],
             window: int) -> tuple[list[RowLayout], list[list[TokenAlignment | None]]]:
    grids = batch.inputs.get("image_grid_thw")
    merge = getattr(getattr(adapter.model.config, "vision_config", None), "spatial_merge_size", 1)
    per_tile, tiles = adapter.tile_tokens(), adapter.tile_layout
    layouts, alignments = [], []
    for row, (item, found) in enumerate(zip(batch.items, mentions)):
        aligned = align_mentions(item.caption_offsets, [(m.start, m.end) for m in found],
                                 item.prompt_length, window)
        start, end = item.image_span
        (offset, count), grid = dhcp_grid(end - start,
                                          grids[row].tolist() if grids is not None else None,
                                          merge, per_tile, tiles)
        layouts.append(RowLayout(row=row, padding=item.padding, prompt_length=item.prompt_length,
                                 image_span=item.image_span, grid=grid,
                                 mentions=[MentionSlot(a, item.caption_token_ids[a.caption_token])
                                           for a in aligned if a is not None],
                                 grid_span=(start + offset, start + offset + count)))
        alignments.append(aligned)
    return layouts, alignments


def run_collector(adapter: VLMAdapter, inputs: Mapping[str, Any],
                  collector: FeatureCollector) -> None:
    """One forward under a `Capture` wired to `collector` (sdpa fast path, no cache)."""
    import torch

    from halluscope.signals.capture import Capture

    model = adapter.model
    extra = {"logits_to_keep": 1} if _model_accepts(model, "logits_to_keep") else {}
    inputs = cut_inputs(inputs, collector.needed_length())
    with Capture(adapter.modules, collector.queries(), collector.on_attention,
                 collector.on_hidden, collector.hidden_indices()), torch.no_grad():
        model(**inputs, use_cache=False, **extra)


def cut_inputs(inputs: Mapping[str, Any], length: int) -> dict[str, Any]:
    """`inputs` with every per-token tensor (the shape of `input_ids`) cut to `length` tokens.

    >>> import torch
    >>> ids = torch.arange(6).reshape(2, 3)
    >>> cut = cut_inputs({"input_ids": ids, "attention_mask": ids, "pixels": torch.ones(2, 5)}, 2)
    >>> [tuple(v.shape) for v in cut.values()]
    [(2, 2), (2, 2), (2, 5)]

    Attention is causal (Gemma 3's two-way attention stays inside the image block, before the
    caption), so tokens after the last position a feature reads change nothing it reads: the
    forward skips them (text after a caption's last mention, EOS). Per-image tensors (pixels,
    grids) are kept whole: no image token is ever cut.
    """
    shape = tuple(inputs["input_ids"].shape)
    if length >= shape[1]:
        return dict(inputs)
    return {k: v[:, :length] if hasattr(v, "shape") and tuple(v.shape) == shape else v
            for k, v in inputs.items()}


def batch_signals(adapter: VLMAdapter, batch: EncodedBatch, mentions: Sequence[Sequence[Mention]],
                  prompts: Sequence[str], config: SignalConfig = SignalConfig(),
                  perturbation: PerturbationRequest | None = None
                  ) -> list[tuple[dict[str, Any], list[dict[str, Any] | None]]]:
    """Per batch row: (caption features, one feature dict per mention or None if unaligned).

    With `perturbation`, each mention's features also hold its perturbation signature
    (`signals.perturbations`): one more batched forward per condition, the clean log-probs
    taken from this pass."""
    modules = adapter.modules
    num_layers = len(modules.layers)
    layouts, alignments = _layouts(adapter, batch, mentions, config.window)
    collector = FeatureCollector(layouts, num_layers, config, modules.final_norm, modules.lm_head)
    run_collector(adapter, batch.inputs, collector)
    signatures = None
    if perturbation is not None:
        from halluscope.signals.perturbations import batch_signatures

        token_ids = [item.caption_token_ids for item in batch.items]
        signatures = batch_signatures(
            adapter, perturbation, prompts, [[(m.start, m.end) for m in found]
                                             for found in mentions], token_ids,
            [collector.window_token_stats(lay.row, token_ids[lay.row]) for lay in layouts],
            config.window)
    text_collector = None
    if config.text_only:
        inputs, paddings, prompt_lengths = encode_text_only(
            adapter, prompts, [item.caption_token_ids for item in batch.items])
        text_layouts = [
            RowLayout(row=lay.row, padding=paddings[lay.row],
                      prompt_length=prompt_lengths[lay.row], image_span=(0, 0), grid=None,
                      mentions=[MentionSlot(_shift(m.alignment, prompt_lengths[lay.row]
                                                   - lay.prompt_length), m.token_id)
                                for m in lay.mentions])
            for lay in layouts]
        text_collector = FeatureCollector(text_layouts, num_layers, config, text_only=True)
        run_collector(adapter, inputs, text_collector)
    results = []
    for lay, aligned in zip(layouts, alignments):
        per_mention = collector.mention_features(lay.row)
        if signatures is not None:
            for features, signature in zip(per_mention, signatures[lay.row]):
                features.update(signature)
        if text_collector is not None:
            for features, text in zip(per_mention, text_collector.mention_features(lay.row)):
                features.update(text)
        it = iter(per_mention)
        results.append((collector.caption_features(lay.row),
                        [next(it) if a is not None else None for a in aligned]))
    return results


def _shift(a: TokenAlignment, offset: int) -> TokenAlignment:
    return TokenAlignment(a.caption_token, a.token_index + offset, a.last_caption_token,
                          a.window)


def _mention_row(index: int, mention_index: int, item: Mapping[str, Any], mention: Mention,
                 alignment: TokenAlignment, padding: int, n_tokens: int, token_id: int,
                 features: Mapping[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {
        "key": f"{index}:{mention_index}", "caption_index": index,
        "mention_index": mention_index, "image_id": str(item.get("image_id", "")),
        "start": mention.start, "end": mention.end, "word": mention.word,
        "category": mention.category, "excluded": mention.excluded,
        "sentence_index": mention.sentence_index,
        "word_relative_position": mention.relative_position,
        "token_index": alignment.token_index - padding,
        "caption_token_index": alignment.caption_token,
        "last_caption_token_index": alignment.last_caption_token,
        "relative_token_position": alignment.caption_token / max(1, n_tokens),
        "object_token_id": int(token_id), "window_size": alignment.window_size,
    }
    row.update({k: _to_list(v) for k, v in features.items()})
    return row


class _Output:
    """What a worker produced for one batch: finished captions, errors and counts."""

    def __init__(self) -> None:
        # (mention rows, caption row) per finished caption, in item order
        self.captions: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []
        self.errors: list[dict[str, Any]] = []
        self.counts = {"processed": 0, "no_mentions": 0, "unaligned_mentions": 0}

    def error(self, prepared_index: int, item: Mapping[str, Any], kind: str, message: str) -> None:
        self.errors.append({"caption_index": prepared_index,
                            "image_id": str(item.get("image_id", "")), "kind": kind,
                            "message": message[:500]})


def _prepare(adapter: VLMAdapter, out: _Output, index: int, item: Mapping[str, Any],
             image: Any, prompt: str, vocabulary: Any) -> Prepared | None:
    """The caption's mentions and its image (`image` is an exception when it did not load)."""
    from halluscope.text.mentions import extract_mentions

    try:
        if "caption" not in item and "token_ids" not in item:
            raise InputError("item has neither 'caption' nor 'token_ids'", item=str(index))
        caption = item["token_ids"] if item.get("token_ids") is not None else item["caption"]
        _, _, text = adapter.tokenize_caption(caption)
        found = extract_mentions(text, vocabulary)
        if isinstance(image, BaseException):
            raise image
    except Exception as exc:  # noqa: BLE001 - every per-item failure is recorded, the run goes on
        out.error(index, item, _error_kind(exc), f"{type(exc).__name__}: {exc}")
        return None
    return Prepared(index, item, image, caption, str(item.get("prompt") or prompt), found)


def _encode_checked(adapter: VLMAdapter, out: _Output, chunk: list[Prepared]
                    ) -> tuple[Any, list[Prepared]]:
    """Encode a chunk; items longer than the model's context are recorded and dropped."""
    limit = _max_length(adapter)
    while chunk:
        batch = adapter.encode([p.image for p in chunk], [p.prompt for p in chunk],
                               [p.caption for p in chunk])
        too_long = [i for i, it in enumerate(batch.items)
                    if limit is not None and it.length > limit]
        if not too_long:
            return batch, chunk
        for i in too_long:
            out.error(chunk[i].index, chunk[i].item, "too_long",
                      f"{batch.items[i].length} tokens > context {limit}")
        chunk = [p for i, p in enumerate(chunk) if i not in too_long]
    return None, []


def _noise_id(item: Mapping[str, Any]) -> str:
    """The id that seeds an item's noisy image: its image id, else its image path.

    >>> _noise_id({"image_id": 0, "image": "a.jpg"}), _noise_id({"image": "a.jpg"})
    ('0', 'a.jpg')
    """
    image_id = item.get("image_id")
    return str(image_id) if image_id not in (None, "") else str(item.get("image", ""))


def _process(adapter: VLMAdapter, out: _Output, chunk: list[Prepared],
             config: SignalConfig, perturbations: PerturbationConfig | None = None) -> None:
    batch, chunk = _encode_checked(adapter, out, chunk)
    if not chunk:
        return
    request = None
    if perturbations is not None:
        from halluscope.signals.perturbations import PerturbationRequest

        # the noise is seeded by the image id (the image path without one): one image, one noise
        request = PerturbationRequest(perturbations, [p.image for p in chunk],
                                      [p.caption for p in chunk],
                                      [_noise_id(p.item) for p in chunk])
    results = batch_signals(adapter, batch, [p.mentions for p in chunk],
                            [p.prompt for p in chunk], config, request)
    finished = []
    for row, (prepared, (caption_features, mention_features)) in enumerate(zip(chunk, results)):
        item = batch.items[row]
        aligned = align_mentions(item.caption_offsets,
                                 [(m.start, m.end) for m in prepared.mentions],
                                 item.prompt_length, config.window)
        rows = []
        unaligned = []
        for mention_index, (mention, a, features) in enumerate(
                zip(prepared.mentions, aligned, mention_features)):
            if a is None or features is None:
                unaligned.append((mention_index, mention))
                continue
            rows.append(_mention_row(prepared.index, mention_index, prepared.item, mention, a,
                                     item.padding, len(item.caption_token_ids),
                                     item.caption_token_ids[a.caption_token], features))
        ids = batch.input_ids[row, item.padding:item.padding + item.length].tolist()
        caption_row = {
            "key": str(prepared.index), "caption_index": prepared.index,
            "image_id": str(prepared.item.get("image_id", "")), "prompt": prepared.prompt,
            "caption_text": item.caption_text, "input_ids": ids,
            "prompt_length": item.prompt_length - item.padding,
            "image_span": [item.image_span[0] - item.padding, item.image_span[1] - item.padding],
            "n_caption_tokens": len(item.caption_token_ids),
            "n_mentions": len(prepared.mentions), "n_rows": len(rows),
            "halp_hidden": _to_list(caption_features["halp_hidden"])}
        finished.append((prepared, rows, caption_row, unaligned))
    # Recorded only once the whole chunk succeeded: a failed chunk is redone item by item.
    for prepared, rows, caption_row, unaligned in finished:
        for mention_index, mention in unaligned:
            out.counts["unaligned_mentions"] += 1
            out.error(prepared.index, prepared.item, "unaligned_mention",
                      f"mention {mention_index} {mention.word!r} at {mention.start} is not "
                      "covered by any caption token")
        out.captions.append((rows, caption_row))
        out.counts["processed"] += 1
        if not prepared.mentions:
            out.counts["no_mentions"] += 1


@dataclass(frozen=True)
class SignalsBatch:
    """A worker's result for one batch: the manifest config, finished captions, errors."""

    manifest: dict[str, Any]
    captions: list[tuple[list[dict[str, Any]], dict[str, Any]]]
    errors: list[dict[str, Any]]
    counts: dict[str, int]
    n_items: int  # captions in the batch (finished or not)


def signals_manifest(adapter: VLMAdapter, prompt: str, config: SignalConfig,
                     perturbations: PerturbationConfig | None = None) -> dict[str, Any]:
    model = adapter.model
    manifest = {"command": "signals", "model": str(getattr(model.config, "_name_or_path", "")),
                "family": adapter.family, "dtype": str(model.dtype), "prompt": prompt,
                "signals": asdict(config)}
    if perturbations is not None:  # absent otherwise: stores made before it still resume
        manifest["perturbations"] = perturbations.manifest()
    return manifest


@dataclass(frozen=True)
class SignalsJob:
    """Signal extraction as a `BatchJob`: images are read on the CPU side, the teacher-forced
    pass runs in a worker (this process, or each Ray actor)."""

    model: ModelSpec | None
    prompt: str
    config: SignalConfig
    images_dir: str | None = None
    vocabulary: Any = None
    perturbations: PerturbationConfig | None = None

    def prepare(self, batch: Sequence[tuple[int, Mapping[str, Any]]]
                ) -> list[tuple[int, Mapping[str, Any], Any]]:
        """Each (index, item) with its decoded image, or the exception that stopped it."""
        prepared = []
        for index, item in batch:
            path = Path(str(item.get("image", "")))
            if self.images_dir is not None and not path.is_absolute():
                path = Path(self.images_dir) / path
            try:
                image: Any = load_image(path)
            except Exception as exc:  # noqa: BLE001 - recorded by the worker, in item order
                image = exc
            prepared.append((index, item, image))
        return prepared

    def load_worker(self) -> SignalsWorker:
        if self.model is None:
            raise ConfigError("this signals job has no model to load")
        return SignalsWorker(self, self.model.load())


class SignalsWorker:
    """Runs prepared batches; a failing batch is redone item by item to isolate the item."""

    def __init__(self, job: SignalsJob, adapter: VLMAdapter):
        self.job, self.adapter = job, adapter

    def __call__(self, prepared: Sequence[tuple[int, Mapping[str, Any], Any]]) -> SignalsBatch:
        job, out = self.job, _Output()
        chunk = [p for p in (_prepare(self.adapter, out, i, item, image, job.prompt,
                                      job.vocabulary) for i, item, image in prepared)
                 if p is not None]
        try:
            _process(self.adapter, out, chunk, job.config, job.perturbations)
        except Exception as exc:  # noqa: BLE001 - isolate the failing item, then go on
            if len(chunk) <= 1:
                for p in chunk:
                    out.error(p.index, p.item, "failed", f"{type(exc).__name__}: {exc}")
            else:
                for p in chunk:
                    try:
                        _process(self.adapter, out, [p], job.config, job.perturbations)
                    except Exception as inner:  # noqa: BLE001
                        out.error(p.index, p.item, _error_kind(inner) if isinstance(
                            inner, InputError) else "failed", f"{type(inner).__name__}: {inner}")
        return SignalsBatch(signals_manifest(self.adapter, job.prompt, job.config,
                                             job.perturbations),
                            out.captions, out.errors, out.counts, len(prepared))


class _Writer:
    """The driver's side: writes each finished caption into the two stores, mentions first and
    the caption row last, so a crash in between only redoes that caption."""

    def __init__(self, out_dir: Path, writer: str, manifest: Mapping[str, Any] | None):
        self.out_dir, self.writer = out_dir, writer
        self.mentions: RunStore | None = None
        self.captions: RunStore | None = None
        if manifest is not None:
            self._open(manifest)
        self.errors: list[dict[str, Any]] = []
        self.counts = {"processed": 0, "mentions_written": 0, "no_mentions": 0,
                       "unaligned_mentions": 0, "skipped_done": 0}

    def _open(self, manifest: Mapping[str, Any]) -> None:
        self.mentions = RunStore(self.out_dir / "mentions", manifest, writer=self.writer)
        self.captions = RunStore(self.out_dir / "captions", manifest, writer=self.writer)
        self.mention_keys = self.mentions.done_keys()

    def done(self) -> set[str]:
        if self.captions is not None:
            return self.captions.done_keys()
        return stored_keys(self.out_dir / "captions")

    def __call__(self, result: SignalsBatch) -> None:
        if self.mentions is None:
            self._open(result.manifest)
        assert self.mentions is not None and self.captions is not None
        for rows, caption_row in result.captions:
            rows = [r for r in rows if r["key"] not in self.mention_keys]
            self.mentions.write_shard(rows)
            self.mention_keys.update(r["key"] for r in rows)
            self.counts["mentions_written"] += len(rows)
            self.captions.write_shard([caption_row])
        self.errors.extend(result.errors)
        for name, value in result.counts.items():
            self.counts[name] += value


def extract_signals(adapter: VLMAdapter | ModelSpec, items: Sequence[Mapping[str, Any]],
                    out_dir: str | Path, *, prompt: str = DEFAULT_PROMPT, batch_size: int = 4,
                    config: SignalConfig = SignalConfig(), limit: int | None = None,
                    images_dir: str | Path | None = None, vocabulary: Any = None,
                    progress: Callable[[int], None] | None = None,
                    executor: ExecutorConfig = ExecutorConfig(),
                    shard: Shard = Shard(),
                    perturbations: PerturbationConfig | None = None) -> dict[str, Any]:
    """Extract every mention's signals; returns (and writes) the run summary.

    `adapter` is a loaded `VLMAdapter`, or a `ModelSpec` loaded where the work runs (required
    by `executor=ExecutorConfig("ray", ...)`). `limit` processes only the first `limit` items
    (a later run without it resumes); `shard` keeps the captions of one shard of a job array.
    `progress(n)` is called with the number of captions finished after every batch.
    `perturbations` adds each mention's perturbation signature (`signals.perturbations`).
    """
    out = Path(out_dir)
    if isinstance(adapter, ModelSpec):
        spec, worker_adapter = adapter, None
    else:
        check_model_placement(executor, loaded=True)
        spec, worker_adapter = None, adapter
    job = SignalsJob(spec, prompt, config, str(images_dir) if images_dir is not None else None,
                     vocabulary, perturbations)
    writer = _Writer(out, shard.writer, signals_manifest(worker_adapter, prompt, config,
                                                         perturbations)
                     if worker_adapter is not None else None)
    selected = list(enumerate(items))[:limit] if limit is not None else list(enumerate(items))
    selected = shard.select(selected, lambda pair: str(pair[0]))
    done = writer.done()
    pending = [(index, item) for index, item in selected if str(index) not in done]
    writer.counts["skipped_done"] = len(selected) - len(pending)
    step = max(1, batch_size)
    batches = [pending[i:i + step] for i in range(0, len(pending), step)]

    def write(result: SignalsBatch) -> None:
        writer(result)
        if progress is not None:
            progress(result.n_items)

    run_batches(job, batches, executor, write,
                worker=SignalsWorker(job, worker_adapter) if worker_adapter is not None else None)
    kinds: dict[str, int] = {}
    for e in writer.errors:
        kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
    mentions_total = len(writer.mentions.done_keys()) if writer.mentions else len(
        stored_keys(out / "mentions"))
    captions_total = len(writer.done())
    summary = {"items": len(items), "selected": len(selected), **writer.counts,
               "errors": sum(v for k, v in kinds.items() if k != "unaligned_mention"),
               "error_kinds": kinds, "error_items": writer.errors,
               "mention_rows_total": mentions_total,
               "caption_rows_total": captions_total}
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / f"summary{shard.file_suffix()}.json", summary)
    return summary
