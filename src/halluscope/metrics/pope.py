"""POPE: answers joined to the split files by `question_id`, read by a robust parser, with
hedged answers counted apart.

>>> from halluscope.prism.answers import classify_yes_no
>>> qs = [PopeQuestion("1", "a.jpg", "Is there a dog?", "yes"),
...       PopeQuestion("2", "a.jpg", "Is there a cat?", "no"),
...       PopeQuestion("3", "a.jpg", "Is there a car?", "no")]
>>> texts = {"1": " Yes", "2": "There might be a cat.", "3": "no"}
>>> m = pope_metrics(qs, {q: classify_yes_no(t) for q, t in texts.items()})
>>> m["accuracy"], m["precision"], m["recall"], m["n_hedged"], m["yes_ratio"]
(0.6666666666666666, 1.0, 1.0, 1, 0.3333333333333333)

Each answer is one of `yes`, `no`, `hedged` (no yes/no given, but the model says it is unsure:
"there might be a cat", "I can't tell") or `unparsed` (no label read: empty, or a description
that never answers). Only `yes` is a positive prediction: hedged and unparsed answers are wrong
on every item (accuracy), never true or false positives (precision), and misses on `yes` items
(recall); the yes-ratio is `yes` answers over all items, as LLaVA's POPE script defines it.
`llava_reading` is that script's parser (first sentence; `no`/`not`/`No` anywhere means no,
anything else yes), for comparing with numbers computed the common way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from halluscope.errors import InputError
from halluscope.io.jsonl import read_jsonl

POPE_SPLITS = ("random", "popular", "adversarial")
ANSWER_CLASSES = ("yes", "no", "hedged", "unparsed")  # prism.answers.classify_yes_no
METRICS = ("accuracy", "precision", "recall", "f1", "yes_ratio")

@dataclass(frozen=True)
class PopeQuestion:
    """One line of a POPE split file (or of a corrected-labels file in the same layout)."""

    question_id: str
    image: str
    text: str
    label: str
    line: int = 0


def normalise_question_id(value: Any) -> str:
    """Ids compare as text; integer-valued ids lose leading zeros and float spellings.

    >>> normalise_question_id(7), normalise_question_id("007"), normalise_question_id(7.0)
    ('7', '7', '7')
    """
    if isinstance(value, bool):
        raise ValueError("question_id must be an integer or a string")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    if not text:
        raise ValueError("question_id is empty")
    return str(int(text)) if text.isdigit() else text


def llava_reading(text: str | None) -> str:
    """LLaVA's `eval_pope.py` reading: `no` if the first sentence has the word no/not/No, else
    `yes` (so hedges and empty answers count as yes).

    >>> llava_reading("There might be a dog."), llava_reading("There is not."), llava_reading("")
    ('yes', 'no', 'yes')
    >>> llava_reading("Not at all.")  # capitalised "Not" is not in its word list
    'yes'
    """
    text = text or ""
    if "." in text:
        text = text.split(".")[0]
    words = text.replace(",", "").split(" ")
    return "no" if ("No" in words or "not" in words or "no" in words) else "yes"


def read_pope_questions(path: str | Path) -> list[PopeQuestion]:
    """A POPE split file (JSON lines `question_id, image, text, label`); duplicated ids are an
    error naming them.

    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "coco_pope_random.json"
    >>> _ = p.write_text(json.dumps({"question_id": 1, "image": "a.jpg", "text": "Is there a dog?",
    ...                              "label": "Yes"}) + "\\n")
    >>> read_pope_questions(p)[0]
    PopeQuestion(question_id='1', image='a.jpg', text='Is there a dog?', label='yes', line=1)
    """
    questions: list[PopeQuestion] = []
    first_line: dict[str, int] = {}
    duplicated: list[str] = []
    for line, obj in read_jsonl(path):
        for key in ("question_id", "label"):
            if key not in obj:
                raise InputError(f"missing field {key!r}", path=path, line=line)
        try:
            qid = normalise_question_id(obj["question_id"])
        except ValueError as exc:
            raise InputError(str(exc), path=path, line=line) from None
        label = str(obj["label"]).strip().lower()
        if label not in ("yes", "no"):
            raise InputError(f"field 'label' must be yes or no, got {obj['label']!r}",
                             path=path, line=line)
        if qid in first_line:
            duplicated.append(qid)
            continue
        first_line[qid] = line
        questions.append(PopeQuestion(qid, str(obj.get("image", "")), str(obj.get("text", "")),
                                      label, line))
    if duplicated:
        raise InputError(f"duplicated question_id {_ids(duplicated)}", path=path)
    return questions


def split_of(path: str | Path) -> str:
    """The POPE split a file holds, from its name (`coco_pope_adversarial.json` -> adversarial).

    >>> split_of("out/coco_pope_popular.json")
    'popular'
    """
    stem = Path(path).name.lower()
    found = [s for s in POPE_SPLITS if s in stem]
    if len(found) != 1:
        raise InputError(f"cannot tell the POPE split from the file name; name it "
                         f"..._<{'|'.join(POPE_SPLITS)}>...", path=path)
    return found[0]


def _ids(ids: Sequence[str], limit: int = 10) -> str:
    """`1, 2, 3` or `1, 2, ... (+8 more)`, sorted numerically where possible."""
    ordered = sorted(set(ids), key=lambda s: (not s.isdigit(), int(s) if s.isdigit() else 0, s))
    shown = ", ".join(ordered[:limit])
    return shown + (f" (+{len(ordered) - limit} more)" if len(ordered) > limit else "")


def join_answers(questions: Sequence[PopeQuestion],
                 answers: Sequence[tuple[str, str | None, str]], split: str,
                 skip_bad: bool = False) -> tuple[dict[str, str | None], dict[str, list[str]]]:
    """Answers keyed by question id, checked against the split's ids.

    `answers` are `(question_id, text, where)`. Missing, duplicated and unknown ids are one
    `InputError` naming them, or with `skip_bad` dropped and returned as counted skips
    (`{"missing": [...], "duplicated": [...], "unknown": [...]}`): a missing or duplicated
    item is left out of every metric, never scored from another line.

    >>> q = [PopeQuestion("1", "", "", "yes"), PopeQuestion("2", "", "", "no")]
    >>> join_answers(q, [("1", "Yes", "a:1"), ("1", "No", "a:2")], "random", skip_bad=True)
    ({}, {'missing': ['2'], 'duplicated': ['1'], 'unknown': []})
    """
    known = {q.question_id for q in questions}
    seen: dict[str, list[str | None]] = {}
    for qid, text, _ in answers:
        seen.setdefault(qid, []).append(text)
    duplicated = sorted((q for q, texts in seen.items() if len(texts) > 1 and q in known),
                        key=_sort_key)
    unknown = sorted((q for q in seen if q not in known), key=_sort_key)
    missing = [q.question_id for q in questions if q.question_id not in seen]
    problems = {"missing": missing, "duplicated": duplicated, "unknown": unknown}
    if any(problems.values()) and not skip_bad:
        parts = [f"{name} question_id {_ids(ids)}" for name, ids in problems.items() if ids]
        raise InputError(f"POPE {split}: " + "; ".join(parts) + " (join on question_id; "
                         "--skip-bad leaves them out, counted)")
    bad = set(duplicated)
    joined = {q: texts[0] for q, texts in seen.items() if q in known and q not in bad}
    return joined, problems


def _sort_key(qid: str) -> tuple[bool, int, str]:
    return (not qid.isdigit(), int(qid) if qid.isdigit() else 0, qid)


def pope_metrics(questions: Sequence[PopeQuestion],
                 predictions: Mapping[str, str]) -> dict[str, Any]:
    """Accuracy, precision, recall, F1 (yes is the positive class), yes-ratio and the counts of
    each answer class, over the questions that have a prediction (`yes`, `no`, `hedged`,
    `unparsed`: `prism.answers.classify_yes_no`, or `llava_reading` for the common numbers).

    >>> qs = [PopeQuestion(str(i), "", "", l) for i, l in enumerate(["yes", "yes", "no", "no"])]
    >>> m = pope_metrics(qs, {"0": "yes", "1": "no", "2": "yes", "3": "unparsed"})
    >>> m["tp"], m["fn"], m["fp"], m["tn"], m["n_unparsed"], m["f1"]
    (1, 1, 1, 0, 1, 0.5)
    """
    counts = dict.fromkeys(ANSWER_CLASSES, 0)
    tp = fp = tn = fn = 0
    n = 0
    for q in questions:
        if q.question_id not in predictions:
            continue
        n += 1
        pred = predictions[q.question_id]
        if pred not in counts:
            raise ValueError(f"prediction must be one of {ANSWER_CLASSES}, got {pred!r}")
        counts[pred] += 1
        if q.label == "yes":
            tp += pred == "yes"
            fn += pred != "yes"
        else:
            fp += pred == "yes"
            tn += pred == "no"
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    # 2TP / (2TP + FP + FN): the harmonic mean of precision and recall, and still defined (0)
    # when the model never says yes, where precision is not.
    f1 = 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else None
    return {"n": n, "tp": tp, "fp": fp, "tn": tn, "fn": fn,
            "accuracy": (tp + tn) / n if n else None, "precision": precision, "recall": recall,
            "f1": f1, "yes_ratio": counts["yes"] / n if n else None,
            **{f"n_{c}": counts[c] for c in ANSWER_CLASSES}}


def average_over_splits(per_split: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The mean of each metric over the splits (LLaVA's POPE average), counts summed.

    >>> average_over_splits({"random": {"f1": 0.8, "n": 2, "n_hedged": 1},
    ...                      "popular": {"f1": 0.6, "n": 3, "n_hedged": 0}})["f1"]
    0.7
    """
    out: dict[str, Any] = {"splits": list(per_split)}
    for metric in METRICS:
        values = [m.get(metric) for m in per_split.values()]
        out[metric] = (round(sum(values) / len(values), 12)
                       if values and all(v is not None for v in values) else None)
    for key in ("n", "tp", "fp", "tn", "fn", *(f"n_{c}" for c in ANSWER_CLASSES)):
        if any(key in m for m in per_split.values()):
            out[key] = sum(m.get(key, 0) for m in per_split.values())
    return out
