"""One check shared by the signal tests: every hook-computed feature equals the same quantity
computed from eager `output_attentions` / `output_hidden_states` (relative error <= tolerance)."""

from __future__ import annotations

from typing import Any, Sequence

import torch

from halluscope.signals import reference as ref
from halluscope.signals.alignment import align_span
from halluscope.signals.extract import _layouts, batch_signals
from halluscope.signals.features import MentionSlot, RowLayout, SignalConfig, encode_text_only
from halluscope.text.mentions import extract_mentions

TOLERANCE = 1e-4


def rel_error(got: Any, want: Any) -> float:
    got, want = torch.as_tensor(got).float(), torch.as_tensor(want).float()
    assert got.shape == want.shape
    return ((got - want).abs().max() / want.abs().max().clamp(min=1e-6)).item()


def assert_features_equal_eager(adapter: Any, eager: Any, images: Sequence[Any],
                                prompts: Sequence[str], captions: Sequence[str],
                                config: SignalConfig, tolerance: float = TOLERANCE) -> tuple:
    """Compare `batch_signals` on `adapter` with the eager reference on `eager` (same weights).

    Returns (features per row as `batch_signals` gives them, layouts, number of compared values,
    the largest relative error seen).
    """
    batch = adapter.encode(images, prompts, captions)
    mentions = [extract_mentions(c) for c in captions]
    got = batch_signals(adapter, batch, mentions, prompts, config)
    layouts, _ = _layouts(eager, batch, mentions, config.window)
    out = ref.eager_forward(eager.model, batch.inputs)
    want = ref.reference_features(out, layouts, config, eager.modules.final_norm,
                                  eager.modules.lm_head)
    halp = ref.reference_caption_features(out, layouts)
    inputs, paddings, prompt_lengths = encode_text_only(
        eager, prompts, [it.caption_token_ids for it in batch.items])
    text_layouts = [RowLayout(lay.row, paddings[lay.row], prompt_lengths[lay.row], (0, 0),
                              (1, 1), [MentionSlot(align_span(
                                  batch.items[lay.row].caption_offsets, m.start, m.end,
                                  prompt_lengths[lay.row]), 0)
                                  for m in mentions[lay.row]]) for lay in layouts]
    text_want = ref.reference_text_features(ref.eager_forward(eager.model, inputs, False),
                                            text_layouts, config)
    checked, worst = 0, 0.0
    for lay in layouts:
        caption_features, per_mention = got[lay.row]
        worst = rel_error(caption_features["halp_hidden"], halp[lay.row]["halp_hidden"])
        assert worst <= tolerance
        assert len(per_mention) == len(want[lay.row]) == len(mentions[lay.row])
        for features, expected, text in zip(per_mention, want[lay.row], text_want[lay.row]):
            for name, value in {**expected, **text}.items():
                error = rel_error(features[name], value)
                assert error <= tolerance, (name, error)
                worst = max(worst, error)
                checked += 1
            assert torch.isfinite(features["lookback_ratio_w4"]).all()
    return got, layouts, checked, worst
