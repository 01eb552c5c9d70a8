"""Atomic output files: write to a temporary sibling, fsync, then rename over the target.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "out.json"
>>> write_json_atomic(p, {"a": 1}); p.read_text()
'{\\n  "a": 1\\n}\\n'

A crash mid-write leaves the previous file (or none), never a truncated one.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator

from halluscope.errors import InputError


@contextlib.contextmanager
def atomic_path(target: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to `target`; on success it replaces `target` atomically.

    An operating-system error (a full disk, a read-only folder, a parent that is a file, a
    target that is a folder) becomes a one-line `InputError` naming `target`; the temporary file
    is removed and `target` is left as it was.
    """
    target = Path(target)
    tmp: Path | None = None
    try:
        if target.is_dir():
            raise IsADirectoryError(errno.EISDIR, "is a directory")
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                        dir=target.parent)
        os.close(fd)
        tmp = Path(tmp_name)
        # mkstemp creates 0600; outputs get the permissions an ordinary open() would give.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        yield tmp
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        raise output_error(target, exc) from None
    finally:
        if tmp is not None and tmp.exists():
            tmp.unlink()


def output_error(target: str | Path, exc: OSError) -> InputError:
    """The one-line error for an output that cannot be written.

    >>> str(output_error("out/a.json", OSError(errno.ENOSPC, "No space left on device")))
    'out/a.json: cannot write the output (No space left on device)'
    """
    reason = exc.strerror or str(exc)
    if isinstance(exc, (NotADirectoryError, FileExistsError)) and not Path(target).exists():
        reason += ": a parent of the output path is a file"
    return InputError(f"cannot write the output ({reason})", path=target)


@contextlib.contextmanager
def atomic_dir(target: str | Path) -> Iterator[Path]:
    """Yield a temporary folder next to `target`; on success its files replace those of
    `target` (created if need be) — every one or, on an error, none.

    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "report"
    >>> with atomic_dir(out) as tmp:
    ...     _ = (tmp / "a.txt").write_text("a")
    >>> sorted(p.name for p in out.iterdir())
    ['a.txt']

    The files are written in the temporary folder (on the same file system), then renamed into
    `target` one by one: a rename cannot fail for lack of space, so a full disk leaves `target`
    untouched. Files of `target` that the new output does not write are kept.
    """
    target = Path(target)
    tmp: Path | None = None
    try:
        if target.exists() and not target.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "exists and is not a directory")
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp",
                                    dir=target.parent))
        yield tmp
        target.mkdir(exist_ok=True)
        for path in sorted(tmp.iterdir()):
            os.replace(path, target / path.name)
    except OSError as exc:
        raise output_error(target, exc) from None
    finally:
        if tmp is not None and tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


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
