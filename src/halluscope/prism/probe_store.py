"""Where `prism probe` and `prism intervene` write: `<out>/<model>/<dataset>.jsonl`, appended row
by row, resumable.

>>> import pathlib, tempfile
>>> target = pathlib.Path(tempfile.mkdtemp()) / "m" / "vsr.jsonl"
>>> shard_path(target, "s0001of0002").relative_to(target.parent).as_posix()
'.shards/vsr.s0001of0002.jsonl'

Rows are the released layout, keyed by `sample_id`: an item whose id is in the file is done (a
torn last line, from a run killed mid-write, is cut off and redone). The shards of a job array
(`--num-shards K --shard i`) each append to their own file under `<model>/.shards/`, which the
analyses do not read; the same command without `--num-shards` gathers them into
`<dataset>.jsonl` (rows appended and synced before a shard file is removed, so a crash while
gathering loses nothing) and probes whatever no shard finished.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any, Callable, Sequence

from halluscope.prism.datasets import Item
from halluscope.prism.probes import ProbeConfig, ProbeStats, probe_all
from halluscope.runs.executor import ExecutorConfig
from halluscope.runs.sharding import Shard

SHARDS_DIR = ".shards"


def shard_path(target: Path, writer: str) -> Path:
    return target.parent / SHARDS_DIR / f"{target.stem}.{writer}.jsonl"


def done_ids(path: Path) -> set[str]:
    """sample_ids already written; a torn last line (a run killed mid-write) is cut off."""
    if not path.is_file():
        return set()
    done: set[str] = set()
    good = 0  # bytes up to the end of the last complete row
    data = path.read_bytes()
    for raw in data.splitlines(keepends=True):
        try:
            row = json.loads(raw)
        except ValueError:
            break
        if not raw.endswith(b"\n"):
            break
        good += len(raw)
        if isinstance(row, dict) and isinstance(row.get("sample_id"), str):
            done.add(row["sample_id"])
    if good < len(data):
        with path.open("r+b") as fh:
            fh.truncate(good)
    return done


def gather_shards(target: Path) -> int:
    """Append the rows of `target`'s shard files that it lacks; returns how many."""
    folder = target.parent / SHARDS_DIR
    if not folder.is_dir():
        return 0
    have = done_ids(target)
    added = 0
    for part in sorted(folder.glob(f"{target.stem}.*.jsonl")):
        done_ids(part)  # cut a torn last line
        with target.open("a", encoding="utf-8") as out:
            for line in part.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                if row.get("sample_id") not in have:
                    out.write(json.dumps(row) + "\n")
                    have.add(row.get("sample_id"))
                    added += 1
            out.flush()
            os.fsync(out.fileno())
        part.unlink()
    return added


def append_into(target: Path, items: Sequence[Any], key: Callable[[Any], str],
                run: Callable[[list[Any], Callable[[list[dict]], None]], None],
                shard: Shard = Shard(), skipped_row: Callable[[Any], dict] | None = None,
                missing: set[str] = frozenset()) -> dict[str, Any]:
    """Run `run(todo, write)` on the items of `shard` whose `key` is not yet written to
    `target` (or its shard file); `write(rows)` appends and flushes. Items whose key is in
    `missing` get `skipped_row(item)` instead. Returns counts (`path`: the file written)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    gathered = gather_shards(target) if shard.count == 1 else 0
    path = target if shard.count == 1 else shard_path(target, shard.writer)
    path.parent.mkdir(parents=True, exist_ok=True)
    done = done_ids(target) | (done_ids(path) if path != target else set())
    mine = shard.select(items, key)
    todo = [it for it in mine if key(it) not in done and key(it) not in missing]
    skip = [it for it in mine if key(it) not in done and key(it) in missing]
    with path.open("a", encoding="utf-8") as fh:
        for it in skip:
            _write(fh, [skipped_row(it)] if skipped_row else [])
        run(todo, lambda rows: _write(fh, rows))
    return {"items": len(items), "shard_items": len(mine), "done_now": len(todo),
            "already_done": sum(1 for it in mine if key(it) in done),
            "missing_images": sum(1 for it in mine if key(it) in missing),
            "gathered_from_shards": gathered, "path": path}


def annotate_normalized_source(target: Path) -> int:
    """Give every signed row of a finished file its `normalized_dominant_source`: the largest
    within-file z-score of (V, L, A) (`routing.normalized_dominance`). It depends on the whole
    file, so it is written once the run is complete (atomically; a resumed run that adds rows
    writes it again). Returns how many rows changed.
    """
    from halluscope.io.atomic import write_jsonl_atomic
    from halluscope.prism.routing import SOURCES, normalized_dominance

    rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    signed = [i for i, r in enumerate(rows)
              if not r.get("skipped") and all(k in r for k in ("v_score", "lp_score", "a_score"))]
    dominant = normalized_dominance([("", "", rows[i]["v_score"], rows[i]["lp_score"],
                                      rows[i]["a_score"]) for i in signed])
    changed = 0
    for i, k in zip(signed, dominant):
        if rows[i].get("normalized_dominant_source") != SOURCES[k]:
            rows[i]["normalized_dominant_source"] = SOURCES[k]
            changed += 1
    if changed:
        write_jsonl_atomic(target, rows)
    return changed


def probe_into(target: Path, model: Any, items: Sequence[Item], config: ProbeConfig,
               model_name: str, executor: ExecutorConfig = ExecutorConfig(),
               shard: Shard = Shard(), skipped_row: Callable[[Item], dict] | None = None,
               missing: set[str] = frozenset(), generator: Any = None) -> dict[str, Any]:
    """Probe the items of `shard` not yet written to `target` (or its shard file).

    `model` is a loaded adapter (local executor) or a `ModelSpec` (any executor); `generator`
    a `BackendSpec` for open answers (see `probe_all`). Items whose id is in `missing` get
    `skipped_row(item)` instead of being probed. Returns counts.
    """
    stats = ProbeStats()

    def run(todo: list[Item], write: Callable[[list[dict]], None]) -> None:
        probe_all(model, todo, [None] * len(todo), config, model_name, executor,
                  on_rows=write, stats=stats, generator=generator)

    result = append_into(target, items, lambda it: it.item_id, run, shard, skipped_row, missing)
    result["probed"] = result.pop("done_now")
    if shard.count == 1:  # shards are annotated when gathered into the one file
        annotate_normalized_source(target)
    return {**result, "stats": stats}


def _write(fh: IO[str], rows: Sequence[dict[str, Any]]) -> None:
    for row in rows:
        fh.write(json.dumps(row) + "\n")
    fh.flush()
