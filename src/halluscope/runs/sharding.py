"""Disjoint parts of a run's keys, for job arrays (SLURM `--array`): `--num-shards K --shard i`.

>>> shard = Shard(count=3, index=1)
>>> [k for k in ("1", "2", "3", "4", "5", "6") if shard.owns(k)]
['1', '2', '3']
>>> sorted(k for i in range(3) for k in map(str, range(1, 7)) if Shard(3, i).owns(k))
['1', '2', '3', '4', '5', '6']
>>> Shard(3, 1).writer, Shard().writer
('s0001of0003', '')
>>> Shard(2, 2)
Traceback (most recent call last):
...
halluscope.errors.ConfigError: --shard must be in 0..1 (--num-shards 2), got 2

A key's shard is a hash of the key, not its position in the input, so it does not change when
items are added, filtered or reordered: every shard can be started from the same command line.
Each shard writes its own Parquet files (`RunStore(..., writer=shard.writer)`), so shards running
at the same time on several machines never write the same file, and the store reads all of them
as one table.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable, Sequence, TypeVar

from halluscope.errors import ConfigError

T = TypeVar("T")


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count` (the whole run when count is 1)."""

    count: int = 1
    index: int = 0

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ConfigError(f"--num-shards must be at least 1, got {self.count}")
        if not 0 <= self.index < self.count:
            raise ConfigError(f"--shard must be in 0..{self.count - 1} (--num-shards "
                              f"{self.count}), got {self.index}")

    def owns(self, key: str) -> bool:
        if self.count == 1:
            return True
        digest = hashlib.sha1(str(key).encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index

    def select(self, items: Sequence[T], key: Callable[[T], str]) -> list[T]:
        """The items this shard owns, in their order."""
        return [item for item in items if self.owns(key(item))]

    @property
    def writer(self) -> str:
        """The name part of this shard's files ('' for an unsharded run)."""
        return "" if self.count == 1 else f"s{self.index:04d}of{self.count:04d}"

    def file_suffix(self) -> str:
        """'' or '.s0001of0003': for per-shard side files such as summary.json."""
        return f".{self.writer}" if self.writer else ""
