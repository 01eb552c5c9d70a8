"""HalluPrism analyses over released results: source profile, abstention, routing, recompute.

>>> dominant_index((0.1, 0.99, 0.6)), dominant_index((0.5, 0.5, 0.2))
(1, 0)
>>> round(scalarize(0.9, 0.1, 1.0, 0.5, "weighted"), 6), scalarize(0.9, 0.1, 1.0, 0.5, "penalty")
(0.423, 0.0)

Each analysis reads `DIR/<model>/<dataset>.jsonl` (see `results`) and returns one row per
(model, dataset), so the figures can be checked against the paper's per-setting tables
(Table 13 source profile, Table 33 abstention, Table 35 routing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from halluscope.errors import InputError
from halluscope.io.atomic import write_jsonl_atomic
from halluscope.prism.results import (DecompRow, FileStats, InterventionRow, decomposition_row,
                                      discover, intervention_row, probe_set, read_rows)
from halluscope.prism.selective import aurc, auroc, risk_coverage, selective_accuracy
from halluscope.prism.signature import PRESETS, compute_signature

SOURCES = ("visual", "language_prior", "alignment")
SCALARIZATIONS = ("scalar", "penalty", "weighted", "geometric")


def dominant_index(scores: Sequence[float]) -> int:
    """Raw argmax over (V, L, A); a tie goes to the earlier coordinate (V, then L, then A).

    >>> dominant_index((0.2, 0.2, 0.2))
    0

    This is the paper's "raw dominant source" (Tables 13-14) and what the reference code routed
    on; the first-wins tie rule is the reference's (`max` over an ordered dict).
    """
    best = 0
    for i, value in enumerate(scores):
        if value > scores[best]:
            best = i
    return best


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _stats_fields(stats: FileStats) -> dict[str, Any]:
    return {"n_lines": stats.n_lines, "n_duplicates": stats.n_duplicates,
            "n_duplicate_conflicts": stats.n_duplicate_conflicts, "n_skipped": stats.n_skipped}


def load_decomposition(path: Path) -> tuple[list[DecompRow], FileStats]:
    """Validated, de-duplicated decomposition rows of one file."""
    raw, stats = read_rows(path)
    return [decomposition_row(row, path, line) for line, row in raw], stats


# ---------------------------------------------------------------------------------------------
# Source profile (Table 13)
# ---------------------------------------------------------------------------------------------

def profile_rows(rows: Sequence[DecompRow]) -> dict[str, Any]:
    """N, accuracy, mean V/L/A, LP match and raw-dominance counts of one setting.

    >>> from halluscope.prism.results import Correctness
    >>> ok, bad = Correctness(True, True), Correctness(False, True)
    >>> rows = [DecompRow("a", 1, ok, True, 0.9, 0.1, 1.0, 0.6, True),
    ...         DecompRow("b", 2, bad, False, 0.6, 0.3, 0.2, 0.5, False)]
    >>> p = profile_rows(rows); p["accuracy"], p["lp_match"], p["dominant_l"], p["dominant_a"]
    (0.5, 0.5, 1, 1)

    Dominance counts every item, correct or not (Table 13's Dom columns sum to N), and LP match
    is the fraction of items whose blank-image answer equals the clean answer exactly.
    `dominant_persist_*` repeat the count with L_persist = 1[LP match] * L (Table 10's control).
    """
    n = len(rows)
    dominant = [0, 0, 0]
    dominant_persist = [0, 0, 0]
    for r in rows:
        dominant[dominant_index((r.v, r.l, r.a))] += 1
        dominant_persist[dominant_index((r.v, r.l if r.lp_match else 0.0, r.a))] += 1
    return {
        "n": n,
        "accuracy": _mean([1.0 if r.correct else 0.0 for r in rows]),
        "v_mean": _mean([r.v for r in rows]),
        "l_mean": _mean([r.l for r in rows]),
        "a_mean": _mean([r.a for r in rows]),
        "lp_match": _mean([1.0 if r.lp_match else 0.0 for r in rows]),
        "dominant_v": dominant[0], "dominant_l": dominant[1], "dominant_a": dominant[2],
        "dominant_persist_v": dominant_persist[0], "dominant_persist_l": dominant_persist[1],
        "dominant_persist_a": dominant_persist[2],
        "n_unparsed": sum(1 for r in rows if not r.judged.parsed),
        "n_correct_flag_disagree": sum(1 for r in rows if r.stored_correct is not None
                                       and r.stored_correct != r.correct),
    }


def profile(results_dir: str | Path) -> dict[str, Any]:
    """Table 13's per-(model, dataset) source profile of a decomposition results folder."""
    out = []
    for model, dataset, path in discover(results_dir):
        rows, stats = load_decomposition(path)
        out.append({"model": model, "dataset": dataset, **profile_rows(rows),
                    **_stats_fields(stats)})
    return {"analysis": "profile", "results_dir": str(results_dir), "rows": out}


# ---------------------------------------------------------------------------------------------
# Abstention (Tables 32-34)
# ---------------------------------------------------------------------------------------------

def scalarize(c: float, v: float, l: float, a: float, method: str) -> float:
    """A confidence to rank for abstention: scalar c or a source-aware scalarization of it.

    >>> scalarize(0.8, 0.2, 0.5, 0.1, "scalar"), round(scalarize(0.8, 0.2, 0.5, 0.1, "penalty"), 6)
    (0.8, 0.4)
    >>> round(scalarize(0.8, 0.0, 0.0, 0.875, "geometric"), 6)
    0.4

    penalty = c (1 - max(V, L, A)); weighted = c max(0, 1 - 0.3 V - 0.3 L - 0.4 A);
    geometric = c ((1 - V)(1 - L)(1 - A))^(1/3). The paper names these three (Table 32) without
    printing them; the weights are those of the released reference analysis.
    """
    if method == "scalar":
        return c
    if method == "penalty":
        return c * (1.0 - max(v, l, a))
    if method == "weighted":
        return c * max(0.0, 1.0 - 0.3 * v - 0.3 * l - 0.4 * a)
    if method == "geometric":
        return c * max((1.0 - v) * (1.0 - l) * (1.0 - a), 0.0) ** (1.0 / 3.0)
    raise ValueError(f"unknown scalarization {method!r} (known: {', '.join(SCALARIZATIONS)})")


def abstain_rows(rows: Sequence[DecompRow]) -> dict[str, Any]:
    """AUROC, AURC, selective accuracy at 60/80% and the risk-coverage curve for each score.

    >>> from halluscope.prism.results import Correctness
    >>> ok, bad = Correctness(True, True), Correctness(False, True)
    >>> rows = [DecompRow("a", 1, ok, None, 0.9, 0.1, 0.5, 0.1, True),
    ...         DecompRow("b", 2, bad, None, 0.6, 0.1, 0.5, 0.1, False)]
    >>> r = abstain_rows(rows); r["auroc_scalar"], r["auroc_penalty"], r["sel_acc_60_scalar"]
    (1.0, 1.0, 1.0)
    """
    correct = [r.correct for r in rows]
    out: dict[str, Any] = {"n": len(rows), "accuracy": _mean([1.0 if c else 0.0 for c in correct])}
    per_score: dict[str, Any] = {}
    for method in SCALARIZATIONS:
        scores = [scalarize(r.confidence, r.v, r.l, r.a, method) for r in rows]
        entry = {"auroc": auroc(scores, correct), "aurc": aurc(scores, correct),
                 "sel_acc_60": selective_accuracy(scores, correct, 0.6),
                 "sel_acc_80": selective_accuracy(scores, correct, 0.8),
                 "n_distinct": len(set(scores)),
                 "risk_coverage": risk_coverage(scores, correct)}
        per_score[method] = entry
        out[f"auroc_{method}"] = entry["auroc"]
        out[f"aurc_{method}"] = entry["aurc"]
        out[f"sel_acc_60_{method}"] = entry["sel_acc_60"]
        out[f"sel_acc_80_{method}"] = entry["sel_acc_80"]
    aware = [(per_score[m]["auroc"], m) for m in SCALARIZATIONS[1:]
             if per_score[m]["auroc"] is not None]
    out["best_source_aware"] = max(aware)[1] if aware else None
    out["scores"] = per_score
    return out


def abstain(results_dir: str | Path) -> dict[str, Any]:
    """Per-(model, dataset) abstention comparison of a decomposition results folder (Table 33)."""
    out = []
    for model, dataset, path in discover(results_dir):
        rows, stats = load_decomposition(path)
        out.append({"model": model, "dataset": dataset, **abstain_rows(rows),
                    "n_unparsed": sum(1 for r in rows if not r.judged.parsed),
                    **_stats_fields(stats)})
    return {"analysis": "abstain", "results_dir": str(results_dir), "rows": out}


# ---------------------------------------------------------------------------------------------
# Routing (Table 35)
# ---------------------------------------------------------------------------------------------

def _rate(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def route_rows(rows: Sequence[InterventionRow]) -> dict[str, Any]:
    """Accuracy, fix rate and break rate of the generic and the matched intervention.

    >>> from halluscope.prism.results import Correctness
    >>> T, F = Correctness(True, True), Correctness(False, True)
    >>> rows = [InterventionRow("a", 1, T, F, T, None, None), InterventionRow("b", 2, F, T, F, None, None)]
    >>> r = route_rows(rows); r["acc_none"], r["fix_generic"], r["break_generic"], r["break_matched"]
    (0.5, 1.0, 1.0, 0.0)

    Fix = fraction of originally wrong items the intervention makes right; break = fraction of
    originally right items it makes wrong (Section 7.5); None when the denominator is empty.
    """
    n = len(rows)
    n_right = sum(1 for r in rows if r.original.correct)
    n_wrong = n - n_right
    out: dict[str, Any] = {"n": n, "acc_none": _rate(n_right, n)}
    for arm in ("generic", "matched"):
        outcome = [getattr(r, arm).correct for r in rows]
        out[f"acc_{arm}"] = _rate(sum(outcome), n)
    for arm in ("generic", "matched"):
        fixed = sum(1 for r in rows if not r.original.correct and getattr(r, arm).correct)
        broke = sum(1 for r in rows if r.original.correct and not getattr(r, arm).correct)
        out[f"fix_{arm}"] = _rate(fixed, n_wrong)
        out[f"break_{arm}"] = _rate(broke, n_right)
    for arm in ("original", "generic", "matched"):
        out[f"n_unparsed_{arm}"] = sum(1 for r in rows if not getattr(r, arm).parsed)
        out[f"n_correct_flag_disagree_{arm}"] = sum(1 for r in rows if arm in r.flag_disagree)
    sources: dict[str, int] = {}
    for r in rows:
        key = r.dominant_source or "unknown"
        sources[key] = sources.get(key, 0) + 1
    out["dominant_source_counts"] = dict(sorted(sources.items()))
    # How many routing decisions equal the raw argmax of the stored scores (the reference routed
    # on it, the paper describes a normalised dominance).
    checkable = [r for r in rows if r.scores is not None and r.dominant_source in SOURCES]
    out["n_route_raw_argmax"] = sum(1 for r in checkable
                                    if SOURCES[dominant_index(r.scores)] == r.dominant_source)
    out["n_route_checkable"] = len(checkable)
    return out


def route(results_dir: str | Path) -> dict[str, Any]:
    """Per-(model, dataset) routing outcomes of an intervention results folder (Table 35)."""
    out = []
    for model, dataset, path in discover(results_dir):
        raw, stats = read_rows(path)
        rows = [intervention_row(row, path, line) for line, row in raw]
        out.append({"model": model, "dataset": dataset, **route_rows(rows),
                    **_stats_fields(stats)})
    return {"analysis": "route", "results_dir": str(results_dir), "rows": out}


# ---------------------------------------------------------------------------------------------
# Recompute
# ---------------------------------------------------------------------------------------------

def recompute_file(path: Path, preset: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(V, L, A) of every row of one file recomputed from its raw probe fields, plus a summary.

    The summary's `max_abs_delta` compares with the stored v_score / lp_score / a_score (rows
    without a stored score are left out of that comparison).
    """
    if preset not in PRESETS:
        raise InputError(f"unknown preset {preset!r} (known: {', '.join(PRESETS)})")
    raw, stats = read_rows(path)
    out_rows = []
    worst = {"v_score": 0.0, "lp_score": 0.0, "a_score": 0.0}
    for line, row in raw:
        probes = probe_set(row, path, line)
        try:
            v, l, a = compute_signature(probes, preset)
        except ValueError as exc:
            raise InputError(str(exc), path=path, line=line) from None
        new = {"sample_id": row["sample_id"], "v_score": v, "lp_score": l, "a_score": a}
        for key in worst:
            stored = row.get(key)
            if isinstance(stored, (int, float)) and not isinstance(stored, bool):
                worst[key] = max(worst[key], abs(new[key] - stored))
        out_rows.append(new)
    return out_rows, {"n": len(out_rows), "max_abs_delta": worst, **_stats_fields(stats)}


def recompute(results_dir: str | Path, preset: str, out_dir: str | Path) -> dict[str, Any]:
    """Recompute every file of a decomposition folder into `out_dir/<model>/<dataset>.jsonl`."""
    summary = []
    out_root = Path(out_dir)
    for model, dataset, path in discover(results_dir):
        rows, info = recompute_file(path, preset)
        write_jsonl_atomic(out_root / model / f"{dataset}.jsonl", rows)
        summary.append({"model": model, "dataset": dataset, **info})
    return {"analysis": "recompute", "preset": preset, "results_dir": str(results_dir),
            "out_dir": str(out_root), "files": summary}
