"""What every command shares: user errors as one line, and progress bars.

>>> import typer
>>> try:
...     with user_errors():
...         from halluscope.errors import InputError
...         raise InputError("caption is empty", path="c.jsonl", line=3)
... except typer.Exit as exit:
...     exit.exit_code
2
"""

from __future__ import annotations

import contextlib
import errno
from typing import Iterator

import typer

from halluscope.errors import HalluscopeError


# The environment refusing a write (a full disk, a read-only or forbidden folder): never a bug
# in halluscope, so one line naming the file wherever it happens, not a traceback. (Outputs
# written through `io.atomic` already say so themselves, and are left as they were.)
_ENVIRONMENT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES,
                                 errno.EPERM})


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Bad input or settings: one line on stderr (`file:line: message`), exit status 2."""
    try:
        yield
    except HalluscopeError as exc:
        typer.echo(f"halluscope: error: {exc}", err=True)
        raise typer.Exit(2) from None
    except OSError as exc:
        if exc.errno not in _ENVIRONMENT_ERRNOS:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        typer.echo(f"halluscope: error: {where}{exc.strerror}", err=True)
        raise typer.Exit(2) from None


class _Bar:
    """Call it with a count to advance; `set_total` when the total is known late."""

    def __init__(self, progress, task, unit: str):
        self._progress, self._task, self._unit = progress, task, unit

    def __call__(self, n: int) -> None:
        self._progress.advance(self._task, n)
        speed = self._progress.tasks[0].speed
        self._progress.update(self._task, rate=f"{speed:.2f} {self._unit}/s" if speed else "")

    def set_total(self, total: int) -> None:
        self._progress.update(self._task, total=total)


@contextlib.contextmanager
def progress_bar(total: int | None, description: str, unit: str = "items") -> Iterator[_Bar]:
    """A rich progress bar with a rate, on stderr; silent when stderr is not a terminal."""
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    console = Console(stderr=True)
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn()]
    with Progress(*columns, console=console, disable=not console.is_terminal) as progress:
        yield _Bar(progress, progress.add_task(description, total=total, rate=""), unit)


# Where the model-side commands (caption, signals, prism probe, prism entangle) run: one
# declaration of each option, shared by all of them.
BACKEND = typer.Option("hf", "--backend", help="Generation backend: hf (transformers) or vllm.")
EXECUTOR = typer.Option("local", "--executor",
                        help="local (this process) or ray (a Ray Data pipeline: CPU tasks read "
                             "and decode images, an actor pool runs the model).")
WORKERS = typer.Option(1, "--workers", help="--executor ray: actors, each loading the model once.")
GPUS_PER_WORKER = typer.Option(0.0, "--gpus-per-worker",
                               help="--executor ray: GPUs per actor (0: CPU).")
RAY_ADDRESS = typer.Option(None, "--ray-address",
                           help="--executor ray: join this cluster (default: $RAY_ADDRESS, else "
                                "a local cluster for the command's duration).")
NUM_SHARDS = typer.Option(1, "--num-shards",
                          help="Split the items into this many disjoint shards (job arrays).")
SHARD = typer.Option(0, "--shard", help="Which shard this process runs (0-based).")
FORCE_NEW = typer.Option(False, "--force-new",
                         help="Start over: move an existing run in --out aside "
                              "(<out>.old-<UTC time>) instead of resuming it.")


DEVICE = typer.Option("auto", "--device",
                      help="auto (cuda when a CUDA device is visible, else cpu), cpu, cuda, "
                           "cuda:1, ...")


def pick_device(device: str | None, gpus_per_worker: float = 0.0) -> str:
    """`generation.backends.resolve_device`: the device every model command runs on."""
    from halluscope.generation.backends import resolve_device

    return resolve_device(device, gpus_per_worker)


def announce_device(device: str, requested: str | None, executor: str = "local") -> None:
    """Say on stderr where the model runs, so a GPU user sees it before a long run. Called once
    every check has passed (a refused run stays a one-line error); with Ray the actors load the
    model (--gpus-per-worker decides), so nothing is said here."""
    if executor != "ray":
        typer.echo(f"device: {device}" + (" (auto)" if requested in (None, "auto") else ""),
                   err=True)


def executor_options(executor: str, workers: int, gpus_per_worker: float,
                     ray_address: str | None, num_shards: int, shard: int) -> tuple:
    """(ExecutorConfig, Shard) from the shared options; bad values are one-line ConfigErrors."""
    from halluscope.runs.executor import ExecutorConfig
    from halluscope.runs.sharding import Shard

    return (ExecutorConfig(executor, workers, gpus_per_worker, ray_address),
            Shard(num_shards, shard))
