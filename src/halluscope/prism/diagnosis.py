"""Failure-family diagnosis from (V, L, A) and scalar confidence c (HalluPrism Sec. 5, Tables 3, 21-26).

>>> outcome_family(True, "spatial"), outcome_family(False, "spatial")
('none', 'spatial')
>>> feature_names(("vla", "model_id"), ["qwen", "gemma"], [])
['v', 'l', 'a', 'model=gemma', 'model=qwen']

Each prediction gets a label: "none" when correct, else its benchmark failure family (Table 7:
POPE -> object hallucination, VSR -> spatial, VizWiz -> answerability, HallusionBench ->
attribute / object). Classifiers (logistic regression, XGBoost, LightGBM) are fitted with
seeded stratified 5-fold CV over the feature sets [c], [V,L,A], [V,L,A,c], next to the
identity baselines dataset-ID and model-ID and the controls that add the signature to them.
Folds are grouped by item (`StratifiedGroupKFold`) so the same item answered by several models
never sits in both train and test; metrics are weighted one-vs-rest AUROC and macro-F1, mean
and sd over folds, plus feature importances (|LR coefficient| or tree importance, each
normalised to sum 1 and averaged over folds).

In the released reference rows (VSR only) every item's family is "spatial", so the target
reduces to "none" vs "spatial", i.e. failure detection (wrong vs right); dataset-ID is then a
constant and the dataset baseline is uninformative. Reported as such by `diagnose_results`.

sklearn / xgboost / lightgbm are imported inside the functions that fit, never at import time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

#: Named feature blocks; a feature set is a tuple of block names.
BLOCKS: dict[str, tuple[str, ...]] = {"c": ("c",), "vla": ("v", "l", "a"), "v": ("v",),
                                      "l": ("l",), "a": ("a",)}
#: Identity blocks expand to one-hot columns.
ID_BLOCKS = ("dataset_id", "model_id")
#: The paper's feature sets (Table 3 / 21) and identity controls (Tables 23-25).
FEATURE_SETS: dict[str, tuple[str, ...]] = {
    "c": ("c",),
    "vla": ("vla",),
    "vlac": ("vla", "c"),
    "dataset_id": ("dataset_id",),
    "model_id": ("model_id",),
    "ids_c": ("dataset_id", "model_id", "c"),
    "ids_c_vla": ("dataset_id", "model_id", "c", "vla"),
}
CLASSIFIERS = ("lr", "xgboost", "lightgbm")


@dataclass(frozen=True)
class DiagRow:
    """One model's answer to one item, with its signature and diagnosis label.

    >>> DiagRow("vsr_1", "qwen", "vsr", 0.9, 0.1, 0.99, 0.6, "none").item_id
    'vsr_1'
    """

    item_id: str
    model: str
    dataset: str
    c: float
    v: float
    l: float
    a: float
    label: str


def outcome_family(correct: bool, family: str | None) -> str:
    """The diagnosis target: "none" for a correct answer, else the item's failure family.

    >>> outcome_family(False, None)
    'unknown'
    """
    if correct:
        return "none"
    return family or "unknown"


def feature_names(feature_set: Sequence[str], models: Iterable[str],
                  datasets: Iterable[str]) -> list[str]:
    """Column names of a feature set; identity blocks become sorted one-hot columns.

    >>> feature_names(("dataset_id", "c"), [], ["vsr", "pope"])
    ['dataset=pope', 'dataset=vsr', 'c']
    """
    names: list[str] = []
    for block in feature_set:
        if block == "dataset_id":
            names += [f"dataset={d}" for d in sorted(set(datasets))]
        elif block == "model_id":
            names += [f"model={m}" for m in sorted(set(models))]
        elif block in BLOCKS:
            names += list(BLOCKS[block])
        else:
            raise ValueError(f"unknown feature block {block!r}")
    return names


def design_matrix(rows: Sequence[DiagRow], feature_set: Sequence[str]) -> tuple[Any, list[str]]:
    """`(X, names)` for a feature set over rows (numpy float array).

    >>> X, names = design_matrix([DiagRow("i", "m", "d", 0.5, 0.1, 0.2, 0.3, "none")], ("vlac",))
    Traceback (most recent call last):
    ...
    ValueError: unknown feature block 'vlac'
    >>> X, names = design_matrix([DiagRow("i", "m", "d", 0.5, 0.1, 0.2, 0.3, "none")], ("vla", "c"))
    >>> names, X.tolist()
    (['v', 'l', 'a', 'c'], [[0.1, 0.2, 0.3, 0.5]])
    """
    import numpy as np

    names = feature_names(feature_set, [r.model for r in rows], [r.dataset for r in rows])
    X = np.zeros((len(rows), len(names)), dtype=float)
    col = {n: j for j, n in enumerate(names)}
    for i, r in enumerate(rows):
        for n, j in col.items():
            if n.startswith("dataset="):
                X[i, j] = 1.0 if n == f"dataset={r.dataset}" else 0.0
            elif n.startswith("model="):
                X[i, j] = 1.0 if n == f"model={r.model}" else 0.0
            else:
                X[i, j] = getattr(r, n)
    return X, names


def make_classifier(name: str, seed: int, n_classes: int) -> Any:
    """A fresh, seeded classifier: "lr" (standardised logistic regression), "xgboost", "lightgbm".

    >>> type(make_classifier("lr", 0, 2)).__name__
    'Pipeline'
    """
    if name == "lr":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    if name == "xgboost":
        from xgboost import XGBClassifier

        # Single thread so a seed gives the same trees on any machine (2 shared cores here).
        return XGBClassifier(n_estimators=200, max_depth=4, learning_rate=0.1,
                             random_state=seed, n_jobs=1, verbosity=0,
                             objective="binary:logistic" if n_classes == 2 else "multi:softprob")
    if name == "lightgbm":
        from lightgbm import LGBMClassifier

        return LGBMClassifier(n_estimators=200, num_leaves=15, learning_rate=0.1,
                              random_state=seed, n_jobs=1, deterministic=True,
                              force_row_wise=True, verbose=-1)
    raise ValueError(f"unknown classifier {name!r} (known: {', '.join(CLASSIFIERS)})")


def importances(model: Any, name: str) -> list[float]:
    """Per-feature importance normalised to sum 1: mean |coefficient| for LR (on standardised
    features, so comparable across columns), the library's split/gain importance for trees.

    >>> importances(type("M", (), {"feature_importances_": [2.0, 2.0, 0.0]})(), "xgboost")
    [0.5, 0.5, 0.0]
    """
    import numpy as np

    if name == "lr":
        raw = np.abs(np.asarray(model[-1].coef_, dtype=float)).mean(axis=0)
    else:
        raw = np.asarray(model.feature_importances_, dtype=float)
    total = float(raw.sum())
    return [float(x) / total if total > 0 else 0.0 for x in raw]


def weighted_ovr_auroc(y: Sequence[int], proba: Any, n_classes: int) -> float | None:
    """Weighted one-vs-rest AUROC (binary: the AUROC of the positive class); None when undefined.

    >>> weighted_ovr_auroc([0, 1, 1], [[0.9, 0.1], [0.2, 0.8], [0.4, 0.6]], 2)
    1.0
    >>> weighted_ovr_auroc([0, 0], [[0.9, 0.1], [0.2, 0.8]], 2) is None
    True
    """
    import numpy as np
    from sklearn.metrics import roc_auc_score

    y_arr = np.asarray(y)
    p = np.asarray(proba, dtype=float)
    present = sorted(set(y_arr.tolist()))
    if len(present) < 2:
        return None
    if n_classes == 2:
        return float(roc_auc_score(y_arr, p[:, 1]))
    # A fold may miss a rare class: score only the classes present, weighted by support
    # (what sklearn's "weighted" average does); sklearn itself would raise here.
    total, weight = 0.0, 0
    for k in present:
        pos = y_arr == k
        total += float(roc_auc_score(pos, p[:, k])) * int(pos.sum())
        weight += int(pos.sum())
    return total / weight


def cv_splits(labels: Sequence[int], groups: Sequence[str] | None, n_splits: int,
              seed: int) -> list[tuple[Any, Any]]:
    """Seeded stratified folds; grouped by item when `groups` is given (no item in both sides).

    >>> s = cv_splits([0, 1] * 6, [f"i{k // 2}" for k in range(12)], 3, 0)
    >>> len(s), all(not set(tr) & set(te) for tr, te in s)
    (3, True)

    `n_splits` shrinks to the smallest class count (and group count) so tiny inputs still split.
    """
    import numpy as np
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

    y = np.asarray(labels)
    smallest = min(np.bincount(y)[np.bincount(y) > 0])
    k = max(2, min(n_splits, int(smallest)))
    if groups is None:
        splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
        return list(splitter.split(np.zeros(len(y)), y))
    k = min(k, len(set(groups)))
    splitter = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed)
    return list(splitter.split(np.zeros(len(y)), y, np.asarray(groups)))


def _mean_sd(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    vals = [v for v in values if v is not None]
    if not vals:
        return None, None
    m = sum(vals) / len(vals)
    return m, math.sqrt(sum((v - m) ** 2 for v in vals) / len(vals))


def _fit_score(rows: Sequence[DiagRow], train: Any, test: Any, feature_set: Sequence[str],
               classifier: str, classes: list[str], seed: int) -> dict[str, Any]:
    """Fit on `train`, score on `test`; a one-class training fold predicts that class."""
    import numpy as np
    from sklearn.metrics import f1_score

    X, names = design_matrix(rows, feature_set)
    y = np.asarray([classes.index(r.label) for r in rows])
    n_classes = len(classes)
    train_classes = sorted(set(y[train].tolist()))
    proba = np.zeros((len(test), n_classes))
    imp: list[float] | None = None
    if len(train_classes) == 1:
        proba[:, train_classes[0]] = 1.0
    else:
        # Tree libraries want labels 0..k-1, so remap when a training fold misses a class.
        remap = {k: i for i, k in enumerate(train_classes)}
        model = make_classifier(classifier, seed, len(train_classes))
        model.fit(X[train], np.asarray([remap[k] for k in y[train]]))
        proba[:, train_classes] = model.predict_proba(X[test])
        imp = importances(model, classifier)
    pred = proba.argmax(axis=1)
    return {"auroc": weighted_ovr_auroc(y[test], proba, n_classes),
            "macro_f1": float(f1_score(y[test], pred, labels=sorted(set(y[test].tolist())),
                                       average="macro", zero_division=0)),
            "importances": dict(zip(names, imp)) if imp is not None else None}


def cross_validate(rows: Sequence[DiagRow], feature_set: Sequence[str], classifier: str,
                   n_splits: int = 5, seed: int = 0, group_by_item: bool = True
                   ) -> dict[str, Any]:
    """Mean/sd over CV folds of weighted OvR AUROC and macro-F1, plus mean importances."""
    classes = sorted({r.label for r in rows})
    labels = [classes.index(r.label) for r in rows]
    groups = [r.item_id for r in rows] if group_by_item else None
    folds = cv_splits(labels, groups, n_splits, seed)
    per_fold = [_fit_score(rows, tr, te, feature_set, classifier, classes, seed)
                for tr, te in folds]
    auc_m, auc_sd = _mean_sd([f["auroc"] for f in per_fold])
    f1_m, f1_sd = _mean_sd([f["macro_f1"] for f in per_fold])
    imps = [f["importances"] for f in per_fold if f["importances"]]
    mean_imp = ({k: sum(d[k] for d in imps) / len(imps) for k in imps[0]} if imps else None)
    return {"auroc": auc_m, "auroc_sd": auc_sd, "macro_f1": f1_m, "macro_f1_sd": f1_sd,
            "n_folds": len(folds), "importances": mean_imp}


def holdout(rows: Sequence[DiagRow], key: str, feature_set: Sequence[str], classifier: str,
            seed: int = 0) -> list[dict[str, Any]]:
    """Leave-one-`key`-out (key = "model" or "dataset"): train on the rest, test on the held-out
    value; one result per held-out value (AUROC None when its test labels are one class)."""
    import numpy as np

    classes = sorted({r.label for r in rows})
    out = []
    for value in sorted({getattr(r, key) for r in rows}):
        test = np.asarray([i for i, r in enumerate(rows) if getattr(r, key) == value])
        train = np.asarray([i for i, r in enumerate(rows) if getattr(r, key) != value])
        if len(train) == 0:
            continue
        res = _fit_score(rows, train, test, feature_set, classifier, classes, seed)
        out.append({"held_out": value, "n_test": int(len(test)), **res})
    return out


def diagnose(rows: Sequence[DiagRow], classifiers: Sequence[str] = CLASSIFIERS,
             feature_sets: dict[str, tuple[str, ...]] | None = None, n_splits: int = 5,
             seed: int = 0, group_by_item: bool = True, within_dataset: bool = True,
             leave_out: Sequence[str] = ("model", "dataset")) -> dict[str, Any]:
    """The pooled diagnosis grid (classifier x feature set), within-dataset controls (model ID
    always included, Table 25) and leave-one-model/dataset-out stress tests (Table 26)."""
    sets = feature_sets or FEATURE_SETS
    labels = sorted({r.label for r in rows})
    report: dict[str, Any] = {
        "n": len(rows), "n_items": len({r.item_id for r in rows}),
        "labels": {k: sum(1 for r in rows if r.label == k) for k in labels},
        "models": sorted({r.model for r in rows}), "datasets": sorted({r.dataset for r in rows}),
        "n_splits": n_splits, "seed": seed, "group_by_item": group_by_item, "pooled": []}
    if len(labels) < 2:
        report["note"] = "only one label present; nothing to diagnose"
        return report
    for clf in classifiers:
        for name, fs in sets.items():
            report["pooled"].append({"classifier": clf, "features": name,
                                     **cross_validate(rows, fs, clf, n_splits, seed,
                                                      group_by_item)})
    if within_dataset:
        report["within_dataset"] = []
        for ds in report["datasets"]:
            sub = [r for r in rows if r.dataset == ds]
            if len({r.label for r in sub}) < 2:
                continue
            for clf in classifiers:
                for name, fs in (("model_c", ("model_id", "c")),
                                 ("model_vla", ("model_id", "vla")),
                                 ("model_vlac", ("model_id", "vla", "c"))):
                    report["within_dataset"].append(
                        {"dataset": ds, "classifier": clf, "features": name,
                         **cross_validate(sub, fs, clf, n_splits, seed, group_by_item)})
    for key in leave_out:
        if len({getattr(r, key) for r in rows}) < 2:
            continue
        entries = []
        for clf in classifiers:
            for name, fs in (("c", ("c",)), ("vla", ("vla",)), ("vlac", ("vla", "c"))):
                for res in holdout(rows, key, fs, clf, seed):
                    entries.append({"classifier": clf, "features": name, **res})
        report[f"leave_one_{key}_out"] = entries
    return report


def load_diag_rows(results_dir: str | Path) -> tuple[list[DiagRow], list[dict[str, Any]]]:
    """Diagnosis rows of a decomposition results folder, and per-file load stats.

    Correctness is the strict recomputed one (`results.judge`); the family comes from each row's
    `failure_family` field (falling back to the dataset name when absent).
    """
    from halluscope.prism.results import decomposition_row, discover, read_rows

    rows: list[DiagRow] = []
    stats_out = []
    for model, dataset, path in discover(results_dir):
        raw, stats = read_rows(path)
        for line, row in raw:
            d = decomposition_row(row, path, line)
            family = row.get("failure_family")
            rows.append(DiagRow(d.sample_id, model, dataset, d.confidence, d.v, d.l, d.a,
                                outcome_family(d.correct, family if isinstance(family, str)
                                               else dataset)))
        stats_out.append({"model": model, "dataset": dataset, **stats.as_dict()})
    return rows, stats_out


def diagnose_results(results_dir: str | Path, classifiers: Sequence[str] = CLASSIFIERS,
                     n_splits: int = 5, seed: int = 0, group_by_item: bool = True
                     ) -> dict[str, Any]:
    """`diagnose` over a released decomposition folder, with a note on what the target means."""
    rows, stats = load_diag_rows(results_dir)
    report = diagnose(rows, classifiers, n_splits=n_splits, seed=seed,
                      group_by_item=group_by_item)
    families = sorted(set(report["labels"]) - {"none"})
    notes = []
    if len(families) <= 1:
        notes.append(f"one failure family ({', '.join(families) or 'none'}): the target is "
                     "failure detection (correct vs wrong), not multi-family diagnosis")
    if len(report["datasets"]) == 1:
        notes.append("one dataset: dataset-ID is constant, its baseline is chance by design")
    report.update({"analysis": "diagnose", "results_dir": str(results_dir), "files": stats,
                   "notes": notes})
    return report
