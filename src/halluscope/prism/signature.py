"""Perturbation-response signature s(x) = (V, L, A): the paper's equations and the reference preset.

>>> probes = ProbeSet(answer="true", confidence=0.9,
...                   perturbed=(("blur", "false", 0.8), ("crop", "true", 0.9)),
...                   blank_answer="true", blank_confidence=0.45,
...                   ground_answer="true", ground_confidence=0.7)
>>> paper_signature(probes).rounded()
{'v': 0.34, 'l_conf': 0.5, 'l_persist': 0.5, 'l_match': 1.0, 'l_stable': 0.5, 'a': 0.2}
>>> [round(x, 6) for x in compute_signature(probes, "reference")]
[0.34, 0.5, 0.2]

Two ways of turning the same probe answers into scores:

* `paper_*` functions follow the HalluPrism paper's equations (Eqs. 3-6 and Appendix 10.1):
  answers are compared after the Appendix 9.5 normalisation, L has an epsilon in its
  denominator, and A mixes the grounding re-check penalty P_g with the relation-swap penalty P_r
  (lambda = 0.6) when a relation-swapped answer is available.
* `reference_*` functions are what the released reference code computed (the "reference"
  preset): raw string comparison of its already-parsed answers, no epsilon, and for yes/no
  tasks a negation probe instead of the relation swap. Recomputing the released rows with this
  preset reproduces their stored v_score / lp_score / a_score exactly.

All functions are pure: they take per-item probe results and return floats.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

#: The paper's weight of the relation-swap penalty in A (Eq. 6).
LAMBDA = 0.6
#: Epsilon in the denominator of L_conf (Eq. 4); the paper does not print its value.
EPSILON = 1e-8
#: Floor of the clean confidence in L_stable. The paper calls L_stable "floored denominator"
#: without the floor's value; 0.1 is our choice (released confidences are mostly near 1, so the
#: floor rarely binds, which is consistent with L_stable and L_persist sharing every figure in
#: the paper's Table 10).
STABLE_FLOOR = 0.1

_BINARY_PREFIX = re.compile(r"^(yes|no|true|false)\b")
_PUNCT = re.compile(r"[^\w\s]")
_OPPOSITE = {"yes": "no", "no": "yes", "true": "false", "false": "true"}


def normalize_answer(text: str | None) -> str:
    """Appendix 9.5 normalisation; '' means nothing usable was said.

    >>> normalize_answer("Yes, it is."), normalize_answer(" True"), normalize_answer("A red Car!")
    ('yes', 'true', 'a red car')
    >>> normalize_answer(None), normalize_answer("  ...  ")
    ('', '')

    A leading yes/no/true/false word (followed by anything that is not a letter) is the binary
    label; otherwise the text is lowercased, stripped of punctuation and its spaces collapsed.
    """
    if text is None:
        return ""
    lowered = " ".join(str(text).lower().split())
    match = _BINARY_PREFIX.match(lowered)
    if match:
        return match.group(1)
    return " ".join(_PUNCT.sub(" ", lowered).split())


def answers_match(a: str | None, b: str | None) -> bool:
    """True when both answers normalise to the same non-empty text.

    >>> answers_match("Yes.", "yes"), answers_match("yes", "no"), answers_match("", "")
    (True, False, False)

    An empty answer never matches: an answer that was not given cannot have persisted.
    """
    na, nb = normalize_answer(a), normalize_answer(b)
    return bool(na) and na == nb


def _mean(values: Sequence[float]) -> float:
    if not values:
        raise ValueError("needs at least one value")
    return sum(values) / len(values)


def _unit(name: str, value: float) -> float:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


# ---------------------------------------------------------------------------------------------
# Paper equations
# ---------------------------------------------------------------------------------------------

def paper_v(answer: str, confidence: float, perturbed: Sequence[tuple[str, float]]) -> float:
    """Eq. 3: V = 0.6 * mean flip + 0.4 * min(2 * mean |delta c|, 1) over the K visual probes.

    >>> round(paper_v("yes", 0.9, [("no", 0.6), ("Yes.", 0.9), ("yes", 0.8), ("yes", 0.9)]), 6)
    0.23
    """
    if not perturbed:
        raise ValueError("V needs at least one visual perturbation")
    c = _unit("confidence", confidence)
    flips = [0.0 if answers_match(answer, ans) else 1.0 for ans, _ in perturbed]
    deltas = [abs(c - _unit("perturbed confidence", conf)) for _, conf in perturbed]
    return 0.6 * _mean(flips) + 0.4 * min(2.0 * _mean(deltas), 1.0)


def paper_l_conf(confidence: float, blank_confidence: float, eps: float = EPSILON) -> float:
    """Eq. 4: L_conf = min(c(blank) / (c + eps), 1), confidence retained after image removal.

    >>> round(paper_l_conf(0.8, 0.4), 6), paper_l_conf(0.5, 0.9)
    (0.5, 1.0)
    """
    c = _unit("confidence", confidence)
    return min(_unit("blank confidence", blank_confidence) / (c + eps), 1.0)


def paper_l_persist(answer: str, blank_answer: str, confidence: float, blank_confidence: float,
                    eps: float = EPSILON) -> float:
    """Eq. 5: L_persist = 1[match(answer, blank answer)] * L_conf.

    >>> round(paper_l_persist("no", "No", 0.8, 0.4), 6), paper_l_persist("no", "yes", 0.8, 0.4)
    (0.5, 0.0)
    """
    return paper_l_match(answer, blank_answer) * paper_l_conf(confidence, blank_confidence, eps)


def paper_l_match(answer: str, blank_answer: str) -> float:
    """Appendix 10.1: L_match = 1[match(answer, blank answer)].

    >>> paper_l_match("yes", "Yes!"), paper_l_match("yes", "")
    (1.0, 0.0)
    """
    return 1.0 if answers_match(answer, blank_answer) else 0.0


def paper_l_stable(answer: str, blank_answer: str, confidence: float, blank_confidence: float,
                   floor: float = STABLE_FLOOR) -> float:
    """Appendix 10.1 "floored denominator": 1[match] * min(c(blank) / max(c, floor), 1).

    >>> round(paper_l_stable("yes", "yes", 0.02, 0.01), 6), round(paper_l_stable("yes", "yes", 0.8, 0.4), 6)
    (0.1, 0.5)

    The floor keeps a near-zero clean confidence from turning any blank-image confidence into
    full retention (with L_conf, 0.01 / 0.02 would give 0.5).
    """
    if not floor > 0:
        raise ValueError("floor must be positive")
    c = _unit("confidence", confidence)
    ratio = min(_unit("blank confidence", blank_confidence) / max(c, floor), 1.0)
    return paper_l_match(answer, blank_answer) * ratio


def paper_grounding_penalty(answer: str, confidence: float, ground_answer: str,
                            ground_confidence: float) -> float:
    """Eq. 6: P_g = 0.5 * flip(answer, grounded answer) + min(|delta c|, 0.5).

    >>> paper_grounding_penalty("true", 0.9, "false", 0.6), paper_grounding_penalty("true", 0.9, "True.", 0.9)
    (0.8, 0.0)
    """
    flipped = 0.0 if answers_match(answer, ground_answer) else 1.0
    delta = abs(_unit("confidence", confidence) - _unit("grounding confidence", ground_confidence))
    return 0.5 * flipped + min(delta, 0.5)


def paper_relation_penalty(answer: str, relation_answer: str | None) -> float | None:
    """Eq. 6: P_r = 1[norm(relation-swapped answer) = norm(answer)]; None when not available.

    >>> paper_relation_penalty("true", "True"), paper_relation_penalty("true", "false")
    (1.0, 0.0)
    >>> paper_relation_penalty("true", None) is None
    True

    Keeping the same verdict after the relation is swapped ("left of" -> "right of") is the
    binding failure, so a persisting answer is the penalised case.
    """
    if relation_answer is None:
        return None
    return 1.0 if answers_match(answer, relation_answer) else 0.0


def paper_a(grounding_penalty: float, relation_penalty: float | None,
            lam: float = LAMBDA) -> float:
    """Eq. 6: A = min((1 - lambda) P_g + lambda P_r, 1) if the relation swap is available, else min(P_g, 1).

    >>> paper_a(0.8, 1.0), paper_a(0.8, None), round(paper_a(0.5, 0.0), 6)
    (0.92, 0.8, 0.2)
    """
    if relation_penalty is None:
        return min(grounding_penalty, 1.0)
    return min((1.0 - lam) * grounding_penalty + lam * relation_penalty, 1.0)


# ---------------------------------------------------------------------------------------------
# Reference code's formulas (the "reference" preset)
# ---------------------------------------------------------------------------------------------

def reference_v(flips: Sequence[bool], deltas: Sequence[float]) -> float:
    """V = 0.6 * flip_rate + 0.4 * min(2 * mean |delta c|, 1), from per-perturbation flips and |delta c|.

    >>> round(reference_v([True, False, False, False], [0.2, 0.0, 0.0, 0.0]), 6)
    0.19
    """
    if not flips or len(flips) != len(deltas):
        raise ValueError("need one |delta c| per perturbation, at least one")
    return 0.6 * _mean([1.0 if f else 0.0 for f in flips]) + 0.4 * min(2.0 * _mean(deltas), 1.0)


def reference_l(confidence: float, blank_confidence: float) -> float:
    """L = min(c_blank / c, 1), with no epsilon (the reference's formula).

    >>> reference_l(0.8, 0.4), reference_l(0.5, 0.9)
    (0.5, 1.0)
    """
    c = _unit("confidence", confidence)
    if c == 0.0:
        raise ValueError("clean confidence is 0: the reference ratio c_blank / c is undefined")
    return min(_unit("blank confidence", blank_confidence) / c, 1.0)


def reference_cot_penalty(answer: str, confidence: float, cot_answer: str,
                          cot_confidence: float) -> float:
    """cot_pen = 0.5 * [cot answer != answer] + min(|c - c_cot|, 0.5), comparing the raw parsed strings.

    >>> reference_cot_penalty("true", 0.9, "white dog on a surfboard", 0.8)
    0.6
    """
    changed = 1.0 if cot_answer != answer else 0.0
    return 0.5 * changed + min(abs(_unit("confidence", confidence)
                                   - _unit("cot confidence", cot_confidence)), 0.5)


def reference_negation_penalty(answer: str, negation_answer: str | None) -> float:
    """neg_pen = 0 if the negated question flipped the answer (yes<->no, true<->false), else 0.6.

    >>> reference_negation_penalty("yes", "No"), reference_negation_penalty("yes", "yes")
    (0.0, 0.6)
    >>> reference_negation_penalty("yes", None)
    0.6
    """
    flipped = (negation_answer is not None
               and _OPPOSITE.get(str(answer).lower()) == str(negation_answer).lower())
    return 0.0 if flipped else 0.6


def reference_a(answer: str, confidence: float, cot_answer: str, cot_confidence: float,
                negation_answer: str | None = None, yes_no: bool = False) -> float:
    """A = min(0.4 cot_pen + 0.6 neg_pen, 1) for yes/no tasks, else min(cot_pen, 1).

    >>> round(reference_a("yes", 0.9, "yes", 0.8, "yes", yes_no=True), 6)
    0.4
    >>> round(reference_a("true", 0.9, "false", 0.8), 6)
    0.6
    """
    cot_pen = reference_cot_penalty(answer, confidence, cot_answer, cot_confidence)
    if yes_no:
        return min(0.4 * cot_pen + 0.6 * reference_negation_penalty(answer, negation_answer), 1.0)
    return min(cot_pen, 1.0)


# ---------------------------------------------------------------------------------------------
# Whole signatures
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ProbeSet:
    """One item's probe answers: clean, K visual perturbations, blank image, grounding re-check.

    >>> ProbeSet("yes", 0.9, (("blur", "yes", 0.9),), "no", 0.8, "yes", 0.9).yes_no
    False

    `relation_answer` is the relation-swapped answer (VSR in the paper; absent from the released
    results), `negation_answer` the negated question's answer (the reference's yes/no probe) and
    `yes_no` whether the reference treated the task as yes/no (POPE, HallusionBench).
    """

    answer: str
    confidence: float
    perturbed: tuple[tuple[str, str, float], ...]
    blank_answer: str
    blank_confidence: float
    ground_answer: str
    ground_confidence: float
    relation_answer: str | None = None
    negation_answer: str | None = None
    yes_no: bool = False


@dataclass(frozen=True)
class PaperSignature:
    """V, the four L variants and A of one item, as the paper defines them.

    >>> PaperSignature(0.1, 0.9, 0.0, 0.0, 0.0, 0.2).triple()
    (0.1, 0.9, 0.2)
    """

    v: float
    l_conf: float
    l_persist: float
    l_match: float
    l_stable: float
    a: float

    def triple(self) -> tuple[float, float, float]:
        return (self.v, self.l_conf, self.a)

    def rounded(self, digits: int = 6) -> dict[str, float]:
        return {k: round(v, digits) for k, v in asdict(self).items()}


def paper_signature(p: ProbeSet, eps: float = EPSILON, floor: float = STABLE_FLOOR,
                    lam: float = LAMBDA) -> PaperSignature:
    """All of the paper's scores for one item (L = L_conf in the main results).

    >>> p = ProbeSet("true", 0.9, (("blur", "true", 0.9),), "false", 0.9, "true", 0.9, "true")
    >>> paper_signature(p).rounded()
    {'v': 0.0, 'l_conf': 1.0, 'l_persist': 0.0, 'l_match': 0.0, 'l_stable': 0.0, 'a': 0.6}
    """
    v = paper_v(p.answer, p.confidence, [(ans, conf) for _, ans, conf in p.perturbed])
    p_g = paper_grounding_penalty(p.answer, p.confidence, p.ground_answer, p.ground_confidence)
    p_r = paper_relation_penalty(p.answer, p.relation_answer)
    return PaperSignature(
        v=v,
        l_conf=paper_l_conf(p.confidence, p.blank_confidence, eps),
        l_persist=paper_l_persist(p.answer, p.blank_answer, p.confidence, p.blank_confidence, eps),
        l_match=paper_l_match(p.answer, p.blank_answer),
        l_stable=paper_l_stable(p.answer, p.blank_answer, p.confidence, p.blank_confidence, floor),
        a=paper_a(p_g, p_r, lam),
    )


def reference_signature(p: ProbeSet) -> tuple[float, float, float]:
    """(V, L, A) exactly as the reference code computed them.

    >>> p = ProbeSet("true", 0.9, (("blur", "false", 0.8),), "false", 0.45, "false", 0.9)
    >>> [round(x, 6) for x in reference_signature(p)]
    [0.68, 0.5, 0.5]

    Flips compare the raw parsed strings (the reference parsed answers before storing them), so
    a chain-of-thought answer that its first-line parser could not read counts as changed.
    """
    c = _unit("confidence", p.confidence)
    flips = [ans != p.answer for _, ans, _ in p.perturbed]
    deltas = [abs(c - _unit("perturbed confidence", conf)) for _, _, conf in p.perturbed]
    return (reference_v(flips, deltas),
            reference_l(p.confidence, p.blank_confidence),
            reference_a(p.answer, p.confidence, p.ground_answer, p.ground_confidence,
                        p.negation_answer, p.yes_no))


PRESETS: dict[str, Callable[[ProbeSet], tuple[float, float, float]]] = {
    "paper": lambda p: paper_signature(p).triple(),
    "reference": reference_signature,
}


def compute_signature(p: ProbeSet, preset: str = "paper") -> tuple[float, float, float]:
    """(V, L, A) of one item under a named preset: "paper" or "reference".

    >>> p = ProbeSet("no", 0.5, (("noise", "no", 0.5),), "no", 0.5, "no", 0.5)
    >>> [round(x, 6) for x in compute_signature(p, "reference")]
    [0.0, 1.0, 0.0]
    """
    try:
        fn = PRESETS[preset]
    except KeyError:
        raise ValueError(f"unknown preset {preset!r} (known: {', '.join(PRESETS)})") from None
    return fn(p)
