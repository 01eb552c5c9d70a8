"""A small built-in English corpus for training the tiny models' tokenizers.

>>> lines = corpus_lines()
>>> any("giraffe" in line for line in lines) and any("hot dog" in line for line in lines)
True

The corpus is generated deterministically from the COCO categories, their NAME-Bench surface
forms and typical caption phrasing, so object words and common caption words become whole tokens
or a few sub-tokens (as in a real tokenizer) rather than single bytes.
"""

from __future__ import annotations

from halluscope.vocab.coco import COCO_CATEGORIES, NAMEBENCH_FORMS

_ADJECTIVES = ("small", "large", "white", "black", "red", "blue", "green", "yellow", "brown",
               "old", "young", "wooden", "little", "big", "tall", "empty", "open", "dark")
_PLACES = ("on a table", "in a kitchen", "on the street", "in a field", "near the water",
           "in a living room", "on the grass", "next to a building", "in the snow", "at the beach",
           "on a plate", "in front of a window", "under a tree", "in the background")
_TEMPLATES = (
    "A {adj} {obj} {place}.",
    "There is a {obj} {place}.",
    "The image shows a {adj} {obj} and a {obj2}.",
    "Two {obj}s are sitting {place}.",
    "A man is holding a {obj} while a woman looks at the {obj2}.",
    "It is possibly a {obj}, or maybe a picture of a {obj2}.",
    "There is no {obj} in this picture, but there might be a {obj2}.",
    "In this photo, we can see a {adj} {obj} {place}.",
)
_FIXED = (
    "Describe this image in detail.",
    "Please describe the image. What is in the picture? Is there a person in the image?",
    "Answer the question using a single word or phrase. Yes. No.",
    "USER: ASSISTANT: system user assistant You are a helpful assistant.",
    "The scene is bright and colorful, with people walking and cars parked along the road.",
    "Overall, the picture captures a busy moment of everyday life in the city.",
    "0 1 2 3 4 5 6 7 8 9 10 one two three four five several many a few some",
)


def corpus_lines() -> list[str]:
    """The corpus, one sentence a line, in a fixed order (same result on every call)."""
    objects = list(COCO_CATEGORIES) + [f for forms in NAMEBENCH_FORMS.values() for f in forms]
    lines: list[str] = list(_FIXED)
    for i, obj in enumerate(objects):
        # Stride through the lists so every object meets several adjectives/places/partners.
        for j, template in enumerate(_TEMPLATES):
            k = i * len(_TEMPLATES) + j
            lines.append(template.format(
                adj=_ADJECTIVES[k % len(_ADJECTIVES)], obj=obj,
                obj2=objects[(i * 7 + j * 13 + 1) % len(objects)],
                place=_PLACES[k % len(_PLACES)]))
    # Pair the sentences up so capitalised words also follow a space (" A", " The"), as they do
    # after LLaVA's "ASSISTANT:" and between sentences of a caption.
    return lines + [f"ASSISTANT: {a} {b}" for a, b in zip(lines[len(_FIXED)::2],
                                                         lines[len(_FIXED) + 1::2])]
