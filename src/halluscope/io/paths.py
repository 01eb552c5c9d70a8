"""Keeping the image paths of an input file inside the image root the user gave.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> outside_root(root / "a.jpg", root), outside_root(root / ".." / "secret.jpg", root)
(False, True)

An item file names its images; a path such as `../../etc/passwd`, an absolute path elsewhere or a
symlink out of the root would make halluscope read (and, through a model's caption, leak) files
the user never meant to give it. Such paths are refused with a one-line error naming the file and
line, unless the user passes `--allow-outside-images`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from halluscope.errors import InputError

ALLOW_OPTION = "--allow-outside-images"


def outside_root(path: str | Path, root: str | Path) -> bool:
    """Whether `path`, with `..` and symlinks resolved, lies outside `root` (also resolved)."""
    return not Path(path).resolve().is_relative_to(Path(root).resolve())


def check_inside_root(path: str | Path, root: str | Path, *, source: str | Path | None = None,
                      line: int | None = None, item: str | None = None,
                      allow_outside: bool = False) -> None:
    """Raise `InputError` (naming `source` and `line` or `item`) when `path` escapes `root`.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> check_inside_root(root / "x.png", root)
    >>> try:
    ...     check_inside_root(root / "../x.png", root, source="items.jsonl", line=3)
    ... except InputError as exc:
    ...     print(str(exc).split(": ", 1)[0], "--allow-outside-images" in str(exc))
    items.jsonl:3 True
    """
    if allow_outside or not outside_root(path, root):
        return
    raise InputError(f"image path {str(path)!r} is outside the image root {str(root)!r} "
                     f"(pass {ALLOW_OPTION} to read it)", path=source, line=line, item=item)


def check_items_inside_root(items: Sequence[Mapping[str, Any]], root: str | Path,
                            source: str | Path, allow_outside: bool = False) -> None:
    """`check_inside_root` for each item's `image` (relative paths are taken from `root`); the
    error names the item by its image id.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> check_items_inside_root([{"image_id": 1, "image": "1.jpg"}], root, "caps.jsonl")
    """
    for item in items:
        path = Path(str(item.get("image", "")))
        check_inside_root(path if path.is_absolute() else Path(root) / path, root, source=source,
                          item=f"image_id {item.get('image_id')}", allow_outside=allow_outside)
