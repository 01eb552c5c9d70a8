"""HallusionBench aAcc, fAcc and qAcc, grouped exactly as the benchmark's own scorer groups them.

>>> qs = [HBQuestion("VD", "map", "0", "0", "0", "1", "1"),
...       HBQuestion("VD", "map", "0", "1", "0", "0", "2"),
...       HBQuestion("VS", "chart", "0", "0", "0", "1", "0"),
...       HBQuestion("VS", "chart", "0", "1", "0", "1", "1")]
>>> keys = [q.key for q in qs]
>>> m = hallusionbench_metrics(qs, dict(zip(keys, ["yes", "yes", "hedged", "yes"])))
>>> m["aAcc"], m["fAcc"], m["qAcc"], m["n_hedged"]
(0.75, 0.6666666666666666, 0.5, 1)

The reference (`utils.py` in tianyi-lab/HallusionBench) has GPT-4 judge each answer correct (1),
incorrect (0) or unclear (2); here the answer is read with the project's yes/no parser
(`prism.answers.classify_yes_no`, applied by the caller): a label is correct or incorrect, a hedge
("I cannot tell") is unclear, and an answer with neither is unparsed, counted, and never
correct. As in the reference:

- aAcc: correct questions / questions. An unclear answer to a VS question with no figure
  (`figure_id` 0: the question is asked without its image) is correct: not knowing is right.
- fAcc: figures whose questions are all correct / figures; a figure is
  (category, subcategory, set_id, figure_id), VS questions without a figure excluded.
- qAcc: question pairs all correct / pairs; a pair is the same question text on the different
  figures of a set, (category, subcategory, set_id, question_id).

The release holds 1,129 questions in 346 figures and 455 pairs; `RELEASE_COUNTS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from halluscope.errors import InputError
from halluscope.io.jsonl import read_json
from halluscope.metrics.pope import ANSWER_CLASSES

RELEASE_COUNTS = {"questions": 1129, "figures": 346, "pairs": 455}
KEY_FIELDS = ("category", "subcategory", "set_id", "figure_id", "question_id")


@dataclass(frozen=True)
class HBQuestion:
    """One released question: its five id fields, `gt_answer` ('1' yes, '0' no), `visual_input`."""

    category: str
    subcategory: str
    set_id: str
    figure_id: str
    question_id: str
    gt_answer: str
    visual_input: str
    index: int = 0

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        return (self.category, self.subcategory, self.set_id, self.figure_id, self.question_id)

    @property
    def no_figure(self) -> bool:
        """A VS question asked without its image (the reference's `figure_id == 0` test)."""
        return self.category == "VS" and self.figure_id == "0"


def hb_key(fields: Mapping[str, Any]) -> tuple[str, str, str, str, str] | None:
    """The five id fields of a record as text, or None when any is absent.

    >>> hb_key({"category": "VD", "subcategory": "map", "set_id": 1, "figure_id": "0",
    ...         "question_id": 2})
    ('VD', 'map', '1', '0', '2')
    """
    values = [fields.get(k) for k in KEY_FIELDS]
    if any(v is None or str(v).strip() == "" for v in values):
        return None
    return tuple(str(v).strip() for v in values)  # type: ignore[return-value]


def read_release(path: str | Path) -> list[HBQuestion]:
    """The released `HallusionBench.json`: every question, its key unique."""
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError("expected a JSON array of questions", path=path)
    questions: list[HBQuestion] = []
    seen: dict[tuple, int] = {}
    for index, obj in enumerate(data):
        where = f"question {index}"
        if not isinstance(obj, dict):
            raise InputError("expected a JSON object", path=path, item=where)
        key = hb_key(obj)
        if key is None:
            raise InputError(f"missing one of {', '.join(KEY_FIELDS)}", path=path, item=where)
        if key in seen:
            raise InputError(f"same id fields as question {seen[key]}: {'_'.join(key)}",
                             path=path, item=where)
        seen[key] = index
        gt = str(obj.get("gt_answer", "")).strip()
        if gt not in ("0", "1"):
            raise InputError(f"field 'gt_answer' must be '0' or '1', got {gt!r}", path=path,
                             item=where)
        questions.append(HBQuestion(*key, gt, str(obj.get("visual_input", "")).strip(), index))
    return questions


def correctness(question: HBQuestion, answer_class: str) -> int:
    """The reference's code for an answer class: 1 correct, 0 incorrect, 2 unclear.

    >>> q = HBQuestion("VD", "map", "0", "0", "0", "1", "1")
    >>> [correctness(q, c) for c in ("yes", "no", "hedged", "unparsed")]
    [1, 0, 2, 0]
    """
    if answer_class not in ANSWER_CLASSES:
        raise ValueError(f"answer class must be one of {ANSWER_CLASSES}, got {answer_class!r}")
    if answer_class == "hedged":
        return 2
    if answer_class == "unparsed":
        return 0
    return int((answer_class == "yes") == (question.gt_answer == "1"))


def _share(groups: Mapping[Any, list[bool]]) -> float | None:
    return sum(all(v) for v in groups.values()) / len(groups) if groups else None


def hallusionbench_metrics(questions: Sequence[HBQuestion],
                           answers: Mapping[tuple, str]) -> dict[str, Any]:
    """aAcc, fAcc, qAcc (fractions) over the questions that have an answer (its class: `yes`,
    `no`, `hedged`, `unparsed`), per category too."""
    def score(subset: Sequence[HBQuestion]) -> dict[str, Any]:
        correct: dict[tuple, bool] = {}
        classes = {"yes": 0, "no": 0, "hedged": 0, "unparsed": 0}
        for q in subset:
            label = answers[q.key]
            code = correctness(q, label)
            classes[label] += 1
            # assign_correctness: unclear is right only where the question has no figure.
            correct[q.key] = code == 1 or (code == 2 and q.no_figure)
        figures: dict[tuple, list[bool]] = {}
        pairs: dict[tuple, list[bool]] = {}
        for q in subset:
            if not q.no_figure:
                figures.setdefault(q.key[:4], []).append(correct[q.key])
            pairs.setdefault(q.key[:3] + q.key[4:], []).append(correct[q.key])
        n = len(subset)
        return {"aAcc": sum(correct.values()) / n if n else None, "fAcc": _share(figures),
                "qAcc": _share(pairs), "n_questions": n, "n_figures": len(figures),
                "n_pairs": len(pairs), **{f"n_{c}": v for c, v in classes.items()}}

    answered = [q for q in questions if q.key in answers]
    out = score(answered)
    out["by_category"] = {c: score([q for q in answered if q.category == c])
                          for c in sorted({q.category for q in answered})}
    return out
