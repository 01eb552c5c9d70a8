"""Detectors on the mention-level perturbation signatures (`signals --perturbations`).

>>> import numpy as np
>>> from halluscope.detectors import get_detector
>>> features = {"mention_v_dlogp": np.array([2.0, 0.25]),
...             "mention_l_logratio": np.array([-3.0, 0.5])}
>>> [get_detector(n).score(features).tolist() for n in ("mention_v", "mention_l", "mention_vl")]
[[-2.0, -0.25], [-3.0, 0.5], [-5.0, 0.25]]

The reading (not from either paper, our hypothesis): a hallucinated object leans on the
language prior, so its probability barely moves when the image is degraded (low V) and is kept
when the image is removed (high L); a concrete one leans on the image (high V, low L). Higher
score = more likely hallucinated, as for every detector. The defaults read the log-scale
coordinates, in nats both: the clipped [0, 1] versions HalluPrism uses (Eq. 3's V, Eq. 4's
L_conf) saturate at 1 for every token whose probability rises without the image, and tied
scores cannot be thresholded at a 10% concrete FPR.
- `mention_v`: -V_m = -mean |delta log p| over the visual perturbations (`mention_v_dlogp`);
- `mention_l`: log p(blank) - log p(image) (`mention_l_logratio`);
- `mention_vl`: their sum, L - V_m (leans on the prior more than on the image);
any other coordinate of the same kind through `--detector-option`, e.g.
`mention_l.columns=mention_l_conf_w4` or `mention_v.columns=mention_v` (Eq. 3);
- `mention_probe`: the standardised, class-balanced logistic probe of the hidden-state probes
  on the full vector (`MENTION_VECTOR`: log-probability and log rank under every condition, all
  V and L coordinates and their W4 versions), fitted at every mixing budget.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from halluscope.detectors.base import FeatureTable, TrainingFree, feature
from halluscope.detectors.probes import HiddenStateProbe


def _scalar(features: FeatureTable, column: str, detector: str) -> np.ndarray:
    return feature(features, column, ndim=0, detector=detector).astype(np.float64)


class MentionV(TrainingFree):
    """-V_m of the object token: insensitive to a degraded image = more likely hallucinated.

    >>> MentionV().score({"mention_v_dlogp": np.array([0.5, 0.25])}).tolist()
    [-0.5, -0.25]
    """

    def __init__(self, name: str = "mention_v", columns: Sequence[str] = ("mention_v_dlogp",)):
        super().__init__(name, columns)

    def score(self, features: FeatureTable) -> np.ndarray:
        return -_scalar(features, self.columns[0], self.name)


class MentionL(TrainingFree):
    """L of the object token: probability kept without the image = more likely hallucinated.

    >>> MentionL().score({"mention_l_logratio": np.array([-2.5, 0.5])}).tolist()
    [-2.5, 0.5]
    """

    def __init__(self, name: str = "mention_l",
                 columns: Sequence[str] = ("mention_l_logratio",)):
        super().__init__(name, columns)

    def score(self, features: FeatureTable) -> np.ndarray:
        return _scalar(features, self.columns[0], self.name)


class MentionVL(TrainingFree):
    """L - V: leans on the language prior more than on the image (columns: V, then L).

    >>> MentionVL().score({"mention_v_dlogp": np.array([0.5]),
    ...                    "mention_l_logratio": np.array([1.0])})
    array([0.5])
    """

    def __init__(self, name: str = "mention_vl",
                 columns: Sequence[str] = ("mention_v_dlogp", "mention_l_logratio")):
        super().__init__(name, columns)

    def score(self, features: FeatureTable) -> np.ndarray:
        return (_scalar(features, self.columns[1], self.name)
                - _scalar(features, self.columns[0], self.name))


class MentionProbe(HiddenStateProbe):
    """Logistic probe on the full mention-signature vector; ranks enter as log(rank).

    >>> rng = np.random.default_rng(0); y = np.array([0, 0, 0, 1] * 10)
    >>> x = {"mention_l_conf": rng.uniform(size=40) * 0.5 + 0.5 * y,
    ...      "mention_rank_clean": rng.integers(1, 50_000, size=40)}
    >>> probe = MentionProbe(columns=tuple(x)).fit(x, y); s = probe.score(x)
    >>> bool(s[y == 1].mean() > s[y == 0].mean())
    True

    Ranks run from 1 to the vocabulary size; their logarithm keeps the few huge ones from
    dominating the standardised features.
    """

    def __init__(self, name: str = "mention_probe", columns: Sequence[str] = (),
                 max_iter: int = 1000, C: float = 1.0):
        super().__init__(name, columns, max_iter, C)

    def _logged(self, features: FeatureTable) -> dict[str, np.ndarray]:
        out = dict(features)
        for column in self.columns:
            if "_rank_" in column and column in out:
                out[column] = np.log(np.maximum(np.asarray(out[column], dtype=np.float64), 1.0))
        return out

    def fit(self, features: FeatureTable, labels: np.ndarray) -> "MentionProbe":
        super().fit(self._logged(features), labels)
        return self

    def score(self, features: FeatureTable) -> np.ndarray:
        return super().score(self._logged(features))
