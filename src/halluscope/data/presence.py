"""Object presence per image: which categories are in the image?

>>> p = Presence({1: frozenset({"cat"})}, source="demo")
>>> p.is_present(1, "cat"), p.is_present(1, "dog")
(True, False)

Three sources, detected from the file's shape:
- COCO instances JSON (`images`, `annotations`, `categories`): present iff annotated (NAME-Bench,
  POPE, THRONE). Images listed without annotations have no objects.
- A precomputed `{image_id: [category, ...]}` JSON (e.g. CHAIR's ground truth).
- CHAIR's ground truth built from instances ∪ reference captions: `halluscope.metrics.chair`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from halluscope.data.captions import normalise_image_id
from halluscope.errors import InputError
from halluscope.io.jsonl import read_json


@dataclass(frozen=True)
class Presence:
    """Annotated categories per image id, and the file they came from (for error messages)."""

    objects: Mapping[int | str, frozenset[str]]
    source: str

    def __contains__(self, image_id: int | str) -> bool:
        return image_id in self.objects

    def categories(self, image_id: int | str) -> frozenset[str]:
        try:
            return self.objects[image_id]
        except KeyError:
            raise InputError(f"image id {image_id} is not in the annotations",
                             path=self.source) from None

    def is_present(self, image_id: int | str, category: str) -> bool:
        return category in self.categories(image_id)

    def missing(self, image_ids: Iterable[int | str]) -> list[int | str]:
        return [i for i in image_ids if i not in self.objects]


def presence_from_coco_instances(data: Mapping[str, Any], source: str) -> Presence:
    """Presence from a parsed COCO instances JSON."""
    for key in ("images", "annotations", "categories"):
        if not isinstance(data.get(key), list):
            raise InputError(f"not a COCO instances file: no {key!r} list", path=source)
    try:
        names = {c["id"]: c["name"] for c in data["categories"]}
        objects: dict[int | str, set[str]] = {normalise_image_id(i["id"]): set()
                                               for i in data["images"]}
        for position, ann in enumerate(data["annotations"]):
            image_id = normalise_image_id(ann["image_id"])
            if ann["category_id"] not in names:
                raise InputError(f"annotation {position} has unknown category_id "
                                 f"{ann['category_id']}", path=source)
            objects.setdefault(image_id, set()).add(names[ann["category_id"]])
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"not a COCO instances file: {type(exc).__name__} {exc}",
                         path=source) from None
    return Presence({k: frozenset(v) for k, v in objects.items()}, source)


def presence_from_object_lists(data: Mapping[str, Any], source: str) -> Presence:
    """Presence from `{image_id: [category, ...]}`."""
    objects: dict[int | str, frozenset[str]] = {}
    for key, value in data.items():
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            raise InputError(f"image {key}: expected a list of category names", path=source)
        try:
            objects[normalise_image_id(key)] = frozenset(value)
        except ValueError as exc:
            raise InputError(f"bad image id {key!r}: {exc}", path=source) from None
    return Presence(objects, source)


def load_presence(path: str | Path) -> Presence:
    """Load presence from a COCO instances JSON or an `{image_id: [categories]}` JSON."""
    data = read_json(path)
    if isinstance(data, dict) and "annotations" in data:
        return presence_from_coco_instances(data, str(path))
    if isinstance(data, dict):
        return presence_from_object_lists(data, str(path))
    raise InputError("annotations must be a COCO instances JSON or {image_id: [categories]}",
                     path=path)
