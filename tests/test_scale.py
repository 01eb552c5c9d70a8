"""Scaling out: the Ray Data executor and job-array shards give the single process's rows.

Ray runs in local mode (one session for the module, so each test pays only for its actors'
model loads). Rows are compared after sorting by key: exactly when the batches are the same
(a batch holds the same items on every executor), up to float noise across batch sizes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
ray = pytest.importorskip("ray")

from PIL import Image  # noqa: E402

from halluscope.demo.data import DEMO_IMAGES  # noqa: E402
from halluscope.demo.images import write_demo_images  # noqa: E402
from halluscope.generation import caption_images, items_from_folder  # noqa: E402
from halluscope.generation.backends import BackendSpec  # noqa: E402
from halluscope.generation.captioning import open_run  # noqa: E402
from halluscope.models import load_adapter, make_tiny  # noqa: E402
from halluscope.models.spec import ModelSpec  # noqa: E402
from halluscope.prism.datasets import load_dataset  # noqa: E402
from halluscope.prism.probe_store import probe_into  # noqa: E402
from halluscope.prism.probes import ProbeConfig, skipped_row  # noqa: E402
from halluscope.runs.executor import ExecutorConfig  # noqa: E402
from halluscope.runs.sharding import Shard  # noqa: E402
from halluscope.runs.store import RunStore  # noqa: E402
from halluscope.signals.extract import extract_signals  # noqa: E402

MAX_NEW_TOKENS = 6
RAY2 = ExecutorConfig("ray", workers=2)


@pytest.fixture(scope="module")
def ray_local():
    """One local Ray session for the module; the executor uses it and leaves it open."""
    ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def llava(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny("llava", tmp_path_factory.mktemp("scale") / "llava", layers=2, hidden=32,
                     image_size=28)


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("scale_images")
    for i in range(1, 9):
        Image.new("RGB", (30 + 7 * i, 60 - 2 * i), (25 * i, 90, 200 - 20 * i)).save(
            folder / f"{i}.png")
    (folder / "9.png").write_bytes(b"not a png")  # an error row, on every executor
    return folder


def caption_rows(out: Path) -> list[dict[str, Any]]:
    return open_run(out).rows()


def assert_rows_close(rows: list[dict], expected: list[dict], float_columns: set[str]) -> None:
    """Same keys and values; float columns up to float noise (another batch size)."""
    assert [r["key"] for r in rows] == [r["key"] for r in expected]
    for row, ref in zip(rows, expected):
        assert {k: v for k, v in row.items() if k not in float_columns} == \
            {k: v for k, v in ref.items() if k not in float_columns}, row["key"]
        for column in float_columns:
            torch.testing.assert_close(torch.tensor(row[column]), torch.tensor(ref[column]),
                                       atol=1e-5, rtol=0)


@pytest.fixture(scope="module")
def caption_reference(llava: Path, images: Path, tmp_path_factory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("caption_single")
    caption_images(load_adapter(llava, dtype="float32"), items_from_folder(images), out,
                   max_new_tokens=MAX_NEW_TOKENS, batch_size=2)
    return caption_rows(out)


def test_caption_on_ray_equals_single_process(ray_local, llava, images, caption_reference,
                                              tmp_path: Path) -> None:
    spec = BackendSpec("hf", str(llava), dtype="float32", device="cpu")
    summary = caption_images(spec, items_from_folder(images), tmp_path / "two",
                             max_new_tokens=MAX_NEW_TOKENS, batch_size=2, executor=RAY2)
    assert (summary.done, summary.errors) == (8, 1)
    assert caption_rows(tmp_path / "two") == caption_reference  # same batches: bit for bit
    # One worker and another batch size: the same rows up to float noise.
    caption_images(spec, items_from_folder(images), tmp_path / "one",
                   max_new_tokens=MAX_NEW_TOKENS, batch_size=3,
                   executor=ExecutorConfig("ray", workers=1))
    assert_rows_close(caption_rows(tmp_path / "one"), caption_reference, {"logprobs"})
    # A Ray run resumes single-process (same manifest) and has nothing left to do.
    again = caption_images(load_adapter(llava, dtype="float32"), items_from_folder(images),
                           tmp_path / "two", max_new_tokens=MAX_NEW_TOKENS, batch_size=2)
    assert (again.done, again.skipped) == (0, 9)


def test_caption_shards_make_one_table(llava, images, caption_reference, tmp_path) -> None:
    adapter = load_adapter(llava, dtype="float32")
    done = []
    for index in (1, 0):
        summary = caption_images(adapter, items_from_folder(images), tmp_path,
                                 max_new_tokens=MAX_NEW_TOKENS, batch_size=2,
                                 shard=Shard(2, index))
        done.append(summary.done + summary.errors)
    assert sum(done) == 9 and min(done) > 0  # both shards had work, none was done twice
    assert caption_rows(tmp_path) == caption_reference
    files = sorted(p.name for p in tmp_path.glob("shard-*.parquet"))
    assert all(name.startswith(("shard-s0000of0002-", "shard-s0001of0002-")) for name in files)
    again = caption_images(adapter, items_from_folder(images), tmp_path,
                           max_new_tokens=MAX_NEW_TOKENS, batch_size=2, shard=Shard(2, 0))
    assert again.done == 0 and sorted(p.name for p in tmp_path.glob("shard-*")) == files


@pytest.fixture(scope="module")
def signal_inputs(tmp_path_factory) -> tuple[list[dict], Path]:
    folder = tmp_path_factory.mktemp("signal_images")
    paths = write_demo_images(folder, 6, size=48)
    items = [{"image_id": i, "image": p.name, "caption": DEMO_IMAGES[i - 1][2]}
             for i, p in enumerate(paths, 1)]
    items.append({"image_id": 99, "image": "missing.png", "caption": "A dog on a bed."})
    return items, folder


def signal_rows(out: Path) -> tuple[list[dict], list[dict]]:
    config = json.loads((out / "mentions" / "manifest.json").read_text())["config"]
    return (RunStore(out / "mentions", config).rows(), RunStore(out / "captions", config).rows())


def test_signals_on_ray_equal_single_process(ray_local, llava, signal_inputs, tmp_path) -> None:
    items, folder = signal_inputs
    single = extract_signals(load_adapter(llava, dtype="float32"), items, tmp_path / "single",
                             batch_size=2, images_dir=folder)
    spread = extract_signals(ModelSpec(str(llava), dtype="float32"), items, tmp_path / "ray",
                             batch_size=2, images_dir=folder, executor=RAY2)
    assert single["error_kinds"] == spread["error_kinds"] == {"missing_image": 1}
    assert single["mentions_written"] == spread["mentions_written"] > 6
    mentions, captions = signal_rows(tmp_path / "ray")
    assert (mentions, captions) == signal_rows(tmp_path / "single")
    assert len(captions) == 6


def test_signals_do_not_depend_on_the_thread_count(llava, signal_inputs, tmp_path) -> None:
    # A Ray actor computes with 1 thread where the single process uses 2; without MKL's strict
    # reproducibility (halluscope/__init__.py) float32 GEMM picked another kernel on AVX-512.
    items, folder = signal_inputs
    adapter, before = load_adapter(llava, dtype="float32"), torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            extract_signals(adapter, items, tmp_path / f"t{threads}", batch_size=2,
                            images_dir=folder)
    finally:
        torch.set_num_threads(before)
    assert signal_rows(tmp_path / "t1") == signal_rows(tmp_path / "t2")


def _vsr_files(tmp_path: Path) -> tuple[Path, Path]:
    images = tmp_path / "vsr_images"
    images.mkdir()
    lines = []
    for i, (cap, rel) in enumerate([("The dog is on the bed.", "on"),
                                    ("The cat is left of the car.", "left of"),
                                    ("The cup is touching the plate.", "touching"),
                                    ("The bird is above the tree.", "above"),
                                    ("The man is under the umbrella.", "under")]):
        if i != 2:  # one image is missing: a skipped row everywhere
            Image.new("RGB", (56, 56), (40 * i, 120, 80)).save(images / f"{i}.jpg")
        lines.append(json.dumps({"image": f"{i}.jpg", "caption": cap, "label": i % 2,
                                 "relation": rel}))
    data = tmp_path / "zeroshot_dev.jsonl"
    data.write_text("\n".join(lines) + "\n")
    return data, images


def _probe_rows(target: Path) -> list[dict]:
    return sorted((json.loads(x) for x in target.read_text().splitlines()),
                  key=lambda r: r["sample_id"])


def test_probe_on_ray_and_in_shards_equals_single_process(ray_local, tiny_qwen,
                                                          tmp_path) -> None:
    data, images = _vsr_files(tmp_path)
    ds = load_dataset("vsr", data, images)
    config = ProbeConfig(max_new_tokens=6, batch_size=2)
    spec = ModelSpec(str(tiny_qwen), dtype="float32")

    def run(out: str, executor=ExecutorConfig(), shard=Shard()) -> dict:
        return probe_into(tmp_path / out / "m" / "vsr.jsonl", spec, ds.items, config, "m",
                          executor, shard, skipped_row=skipped_row,
                          missing=set(ds.missing_images))

    run("single")
    reference = _probe_rows(tmp_path / "single" / "m" / "vsr.jsonl")
    assert len(reference) == 5 and sum(1 for r in reference if r.get("skipped")) == 1
    run("ray", RAY2)
    assert _probe_rows(tmp_path / "ray" / "m" / "vsr.jsonl") == reference
    # Two shards write their own files; the unsharded command gathers them, probing nothing.
    parts = [run("sharded", shard=Shard(2, i)) for i in (0, 1)]
    assert sum(p["shard_items"] for p in parts) == 5
    assert not (tmp_path / "sharded" / "m" / "vsr.jsonl").exists()
    gathered = run("sharded")
    assert (gathered["gathered_from_shards"], gathered["probed"]) == (5, 0)
    assert _probe_rows(tmp_path / "sharded" / "m" / "vsr.jsonl") == reference
    assert not list((tmp_path / "sharded" / "m" / ".shards").glob("*.jsonl"))


def test_entangle_on_ray_equals_single_process(ray_local, tiny_qwen, tmp_path) -> None:
    from halluscope.prism.entanglement import probe_entanglement
    from halluscope.prism.probes import load_image

    data, images = _vsr_files(tmp_path)
    items = load_dataset("vsr", data, images).present()[:3]
    pictures = [load_image(it.image) for it in items]
    config = ProbeConfig(max_new_tokens=4, batch_size=2)
    single = probe_entanglement(load_adapter(tiny_qwen, dtype="float32"), items, pictures,
                                config, "m", seed=0)
    spread = probe_entanglement(ModelSpec(str(tiny_qwen), dtype="float32"), items, pictures,
                                config, "m", seed=0, executor=RAY2)
    assert spread["clean"] == single["clean"] and spread["ruined"] == single["ruined"]
    assert spread["table"] == single["table"]


def _shards(folder: Path) -> int:
    return len(list(folder.glob("shard-*.parquet"))) if folder.is_dir() else 0


@pytest.mark.slow
def test_killed_ray_driver_resumes_to_the_same_rows(llava, tmp_path) -> None:
    """SIGKILL the whole command (driver and its local Ray cluster) once a batch is written;
    the rerun skips finished keys, redoes the killed batches and duplicates nothing."""
    many = tmp_path / "images"
    many.mkdir()
    for i in range(1, 41):  # enough batches that the kill lands mid-run
        Image.new("RGB", (30 + i, 40), (6 * i, 90, 250 - 6 * i)).save(many / f"{i}.png")
    reference = tmp_path / "reference"
    caption_images(load_adapter(llava, dtype="float32"), items_from_folder(many), reference,
                   max_new_tokens=24, batch_size=1)
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "halluscope.cli.main", "caption", "--model", str(llava),
               "--images", str(many), "--out", str(out), "--max-new-tokens", "24",
               "--batch-size", "1", "--dtype", "float32", "--device", "cpu",
               "--executor", "ray", "--workers", "2"]
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            start_new_session=True)
    deadline = time.monotonic() + 240
    while proc.poll() is None and _shards(out) < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    written = _shards(out)
    assert 1 <= written < 40, written  # killed mid-run
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=400)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"skipped {written} already done" in done.stdout, done.stdout
    assert caption_rows(out) == caption_rows(reference)


def test_bad_executor_options_are_one_line_errors(llava, images, tmp_path) -> None:
    from typer.testing import CliRunner

    from halluscope.cli.main import app

    base = ["caption", "--model", str(llava), "--images", str(images), "--out",
            str(tmp_path / "o"), "--max-new-tokens", "2"]
    cases = [
        (["--executor", "ray", "--workers", "0"], "--workers must be at least 1, got 0"),
        (["--workers", "2"], "--workers, --gpus-per-worker and --ray-address need --executor"),
        (["--executor", "dask"], "--executor must be one of local, ray"),
        (["--executor", "ray", "--ray-address", "127.0.0.1:1"],
         "--ray-address 127.0.0.1:1: cannot connect"),
        (["--num-shards", "2", "--shard", "2"], "--shard must be in 0..1"),
        (["--backend", "vllm"], "--backend vllm needs vLLM"),  # not in this environment
        (["--backend", "tgi"], "unknown generation backend 'tgi'"),
    ]
    for extra, message in cases:
        result = CliRunner().invoke(app, base + extra)
        assert result.exit_code == 2, (extra, result.output)
        assert message in result.output and "Traceback" not in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1, result.output


def test_no_ray_import_without_executor_ray() -> None:
    code = ("import sys, halluscope.generation.captioning, halluscope.signals.extract, "
            "halluscope.prism.probe_store, halluscope.cli.main; "
            "assert 'ray' not in sys.modules, 'ray imported'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_signals_read_a_caption_run_and_reuse_its_ids(llava, images, tmp_path) -> None:
    """`signals --captions RUN_DIR`: the generated ids (whatever backend made them) are
    teacher-forced exactly, with the run's prompt."""
    from halluscope.signals.inputs import read_items

    adapter = load_adapter(llava, dtype="float32")
    caption_images(adapter, items_from_folder(images), tmp_path / "run",
                   max_new_tokens=MAX_NEW_TOKENS, batch_size=4, prompt="Describe it.")
    items = read_items(tmp_path / "run")
    assert len(items) == 8 and {it["prompt"] for it in items} == {"Describe it."}
    extract_signals(adapter, items, tmp_path / "signals", batch_size=4)
    _, captions = signal_rows(tmp_path / "signals")
    by_id = {str(it["image_id"]): it["token_ids"] for it in items}
    assert len(captions) == 8
    for row in captions:
        assert row["input_ids"][row["prompt_length"]:] == by_id[row["image_id"]]
