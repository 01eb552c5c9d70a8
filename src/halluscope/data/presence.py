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
            for key in ("image_id", "category_id"):
                if not isinstance(ann, dict) or key not in ann:
                    raise InputError(f"annotation {position} has no {key!r}", path=source)
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


# Any of these keys marks a COCO instances file (a missing one is then named in the error);
# no image id of an `{image_id: [categories]}` file is spelt like them.
_COCO_KEYS = frozenset({"images", "annotations", "categories"})


def check_categories(presence: Presence, known: Iterable[str]) -> None:
    """Every category named in `presence` must be one of `known` (the vocabulary's): a
    misspelt or differently cased name would never match a mention, silently turning every
    mention of it into a hallucination.

    >>> check_categories(Presence({1: frozenset({"dog"})}, "gt.json"), ["dog", "couch"])
    >>> check_categories(Presence({1: frozenset({"Dog", "sofa"})}, "gt.json"), ["dog", "couch"])
    Traceback (most recent call last):
    ...
    halluscope.errors.InputError: gt.json: 2 category names are not in the vocabulary: 'Dog', 'sofa' (names are the vocabulary's category names, e.g. 'couch', 'dog')
    """
    known = set(known)
    unknown = sorted({c for categories in presence.objects.values() for c in categories} - known)
    if unknown:
        shown = ", ".join(repr(c) for c in unknown[:10]) + (", ..." if len(unknown) > 10 else "")
        examples = ", ".join(repr(c) for c in sorted(known)[:2])
        raise InputError(f"{len(unknown)} category name{'s are' if len(unknown) > 1 else ' is'} "
                         f"not in the vocabulary: {shown} (names are the vocabulary's category "
                         f"names, e.g. {examples})", path=presence.source)


def load_presence(path: str | Path, categories: Iterable[str] | None = None) -> Presence:
    """Load presence from a COCO instances JSON or an `{image_id: [categories]}` JSON.

    With `categories` (the vocabulary's), the names of an `{image_id: [categories]}` file are
    checked against them (`check_categories`); a COCO file's names come from its own list.
    """
    data = read_json(path)
    if isinstance(data, dict) and not _COCO_KEYS.isdisjoint(data):
        return presence_from_coco_instances(data, str(path))
    if isinstance(data, dict):
        presence = presence_from_object_lists(data, str(path))
        if categories is not None:
            check_categories(presence, categories)
        return presence
    raise InputError("annotations must be a COCO instances JSON or {image_id: [categories]}",
                     path=path)
