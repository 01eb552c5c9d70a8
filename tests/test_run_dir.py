"""Run directories that cannot be mixed: fingerprints refused with what differs, --force-new,
the lock (live refused, stale taken over), and two concurrent CLI runs."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from halluscope.errors import ConfigError
from halluscope.runs import run_dir
from halluscope.runs.run_dir import (DirectoryRun, FileRun, RunLock, digest_rows, file_digest,
                                     fingerprint, open_run_dir)

BASE_CONFIG = {"prompt": "Describe.", "max_new_tokens": 8}


def _fp(command: str = "caption", model: Path | None = None, config: dict | None = None,
        items: list | None = None) -> dict:
    return fingerprint(command, model, config or BASE_CONFIG,
                       {"items": digest_rows(items or [["1", "a.jpg", 10]])})


def _refused(run, current, **kwargs) -> str:
    with pytest.raises(ConfigError) as info:
        with open_run_dir(run, current, **kwargs):
            pass
    message = str(info.value)
    assert "\n" not in message
    return message


@pytest.fixture()
def model_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "llava"}')
    (folder / "model.safetensors").write_bytes(b"\x00" * 64)
    return folder


def test_same_fingerprint_resumes_and_each_difference_is_named(tmp_path: Path,
                                                               model_dir: Path) -> None:
    run = DirectoryRun(tmp_path / "out")
    first = _fp(model=model_dir)
    with open_run_dir(run, first):
        (run.root / "shard-000000.parquet").write_bytes(b"rows")
    with open_run_dir(run, _fp(model=model_dir)):  # the same run: resumes
        pass
    cases = [
        (_fp("signals", model=model_dir), "command (caption then, signals now)"),
        (_fp(model=model_dir, config={**BASE_CONFIG, "prompt": "Other."}),
         "prompt ('Describe.' then, 'Other.' now)"),
        (_fp(model=model_dir, config={**BASE_CONFIG, "max_new_tokens": 9}),
         "max_new_tokens (8 then, 9 now)"),
        (_fp(model=model_dir, items=[["1", "a.jpg", 11]]), "input items (sha256 "),
        (_fp(model=None), "model ("),
    ]
    for current, named in cases:
        message = _refused(run, current)
        assert named in message, message
        assert message.startswith(f"{run.root}: made by another run; differs: ")
        assert "--force-new" in message
    # The recorded input digest is the SHA-256 of the canonical JSON lines.
    recorded = json.loads((run.root / "run.json").read_text())
    line = json.dumps(["1", "a.jpg", 10]).encode() + b"\n"
    assert recorded["inputs"]["items"] == {"sha256": hashlib.sha256(line).hexdigest(),
                                           "count": 1}


def test_other_weights_under_the_same_path_are_refused(tmp_path: Path, model_dir: Path) -> None:
    run = DirectoryRun(tmp_path / "out")
    with open_run_dir(run, _fp(model=model_dir)):
        (run.root / "shard-000000.parquet").write_bytes(b"rows")
    (model_dir / "model.safetensors").write_bytes(b"\x01" + b"\x00" * 63)
    message = _refused(run, _fp(model=model_dir))
    old = hashlib.sha256(b"\x00" * 64).hexdigest()[:12]
    new = hashlib.sha256(b"\x01" + b"\x00" * 63).hexdigest()[:12]
    assert f"model files (model.safetensors sha256 {old} then, sha256 {new} now)" in message
    # The recorded weights back, in a moved folder: the same model, so the run resumes.
    (model_dir / "model.safetensors").write_bytes(b"\x00" * 64)
    moved = tmp_path / "moved"
    shutil.copytree(model_dir, moved)
    with open_run_dir(run, _fp(model=moved)):
        pass


def test_a_run_that_wrote_nothing_does_not_block_the_next(tmp_path: Path) -> None:
    run = DirectoryRun(tmp_path / "out")
    with open_run_dir(run, _fp()):
        pass  # e.g. the model failed to load: only run.json and .lock exist
    other = _fp(config={**BASE_CONFIG, "prompt": "Other."})
    with open_run_dir(run, other):
        (run.root / "shard-000000.parquet").write_bytes(b"rows")
    assert json.loads((run.root / "run.json").read_text())["config"]["prompt"] == "Other."
    assert "prompt ('Other.' then, 'Describe.' now)" in _refused(run, _fp())


def test_version_difference_is_refused(tmp_path: Path, monkeypatch) -> None:
    run = DirectoryRun(tmp_path / "out")
    with open_run_dir(run, _fp()):
        (run.root / "shard-000000.parquet").write_bytes(b"rows")
    monkeypatch.setattr(run_dir, "halluscope_version", lambda: "99.0")
    message = _refused(run, _fp())
    assert "halluscope version (" in message and "then, 99.0 now)" in message


def test_output_without_a_fingerprint_and_a_file_as_out_are_refused(tmp_path: Path) -> None:
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "summary.json").write_text("{}")
    assert "holds output but no run.json" in _refused(DirectoryRun(legacy), _fp())
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert "--out is a file" in _refused(DirectoryRun(afile), _fp())
    assert f"{afile}: is a file, not a folder" in _refused(DirectoryRun(afile / "sub"), _fp())
    assert f"{afile}: is a file" in _refused(FileRun(afile / "model" / "vsr.jsonl"), _fp())
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "run.json").write_text("{not json")
    assert "not a readable run fingerprint" in _refused(DirectoryRun(tmp_path / "bad"), _fp())


def test_a_read_only_or_full_disk_is_one_line(tmp_path: Path, monkeypatch) -> None:
    import errno

    def refuse(self) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(RunLock, "acquire", refuse)
    message = _refused(DirectoryRun(tmp_path / "out"), _fp())
    assert message == f"{tmp_path / 'out' / '.lock'}: {os.strerror(errno.EROFS)}"


def test_force_new_moves_the_old_run_aside(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with open_run_dir(DirectoryRun(out), _fp()):
        (out / "summary.json").write_text('{"old": true}')
    notes: list[str] = []
    other = _fp(config={**BASE_CONFIG, "prompt": "Other."})
    with open_run_dir(DirectoryRun(out), other, force_new=True, notify=notes.append):
        assert not (out / "summary.json").exists()
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("out.old-")]
    assert len(aside) == 1 and json.loads((aside[0] / "summary.json").read_text()) == {"old": True}
    assert json.loads((aside[0] / "run.json").read_text())["config"]["prompt"] == "Describe."
    assert json.loads((out / "run.json").read_text())["config"]["prompt"] == "Other."
    assert notes == [f"halluscope: --force-new: the previous run was moved to {aside[0]}"]
    sharded = _refused(DirectoryRun(out), other, force_new=True, writer="s0000of0002")
    assert "--force-new with --num-shards" in sharded


def test_file_run_force_new_keeps_the_old_file_out_of_the_results(tmp_path: Path) -> None:
    target = tmp_path / "out" / "model" / "vsr.jsonl"
    run = FileRun(target)
    with open_run_dir(run, _fp("prism probe")):
        target.write_text('{"sample_id": "a"}\n')
    assert "input items" in _refused(run, _fp("prism probe", items=[["2", "b.jpg", 3]]))
    with open_run_dir(run, _fp("prism probe", items=[["2", "b.jpg", 3]]), force_new=True,
                      notify=lambda _: None):
        assert not target.exists()
    # The analyses read <out>/<model>/<dataset>.jsonl: the old file is under .old/.
    assert sorted(p.relative_to(tmp_path / "out").as_posix()
                  for p in (tmp_path / "out").glob("*/*.jsonl")) == []
    old = list((target.parent / ".old").glob("vsr-*/vsr.jsonl"))
    assert len(old) == 1 and old[0].read_text() == '{"sample_id": "a"}\n'


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_live_lock_is_refused_naming_its_owner(tmp_path: Path) -> None:
    out = tmp_path / "out"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from halluscope.runs.run_dir import RunLock; "
         f"RunLock({str(out / '.lock')!r}, 'caption').acquire(); print('held', flush=True); "
         "sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        message = _refused(DirectoryRun(out), _fp())
        assert message == (f"{out}: in use by pid {holder.pid} on {socket.gethostname()} "
                           f"(halluscope caption, since {message.split('since ')[1]}")
        assert message.endswith("); wait for it to finish, or use another --out")
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    with open_run_dir(DirectoryRun(out), _fp()):  # released when its owner exits
        pass


def test_a_stale_lock_is_taken_over_with_a_message(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    pid = _dead_pid()
    (out / ".lock").write_text(json.dumps({"pid": pid, "host": socket.gethostname(),
                                           "command": "signals", "started": "then"}))
    notes: list[str] = []
    with open_run_dir(DirectoryRun(out), _fp(), notify=notes.append):
        assert json.loads((out / ".lock").read_text())["pid"] == os.getpid()
    assert notes == [f"halluscope: taking over the stale lock {out / '.lock'} of pid {pid} on "
                     f"{socket.gethostname()} (halluscope signals, since then): no longer running"]
    assert (out / ".lock").read_text() == ""  # released: an empty, free lock


def test_whole_run_and_shards_refuse_each_other(tmp_path: Path) -> None:
    run = DirectoryRun(tmp_path / "out")
    shard = RunLock(run.lock_path("s0000of0002"), "caption")
    shard.acquire()
    try:
        assert f"in use by pid {os.getpid()} " in _refused(run, _fp())
        assert "running shard s0000of0002; wait for it" in _refused(run, _fp())
        with open_run_dir(run, _fp(), writer="s0001of0002"):  # other shards run beside it
            pass
    finally:
        shard.release()
    whole = RunLock(run.lock_path(), "caption")
    whole.acquire()
    try:
        assert "running the whole run; wait" in _refused(run, _fp(), writer="s0001of0002")
    finally:
        whole.release()


def test_large_files_are_hashed_by_header_size_and_sampled_chunks(tmp_path: Path,
                                                                  monkeypatch) -> None:
    monkeypatch.setattr(run_dir, "WHOLE_FILE_LIMIT", 1000)
    monkeypatch.setattr(run_dir, "SAMPLE_CHUNKS", 4)
    monkeypatch.setattr(run_dir, "SAMPLE_CHUNK", 10)
    header = b'{"w": {"dtype": "F32", "shape": [500], "data_offsets": [0, 2000]}}'
    body = bytes(range(256)) * 8  # 2048 bytes
    path = tmp_path / "model.safetensors"
    data = len(header).to_bytes(8, "little") + header + body
    path.write_bytes(data)
    base = file_digest(path)
    assert base["method"] == "sha256-sampled-4x1MiB" and base["size"] == len(data)
    # Chunks of 10 bytes at 0, (n-10)/3, 2(n-10)/3 and n-10; the header is hashed whole.
    n = len(data)
    starts = [int(k * (n - 10) / 3) for k in range(4)]

    def flipped(at: int) -> dict:
        changed = bytearray(data)
        changed[at] ^= 0xFF
        path.write_bytes(bytes(changed))
        return file_digest(path)

    assert flipped(starts[1] + 3)["sha256"] != base["sha256"]  # inside a sampled chunk
    assert flipped(8 + 5)["sha256"] != base["sha256"]  # inside the header
    gap = starts[2] - 5  # between the second and third chunks, after the header
    assert gap > 8 + len(header) and gap >= starts[1] + 10
    assert flipped(gap)["sha256"] == base["sha256"]  # the documented limit
    path.write_bytes(data + b"\x00")
    assert file_digest(path)["sha256"] != base["sha256"]  # the size


# ------------------------------------------------------------------------------------------
# Through the CLI, on a tiny model
# ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("torch")
    from halluscope.demo.data import DEMO_IMAGES
    from halluscope.demo.images import write_demo_images
    from halluscope.models import make_tiny

    root = tmp_path_factory.mktemp("run_dir")
    model = make_tiny("llava", root / "tiny", layers=2, hidden=32, image_size=56)
    images = root / "images"
    paths = write_demo_images(images, 4, size=56)
    captions = root / "captions.jsonl"
    captions.write_text("".join(
        json.dumps({"image_id": i, "image": p.name, "caption": DEMO_IMAGES[i - 1][2]}) + "\n"
        for i, p in enumerate(paths, 1)))
    return {"root": root, "model": model, "images": images, "captions": captions}


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "halluscope.cli.main", *map(str, args)]


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.run(_cli(*args), capture_output=True, text=True, env=env, timeout=600)


def _error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, result.stderr[-2000:]
    lines = [x for x in result.stderr.splitlines() if x.startswith("halluscope: error:")]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


@pytest.mark.slow
def test_signals_refuses_other_captions_other_weights_and_a_caption_run(tiny, tmp_path) -> None:
    signals = ("signals", "--model", tiny["model"], "--images", tiny["images"],
               "--batch-size", "2")
    out = tmp_path / "sig"
    first = _run(*signals, "--captions", tiny["captions"], "--out", out, "--limit", "2")
    assert first.returncode == 0, first.stderr[-2000:]
    rows_before = sorted(p.name for p in (out / "mentions").iterdir())
    # Other captions (one edited line): refused, nothing written.
    other = tmp_path / "other.jsonl"
    lines = tiny["captions"].read_text().splitlines()
    other.write_text("\n".join([lines[0].replace("A ", "The ", 1), *lines[1:]]) + "\n")
    line = _error_line(_run(*signals, "--captions", other, "--out", out))
    assert "input captions (sha256 " in line and "differs" in line
    # Other weights under the same model folder: refused, naming the weights file.
    model2 = tmp_path / "tiny"
    shutil.copytree(tiny["model"], model2)
    from halluscope.models import make_tiny

    reseeded = make_tiny("llava", tmp_path / "reseeded", layers=2, hidden=32, image_size=56,
                         seed=1)
    out2 = tmp_path / "sig2"
    ok = _run(*signals[:2], model2, *signals[3:], "--captions", tiny["captions"],
              "--out", out2, "--limit", "1")
    assert ok.returncode == 0, ok.stderr[-2000:]
    shutil.copy(reseeded / "model.safetensors", model2 / "model.safetensors")
    line = _error_line(_run(*signals[:2], model2, *signals[3:], "--captions",
                            tiny["captions"], "--out", out2))
    assert "model files (model.safetensors sha256 " in line
    # A caption run directory: signals is refused and its summary.json is left alone.
    cap = tmp_path / "cap"
    made = _run("caption", "--model", tiny["model"], "--images", tiny["images"], "--out", cap,
                "--max-new-tokens", "4", "--limit", "1")
    assert made.returncode == 0, made.stderr[-2000:]
    summary = (cap / "summary.json").read_bytes()
    line = _error_line(_run(*signals, "--captions", tiny["captions"], "--out", cap))
    assert "command (caption then, signals now)" in line
    assert (cap / "summary.json").read_bytes() == summary
    # ... and the reverse.
    line = _error_line(_run("caption", "--model", tiny["model"], "--images", tiny["images"],
                            "--out", out, "--max-new-tokens", "4"))
    assert "command (signals then, caption now)" in line
    assert sorted(p.name for p in (out / "mentions").iterdir()) == rows_before
    # --force-new starts over with the other captions; the old run is kept aside.
    redo = _run(*signals, "--captions", other, "--out", out, "--limit", "1", "--force-new")
    assert redo.returncode == 0, redo.stderr[-2000:]
    assert "--force-new: the previous run was moved to" in redo.stderr
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("sig.old-")]
    assert len(aside) == 1
    assert sorted(p.name for p in (aside[0] / "mentions").iterdir()) == rows_before


@pytest.mark.slow
@pytest.mark.parametrize("command_name", ["caption", "signals"])
def test_two_concurrent_runs_the_second_exits_2_and_nothing_is_doubled(tiny, tmp_path,
                                                                       command_name) -> None:
    """The first run is paused (SIGSTOP) once it holds the lock, so the second certainly
    starts while the first is mid-run; then the first is resumed and finishes."""
    out = tmp_path / "out"
    if command_name == "caption":
        command = _cli("caption", "--model", tiny["model"], "--images", tiny["images"], "--out",
                       out, "--max-new-tokens", "4", "--batch-size", "1")
    else:
        command = _cli("signals", "--model", tiny["model"], "--captions", tiny["captions"],
                       "--images", tiny["images"], "--out", out, "--batch-size", "1")
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env)
    try:
        deadline = time.monotonic() + 300
        while first.poll() is None and time.monotonic() < deadline and not (
                (out / ".lock").is_file() and (out / ".lock").read_text().strip()):
            time.sleep(0.01)
        assert first.poll() is None, first.communicate()[1][-2000:]
        first.send_signal(signal.SIGSTOP)
        second = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        line = _error_line(second)
        assert f"in use by pid {first.pid} on {socket.gethostname()} " \
               f"(halluscope {command_name}" in line
    finally:
        first.send_signal(signal.SIGCONT)
    stdout, stderr = first.communicate(timeout=600)
    assert first.returncode == 0, stderr[-2000:]
    from halluscope.runs.store import RunStore

    def keys(folder: Path) -> list[str]:
        manifest = json.loads((folder / "manifest.json").read_text())["config"]
        return [str(r["key"]) for r in RunStore(folder, manifest).rows()]

    if command_name == "caption":
        assert keys(out) == ["1", "2", "3", "4"]  # four images, each once
    else:
        assert keys(out / "captions") == ["0", "1", "2", "3"]  # four captions, each once
        mentions = keys(out / "mentions")
        assert len(mentions) == len(set(mentions)) > 0  # no mention row twice


@pytest.mark.slow
def test_probe_and_entangle_refuse_other_runs(tiny_qwen, tmp_path, picture) -> None:
    images = tmp_path / "images"
    images.mkdir()
    picture(1, (56, 56)).save(images / "0.jpg")
    data = tmp_path / "zeroshot_dev.jsonl"
    data.write_text(json.dumps({"image": "0.jpg", "caption": "The dog is on the bed.",
                                "label": 1, "relation": "on"}) + "\n")
    probe = ("prism", "probe", "--model", tiny_qwen, "--dataset", "vsr", "--data", data,
             "--images", images, "--out", tmp_path / "probes", "--batch-size", "1")
    done = _run(*probe, "--max-new-tokens", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    line = _error_line(_run(*probe, "--max-new-tokens", "3"))
    assert "vsr.jsonl: made by another run; differs: max_new_tokens (2 then, 3 now)" in line
    # entangle into a caption run directory: refused before any model work.
    cap = tmp_path / "cap"
    with open_run_dir(DirectoryRun(cap), _fp()):
        (cap / "shard-000000.parquet").write_bytes(b"rows")
    entangle = ("prism", "entangle", "--model", tiny_qwen, "--dataset", "vsr", "--data", data,
                "--images", images, "--max-new-tokens", "2")
    line = _error_line(_run(*entangle, "--out", cap))
    assert "command (caption then, prism entangle now)" in line
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "entanglement.json").write_text("{}")
    assert "holds output but no run.json" in _error_line(_run(*entangle, "--out", legacy))
