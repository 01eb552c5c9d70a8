"""A persistent, content-hashed cache of LLM replies (SQLite in WAL mode).

>>> import tempfile
>>> cache = ReplyCache(tempfile.mkdtemp())
>>> key = request_key("gpt-4o", [{"role": "user", "content": "hi"}], temperature=0,
...                   response_format={"type": "json_object"}, prompt_version="v1")
>>> cache.get(key) is None
True
>>> cache.put(key, "gpt-4o", '{"ok": true}', prompt_tokens=12, completion_tokens=3)
>>> cache.get(key)
CachedReply(text='{"ok": true}', prompt_tokens=12, completion_tokens=3)
>>> cache.close()

The key is the SHA-256 of the request's content only: model, messages, temperature,
response_format and prompt version. The endpoint (base_url) and the API key are never part of it
(the same model behind another server gives the same answer; the key is a secret). Only replies
that parsed and validated are stored (the caller decides), so a failure is retried on the next run.

Why SQLite: each `put` is one committed transaction, and WAL with synchronous=FULL makes a crash
lose at most the reply being written, never corrupt earlier ones; several threads (one lock) and
several processes (SQLite's own locking) can share one cache file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CACHE_FILE = "replies.sqlite"


@dataclass(frozen=True)
class CachedReply:
    """A stored reply: the raw text the model returned and the tokens it cost when requested."""

    text: str
    prompt_tokens: int
    completion_tokens: int


def request_key(model: str, messages: list[dict[str, str]], *, temperature: float,
                response_format: dict[str, Any] | None, prompt_version: str) -> str:
    """The cache key of one chat request: a hex SHA-256 of its canonical JSON.

    >>> a = request_key("m", [{"role": "user", "content": "x"}], temperature=0,
    ...                 response_format=None, prompt_version="v1")
    >>> b = request_key("m", [{"role": "user", "content": "x"}], temperature=0,
    ...                 response_format=None, prompt_version="v2")
    >>> len(a), a == b
    (64, False)
    """
    payload = {"model": model, "messages": messages, "temperature": temperature,
               "response_format": response_format, "prompt_version": prompt_version}
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ReplyCache:
    """Replies keyed by `request_key`, in `<directory>/replies.sqlite`; thread-safe.

    >>> import tempfile
    >>> with ReplyCache(tempfile.mkdtemp()) as cache:
    ...     len(cache)
    0
    """

    def __init__(self, directory: str | Path):
        self.path = Path(directory) / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        # One connection shared by the judge's worker threads, serialised by the lock.
        self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False,
                                   isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT "
                         "NOT NULL, reply TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, "
                         "completion_tokens INTEGER NOT NULL, created REAL NOT NULL)")

    def get(self, key: str) -> CachedReply | None:
        with self._lock:
            row = self._db.execute("SELECT reply, prompt_tokens, completion_tokens FROM replies "
                                   "WHERE key = ?", (key,)).fetchone()
        return None if row is None else CachedReply(row[0], int(row[1]), int(row[2]))

    def put(self, key: str, model: str, text: str, prompt_tokens: int = 0,
            completion_tokens: int = 0) -> None:
        """Store a validated reply (a later identical request overwrites it)."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?)",
                             (key, model, text, int(prompt_tokens), int(completion_tokens),
                              time.time()))

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "ReplyCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
