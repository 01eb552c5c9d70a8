"""JSON-lines reading with one-line errors (file:line) and counted skips.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "c.jsonl"
>>> _ = p.write_text('{"image_id": 1, "caption": "a cat"}\\n')
>>> [r for _, r in read_jsonl(p)]
[{'image_id': 1, 'caption': 'a cat'}]
"""

from __future__ import annotations

import json
import re
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
                # A byte-order mark (Notepad, Excel) on the first line is not content.
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                _fail_or_skip(f"not valid UTF-8 ({exc.reason} at byte {exc.start})", path, number,
                              skip_bad, skips)
                continue
            obj, problem = _loads(text)
            if problem is not None:
                _fail_or_skip(problem, path, number, skip_bad, skips)
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
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})", path=path) from None
    try:
        obj, problem = _loads(text, whole_file=True)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg}, column {exc.colno})", path=path,
                         line=exc.lineno) from None
    if problem is not None:
        raise InputError(problem, path=path)
    return obj


# Escaped UTF-16 surrogates: the only way a lone surrogate gets into decoded JSON text.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _loads(text: str, whole_file: bool = False) -> tuple[Any, str | None]:
    """`(object, None)`, or `(None, reason)` for text that is not one clean JSON value.

    Besides syntax errors (raised as `json.JSONDecodeError` when `whole_file`, so the caller
    names the line): a key given twice in one object (JSON leaves it undefined which wins),
    nesting too deep for the parser, and escaped lone surrogates (valid JSON, but not text: they
    have no UTF-8 encoding, so every later write would fail).

    >>> _loads('{"caption": "a", "caption": "b"}')[1]
    "duplicate key 'caption'"
    >>> _loads('{"caption": "a dog \\\\ud800 on a couch"}')[1]
    'lone surrogate \\\\ud800 in a string (not text)'
    >>> _loads("[" * 100000 + "]" * 100000)[1]
    'JSON nested too deeply'
    """
    try:
        obj = json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        return None, f"duplicate key {exc.key!r}"
    except json.JSONDecodeError as exc:
        if whole_file:
            raise
        return None, f"malformed JSON ({exc.msg}, column {exc.colno})"
    except RecursionError:
        return None, "JSON nested too deeply"
    if _SURROGATE_ESCAPE.search(text):
        surrogate = _lone_surrogate(obj)
        if surrogate is not None:
            return None, f"lone surrogate \\u{ord(surrogate):04x} in a string (not text)"
    return obj, None


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


def _lone_surrogate(obj: Any) -> str | None:
    """The first lone surrogate code point in any string (key or value) of `obj`, else None."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                return item[exc.start]
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None
