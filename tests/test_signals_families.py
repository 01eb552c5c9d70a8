"""Single-pass signals on every other shipped adapter, against the eager reference.

LLaVA-NeXT, Qwen2-VL, Qwen3-VL (DeepStack), Gemma 3 (token_type_ids: bidirectional attention
inside the image block; sliding-window layers), LLaVA-OneVision and InternVL (tiled image blocks)
as tiny random models (3 layers, hidden 32). For each family:
- every hook-computed feature equals the same feature computed from eager `output_attentions` /
  `output_hidden_states` (`halluscope.signals.reference`), relative error <= 1e-4, with the
  capture on an eager-loaded and on an sdpa-loaded copy of the weights. The error of a feature
  is normwise over the batch: max |got - want| / max |want| over all its values in all mentions
  (a scalar feature is one value per mention). Per mention, a cosine near 0 (GLSim) would turn
  float32 rounding of ~1e-8 into a large "relative" error;
- the recomputed attention rows equal eager attention rows, for queries in the image block
  (Gemma 3's bidirectional image mask), in the prompt and in the caption, with a padded batch
  (the model's 4-D mask) and a single unpadded item (where transformers may pass no mask and the
  capture applies the causal and sliding-window masks itself);
- on the model's own greedy generation, teacher-forced hook NLL / entropy equal those of the
  generation scores.

Gemma 3: `make_tiny` gives every layer a 512-token window (wider than the tiny sequences, so no
mask would cut anything) and three sliding layers. The test rewrites config.json before loading:
layer types sliding / full / sliding and a window of `GEMMA_WINDOW` tokens, so caption queries
on the sliding layers see only the tail of the 16-token image block (asserted below), and the
mask path is really exercised. Gemma 3 passes no attention softcap to its attention function
(Gemma 2 does; no shipped adapter does): the capture's softcapped eager-output path is checked
against transformers' Gemma 2 eager attention directly.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from PIL import Image  # noqa: E402

from halluscope.models import load_adapter, make_tiny  # noqa: E402
from halluscope.signals import reference as ref  # noqa: E402
from halluscope.signals.alignment import align_span  # noqa: E402
from halluscope.signals.capture import Capture  # noqa: E402
from halluscope.signals.extract import _layouts, batch_signals  # noqa: E402
from halluscope.signals.features import (MentionSlot, RowLayout, SignalConfig,  # noqa: E402
                                         encode_text_only)
from halluscope.text.mentions import extract_mentions  # noqa: E402

# variant -> (make_tiny arch, image size). 56 px: LLaVA-NeXT / OneVision 16 base-tile tokens
# plus anyres tiles and row newlines, InternVL 4 per tile; Qwen 2x2 per 56 px (Qwen3 64 px);
# Gemma 3 at 112 px: 16 image tokens (4x4).
VARIANTS = {"llava_next": ("llava_next", 56), "qwen2_vl": ("qwen2_vl", 56),
            "qwen3_vl": ("qwen3_vl", 64), "gemma3": ("gemma3", 112),
            "llava_onevision": ("llava_onevision", 56),
            "internvl": ("internvl", 56)}
GEMMA_WINDOW = 24
CAPTIONS = ["A dog and a giraffe near two hot dogs on a bench.",
            "Two cats sit on a couch with a dog and a cat; the cats sleep."]
PROMPTS = ["Describe.", "Describe this image."]
TOLERANCE = 1e-4
L, H = 3, 4


def _gemma_config(path: Path) -> None:
    config = json.loads((path / "config.json").read_text())
    text = config["text_config"]
    text["sliding_window"] = GEMMA_WINDOW
    text["layer_types"] = ["sliding_attention", "full_attention", "sliding_attention"]
    (path / "config.json").write_text(json.dumps(config, indent=2))


@pytest.fixture(scope="module")
def tiny_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny_signal_families")
    dirs = {}
    for variant, (arch, size) in VARIANTS.items():
        dirs[variant] = make_tiny(arch, root / variant, layers=L, hidden=32, heads=H, seed=0,
                                  image_size=size)
        if arch == "gemma3":
            _gemma_config(dirs[variant])
    return dirs


@pytest.fixture(scope="module")
def adapters(tiny_dirs: dict[str, Path]) -> dict[tuple[str, str], object]:
    return {(variant, impl): load_adapter(path, dtype="float32", attn_implementation=impl)
            for variant, path in tiny_dirs.items() for impl in ("eager", "sdpa")}


def images() -> list[Image.Image]:
    # Two sizes: size-dependent blocks (Qwen grids 2x2 / 1x2, tile counts) and padding.
    return [Image.new("RGB", (56, 56), (200, 30, 30)), Image.new("RGB", (84, 56), (30, 200, 30))]


def batch_error(got: list, want: list) -> float:
    """Normwise relative error of one feature over the batch (see the module docstring)."""
    got = torch.stack([torch.as_tensor(g).float() for g in got])
    want = torch.stack([torch.as_tensor(w).float() for w in want])
    assert got.shape == want.shape
    return ((got - want).abs().max() / want.abs().max().clamp(min=1e-6)).item()


def _text_layouts(eager, batch, mentions, layouts):
    inputs, paddings, prompt_lengths = encode_text_only(
        eager, PROMPTS, [it.caption_token_ids for it in batch.items])
    text_layouts = [RowLayout(lay.row, paddings[lay.row], prompt_lengths[lay.row], (0, 0), None,
                              [MentionSlot(align_span(batch.items[lay.row].caption_offsets,
                                                      m.start, m.end, prompt_lengths[lay.row]), 0)
                               for m in mentions[lay.row]]) for lay in layouts]
    return inputs, text_layouts


@pytest.mark.parametrize("impl", ["eager", "sdpa"])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_hook_features_equal_eager_reference(adapters, variant: str, impl: str) -> None:
    adapter, eager = adapters[(variant, impl)], adapters[(variant, "eager")]
    batch = adapter.encode(images(), PROMPTS, CAPTIONS)
    mentions = [extract_mentions(c) for c in CAPTIONS]
    assert any(item.padding for item in batch.items)  # the model's padding mask is exercised
    # Second config: full-vocabulary top-k (the logit-lens probability is non-zero and really
    # compared), no norm, hidden states at the queries.
    for config in (SignalConfig(glsim_k=3), SignalConfig(glsim_k=3, logit_lens_top_k=10_000,
                                                         logit_lens_norm=False,
                                                         hidden_at="query")):
        got = batch_signals(adapter, batch, mentions, PROMPTS, config)
        layouts, _ = _layouts(eager, batch, mentions, config.window)
        # The hooked pass stops after the last position read ("sleep." follows the last
        # mention); the reference reads the whole sequence.
        assert 1 + max(max(lay.hidden_positions(config.hidden_at)) for lay in layouts) \
            < batch.input_ids.shape[1]
        out = ref.eager_forward(eager.model, batch.inputs)
        want = ref.reference_features(out, layouts, config, eager.modules.final_norm,
                                      eager.modules.lm_head)
        halp = ref.reference_caption_features(out, layouts)
        text_inputs, text_layouts = _text_layouts(eager, batch, mentions, layouts)
        text_want = ref.reference_text_features(
            ref.eager_forward(eager.model, text_inputs, False), text_layouts, config)
        pairs: dict[str, tuple[list, list]] = {}
        for lay in layouts:
            caption_features, per_mention = got[lay.row]
            pairs.setdefault("halp_hidden", ([], []))
            pairs["halp_hidden"][0].append(caption_features["halp_hidden"])
            pairs["halp_hidden"][1].append(halp[lay.row]["halp_hidden"])
            assert len(per_mention) == len(want[lay.row]) == len(mentions[lay.row])
            for features, expected, text in zip(per_mention, want[lay.row], text_want[lay.row]):
                for name, value in {**expected, **text}.items():
                    pairs.setdefault(name, ([], []))
                    pairs[name][0].append(features[name])
                    pairs[name][1].append(value)
                assert torch.isfinite(features["lookback_ratio_w4"]).all()
        assert len(pairs) == 18  # 15 reference features, 2 text-only, HALP
        errors = {name: batch_error(g, w) for name, (g, w) in pairs.items()}
        assert max(errors.values()) <= TOLERANCE, (variant, impl, errors)
    first = got[0][1][0]
    assert first["image_attention"].shape == (L, H) and first["pas_attention"].shape == (H,)
    assert first["dhcp_attention"].shape == (L, H, 36) and first["logit_lens_max"].shape == (L,)


def test_dhcp_grids_of_tiled_and_gridded_blocks(adapters) -> None:
    """Tiled blocks pool the one tile that shows the whole image; see features.dhcp_grid."""
    expected = {"llava_next": [(4, 4), (4, 4)], "llava_onevision": [(4, 4), (4, 4)],
                "internvl": [(2, 2), (2, 2)], "qwen2_vl": [(2, 2), (1, 2)],
                "qwen3_vl": [(2, 2), (1, 2)], "gemma3": [(4, 4), (4, 4)]}
    mentions = [extract_mentions(c) for c in CAPTIONS]
    for variant, grids in expected.items():
        adapter = adapters[(variant, "sdpa")]
        batch = adapter.encode(images(), PROMPTS, CAPTIONS)
        layouts, _ = _layouts(adapter, batch, mentions, 4)
        assert [lay.grid for lay in layouts] == grids, variant
        for lay in layouts:
            (start, end), (gs, ge) = lay.image_span, lay.dhcp_span
            assert start <= gs < ge <= end and ge - gs == lay.grid[0] * lay.grid[1]
            if variant in ("llava_next", "llava_onevision"):
                assert gs == start  # the base tile leads the block
            if variant == "internvl":
                assert ge == end  # the thumbnail ends it (or is the only tile)
    # 84x56 px: the tiled block is longer than the pooled tile.
    for variant in ("llava_next", "llava_onevision", "internvl"):
        adapter = adapters[(variant, "sdpa")]
        lay = _layouts(adapter, adapter.encode(images(), PROMPTS, CAPTIONS), mentions, 4)[0][1]
        assert lay.image_span[1] - lay.image_span[0] > lay.dhcp_span[1] - lay.dhcp_span[0]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_recomputed_attention_rows_equal_eager(adapters, variant: str) -> None:
    adapter, eager = adapters[(variant, "sdpa")], adapters[(variant, "eager")]
    for n in (2, 1):  # padded batch (4-D mask), then one unpadded item (mask may be None)
        batch = adapter.encode(images()[:n], PROMPTS[:n], CAPTIONS[:n])
        queries = {}
        for row, item in enumerate(batch.items):
            start, end = item.image_span
            last = item.prompt_length + len(item.caption_token_ids) - 1
            queries[row] = sorted({item.padding, start, (start + end) // 2, end - 1,
                                   item.prompt_length - 1, item.prompt_length + 2, last})
        got: dict[tuple[int, int], torch.Tensor] = {}

        def keep(layer, row, positions, probs):
            got[(layer, row)] = probs.clone()

        with Capture(adapter.modules, queries, keep), torch.no_grad():
            adapter.model(**batch.inputs, use_cache=False)
        out = ref.eager_forward(eager.model, batch.inputs)
        assert len(got) == L * n
        for (layer, row), probs in got.items():
            want = out.attentions[layer][row][:, queries[row]].float()
            err = ((probs - want).abs().max() / want.abs().max()).item()
            assert err <= TOLERANCE, (variant, n, layer, row, err)
    if variant == "gemma3":
        # The image block attends to itself both ways, and the sliding layers' window cuts
        # through it for the first caption query: the masks really differ from plain causal.
        item = batch.items[0]
        start, end = item.image_span
        full = out.attentions[1][0]
        assert (full[:, start, start + 1:end] > 0).all()  # image token sees later image tokens
        sliding = out.attentions[0][0][:, item.prompt_length]
        visible = sliding[:, start:end] > 0
        assert visible.any() and not visible.all()


@pytest.mark.parametrize("variant", ["llava_next", "qwen2_vl", "qwen3_vl", "gemma3",
                                     "llava_onevision", "internvl"])
def test_teacher_forced_hook_logits_equal_generation_scores(adapters, variant: str) -> None:
    adapter = adapters[(variant, "sdpa")]
    generations = adapter.generate(images(), PROMPTS, max_new_tokens=6, return_logits=True)
    batch = adapter.encode(images(), PROMPTS, [g.token_ids for g in generations])
    # One "mention" per caption token with a visible span: its nll / entropy are read from the
    # hooked pass at the query that generated it.
    spans = [[SimpleNamespace(start=s, end=e) for s, e in item.caption_offsets if e > s]
             for item in batch.items]
    results = batch_signals(adapter, batch, spans, PROMPTS, SignalConfig(text_only=False))
    checked = 0
    for gen, item, found, (_, per_mention) in zip(generations, batch.items, spans, results):
        for span, features in zip(found, per_mention):
            j = align_span(item.caption_offsets, span.start, span.end).caption_token
            log_probs = torch.log_softmax(gen.logits[j].float(), dim=-1)
            want_nll = -log_probs[gen.token_ids[j]]
            want_entropy = -(log_probs.exp() * log_probs).sum()
            assert abs(features["nll"] - want_nll) <= TOLERANCE * want_nll.abs()
            assert abs(features["entropy"] - want_entropy) <= TOLERANCE * want_entropy.abs()
            checked += 1
    assert checked >= 2


def test_softcapped_attention_matches_transformers_eager() -> None:
    from transformers.models.gemma2.modeling_gemma2 import eager_attention_forward

    from halluscope.signals.capture import _eager_output, masked_scores

    torch.manual_seed(0)
    batch, heads, kv_heads, T, d, cap = 2, 4, 2, 7, 8, 3.0
    q, k, v = (torch.randn(batch, n, T, d) for n in (heads, kv_heads, kv_heads))
    q = q * 4  # scores beyond the softcap
    keys = torch.arange(T)
    allowed = (keys[None, :] <= keys[:, None])[None].repeat(batch, 1, 1)
    allowed[0, :, :2] = False  # item 0 left-padded by 2: its first query rows see nothing
    allowed = allowed[:, None]  # (batch, 1, T, T) as transformers builds it
    additive = torch.zeros(allowed.shape).masked_fill(~allowed, torch.finfo(torch.float32).min)
    module = SimpleNamespace(num_key_value_groups=heads // kv_heads, training=False, head_dim=d)
    want, weights = eager_attention_forward(module, q, k, v, additive, scaling=0.3, softcap=cap)
    for mask in (allowed, additive):
        got = _eager_output(q, k, v, mask, 0.3, cap, None)
        assert torch.isfinite(got).all()  # fully masked (padding) rows do not poison the output
        torch.testing.assert_close(got[0, 2:], want[0, 2:], atol=1e-5, rtol=1e-4)
        torch.testing.assert_close(got[1], want[1], atol=1e-5, rtol=1e-4)
        rows = torch.tensor([3, 6])
        probs = torch.softmax(masked_scores(q[0], k[0], rows, mask[0], 0.3, cap), dim=-1)
        torch.testing.assert_close(probs, weights[0][:, rows], atol=1e-6, rtol=1e-4)
    # No mask given: causal (+ sliding window) applied by the capture itself.
    window = allowed[1, 0] & (keys[None, :] > keys[:, None] - 3)
    additive = torch.zeros(T, T).masked_fill(~window, torch.finfo(torch.float32).min)
    want, weights = eager_attention_forward(module, q[1:], k[1:], v[1:], additive[None, None],
                                            scaling=0.3, softcap=cap)
    torch.testing.assert_close(_eager_output(q[1:], k[1:], v[1:], None, 0.3, cap, 3), want,
                               atol=1e-5, rtol=1e-4)
    probs = torch.softmax(masked_scores(q[1], k[1], keys, None, 0.3, cap, 3), dim=-1)
    torch.testing.assert_close(probs, weights[0], atol=1e-6, rtol=1e-4)


def test_top_k_values_is_the_topk_set() -> None:
    from halluscope.signals.features import top_k_values

    torch.manual_seed(0)
    logits = torch.randn(7, 300)
    logits[0, :60] = 2.5  # ties at the k-th value
    for k in (1, 50, 300):
        want = logits.topk(k, dim=-1).values.sort(dim=-1).values
        assert torch.equal(top_k_values(logits, k).sort(dim=-1).values, want)  # numpy path
        half = logits.bfloat16()  # torch.topk path (as on an accelerator)
        assert torch.equal(top_k_values(half, k).sort(dim=-1).values,
                           half.topk(k, dim=-1).values.sort(dim=-1).values)
