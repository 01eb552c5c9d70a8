"""The bad-input corpus: every row of `cases.jsonl` run through the CLI, in process.

Each case names an entry point, its arguments (over the files in `cases/`, made by
`build_corpus.py`), the exit status and a regular expression the output must match. Every case
must end either with exit status 2 and exactly one `halluscope: error:` line naming the file and
line (or item), or, for inputs the command accepts or skips, with exit status 0, the skip counted
in the output and the output written. Never a traceback; never exit 0 with no output. A failed
case leaves its output path as it was (absent, or the sentinel file put there before).
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
CASE_DIR = HERE / "cases"
CASES = [json.loads(line) for line in (HERE / "cases.jsonl").read_text().splitlines()
         if line.strip()]
SENTINEL = "kept.txt"
# What opening a resumable run directory writes before any work (`runs/`): no rows.
RUN_METADATA = {"run.json", ".lock", "manifest.json"}

sys.path.insert(0, str(HERE.parent))  # tests/fake_openai_server.py
from fake_openai_server import FakeOpenAI  # noqa: E402


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The smallest LLaVA that captions, probes and extracts signals (built once)."""
    pytest.importorskip("torch")
    from halluscope.models import make_tiny

    return make_tiny("llava", tmp_path_factory.mktemp("corpus") / "tiny_llava", layers=1,
                     hidden=32, heads=2, seed=0, image_size=28)


@pytest.fixture(scope="module")
def signal_store(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A good `signals` output and the matching labels of `cases/captions_good.jsonl`."""
    from typer.testing import CliRunner

    from halluscope.cli.main import app

    root = tmp_path_factory.mktemp("corpus_signals")
    _images(root / "imgs", ["img_good.png"])
    captions = str(CASE_DIR / "captions_good.jsonl")
    for argv in (["signals", "--model", str(tiny_model), "--captions", captions, "--images",
                  str(root / "imgs"), "--out", str(root / "signals"), "--no-logit-lens"],
                 ["label", "--captions", captions, "--out", str(root / "labels.parquet")]):
        result = CliRunner().invoke(app, argv)
        assert result.exit_code == 0, result.output
    return {"signals": root / "signals", "labels": root / "labels.parquet"}


@pytest.fixture(scope="module")
def llm_server():
    with FakeOpenAI(hang=1.5, retry_after=0.05) as server:
        yield server


def _images(folder: Path, names: list[str]) -> None:
    """`folder/1.png` (a good image) then one file per name, as 2.<ext>, 3.<ext>, ..."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(CASE_DIR / "img_good.png", folder / "1.png")
    for n, name in enumerate(names, start=2):
        shutil.copy(CASE_DIR / name, folder / f"{n}{Path(name).suffix}")


def _setup(step: str, tmp: Path, model: Path | None, server: FakeOpenAI,
           monkeypatch: pytest.MonkeyPatch, store: dict[str, Path]) -> None:
    kind, _, arg = step.partition(":")
    if kind == "big_caption":  # exactly 1 MiB of caption text
        text = ("a dog on a couch " * 70_000)[:1_048_576]
        (tmp / "big.jsonl").write_text(json.dumps({"image_id": 1, "caption": text}) + "\n")
    elif kind == "deep_json":
        (tmp / "deep.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n")
    elif kind == "out_is_file":
        (tmp / "out").write_text("not a folder\n")
    elif kind == "signals_truncated":  # a copy of a good store, one mentions shard cut short
        shutil.copytree(store["signals"], tmp / "sig")
        shard = sorted((tmp / "sig" / "mentions").glob("shard-*.parquet"))[0]
        shard.write_bytes(shard.read_bytes()[:shard.stat().st_size // 2])
    elif kind == "no_good_image":  # 1.png is cut short too
        (tmp / "imgs" / "1.png").write_bytes((CASE_DIR / "img_truncated.jpg").read_bytes())
    elif kind == "dir":  # the output path is an existing folder
        (tmp / arg).mkdir()
    elif kind == "sentinel":
        (tmp / "out").mkdir()
        (tmp / "out" / SENTINEL).write_text("from an earlier run\n")
    elif kind in ("enospc", "enospc_after_2"):
        _fail_fsync(monkeypatch, after=2 if kind == "enospc_after_2" else 0)
    elif kind == "llm":
        server.faults.clear()
        server.mix = {} if arg == "ok" else {arg: 1.0}
    elif kind == "llm_faults":
        server.mix = {}
        server.faults[:] = arg.split(",")
    elif kind == "images":
        if arg == "symlink_out":  # 2.png leads out of the folder
            _images(tmp / "imgs", [])
            os.symlink(CASE_DIR / "img_good.png", tmp / "imgs" / "2.png")
        else:
            _images(tmp / "imgs", arg.split(","))
    elif kind == "model":
        assert model is not None
        shutil.copytree(model, tmp / "model")
        weights, config = tmp / "model" / "model.safetensors", tmp / "model" / "config.json"
        if arg == "truncated":
            weights.write_bytes(weights.read_bytes()[:weights.stat().st_size // 2])
        elif arg == "no_weights":
            weights.unlink()
        elif arg == "bad_config":
            config.write_text(config.read_text()[:60])
    elif kind == "signals_bad_images":  # two captions whose images are both unreadable
        _images(tmp / "imgs", ["img_zero_byte.jpg", "img_corrupt.png"])
        (tmp / "imgs" / "1.png").write_bytes((CASE_DIR / "img_truncated.jpg").read_bytes())
        (tmp / "caps.jsonl").write_text(
            json.dumps({"image_id": 1, "image": "1.png", "caption": "A dog on a couch."}) + "\n"
            + json.dumps({"image_id": 2, "image": "2.jpg", "caption": "A cat on a bed."}) + "\n")
    elif kind == "prism_vsr_images":  # one good image, one corrupt, one decompression bomb
        _images(tmp / "imgs", ["img_corrupt.png", "img_bomb.png"])
        rows = [{"image": name, "caption": "The dog is on the couch.", "label": n % 2,
                 "relation": "on"} for n, name in enumerate(["1.png", "2.png", "3.png"])]
        (tmp / "vsr.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    else:
        raise AssertionError(f"unknown setup step {step!r}")


def _fail_fsync(monkeypatch: pytest.MonkeyPatch, after: int) -> None:
    """A full disk: every fsync after the first `after` fails with ENOSPC (where a write-back
    file system reports it)."""
    from halluscope.io import atomic

    calls = [0]
    real = atomic.os.fsync

    def fsync(fd: int) -> None:
        calls[0] += 1
        if calls[0] > after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(atomic.os, "fsync", fsync)


def _snapshot(path: Path) -> dict[str, bytes] | None:
    if not path.exists():
        return None
    if path.is_file():
        return {"": path.read_bytes()}
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_bad_input(case: dict, tmp_path: Path, request: pytest.FixtureRequest,
                   llm_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from halluscope.cli.main import app

    setup = case.get("setup", "")
    uses_model = any("{model}" in a for a in case["argv"]) or "model:" in setup
    model = request.getfixturevalue("tiny_model") if uses_model else None
    uses_store = any("{signals}" in a or "{labels}" in a for a in case["argv"]) or (
        "signals_truncated" in setup)
    store = request.getfixturevalue("signal_store") if uses_store else {}
    # The judge's cache and the model build cache stay inside this case's folder.
    monkeypatch.chdir(tmp_path)
    for step in filter(None, setup.split("+")):
        _setup(step, tmp_path, model, llm_server, monkeypatch, store)
    values = {"c": str(CASE_DIR), "tmp": str(tmp_path), "model": str(model),
              "llm": llm_server.base_url, **{k: str(v) for k, v in store.items()}}
    argv = [re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], a) for a in case["argv"]]
    out = next((Path(a) for flag, a in zip(argv, argv[1:]) if flag == "--out"), None)
    before = _snapshot(out) if out is not None else None

    result = CliRunner().invoke(app, argv)
    output = result.output

    assert "Traceback" not in output, output
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"uncaught {result.exception!r}\n{output}") from result.exception
    assert result.exit_code == case["exit"], output
    assert re.search(case["message"], output), f"{case['message']!r} not in:\n{output}"
    errors = [line for line in output.splitlines() if line.startswith("halluscope: error:")]
    if case["exit"] == 2:
        assert len(errors) == 1, output  # exactly one line says what is wrong, and where
        if out is not None and not case.get("after_write"):
            # Failed before writing: the output is as it was. (A failure gate, "every item
            # failed", fails after writing: its rows record the failures, which a rerun
            # retries. A run directory may have been opened, its fingerprint written, before
            # the failure: no rows.)
            after = _snapshot(out) or {}
            new = {name for name in after if (before or {}).get(name) != after[name]}
            assert all(Path(name).name in RUN_METADATA for name in new), f"{out}: {new}"
    else:
        assert not errors, output
        assert out is not None and out.exists(), f"exit 0 without an output: {output}"


def test_corpus_covers_every_entry_point() -> None:
    """At least 40 cases, and every entry point of the CLI that reads user files has some."""
    entries = {c["entry"] for c in CASES}
    required = {"label", "report", "chair", "caption", "signals", "bench run", "bench evaluate",
                "bench tables", "prism probe", "prism entangle", "prism profile", "prism abstain",
                "prism route", "prism recompute", "models make-tiny"}
    assert len(CASES) >= 40 and required <= entries, required - entries
    assert len({c["id"] for c in CASES}) == len(CASES)
