"""Ratios with 95% image-bootstrap confidence intervals (NAME-Bench Table 1).

>>> import numpy as np
>>> r = bootstrap_ratio(np.array([1, 0, 2, 1]), np.array([2, 2, 2, 2]), n_resamples=200, seed=0)
>>> round(r.value, 3), r.low <= r.value <= r.high
(0.5, True)

Mentions of one image are not independent, so the unit of resampling is the image: each resample
draws images with replacement and recomputes sum(numerator) / sum(denominator).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class RatioEstimate:
    value: float | None
    low: float | None
    high: float | None
    numerator: int
    denominator: int

    def to_dict(self) -> dict:
        return asdict(self)

    def format(self, percent: bool = True) -> str:
        if self.value is None:
            return "n/a"
        scale, unit = (100.0, "%") if percent else (1.0, "")
        return f"{self.value * scale:.1f}{unit} [{self.low * scale:.1f}, {self.high * scale:.1f}]"


def bootstrap_ratio(numerator: np.ndarray, denominator: np.ndarray, n_resamples: int = 1000,
                    seed: int = 0, confidence: float = 0.95) -> RatioEstimate:
    """Ratio of sums over units (images) with a percentile bootstrap interval.

    `numerator[i]` and `denominator[i]` are the counts of image i. Resamples whose denominator is
    zero are left out of the percentile computation (they carry no estimate).
    """
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    total_num, total_den = int(numerator.sum()), int(denominator.sum())
    if total_den == 0:
        return RatioEstimate(None, None, None, total_num, total_den)
    value = total_num / total_den
    rng = np.random.default_rng(seed)
    n = len(numerator)
    picks = rng.integers(0, n, size=(n_resamples, n))
    nums, dens = numerator[picks].sum(axis=1), denominator[picks].sum(axis=1)
    valid = dens > 0
    ratios = nums[valid] / dens[valid]
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(ratios, [alpha, 1.0 - alpha])
    return RatioEstimate(value, float(low), float(high), total_num, total_den)
