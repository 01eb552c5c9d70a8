"""Logistic-regression probes (NAME-Bench Table 8): Lookback Lens and the hidden-state probes.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> y = np.repeat([0, 1], 50)
>>> x = rng.normal(size=(100, 8)).astype(np.float32); x[:, 0] += 2 * y
>>> probe = HiddenStateProbe(columns=("h",)).fit({"h": x}, y)
>>> bool(probe.score({"h": x})[y == 1].mean() > probe.score({"h": x})[y == 0].mean())
True

- Lookback Lens: `LogisticRegression(max_iter=1000)` on the flattened (L, H) lookback ratios,
  as the official code (voidism/Lookback-Lens, step03) -- no scaling, no class weights. The
  official code labels *non*-hallucinated spans 1; we label hallucinations 1, which only flips
  the sign of the fitted weights (L2 regularisation is symmetric), so the ranking is the same.
- Hidden-state probes (mid / last layer, and the text-only LM probe on the text-only forward):
  features standardised with fit-set statistics, then `LogisticRegression(class_weight=
  "balanced", max_iter=1000)`.
The score is the predicted probability of "hallucinated" (its logit, `decision_function`, would
rank identically; the probability is kept for readability of thresholds).
scikit-learn is imported on first `fit`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from halluscope.detectors.base import FeatureTable, binary_labels, flat_matrix
from halluscope.errors import ConfigError


def _sklearn() -> Any:
    try:
        import sklearn.linear_model  # noqa: F401
        import sklearn.preprocessing  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigError("the trained probes need scikit-learn (pip install scikit-learn)"
                          ) from exc
    import sklearn
    return sklearn


class _LogisticProbe:
    trained = True
    standardize = False
    class_weight: str | None = None

    def __init__(self, name: str, columns: Sequence[str], max_iter: int = 1000, C: float = 1.0):
        self.name = name
        self.columns = tuple(columns)
        self.max_iter = max_iter
        self.C = C
        self._scaler: Any = None
        self._model: Any = None

    def fit(self, features: FeatureTable, labels: np.ndarray) -> "_LogisticProbe":
        sklearn = _sklearn()
        x = flat_matrix(features, self.columns, self.name)
        y = binary_labels(labels, len(x), self.name)
        self._scaler = None
        if self.standardize:
            self._scaler = sklearn.preprocessing.StandardScaler().fit(x)
            x = self._scaler.transform(x)
        # lbfgs is deterministic given the data: no seed needed.
        self._model = sklearn.linear_model.LogisticRegression(
            max_iter=self.max_iter, C=self.C, class_weight=self.class_weight)
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            self._model.fit(x, y)
        self.converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
        return self

    def score(self, features: FeatureTable) -> np.ndarray:
        if self._model is None:
            raise ConfigError(f"detector {self.name!r} is not fitted; call fit first")
        x = flat_matrix(features, self.columns, self.name)
        if self._scaler is not None:
            x = self._scaler.transform(x)
        return self._model.predict_proba(x)[:, 1].astype(np.float64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, columns={self.columns!r})"


class LookbackLens(_LogisticProbe):
    """Logistic regression on the flattened lookback ratios (official settings).

    >>> rng = np.random.default_rng(0); y = np.array([0, 1] * 20)
    >>> x = {"lookback_ratio_w4": rng.normal(size=(40, 2, 2)) - 2 * y[:, None, None]}
    >>> s = LookbackLens().fit(x, y).score(x); bool(s[y == 1].mean() > s[y == 0].mean())
    True
    """

    def __init__(self, name: str = "lookback_lens",
                 columns: Sequence[str] = ("lookback_ratio_w4",), max_iter: int = 1000,
                 C: float = 1.0):
        super().__init__(name, columns, max_iter, C)


class HiddenStateProbe(_LogisticProbe):
    """Standardised, class-balanced logistic regression on a hidden state (mid, last, text).

    >>> rng = np.random.default_rng(0); y = np.array([0, 0, 0, 1] * 10)  # imbalanced, as real
    >>> x = {"hidden_mid_w4": rng.normal(size=(40, 6)) * 50 + 40 * y[:, None]}  # unscaled
    >>> s = HiddenStateProbe().fit(x, y).score(x); bool(s[y == 1].mean() > s[y == 0].mean())
    True
    """

    standardize = True
    class_weight = "balanced"

    def __init__(self, name: str = "hidden_mid", columns: Sequence[str] = ("hidden_mid_w4",),
                 max_iter: int = 1000, C: float = 1.0):
        super().__init__(name, columns, max_iter, C)
