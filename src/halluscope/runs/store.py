"""A resumable run directory: `manifest.json` + Parquet shards of rows keyed by a stable id.

>>> import tempfile
>>> store = RunStore(tempfile.mkdtemp(), {"command": "demo", "seed": 0})
>>> store.write_shard([{"key": "a", "value": 1}, {"key": "b", "value": 2}])
>>> sorted(store.done_keys())
['a', 'b']
>>> store.write_shard([{"key": "a", "value": 9}])
Traceback (most recent call last):
...
ValueError: keys already in the store: ['a']
>>> [r["value"] for r in store.rows()]
[1, 2]

Why it survives SIGKILL: each shard is written to a temporary file and renamed into place, so a
shard either exists whole or not at all; a rerun skips the keys found in complete shards and
redoes the rest, and no key is ever written twice. Rows come back sorted by key, so the result
does not depend on how the run was chunked or interrupted.

Several processes can write one store at once (the shards of a job array, `sharding.Shard`):
each passes its own `writer` name, numbers only its own files, and owns disjoint keys.

The manifest records what produced the run (command, config, versions, seed). Reopening a
directory with a different manifest `config` is an error: resuming must not mix two settings.
"""

from __future__ import annotations

import json
import os
import platform
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

from halluscope.errors import ConfigError
from halluscope.io.atomic import write_json_atomic, write_parquet_atomic

# shard-000003.parquet, or shard-s0001of0004-000003.parquet for one writer of a sharded run.
_SHARD = re.compile(r"^shard-(?:(?P<writer>[a-z0-9]+)-)?(?P<number>\d{6})\.parquet$")


def _versions() -> dict[str, str]:
    import importlib.metadata as metadata

    versions = {"python": platform.python_version()}
    for package in ("halluscope", "torch", "transformers", "pyarrow"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            pass
    return versions


def shard_paths(root: Path) -> list[Path]:
    """The Parquet shards of a store folder, in name order; [] when the folder is absent."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if _SHARD.match(p.name))


class RunStore:
    """Rows keyed by `key_column`, in atomically written shards under `root`."""

    def __init__(self, root: str | Path, manifest: Mapping[str, Any], key_column: str = "key",
                 writer: str = ""):
        if writer and not re.fullmatch(r"[a-z0-9]+", writer):
            raise ValueError(f"writer must be lower-case letters and digits, got {writer!r}")
        self.root = Path(root)
        self.key_column = key_column
        self.writer = writer  # several processes may write one store: each names its own files
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / "manifest.json"
        config = dict(manifest)
        if path.exists():
            existing = json.loads(path.read_text(encoding="utf-8"))
            if existing.get("config") != json.loads(json.dumps(config, default=str)):
                raise ConfigError(f"{path}: this run directory was made with other settings; "
                                  "use a new --out or the same options to resume")
            self.manifest = existing
        else:
            self.manifest = {"config": config, "key_column": key_column,
                             "versions": _versions(), "pid": os.getpid()}
            write_json_atomic(path, json.loads(json.dumps(self.manifest, default=str)))
        self._done: set[str] | None = None

    def _shards(self) -> list[Path]:
        return shard_paths(self.root)

    def done_keys(self) -> set[str]:
        if self._done is None:
            import pyarrow.parquet as pq

            self._done = set()
            for shard in self._shards():
                table = pq.read_table(shard, columns=[self.key_column])
                self._done.update(str(k) for k in table.column(0).to_pylist())
        return set(self._done)

    def write_shard(self, rows: Iterable[Mapping[str, Any]]) -> None:
        rows = [dict(r) for r in rows]
        if not rows:
            return
        keys = [str(r[self.key_column]) for r in rows]
        repeated = sorted(set(keys) & self.done_keys()) + sorted(
            k for k in set(keys) if keys.count(k) > 1)
        if repeated:
            raise ValueError(f"keys already in the store: {repeated[:5]}")
        mine = [int(m.group("number")) for m in map(_SHARD.match, (p.name for p in self._shards()))
                if (m.group("writer") or "") == self.writer]
        number = max(mine) + 1 if mine else 0
        prefix = f"shard-{self.writer}-" if self.writer else "shard-"
        write_parquet_atomic(self.root / f"{prefix}{number:06d}.parquet", rows)
        assert self._done is not None
        self._done.update(keys)

    def rows(self) -> list[dict[str, Any]]:
        import pyarrow.parquet as pq

        rows: list[dict[str, Any]] = []
        for shard in self._shards():
            rows.extend(pq.read_table(shard).to_pylist())
        return sorted(rows, key=lambda r: _sort_key(r[self.key_column]))

    def write_summary(self, summary: Mapping[str, Any]) -> None:
        write_json_atomic(self.root / "summary.json", dict(summary))


def stored_keys(root: str | Path) -> set[str]:
    """The keys already in the store at `root` (none if there is no store yet), read without
    knowing its settings: what a driver skips before the worker that knows them has started.

    >>> import tempfile
    >>> stored_keys(tempfile.mkdtemp())
    set()
    """
    path = Path(root) / "manifest.json"
    if not path.is_file():
        return set()
    manifest = json.loads(path.read_text(encoding="utf-8"))
    return RunStore(root, manifest["config"], key_column=manifest.get("key_column", "key")
                    ).done_keys()


def _sort_key(key: Any) -> tuple:
    # Natural order: "item-2" before "item-10", whatever the shard layout.
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(key)))
