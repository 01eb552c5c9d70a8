"""Released HalluPrism result rows: discovery, validation, de-duplication and strict correctness.

>>> judge("True.", "true"), judge("let's think step by step", "true"), judge("", "false")
(Correctness(correct=True, parsed=True), Correctness(correct=False, parsed=False), Correctness(correct=False, parsed=False))

Layout: `DIR/<model>/<dataset>.jsonl`, one JSON object per line, as the reference code's
`results/decomposition` and `results/intervention` folders. Every problem with a row is an
`InputError` naming `file:line` and the field. Rows repeating an earlier `sample_id` are
dropped and counted (some released files contain duplicated rows); rows the reference marked
as skipped are dropped and counted too.

Correctness is recomputed from the prediction and the gold answer, never taken on trust: an
empty or unparseable prediction is wrong (and counted as unparsed), whatever a stored flag says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from halluscope.errors import InputError
from halluscope.io.jsonl import read_jsonl
from halluscope.prism.signature import ProbeSet, normalize_answer

#: Predictions the reference wrote for items it could not run; such rows are not results.
SKIP_MARKERS = ("[skipped_no_image]", "[image_load_error]")
#: Fields that legitimately differ between two copies of the same logged row.
VOLATILE_FIELDS = frozenset({"_logged_at", "inference_time_s", "_experiment"})
#: Task types the reference gave the negation probe (POPE, HallusionBench).
YES_NO_TASKS = frozenset({"yes_no", "true_false"})
_LABEL_PAIRS = ({"yes", "no"}, {"true", "false"})


@dataclass(frozen=True)
class Correctness:
    """Whether a prediction is right, and whether it could be read at all.

    >>> Correctness(correct=False, parsed=False).correct
    False
    """

    correct: bool
    parsed: bool


def judge(prediction: Any, gold: Any, stored: bool | None = None) -> Correctness:
    """Strict correctness of one prediction against the gold answer.

    >>> judge("no", "yes"), judge(None, "yes", stored=True)
    (Correctness(correct=False, parsed=True), Correctness(correct=False, parsed=False))
    >>> judge("two dogs", "2", stored=True)
    Correctness(correct=True, parsed=True)

    Closed-label gold (yes/no, true/false): the prediction must normalise to a label of the same
    pair, else it is unparsed and wrong. Open-ended gold (e.g. VizWiz, scored by the reference
    against several annotators): a non-empty prediction keeps the stored flag when there is one
    (the gold field holds a single answer), else it needs an exact normalised match.
    """
    pred = normalize_answer(prediction) if isinstance(prediction, str) else ""
    gold_norm = normalize_answer(gold) if isinstance(gold, str) else ""
    for pair in _LABEL_PAIRS:
        if gold_norm in pair:
            if pred not in pair:
                return Correctness(False, False)
            return Correctness(pred == gold_norm, True)
    if not pred:
        return Correctness(False, False)
    if stored is not None:
        return Correctness(bool(stored), True)
    return Correctness(bool(gold_norm) and pred == gold_norm, True)


@dataclass
class FileStats:
    """What loading one file kept and dropped.

    >>> FileStats("m/vsr.jsonl").as_dict()["n_duplicates"]
    0
    """

    path: str
    n_lines: int = 0
    n_rows: int = 0
    n_duplicates: int = 0
    n_duplicate_conflicts: int = 0
    n_skipped: int = 0
    duplicate_ids: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.path, "n_lines": self.n_lines, "n_rows": self.n_rows,
                "n_duplicates": self.n_duplicates,
                "n_duplicate_conflicts": self.n_duplicate_conflicts,
                "n_skipped": self.n_skipped, "duplicate_ids": self.duplicate_ids[:20]}


def discover(results_dir: str | Path) -> list[tuple[str, str, Path]]:
    """`(model, dataset, path)` for every `DIR/<model>/<dataset>.jsonl`, sorted.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); (d / "qwen_vl").mkdir()
    >>> _ = (d / "qwen_vl" / "vsr.jsonl").write_text("")
    >>> [(m, ds) for m, ds, _ in discover(d)]
    [('qwen_vl', 'vsr')]
    """
    root = Path(results_dir)
    if not root.is_dir():
        raise InputError("results folder not found", path=root)
    found = [(p.parent.name, p.stem, p) for p in sorted(root.glob("*/*.jsonl"))
             if not p.parent.name.startswith(".")]
    if not found:
        raise InputError("no <model>/<dataset>.jsonl files in the results folder", path=root)
    return found


def _content(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in VOLATILE_FIELDS}


def read_rows(path: str | Path) -> tuple[list[tuple[int, dict[str, Any]]], FileStats]:
    """`(line, row)` pairs of one results file, first copy of each sample_id kept, plus counts.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "vsr.jsonl"
    >>> _ = p.write_text('{"sample_id": "a"}\\n{"sample_id": "a"}\\n{"sample_id": "b"}\\n')
    >>> rows, stats = read_rows(p)
    >>> [line for line, _ in rows], stats.n_duplicates
    ([1, 3], 1)
    """
    stats = FileStats(str(path))
    kept: list[tuple[int, dict[str, Any]]] = []
    first: dict[str, dict[str, Any]] = {}
    for line, row in read_jsonl(path):
        stats.n_lines += 1
        sample_id = row.get("sample_id")
        if not isinstance(sample_id, str) or not sample_id.strip():
            raise InputError(f"field 'sample_id' must be a non-empty string, got {sample_id!r}",
                             path=path, line=line)
        if row.get("skipped") or row.get("model_prediction") in SKIP_MARKERS:
            stats.n_skipped += 1
            continue
        if sample_id in first:
            # A repeated id is a re-logged row; if its content differs we still keep the first
            # copy (the reference's analyses would have counted both) but say so in the stats.
            stats.n_duplicates += 1
            stats.duplicate_ids.append(sample_id)
            if _content(row) != _content(first[sample_id]):
                stats.n_duplicate_conflicts += 1
            continue
        first[sample_id] = row
        kept.append((line, row))
    stats.n_rows = len(kept)
    return kept, stats


# ---------------------------------------------------------------------------------------------
# Field validation (one-line errors)
# ---------------------------------------------------------------------------------------------

def _fail(message: str, path: str | Path, line: int) -> InputError:
    return InputError(message, path=path, line=line)


def get_unit(row: dict[str, Any], key: str, path: str | Path, line: int) -> float:
    """A required number in [0, 1].

    >>> get_unit({"c": 0.5}, "c", "f.jsonl", 1)
    0.5
    >>> get_unit({"c": "high"}, "c", "f.jsonl", 2)
    Traceback (most recent call last):
    ...
    halluscope.errors.InputError: f.jsonl:2: field 'c' must be a number in [0, 1], got 'high'
    """
    if key not in row:
        raise _fail(f"missing field {key!r}", path, line)
    value = row[key]
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or not 0.0 <= value <= 1.0):
        raise _fail(f"field {key!r} must be a number in [0, 1], got {value!r}", path, line)
    return float(value)


def get_text(row: dict[str, Any], key: str, path: str | Path, line: int,
             nullable: bool = False, nonempty: bool = False) -> str | None:
    """A required string (None allowed when `nullable`; blank refused when `nonempty`).

    >>> get_text({"a": "yes"}, "a", "f.jsonl", 1), get_text({"a": None}, "a", "f.jsonl", 1, nullable=True)
    ('yes', None)
    """
    if key not in row:
        raise _fail(f"missing field {key!r}", path, line)
    value = row[key]
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise _fail(f"field {key!r} must be a string, got {value!r}", path, line)
    if nonempty and not value.strip():
        raise _fail(f"field {key!r} is empty", path, line)
    return value


def get_flag(row: dict[str, Any], key: str, path: str | Path, line: int,
             required: bool = True) -> bool | None:
    """A boolean field (None when absent and not required).

    >>> get_flag({"ok": True}, "ok", "f.jsonl", 1), get_flag({}, "ok", "f.jsonl", 1, required=False)
    (True, None)
    """
    if key not in row or row[key] is None:
        if required:
            raise _fail(f"missing field {key!r}", path, line)
        return None
    value = row[key]
    if not isinstance(value, bool):
        raise _fail(f"field {key!r} must be true or false, got {value!r}", path, line)
    return value


# ---------------------------------------------------------------------------------------------
# Typed rows
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DecompRow:
    """One decomposition result: clean answer, correctness, confidence and stored (V, L, A).

    >>> DecompRow("s1", 1, Correctness(True, True), None, 0.9, 0.1, 0.99, 0.2, True).correct
    True
    """

    sample_id: str
    line: int
    judged: Correctness
    stored_correct: bool | None
    confidence: float
    v: float
    l: float
    a: float
    lp_match: bool
    #: The clean and the blank-image answer as stored (for chance-adjusted agreement, §10.1).
    answer: str | None = None
    blank_answer: str | None = None

    @property
    def correct(self) -> bool:
        return self.judged.correct


def decomposition_row(row: dict[str, Any], path: str | Path, line: int) -> DecompRow:
    """Validate one decomposition row.

    >>> r = {"sample_id": "s", "gold_answer": "true", "model_prediction": "true", "is_correct": True,
    ...      "scalar_confidence": 0.9, "v_score": 0.1, "lp_score": 1.0, "a_score": 0.5,
    ...      "lp_answer_matches": False}
    >>> decomposition_row(r, "f.jsonl", 1).lp_match
    False
    """
    gold = get_text(row, "gold_answer", path, line, nonempty=True)
    prediction = get_text(row, "model_prediction", path, line, nullable=True)
    stored = get_flag(row, "is_correct", path, line, required=False)
    lp_match = get_flag(row, "lp_answer_matches", path, line, required=False)
    blank = (get_text(row, "lp_prediction", path, line, nullable=True)
             if "lp_prediction" in row else None)
    if lp_match is None:
        # Older rows carry only the blank-image answer; LP match is exact agreement with it.
        lp_match = blank is not None and blank == prediction
    return DecompRow(
        sample_id=row["sample_id"], line=line, judged=judge(prediction, gold, stored),
        stored_correct=stored, confidence=get_unit(row, "scalar_confidence", path, line),
        v=get_unit(row, "v_score", path, line), l=get_unit(row, "lp_score", path, line),
        a=get_unit(row, "a_score", path, line), lp_match=lp_match, answer=prediction,
        blank_answer=blank)


def probe_set(row: dict[str, Any], path: str | Path, line: int) -> ProbeSet:
    """The raw per-probe fields of a decomposition row, for recomputing (V, L, A).

    >>> r = {"model_prediction": "true", "scalar_confidence": 0.9, "task_type": "spatial",
    ...      "v_per_perturbation": {"blur": {"prediction": "false", "confidence": 0.8}},
    ...      "lp_prediction": "false", "lp_confidence": 0.45,
    ...      "cot_prediction": "a dog on a board", "cot_confidence": 0.9}
    >>> probe_set(r, "f.jsonl", 1).perturbed
    (('blur', 'false', 0.8),)
    """
    perturbations = row.get("v_per_perturbation")
    if not isinstance(perturbations, dict) or not perturbations:
        raise _fail("field 'v_per_perturbation' must be a non-empty object", path, line)
    perturbed = []
    for name, probe in perturbations.items():
        if not isinstance(probe, dict):
            raise _fail(f"v_per_perturbation[{name!r}] must be an object", path, line)
        answer = get_text(probe, "prediction", path, line, nullable=True)
        try:
            conf = get_unit(probe, "confidence", path, line)
        except InputError as exc:
            raise _fail(f"v_per_perturbation[{name!r}]: {exc.message}", path, line) from None
        perturbed.append((str(name), answer if answer is not None else "", conf))
    task_type = row.get("task_type")
    negation = row.get("negation_prediction")
    if negation is not None and not isinstance(negation, str):
        raise _fail(f"field 'negation_prediction' must be a string, got {negation!r}", path, line)
    yes_no = task_type in YES_NO_TASKS or negation is not None
    if task_type in YES_NO_TASKS and "negation_prediction" not in row:
        raise _fail(f"missing field 'negation_prediction' (task_type {task_type!r} had the "
                    "negation probe)", path, line)
    return ProbeSet(
        answer=get_text(row, "model_prediction", path, line, nullable=True) or "",
        confidence=get_unit(row, "scalar_confidence", path, line),
        perturbed=tuple(perturbed),
        blank_answer=get_text(row, "lp_prediction", path, line, nullable=True) or "",
        blank_confidence=get_unit(row, "lp_confidence", path, line),
        ground_answer=get_text(row, "cot_prediction", path, line, nullable=True) or "",
        ground_confidence=get_unit(row, "cot_confidence", path, line),
        relation_answer=get_text(row, "relation_prediction", path, line, nullable=True)
        if "relation_prediction" in row else None,
        negation_answer=negation, yes_no=yes_no)


@dataclass(frozen=True)
class InterventionRow:
    """One routing result: correctness with no intervention, the generic prompt and matched routing.

    >>> c = Correctness(True, True)
    >>> InterventionRow("s", 1, c, c, c, "language_prior", (0.1, 0.9, 0.2)).dominant_source
    'language_prior'
    """

    sample_id: str
    line: int
    original: Correctness
    generic: Correctness
    matched: Correctness
    dominant_source: str | None
    scores: tuple[float, float, float] | None
    #: Arms whose stored `<arm>_correct` flag disagrees with the recomputed correctness.
    flag_disagree: tuple[str, ...] = ()


def intervention_row(row: dict[str, Any], path: str | Path, line: int) -> InterventionRow:
    """Validate one intervention row; correctness of each arm recomputed from its prediction.

    >>> r = {"sample_id": "s", "gold_answer": "true", "original_prediction": "true",
    ...      "generic_prediction": "let's think step by step", "matched_prediction": "false"}
    >>> x = intervention_row(r, "f.jsonl", 1); x.original.correct, x.generic, x.matched.correct
    (True, Correctness(correct=False, parsed=False), False)
    """
    gold = get_text(row, "gold_answer", path, line, nonempty=True)
    arms = {}
    disagree = []
    for arm in ("original", "generic", "matched"):
        prediction = get_text(row, f"{arm}_prediction", path, line, nullable=True)
        stored = get_flag(row, f"{arm}_correct", path, line, required=False)
        arms[arm] = judge(prediction, gold, stored)
        if stored is not None and stored != arms[arm].correct:
            disagree.append(arm)
    scores = None
    if all(k in row for k in ("v_score", "lp_score", "a_score")):
        scores = tuple(get_unit(row, k, path, line) for k in ("v_score", "lp_score", "a_score"))
    source = row.get("dominant_source")
    return InterventionRow(row["sample_id"], line, arms["original"], arms["generic"],
                           arms["matched"], source if isinstance(source, str) else None, scores,
                           tuple(disagree))
