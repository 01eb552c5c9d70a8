"""Kill-and-resume soak: `caption`, `signals` and `prism probe` SIGKILLed at seeded random
points, each resumed to the end, every final store compared row by row with an uninterrupted
run.

    python benchmarks/soak_resume.py                 # 20 runs per command, local executor
    python benchmarks/soak_resume.py --runs 3 --images 4   # what tests/test_soak_resume.py runs
    python benchmarks/soak_resume.py --ray --runs 5  # --executor ray: the driver is killed

Prints one line per run and `RESULT caption=20/20 signals=20/20 probe=20/20`: how many runs
ended with exactly the uninterrupted run's rows (sorted by key; floats compared exactly, so
batch size 1 on CPU in float32). A run counts only if its kill landed (the process was still
running when SIGKILL was sent) and the resumed command exited 0 with the same rows.

Kill points: run k of a command waits until `p` rows are stored, `p` drawn from
random.Random(f"{seed}:{command}:{k}") between 0 (the run directory is locked and
fingerprinted, the model not yet loaded) and the last row but one, then sleeps a drawn
0-0.3 s and sends SIGKILL, so kills land during model loading, generation, and shard or row
writes. The resume also takes over the dead run's stale lock (counted in the output). A kill
that comes after the run ended (a fast machine) is drawn again, up to 3 times, in a new folder.

With `--ray` each command runs `--executor ray --workers 1`; SIGKILL goes to the driver, then
to the rest of its session (the local Ray cluster it started), which would otherwise linger.
Ray hands rows back a block at a time, in bursts, so there the kill comes as soon as the drawn
number of rows is stored, or for 0 rows at a drawn time within the uninterrupted run's time from
its fingerprint to its exit (cluster start, model loading in the actor, the blocks).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

COMMANDS = ("caption", "signals", "probe")
N_IMAGES = 8  # rows per run: enough that a kill can land between any two of them
MAX_NEW_TOKENS = 12
STALE = "taking over the stale lock"
MAX_ATTEMPTS = 3


@dataclass
class Setup:
    """The inputs every run of the soak shares (built once under `work`)."""

    work: Path
    llava: Path
    qwen: Path
    images: Path
    captions: Path
    vsr: Path
    vsr_images: Path


def build_inputs(work: Path, n_images: int = N_IMAGES) -> Setup:
    """Tiny random-weight models (LLaVA for caption and signals, Qwen2.5-VL for the probes),
    demo images, a caption file and a VSR file over the same images."""
    from PIL import Image
    import numpy as np

    from halluscope.demo.data import DEMO_IMAGES
    from halluscope.demo.images import write_demo_images
    from halluscope.models import make_tiny

    work.mkdir(parents=True, exist_ok=True)
    llava = work / "tiny_llava"
    if not (llava / "config.json").is_file():
        make_tiny("llava", llava, layers=2, hidden=32, image_size=56)
    qwen = work / "tiny_qwen"
    if not (qwen / "config.json").is_file():
        make_tiny("qwen2_5_vl", qwen, layers=2, hidden=32, heads=4, seed=0, image_size=56)
    images = work / "images"
    paths = write_demo_images(images, n_images, size=56)
    captions = work / "captions.jsonl"
    captions.write_text("".join(
        json.dumps({"image_id": i, "image": p.name,
                    "caption": DEMO_IMAGES[(i - 1) % len(DEMO_IMAGES)][2]}) + "\n"
        for i, p in enumerate(paths, 1)))
    relations = ["on", "touching", "left of", "under"]
    rng = np.random.default_rng(0)
    vsr_images = work / "vsr_images"
    vsr_images.mkdir(exist_ok=True)
    vsr_lines = []
    for i in range(n_images):
        name = f"vsr{i}.png"
        Image.fromarray(rng.integers(0, 256, (56, 56, 3), dtype=np.uint8), "RGB").save(
            vsr_images / name)
        rel = relations[i % len(relations)]
        vsr_lines.append(json.dumps({"image": name, "caption": f"The dog is {rel} the bed.",
                                     "label": i % 2, "relation": rel}))
    vsr = work / "zeroshot_dev.jsonl"
    vsr.write_text("\n".join(vsr_lines) + "\n")
    return Setup(work, llava, qwen, images, captions, vsr, vsr_images)


@dataclass(frozen=True)
class Target:
    """One command under test: how to run it into `out`, how far it is, what it stored."""

    name: str
    command: Callable[[Path], list[str]]
    progress: Callable[[Path], int]  # -1 before the run directory is fingerprinted
    rows: Callable[[Path], list[dict[str, Any]]]


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "halluscope.cli.main", *args]


def _count_shards(folder: Path) -> int:
    return len(list(folder.glob("shard-*.parquet"))) if folder.is_dir() else 0


def _store_rows(folder: Path) -> list[dict[str, Any]]:
    from halluscope.runs.store import RunStore

    manifest = json.loads((folder / "manifest.json").read_text())
    return RunStore(folder, manifest["config"], manifest.get("key_column", "key")).rows()


def _complete_lines(path: Path) -> int:
    if not path.is_file():
        return 0
    return path.read_bytes().count(b"\n")


def targets(setup: Setup, ray: bool) -> dict[str, Target]:
    executor = ["--executor", "ray", "--workers", "1"] if ray else []
    exact = ["--batch-size", "1", "--dtype", "float32", "--device", "cpu", *executor]

    def caption(out: Path) -> list[str]:
        return _cli("caption", "--model", str(setup.llava), "--images", str(setup.images),
                    "--out", str(out), "--max-new-tokens", str(MAX_NEW_TOKENS), *exact)

    def signals(out: Path) -> list[str]:
        return _cli("signals", "--model", str(setup.llava), "--captions", str(setup.captions),
                    "--images", str(setup.images), "--out", str(out), *exact)

    def probe(out: Path) -> list[str]:
        return _cli("prism", "probe", "--model", str(setup.qwen), "--dataset", "vsr",
                    "--data", str(setup.vsr), "--images", str(setup.vsr_images), "--out", str(out),
                    "--max-new-tokens", "4", *exact)

    def started(fingerprint: Path, count: int) -> int:
        return count if fingerprint.is_file() else -1

    probe_file = Path("tiny_qwen") / "vsr.jsonl"
    return {
        "caption": Target(
            "caption", caption,
            lambda out: started(out / "run.json", _count_shards(out)),
            _store_rows),
        "signals": Target(
            "signals", signals,
            lambda out: started(out / "run.json", _count_shards(out / "captions")),
            lambda out: _store_rows(out / "mentions") + _store_rows(out / "captions")),
        "probe": Target(
            "probe", probe,
            lambda out: started(out / "tiny_qwen" / ".runs" / "vsr.json",
                                _complete_lines(out / probe_file)),
            lambda out: sorted((json.loads(line) for line in
                                (out / probe_file).read_text().splitlines()),
                               key=lambda r: r["sample_id"])),
    }


def _env() -> dict[str, str]:
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    env.pop("RAY_ADDRESS", None)  # a local cluster per command, never a shared one
    return env


def run_to_end(command: list[str], timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, env=_env(), timeout=timeout)


@dataclass
class Outcome:
    killed_at: int | None  # rows stored when SIGKILL was sent (None: the run ended first)
    resumed_rc: int
    same: bool
    took_over: bool  # the resume reported a stale lock taken over
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.killed_at is not None and self.resumed_rc == 0 and self.same


def kill_and_resume(target: Target, out: Path, reference: list[dict[str, Any]], total: int,
                    rng: random.Random, ray: bool, window: float = 0.0) -> Outcome:
    """Start the command, SIGKILL it at a drawn point, rerun it to the end, compare.

    Local: after a drawn number of stored rows plus 0-0.3 s. Ray returns rows a block at a
    time (in a burst), so there the kill comes as soon as the drawn number of rows is stored,
    or, when that number is 0, at a drawn time within `window` (the uninterrupted run's
    seconds from its fingerprint to its exit: cluster start, model loading, the blocks).
    """
    wait_for = rng.randint(0, max(0, total - 2))
    delay = rng.uniform(0.0, 0.3)
    if ray:  # at once on reaching the drawn row, or at a drawn time before the first
        delay = rng.uniform(0.0, window) if wait_for == 0 else 0.0
    proc = subprocess.Popen(target.command(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_env(), start_new_session=True)
    deadline = time.monotonic() + 600
    while proc.poll() is None and target.progress(out) < wait_for \
            and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(delay)
    killed_at = None
    if proc.poll() is None:
        killed_at = max(0, target.progress(out))
        proc.send_signal(signal.SIGKILL)
        if ray:  # the driver is dead; stop the local cluster it had started
            time.sleep(0.5)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    proc.communicate(timeout=120)
    done = run_to_end(target.command(out))
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["?"])[-1]
        return Outcome(killed_at, done.returncode, False, STALE in done.stderr, tail)
    got = target.rows(out)
    same = got == reference
    detail = "" if same else _first_difference(got, reference)
    return Outcome(killed_at, 0, same, STALE in done.stderr, detail)


def _first_difference(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> str:
    if len(got) != len(want):
        return f"{len(got)} rows, expected {len(want)}"
    for a, b in zip(got, want):
        if a != b:
            key = a.get("key", a.get("sample_id"))
            cols = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            return f"row {key}: {', '.join(cols[:5])} differ"
    return "?"


def soak(runs: int = 20, seed: int = 0, commands: tuple[str, ...] = COMMANDS,
         ray: bool = False, work: Path | None = None, n_images: int = N_IMAGES,
         echo: Callable[[str], None] = print) -> dict[str, tuple[int, int]]:
    """Run the soak; returns {command: (runs that ended exact, runs)}.

    The commands take turns (run k of each, then run k + 1), and a `PARTIAL` line follows
    each turn, so a soak stopped early still gives comparable figures for every command.
    """
    work = Path(work or tempfile.mkdtemp(prefix="soak_resume_"))
    setup = build_inputs(work, n_images)
    chosen = {name: targets(setup, ray)[name] for name in commands}
    references: dict[str, tuple[list[dict[str, Any]], int, float]] = {}
    for name, target in chosen.items():
        started = time.monotonic()
        reference_dir = work / f"{name}-reference"
        proc = subprocess.Popen(target.command(reference_dir), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=_env(), text=True)
        while proc.poll() is None and target.progress(reference_dir) < 0:
            time.sleep(0.005)
        fingerprinted = time.monotonic()
        _, stderr = proc.communicate(timeout=900)
        window = time.monotonic() - fingerprinted
        if proc.returncode != 0:
            raise SystemExit(f"{name}: the uninterrupted run failed: {stderr[-2000:]}")
        rows, total = target.rows(reference_dir), max(0, target.progress(reference_dir))
        references[name] = (rows, total, window)
        echo(f"{name}: uninterrupted run: {len(rows)} rows, {total} progress steps "
             f"({time.monotonic() - started:.0f} s, {window:.1f} s after its fingerprint)")
    ok = dict.fromkeys(chosen, 0)
    took_over = dict.fromkeys(chosen, 0)
    started = time.monotonic()
    for k in range(runs):
        for name, target in chosen.items():
            reference, total, window = references[name]
            rng = random.Random(f"{seed}:{name}:{k}")
            for attempt in range(MAX_ATTEMPTS):  # a run whose kill came too late: redrawn
                outcome = kill_and_resume(target, work / f"{name}-run{k:02d}-{attempt}",
                                          reference, total, rng, ray, window)
                if outcome.killed_at is not None:
                    break
            ok[name] += outcome.ok
            took_over[name] += outcome.took_over
            where = ("not killed (ended first)" if outcome.killed_at is None
                     else f"killed at {outcome.killed_at}/{total}")
            verdict = "same rows" if outcome.ok else (f"FAILED (rc={outcome.resumed_rc}; "
                                                      f"{outcome.detail})")
            echo(f"{name} run {k + 1}/{runs}: {where}, resumed: {verdict}")
        echo(f"PARTIAL after {k + 1} runs each ({time.monotonic() - started:.0f} s): "
             + " ".join(f"{name}={ok[name]}/{k + 1}" for name in chosen)
             + "; stale locks taken over: "
             + " ".join(f"{name}={took_over[name]}" for name in chosen))
    return {name: (ok[name], runs) for name in chosen}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="kill-and-resume runs per command")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--commands", default=",".join(COMMANDS),
                        help=f"comma-separated, from {', '.join(COMMANDS)}")
    parser.add_argument("--ray", action="store_true",
                        help="run with --executor ray --workers 1 and kill the driver")
    parser.add_argument("--images", type=int, default=N_IMAGES,
                        help="items per run (rows of caption and probe, captions of signals)")
    parser.add_argument("--work", type=Path, default=None,
                        help="working folder (default: a new temporary one)")
    args = parser.parse_args(argv)
    commands = tuple(c.strip() for c in args.commands.split(",") if c.strip())
    unknown = [c for c in commands if c not in COMMANDS]
    if unknown or args.runs < 1 or args.images < 3:
        parser.error(f"--commands from {', '.join(COMMANDS)}, --runs >= 1, --images >= 3")
    results = soak(args.runs, args.seed, commands, args.ray, args.work, args.images,
                   echo=lambda line: print(line, flush=True))
    print("RESULT " + " ".join(f"{name}={ok}/{n}" for name, (ok, n) in results.items())
          + (" (executor ray)" if args.ray else ""), flush=True)
    return 0 if all(ok == n for ok, n in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
