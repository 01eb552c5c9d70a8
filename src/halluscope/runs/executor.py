"""Where batched model work runs: in this process, or on a Ray Data pipeline (`--executor ray`).

>>> ExecutorConfig().kind, ExecutorConfig("ray", workers=2).workers
('local', 2)
>>> ExecutorConfig("ray", workers=0)
Traceback (most recent call last):
...
halluscope.errors.ConfigError: --workers must be at least 1, got 0
>>> seen = []
>>> run_batches(_Squares(), [[1, 2], [3]], ExecutorConfig(), seen.append); seen
[[1, 4], [9]]

A job (`BatchJob`) is two steps over batches that the caller has already formed:
- `prepare(batch)`: the CPU part (read and decode images, perturb them). On Ray it runs as
  tasks, beside the model.
- `load_worker()` returns `worker`, and `worker(prepared)` runs the model on one prepared batch.
  It is called once per process: on Ray, once per actor of a pool of `workers` actors, each
  with `gpus_per_worker` GPUs.
The driver receives each batch's result through `on_result` and is the only one that writes the
run store. Resume therefore works the same on both executors (finished keys are skipped before
the batches are formed), and since a batch holds the same items on both executors and the
model's output for an item depends only on its batch, the rows are the same bit for bit whatever
the number of workers. Results come in the order batches finish; the store sorts rows by key.

Ray is imported only when `kind == "ray"`. Without `ray_address` (or `RAY_ADDRESS`) a local
cluster starts with the command and stops after it; an address joins a running cluster (its
workers must see the model and the input files at the same paths, and the driver's output
folder is where the rows are written).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol, Sequence

from halluscope.errors import ConfigError, HalluscopeError

EXECUTORS = ("local", "ray")
# Logical CPUs a prepare task asks for: below an actor's 1, so Ray Data does not fuse the two
# steps into the actor, and small enough to run beside the actors on a local cluster.
PREPARE_CPUS = 0.5
# Ray Data blocks per actor: a block is scheduled, handed over and returned as one piece, so
# one block per batch pays Ray's per-block cost for every batch (~1.5x the single process's
# wall time on a small model); a few blocks per actor keep every actor busy and that cost small.
BLOCKS_PER_WORKER = 4


@dataclass(frozen=True)
class ExecutorConfig:
    """How to run: `kind` local or ray; on ray, `workers` actors with `gpus_per_worker` each."""

    kind: str = "local"
    workers: int = 1
    gpus_per_worker: float = 0.0
    ray_address: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise ConfigError(f"--executor must be one of {', '.join(EXECUTORS)}, "
                              f"got {self.kind!r}")
        if self.workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {self.workers}")
        if self.gpus_per_worker < 0:
            raise ConfigError(f"--gpus-per-worker must be >= 0, got {self.gpus_per_worker}")
        if self.kind == "local" and (self.workers != 1 or self.gpus_per_worker
                                     or self.ray_address):
            raise ConfigError("--workers, --gpus-per-worker and --ray-address need "
                              "--executor ray")


class BatchJob(Protocol):
    """A picklable description of batched work (see the module docstring)."""

    def prepare(self, batch: Any) -> Any:
        ...

    def load_worker(self) -> Callable[[Any], Any]:
        ...


def run_batches(job: BatchJob, batches: Sequence[Any], config: ExecutorConfig,
                on_result: Callable[[Any], None],
                worker: Callable[[Any], Any] | None = None) -> None:
    """Run every batch through `job`; `on_result(result)` in the driver for each one.

    `worker` (local only) is an already loaded worker, used instead of `job.load_worker()`.
    """
    check_model_placement(config, loaded=worker is not None)
    if not batches:  # nothing to do: no model is loaded, no cluster started
        return
    if config.kind == "local":
        run = worker if worker is not None else job.load_worker()
        for batch in batches:
            on_result(run(job.prepare(batch)))
        return
    _run_on_ray(job, batches, config, on_result)


def check_model_placement(config: ExecutorConfig, loaded: bool) -> None:
    """A model already loaded in this process can only run here: Ray's actors load their own
    from a spec (`ModelSpec`, `BackendSpec`).

    >>> check_model_placement(ExecutorConfig("ray"), loaded=True)
    Traceback (most recent call last):
    ...
    halluscope.errors.ConfigError: --executor ray loads the model in its workers: pass a ModelSpec or BackendSpec, not a loaded model
    """
    if loaded and config.kind != "local":
        raise ConfigError(f"--executor {config.kind} loads the model in its workers: pass a "
                          "ModelSpec or BackendSpec, not a loaded model")


class _Packet:
    """Opaque to Arrow: Ray Data pickles it between its processes instead of converting it to
    Arrow types (which would turn [1, 2.5] into floats or nested dicts into structs)."""

    def __init__(self, value: Any):
        self.value = value


class _Prepare:
    def __init__(self, job: BatchJob):
        self.job = job

    def __call__(self, row: dict[str, Any]) -> dict[str, Any]:
        return {"packet": _Packet(self.job.prepare(row["packet"].value))}


class _Worker:
    """One Ray actor: loads the model once, then runs prepared batches."""

    def __init__(self, job: BatchJob):
        self.run = job.load_worker()

    def __call__(self, row: dict[str, Any]) -> dict[str, Any]:
        return {"packet": _Packet(self.run(row["packet"].value))}


def _run_on_ray(job: BatchJob, batches: Sequence[Any], config: ExecutorConfig,
                on_result: Callable[[Any], None]) -> None:
    with ray_session(config) as local:
        import ray.data

        # Ray Data sets its own levels when imported; its warnings about the pickled packets
        # and the disabled progress bars are expected here.
        for name in ("ray", "ray.data"):
            logging.getLogger(name).setLevel(logging.ERROR)
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        context.print_on_execution_start = False
        threads = local_threads_per_actor(config.workers) if local else None
        blocks = min(len(batches), config.workers * BLOCKS_PER_WORKER)
        data = ray.data.from_items([{"packet": _Packet(b)} for b in batches],
                                   override_num_blocks=blocks)
        data = data.map(_Prepare(job), num_cpus=PREPARE_CPUS)
        # The thread count must be in the actor's environment when it starts: Ray sets
        # OMP_NUM_THREADS=1, and raising torch's count later leaves matmuls ~1.7x slower.
        env_vars = {"MKL_CBWR": os.environ["MKL_CBWR"]}  # see halluscope/__init__.py
        if threads:
            env_vars |= {"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
        runtime_env = {"env_vars": env_vars}
        with warnings.catch_warnings():  # max_restarts is passed the old way (Ray >= 2.60)
            warnings.simplefilter("ignore")
            data = data.map(_Worker, fn_constructor_args=(job,),
                            compute=ray.data.ActorPoolStrategy(size=config.workers),
                            num_cpus=1, num_gpus=config.gpus_per_worker or None,
                            runtime_env=runtime_env,
                            # A dead actor fails the run (rerun to resume) instead of
                            # restarting with its constructor arguments possibly gone.
                            max_restarts=0)
        try:
            for row in data.iter_rows():
                on_result(row["packet"].value)
        except Exception as exc:  # noqa: BLE001 - re-raised, unwrapped when it is ours
            raise worker_error(exc) from None


def local_threads_per_actor(workers: int, cores: int | None = None) -> int:
    """Torch threads for each actor of a local cluster: the cores but one, split between the
    actors (Ray would leave each actor one thread). The core left over runs the driver, the
    raylet and the prepare tasks: an actor whose OpenMP threads share a core with them
    spin-waits, which on 2 cores made one 2-thread actor 13% slower than one 1-thread actor
    (150 images, tiny LLaVA). On a cluster, each node's own settings hold.

    >>> local_threads_per_actor(1, cores=2), local_threads_per_actor(2, cores=16)
    (1, 7)
    """
    cores = cores or os.cpu_count() or 1
    return max(1, (cores - 1) // workers)


def worker_error(exc: BaseException) -> BaseException:
    """The HalluscopeError a worker raised (an unsupported model, a bad option) rather than
    Ray's wrapper around it, so the command still prints one line; others as they are."""
    seen = exc
    for _ in range(10):
        if isinstance(seen, HalluscopeError):
            return seen
        inner = getattr(seen, "cause", None) or seen.__cause__
        if inner is None:
            break
        seen = inner
    return exc


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """A ConfigError now, rather than ray.init retrying for minutes, when nothing listens at
    `address` ("host:port" or "ray://host:port"; "auto" and "local" are left to Ray).

    >>> check_reachable("127.0.0.1:1")
    Traceback (most recent call last):
    ...
    halluscope.errors.ConfigError: --ray-address 127.0.0.1:1: cannot connect (Connection refused)
    """
    if address in ("auto", "local"):
        return
    host_port = address.split("://", 1)[-1]
    host, _, port = host_port.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(f"--ray-address {address}: expected host:port or ray://host:port")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise ConfigError(f"--ray-address {address}: cannot connect "
                          f"({exc.strerror or type(exc).__name__})") from None


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError("--executor ray needs Ray Data: pip install 'halluscope[ray]' "
                          "(ray[data]==2.60.0)"
                          ) from None
    return ray


@contextlib.contextmanager
def ray_session(config: ExecutorConfig) -> Iterator[bool]:
    """Connect to Ray for the duration of a command; yields True for a local cluster.

    A session the caller opened already (`ray.init` in a notebook or a test) is used as it is
    and left open.
    """
    ray = import_ray()
    address = config.ray_address or os.environ.get("RAY_ADDRESS")
    if address:
        check_reachable(address)
    if ray.is_initialized():
        yield _is_local(ray)
        return
    quiet = {"logging_level": logging.WARNING, "log_to_driver": False}
    if address:
        try:
            ray.init(address=address, **quiet)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise ConfigError(f"--ray-address {address}: {str(exc).splitlines()[0]}") from None
    else:
        # Logical CPUs for scheduling only: one per actor plus room for the prepare tasks.
        cpus = max(os.cpu_count() or 1, config.workers) + 1
        ray.init(num_cpus=cpus, include_dashboard=False, **quiet)
    try:
        yield not address
    finally:
        ray.shutdown()


def _is_local(ray: Any) -> bool:
    return len(ray.nodes()) == 1


class _Squares:
    """The doctest's job."""

    def prepare(self, batch: list[int]) -> list[int]:
        return batch

    def load_worker(self) -> Callable[[list[int]], list[int]]:
        return lambda batch: [x * x for x in batch]
