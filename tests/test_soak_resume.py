"""The kill-and-resume soak, small: `caption`, `signals` and `prism probe` each SIGKILLed 3 times
at seeded random points and resumed; every final store equals the uninterrupted run's
(benchmarks/soak_resume.py runs 20 per command)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SOAK = Path(__file__).resolve().parents[1] / "benchmarks" / "soak_resume.py"


def _load_soak():
    spec = importlib.util.spec_from_file_location("soak_resume", SOAK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_three_kills_each_resume_to_the_uninterrupted_rows(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    soak = _load_soak()
    lines: list[str] = []
    results = soak.soak(runs=3, seed=0, work=tmp_path, n_images=4, echo=lines.append)
    report = "\n".join(lines)
    assert results == {"caption": (3, 3), "signals": (3, 3), "probe": (3, 3)}, report
    # Every run was killed while running. Whether its lock was still held depends on when the
    # kill landed (after the last row, the run may have released it already): taking over a
    # dead run's lock is tested in test_run_dir.py.
    assert report.count("killed at ") == 9, report
