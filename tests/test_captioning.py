"""Captioning (`halluscope.generation`) on tiny random LLaVA and Qwen2.5-VL models.

Greedy decoding in float32 on CPU: rows must not depend on the batch size or on how often the
run was interrupted. The SIGKILL test runs the CLI in subprocesses (about 6 s per start, mostly
importing torch and transformers), so it kills a bounded number of times.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from PIL import Image  # noqa: E402

from halluscope.data.captions import read_captions  # noqa: E402
from halluscope.errors import ConfigError, InputError  # noqa: E402
from halluscope.generation import (CaptionItem, HFBackend, caption_images,  # noqa: E402
                                   export_captions, items_from_folder, items_from_jsonl)
from halluscope.generation.captioning import open_run  # noqa: E402
from halluscope.models import load_adapter, make_tiny  # noqa: E402
from halluscope.models.base import VLMAdapter  # noqa: E402

MAX_NEW_TOKENS = 8  # short answers keep the tests fast; the default (128) is NAME-Bench's
N_IMAGES = 12


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="session")
def tiny_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("caption_models")
    # LLaVA at 28 px: 2x2 patches = 4 image tokens; Qwen at 56 px: at most 4 merged tokens.
    return {"llava": make_tiny("llava", root / "llava", layers=2, hidden=32, image_size=28),
            "qwen2_5_vl": make_tiny("qwen2_5_vl", root / "qwen", layers=2, hidden=32,
                                    image_size=56)}


@pytest.fixture(scope="session")
def adapters(tiny_dirs: dict[str, Path]) -> dict[str, VLMAdapter]:
    return {name: load_adapter(path, dtype="float32", device="cpu")
            for name, path in tiny_dirs.items()}


@pytest.fixture(scope="session")
def image_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 PNGs of different sizes and colours (Qwen gives them different token counts, so a
    batch needs left padding)."""
    folder = tmp_path_factory.mktemp("images")
    for i in range(1, N_IMAGES + 1):
        Image.new("RGB", (28 + 9 * i, 70 - 3 * i), (20 * i, 100, 240 - 15 * i)).save(
            folder / f"{i}.png")
    (folder / "notes.txt").write_text("not an image")  # ignored: not an image suffix
    return folder


@pytest.fixture(scope="session")
def items(image_dir: Path) -> list[CaptionItem]:
    return items_from_folder(image_dir)


@pytest.fixture(scope="session")
def reference(adapters: dict[str, VLMAdapter], items: list[CaptionItem],
              tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """An uninterrupted LLaVA run over all items (batch size 3)."""
    out = tmp_path_factory.mktemp("reference")
    caption_images(adapters["llava"], items, out, max_new_tokens=MAX_NEW_TOKENS, batch_size=3)
    return open_run(out).rows()


def assert_same_rows(rows: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    """Exact keys, token ids and text; log-probabilities equal up to float noise."""
    assert [r["key"] for r in rows] == [r["key"] for r in expected]
    for row, ref in zip(rows, expected):
        for column in ("image_id", "caption", "token_ids", "num_tokens", "finish_reason",
                       "error"):
            assert row[column] == ref[column], (row["key"], column)
        torch.testing.assert_close(torch.tensor(row["logprobs"]), torch.tensor(ref["logprobs"]),
                                   atol=1e-5, rtol=0)


def shard_count(out: Path) -> int:
    return len(list(out.glob("shard-*.parquet"))) if out.is_dir() else 0


# ------------------------------------------------------------------ records
@pytest.mark.parametrize("family", ["llava", "qwen2_5_vl"])
def test_rows_hold_caption_tokens_and_raw_logprobs(adapters: dict[str, VLMAdapter],
                                                   items: list[CaptionItem], family: str,
                                                   tmp_path: Path) -> None:
    adapter = adapters[family]
    summary = caption_images(adapter, items[:3], tmp_path, max_new_tokens=MAX_NEW_TOKENS,
                             batch_size=3)
    assert (summary.done, summary.skipped, summary.errors) == (3, 0, 0)
    rows = open_run(tmp_path).rows()
    assert [r["key"] for r in rows] == ["1", "2", "3"] and rows[0]["image_id"] == 1
    images = [Image.open(r["image"]).convert("RGB") for r in rows]
    prompts = [open_run(tmp_path).manifest["config"]["prompt"]] * 3
    generations = adapter.generate(images, prompts, max_new_tokens=MAX_NEW_TOKENS,
                                   return_logits=True)
    eos = HFBackend(adapter).eos_ids
    for row, generation in zip(rows, generations):
        ids = row["token_ids"]
        assert ids == generation.token_ids
        assert row["num_tokens"] == len(ids) and 0 < len(ids) <= MAX_NEW_TOKENS
        assert row["caption"] == adapter.tokenizer.decode(ids, skip_special_tokens=True)
        assert row["finish_reason"] == ("eos" if ids[-1] in eos else "length")
        if row["finish_reason"] == "length":
            assert len(ids) == MAX_NEW_TOKENS
        # The raw logits (before any logits processor) at each chosen token.
        raw = torch.log_softmax(generation.logits.float(), dim=-1)
        expected = raw.gather(-1, torch.tensor(ids)[:, None])[:, 0]
        torch.testing.assert_close(torch.tensor(row["logprobs"]), expected, atol=1e-5, rtol=0)
        assert all(v <= 0 for v in row["logprobs"]) and row["error"] is None
    # Teacher forcing the generated ids gives the same numbers (where the random model did not
    # emit image tokens, which a second encode would count as image placeholders).
    forced = [i for i, r in enumerate(rows) if adapter.image_token_id not in r["token_ids"]]
    assert forced or family != "llava"
    if forced:
        batch = adapter.encode([images[i] for i in forced], [prompts[i] for i in forced],
                               [rows[i]["token_ids"] for i in forced])
        with torch.no_grad():
            logprobs = torch.log_softmax(adapter.model(**batch.inputs).logits.float(), dim=-1)
        for j, (i, item) in enumerate(zip(forced, batch.items)):
            start, end = item.caption_span
            ids = torch.tensor(rows[i]["token_ids"])[:, None]
            torch.testing.assert_close(torch.tensor(rows[i]["logprobs"]),
                                       logprobs[j, start - 1:end - 1].gather(-1, ids)[:, 0],
                                       atol=1e-4, rtol=0)


@pytest.mark.parametrize("family", ["llava", "qwen2_5_vl"])
def test_same_rows_whatever_the_batch_size(adapters: dict[str, VLMAdapter],
                                           items: list[CaptionItem], family: str,
                                           tmp_path: Path) -> None:
    runs = {}
    for batch_size in (1, 3):
        caption_images(adapters[family], items[:6], tmp_path / str(batch_size),
                       max_new_tokens=MAX_NEW_TOKENS, batch_size=batch_size)
        runs[batch_size] = open_run(tmp_path / str(batch_size)).rows()
    assert shard_count(tmp_path / "1") == 6 and shard_count(tmp_path / "3") == 2
    assert_same_rows(runs[3], runs[1])


# ------------------------------------------------------------------ resuming
def test_resume_after_partial_run(adapters: dict[str, VLMAdapter], items: list[CaptionItem],
                                  reference: list[dict[str, Any]], tmp_path: Path) -> None:
    as_dicts = [{"image_id": str(i.image_id), "image": i.image} for i in items]  # "1" -> 1
    first = caption_images(adapters["llava"], as_dicts, tmp_path, max_new_tokens=MAX_NEW_TOKENS,
                           batch_size=2, limit=5)
    assert (first.total, first.done, first.skipped) == (5, 5, 0)
    seen: list[int] = []
    starts: list[tuple[int, int]] = []
    rest = caption_images(adapters["llava"], items, tmp_path, max_new_tokens=MAX_NEW_TOKENS,
                          batch_size=4, progress=seen.append,
                          on_start=lambda pending, skipped: starts.append((pending, skipped)))
    assert (rest.total, rest.done, rest.skipped, rest.errors) == (12, 7, 5, 0)
    assert starts == [(7, 5)] and sum(seen) == 7
    assert_same_rows(open_run(tmp_path).rows(), reference)
    again = caption_images(adapters["llava"], items, tmp_path, max_new_tokens=MAX_NEW_TOKENS)
    assert (again.done, again.skipped) == (0, 12)
    with pytest.raises(ConfigError, match="other settings"):
        caption_images(adapters["llava"], items, tmp_path, max_new_tokens=MAX_NEW_TOKENS,
                       prompt="Describe.")


@pytest.mark.slow
def test_sigkill_at_random_points_then_resume(tiny_dirs: dict[str, Path], image_dir: Path,
                                              reference: list[dict[str, Any]],
                                              tmp_path: Path, random_kills) -> None:
    out = tmp_path / "run"
    command = [sys.executable, "-m", "halluscope.cli.caption", "--model",
               str(tiny_dirs["llava"]), "--images", str(image_dir), "--out", str(out),
               "--batch-size", "1", "--max-new-tokens", str(MAX_NEW_TOKENS), "--device", "cpu"]
    stdout, kills = random_kills(command, out)
    # How many kills land depends on machine speed; at least one must, and the rows must match.
    assert kills >= 1
    assert "errors 0" in stdout and "12 captions" in stdout
    assert_same_rows(open_run(out).rows(), reference)
    lines = [json.loads(line) for line in (out / "captions.jsonl").read_text().splitlines()]
    assert [line["image_id"] for line in lines] == list(range(1, N_IMAGES + 1))


# ------------------------------------------------------------------ errors and memory
def test_corrupt_and_missing_images_become_error_rows(adapters: dict[str, VLMAdapter],
                                                      image_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "garbage.jpg").write_bytes(b"this is not a JPEG")
    png = (image_dir / "1.png").read_bytes()
    (tmp_path / "cut.png").write_bytes(png[:len(png) // 2])  # truncated
    lines = [{"image_id": 1, "image": str(image_dir / "1.png")},
             {"image_id": 2, "image": "garbage.jpg"},
             {"image_id": 3, "image": "missing.png"},
             {"image_id": 4, "image": "cut.png"},
             {"image_id": 5, "image": str(image_dir / "5.png")}]
    items_file = tmp_path / "items.jsonl"
    items_file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "run"
    # Lines 1 and 5 name images in another folder by absolute path: allowed explicitly.
    summary = caption_images(adapters["llava"], items_from_jsonl(items_file, allow_outside=True),
                             out, max_new_tokens=MAX_NEW_TOKENS, batch_size=8)
    assert (summary.done, summary.errors) == (2, 3)
    rows = {r["image_id"]: r for r in open_run(out).rows()}
    assert rows[1]["error"] is None and rows[5]["error"] is None
    for image_id, name in ((2, "garbage.jpg"), (3, "missing.png"), (4, "cut.png")):
        assert name in rows[image_id]["error"] and rows[image_id]["finish_reason"] == "error"
        assert rows[image_id]["token_ids"] == [] and rows[image_id]["caption"] == ""
    counts = export_captions(out)
    assert (counts.captions, counts.errors) == (2, 3)
    assert [r.image_id for r in read_captions(out / "captions.jsonl")] == [1, 5]


def test_out_of_memory_halves_the_batch(adapters: dict[str, VLMAdapter],
                                        items: list[CaptionItem],
                                        reference: list[dict[str, Any]],
                                        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    adapter = adapters["llava"]
    original = adapter.generate
    sizes: list[int] = []

    def generate(images, prompts, **kwargs):
        sizes.append(len(images))
        if len(images) > 2:
            if len(sizes) % 2:
                raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 1.00 GiB")
            raise RuntimeError("MPS backend out of memory (MPS allocated: 1 GB)")
        return original(images, prompts, **kwargs)

    monkeypatch.setattr(adapter, "generate", generate)
    summary = caption_images(adapter, items, tmp_path, max_new_tokens=MAX_NEW_TOKENS,
                             batch_size=8)
    assert sizes[:3] == [8, 4, 2] and max(sizes[3:]) <= 2
    assert (summary.done, summary.errors, summary.batch_size, summary.oom_backoffs) == (12, 0, 2, 2)
    assert_same_rows(open_run(tmp_path).rows(), reference)


def test_out_of_memory_alone_and_rejected_inputs_are_error_rows(
        adapters: dict[str, VLMAdapter], items: list[CaptionItem],
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    adapter = adapters["llava"]
    original = adapter.generate
    # Image 2 is 46 px wide: the "processor" rejects it; image 3 (55 px) never fits in memory.
    widths = {item.key: Image.open(item.image).width for item in items[:4]}

    def generate(images, prompts, **kwargs):
        if any(image.width == widths["2"] for image in images):
            raise ValueError("image too small for the processor")
        if any(image.width == widths["3"] for image in images):
            raise torch.OutOfMemoryError("CUDA out of memory")
        return original(images, prompts, **kwargs)

    monkeypatch.setattr(adapter, "generate", generate)
    summary = caption_images(adapter, items[:4], tmp_path, max_new_tokens=MAX_NEW_TOKENS,
                             batch_size=4)
    assert (summary.done, summary.errors) == (2, 2)
    rows = {r["key"]: r for r in open_run(tmp_path).rows()}
    assert "2.png: generation failed (image too small" in rows["2"]["error"]
    assert "3.png: out of memory even alone" in rows["3"]["error"]
    assert rows["1"]["error"] is None and rows["4"]["error"] is None


def test_unexpected_errors_are_not_swallowed(adapters: dict[str, VLMAdapter],
                                             items: list[CaptionItem],
                                             monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    def broken(*args, **kwargs):
        raise TypeError("a bug")

    monkeypatch.setattr(adapters["llava"], "generate", broken)
    with pytest.raises(TypeError, match="a bug"):
        caption_images(adapters["llava"], items[:2], tmp_path, max_new_tokens=2)


def _spy_qwen(adapter: VLMAdapter, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, int]]:
    """Record (longest image side, processor max_pixels, image patches) of each generate call."""
    original = adapter.generate
    seen: list[tuple[int, int, int]] = []

    def generate(images, prompts, **kwargs):
        grid = adapter.encode(images, prompts).inputs["image_grid_thw"]
        seen.extend((max(image.size), adapter.processor.image_processor.size["longest_edge"],
                     int(patches)) for image, patches in zip(images, grid.prod(dim=1)))
        return original(images, prompts, **kwargs)

    monkeypatch.setattr(adapter, "generate", generate)
    return seen


def test_max_image_side_shrinks_images_and_sets_qwen_max_pixels(
        adapters: dict[str, VLMAdapter], items: list[CaptionItem],
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    adapter = adapters["qwen2_5_vl"]
    before = dict(adapter.processor.image_processor.size)
    seen = _spy_qwen(adapter, monkeypatch)
    summary = caption_images(adapter, items[-2:], tmp_path, max_new_tokens=2, batch_size=2,
                             max_image_side=28)
    assert summary.done == 2
    assert [(side, budget) for side, budget, _ in seen] == [(28, 28 * 28)] * 2
    assert dict(adapter.processor.image_processor.size) == before  # restored after the call
    assert open_run(tmp_path).manifest["config"]["max_pixels"] == 28 * 28


def test_qwen_max_pixels_caps_image_tokens(adapters: dict[str, VLMAdapter],
                                           items: list[CaptionItem],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = adapters["qwen2_5_vl"]
    image = Image.open(items[-1].image).convert("RGB")  # 136 x 34
    seen = _spy_qwen(adapter, monkeypatch)
    HFBackend(adapter).generate([image], ["Describe."], max_new_tokens=1)
    HFBackend(adapter, max_pixels=28 * 28).generate([image], ["Describe."], max_new_tokens=1)
    # The tiny model's budget is 56 x 56 px (2 x 8 patches of 14 px here); 28 x 28 halves it.
    assert [patches for _, _, patches in seen] == [16, 8]


# ------------------------------------------------------------------ inputs and CLI
def test_items_from_folder_and_jsonl(image_dir: Path, tmp_path: Path) -> None:
    found = items_from_folder(image_dir)
    assert [i.image_id for i in found] == list(range(1, N_IMAGES + 1))  # natural order
    assert all(Path(i.image).suffix == ".png" for i in found)
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for name in ("COCO_val2014_000000000042.jpg", "kitchen.png", "007.png"):
        Image.new("RGB", (8, 8)).save(mixed / name)
    assert sorted(i.key for i in items_from_folder(mixed)) == ["42", "7", "kitchen"]
    assert {type(i.image_id) for i in items_from_folder(mixed)} == {str}  # one type per run
    (mixed / "7.jpg").write_bytes(b"")
    with pytest.raises(InputError, match="also comes from"):
        items_from_folder(mixed)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no image files"):
        items_from_folder(tmp_path / "empty")
    bad = tmp_path / "items.jsonl"
    bad.write_text('{"image_id": 1, "image": "a.png"}\n{"image_id": "1", "image": "b.png"}\n')
    with pytest.raises(InputError, match=r"items.jsonl:2: duplicate image_id 1"):
        items_from_jsonl(bad)
    bad.write_text('{"image_id": 1}\n')
    with pytest.raises(InputError, match=r"items.jsonl:1: missing field 'image'"):
        items_from_jsonl(bad)
    bad.write_text('{"image_id": 3, "image": "x/3.png"}\n')
    assert items_from_jsonl(bad, images_dir="/data")[0].image == "/data/x/3.png"


def test_cli_captions_and_exports(tiny_dirs: dict[str, Path], image_dir: Path,
                                  reference: list[dict[str, Any]], tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from halluscope.cli.caption import app

    out = tmp_path / "run"
    args = ["--model", str(tiny_dirs["llava"]), "--images", str(image_dir), "--out", str(out),
            "--max-new-tokens", str(MAX_NEW_TOKENS), "--batch-size", "4", "--device", "cpu"]
    result = CliRunner().invoke(app, args + ["--limit", "5"])
    assert result.exit_code == 0, result.output
    assert "captioned 5, skipped 0 already done, errors 0 (5 items)" in result.output
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "captioned 7, skipped 5 already done, errors 0 (12 items)" in result.output
    assert_same_rows(open_run(out).rows(), reference)
    exported = [json.loads(line) for line in (out / "captions.jsonl").read_text().splitlines()]
    assert [e["image_id"] for e in exported] == list(range(1, N_IMAGES + 1))
    assert [e["caption"] for e in exported] == [r["caption"] for r in reference]
    assert set(exported[0]) == {"image_id", "image", "caption"}
    assert len(read_captions(out / "captions.jsonl")) == N_IMAGES
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["dtype"] == "float32" and manifest["config"]["max_new_tokens"] == 8


def test_cli_user_errors_are_one_line(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from halluscope.cli.caption import app

    result = CliRunner().invoke(app, ["--model", str(tiny_dirs["llava"]), "--out",
                                      str(tmp_path / "o")])
    assert result.exit_code == 2 and "give --images DIR" in result.output
    result = CliRunner().invoke(app, ["--model", str(tiny_dirs["llava"]), "--images",
                                      str(tmp_path / "nope"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].endswith("nope: images folder not found")
    args = ["--model", str(tiny_dirs["llava"]), "--images", str(tmp_path), "--out",
            str(tmp_path / "o")]
    (tmp_path / "1.png").write_bytes(b"")
    result = CliRunner().invoke(app, args + ["--dtype", "float64"])
    assert result.exit_code == 2 and "unknown dtype 'float64'" in result.output
    if not torch.cuda.is_available():
        result = CliRunner().invoke(app, args + ["--device", "cuda"])
        assert result.exit_code == 2 and "no CUDA device" in result.output


def test_bfloat16_backend_gives_float_logprobs(tiny_dirs: dict[str, Path],
                                               items: list[CaptionItem], tmp_path: Path) -> None:
    from halluscope.generation import load_backend

    backend = load_backend("hf", tiny_dirs["llava"], dtype="bf16", device="cpu")
    summary = caption_images(backend, items[:2], tmp_path, max_new_tokens=4, batch_size=2)
    assert summary.done == 2
    config = open_run(tmp_path).manifest["config"]
    assert config["dtype"] == "bfloat16" and config["model"] == str(tiny_dirs["llava"].resolve())
    for row in open_run(tmp_path).rows():
        assert len(row["logprobs"]) == row["num_tokens"] == 4
        assert all(-30 < v <= 0 for v in row["logprobs"])


def test_teacher_forcing_reproduces_the_stored_logprobs(adapters: dict[str, VLMAdapter],
                                                        items: list[CaptionItem],
                                                        tmp_path: Path) -> None:
    """What checks a vLLM run against transformers, on an HF run: the generated ids teacher-
    forced give the stored log-probabilities and are the model's own greedy choices."""
    from halluscope.generation.teacher_forcing import compare_run

    caption_images(adapters["llava"], items[:4], tmp_path, max_new_tokens=MAX_NEW_TOKENS,
                   batch_size=2)
    result = compare_run(adapters["llava"], tmp_path)
    assert (result["rows"], result["tokens"]) == (4, 4 * MAX_NEW_TOKENS)
    assert result["max_abs_logprob_diff"] < 1e-4 and result["greedy_disagreements"] == 0
    # A stored log-probability that is off is seen.
    store = open_run(tmp_path)
    rows = store.rows()
    rows[0]["logprobs"][1] += 0.01
    broken = tmp_path / "broken"
    from halluscope.runs.store import RunStore
    RunStore(broken, store.manifest["config"]).write_shard(rows)
    assert compare_run(adapters["llava"], broken)["max_abs_logprob_diff"] > 0.009
