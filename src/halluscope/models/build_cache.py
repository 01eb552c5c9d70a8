"""A content-keyed cache of built model folders, so slow builds (a real text tower) run once.

>>> recipe_key({"arch": "llava", "seed": 0}) == recipe_key({"seed": 0, "arch": "llava"})
True
>>> len(recipe_key({"arch": "llava"}))
64

`materialise(recipe, build, out)` looks the recipe up in the cache
(`$HALLUSCOPE_CACHE_DIR/models/`, default `~/.cache/halluscope/models/`). On a miss it runs
`build(folder)` into a temporary folder beside the cache entry and renames it into place (a crash
leaves no half-built entry; two concurrent builders both finish, the second rename is dropped).
Then the entry's files are copied into `out`, unless `out` already holds the same recipe. The
recipe is everything the output depends on, including the input file's sha256, so a changed
input never returns a stale build.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping

RECIPE_FILE = "halluscope_recipe.json"


def cache_root(cache_dir: str | Path | None = None) -> Path:
    """The folder cached builds live in."""
    if cache_dir is not None:
        return Path(cache_dir)
    base = os.environ.get("HALLUSCOPE_CACHE_DIR") or Path.home() / ".cache" / "halluscope"
    return Path(base) / "models"


def recipe_key(recipe: Mapping[str, Any]) -> str:
    """sha256 of the recipe's canonical JSON."""
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()


def file_sha256(path: str | Path, chunk: int = 1 << 20) -> str:
    """sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _holds(folder: Path, key: str) -> bool:
    try:
        return json.loads((folder / RECIPE_FILE).read_text()).get("key") == key
    except (OSError, ValueError):
        return False


def materialise(recipe: Mapping[str, Any], build: Callable[[Path], None], out: str | Path,
                cache_dir: str | Path | None = None) -> Path:
    """`out` holding the build of `recipe`, built at most once per cache."""
    key = recipe_key(recipe)
    out = Path(out)
    if _holds(out, key):
        return out
    root = cache_root(cache_dir)
    entry = root / f"{recipe.get('arch', 'model')}-{recipe.get('text_model', '')}-{key[:16]}"
    if not _holds(entry, key):
        root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".building-", dir=root))
        try:
            build(staging)
            (staging / RECIPE_FILE).write_text(
                json.dumps({"key": key, "recipe": dict(recipe)}, indent=2, sort_keys=True) + "\n")
            if entry.exists():  # a stale or half-removed entry: replace it
                shutil.rmtree(entry)
            try:
                staging.rename(entry)
            except OSError:
                if not _holds(entry, key):  # not another builder's identical result
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    # The recipe file goes last: an interrupted copy leaves `out` without it, so it is redone.
    (out / RECIPE_FILE).unlink(missing_ok=True)
    for path in sorted(entry.iterdir()):
        if path.name != RECIPE_FILE and path.is_file():
            shutil.copyfile(path, out / path.name)
    shutil.copyfile(entry / RECIPE_FILE, out / RECIPE_FILE)
    return out
