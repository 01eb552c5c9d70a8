"""The singulariser against outputs of pattern's real `singularize`.

Every expected value below was produced by running pattern 3.6's own code
(clips/pattern, pattern/text/en/inflect.py, imported standalone outside this repository), not by
halluscope's port.
"""

from __future__ import annotations

import pytest

from halluscope.metrics.singularize import singularize

PATTERN_OUTPUTS = {
    # regular and irregular plurals
    "dogs": "dog", "giraffes": "giraffe", "people": "person", "women": "woman",
    "children": "child", "men": "man", "knives": "knife", "leaves": "leaf", "wolves": "wolf",
    "halves": "half", "wives": "wife", "loaves": "loaf", "caves": "cave", "mice": "mouse",
    "geese": "goose", "feet": "foot", "teeth": "tooth", "oxen": "ox", "buses": "bus",
    "boxes": "box", "benches": "bench", "dishes": "dish", "glasses": "glass",
    "parties": "party", "movies": "movie", "skis": "ski", "taxis": "taxi", "photos": "photo",
    "potatoes": "potato", "shoes": "shoe", "analyses": "analysis", "bases": "basis",
    "theses": "thesis", "crises": "crisis", "diagnoses": "diagnosis", "data": "datum",
    "cacti": "cactus", "octopi": "octopus", "matrices": "matrix", "indices": "index",
    "quizzes": "quiz", "statuses": "status", "axes": "axe", "tortillas": "tortilla",
    "iphones": "iphone", "skies": "sky", "fries": "fry", "toys": "toy", "chiefs": "chief",
    "phones": "phone", "fruits": "fruit",
    # invariant and uncountable nouns
    "series": "series", "species": "species", "sheep": "sheep", "scissors": "scissors",
    "news": "news", "bison": "bison", "luggage": "luggage",
    # quirks that CHAIR's tables depend on or inherit
    "glass": "glas", "grass": "gras", "tennis": "tenni", "bus": "bu", "has": "ha", "was": "wa",
    "this": "thi", "is": "is", "ears": "ears", "toes": "to", "ties": "ty", "pies": "py",
    "cookies": "cookies", "zombies": "zombies", "criteria": "criterium", "lenses": "lense",
    "pants": "pant", "opera": "opus", "kine": "cow", "our": "my", "oxenfoo": "oxfoo",
    "knive": "knive", "a": "a", "s": "s",
    # apostrophes, hyphens, case
    "'": "'s", "dogs'": "dog's", "mothers-in-law": "mother-in-law", "t-shirts": "t-shirt",
    "Dogs": "Dog", "Women": "Woman", "Cookies": "cookies", "hot dog": "hot dog",
}


@pytest.mark.parametrize("word,expected", sorted(PATTERN_OUTPUTS.items()))
def test_matches_pattern(word: str, expected: str) -> None:
    assert singularize(word) == expected


def test_custom_table_wins_and_is_not_cached() -> None:
    assert singularize("geese", custom={"geese": "gander"}) == "gander"
    assert singularize("geese") == "goose"
