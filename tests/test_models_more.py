"""Model adapters for LLaVA-OneVision, InternVL (HF format) and Qwen3-VL on tiny random models.

The family-independent checks of tests/test_models.py (image span, caption offsets, padding,
generation logits == teacher-forced logits, ...) are imported from it and run here again over
these families: pytest resolves their `adapter` / `tiny_dirs` fixtures in this module. The
checks that need per-family expectations (prompt layout) and the tiling specifics are below.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from PIL import Image  # noqa: E402

from halluscope.models import load_adapter, make_tiny  # noqa: E402
from halluscope.models.base import VLMAdapter  # noqa: E402
from halluscope.models.registry import read_model_type  # noqa: E402


def _load_base_suite():
    # --import-mode=importlib puts no test folder on sys.path: load the sibling by its path.
    spec = importlib.util.spec_from_file_location("_halluscope_test_models",
                                                  Path(__file__).with_name("test_models.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_base = _load_base_suite()
CAPTION, images, row = _base.CAPTION, _base.images, _base.row

# The shared checks, collected again in this module (with this module's fixtures).
test_family_detected_from_config = _base.test_family_detected_from_config
test_image_span_is_the_block_of_image_tokens = _base.test_image_span_is_the_block_of_image_tokens
test_caption_offsets_map_to_caption_text = _base.test_caption_offsets_map_to_caption_text
test_leading_space_in_caption_text = _base.test_leading_space_in_caption_text
test_caption_ids_offsets_by_incremental_decoding = \
    _base.test_caption_ids_offsets_by_incremental_decoding
test_padding_shifts_per_item_positions = _base.test_padding_shifts_per_item_positions
test_generation_logits_equal_teacher_forced_logits = \
    _base.test_generation_logits_equal_teacher_forced_logits

FAMILIES = ("llava_onevision", "internvl", "qwen3_vl")
# 56-px tiles: OneVision 16 base tokens (+ tiles and row newlines), InternVL 4 per tile;
# Qwen3-VL at most 64x64 px: at most 4 image tokens (32x32 px each).
TINY_SIZES = {"llava_onevision": 56, "internvl": 56, "qwen3_vl": 64}
GENERATION_PROMPT = {"llava_onevision": "<|im_end|><|im_start|>assistant\n",
                     "internvl": "<|im_end|>\n<|im_start|>assistant\n",
                     "qwen3_vl": "<|im_end|>\n<|im_start|>assistant\n"}
BEFORE_IMAGE = {"llava_onevision": "<|im_start|>user ", "internvl": "<|im_start|>user\n<img>",
                "qwen3_vl": "<|im_start|>user\n<|vision_start|>"}
AFTER_IMAGE = {"llava_onevision": "\nDescribe this image.",
               "internvl": "</img>\nDescribe this image.",
               "qwen3_vl": "<|vision_end|>Describe this image."}


@pytest.fixture(scope="module")
def tiny_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny_models_more")
    return {arch: make_tiny(arch, root / arch, layers=2, hidden=32, heads=4, seed=0,
                            image_size=TINY_SIZES[arch]) for arch in FAMILIES}


@pytest.fixture(scope="module")
def adapters(tiny_dirs: dict[str, Path]) -> dict[str, VLMAdapter]:
    return {arch: load_adapter(path, dtype="float32", attn_implementation="eager")
            for arch, path in tiny_dirs.items()}


@pytest.fixture(params=FAMILIES)
def adapter(request: pytest.FixtureRequest, adapters: dict[str, VLMAdapter]) -> VLMAdapter:
    return adapters[request.param]


def test_prompt_layout_around_image_and_caption(adapter: VLMAdapter) -> None:
    batch = adapter.encode(images(), ["Describe this image.", "What is it?"], [CAPTION, "A cat."])
    decode = adapter.tokenizer.decode
    for i, item in enumerate(batch.items):
        prompt = decode(row(batch, i)[item.padding:item.prompt_length])
        assert prompt.endswith(GENERATION_PROMPT[adapter.family])
        assert row(batch, i)[slice(*item.caption_span)] == item.caption_token_ids
    item = batch.items[0]
    ids = row(batch, 0)
    assert decode(ids[item.padding:item.image_span[0]]) == BEFORE_IMAGE[adapter.family]
    assert decode(ids[item.image_span[1]:item.prompt_length]).startswith(
        AFTER_IMAGE[adapter.family])
    # The generation prompt ends with a newline: the caption follows with no added space.
    assert adapter.caption_prefix == ""
    assert decode(ids[:item.caption_span[1]]).endswith(GENERATION_PROMPT[adapter.family] + CAPTION)


def test_onevision_image_span_counts_base_tiles_and_row_newlines(
        adapters: dict[str, VLMAdapter]) -> None:
    adapter = adapters["llava_onevision"]
    batch = adapter.encode(images(), ["Describe."] * 2)
    lengths = [item.image_span[1] - item.image_span[0] for item in batch.items]
    sizes = [(im.height, im.width) for im in images()]
    expected = adapter.processor._get_num_multimodal_tokens(image_sizes=sizes)["num_image_tokens"]
    assert lengths == list(expected) and lengths[0] != lengths[1]  # anyres: size-dependent
    model = adapter.model.model
    with torch.no_grad():
        features = model.get_image_features(
            pixel_values=batch.inputs["pixel_values"], image_sizes=batch.inputs["image_sizes"],
            batch_num_images=batch.inputs["batch_num_images"]).pooler_output
    # One feature per image token; base tile first (16 = (56/14)^2), and the span ends with
    # the image_newline embedding of the last tile-grid row: newlines are inside the span.
    assert [len(f) for f in features] == lengths
    assert lengths[0] > 16
    torch.testing.assert_close(features[0][-1], model.image_newline.detach())
    newline_rows = [(f == model.image_newline).all(-1).sum().item() for f in features]
    assert all(n >= 1 for n in newline_rows)


def test_onevision_large_image_downsampled_grid(adapters: dict[str, VLMAdapter]) -> None:
    # 336x280 px (w x h) picks 5x6 tiles of 56 px, a 20x24 patch grid: more than
    # anyres_max_9 allows (ratio sqrt(480 / (9 * 16)) = 1.83 > 1.1), so the model interpolates
    # it to 10x13 before adding the row newlines. Processor count and model features must
    # still agree (the forward raises otherwise).
    adapter = adapters["llava_onevision"]
    image = Image.new("RGB", (336, 280), (10, 20, 200))
    batch = adapter.encode([image], ["Describe."], ["A cat."])
    assert batch.inputs["pixel_values"].shape[1] == 1 + 30  # base tile + grid tiles
    span = batch.items[0].image_span
    assert span[1] - span[0] == 16 + 10 * 13 + 10  # base + downsampled grid + row newlines
    with torch.no_grad():
        logits = adapter.model(**batch.inputs).logits
    assert logits.shape[1] == batch.input_ids.shape[1]


def test_internvl_image_span_is_context_tokens_of_all_tiles(
        adapters: dict[str, VLMAdapter]) -> None:
    adapter = adapters["internvl"]
    tok = adapter.tokenizer
    batch = adapter.encode(images(), ["Describe."] * 2)
    per_tile = adapter.processor.image_seq_length
    assert per_tile == adapter.model.config.image_seq_length == 4  # from processor_config.json
    lengths = [item.image_span[1] - item.image_span[0] for item in batch.items]
    # 56x56: one tile; 90x60: a 3x2 grid plus the thumbnail.
    assert lengths == [per_tile, 7 * per_tile]
    assert batch.inputs["pixel_values"].shape[0] == 8
    for i, item in enumerate(batch.items):
        ids = row(batch, i)
        assert ids[item.image_span[0] - 1] == tok.start_image_token_id
        assert ids[item.image_span[1]] == tok.end_image_token_id
    assert adapter.image_token_id == tok.context_image_token_id


def test_qwen3_vl_image_span_follows_the_merged_grid(adapters: dict[str, VLMAdapter]) -> None:
    adapter = adapters["qwen3_vl"]
    batch = adapter.encode(images(), ["Describe."] * 2)
    grids = batch.inputs["image_grid_thw"].tolist()
    lengths = [item.image_span[1] - item.image_span[0] for item in batch.items]
    assert lengths == [t * h * w // 4 for t, h, w in grids]  # 2x2 patch merge
    assert lengths[0] != lengths[1]


def test_cli_make_tiny_new_arches(tmp_path: Path) -> None:
    import typer
    from typer.testing import CliRunner

    from halluscope.cli.models import app as models_app

    root = typer.Typer()
    root.add_typer(models_app, name="models")
    result = CliRunner().invoke(root, ["models", "make-tiny", "--arch", "internvl", "--layers",
                                       "1", "--hidden", "32", "--out", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    assert read_model_type(tmp_path / "m") == "internvl"
    adapter = load_adapter(tmp_path / "m", dtype="float32")
    assert type(adapter).__name__ == "InternVLAdapter" and len(adapter.modules.layers) == 1
    assert adapter.encode([Image.new("RGB", (56, 56))], ["Hi."]).items[0].image_span[1] > 0
