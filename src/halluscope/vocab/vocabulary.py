"""A vocabulary maps surface forms ("puppies", "hot dog") to categories ("dog", "hot dog").

>>> v = Vocabulary.namebench()
>>> v.category_of("puppies"), v.category_of("Hot Dogs"), v.category_of("orange")
('dog', 'hot dog', 'orange')
>>> "orange" in v.excluded
True

Users extend or replace it with a file: JSON `{"category": ["form", ...]}` or the reference CHAIR
`synonyms.txt` layout (one category per line, its forms comma-separated, the first being the
category name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Literal

from halluscope.errors import InputError
from halluscope.vocab.coco import (COCO_CATEGORIES, NAMEBENCH_EXCLUDED, NAMEBENCH_FORMS,
                                   NO_AUTOMATIC_PLURAL)

_SIBILANT = re.compile(r"(s|x|z|ch|sh)$")
_CONSONANT_Y = re.compile(r"[^aeiou]y$")


def regular_plural(word: str) -> str:
    """English regular plural of one word: -s, -es after sibilants, -ies after consonant + y.

    >>> [regular_plural(w) for w in ("dog", "bus", "bench", "puppy", "toy")]
    ['dogs', 'buses', 'benches', 'puppies', 'toys']
    """
    if _SIBILANT.search(word):
        return word + "es"
    if _CONSONANT_Y.search(word):
        return word[:-1] + "ies"
    return word + "s"


def _normalise_form(form: str) -> str:
    return " ".join(form.lower().split())


@dataclass
class Vocabulary:
    """Forms per category, with automatic plurals, and the categories excluded from NAME-Bench.

    Multi-word forms also get the plural of their last word ("hot dogs", "tennis rackets"): the
    paper only says single-word forms are pluralised, but without this "hot dogs" would be read
    as a mention of dog, which breaks the longest-form-wins rule.
    """

    forms: dict[str, list[str]]
    excluded: frozenset[str] = frozenset()
    automatic_plurals: bool = True
    _form_to_category: dict[str, str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._form_to_category = {}
        for category, extra in self.forms.items():
            for form in [category, *extra]:
                self._add(_normalise_form(form), category)
        if self.automatic_plurals:
            for form, category in list(self._form_to_category.items()):
                words = form.split()
                if words[-1] in NO_AUTOMATIC_PLURAL:
                    continue
                plural = " ".join([*words[:-1], regular_plural(words[-1])])
                # A plural never overrides an explicit form of another category.
                self._form_to_category.setdefault(plural, category)

    def _add(self, form: str, category: str) -> None:
        if not form:
            return
        previous = self._form_to_category.get(form)
        if previous is not None and previous != category:
            raise InputError(f"form {form!r} is listed under both {previous!r} and {category!r}",
                             item="vocabulary")
        self._form_to_category[form] = category

    @classmethod
    def namebench(cls) -> "Vocabulary":
        """The NAME-Bench preset: Appendix A forms, "orange" matched but excluded."""
        return cls({c: list(NAMEBENCH_FORMS[c]) for c in COCO_CATEGORIES},
                   excluded=NAMEBENCH_EXCLUDED)

    @property
    def categories(self) -> list[str]:
        return list(self.forms)

    @property
    def form_to_category(self) -> dict[str, str]:
        return dict(self._form_to_category)

    def category_of(self, surface: str) -> str | None:
        return self._form_to_category.get(_normalise_form(surface))

    def merged(self, other: "Vocabulary", mode: Literal["extend", "replace"] = "extend"
               ) -> "Vocabulary":
        """Extend this vocabulary with another one's forms, or replace it by the other."""
        if mode == "replace":
            return other
        forms = {c: list(f) for c, f in self.forms.items()}
        for category, extra in other.forms.items():
            forms.setdefault(category, [])
            forms[category].extend(f for f in extra if f not in forms[category])
        return Vocabulary(forms, excluded=self.excluded | other.excluded,
                          automatic_plurals=self.automatic_plurals)


def _parse_lines(lines: Iterable[str], path: Path) -> dict[str, list[str]]:
    forms: dict[str, list[str]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split(",")]
        if not parts[0]:
            raise InputError("line starts with an empty category name", path=path, line=number)
        forms.setdefault(parts[0].lower(), []).extend(p for p in parts[1:] if p)
    return forms


def load_vocabulary(path: str | Path, base: Vocabulary | None = None,
                    mode: Literal["extend", "replace"] = "extend") -> Vocabulary:
    """Load a user vocabulary file and extend (default) or replace `base` (NAME-Bench by default).

    JSON: `{"category": ["form", ...]}`, optionally under a `"forms"` key with an `"excluded"`
    list beside it. Text: `category, form, form` per line.
    """
    import json

    path = Path(path)
    if not path.is_file():
        raise InputError("vocabulary file not found", path=path)
    text = path.read_text(encoding="utf-8")
    excluded: list[str] = []
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"malformed JSON ({exc.msg})", path=path, line=exc.lineno) from None
        if isinstance(data, dict) and "forms" in data:
            excluded = list(data.get("excluded", []))
            data = data["forms"]
        if not isinstance(data, dict) or not all(
                isinstance(v, list) and all(isinstance(x, str) for x in v) for v in data.values()):
            raise InputError('expected {"category": ["form", ...]}', path=path)
        forms = {k.lower(): list(v) for k, v in data.items()}
    else:
        forms = _parse_lines(text.splitlines(), path)
    if not forms:
        raise InputError("vocabulary file lists no category", path=path)
    loaded = Vocabulary(forms, excluded=frozenset(e.lower() for e in excluded))
    return (base or Vocabulary.namebench()).merged(loaded, mode)
