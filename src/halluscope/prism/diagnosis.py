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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

from halluscope.errors import InputError

#: Named feature blocks; a feature set is a tuple of block names.
BLOCKS: dict[str, tuple[str, ...]] = {"c": ("c",), "vla": ("v", "l", "a"), "v": ("v",),
                                      "l": ("l",), "a": ("a",)}
#: Identity blocks expand to one-hot columns.
ID_BLOCKS = ("dataset_id", "model_id")
#: The paper's feature sets (Table 3 / 21) and the identity baselines.
FEATURE_SETS: dict[str, tuple[str, ...]] = {
    "c": ("c",),
    "vla": ("vla",),
    "vlac": ("vla", "c"),
    "dataset_id": ("dataset_id",),
    "model_id": ("model_id",),
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
    label: str  # the target: `outcome_family` or the raw `family` (`with_target`)
    family: str = ""  # the benchmark-provided failure family of the item (Table 8)
    correct: bool | None = None
    #: The stricter image-removal scores (Eq. 5 and Appendix 10.1), for Table 10.
    l_variants: tuple[tuple[str, float], ...] = ()


def outcome_family(correct: bool, family: str | None) -> str:
    """The diagnosis target: "none" for a correct answer, else the item's failure family.

    >>> outcome_family(False, None)
    'unknown'
    """
    if correct:
        return "none"
    return family or "unknown"


TARGETS = ("outcome", "raw")
#: Appendix 10.1's image-removal variants (Table 10); "l_conf" is the default L.
L_VARIANTS = ("l_conf", "l_persist", "l_match", "l_stable")
#: Tables 23-24: the identity controls, each with the sources added (run with LightGBM).
CONTROL_SETS: dict[str, tuple[str, ...]] = {
    "D": ("dataset_id",),
    "D+M": ("dataset_id", "model_id"),
    "D+M+c": ("dataset_id", "model_id", "c"),
    "D+M+VLA": ("dataset_id", "model_id", "vla"),
    "D+M+VLA+c": ("dataset_id", "model_id", "vla", "c"),
}
#: Tables 25-26: model identity in every feature set.
MODEL_SETS: dict[str, tuple[str, ...]] = {"M+c": ("model_id", "c"), "M+VLA": ("model_id", "vla"),
                                          "M+VLA+c": ("model_id", "vla", "c")}


def with_target(rows: Sequence[DiagRow], target: str) -> list[DiagRow]:
    """Rows labelled with a diagnosis target: "outcome" (correct -> "none", wrong -> its
    family; Table 24) or "raw" (every item its benchmark family, right or wrong; Tables 8, 23).

    >>> r = DiagRow("i", "m", "pope", 0.9, 0.1, 1.0, 0.2, "none", "object_hallucination", True)
    >>> [x.label for x in with_target([r], "raw")], [x.label for x in with_target([r], "outcome")]
    (['object_hallucination'], ['none'])
    >>> with_target([replace(r, correct=False)], "binary")[0].label
    'wrong'

    "binary" is failure detection (wrong vs right), the target of Table 26.
    """
    if target == "raw":
        return [replace(r, label=r.family) for r in rows]
    if target == "outcome":
        return [replace(r, label=outcome_family(bool(r.correct), r.family)) for r in rows]
    if target == "binary":
        return [replace(r, label="right" if r.correct else "wrong") for r in rows]
    raise ValueError(f"unknown target {target!r} (known: {', '.join(TARGETS)}, binary)")


def with_l_variant(rows: Sequence[DiagRow], variant: str) -> list[DiagRow]:
    """Rows whose L is replaced by one of Appendix 10.1's variants (rows without it dropped).

    >>> r = DiagRow("i", "m", "d", 0.9, 0.1, 1.0, 0.2, "none", l_variants=(("l_match", 0.0),))
    >>> [x.l for x in with_l_variant([r], "l_match")], with_l_variant([r], "l_stable")
    ([0.0], [])
    """
    if variant == "l_conf":
        return list(rows)
    return [replace(r, l=dict(r.l_variants)[variant]) for r in rows
            if variant in dict(r.l_variants)]


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
    from sklearn.metrics import balanced_accuracy_score, f1_score

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
    present = sorted(set(y[test].tolist()))
    return {"auroc": weighted_ovr_auroc(y[test], proba, n_classes),
            "macro_f1": float(f1_score(y[test], pred, labels=present, average="macro",
                                       zero_division=0)),
            # The F1 the paper's Table 25 prints (its magnitudes are the support-weighted F1's).
            "weighted_f1": float(f1_score(y[test], pred, labels=present, average="weighted",
                                          zero_division=0)),
            "balanced_accuracy": float(balanced_accuracy_score(y[test], pred)),
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
    wf1_m, _ = _mean_sd([f["weighted_f1"] for f in per_fold])
    bacc_m, _ = _mean_sd([f["balanced_accuracy"] for f in per_fold])
    imps = [f["importances"] for f in per_fold if f["importances"]]
    mean_imp = ({k: sum(d[k] for d in imps) / len(imps) for k in imps[0]} if imps else None)
    return {"auroc": auc_m, "auroc_sd": auc_sd, "macro_f1": f1_m, "macro_f1_sd": f1_sd,
            "weighted_f1": wf1_m, "balanced_accuracy": bacc_m, "n_folds": len(folds),
            "importances": mean_imp}


def stratified_holdout(rows: Sequence[DiagRow], feature_set: Sequence[str], classifier: str,
                       test_size: float = 0.2, seed: int = 0) -> dict[str, Any]:
    """The paper's control protocol (Tables 23-24): one stratified held-out split (rows, not
    items: the same item answered by another model may sit on the other side).

    >>> rows = [DiagRow(f"i{k}", "m", "d", k % 2 * 0.8 + 0.1, 0.5, 1.0, 0.2,
    ...                 "none" if k % 2 else "spatial") for k in range(20)]
    >>> r = stratified_holdout(rows, ("c",), "lr"); r["auroc"], r["n_test"]
    (1.0, 4)
    """
    import numpy as np
    from sklearn.model_selection import train_test_split

    classes = sorted({r.label for r in rows})
    y = [classes.index(r.label) for r in rows]
    train, test = train_test_split(np.arange(len(rows)), test_size=test_size, stratify=y,
                                   random_state=seed)
    res = _fit_score(rows, np.sort(train), np.sort(test), feature_set, classifier, classes, seed)
    return {**res, "n_test": int(len(test))}


def evaluate(rows: Sequence[DiagRow], feature_set: Sequence[str], classifier: str,
             protocol: str, n_splits: int = 5, seed: int = 0) -> dict[str, Any]:
    """One feature set under a protocol: "grouped_cv" (halluscope's: folds keep an item's rows
    together), "stratified_cv" (the paper's 5-fold) or "stratified_holdout" (the paper's
    control split)."""
    if protocol == "stratified_holdout":
        return stratified_holdout(rows, feature_set, classifier, seed=seed)
    if protocol not in ("grouped_cv", "stratified_cv"):
        raise ValueError(f"unknown protocol {protocol!r}")
    return cross_validate(rows, feature_set, classifier, n_splits, seed,
                          group_by_item=protocol == "grouped_cv")


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


def _control_classifier(classifiers: Sequence[str]) -> str:
    # Table 3: the dataset-ID controls use LightGBM.
    return "lightgbm" if "lightgbm" in classifiers else classifiers[0]


def _two_labels(rows: Sequence[DiagRow]) -> bool:
    return len({r.label for r in rows}) >= 2


def within_dataset_target(rows: Sequence[DiagRow]) -> str:
    """Table 25's target for one dataset's rows: the raw family where the benchmark gives more
    than one (HallusionBench attribute vs object, VizWiz answerability vs answerable), else the
    outcome (POPE object error vs no failure, VSR spatial error vs no failure).

    >>> r = DiagRow("i", "m", "vsr", 0.9, 0.1, 1.0, 0.2, "none", "spatial", True)
    >>> within_dataset_target([r, replace(r, correct=False)])
    'outcome'
    """
    return "raw" if len({r.family for r in rows}) >= 2 else "outcome"


def diagnose(rows: Sequence[DiagRow], classifiers: Sequence[str] = CLASSIFIERS,
             feature_sets: dict[str, tuple[str, ...]] | None = None, n_splits: int = 5,
             seed: int = 0, group_by_item: bool = True, within_dataset: bool = True,
             leave_out: Sequence[str] = ("model", "dataset"), controls: bool = True
             ) -> dict[str, Any]:
    """The pooled diagnosis grid (classifier x feature set, on the rows' labels) and, for rows
    that carry their family and correctness, the paper's controls:

    * `controls` (Tables 23, 24): D, D+M, D+M+c, D+M+VLA, D+M+VLA+c with LightGBM, for the raw
      and the outcome target, under the paper's stratified held-out split and the grouped CV;
    * `l_variants` (Table 10): L replaced by L_persist / L_match / L_stable (logistic
      regression on V, L, A), with the share of rows whose raw dominant coordinate is L;
    * `alignment_control` (Table 11): c against (V, L, A) on all datasets and without VSR;
    * `within_dataset` (Table 25): per dataset, model ID in every set, the dataset's target;
    * `failure_detection` (Table 26): wrong vs right with model ID, leave one dataset out
      (AUROC) and leave one model out (AUROC, macro-F1).

    The pooled grid and Tables 10, 11, 25 use grouped CV (`group_by_item`; the paper's
    stratified CV otherwise). F1 is reported macro-averaged and support-weighted.
    """
    from halluscope.prism.analysis import dominant_index

    sets = feature_sets or FEATURE_SETS
    protocol = "grouped_cv" if group_by_item else "stratified_cv"
    labels = sorted({r.label for r in rows})
    report: dict[str, Any] = {
        "n": len(rows), "n_items": len({r.item_id for r in rows}),
        "labels": {k: sum(1 for r in rows if r.label == k) for k in labels},
        "models": sorted({r.model for r in rows}), "datasets": sorted({r.dataset for r in rows}),
        "n_splits": n_splits, "seed": seed, "group_by_item": group_by_item,
        "protocol": protocol, "pooled": []}
    notes: list[str] = []
    if len(labels) < 2:
        report["note"] = "only one label present; nothing to diagnose"
        return report
    for clf in classifiers:
        for name, fs in sets.items():
            report["pooled"].append({"classifier": clf, "features": name,
                                     **cross_validate(rows, fs, clf, n_splits, seed,
                                                      group_by_item)})
    known = bool(rows) and all(r.correct is not None and r.family for r in rows)
    if controls and known:
        clf = _control_classifier(classifiers)
        report["controls"] = []
        for target in ("raw", "outcome"):
            sub = with_target(rows, target)
            if not _two_labels(sub):
                notes.append(f"{target} target: one label only ({sub[0].label}); its "
                             "controls (Table 23/24) are undefined")
                continue
            for split in ("stratified_holdout", "grouped_cv"):
                for name, fs in CONTROL_SETS.items():
                    report["controls"].append({"target": target, "protocol": split,
                                               "classifier": clf, "features": name,
                                               **evaluate(sub, fs, clf, split, n_splits, seed)})
    report["l_variants"] = []
    for variant in L_VARIANTS:
        sub = with_l_variant(rows, variant)
        if not sub or not _two_labels(sub):
            continue
        dominant_l = sum(1 for r in sub if dominant_index((r.v, r.l, r.a)) == 1) / len(sub)
        report["l_variants"].append({"variant": variant, "n": len(sub),
                                     "l_dominant_share": dominant_l, "classifier": "lr",
                                     **evaluate(sub, ("vla",), "lr", protocol, n_splits, seed)})
    if "vsr" in report["datasets"] and len(report["datasets"]) > 1:
        report["alignment_control"] = []
        for scope, sub in (("all", list(rows)), ("no_vsr", [r for r in rows if r.dataset != "vsr"])):
            if not _two_labels(sub):
                continue
            for name, fs in (("c", ("c",)), ("VLA", ("vla",))):
                report["alignment_control"].append(
                    {"scope": scope, "features": name, "classifier": "lr", "n": len(sub),
                     **evaluate(sub, fs, "lr", protocol, n_splits, seed)})
    else:
        notes.append("Table 11's no-VSR control needs VSR and another dataset")
    if within_dataset:
        report["within_dataset"] = []
        for ds in report["datasets"]:
            sub = [r for r in rows if r.dataset == ds]
            target = within_dataset_target(sub) if known else "labels"
            if known:
                sub = with_target(sub, target)
            if not _two_labels(sub):
                continue
            for clf in classifiers:
                for name, fs in MODEL_SETS.items():
                    report["within_dataset"].append(
                        {"dataset": ds, "target": target, "n": len(sub), "classifier": clf,
                         "features": name, **evaluate(sub, fs, clf, protocol, n_splits, seed)})
    if known and leave_out:
        binary = with_target(rows, "binary")
        for key in leave_out:
            if len({getattr(r, key) for r in rows}) < 2 or not _two_labels(binary):
                continue
            entries = []
            for clf in classifiers:
                for name, fs in MODEL_SETS.items():
                    for res in holdout(binary, key, fs, clf, seed):
                        entries.append({"classifier": clf, "features": name, **res})
            report.setdefault("failure_detection", {})[f"leave_one_{key}_out"] = entries
    if notes:
        report["notes"] = notes
    return report


def load_diag_rows(results_dir: str | Path, target: str = "outcome"
                   ) -> tuple[list[DiagRow], list[dict[str, Any]]]:
    """Diagnosis rows of a decomposition results folder, labelled with `target`, and per-file
    load stats.

    Correctness is the strict recomputed one (`results.judge`); the family comes from each row's
    `failure_family` field (the dataset name when absent). The L variants of Table 10 are
    recomputed from the row's raw probe fields (the paper's equations); a row whose fields do
    not allow it simply has none.
    """
    from halluscope.prism.results import decomposition_row, discover, probe_set, read_rows
    from halluscope.prism.signature import paper_signature

    rows: list[DiagRow] = []
    stats_out = []
    for model, dataset, path in discover(results_dir):
        raw, stats = read_rows(path)
        for line, row in raw:
            d = decomposition_row(row, path, line)
            family = row.get("failure_family")
            try:
                sig = paper_signature(probe_set(row, path, line))
                variants = (("l_persist", sig.l_persist), ("l_match", sig.l_match),
                            ("l_stable", sig.l_stable))
            except (InputError, ValueError):
                variants = ()
            rows.append(DiagRow(d.sample_id, model, dataset, d.confidence, d.v, d.l, d.a, "",
                                family if isinstance(family, str) and family else dataset,
                                d.correct, variants))
        stats_out.append({"model": model, "dataset": dataset, **stats.as_dict()})
    return with_target(rows, target), stats_out


def diagnose_results(results_dir: str | Path, classifiers: Sequence[str] = CLASSIFIERS,
                     n_splits: int = 5, seed: int = 0, group_by_item: bool = True,
                     target: str = "outcome") -> dict[str, Any]:
    """`diagnose` over a decomposition folder (released or `prism probe`'s), with notes on
    what the target means there."""
    rows, stats = load_diag_rows(results_dir, target)
    report = diagnose(rows, classifiers, n_splits=n_splits, seed=seed,
                      group_by_item=group_by_item)
    families = sorted(set(report["labels"]) - {"none"})
    notes = list(report.pop("notes", []))
    if target == "outcome" and len(families) <= 1:
        notes.append(f"one failure family ({', '.join(families) or 'none'}): the target is "
                     "failure detection (correct vs wrong), not multi-family diagnosis")
    if len(report["datasets"]) == 1:
        notes.append("one dataset: dataset-ID is constant, its baseline is chance by design")
    report.update({"analysis": "diagnose", "target": target, "results_dir": str(results_dir),
                   "files": stats, "notes": notes})
    return report
