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

from halluscope.errors import InputError
from halluscope.generation.captioning import DEFAULT_PROMPT  # NAME-Bench's prompt
from halluscope.io.atomic import write_json_atomic
from halluscope.runs.store import RunStore
from halluscope.signals.alignment import TokenAlignment, align_mentions
from halluscope.signals.features import (FeatureCollector, MentionSlot, RowLayout, SignalConfig,
                                         dhcp_grid, encode_text_only)

if TYPE_CHECKING:
    from halluscope.models.base import EncodedBatch, VLMAdapter
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


# Where the tile that shows the whole image at base resolution sits in a tiled image block
# (`features.dhcp_grid`); families not listed have one grid for the whole block.
TILED_FAMILIES = {"llava_next": "base_first", "llava_onevision": "base_first",
                  "internvl": "thumbnail_last"}


def tile_tokens(adapter: VLMAdapter) -> int | None:
    """Image tokens of one tile of a tiled family (None for the others).

    LLaVA-NeXT / OneVision: one feature per vision patch of the base tile, (image_size /
    patch_size)^2 (CLIP's CLS is dropped by the "default" strategy, SigLIP has none); InternVL:
    `image_seq_length` (patches after the pixel shuffle).
    """
    if adapter.family not in TILED_FAMILIES:
        return None
    config = adapter.model.config
    if adapter.family == "internvl":
        return int(config.image_seq_length)
    vision = config.vision_config
    size = vision.image_size if isinstance(vision.image_size, int) else vision.image_size[0]
    patch = vision.patch_size if isinstance(vision.patch_size, int) else vision.patch_size[0]
    return (int(size) // int(patch)) ** 2


def _layouts(adapter: VLMAdapter, batch: EncodedBatch, mentions: Sequence[Sequence[Mention]],
             window: int) -> tuple[list[RowLayout], list[list[TokenAlignment | None]]]:
    grids = batch.inputs.get("image_grid_thw")
    merge = getattr(getattr(adapter.model.config, "vision_config", None), "spatial_merge_size", 1)
    per_tile, tiles = tile_tokens(adapter), TILED_FAMILIES.get(adapter.family, "")
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
                  prompts: Sequence[str], config: SignalConfig = SignalConfig()
                  ) -> list[tuple[dict[str, Any], list[dict[str, Any] | None]]]:
    """Per batch row: (caption features, one feature dict per mention or None if unaligned)."""
    modules = adapter.modules
    num_layers = len(modules.layers)
    layouts, alignments = _layouts(adapter, batch, mentions, config.window)
    collector = FeatureCollector(layouts, num_layers, config, modules.final_norm, modules.lm_head)
    run_collector(adapter, batch.inputs, collector)
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


class _Run:
    """State of one `extract_signals` call."""

    def __init__(self, adapter: VLMAdapter, out_dir: Path, manifest: Mapping[str, Any]):
        self.adapter = adapter
        self.mentions = RunStore(out_dir / "mentions", manifest)
        self.captions = RunStore(out_dir / "captions", manifest)
        self.done = self.captions.done_keys()
        self.mention_keys = self.mentions.done_keys()
        self.errors: list[dict[str, Any]] = []
        self.counts = {"processed": 0, "mentions_written": 0, "no_mentions": 0,
                       "unaligned_mentions": 0, "skipped_done": 0}

    def error(self, prepared_index: int, item: Mapping[str, Any], kind: str, message: str) -> None:
        self.errors.append({"caption_index": prepared_index,
                            "image_id": str(item.get("image_id", "")), "kind": kind,
                            "message": message[:500]})


def _prepare(run: _Run, index: int, item: Mapping[str, Any], images_dir: Path | None,
             prompt: str, vocabulary: Any) -> Prepared | None:
    from halluscope.text.mentions import extract_mentions

    try:
        if "caption" not in item and "token_ids" not in item:
            raise InputError("item has neither 'caption' nor 'token_ids'", item=str(index))
        caption = item["token_ids"] if item.get("token_ids") is not None else item["caption"]
        _, _, text = run.adapter.tokenize_caption(caption)
        found = extract_mentions(text, vocabulary)
        path = Path(str(item.get("image", "")))
        if images_dir is not None and not path.is_absolute():
            path = images_dir / path
        image = load_image(path)
    except Exception as exc:  # noqa: BLE001 - every per-item failure is recorded, the run goes on
        run.error(index, item, _error_kind(exc), f"{type(exc).__name__}: {exc}")
        return None
    return Prepared(index, item, image, caption, str(item.get("prompt") or prompt), found)


def _encode_checked(run: _Run, chunk: list[Prepared]) -> tuple[Any, list[Prepared]]:
    """Encode a chunk; items longer than the model's context are recorded and dropped."""
    adapter = run.adapter
    limit = _max_length(adapter)
    while chunk:
        batch = adapter.encode([p.image for p in chunk], [p.prompt for p in chunk],
                               [p.caption for p in chunk])
        too_long = [i for i, it in enumerate(batch.items)
                    if limit is not None and it.length > limit]
        if not too_long:
            return batch, chunk
        for i in too_long:
            run.error(chunk[i].index, chunk[i].item, "too_long",
                      f"{batch.items[i].length} tokens > context {limit}")
        chunk = [p for i, p in enumerate(chunk) if i not in too_long]
    return None, []


def _process(run: _Run, chunk: list[Prepared], config: SignalConfig) -> None:
    batch, chunk = _encode_checked(run, chunk)
    if not chunk:
        return
    results = batch_signals(run.adapter, batch, [p.mentions for p in chunk],
                            [p.prompt for p in chunk], config)
    for row, (prepared, (caption_features, mention_features)) in enumerate(zip(chunk, results)):
        item = batch.items[row]
        aligned = align_mentions(item.caption_offsets,
                                 [(m.start, m.end) for m in prepared.mentions],
                                 item.prompt_length, config.window)
        rows = []
        for mention_index, (mention, a, features) in enumerate(
                zip(prepared.mentions, aligned, mention_features)):
            if a is None or features is None:
                run.counts["unaligned_mentions"] += 1
                run.error(prepared.index, prepared.item, "unaligned_mention",
                          f"mention {mention_index} {mention.word!r} at {mention.start} is not "
                          "covered by any caption token")
                continue
            key = f"{prepared.index}:{mention_index}"
            if key in run.mention_keys:
                continue
            rows.append(_mention_row(prepared.index, mention_index, prepared.item, mention, a,
                                     item.padding, len(item.caption_token_ids),
                                     item.caption_token_ids[a.caption_token], features))
        run.mentions.write_shard(rows)
        run.mention_keys.update(r["key"] for r in rows)
        run.counts["mentions_written"] += len(rows)
        ids = batch.input_ids[row, item.padding:item.padding + item.length].tolist()
        run.captions.write_shard([{
            "key": str(prepared.index), "caption_index": prepared.index,
            "image_id": str(prepared.item.get("image_id", "")), "prompt": prepared.prompt,
            "caption_text": item.caption_text, "input_ids": ids,
            "prompt_length": item.prompt_length - item.padding,
            "image_span": [item.image_span[0] - item.padding, item.image_span[1] - item.padding],
            "n_caption_tokens": len(item.caption_token_ids),
            "n_mentions": len(prepared.mentions), "n_rows": len(rows),
            "halp_hidden": _to_list(caption_features["halp_hidden"])}])
        run.done.add(str(prepared.index))
        run.counts["processed"] += 1
        if not prepared.mentions:
            run.counts["no_mentions"] += 1


def extract_signals(adapter: VLMAdapter, items: Sequence[Mapping[str, Any]],
                    out_dir: str | Path, *, prompt: str = DEFAULT_PROMPT, batch_size: int = 4,
                    config: SignalConfig = SignalConfig(), limit: int | None = None,
                    images_dir: str | Path | None = None, vocabulary: Any = None,
                    progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Extract every mention's signals; returns (and writes) the run summary.

    `limit` processes only the first `limit` items (a later run without it resumes).
    `progress(n)` is called with the number of captions finished after every batch.
    """
    out = Path(out_dir)
    model = adapter.model
    manifest = {"command": "signals", "model": str(getattr(model.config, "_name_or_path", "")),
                "family": adapter.family, "dtype": str(model.dtype), "prompt": prompt,
                "signals": asdict(config)}
    run = _Run(adapter, out, manifest)
    selected = list(enumerate(items))[:limit] if limit is not None else list(enumerate(items))
    images = Path(images_dir) if images_dir is not None else None
    pending = []
    for index, item in selected:
        if str(index) in run.done:
            run.counts["skipped_done"] += 1
        else:
            pending.append((index, item))
    for start in range(0, len(pending), max(1, batch_size)):
        part = pending[start:start + max(1, batch_size)]
        chunk = [p for p in (_prepare(run, i, it, images, prompt, vocabulary) for i, it in part)
                 if p is not None]
        try:
            _process(run, chunk, config)
        except Exception as exc:  # noqa: BLE001 - isolate the failing item, then go on
            if len(chunk) <= 1:
                for p in chunk:
                    run.error(p.index, p.item, "failed", f"{type(exc).__name__}: {exc}")
            else:
                for p in chunk:
                    try:
                        _process(run, [p], config)
                    except Exception as inner:  # noqa: BLE001
                        run.error(p.index, p.item, _error_kind(inner) if isinstance(
                            inner, InputError) else "failed", f"{type(inner).__name__}: {inner}")
        if progress is not None:
            progress(len(part))
    kinds: dict[str, int] = {}
    for e in run.errors:
        kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
    summary = {"items": len(items), "selected": len(selected), **run.counts,
               "errors": sum(v for k, v in kinds.items() if k != "unaligned_mention"),
               "error_kinds": kinds, "error_items": run.errors,
               "mention_rows_total": len(run.mentions.done_keys()),
               "caption_rows_total": len(run.captions.done_keys())}
    write_json_atomic(out / "summary.json", summary)
    return summary
