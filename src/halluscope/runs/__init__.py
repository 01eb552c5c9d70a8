"""Run directories: a manifest and Parquet shards keyed by stable ids, resumable after a crash."""

from halluscope.runs.store import RunStore

__all__ = ["RunStore"]
