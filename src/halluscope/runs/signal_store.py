"""Reading a `halluscope signals` output folder: its `mentions/` and `captions/` run stores.

>>> import tempfile
>>> SignalStore(tempfile.mkdtemp()).read("mentions")
Traceback (most recent call last):
...
halluscope.errors.InputError: ...mentions: no shards (shard-NNNNNN.parquet): not a signal store?

`signals` writes each part through a `RunStore` (Parquet shards keyed by item, a manifest);
the bench, the text filter and anything else read them here, so the shard naming and the
column handling live in one place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from halluscope.errors import InputError
from halluscope.runs.store import shard_paths

PARTS = ("mentions", "captions")


class SignalStore:
    """The folder `signals --out DIR` wrote."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def read(self, part: str, columns: Sequence[str] | None = None) -> Any:
        """All shards of `part` as one pyarrow Table (of `columns`, those present)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if part not in PARTS:
            raise ValueError(f"part must be one of {PARTS}, got {part!r}")
        folder = self.root / part
        shards = shard_paths(folder)
        if not shards:
            raise InputError("no shards (shard-NNNNNN.parquet): not a signal store?", path=folder)
        tables = []
        for shard in shards:
            try:
                schema = pq.read_schema(shard)
                wanted = ([c for c in columns if c in schema.names] if columns is not None
                          else None)
                tables.append(pq.read_table(shard, columns=wanted))
            except (pa.ArrowException, OSError) as exc:  # cut short, or not Parquet
                raise InputError(f"unreadable shard ({' '.join(str(exc).split())[:200]})",
                                 path=shard) from None
        try:
            return pa.concat_tables(tables, promote_options="default")
        except (pa.ArrowInvalid, TypeError) as exc:
            raise InputError(f"shards have incompatible columns ({exc})", path=folder) from None

    def shards(self, part: str) -> list[Path]:
        """The Parquet shards of `part` ([] when there are none), to read one at a time."""
        return shard_paths(self.root / part)

    def columns(self, part: str = "mentions") -> list[str]:
        """Column names of `part`'s rows (from the first shard's schema)."""
        import pyarrow.parquet as pq

        shards = self.shards(part)
        if not shards:
            raise InputError(f"no {part} shards: not a `halluscope signals` output directory?",
                             path=self.root / part)
        try:
            return list(pq.read_schema(shards[0]).names)
        except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
            raise InputError(f"unreadable shard ({' '.join(str(exc).split())[:200]})",
                             path=shards[0]) from None
