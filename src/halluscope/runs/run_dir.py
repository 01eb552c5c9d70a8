"""Run directories that cannot be mixed: a fingerprint of what made the run, and a lock.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp()) / "run"
>>> items = {"items": digest_rows([[1, "a.jpg"]])}
>>> first = fingerprint("caption", None, {"prompt": "Describe."}, items)
>>> with open_run_dir(DirectoryRun(root), first):
...     _ = (root / "shard-000000.parquet").write_bytes(b"rows")
>>> sorted(p.name for p in root.iterdir())
['.lock', 'run.json', 'shard-000000.parquet']
>>> other = fingerprint("caption", None, {"prompt": "Describe it."}, items)
>>> with open_run_dir(DirectoryRun(root), other):  # doctest: +ELLIPSIS
...     pass
Traceback (most recent call last):
...
halluscope.errors.ConfigError: ...run: made by another run; differs: prompt ('Describe.' then, 'Describe it.' now); resume with the same command and inputs, use another --out, or --force-new to start over (the old one is moved aside)

What a run records (`run.json`, `fingerprint`): the command, the halluscope version, the model
(every file in its folder: size and SHA-256, see `file_digest`), the settings that change the
rows (`config`), and digests of its inputs (`inputs`: the caption, item or data file's content,
and each image's name and size). Rerunning into the directory with any of them different is
refused with one line naming what differs (`differences`); `--force-new` moves the old run
aside (`<out>.old-<UTC time>`, or for a file run `.old/<name>-<UTC time>/` beside it) and
starts over. Left out on purpose: `--limit`, batch size, executor, workers and shards (the
rows do not depend on them, and a run started with one resumes with another), and the model's
folder path when the folder's files are the same (a moved model is the same model).

Why images by name and size, not content: reading every image at every start would cost a
full pass over an image set (6 GB for COCO val2014) before the first batch; a replaced image of
the same name and byte size is not detected.

Weights (`file_digest`): files up to 256 MiB are hashed whole. Above that (real checkpoints),
the hash covers the file size, a safetensors file's header (every tensor's name, dtype, shape
and byte offsets) and 64 chunks of 1 MiB spread evenly over the file: at most ~65 MiB read
per file, well under a second from the page cache that loading the model fills anyway. Another
checkpoint, a fine-tune or a re-quantisation changes the header or every chunk; an edit
confined to bytes between the sampled chunks is not seen.

The lock (`RunLock`, `.lock` in the run's folder) is an advisory `flock` held while the run
writes, with the owner's pid, host, command and start time in the file. A second process finds
it held and is refused (exit status 2) with the owner named; the kernel releases a `flock`
when its owner dies, even by SIGKILL, so a lock file left behind by a dead process is detected
as stale and taken over with a message. The shards of a job array each take their own lock
(`.lock-<writer>`), and a whole run and a shard of the same store refuse each other.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from halluscope.errors import ConfigError

FORMAT = 1
FINGERPRINT_FILE = "run.json"
LOCK_FILE = ".lock"
# Whole-file hashing up to this size; sampled above (see the module docstring).
WHOLE_FILE_LIMIT = 256 * 2 ** 20
SAMPLE_CHUNKS = 64
SAMPLE_CHUNK = 2 ** 20
# A safetensors header larger than this is not believed (the format caps it at 100 MB).
MAX_HEADER = 100 * 2 ** 20


def halluscope_version() -> str:
    """The installed halluscope's version (the package's own when not installed)."""
    import importlib.metadata as metadata

    try:
        return metadata.version("halluscope")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
        from halluscope import __version__

        return __version__


def file_digest(path: str | Path) -> dict[str, Any]:
    """Size and SHA-256 of a file: whole up to 256 MiB, sampled above (module docstring).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "w.bin"; _ = p.write_bytes(b"abc")
    >>> file_digest(p)["sha256"] == hashlib.sha256(b"abc").hexdigest(), file_digest(p)["method"]
    (True, 'sha256')
    """
    path = Path(path)
    size = path.stat().st_size
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        if size <= WHOLE_FILE_LIMIT:
            for block in iter(lambda: fh.read(2 ** 20), b""):
                digest.update(block)
            return {"size": size, "sha256": digest.hexdigest(), "method": "sha256"}
        digest.update(str(size).encode())
        if path.suffix == ".safetensors":
            head = fh.read(8)
            length = int.from_bytes(head, "little") if len(head) == 8 else 0
            if 0 < length <= min(MAX_HEADER, size - 8):
                digest.update(head + fh.read(length))
        step = (size - SAMPLE_CHUNK) / (SAMPLE_CHUNKS - 1)
        for k in range(SAMPLE_CHUNKS):
            fh.seek(int(k * step))
            digest.update(fh.read(SAMPLE_CHUNK))
    return {"size": size, "sha256": digest.hexdigest(),
            "method": f"sha256-sampled-{SAMPLE_CHUNKS}x1MiB"}


def model_fingerprint(model: str | Path | None) -> dict[str, Any] | None:
    """A model folder's files (name -> `file_digest`), or a hub id as given (not hashed).

    >>> model_fingerprint("org/some-model")
    {'path': 'org/some-model', 'files': None}
    """
    if model is None:
        return None
    folder = Path(model)
    if not folder.is_dir():
        return {"path": str(model), "files": None}
    files = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        # Hidden entries are caches and lock files of downloaders, not the model.
        if path.is_file() and not any(part.startswith(".") for part in rel.parts):
            files[rel.as_posix()] = file_digest(path)
    return {"path": str(folder.resolve()), "files": files}


def digest_rows(rows: Iterable[Any]) -> dict[str, Any]:
    """SHA-256 of rows as canonical JSON lines, and how many: an input's identity.

    >>> digest_rows([{"b": 1, "a": 2}])["sha256"] == digest_rows([{"a": 2, "b": 1}])["sha256"]
    True
    >>> digest_rows([])["count"]
    0
    """
    digest, count = hashlib.sha256(), 0
    for row in rows:
        digest.update(json.dumps(row, sort_keys=True, default=str, ensure_ascii=False).encode())
        digest.update(b"\n")
        count += 1
    return {"sha256": digest.hexdigest(), "count": count}


def image_entry(path: str | Path) -> list[Any]:
    """An image as the fingerprint sees it: [file name, size in bytes or None if absent].

    >>> image_entry("/no/such/dir/x.jpg")
    ['x.jpg', None]
    """
    path = Path(path)
    try:
        size: int | None = path.stat().st_size
    except OSError:
        size = None
    return [path.name, size]


def fingerprint(command: str, model: str | Path | None, config: Mapping[str, Any],
                inputs: Mapping[str, Any]) -> dict[str, Any]:
    """What made a run: command, version, model files, settings, input digests (JSON-ready).

    >>> fp = fingerprint("signals", None, {"dtype": "float32"}, {})
    >>> fp["command"], fp["config"]
    ('signals', {'dtype': 'float32'})
    """
    return json.loads(json.dumps({
        "format": FORMAT, "command": command, "halluscope": halluscope_version(),
        "model": model_fingerprint(model), "config": dict(config), "inputs": dict(inputs)},
        default=str))


def _short(value: Any) -> str:
    if isinstance(value, dict) and "sha256" in value:
        extra = f", {value['count']} rows" if "count" in value else ""
        return f"sha256 {str(value['sha256'])[:12]}{extra}"
    return repr(value)


def differences(recorded: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """What differs between two fingerprints, one phrase each (empty: the same run).

    >>> a = {"command": "caption", "config": {"prompt": "x"}, "inputs": {}, "model": None}
    >>> differences(a, {**a, "command": "signals"})
    ['command (caption then, signals now)']
    """
    if recorded.get("command") != current.get("command"):  # the rest would be noise
        return [f"command ({recorded.get('command')} then, {current.get('command')} now)"]
    found = []
    for key in ("halluscope", "format"):
        if recorded.get(key) != current.get(key):
            label = {"halluscope": "halluscope version", "format": "run.json format"}.get(key, key)
            found.append(f"{label} ({recorded.get(key)} then, {current.get(key)} now)")
    found += _model_differences(recorded.get("model"), current.get("model"))
    for section, label in (("config", ""), ("inputs", "input ")):
        old, new = recorded.get(section) or {}, current.get(section) or {}
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                found.append(f"{label}{key} ({_short(old.get(key))} then, "
                             f"{_short(new.get(key))} now)")
    return found


def _model_differences(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None
                       ) -> list[str]:
    if old == new:
        return []
    if not old or not new or old.get("files") is None or new.get("files") is None:
        if (old or {}).get("path") != (new or {}).get("path") or old is None or new is None:
            return [f"model ({(old or {}).get('path')} then, {(new or {}).get('path')} now)"]
        return [f"model ({'files hashed' if old.get('files') else 'hub id'} then, "
                f"{'files hashed' if new.get('files') else 'hub id'} now)"]
    before, after = old["files"], new["files"]
    changed = []
    for name in sorted(set(before) | set(after)):
        if name not in after:
            changed.append(f"{name} gone")
        elif name not in before:
            changed.append(f"{name} new")
        elif before[name] != after[name]:
            changed.append(f"{name} {_short(before[name])} then, {_short(after[name])} now")
    if not changed:  # same files in another folder: the same model
        return []
    shown = "; ".join(changed[:3]) + (f"; {len(changed) - 3} more" if len(changed) > 3 else "")
    return [f"model files ({shown})"]


# ------------------------------------------------------------------------------------------
# The lock
# ------------------------------------------------------------------------------------------

def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def _owner_text(owner: Mapping[str, Any]) -> str:
    if not owner.get("pid"):
        return "another process"
    text = f"pid {owner['pid']} on {owner.get('host', '?')}"
    if owner.get("command"):
        text += f" (halluscope {owner['command']}"
        text += f", since {owner['started']})" if owner.get("started") else ")"
    return text


class RunLock:
    """An exclusive lock on a run, held by this process until `release` (see module docs).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / ".lock"
    >>> lock = RunLock(path, "caption"); lock.acquire()
    >>> RunLock(path, "caption").acquire()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    halluscope.errors.ConfigError: ...: in use by pid ... (halluscope caption, since ...); wait for it to finish, or use another --out
    >>> lock.release(); RunLock(path, "caption").acquire()
    """

    def __init__(self, path: str | Path, command: str = "",
                 notify: Callable[[str], None] | None = None):
        self.path = Path(path)
        self.command = command
        self.notify = notify or _to_stderr
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or raise ConfigError naming its live owner; a stale one is taken
        over with a message through `notify`."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            got = _try_flock(fd)
            previous = _read_owner(fd)
            if got is None:  # no flock on this filesystem: the pid decides
                held = bool(previous.get("pid")) and previous.get("host") == _host() \
                    and _pid_alive(int(previous["pid"]))
            else:
                held = not got
            if held:
                raise ConfigError(f"{self.path.parent}: in use by {_owner_text(previous)}; "
                                  "wait for it to finish, or use another --out")
            if previous.get("pid") and previous.get("pid") != os.getpid():
                state = ("no longer running" if previous.get("host") != _host()
                         or not _pid_alive(int(previous["pid"])) else "its lock released")
                self.notify(f"halluscope: taking over the stale lock {self.path} of "
                            f"{_owner_text(previous)}: {state}")
            owner = {"pid": os.getpid(), "host": _host(), "command": self.command,
                     "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(owner) + "\n").encode(), 0)
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def release(self) -> None:
        """Empty the file (a free lock) and unlock. The file stays: removing it would let a
        process still holding the old file's handle and a new one lock different files."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
        finally:
            os.close(fd)  # closing the descriptor releases the flock

    @property
    def held(self) -> bool:
        return self._fd is not None


def lock_owner(path: str | Path) -> dict[str, Any] | None:
    """The owner recorded in the lock at `path` if a live process holds it, else None.

    >>> lock_owner("/no/such/.lock") is None
    True
    """
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return None
    try:
        got = _try_flock(fd)
        owner = _read_owner(fd)
        if got is None:
            held = bool(owner.get("pid")) and owner.get("host") == _host() \
                and _pid_alive(int(owner["pid"]))
        else:
            held = not got
        return owner if held else None
    finally:
        os.close(fd)  # releases the probe's flock, if it got one


def _try_flock(fd: int) -> bool | None:
    """True: locked now; False: another holds it; None: no flock here (fall back to pids)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError as exc:
        if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):
            return None
        raise
    return True


def _read_owner(fd: int) -> dict[str, Any]:
    data = os.pread(fd, 4096, 0)
    try:
        owner = json.loads(data.decode("utf-8")) if data.strip() else {}
    except (UnicodeDecodeError, ValueError):
        return {}
    return owner if isinstance(owner, dict) else {}


def _host() -> str:
    return socket.gethostname()


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


# ------------------------------------------------------------------------------------------
# Run layouts and the guard
# ------------------------------------------------------------------------------------------

def _stamp() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


def _free_name(make: Callable[[str], Path]) -> Path:
    stamp = _stamp()
    candidate, n = make(stamp), 1
    while candidate.exists():
        candidate, n = make(f"{stamp}-{n}"), n + 1
    return candidate


def _check_folder(folder: Path) -> None:
    """A ConfigError, not a traceback from mkdir, when `folder` or the first of its parents
    that exists is a file."""
    for path in (folder, *folder.parents):
        if path.exists():
            if not path.is_dir():
                raise ConfigError(f"{path}: is a file, not a folder (in --out {folder})")
            return


@dataclass(frozen=True)
class DirectoryRun:
    """A run that owns a folder (`caption`, `signals`, `prism entangle`): `run.json` and
    `.lock` inside it; `--force-new` renames the folder to `<folder>.old-<UTC time>`."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))

    @property
    def fingerprint_path(self) -> Path:
        return self.root / FINGERPRINT_FILE

    def lock_path(self, writer: str = "") -> Path:
        return self.root / (f"{LOCK_FILE}-{writer}" if writer else LOCK_FILE)

    def other_locks(self, writer: str) -> list[Path]:
        if writer:
            return [self.lock_path()]
        return sorted(self.root.glob(f"{LOCK_FILE}-*")) if self.root.is_dir() else []

    def has_contents(self) -> bool:
        """Anything besides the lock and the fingerprint (and their temporary files)."""
        return self.root.is_dir() and any(
            not p.name.startswith((LOCK_FILE, FINGERPRINT_FILE, f".{FINGERPRINT_FILE}."))
            for p in self.root.iterdir())

    def check_kind(self) -> None:
        if self.root.exists() and not self.root.is_dir():
            raise ConfigError(f"{self.root}: --out is a file, not a folder")
        _check_folder(self.root.parent)

    def move_aside(self) -> Path:
        aside = _free_name(lambda s: self.root.with_name(f"{self.root.name}.old-{s}"))
        os.rename(self.root, aside)
        return aside


@dataclass(frozen=True)
class FileRun:
    """A run that owns one file among others (`prism probe`'s `<out>/<model>/<dataset>.jsonl`
    and its job-array shard files): fingerprint and lock under `.runs/` beside it (the
    analyses read `<model>/*.jsonl` only); `--force-new` moves the file, its shard files and
    its fingerprint into `.old/<name>-<UTC time>/` beside it."""

    target: Path
    shards_dir: str = ".shards"

    def __post_init__(self) -> None:
        object.__setattr__(self, "target", Path(self.target))

    @property
    def _runs(self) -> Path:
        return self.target.parent / ".runs"

    @property
    def fingerprint_path(self) -> Path:
        return self._runs / f"{self.target.stem}.json"

    def lock_path(self, writer: str = "") -> Path:
        name = f"{self.target.stem}{LOCK_FILE}"
        return self._runs / (f"{name}-{writer}" if writer else name)

    def other_locks(self, writer: str) -> list[Path]:
        if writer:
            return [self.lock_path()]
        return sorted(self._runs.glob(f"{self.target.stem}{LOCK_FILE}-*"))

    def _members(self) -> list[Path]:
        shards = self.target.parent / self.shards_dir
        parts = sorted(shards.glob(f"{self.target.stem}.*.jsonl")) if shards.is_dir() else []
        return [p for p in (self.target, *parts) if p.exists()]

    def has_contents(self) -> bool:
        return bool(self._members())

    def check_kind(self) -> None:
        _check_folder(self.target.parent)
        if self.target.is_dir():
            raise ConfigError(f"{self.target}: expected a file, found a folder")

    def move_aside(self) -> Path:
        aside = _free_name(lambda s: self.target.parent / ".old" / f"{self.target.stem}-{s}")
        aside.mkdir(parents=True)
        for path in (*self._members(), self.fingerprint_path):
            if path.exists():
                rel = path.relative_to(self.target.parent)
                dest = aside / (rel.name if rel.parts[0] == ".runs" else rel)
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.rename(path, dest)
        return aside


Run = DirectoryRun | FileRun


@contextlib.contextmanager
def open_run_dir(run: Run, current: Mapping[str, Any], *, force_new: bool = False,
                 writer: str = "", notify: Callable[[str], None] | None = None
                 ) -> Iterator[Mapping[str, Any]]:
    """Hold the run's lock for the block, after checking (or recording) its fingerprint.

    Refused with a ConfigError (one line): a live lock (this writer's, or for a whole run any
    shard's, for a shard the whole run's); a recorded fingerprint that differs from `current`
    (the message lists what differs); existing contents without a fingerprint (another
    command's output, or a run from before fingerprints). `force_new` first moves an existing
    run aside. `writer` is a job-array shard's name (`Shard.writer`). Yields `current`.
    """
    notify = notify or _to_stderr
    if force_new and writer:
        raise ConfigError("--force-new with --num-shards would let each shard move the others' "
                          "work aside: start over once without --num-shards, or use a new --out")
    run.check_kind()
    command = str(current.get("command", ""))
    lock = RunLock(run.lock_path(writer), command, notify)
    with _os_errors_as_config(run.lock_path(writer)):
        lock.acquire()
    try:
        with _os_errors_as_config(run.fingerprint_path):
            _checked(run, current, lock, writer, force_new, notify)
        yield current
    finally:
        lock.release()


@contextlib.contextmanager
def _os_errors_as_config(path: Path) -> Iterator[None]:
    """A read-only or full disk while locking or recording: one line naming the path."""
    try:
        yield
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None


def _checked(run: Run, current: Mapping[str, Any], lock: RunLock, writer: str,
             force_new: bool, notify: Callable[[str], None]) -> None:
    """With the lock held: no conflicting lock, force-new done, fingerprint checked."""
    for other in run.other_locks(writer):
        owner = lock_owner(other)
        if owner is not None:
            what = "the whole run" if writer else f"shard {other.name.rsplit('-', 1)[-1]}"
            raise ConfigError(f"{other.parent}: in use by {_owner_text(owner)}, running "
                              f"{what}; wait for it to finish, or use another --out")
    if force_new and (run.has_contents() or run.fingerprint_path.exists()):
        aside = run.move_aside()
        if isinstance(run, DirectoryRun):
            # The held lock moved with the folder (a flock follows the open file): free it
            # there and lock the fresh folder (refused if another process got there first).
            lock.release()
            lock.acquire()
        notify(f"halluscope: --force-new: the previous run was moved to {aside}")
    _check_or_record(run, current)


def _check_or_record(run: Run, current: Mapping[str, Any]) -> None:
    path = run.fingerprint_path
    recorded = _read_fingerprint(path)
    if recorded is None:
        if run.has_contents():
            where = run.root if isinstance(run, DirectoryRun) else run.target
            raise ConfigError(f"{where}: holds output but no {path.name} (another command's, or "
                              "a run from before run fingerprints); use another --out, or "
                              "--force-new to start over (the old one is moved aside)")
        recorded = _record_once(path, current)
    found = differences(recorded, current)
    if found and not run.has_contents():
        # The recorded run wrote nothing (it failed before its first row: a bad --dtype, a
        # model that does not load): there is nothing to mix, so this run replaces it.
        from halluscope.io.atomic import write_json_atomic

        write_json_atomic(path, dict(current))
        return
    if found:
        where = run.root if isinstance(run, DirectoryRun) else run.target
        raise ConfigError(f"{where}: made by another run; differs: {'; '.join(found)}; resume "
                          "with the same command and inputs, use another --out, or --force-new "
                          "to start over (the old one is moved aside)")


def _read_fingerprint(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{path}: not a readable run fingerprint ({exc}); use another --out, "
                          "or --force-new to start over") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: not a run fingerprint (expected a JSON object)")
    return data


def _record_once(path: Path, current: Mapping[str, Any]) -> dict[str, Any]:
    """Write the fingerprint unless another writer (a job-array shard) just did; the one on
    disk is returned either way. A hard link publishes the complete file or nothing."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(current, indent=2, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
    finally:
        os.unlink(tmp)
    recorded = _read_fingerprint(path)
    assert recorded is not None
    return recorded
