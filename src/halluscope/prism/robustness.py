"""Visual-probe robustness (HalluPrism Appendix 10.3): does the diagnosis depend on which
perturbations, and how strong, make up V?

>>> p = ProbeSet("yes", 0.9, (("blur", "no", 0.8), ("noise", "yes", 0.9)), "yes", 0.9, "yes", 0.9)
>>> [name for name, _, _ in without_perturbation(p, "blur").perturbed]
['noise']
>>> round(spearman([1.0, 2.0, 3.0, 4.0], [10.0, 30.0, 20.0, 40.0]), 6)
0.8

* Leave one perturbation out: V recomputed from each row's raw probe fields without one of
  the four (blur, crop, brightness, noise), L and A unchanged; the pooled diagnosis AUROC on
  (V', L, A) beside the full four-probe one, with a paired bootstrap 95% CI of the difference
  (out-of-fold probabilities of the same folds, rows resampled), and how often the normalised
  dominant source of each row stays what the full version gives (the paper: AUROC 0.822-0.824,
  agreement 89.8-97.8%).
* Severity stability: the same items probed with several presets (`prism probe --preset weak |
  default | strong`, one results folder each): per (model, dataset), Spearman's rho of V and of
  the scalar confidence between every pair of presets, and the normalised-source agreement.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from halluscope.errors import InputError
from halluscope.prism.signature import ProbeSet, compute_signature


def without_perturbation(p: ProbeSet, name: str) -> ProbeSet:
    """The probe set with one visual perturbation left out (example: the module docstring)."""
    return replace(p, perturbed=tuple(x for x in p.perturbed if x[0] != name))


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho (ties get mid-ranks); None when either side is constant or n < 3."""
    from scipy.stats import spearmanr

    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    return float(spearmanr(x, y).statistic)


def _signed_rows(results_dir: str | Path, preset: str) -> list[dict[str, Any]]:
    """Every row with its probe set, correctness and family, keyed by (model, dataset, id)."""
    from halluscope.prism.diagnosis import outcome_family
    from halluscope.prism.results import decomposition_row, discover, probe_set, read_rows

    out = []
    for model, dataset, path in discover(results_dir):
        raw, _stats = read_rows(path)
        for line, row in raw:
            d = decomposition_row(row, path, line)
            probes = probe_set(row, path, line)
            try:
                full = compute_signature(probes, preset)
            except ValueError as exc:
                raise InputError(str(exc), path=path, line=line) from None
            family = row.get("failure_family")
            out.append({"key": (model, dataset, d.sample_id), "probes": probes, "c": d.confidence,
                        "signature": full, "label": outcome_family(
                            d.correct, family if isinstance(family, str) and family else dataset)})
    return out


def _oof_proba(rows: Sequence[Any], features: Sequence[str], n_splits: int, seed: int,
               group_by_item: bool) -> tuple[Any, Any, int]:
    """Out-of-fold class probabilities of logistic regression (the paper's robustness model)."""
    import numpy as np

    from halluscope.prism.diagnosis import cv_splits, design_matrix, make_classifier

    classes = sorted({r.label for r in rows})
    y = np.asarray([classes.index(r.label) for r in rows])
    X, _ = design_matrix(rows, features)
    proba = np.zeros((len(rows), len(classes)))
    groups = [r.item_id for r in rows] if group_by_item else None
    for train, test in cv_splits(y.tolist(), groups, n_splits, seed):
        present = sorted(set(y[train].tolist()))
        if len(present) == 1:
            proba[np.ix_(test, present)] = 1.0
            continue
        remap = {k: i for i, k in enumerate(present)}
        model = make_classifier("lr", seed, len(present))
        model.fit(X[train], np.asarray([remap[k] for k in y[train]]))
        proba[np.ix_(test, present)] = model.predict_proba(X[test])
    return y, proba, len(classes)


def leave_one_perturbation_out(results_dir: str | Path, preset: str = "paper",
                               n_splits: int = 5, seed: int = 0, group_by_item: bool = True,
                               n_resamples: int = 1000) -> dict[str, Any]:
    """The full four-probe V against each leave-one-out V (see the module docstring)."""
    import numpy as np

    from halluscope.prism.diagnosis import DiagRow, weighted_ovr_auroc
    from halluscope.prism.routing import normalized_dominance

    rows = _signed_rows(results_dir, preset)
    names = sorted({name for r in rows for name, _, _ in r["probes"].perturbed})
    if not rows or len(names) < 2:
        raise InputError("leave-one-perturbation-out needs rows with at least two visual "
                         "perturbations (v_per_perturbation)", path=results_dir)

    def diag(signatures: Sequence[tuple[float, float, float]]) -> list[DiagRow]:
        return [DiagRow(r["key"][2], r["key"][0], r["key"][1], r["c"], *sig, r["label"])
                for r, sig in zip(rows, signatures)]

    def dominance(signatures: Sequence[tuple[float, float, float]]) -> list[int]:
        return normalized_dominance([(r["key"][0], r["key"][1], *s)
                                     for r, s in zip(rows, signatures)])

    full_sig = [r["signature"] for r in rows]
    if len({r["label"] for r in rows}) < 2:
        raise InputError("one diagnosis label only: nothing to diagnose", path=results_dir)
    y, full_proba, k = _oof_proba(diag(full_sig), ("vla",), n_splits, seed, group_by_item)
    full_dom = dominance(full_sig)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(rows), size=(n_resamples, len(rows)))
    variants = []
    for name in names:
        sig = [compute_signature(without_perturbation(r["probes"], name), preset) for r in rows]
        _, proba, _ = _oof_proba(diag(sig), ("vla",), n_splits, seed, group_by_item)
        dom = dominance(sig)
        diffs = []
        for idx in draws:
            a = weighted_ovr_auroc(y[idx], proba[idx], k)
            b = weighted_ovr_auroc(y[idx], full_proba[idx], k)
            if a is not None and b is not None:
                diffs.append(a - b)
        variants.append({
            "left_out": name, "auroc": weighted_ovr_auroc(y, proba, k),
            "auroc_diff_vs_full": (weighted_ovr_auroc(y, proba, k)
                                   - weighted_ovr_auroc(y, full_proba, k)),
            "auroc_diff_ci": ([float(np.percentile(diffs, 2.5)), float(np.percentile(diffs, 97.5))]
                              if diffs else None),
            "normalized_source_agreement": sum(a == b for a, b in zip(dom, full_dom)) / len(rows),
            "v_mean": sum(s[0] for s in sig) / len(sig)})
    return {"analysis": "leave_one_perturbation_out", "results_dir": str(results_dir),
            "preset": preset, "n": len(rows), "perturbations": names, "classifier": "lr",
            "protocol": "grouped_cv" if group_by_item else "stratified_cv", "seed": seed,
            "n_resamples": n_resamples,
            "full": {"auroc": weighted_ovr_auroc(y, full_proba, k),
                     "v_mean": sum(s[0] for s in full_sig) / len(full_sig)},
            "variants": variants,
            "note": "AUROC of out-of-fold logistic-regression probabilities on (V, L, A), "
                    "pooled; the CI is a paired bootstrap of rows over the same predictions"}


def severity_stability(folders: Mapping[str, str | Path], preset: str = "paper"
                       ) -> dict[str, Any]:
    """Spearman's rho of V and of c, and normalised-source agreement, between every pair of
    probe runs (one folder per perturbation preset), on the items both runs answered."""
    from halluscope.prism.routing import normalized_dominance

    if len(folders) < 2:
        raise ValueError("severity stability needs at least two results folders")
    runs = {name: {r["key"]: r for r in _signed_rows(path, preset)}
            for name, path in folders.items()}
    names = list(runs)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            shared = sorted(set(runs[a]) & set(runs[b]))
            for setting in sorted({k[:2] for k in shared}):
                keys = [k for k in shared if k[:2] == setting]
                va = [runs[a][k]["signature"] for k in keys]
                vb = [runs[b][k]["signature"] for k in keys]
                da = normalized_dominance([(*setting, *s) for s in va])
                db = normalized_dominance([(*setting, *s) for s in vb])
                pairs.append({
                    "presets": [a, b], "model": setting[0], "dataset": setting[1],
                    "n": len(keys), "v_mean": [sum(s[0] for s in va) / len(va),
                                               sum(s[0] for s in vb) / len(vb)],
                    "spearman_v": spearman([s[0] for s in va], [s[0] for s in vb]),
                    "spearman_c": spearman([runs[a][k]["c"] for k in keys],
                                           [runs[b][k]["c"] for k in keys]),
                    "normalized_source_agreement": sum(x == y for x, y in zip(da, db)) / len(keys)})
    return {"analysis": "severity_stability", "runs": {k: str(v) for k, v in folders.items()},
            "preset": preset, "pairs": pairs}
