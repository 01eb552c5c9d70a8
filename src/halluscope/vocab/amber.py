"""AMBER's object list (`relation.json`) as a user vocabulary for the mention extractor.

>>> association = {"grass": ["ground"], "man": [], "air-conditioning": []}
>>> v = amber_vocabulary(association)
>>> v.category_of("grasses"), v.category_of("men"), v.category_of("air conditioning")
('grass', 'man', 'air-conditioning')
>>> v.category_of("ground"), v.category_of("dog") is None
('ground', True)

AMBER's vocabulary is open: every word of `relation.json` (its keys, the objects annotated as truth
or hallucination targets, and their association words) is one category of its own, so a mention's
category is exactly the word AMBER's scorer matches. Regular plurals come from `Vocabulary`;
irregular ones ("men", "people") are listed here, the way WordNet's exception lists lemmatise
them in the reference scorer. The COCO / NAME-Bench vocabulary is untouched: this one is built
only when asked for.
"""

from __future__ import annotations

from pathlib import Path

from halluscope.errors import InputError
from halluscope.vocab.vocabulary import Vocabulary

# WordNet's noun exceptions for the AMBER words that have an irregular plural.
IRREGULAR_PLURALS: dict[str, str] = {
    "man": "men", "woman": "women", "child": "children", "person": "people", "foot": "feet",
    "mouse": "mice", "goose": "geese", "tooth": "teeth", "leaf": "leaves", "knife": "knives",
    "shelf": "shelves", "wolf": "wolves", "loaf": "loaves", "calf": "calves"}


def amber_words(association: dict[str, list[str]]) -> list[str]:
    """Every word AMBER's scorer matches, in its order: each key, then its association words.

    >>> amber_words({"road": ["path", "street"], "path": []})
    ['road', 'path', 'street']
    """
    words: dict[str, None] = {}
    for key, associated in association.items():
        words.setdefault(key, None)
        for word in associated:
            words.setdefault(word, None)
    return list(words)


def amber_vocabulary(association: dict[str, list[str]]) -> Vocabulary:
    """One category per AMBER word; hyphenated words also match spelt with a space."""
    words = amber_words(association)
    forms: dict[str, list[str]] = {}
    for word in words:
        extra = []
        if "-" in word:
            extra.append(word.replace("-", " "))
        plural = IRREGULAR_PLURALS.get(word)
        if plural is not None and plural not in words:
            extra.append(plural)
        forms[word] = extra
    return Vocabulary(forms)


def load_association(path: str | Path) -> dict[str, list[str]]:
    """AMBER's `relation.json`: `{word: [associated word, ...]}`, checked.

    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "relation.json"
    >>> _ = p.write_text(json.dumps({"grass": ["ground"], "ground": []}))
    >>> load_association(p)
    {'grass': ['ground'], 'ground': []}
    """
    from halluscope.io.jsonl import read_json

    data = read_json(path)
    if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, list) and all(isinstance(w, str) for w in v)
            for k, v in data.items()):
        raise InputError('expected {"word": ["associated word", ...]}', path=path)
    return data
