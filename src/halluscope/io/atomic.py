"""Atomic output files: write to a temporary sibling, fsync, then rename over the target.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "out.json"
>>> write_json_atomic(p, {"a": 1}); p.read_text()
'{\\n  "a": 1\\n}\\n'

A crash mid-write leaves the previous file (or none), never a truncated one.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterator


@contextlib.contextmanager
def atomic_path(target: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to `target`; on success it replaces `target` atomically."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    # mkstemp creates 0600; outputs get the permissions an ordinary open() would give.
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    try:
        yield tmp
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_text_atomic(target: str | Path, text: str) -> None:
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json_atomic(target: str | Path, obj: Any) -> None:
    write_text_atomic(target, json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def write_jsonl_atomic(target: str | Path, rows: list[dict[str, Any]]) -> None:
    write_text_atomic(target, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def uniform_image_ids(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parquet columns have one type: if any `image_id` is a string, make them all strings.

    >>> uniform_image_ids([{"image_id": 1}, {"image_id": "a"}])
    [{'image_id': '1'}, {'image_id': 'a'}]
    """
    if any(isinstance(r.get("image_id"), str) for r in rows):
        return [{**r, "image_id": str(r["image_id"])} for r in rows]
    return rows


def write_parquet_atomic(target: str | Path, rows: list[dict[str, Any]], schema=None) -> None:
    """Write rows (dicts) as one Parquet file, atomically. pyarrow is imported lazily."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows, schema=schema)
    with atomic_path(target) as tmp:
        pq.write_table(table, tmp)
