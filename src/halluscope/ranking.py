"""Ranking with ties: mid-ranks and the Mann-Whitney AUC, shared by the bench and HalluPrism.

>>> midranks(np.array([3.0, 1.0, 3.0, 2.0])).tolist()
[3.5, 1.0, 3.5, 2.0]
>>> auc(np.array([2.0, 3.0]), np.array([1.0, 2.0]))
0.875

Ties are never broken by sort order: tied values share the mean of their positions, so the AUC
counts a tie between a positive and a negative as 1/2.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def midranks(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """1-based ranks, tied values sharing the mean of their positions."""
    _, inverse, counts = np.unique(np.asarray(values, dtype=np.float64), return_inverse=True,
                                   return_counts=True)
    ends = np.cumsum(counts)
    return ((ends - counts + 1 + ends) / 2.0)[inverse]


def auc(positive: np.ndarray, negative: np.ndarray) -> float | None:
    """P(positive score > negative score) + 0.5 P(tie); None when a class is empty."""
    n_pos, n_neg = len(positive), len(negative)
    if n_pos == 0 or n_neg == 0:
        return None
    ranks = midranks(np.concatenate([positive, negative]).astype(np.float64))
    return float((ranks[:n_pos].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))
