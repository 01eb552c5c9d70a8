"""JSON-lines reading with one-line errors (file:line) and counted skips.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "c.jsonl"
>>> _ = p.write_text('{"image_id": 1, "caption": "a cat"}\\n')
>>> [r for _, r in read_jsonl(p)]
[{'image_id': 1, 'caption': 'a cat'}]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from halluscope.errors import InputError


@dataclass
class SkipLog:
    """Records items skipped at the user's request, so that nothing disappears silently.

    >>> log = SkipLog(); log.add("c.jsonl", 4, "caption is empty"); log.count
    1
    """

    entries: list[dict[str, Any]] = field(default_factory=list)

    def add(self, path: str | Path, line: int | None, reason: str) -> None:
        self.entries.append({"file": str(path), "line": line, "reason": reason})

    @property
    def count(self) -> int:
        return len(self.entries)

    def by_reason(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for entry in self.entries:
            counts[entry["reason"]] = counts.get(entry["reason"], 0) + 1
        return counts


def read_jsonl(path: str | Path, skip_bad: bool = False,
               skips: SkipLog | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield `(line_number, object)` for each non-blank line of a JSON-lines file.

    Raises `InputError` naming the file and line on undecodable bytes, invalid JSON or a line that
    is not a JSON object; with `skip_bad=True` such lines are recorded in `skips` instead.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path=path)
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                _fail_or_skip(f"not valid UTF-8 ({exc.reason} at byte {exc.start})", path, number,
                              skip_bad, skips)
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                _fail_or_skip(f"malformed JSON ({exc.msg}, column {exc.colno})", path, number,
                              skip_bad, skips)
                continue
            if not isinstance(obj, dict):
                _fail_or_skip(f"expected a JSON object, got {type(obj).__name__}", path, number,
                              skip_bad, skips)
                continue
            yield number, obj


def _fail_or_skip(reason: str, path: Path, line: int, skip_bad: bool,
                  skips: SkipLog | None) -> None:
    if not skip_bad:
        raise InputError(reason, path=path, line=line)
    if skips is not None:
        skips.add(path, line, reason)


def read_json(path: str | Path) -> Any:
    """Read a whole JSON file; errors name the file (and line for syntax errors)."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path=path)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})", path=path) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg}, column {exc.colno})", path=path,
                         line=exc.lineno) from None
