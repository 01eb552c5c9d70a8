"""The NAME-Bench text filter (§5.2, Appendix E) as a usage judge: a fitted logistic regression on
the text-only features of a mention (`text_hidden_mid_w4`) that marks it non-assertive or not.

>>> import numpy as np
>>> model = TextFilterModel(coef=np.array([2.0, 0.0]), intercept=0.0,
...                         mean=np.zeros(2), std=np.ones(2))
>>> model.is_non_assertive(np.array([[1.0, 5.0], [-1.0, 5.0]])).tolist()
[True, False]

The model: standardise with the fit set's mean / std, then a class-balanced logistic regression
(non-assertive = 1 against concrete + hallucinated = 0), decision threshold fixed at 0.5 (no
tuning, as in the paper). `fit_text_filter` trains it (scikit-learn is imported then, never at
import time); `save` / `load` use JSON (or `.npz` without pickle): coefficients, intercept,
scaler mean and std, the feature column and the training counts.

The filter reads the captioning model's text-only hidden states, not the caption text, and the
`UsageJudge.label(captions, mentions)` interface carries only text. So the judge takes the
`halluscope signals` store of the same captions (`signals=DIR`; `halluscope label --judge
text_filter --text-filter FILTER.json --signals DIR`) and looks each mention's row up by
(caption text, span); without it `label()` raises a `ConfigError` that says so, and
`label_features(features)` labels feature rows directly. Fit and save a filter with `halluscope
bench fit-text-filter`. The filter does not predict a subtype, but `UsageLabel` requires one for
non-assertive mentions: it is set to "generic" as a placeholder and `reason` says so (do not read
it as a subtype).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from halluscope.errors import ConfigError, InputError
from halluscope.text.mentions import Mention
from halluscope.text.usage.base import JudgeFailure, UsageLabel

FEATURE_COLUMN = "text_hidden_mid_w4"
THRESHOLD = 0.5
FORMAT = "halluscope-text-filter/1"
# Subtype put on filtered mentions: UsageLabel needs one, the filter predicts none.
PLACEHOLDER_SUBTYPE = "generic"


@dataclass(frozen=True)
class TextFilterModel:
    """A fitted filter: p(non-assertive) = sigmoid(coef . (x - mean) / std + intercept)."""

    coef: np.ndarray
    intercept: float
    mean: np.ndarray
    std: np.ndarray
    column: str = FEATURE_COLUMN
    threshold: float = THRESHOLD
    n_train: dict[str, int] | None = None
    info: dict[str, Any] | None = None  # provenance (inputs, seed, held-out rates); JSON values

    def probability(self, features: np.ndarray) -> np.ndarray:
        """p(non-assertive) per row; rows are flattened to the fitted width.

        >>> m = TextFilterModel(np.array([1.0]), 0.0, np.zeros(1), np.ones(1))
        >>> m.probability(np.zeros((2, 1))).tolist()
        [0.5, 0.5]
        """
        x = np.asarray(features, dtype=np.float64).reshape(len(features), -1)
        if x.shape[1] != len(self.coef):
            raise InputError(f"the text filter was fitted on {len(self.coef)} features, got "
                             f"{x.shape[1]} ({self.column})")
        if not np.isfinite(x).all():
            raise InputError(f"NaN or infinite values in {self.column}")
        z = ((x - self.mean) / self.std) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-z))

    def is_non_assertive(self, features: np.ndarray) -> np.ndarray:
        """True where the filter marks the mention non-assertive (p > threshold, as sklearn's
        `predict` at 0.5)."""
        return self.probability(features) > self.threshold

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "column": self.column, "threshold": self.threshold,
                "coef": [float(v) for v in self.coef], "intercept": float(self.intercept),
                "mean": [float(v) for v in self.mean], "std": [float(v) for v in self.std],
                "n_train": dict(self.n_train or {}), "info": dict(self.info or {})}

    @classmethod
    def from_dict(cls, data: Any, source: str | None = None) -> "TextFilterModel":
        """Validate and build; anything malformed is an `InputError` naming `source`.

        >>> TextFilterModel.from_dict({"format": FORMAT, "coef": [1.0]}, "f.json")
        Traceback (most recent call last):
        ...
        halluscope.errors.InputError: f.json: text filter file lacks intercept, mean, std
        """
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise InputError(f"not a text filter file (format {found!r}, expected "
                             f"{FORMAT!r})", path=source)
        missing = [k for k in ("coef", "intercept", "mean", "std") if k not in data]
        if missing:
            raise InputError(f"text filter file lacks {', '.join(missing)}", path=source)
        try:
            coef, mean, std = (np.asarray(data[k], dtype=np.float64).reshape(-1)
                               for k in ("coef", "mean", "std"))
            model = cls(coef=coef, intercept=float(data["intercept"]), mean=mean, std=std,
                        column=str(data.get("column", FEATURE_COLUMN)),
                        threshold=float(data.get("threshold", THRESHOLD)),
                        n_train={k: int(v) for k, v in (data.get("n_train") or {}).items()},
                        info=dict(data.get("info") or {}))
        except (TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"malformed text filter values ({exc})", path=source) from None
        if not len(coef) == len(mean) == len(std) or not len(coef):
            raise InputError("coef, mean and std are empty or have different lengths",
                             path=source)
        if not all(np.isfinite(v).all() for v in (coef, mean, std, model.intercept)) \
                or (std <= 0).any():
            raise InputError("non-finite coefficients or non-positive scales", path=source)
        return model

    def save(self, path: str | Path) -> None:
        """JSON (any suffix but .npz) or .npz (arrays + a JSON header), written atomically."""
        from halluscope.io.atomic import atomic_path, write_json_atomic

        path = Path(path)
        if path.suffix != ".npz":
            write_json_atomic(path, self.to_dict())
            return
        header = {k: v for k, v in self.to_dict().items() if k not in ("coef", "mean", "std")}
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as handle:  # a file handle: np.savez would append ".npz"
                np.savez(handle, coef=self.coef, mean=self.mean, std=self.std,
                         header=np.asarray(json.dumps(header)))

    @classmethod
    def load(cls, path: str | Path) -> "TextFilterModel":
        path = Path(path)
        if not path.is_file():
            raise InputError("no such text filter file", path=path)
        if path.suffix == ".npz":
            import zipfile

            try:
                with np.load(path, allow_pickle=False) as npz:  # never unpickle model files
                    data = json.loads(str(npz["header"]))
                    if isinstance(data, dict):
                        data.update(coef=npz["coef"].tolist(), mean=npz["mean"].tolist(),
                                    std=npz["std"].tolist())
            except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
                # json.JSONDecodeError is a ValueError; np.load raises the others on a bad file
                raise InputError(f"not a text filter .npz ({type(exc).__name__}: {exc})",
                                 path=path) from None
        else:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise InputError(f"not JSON ({exc})", path=path) from None
        return cls.from_dict(data, str(path))


def fit_text_filter(features: np.ndarray, is_non_assertive: np.ndarray,
                    column: str = FEATURE_COLUMN, max_iter: int = 1000) -> TextFilterModel:
    """Fit the filter: standardise, then `LogisticRegression(class_weight="balanced")`.

    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([False, True], 40); x = rng.normal(size=(80, 3)); x[:, 0] += 3 * y
    >>> float(fit_text_filter(x, y).is_non_assertive(x)[y].mean()) > 0.8
    True
    """
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigError("the text filter needs scikit-learn (pip install scikit-learn)"
                          ) from exc
    x = np.asarray(features, dtype=np.float64).reshape(len(features), -1)
    y = np.asarray(is_non_assertive, dtype=bool)
    if len(x) != len(y):
        raise InputError(f"{len(y)} labels for {len(x)} feature rows ({column})")
    if not np.isfinite(x).all():
        raise InputError(f"NaN or infinite values in {column}")
    if y.all() or not y.any():
        raise InputError("the text filter needs both non-assertive and existential examples")
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    std = np.where(std > 0, std, 1.0)  # constant features: leave them unscaled (as sklearn)
    # lbfgs is deterministic given the data, so the filter is too.
    model = LogisticRegression(class_weight="balanced", max_iter=max_iter)
    model.fit((x - mean) / std, y.astype(np.int64))
    return TextFilterModel(coef=model.coef_[0].astype(np.float64),
                           intercept=float(model.intercept_[0]), mean=mean, std=std,
                           column=column, n_train={"non_assertive": int(y.sum()),
                                                   "existential": int((~y).sum())})


def signal_text_features(signals_dir: str | Path, column: str = FEATURE_COLUMN
                         ) -> dict[tuple[str, int, int], np.ndarray | None]:
    """{(caption text, start, end): feature row} from a `halluscope signals` store (`mentions/`
    for the spans and features, `captions/` for each caption's text); None where two captions of
    the same text give different rows (text-only states depend on the prompt too).

    Keyed by text, not caption index, because a judge sees caption texts only; the spans are
    those of `extract_mentions(caption_text)` on both sides, as in the bench join.
    """
    from halluscope.detectors.base import features_from_arrow
    from halluscope.runs.signal_store import SignalStore

    root = Path(signals_dir)
    store = SignalStore(root)
    mentions = store.read("mentions", ["caption_index", "start", "end", column])
    captions = store.read("captions", ["caption_index", "caption_text"])
    for where, table, needed in ((root / "mentions", mentions,
                                  ("caption_index", "start", "end", column)),
                                 (root / "captions", captions, ("caption_index", "caption_text"))):
        lacking = [c for c in needed if c not in table.column_names]
        if lacking:
            raise InputError(f"the signal store lacks column(s) {', '.join(lacking)}", path=where)
    text = dict(zip(captions.column("caption_index").to_pylist(),
                    captions.column("caption_text").to_pylist()))
    x = features_from_arrow(mentions, [column])[column].reshape(len(mentions), -1)
    out: dict[tuple[str, int, int], np.ndarray | None] = {}
    for i, (c, start, end) in enumerate(zip(mentions.column("caption_index").to_pylist(),
                                            mentions.column("start").to_pylist(),
                                            mentions.column("end").to_pylist())):
        if c not in text:
            continue  # a crash between a caption's mention and caption rows: redone on resume
        key = (str(text[c]), int(start), int(end))
        if key in out and (out[key] is None or not np.array_equal(out[key], x[i])):
            out[key] = None
        else:
            out[key] = x[i]
    return out


class TextFilterJudge:
    """The text filter as the "text_filter" usage judge (see the module docstring for why it
    needs the signal store to label caption text).

    >>> import numpy as np
    >>> model = TextFilterModel(coef=np.array([2.0]), intercept=0.0, mean=np.zeros(1),
    ...                         std=np.ones(1))
    >>> judge = TextFilterJudge(model=model)
    >>> [(l.usage, l.subtype) for l in judge.label_features(np.array([[1.0], [-1.0]]))]
    [('non_assertive', 'generic'), ('existential', None)]

    `signals`: a `halluscope signals` directory of the same captions; `label()` then looks up each
    mention's feature row by (caption text, span) and labels it, a mention without one (or with
    conflicting ones) becoming a `JudgeFailure`. Without it, only `label_features` works.
    """

    name = "text_filter"

    def __init__(self, path: str | Path | None = None, model: TextFilterModel | None = None,
                 signals: str | Path | None = None):
        if model is None:
            if path is None:
                raise ConfigError("the text_filter judge needs a fitted filter file: "
                                  "get_judge('text_filter', path=FILTER.json)")
            model = TextFilterModel.load(path)
        self.model = model
        self.signals = None if signals is None else Path(signals)
        self.features = (None if signals is None
                         else signal_text_features(signals, model.column))
        self.stats: dict[str, int] = {"labelled": 0, "no_features": 0, "conflicting": 0}

    @classmethod
    def from_file(cls, path: str | Path, signals: str | Path | None = None
                  ) -> "TextFilterJudge":
        return cls(path=path, signals=signals)

    def label(self, captions: Sequence[str], mentions: Sequence[Sequence[Mention]]
              ) -> list[list[UsageLabel | JudgeFailure]]:
        """Label from the signal store's feature rows (needs `signals`)."""
        if self.features is None:
            raise ConfigError(
                "the text_filter judge reads the captioning model's text-only hidden states "
                f"({self.model.column}), not the caption text: give it the `halluscope signals` "
                "store of these captions (signals=DIR; `halluscope label --signals DIR`), or "
                "call label_features(features) on the store's rows")
        out: list[list[Any]] = []  # None until the batched filter call below fills it
        wanted: list[tuple[int, int, np.ndarray]] = []
        for i, (caption, caption_mentions) in enumerate(zip(captions, mentions)):
            row: list[Any] = []
            for j, m in enumerate(caption_mentions):
                key = (caption, m.start, m.end)
                if key not in self.features:
                    self.stats["no_features"] += 1
                    row.append(JudgeFailure(self.name, f"no {self.model.column} for this "
                                            f"mention in {self.signals} (caption not extracted, "
                                            "or extracted from a different text)"))
                elif self.features[key] is None:
                    self.stats["conflicting"] += 1
                    row.append(JudgeFailure(self.name, f"captions of this text have different "
                                            f"{self.model.column} rows in {self.signals} "
                                            "(different prompts?)"))
                else:
                    row.append(None)
                    wanted.append((i, j, self.features[key]))
            out.append(row)
        if wanted:
            labels = self.label_features(np.stack([x for _, _, x in wanted]))
            for (i, j, _), lab in zip(wanted, labels):
                out[i][j] = lab
            self.stats["labelled"] += len(wanted)
        return out

    def label_features(self, features: np.ndarray) -> list[UsageLabel]:
        """One label per feature row: non_assertive (placeholder subtype) or existential."""
        probability = self.model.probability(features)
        out = []
        for p in probability.tolist():
            if p > self.model.threshold:
                out.append(UsageLabel("non_assertive", PLACEHOLDER_SUBTYPE, None, self.name,
                                      reason=f"text filter p={p:.3f}; subtype not predicted "
                                             f"({PLACEHOLDER_SUBTYPE!r} is a placeholder)"))
            else:
                out.append(UsageLabel("existential", None, None, self.name,
                                      reason=f"text filter p={p:.3f}"))
        return out
