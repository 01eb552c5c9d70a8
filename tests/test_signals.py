"""Token alignment and single-pass signal extraction on tiny LLaVA-1.5 and Qwen2.5-VL.

Every hook-computed feature is checked against the same quantity computed from eager
`output_attentions` / `output_hidden_states` (float32, relative error <= 1e-4), with the capture
running on an eager-loaded and on an sdpa-loaded copy of the same weights.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from PIL import Image  # noqa: E402

from halluscope.models import load_adapter, make_tiny  # noqa: E402
from halluscope.signals.alignment import align_mentions, align_span  # noqa: E402
from halluscope.signals.capture import ATTENTION_NAME, Capture  # noqa: E402
from halluscope.signals.extract import batch_signals, extract_signals  # noqa: E402
from halluscope.signals.features import SignalConfig  # noqa: E402
from halluscope.text.mentions import extract_mentions  # noqa: E402
from eager_check import TOLERANCE, assert_features_equal_eager, rel_error  # noqa: E402

FAMILIES = ("llava", "qwen2_5_vl")
SIZES = {"llava": 112, "qwen2_5_vl": 56}  # 64 image tokens (8x8); Qwen: 2x2 per 56 px
CAPTIONS = ["A dog and a giraffe near two hot dogs on a bench.",
            "Two cats sit on a couch with a dog and a cat; the cats sleep."]
PROMPTS = ["Describe.", "Describe this image."]


@pytest.fixture(scope="session")
def tiny_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny_signals")
    return {arch: make_tiny(arch, root / arch, layers=3, hidden=32, heads=4, seed=0,
                            image_size=SIZES[arch]) for arch in FAMILIES}


@pytest.fixture(scope="session")
def adapters(tiny_dirs: dict[str, Path]) -> dict[tuple[str, str], object]:
    return {(arch, impl): load_adapter(path, dtype="float32", attn_implementation=impl)
            for arch, path in tiny_dirs.items() for impl in ("eager", "sdpa")}


def images() -> list[Image.Image]:
    # Different sizes: Qwen gives them different image-token grids (2x2 and 1x2).
    return [Image.new("RGB", (56, 56), (200, 30, 30)), Image.new("RGB", (84, 56), (30, 200, 30))]


# ---------------------------------------------------------------------------------- alignment
def test_align_span_rules() -> None:
    offsets = [(0, 3), (4, 7), (7, 10), (11, 14), (15, 18)]  # "two gir|affe and dog"
    a = align_span(offsets, 4, 10, prompt_length=20)
    assert (a.caption_token, a.last_caption_token, a.token_index, a.query_index) == (1, 2, 21, 20)
    assert a.window == (0, 1) and a.window_size == 2  # fewer than 4 at the caption start
    assert align_span(offsets, 15, 18).window == (1, 2, 3, 4)
    assert align_span(offsets, 0, 3, prompt_length=5).query_index == 4  # last prompt token
    assert align_span([(0, 3), (3, 3), (4, 7)], 3, 4) is None  # empty spans overlap nothing
    with pytest.raises(ValueError):
        align_span(offsets, 0, 3, window=0)


@pytest.mark.parametrize("family", FAMILIES)
def test_alignment_on_real_tokenizers(adapters, family: str) -> None:
    adapter = adapters[(family, "sdpa")]
    caption = "Giraffes and a giraffe, a hot dog and two dogs; dogs."
    item = adapter.encode(images()[:1], ["Describe."], [caption]).items[0]
    found = extract_mentions(caption)
    assert [m.word for m in found] == ["Giraffes", "giraffe", "hot dog", "dogs", "dogs"]
    aligned = align_mentions(item.caption_offsets, [(m.start, m.end) for m in found],
                             item.prompt_length)
    texts = [item.caption_text[slice(*item.caption_offsets[a.caption_token])] for a in aligned]
    for mention, a, text in zip(found, aligned, texts):
        # The object token starts the word (leading space trimmed) and covers part of it.
        assert mention.word.startswith(text) and text
        assert a.token_index == item.prompt_length + a.caption_token
        covered = "".join(item.caption_text[slice(*item.caption_offsets[k])]
                          for k in range(a.caption_token, a.last_caption_token + 1))
        assert covered.replace(" ", "") == mention.word.replace(" ", "")
    # Caption start: the window holds only caption tokens (a leading-space piece, if the
    # tokenizer made one, is a caption token with an empty span).
    start = aligned[0]
    assert start.window == tuple(range(0, start.caption_token + 1)) and start.window_size < 4
    assert all(e == s for s, e in item.caption_offsets[:start.caption_token])
    assert aligned[1].last_caption_token > aligned[1].caption_token  # "giraffe": sub-tokens
    assert aligned[3].caption_token != aligned[4].caption_token  # repeated word: own occurrence
    assert aligned[2].last_caption_token > aligned[2].caption_token  # multi-word form
    if family == "llava":  # byte-level BPE with a space before the caption
        assert adapter.tokenizer.decode(
            item.caption_token_ids[:1]).startswith(" ")


# ---------------------------------------------------------------------------------- equality
def _batch(adapter):
    batch = adapter.encode(images(), PROMPTS, CAPTIONS)
    return batch, [extract_mentions(c) for c in CAPTIONS]


@pytest.mark.parametrize("impl", ["eager", "sdpa"])
@pytest.mark.parametrize("family", FAMILIES)
def test_hook_features_equal_eager_reference(adapters, family: str, impl: str) -> None:
    adapter, eager = adapters[(family, impl)], adapters[(family, "eager")]
    # Full-vocabulary top-k: the logit-lens probability is then non-zero and really compared.
    for config in (SignalConfig(glsim_k=3), SignalConfig(glsim_k=3, logit_lens_top_k=10_000,
                                                         logit_lens_norm=False,
                                                         hidden_at="query")):
        batch, _ = _batch(adapter)
        assert batch.items[0].padding > 0 or batch.items[1].padding > 0  # padding exercised
        got, layouts, checked, _ = assert_features_equal_eager(adapter, eager, images(), PROMPTS,
                                                            CAPTIONS, config)
        assert adapter.model.config.get_text_config()._attn_implementation == impl  # restored
        if family == "qwen2_5_vl":
            assert [lay.grid for lay in layouts] == [(2, 2), (1, 2)]  # from image_grid_thw
        assert checked >= 5 * 17
    # Shapes: (L, H), (L, H, 36); the object at the caption start gets a ratio of exactly 1.
    L, H = 3, 4
    first = got[1][1][0]
    assert first["image_attention"].shape == (L, H)
    assert first["dhcp_attention"].shape == (L, H, 36)
    assert first["logit_lens_max"].shape == (L,) and first["pas_attention"].shape == (H,)


def test_first_caption_token_lookback_rule(adapters) -> None:
    adapter = adapters[("qwen2_5_vl", "sdpa")]  # no space before the caption: "Dogs" is token 0
    batch = adapter.encode(images()[:1], ["Describe."], ["Dogs."])
    assert align_span(batch.items[0].caption_offsets, 0, 4).caption_token == 0
    (_, [features]), = batch_signals(adapter, batch, [extract_mentions("Dogs.")], ["Describe."])
    assert torch.equal(features["lookback_ratio_w4"], torch.ones(3, 4))  # empty generated span
    assert torch.equal(features["pas_attention"], torch.zeros(4))


def test_capture_restores_model_on_error(adapters) -> None:
    adapter = adapters[("qwen2_5_vl", "eager")]
    config = adapter.model.config.get_text_config()
    hooks_before = sum(len(m._forward_hooks) for m in adapter.model.modules())

    class Boom(RuntimeError):
        pass

    def explode(index, hidden):
        raise Boom()

    batch, _ = _batch(adapter)
    with pytest.raises(Boom):
        with Capture(adapter.modules, {0: [5]}, lambda *a: None, explode, [1]):
            assert config._attn_implementation == ATTENTION_NAME
            adapter.model(**batch.inputs, use_cache=False)
    assert config._attn_implementation == "eager"
    assert sum(len(m._forward_hooks) for m in adapter.model.modules()) == hooks_before


# ---------------------------------------------------------------------------------- extraction
def _write_items(tmp_path: Path, n: int = 4) -> list[dict]:
    folder = tmp_path / "images"
    folder.mkdir(exist_ok=True)
    texts = ["A dog on a bench.", "Two cats and a giraffe.", "A hot dog near a cup of tea.",
             "A man rides a horse past a car."]
    items = []
    for i in range(n):
        Image.new("RGB", (56 + 28 * (i % 2), 56), (40 * i, 90, 160)).save(folder / f"{i}.png")
        items.append({"image_id": str(i), "image": f"{i}.png", "caption": texts[i % 4]})
    return items


def _rows(out: Path) -> list[dict]:
    from halluscope.runs.store import RunStore

    return RunStore(out / "mentions", json.loads((out / "mentions/manifest.json").read_text())
                    ["config"]).rows()


def _assert_same_rows(a: list[dict], b: list[dict]) -> None:
    assert [r["key"] for r in a] == [r["key"] for r in b]
    for x, y in zip(a, b):
        for name, value in x.items():
            if isinstance(value, (list, float)):
                assert rel_error(torch.tensor(value), torch.tensor(y[name])) <= TOLERANCE, name
            else:
                assert value == y[name], name


def test_extract_resume_matches_fresh_run(adapters, tmp_path: Path) -> None:
    adapter = adapters[("llava", "sdpa")]
    items = _write_items(tmp_path)
    calls: list[int] = []
    first = extract_signals(adapter, items, tmp_path / "resumed", batch_size=2, limit=2,
                            images_dir=tmp_path / "images", progress=calls.append)
    assert first["processed"] == 2 and calls == [2]
    second = extract_signals(adapter, items, tmp_path / "resumed", batch_size=3,
                             images_dir=tmp_path / "images")
    assert second["skipped_done"] == 2 and second["processed"] == 2
    fresh = extract_signals(adapter, items, tmp_path / "fresh", batch_size=4,
                            images_dir=tmp_path / "images")
    assert fresh["processed"] == 4 and fresh["errors"] == 0
    resumed_rows, fresh_rows = _rows(tmp_path / "resumed"), _rows(tmp_path / "fresh")
    assert len(fresh_rows) == 9
    _assert_same_rows(resumed_rows, fresh_rows)
    row = fresh_rows[0]
    assert row["key"] == "0:0" and row["word"] == "dog" and row["category"] == "dog"
    assert len(row["image_attention"]) == 3 and len(row["image_attention"][0]) == 4
    caption_rows = sorted((tmp_path / "fresh/captions").glob("shard-*.parquet"))
    import pyarrow.parquet as pq

    caption = pq.read_table(caption_rows[0]).to_pylist()[0]
    assert caption["input_ids"][row["token_index"]] == row["object_token_id"]
    assert caption["input_ids"][caption["image_span"][0]] == adapter.image_token_id
    # A third run has nothing left to do.
    assert extract_signals(adapter, items, tmp_path / "fresh")["processed"] == 0


def test_extract_records_item_errors(adapters, tmp_path: Path, monkeypatch) -> None:
    adapter = adapters[("qwen2_5_vl", "sdpa")]
    items = _write_items(tmp_path)
    (tmp_path / "images" / "bad.png").write_bytes(b"not a png at all")
    items[1]["image"] = "bad.png"
    items[2]["image"] = "missing.png"
    items.append({"image_id": "x", "image": "0.png", "caption": "Nothing to see here."})
    summary = extract_signals(adapter, items, tmp_path / "out", batch_size=3,
                              images_dir=tmp_path / "images")
    assert summary["error_kinds"] == {"corrupt_image": 1, "missing_image": 1}
    assert summary["processed"] == 3 and summary["no_mentions"] == 1
    assert {r["caption_index"] for r in _rows(tmp_path / "out")} == {0, 3}
    # Longer than the model's context: recorded, the others still processed.
    monkeypatch.setattr(adapter.model.config.get_text_config(), "max_position_embeddings", 20)
    summary = extract_signals(adapter, items, tmp_path / "out2", images_dir=tmp_path / "images")
    assert summary["error_kinds"]["too_long"] == 3 and summary["processed"] == 0


def test_cli_signals(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    import typer
    from typer.testing import CliRunner

    from halluscope.cli.signals import app as signals_app

    items = _write_items(tmp_path, 2)
    (tmp_path / "caps.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    root = typer.Typer()
    root.add_typer(signals_app)

    @root.command()
    def other() -> None:  # a second command, so "signals" is a subcommand as in halluscope
        pass

    result = CliRunner().invoke(root, ["signals", "--model", str(tiny_dirs["llava"]),
                                       "--captions", str(tmp_path / "caps.jsonl"),
                                       "--images", str(tmp_path / "images"),
                                       "--out", str(tmp_path / "out"), "--limit", "1"])
    assert result.exit_code == 0, result.output
    assert "1 captions, 2 mention rows written" in result.output


def test_without_logit_lens_the_other_features_are_unchanged(adapters) -> None:
    adapter = adapters[("llava", "sdpa")]
    batch, mentions = _batch(adapter)
    full = batch_signals(adapter, batch, mentions, PROMPTS, SignalConfig(glsim_k=3))
    lean = batch_signals(adapter, batch, mentions, PROMPTS,
                         SignalConfig(glsim_k=3, logit_lens=False))
    for (_, with_lens), (_, without) in zip(full, lean):
        for a, b in zip(with_lens, without):
            assert set(a) - set(b) == {"logit_lens_max", "internal_confidence"}
            for name, value in b.items():
                assert torch.equal(a[name], value), name
