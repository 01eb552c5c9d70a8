"""Shared pieces of the detectors: the feature table, column checks, labels, layer scaling.

>>> features = {"nll": np.array([0.5, 2.0]), "image_attention": np.zeros((2, 32, 4))}
>>> feature(features, "image_attention", ndim=2, detector="svar").shape
(2, 32, 4)
>>> scaled_layers(5, 18, 32, 32)
(5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18)
>>> [(r[0], r[-1]) for r in (scaled_layers(5, 18, 32, 28), scaled_layers(5, 18, 32, 36))]
[(4, 16), (6, 20)]

A feature table maps a column name to a numpy array whose first axis is the mention; the rest of
the shape is the feature's (`FEATURE_SHAPES`; L layers, H heads, D hidden size).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from halluscope.errors import InputError

FeatureTable = Mapping[str, np.ndarray]

# Per-mention shape of each feature column written by `halluscope.signals` (without the mention
# axis). Attention layers are numbered 0..L-1.
FEATURE_SHAPES: dict[str, str] = {
    "image_attention": "(L, H): attention mass on the image tokens at the generation step",
    "image_attention_w4": "(L, H): the same, mean over the W4 window",
    "lookback_ratio_w4": "(L, H): Lookback Lens ratio, mean over W4",
    "pas_attention": "(H,): layer-0 attention mass on previously generated caption tokens",
    "dhcp_attention": "(L, H, 36): attention to the image-token grid pooled to 6x6",
    "hidden_mid_w4": "(D,): hidden state at index L/2, mean over W4",
    "hidden_last_w4": "(D,): hidden state at index L, mean over W4",
    "text_hidden_mid_w4": "(D,): as hidden_mid_w4, text-only forward pass",
    "halp_hidden": "(D,): last prompt token, last layer; one per caption, repeated per mention",
    "internal_confidence": "(): max logit-lens probability over layers and image tokens",
    "glsim_global": "(): cosine of object and global image representation",
    "glsim_local": "(): mean cosine to the top-k image tokens",
    "nll": "(): -log p(object token)",
    "entropy": "(): next-token entropy at the generation step (nats)",
    "caption_token_index": "(): position of the object token in the caption (tokens)",
    "mention_v_dlogp": "(): mean |delta log p(object)| over the visual perturbations (signals "
                       "--perturbations blur,crop,dark,noise)",
    "mention_l_logratio": "(): log p(object | blank image) - log p(object | image) (signals "
                          "--perturbations blank)",
}


@runtime_checkable
class Detector(Protocol):
    """A per-mention hallucination detector."""

    name: str
    trained: bool
    columns: tuple[str, ...]

    def fit(self, features: FeatureTable, labels: np.ndarray) -> "Detector":
        ...

    def score(self, features: FeatureTable) -> np.ndarray:
        ...


def feature(features: FeatureTable, column: str, ndim: int | None, detector: str) -> np.ndarray:
    """`features[column]` as float32, with `ndim` axes after the mention axis (None: any).

    >>> feature({"nll": np.zeros((3, 2))}, "nll", ndim=0, detector="nll")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    halluscope.errors.InputError: [nll]: feature 'nll' has shape (3, 2); expected (n,) per ...
    """
    if column not in features:
        have = ", ".join(sorted(features)) or "none"
        raise InputError(f"needs feature column {column!r} ({FEATURE_SHAPES.get(column, '?')}); "
                         f"have: {have}", item=detector)
    values = np.asarray(features[column])
    if values.dtype == object:
        raise InputError(f"feature {column!r} is ragged (rows of different shapes)",
                         item=detector)
    values = values.astype(np.float32, copy=False)
    if ndim is not None and values.ndim != ndim + 1:
        expected = "(n" + ", ?" * ndim + ")" if ndim else "(n,)"
        raise InputError(f"feature {column!r} has shape {values.shape}; expected {expected} per "
                         f"mention: {FEATURE_SHAPES.get(column, '').split(': ', 1)[-1]}",
                         item=detector)
    return values


def flat_matrix(features: FeatureTable, columns: Sequence[str], detector: str) -> np.ndarray:
    """The columns flattened per mention and concatenated: (n, total features), float32.

    Non-finite values are an error, because the classifiers would fail on them obscurely.
    """
    parts = [feature(features, c, None, detector) for c in columns]
    n = len(parts[0])
    matrix = np.concatenate([p.reshape(n, -1) for p in parts], axis=1)
    bad = ~np.isfinite(matrix).all(axis=1)
    if bad.any():
        raise InputError(f"{int(bad.sum())} of {n} mentions have NaN or infinite features in "
                         f"{', '.join(columns)}", item=detector)
    return matrix


def binary_labels(labels: Any, n: int, detector: str) -> np.ndarray:
    """Labels as int64 0/1 of length n; both classes must occur (a classifier needs them)."""
    y = np.asarray(labels)
    if y.shape != (n,):
        raise InputError(f"{y.shape[0] if y.ndim else 0} labels for {n} mentions",
                         item=detector)
    if not np.isin(y, (0, 1)).all():
        raise InputError("labels must be 0 (concrete / non-assertive) or 1 (hallucinated)",
                         item=detector)
    y = y.astype(np.int64)
    if y.min() == y.max():
        raise InputError(f"the fit set has only label {int(y[0])}; need both classes",
                         item=detector)
    return y


def scaled_layers(first: int, last: int, reference: int, num_layers: int) -> tuple[int, ...]:
    """Layers first..last (inclusive, 0-based) of a `reference`-layer model scaled to
    `num_layers`: each end is multiplied by num_layers/reference and rounded half up."""
    scale = num_layers / reference
    lo = int(math.floor(first * scale + 0.5))
    hi = min(num_layers - 1, int(math.floor(last * scale + 0.5)))
    return tuple(range(lo, hi + 1))


class TrainingFree:
    """Base of the detectors with no fitted parameters: `fit` checks nothing and returns self."""

    trained = False

    def __init__(self, name: str, columns: Sequence[str]):
        self.name = name
        self.columns = tuple(columns)

    def fit(self, features: FeatureTable, labels: np.ndarray) -> "TrainingFree":
        return self

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, columns={self.columns!r})"


def features_from_arrow(table: Any, columns: Sequence[str]) -> dict[str, np.ndarray]:
    """Columns of a pyarrow Table (nested lists of numbers, as `halluscope.signals` writes them)
    as dense numpy arrays (n, *shape). Every row of a column must have the same shape.

    >>> import pyarrow as pa
    >>> t = pa.table({"a": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], "b": [0.5, 1.5]})
    >>> {k: v.shape for k, v in features_from_arrow(t, ["a", "b"]).items()}
    {'a': (2, 2, 2), 'b': (2,)}
    """
    import pyarrow as pa

    out = {}
    for name in columns:
        if name not in table.column_names:
            raise InputError(f"no feature column {name!r}")
        column = table.column(name).combine_chunks()
        n = len(column)
        shape: list[int] = []
        while pa.types.is_list(column.type) or pa.types.is_large_list(column.type) \
                or pa.types.is_fixed_size_list(column.type):
            lengths = column.value_lengths().to_numpy(zero_copy_only=False)
            if column.null_count or len(lengths) == 0 or (lengths != lengths[0]).any():
                raise InputError(f"feature column {name!r} has missing or ragged rows")
            shape.append(int(lengths[0]))
            column = column.flatten()
        values = column.cast(pa.float32()).fill_null(float("nan")).to_numpy(
            zero_copy_only=False)
        out[name] = values.reshape((n, *shape))
    return out
