"""Model adapters on tiny random models of the real architectures (LLaVA-1.5, LLaVA-NeXT,
Qwen2-VL, Qwen2.5-VL, Gemma 3).

Every adapter is built with `make_tiny` into a temporary folder and loaded back through
`load_adapter` (family detected from config.json), the path a hub checkpoint takes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from PIL import Image  # noqa: E402

from halluscope.errors import ConfigError, InputError  # noqa: E402
from halluscope.models import load_adapter, make_tiny  # noqa: E402
from halluscope.models.base import VLMAdapter, incremental_offsets  # noqa: E402
from halluscope.models.registry import adapter_class, read_model_type  # noqa: E402

FAMILIES = ("llava", "llava_next", "qwen2_5_vl", "qwen2_vl", "gemma3")
# LLaVA at 112 px: 8x8 = 64 image tokens; Qwen at 56 px: 4 image tokens (2x2 merged patches).
TINY_SIZES = {"llava": 112, "llava_next": 56, "gemma3": 56, "qwen2_5_vl": 56, "qwen2_vl": 56}
GENERATION_PROMPT = {"llava": "ASSISTANT:", "llava_next": "ASSISTANT:",
                     "qwen2_5_vl": "<|im_start|>assistant\n",
                     "qwen2_vl": "<|im_start|>assistant\n", "gemma3": "<start_of_turn>model\n"}
CAPTION = "A giraffe and a giraffe near two hot dogs."


@pytest.fixture(scope="session")
def tiny_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny_models")
    return {arch: make_tiny(arch, root / arch, layers=2, hidden=32, heads=4, seed=0,
                            image_size=TINY_SIZES[arch]) for arch in FAMILIES}


@pytest.fixture(scope="session")
def adapters(tiny_dirs: dict[str, Path]) -> dict[str, VLMAdapter]:
    return {arch: load_adapter(path, dtype="float32", attn_implementation="eager")
            for arch, path in tiny_dirs.items()}


@pytest.fixture(params=FAMILIES)
def adapter(request: pytest.FixtureRequest, adapters: dict[str, VLMAdapter]) -> VLMAdapter:
    return adapters[request.param]


def images() -> list[Image.Image]:
    # Different sizes: Qwen gives them different numbers of image tokens.
    return [Image.new("RGB", (56, 56), (200, 30, 30)), Image.new("RGB", (90, 60), (30, 200, 30))]


def row(batch, i: int) -> list[int]:
    return batch.input_ids[i].tolist()


def test_family_detected_from_config(adapter: VLMAdapter, tiny_dirs: dict[str, Path]) -> None:
    assert read_model_type(tiny_dirs[adapter.family]) == adapter.family
    assert len(adapter.modules.layers) == 2 and len(adapter.modules.attentions) == 2
    assert adapter.image_token_id == adapter.model.config.image_token_id


def test_image_span_is_the_block_of_image_tokens(adapter: VLMAdapter) -> None:
    batch = adapter.encode(images(), ["Describe this image.", "What is it?"], [CAPTION, "A cat."])
    for i, item in enumerate(batch.items):
        positions = [j for j, t in enumerate(row(batch, i)) if t == adapter.image_token_id]
        assert positions == list(range(*item.image_span))
    if adapter.family == "llava":
        assert item.image_span[1] - item.image_span[0] == 64


def test_prompt_layout_ends_with_generation_prompt(adapter: VLMAdapter) -> None:
    batch = adapter.encode(images(), ["Describe this image.", "What is it?"], [CAPTION, "A cat."])
    for i, item in enumerate(batch.items):
        prompt = adapter.tokenizer.decode(row(batch, i)[item.padding:item.prompt_length])
        assert prompt.endswith(GENERATION_PROMPT[adapter.family])
        assert row(batch, i)[slice(*item.caption_span)] == item.caption_token_ids
    if adapter.family in ("llava", "llava_next"):
        # BOS first, and a space between "ASSISTANT:" and the caption (byte-level tokenizer).
        assert row(batch, 0)[batch.items[0].padding] == adapter.tokenizer.bos_token_id
        full = adapter.tokenizer.decode(row(batch, 0)[:batch.items[0].caption_span[1]])
        assert full.endswith("ASSISTANT: " + CAPTION)
    else:
        full = adapter.tokenizer.decode(row(batch, 0)[:batch.items[0].caption_span[1]])
        assert full.endswith(GENERATION_PROMPT[adapter.family] + CAPTION)


def test_caption_offsets_map_to_caption_text(adapter: VLMAdapter) -> None:
    item = adapter.encode(images()[:1], ["Describe."], [CAPTION]).items[0]
    pieces = [CAPTION[s:e] for s, e in item.caption_offsets]
    assert "".join(pieces) == CAPTION.replace(" ", "")
    # "giraffe" is split into several sub-tokens; both occurrences get their own spans.
    starts = [i for i in range(len(CAPTION)) if CAPTION.startswith("giraffe", i)]
    for start in starts:
        covering = [k for k, (s, e) in enumerate(item.caption_offsets)
                    if s < start + len("giraffe") and e > start]
        assert len(covering) > 1
        assert "".join(pieces[k] for k in covering) == "giraffe"
        assert item.caption_offsets[covering[0]][0] == start  # first sub-token starts the word


def test_leading_space_in_caption_text(adapter: VLMAdapter) -> None:
    item = adapter.encode(images()[:1], ["Describe."], [" A cat."]).items[0]
    assert [item.caption_text[s:e] for s, e in item.caption_offsets if e > s] == ["A", "cat", "."]
    assert item.caption_text == " A cat."


def test_caption_ids_offsets_by_incremental_decoding(adapter: VLMAdapter) -> None:
    tok = adapter.tokenizer
    ids = tok("two hot dogs and a giraffe é", add_special_tokens=False)["input_ids"]
    ids = ids + [tok.eos_token_id]
    item = adapter.encode(images()[:1], ["Describe."], [ids]).items[0]
    assert item.caption_token_ids == ids
    assert item.caption_text == "two hot dogs and a giraffe é"
    pieces = [item.caption_text[s:e] for s, e in item.caption_offsets]
    assert pieces[-1] == ""  # EOS covers no character
    assert pieces[-2] == pieces[-3] == "é"  # two byte tokens share the character they make
    text, offsets = incremental_offsets(tok, ids[:-1])
    assert offsets == item.caption_offsets[:-1] and text == item.caption_text


@pytest.mark.parametrize("side", ["left", "right"])
def test_padding_shifts_per_item_positions(adapter: VLMAdapter, side: str) -> None:
    captions = ["A cat.", CAPTION]
    batch = adapter.encode(images(), ["Describe this image."] * 2, captions, padding_side=side)
    alone = [adapter.encode(images()[i:i + 1], ["Describe this image."], captions[i:i + 1])
             for i in range(2)]
    width = batch.input_ids.shape[1]
    for i, item in enumerate(batch.items):
        single = alone[i].items[0]
        assert item.length == single.length
        assert item.padding == (width - item.length if side == "left" else 0)
        assert item.image_span == tuple(p + item.padding for p in single.image_span)
        assert item.prompt_length == single.prompt_length + item.padding
        kept = batch.attention_mask[i].bool()
        assert batch.input_ids[i][kept].tolist() == alone[i].input_ids[0].tolist()
    assert batch.items[0].padding > 0 if side == "left" else batch.items[1].padding == 0


def test_generation_logits_equal_teacher_forced_logits(adapter: VLMAdapter) -> None:
    prompts = ["Describe this image.", "What is in the picture?"]
    generations = adapter.generate(images(), prompts, max_new_tokens=5, return_logits=True)
    batch = adapter.encode(images(), prompts, [g.token_ids for g in generations])
    with torch.no_grad():
        logits = adapter.model(**batch.inputs).logits
    for i, (gen, item) in enumerate(zip(generations, batch.items)):
        start, end = item.caption_span
        assert row(batch, i)[start:end] == gen.token_ids
        torch.testing.assert_close(logits[i, start - 1:end - 1], gen.logits, atol=1e-4, rtol=0)


def test_make_tiny_is_deterministic(tmp_path: Path) -> None:
    def build(name: str, seed: int) -> Path:
        return make_tiny("qwen2_vl", tmp_path / name, layers=1, hidden=32, seed=seed)

    a, b, c = build("a", 0), build("b", 0), build("c", 1)
    for name in ("model.safetensors", "tokenizer.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    assert (a / "model.safetensors").read_bytes() != (c / "model.safetensors").read_bytes()


def test_llava_default_size_has_576_image_tokens(tmp_path: Path) -> None:
    path = make_tiny("llava", tmp_path / "llava336", layers=1, hidden=32)
    adapter = load_adapter(path, dtype="float32")
    item = adapter.encode([Image.new("RGB", (500, 375))], ["Describe."]).items[0]
    assert item.image_span[1] - item.image_span[0] == 576
    assert item.caption_token_ids == [] and item.prompt_length == adapter.encode(
        [Image.new("RGB", (500, 375))], ["Describe."]).input_ids.shape[1]


def test_errors_are_config_and_input_errors(adapters: dict[str, VLMAdapter], tmp_path: Path,
                                            tiny_dirs: dict[str, Path]) -> None:
    (tmp_path / "config.json").write_text('{"model_type": "bert"}')
    with pytest.raises(ConfigError, match="unsupported model_type 'bert'"):
        load_adapter(tmp_path)
    with pytest.raises(ConfigError, match="unknown model family 'future_vlm'; choose one of"):
        adapter_class("future_vlm")
    with pytest.raises(ConfigError, match="no config.json"):
        load_adapter(tmp_path / "..")
    with pytest.raises(ConfigError, match="unknown dtype"):
        load_adapter(tiny_dirs["qwen2_vl"], dtype="float64")
    with pytest.raises(InputError, match="one to one"):
        adapters["llava"].encode(images(), ["only one prompt"])
    with pytest.raises(ConfigError, match="padding_side"):
        adapters["llava"].encode(images()[:1], ["x"], padding_side="middle")


def test_module_map_checked_at_load_time(adapters: dict[str, VLMAdapter]) -> None:
    from dataclasses import replace

    llava = adapters["llava"]

    class Broken(type(llava)):  # type: ignore[misc]
        module_map = replace(llava.module_map, final_norm="model.language_model.final_ln")

    with pytest.raises(ConfigError, match="final_norm path 'model.language_model.final_ln'"):
        Broken(llava.model, llava.processor)


def test_cli_make_tiny(tmp_path: Path) -> None:
    import typer
    from typer.testing import CliRunner

    from halluscope.cli.models import app as models_app

    root = typer.Typer()
    root.add_typer(models_app, name="models")
    result = CliRunner().invoke(root, ["models", "make-tiny", "--arch", "qwen2_5_vl",
                                       "--layers", "1", "--hidden", "32", "--out",
                                       str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    assert read_model_type(tmp_path / "m") == "qwen2_5_vl"
