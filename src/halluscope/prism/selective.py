"""Correctness ranking: AUROC with mid-ranks, selective accuracy, risk-coverage and AURC.

>>> auroc([0.9, 0.8, 0.8, 0.1], [True, True, False, False])
0.875

Ties are handled, never broken by sort order: AUROC is the Mann-Whitney statistic with mid-ranks
(`halluscope.ranking`, shared with the bench; a tied correct/incorrect pair counts one half), and selective accuracy at a coverage whose cut
falls inside a group of tied scores is the expected accuracy when the tied items are admitted
in random order. Source-aware scalarizations tie a lot (c * (1 - max(V, L, A)) is exactly 0
whenever L = 1), so a sort-order tie-break would make their figures depend on the input order.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from halluscope.ranking import auc

#: Coverages of the risk-coverage curve: 5%, 10%, ..., 100%, as in the paper's Table 34.
CURVE_COVERAGES = tuple(i / 20 for i in range(1, 21))


def _arrays(scores: Sequence[float], correct: Sequence[bool]) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=float)
    y = np.asarray(correct, dtype=bool)
    if s.shape != y.shape or s.ndim != 1:
        raise ValueError("scores and correctness flags must be two sequences of the same length")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    return s, y


def auroc(scores: Sequence[float], correct: Sequence[bool]) -> float | None:
    """P(score of a correct item > score of a wrong one), ties counted 1/2; None if one class is empty.

    >>> auroc([0.5, 0.5], [True, False]), auroc([0.2, 0.9], [True, True]) is None
    (0.5, True)
    """
    s, y = _arrays(scores, correct)
    return auc(s[y], s[~y])


def auroc_tie_range(scores: Sequence[float], correct: Sequence[bool]
                    ) -> tuple[float, float] | None:
    """The AUROC when every tied correct/wrong pair is ordered against the correct item, and
    when every one is ordered for it: the range a sort-order tie-break can land anywhere in
    (`auroc` is its midpoint). None if one class is empty.

    >>> auroc_tie_range([0.9, 0.5, 0.5, 0.1], [True, True, False, False])
    (0.75, 1.0)
    """
    s, y = _arrays(scores, correct)
    pos, neg = np.sort(s[y]), np.sort(s[~y])
    if not len(pos) or not len(neg):
        return None
    # Pairs (correct, wrong) with the correct item strictly above, and tied, by binary search.
    above = np.searchsorted(neg, pos, side="left").sum()
    tied = (np.searchsorted(neg, pos, side="right") - np.searchsorted(neg, pos, side="left")).sum()
    total = len(pos) * len(neg)
    return float(above / total), float((above + tied) / total)


def expected_correct_at(scores: Sequence[float], correct: Sequence[bool]) -> np.ndarray:
    """E[#correct among the k highest scores] for k = 0..n, tied groups admitted in random order.

    >>> expected_correct_at([0.9, 0.5, 0.5, 0.1], [True, True, False, False]).tolist()
    [0.0, 1.0, 1.5, 2.0, 2.0]
    """
    s, y = _arrays(scores, correct)
    order = np.argsort(-s, kind="mergesort")
    sorted_s, sorted_y = s[order], y[order].astype(float)
    per_position = np.empty(len(s), dtype=float)
    starts = np.flatnonzero(np.r_[True, sorted_s[1:] != sorted_s[:-1]]) if len(s) else []
    ends = np.r_[starts[1:], len(s)] if len(s) else []
    for start, end in zip(starts, ends):
        # Within a tied group each admitted item is correct with the group's mean probability.
        per_position[start:end] = sorted_y[start:end].mean()
    return np.r_[0.0, np.cumsum(per_position)]


def n_answered(n: int, coverage: float) -> int:
    """Items answered at a coverage: floor(n * coverage), at least 1 (the reference's rule).

    >>> n_answered(340, 0.6), n_answered(3, 0.1)
    (204, 1)
    """
    if not 0.0 < coverage <= 1.0:
        raise ValueError("coverage must be in (0, 1]")
    # The small slack keeps 0.6 * 340 = 203.99999... from losing an item.
    return max(1, min(n, math.floor(n * coverage + 1e-9)))


def selective_accuracy(scores: Sequence[float], correct: Sequence[bool],
                       coverage: float) -> float | None:
    """Accuracy on the `coverage` fraction of items with the highest scores (None if no items).

    >>> selective_accuracy([0.9, 0.5, 0.5, 0.1], [True, True, False, False], 0.5)
    0.75
    """
    expected = expected_correct_at(scores, correct)
    n = len(expected) - 1
    if n == 0:
        return None
    k = n_answered(n, coverage)
    return float(expected[k] / k)


def risk_coverage(scores: Sequence[float], correct: Sequence[bool],
                  coverages: Sequence[float] = CURVE_COVERAGES) -> list[dict[str, float]]:
    """Selective risk (1 - selective accuracy) at each coverage.

    >>> risk_coverage([0.9, 0.1], [True, False], [0.5, 1.0])
    [{'coverage': 0.5, 'n_answered': 1, 'selective_accuracy': 1.0, 'risk': 0.0}, {'coverage': 1.0, 'n_answered': 2, 'selective_accuracy': 0.5, 'risk': 0.5}]
    """
    expected = expected_correct_at(scores, correct)
    n = len(expected) - 1
    if n == 0:
        return []
    points = []
    for coverage in coverages:
        k = n_answered(n, coverage)
        acc = float(expected[k] / k)
        points.append({"coverage": coverage, "n_answered": k, "selective_accuracy": acc,
                       "risk": 1.0 - acc})
    return points


def aurc(scores: Sequence[float], correct: Sequence[bool]) -> float | None:
    """Area under the risk-coverage curve: mean selective risk over k = 1..n answered items.

    >>> aurc([0.9, 0.1], [True, False]), aurc([0.1, 0.9], [True, False])
    (0.25, 0.75)

    Lower is better; a perfect ranking reaches the minimum for its accuracy.
    """
    expected = expected_correct_at(scores, correct)
    n = len(expected) - 1
    if n == 0:
        return None
    k = np.arange(1, n + 1, dtype=float)
    return float(np.mean(1.0 - expected[1:] / k))
