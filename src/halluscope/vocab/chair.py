"""CHAIR's object table: synonyms of the 80 COCO categories and the two-word terms it merges.

>>> v = ChairVocabulary.from_synonym_lines(["dog, puppy, pup", "hot dog"])
>>> v.inverse_synonym_dict["puppy"], v.double_word_dict["baby dog"], v.double_word_dict["hot dog"]
('dog', 'dog', 'hot dog')

The table is third-party data (LisaAnne/Hallucination `data/synonyms.txt`), so halluscope does not
ship it: `load_chair_vocabulary` reads a path, or the file named by `HALLUSCOPE_CHAIR_VOCAB`.
Two layouts are read:

* JSON with the three attributes of the reference evaluator: `mscoco_objects` (every form, in file
  order, duplicates kept), `inverse_synonym_dict` (form -> category) and `double_word_dict`;
* the reference `synonyms.txt`: one category per line, its forms separated by ", ", the first
  being the category. The two-word table is then built as the reference `CHAIR.__init__` builds
  it, from rules hard-coded there rather than from the file.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from halluscope.errors import ConfigError, InputError

ENV_VAR = "HALLUSCOPE_CHAIR_VOCAB"

# Hard-coded in the reference CHAIR.__init__ (facts of the metric, not of the synonym file).
# Two-word COCO terms read as one word; they map to themselves.
_COCO_DOUBLE_WORDS = (
    "motor bike", "motor cycle", "air plane", "traffic light", "street light", "traffic signal",
    "stop light", "fire hydrant", "stop sign", "parking meter", "suit case", "sports ball",
    "baseball bat", "baseball glove", "tennis racket", "wine glass", "hot dog", "cell phone",
    "mobile phone", "teddy bear", "hair drier", "potted plant", "bow tie", "laptop computer",
    "stove top oven", "home plate", "train track",
)
# "baby"/"adult"/"passenger" would otherwise fire for person: "baby bird" is a bird.
_ANIMAL_WORDS = ("bird", "cat", "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra",
                 "giraffe", "animal", "cub")
_VEHICLE_WORDS = ("jet", "train")
# Applied last, overriding the above: a bow tie is a tie, a toilet seat is no chair, and
# pattern's singulariser turns "glass" into "glas".
_OVERRIDES = (("bow tie", "tie"), ("toilet seat", "toilet"), ("wine glas", "wine glass"))


def reference_double_words() -> dict[str, str]:
    """The reference's two-word table: merged pair -> the word it then counts as.

    >>> d = reference_double_words()
    >>> len(d), d["bow tie"], d["passenger jet"], d["toilet seat"], d["wine glas"]
    (55, 'tie', 'jet', 'toilet', 'wine glass')
    """
    table = {pair: pair for pair in _COCO_DOUBLE_WORDS}
    for animal in _ANIMAL_WORDS:
        table[f"baby {animal}"] = animal
        table[f"adult {animal}"] = animal
    for vehicle in _VEHICLE_WORDS:
        table[f"passenger {vehicle}"] = vehicle
    table.update(_OVERRIDES)
    return table


@dataclass
class ChairVocabulary:
    """The three tables the reference CHAIR evaluator holds.

    >>> v = ChairVocabulary(["cat", "kitten"], {"cat": "cat", "kitten": "cat"}, {})
    >>> v.is_object("kitten"), v.is_object("dog")
    (True, False)
    """

    mscoco_objects: list[str]
    inverse_synonym_dict: dict[str, str]
    double_word_dict: dict[str, str]
    # The reference rebuilt set(mscoco_objects) for every word; one frozen copy is enough.
    _object_set: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._object_set = frozenset(self.mscoco_objects)

    def is_object(self, word: str) -> bool:
        """Whether `word` (singularised, after two-word merging) is a COCO object form."""
        return word in self._object_set

    @classmethod
    def from_synonym_lines(cls, lines: Iterable[str]) -> ChairVocabulary:
        """Build the tables from `synonyms.txt` lines exactly as the reference does.

        Each line is stripped and split on ", " (so a doubled space survives as a leading space
        and that form can never match, as in the reference); a blank line yields the form "".

        >>> ChairVocabulary.from_synonym_lines(["cake,  cheesecake"]).mscoco_objects
        ['cake', ' cheesecake']
        """
        objects: list[str] = []
        inverse: dict[str, str] = {}
        for line in lines:
            forms = line.strip().split(", ")
            objects.extend(forms)
            for form in forms:
                inverse[form] = forms[0]
        return cls(objects, inverse, reference_double_words())


def load_chair_vocabulary(path: str | Path | None = None) -> ChairVocabulary:
    """Read CHAIR's table from `path`, else from the file named by `HALLUSCOPE_CHAIR_VOCAB`.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "synonyms.txt"
    >>> _ = p.write_text("dog, puppy\\n")
    >>> load_chair_vocabulary(p).inverse_synonym_dict
    {'dog': 'dog', 'puppy': 'dog'}

    A `.json` file (or any file whose text starts with "{") is read as the JSON layout, anything
    else as `synonyms.txt`. Raises `ConfigError` when neither a path nor the variable is given,
    `InputError` (file, line) when the file is missing or malformed.
    """
    if path is None:
        env = os.environ.get(ENV_VAR, "").strip()
        if not env:
            raise ConfigError(
                f"no CHAIR vocabulary: pass its path or set {ENV_VAR} to chair_vocabulary.json "
                "or synonyms.txt (third-party data, not shipped with halluscope)")
        path = Path(env)
        if not path.is_file():
            raise ConfigError(f"{ENV_VAR} names a file that does not exist: {path}")
    path = Path(path)
    if not path.is_file():
        raise InputError("CHAIR vocabulary file not found", path=path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[:exc.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 ({exc.reason})", path=path, line=line) from None
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        return _vocabulary_from_json(text, path)
    return _vocabulary_from_txt(text, path)


def _vocabulary_from_txt(text: str, path: Path) -> ChairVocabulary:
    # Lines as the reference's readlines() sees them: split on newlines only (read_text has
    # already folded "\r\n" and "\r"), and no empty line after a final "\n".
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        if line.strip() and not line.strip().split(", ")[0]:
            raise InputError("line starts with a comma: the first form must be the category",
                             path=path, line=number)
    if not any(line.strip() for line in lines):
        raise InputError("no categories in synonym file", path=path, line=1)
    return ChairVocabulary.from_synonym_lines(lines)


def _vocabulary_from_json(text: str, path: Path) -> ChairVocabulary:
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg}, column {exc.colno})", path=path,
                         line=exc.lineno) from None
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object, got {type(data).__name__}", path=path, line=1)
    missing = [k for k in ("mscoco_objects", "inverse_synonym_dict", "double_word_dict")
               if k not in data]
    if missing:
        raise InputError(f"missing key(s) {', '.join(missing)}", path=path, line=1)
    objects = data["mscoco_objects"]
    if not isinstance(objects, list) or not all(isinstance(o, str) for o in objects):
        raise InputError("mscoco_objects must be a list of strings", path=path,
                         line=_line_of(text, "mscoco_objects"))
    tables: list[dict[str, str]] = []
    for key in ("inverse_synonym_dict", "double_word_dict"):
        table = data[key]
        if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
            raise InputError(f"{key} must map strings to strings", path=path,
                             line=_line_of(text, key))
        tables.append(table)
    inverse, double = tables
    # The reference looks every object form up in the inverse table; a gap would crash it later.
    orphans = sorted({o for o in objects if o not in inverse})
    if orphans:
        raise InputError(f"mscoco_objects has forms with no category in inverse_synonym_dict: "
                         f"{', '.join(map(repr, orphans[:5]))}", path=path,
                         line=_line_of(text, "inverse_synonym_dict"))
    return ChairVocabulary(objects, inverse, double)


def _line_of(text: str, key: str) -> int | None:
    """1-based line where `"key"` first appears, to point error messages at it."""
    at = text.find(f'"{key}"')
    return None if at < 0 else text.count("\n", 0, at) + 1
