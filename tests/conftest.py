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
