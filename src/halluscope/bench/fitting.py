"""The protocol's fit step, once: which mentions a detector is fitted on, in which mixing order,
and the scores it then gives. The runner, the as-published scores and every appendix table call it.

>>> from halluscope.bench.protocol import MentionTable
>>> rng = np.random.default_rng(0)
>>> labels = rng.choice(["concrete", "hallucinated", "non_assertive"], 120, p=[.7, .2, .1])
>>> table = MentionTable.from_columns([str(i // 2) for i in range(120)], labels,
...     [("hedged" if l == "non_assertive" else None) for l in labels])
>>> features = {"nll": rng.normal(size=120)}
>>> codes = np.zeros(120, dtype=np.int8); codes[60:] = 2
>>> pool = mix_pool(table, codes, seed=0)          # the fit set's non-assertive mentions
>>> scores = fit_scores("nll", {}, table, features, codes, pool[:3], seed=0)
>>> scores.shape, scores.dtype
((120,), dtype('float64'))

The fit set of seed s at mixing budget m: the fit split's concrete and hallucinated mentions
(label 1 = hallucinated) and the first m of its non-assertive mentions (label 0) in a fixed
random order, blake2b of the seed and the mention key, so budgets are nested and no row order
or batch size changes them. Trained detectors get the seed as their own seed and score every
non-fit row (fit rows keep 0.0: they are never evaluated); training-free detectors score every
row, and a `cache` lets callers score them once for all seeds and budgets.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Callable, Mapping, MutableMapping, Sequence

import numpy as np

from halluscope.errors import ConfigError

if TYPE_CHECKING:
    from halluscope.bench.protocol import MentionTable

# Rows scored per call: bounds the memory of copies of large features (hidden states).
SCORE_CHUNK = 4096
Progress = Callable[[str], None]


def take(features: Mapping[str, np.ndarray], columns: Sequence[str], rows: np.ndarray
         ) -> dict[str, np.ndarray]:
    """The `rows` of the `columns` of `features` that exist.

    >>> take({"a": np.arange(4), "b": np.arange(4)}, ["a", "c"], np.array([1, 3]))
    {'a': array([1, 3])}
    """
    return {c: np.asarray(features[c])[rows] for c in columns if c in features}


def score_rows(detector: Any, features: Mapping[str, np.ndarray], rows: np.ndarray,
               chunk: int = SCORE_CHUNK) -> np.ndarray:
    """`detector`'s float64 scores of `rows`, `chunk` rows at a time.

    >>> class Sum:
    ...     columns = ["x"]
    ...     def score(self, f): return f["x"].sum(axis=1)
    >>> score_rows(Sum(), {"x": np.ones((5, 2))}, np.arange(5), chunk=2).tolist()
    [2.0, 2.0, 2.0, 2.0, 2.0]
    """
    parts = [np.asarray(detector.score(take(features, detector.columns, rows[i:i + chunk])),
                        dtype=np.float64) for i in range(0, len(rows), chunk)]
    return np.concatenate(parts) if parts else np.zeros(0)


def mix_order(keys: np.ndarray, seed: int) -> np.ndarray:
    """Positions of `keys` in the seed's mixing order (blake2b of seed and key, then the key).

    >>> mix_order(np.array(["a", "b", "c"]), 0).tolist() == mix_order(np.array(["a", "b", "c"]), 0).tolist()
    True
    >>> sorted(mix_order(np.array(["a", "b", "c"]), 1).tolist())
    [0, 1, 2]
    """
    digests = [hashlib.blake2b(f"{seed}:mix:{k}".encode("utf-8"), digest_size=8).digest()
               for k in keys]
    return np.array(sorted(range(len(keys)), key=lambda i: (digests[i], keys[i])), dtype=np.int64)


def mix_pool(table: MentionTable, codes: np.ndarray, seed: int,
             keep: np.ndarray | None = None) -> np.ndarray:
    """The fit split's non-assertive rows (optionally only `keep` rows) in the mixing order: the
    first m of them are what budget m mixes in.

    >>> from halluscope.bench.protocol import MentionTable
    >>> t = MentionTable.from_columns(list("abcd"), ["non_assertive"] * 3 + ["concrete"],
    ...                               ["hedged"] * 3 + [None])
    >>> sorted(mix_pool(t, np.array([0, 0, 2, 0]), 0).tolist())
    [0, 1]
    """
    rows = np.flatnonzero((codes == 0) & (table.label == "non_assertive")
                          & (True if keep is None else keep))
    return rows[mix_order(table.mention_keys()[rows], seed)]


def budget_count(budget: str, n_halluc: int, n_training: int, n_available: int,
                 natural_share: float | None) -> tuple[int, str | None]:
    """How many non-assertive mentions a budget adds, and a note when it is capped.

    >>> budget_count("30", 100, 500, 20, None)
    (20, 'budget 30: 30 wanted, 20 available')
    >>> budget_count("nat", 100, 990, 50, 0.01)
    (10, None)
    """
    if budget == "0":
        return 0, None
    if budget == "max":
        return n_available, None
    if budget == "nat":
        if natural_share is None or not 0 <= natural_share < 1:
            raise ConfigError("budget 'nat' needs natural_share in [0, 1) (the model's share of "
                              "non-assertive mentions, Table 1)")
        wanted = int(round(natural_share * n_training / (1.0 - natural_share)))
    else:
        try:
            percent = float(budget)
        except ValueError:
            raise ConfigError(f"unknown budget {budget!r}; use a percentage, 'nat' or 'max'"
                              ) from None
        wanted = int(round(percent / 100.0 * n_halluc))
    if wanted > n_available:
        return n_available, f"budget {budget}: {wanted} wanted, {n_available} available"
    return wanted, None


def base_rows(table: MentionTable, codes: np.ndarray) -> np.ndarray:
    """The fit split's concrete and hallucinated rows: every budget's fit set starts from them."""
    return np.flatnonzero((codes == 0) & (table.label != "non_assertive"))


def mixed_count(budget: str, table: MentionTable, codes: np.ndarray, n_available: int,
                natural_share: float | None) -> tuple[int, str | None]:
    """`budget_count` for this split: the fit split's hallucinations and training mentions.

    >>> from halluscope.bench.protocol import MentionTable
    >>> t = MentionTable.from_columns(list("abcd"), ["concrete", "hallucinated"] * 2)
    >>> mixed_count("nat", t, np.zeros(4, dtype=np.int8), 10, 0.2)
    (1, None)
    """
    n_halluc = int(((codes == 0) & (table.label == "hallucinated")).sum())
    return budget_count(budget, n_halluc, len(base_rows(table, codes)), n_available,
                        natural_share)


def fit_detector(name: str, options: Mapping[str, Any], table: MentionTable,
                 features: Mapping[str, np.ndarray], codes: np.ndarray, mixed: np.ndarray,
                 seed: int, progress: Progress | None = None) -> Any:
    """Detector `name` fitted on the split's base rows plus the non-assertive rows `mixed`
    (label 0), with `seed` as its seed; training-free detectors are returned as built. Raises
    the detector's `HalluscopeError` on bad features."""
    from halluscope.detectors import get_detector

    detector = get_detector(name, **options)
    if detector.trained:
        _fit(detector, name, table, features, codes, mixed, seed, progress)
    return detector


def _fit(detector: Any, name: str, table: MentionTable, features: Mapping[str, np.ndarray],
         codes: np.ndarray, mixed: np.ndarray, seed: int, progress: Progress | None) -> None:
    if hasattr(detector, "seed"):
        detector.seed = int(seed)
    rows = np.sort(np.concatenate([base_rows(table, codes), np.asarray(mixed, dtype=np.int64)]))
    if progress:
        progress(f"seed {seed}: fitting {name} on {len(rows)} mentions ({len(mixed)} "
                 "non-assertive)")
    detector.fit(take(features, detector.columns, rows),
                 (table.label[rows] == "hallucinated").astype(np.int64))


def fit_scores(name: str, options: Mapping[str, Any], table: MentionTable,
               features: Mapping[str, np.ndarray], codes: np.ndarray, mixed: np.ndarray,
               seed: int, cache: MutableMapping[str, np.ndarray | str] | None = None,
               progress: Progress | None = None) -> np.ndarray | str:
    """Scores of `fit_detector(...)` on every non-fit row (0.0 on fit rows; training-free
    detectors: every row, kept in `cache` by name since no seed or budget changes them), or the
    failure message."""
    from halluscope.detectors import get_detector
    from halluscope.errors import HalluscopeError

    detector = get_detector(name, **options)
    if not detector.trained and cache is not None and name in cache:
        return cache[name]
    out: np.ndarray | str
    try:
        if not detector.trained:
            out = score_rows(detector, features, np.arange(len(table)))
        else:
            _fit(detector, name, table, features, codes, mixed, seed, progress)
            scored = np.flatnonzero(codes != 0)
            out = np.zeros(len(table))
            out[scored] = score_rows(detector, features, scored)
    except HalluscopeError as exc:
        out = str(exc)
    if not detector.trained and cache is not None:
        cache[name] = out
    return out
