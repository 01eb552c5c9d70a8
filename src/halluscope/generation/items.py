"""What to caption: `{image_id, image}` items from a JSON-lines file or an images folder.

>>> image_id_from_stem("000000000139"), image_id_from_stem("COCO_val2014_000000391895")
(139, 391895)
>>> image_id_from_stem("kitchen-2")
'kitchen-2'

An item's key in the run directory is `str(image_id)`, so ids must be unique. Ids of one input are
all integers or all strings (mixed inputs become strings), so every Parquet shard of a run has
the same `image_id` type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from halluscope.data.captions import normalise_image_id
from halluscope.errors import InputError
from halluscope.io.jsonl import read_jsonl
from halluscope.io.paths import check_inside_root

if TYPE_CHECKING:
    from PIL import Image

IMAGE_SUFFIXES: frozenset[str] = frozenset(
    {".jpg", ".jpeg", ".png", ".bmp", ".gif", ".webp", ".tif", ".tiff"})
# COCO file names carry the integer id the annotations use: COCO_val2014_000000391895.jpg.
_COCO_NAME = re.compile(r"^COCO_[A-Za-z]+\d{4}_(\d+)$")


@dataclass(frozen=True)
class CaptionItem:
    """One image to caption.

    >>> CaptionItem(139, "img/139.jpg").key
    '139'
    """

    image_id: int | str
    image: str  # path of the image file

    @property
    def key(self) -> str:
        return str(self.image_id)


class ImageLoadError(Exception):
    """An image that cannot be read; the message names the file. Recorded as an error row."""


def image_id_from_stem(stem: str) -> int | str:
    """The image id a file name stands for: an integer when the stem is digits (or a COCO file
    name), else the stem itself."""
    match = _COCO_NAME.match(stem)
    if match:
        return int(match.group(1))
    return normalise_image_id(stem)


def items_from_folder(folder: str | Path, allow_outside: bool = False) -> list[CaptionItem]:
    """Every image file directly in `folder` (by suffix), id from the stem, in natural name
    order ("2.jpg" before "10.jpg"). A symlink that leads out of `folder` is an error unless
    `allow_outside`."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("images folder not found", path=folder)
    files = sorted((p for p in folder.iterdir()
                    if p.is_file() and not p.name.startswith(".")
                    and p.suffix.lower() in IMAGE_SUFFIXES), key=lambda p: _natural(p.name))
    if not files:
        raise InputError(f"no image files ({', '.join(sorted(IMAGE_SUFFIXES))}) in the folder",
                         path=folder)
    items: list[CaptionItem] = []
    seen: dict[str, Path] = {}
    for path in files:
        check_inside_root(path, folder, source=path, allow_outside=allow_outside)
        image_id = image_id_from_stem(path.stem)
        if str(image_id) in seen:
            raise InputError(f"image id {image_id!r} also comes from {seen[str(image_id)].name}; "
                             "ids must be unique", path=path)
        seen[str(image_id)] = path
        items.append(CaptionItem(image_id, str(path)))
    return _uniform_ids(items)


def _natural(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders digit runs by value.

    >>> sorted(["10.png", "2.png", "a.png"], key=_natural)
    ['2.png', '10.png', 'a.png']
    """
    return tuple((0, int(t)) if t.isdigit() else (1, t) for t in re.split(r"(\d+)", name) if t)


def items_from_jsonl(path: str | Path, images_dir: str | Path | None = None,
                     allow_outside: bool = False) -> list[CaptionItem]:
    """Items of a JSON-lines file `{"image_id": ..., "image": "path"}`.

    Relative image paths are taken from `images_dir` when given, else from the file's folder;
    that folder is the image root: a path leading out of it (`..`, an absolute path elsewhere,
    a symlink) is an error naming the line, unless `allow_outside`.
    """
    path = Path(path)
    base = Path(images_dir) if images_dir is not None else path.parent
    items: list[CaptionItem] = []
    seen: dict[str, int] = {}
    for line, obj in read_jsonl(path):
        for field in ("image_id", "image"):
            if field not in obj:
                raise InputError(f"missing field {field!r}", path=path, line=line)
        try:
            image_id = normalise_image_id(obj["image_id"])
        except ValueError as exc:
            raise InputError(str(exc), path=path, line=line) from None
        image = obj["image"]
        if not isinstance(image, str) or not image.strip():
            raise InputError("field 'image' must be a non-empty path", path=path, line=line)
        if str(image_id) in seen:
            raise InputError(f"duplicate image_id {image_id!r} (first on line "
                             f"{seen[str(image_id)]})", path=path, line=line)
        seen[str(image_id)] = line
        image_path = Path(image)
        image_path = image_path if image_path.is_absolute() else base / image_path
        check_inside_root(image_path, base, source=path, line=line, allow_outside=allow_outside)
        items.append(CaptionItem(image_id, str(image_path)))
    if not items:
        raise InputError("no items in the file", path=path)
    return _uniform_ids(items)


def as_items(items: Iterable[CaptionItem | Mapping[str, Any]]) -> list[CaptionItem]:
    """`CaptionItem`s from items or `{"image_id", "image"}` dicts (ids normalised and uniform).

    >>> as_items([{"image_id": "007", "image": "a/7.jpg"}])
    [CaptionItem(image_id=7, image='a/7.jpg')]
    """
    result: list[CaptionItem] = []
    for n, item in enumerate(items):
        if isinstance(item, CaptionItem):
            result.append(item)
            continue
        if not isinstance(item, Mapping) or "image_id" not in item or "image" not in item:
            raise InputError('expected {"image_id", "image"}', item=f"item {n}")
        try:
            image_id = normalise_image_id(item["image_id"])
        except ValueError as exc:
            raise InputError(str(exc), item=f"item {n}") from None
        result.append(CaptionItem(image_id, str(item["image"])))
    return _uniform_ids(result)


def _uniform_ids(items: Sequence[CaptionItem]) -> list[CaptionItem]:
    """All-int ids stay ints; otherwise every id becomes a string (one Parquet type per run).

    >>> [i.image_id for i in _uniform_ids([CaptionItem(1, "a"), CaptionItem("b", "b")])]
    ['1', 'b']
    """
    if all(isinstance(i.image_id, int) for i in items):
        return list(items)
    return [CaptionItem(str(i.image_id), i.image) for i in items]


def load_image(path: str | Path, max_side: int | None = None) -> Image.Image:
    """The image as RGB, shrunk (aspect kept) so that its longer side is at most `max_side`.

    Raises `ImageLoadError` naming the file for a missing, unreadable or truncated image: the
    pixels are decoded here (`load`), not later inside the processor, so a bad file fails alone.
    """
    from PIL import Image

    path = Path(path)
    if not path.is_file():
        raise ImageLoadError(f"{path}: image file not found")
    try:
        with Image.open(path) as opened:
            opened.load()
            image = opened.convert("RGB")
    # PIL signals bad files with OSError (incl. UnidentifiedImageError), ValueError, SyntaxError
    # and DecompressionBombError, depending on the format plugin.
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise ImageLoadError(f"{path}: cannot read image ({exc})") from None
    return shrink(image, max_side)


def shrink(image: Image.Image, max_side: int | None) -> Image.Image:
    """Resize so that the longer side is at most `max_side` (bicubic; never enlarges).

    >>> from PIL import Image
    >>> shrink(Image.new("RGB", (800, 600)), 400).size
    (400, 300)
    >>> shrink(Image.new("RGB", (80, 60)), 400).size
    (80, 60)
    """
    if max_side is None or max(image.size) <= max_side:
        return image
    from PIL import Image

    scale = max_side / max(image.size)
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, Image.Resampling.BICUBIC)

