"""Synthetic AMBER responses written from AMBER's own annotations, shared by the AMBER tests and
by the reference run made outside the repository (importable: `tests` is on pytest's pythonpath).

Deterministic: the same annotations and seed give the same responses, so a test can regenerate
exactly what the reference scorer was run on. The generative responses mention truth objects
(singular and plural), association words, hallucinated objects asserted, hedged ("there might be")
and negated ("there is no"), AMBER's safe words, and nouns outside AMBER's list; the discriminative
answers are mostly the canonical "Yes" / "No" and sometimes another spelling ("yes", "No.", "Yes,
there is."), which the reference scorer reads as neither.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

PLURALS = {"person": "people", "man": "men", "woman": "women", "child": "children",
           "mouse": "mice", "foot": "feet", "leaf": "leaves", "knife": "knives",
           "shelf": "shelves", "sheep": "sheep", "fish": "fish", "glass": "glasses",
           "bus": "buses", "box": "boxes", "dish": "dishes", "bench": "benches"}
OTHER_NOUNS = ("scene", "image", "picture", "atmosphere", "moment", "view", "background")
SAFE = ("light", "sign", "line", "camera", "shoe")
ANSWERS_YES = ("Yes",) * 8 + ("yes", "Yes.", "Yes, there is.")
ANSWERS_NO = ("No",) * 8 + ("no", "No.", "No, there is not.")


def _plural(word: str) -> str:
    if word in PLURALS:
        return PLURALS[word]
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _np(word: str, rng: random.Random) -> str:
    """A noun phrase for one object: singular with an article, a count, or a bare plural."""
    roll = rng.random()
    if roll < 0.55:
        return f"{_article(word)} {word}"
    if roll < 0.8:
        return f"{rng.choice(('two', 'three', 'several', 'some'))} {_plural(word)}"
    return f"the {word}"


def _generative(entry: dict, relation: dict, rng: random.Random) -> str:
    truth, hallu = list(entry["truth"]), list(entry["hallu"])
    sentences = []
    shown = rng.sample(truth, k=min(len(truth), rng.randint(1, 4)))
    first = " and ".join(_np(w, rng) for w in shown[:2])
    sentences.append(f"The {rng.choice(OTHER_NOUNS)} shows {first}.")
    for word in shown[2:]:
        sentences.append(f"There is {_np(word, rng)} near the {rng.choice(OTHER_NOUNS)}.")
    associated = [a for w in shown for a in relation.get(w, [])]
    if associated and rng.random() < 0.4:
        sentences.append(f"You can also see {_np(rng.choice(associated), rng)}.")
    if hallu and rng.random() < 0.45:
        sentences.append(f"In the corner there is {_np(rng.choice(hallu), rng)}.")
    if hallu and rng.random() < 0.35:
        word = rng.choice(hallu)
        sentences.append(rng.choice((
            f"There might be {_article(word)} {word} in the distance.",
            f"It is possible that {_article(word)} {word} is hidden behind it.",
            f"Perhaps {_article(word)} {word} is nearby.")))
    if hallu and rng.random() < 0.35:
        word = rng.choice(hallu)
        sentences.append(rng.choice((f"There is no {word} in the {rng.choice(OTHER_NOUNS)}.",
                                     f"No {_plural(word)} can be seen.")))
    if rng.random() < 0.25:
        sentences.append(f"A {rng.choice(SAFE)} is visible on the left.")
    if rng.random() < 0.2:
        # A word of AMBER's list that belongs to neither list of this image.
        other = rng.choice(sorted(relation))
        sentences.append(f"The {other} adds to the {rng.choice(OTHER_NOUNS)}.")
    return " ".join(sentences)


def synthetic_responses(annotations: list[dict], relation: dict, seed: int = 17,
                        n_generative: int = 240, n_discriminative: int = 360) -> list[dict]:
    """`[{"id", "response"}]` in the reference's input layout: `n_generative` image descriptions
    and `n_discriminative` yes/no answers (every discriminative type is drawn from)."""
    rng = random.Random(seed)
    generative = [a for a in annotations if a["type"] == "generative"]
    discriminative = [a for a in annotations if a["type"] != "generative"]
    rows = []
    for entry in sorted(rng.sample(generative, n_generative), key=lambda a: a["id"]):
        rows.append({"id": entry["id"], "response": _generative(entry, relation, rng)})
    for entry in sorted(rng.sample(discriminative, n_discriminative), key=lambda a: a["id"]):
        right = rng.random() < 0.7
        says_yes = (entry["truth"] == "yes") == right
        rows.append({"id": entry["id"],
                     "response": rng.choice(ANSWERS_YES if says_yes else ANSWERS_NO)})
    return rows


def load_and_generate(amber_dir: Path, **options) -> list[dict]:
    """The synthetic responses for the AMBER folder `amber_dir` (annotations, relation.json)."""
    annotations = json.loads((amber_dir / "annotations.json").read_text(encoding="utf-8"))
    relation = json.loads((amber_dir / "relation.json").read_text(encoding="utf-8"))
    return synthetic_responses(annotations, relation, **options)


if __name__ == "__main__":  # the reference run writes its input with this
    import sys

    rows = load_and_generate(Path(sys.argv[1]))
    Path(sys.argv[2]).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    print(f"wrote {len(rows)} responses to {sys.argv[2]}")
