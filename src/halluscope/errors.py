"""Errors that name the file and line (or item) they come from.

>>> str(InputError("caption is empty", path="caps.jsonl", line=3))
'caps.jsonl:3: caption is empty'

Every user-facing failure in halluscope is an `InputError` (bad data) or a `ConfigError` (missing
option, file or secret); the CLI prints them as one line and exits with status 2, never a
traceback.
"""

from __future__ import annotations

from pathlib import Path


class HalluscopeError(Exception):
    """Base class of the errors the CLI reports as one line."""


class InputError(HalluscopeError):
    """Bad input data: names the file and the 1-based line (or the item) at fault."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None,
                 item: str | None = None):
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.item = item
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = self.path or ""
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        if self.item is not None:
            where = f"{where} [{self.item}]" if where else f"[{self.item}]"
        return f"{where}: {self.message}" if where else self.message


class ConfigError(HalluscopeError):
    """A missing or inconsistent option, file, environment variable or dependency."""
