"""HalluPrism analyses over released results: source profile, abstention, routing, recompute.

>>> dominant_index((0.1, 0.99, 0.6)), dominant_index((0.5, 0.5, 0.2))
(1, 0)
>>> round(scalarize(0.9, 0.1, 1.0, 0.5, "weighted"), 6), scalarize(0.9, 0.1, 1.0, 0.5, "penalty")
(0.423, 0.0)

Each analysis reads `DIR/<model>/<dataset>.jsonl` (see `results`) and returns one row per
(model, dataset), so the figures can be checked against the paper's per-setting tables
(Table 13 source profile, Table 33 abstention, Table 35 routing); `pooled_summary` adds the
per-model and pooled Tables 14 (raw dominance counts), 32 (AUROC) and 34 (risk-coverage).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from halluscope.errors import InputError
from halluscope.io.atomic import write_jsonl_atomic
from halluscope.prism.results import (DecompRow, FileStats, InterventionRow, decomposition_row,
                                      discover, intervention_row, probe_set, read_rows)
from halluscope.prism.selective import (aurc, auroc, auroc_tie_range, risk_coverage,
                                        selective_accuracy)
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

def chance_adjusted_agreement(pairs: Sequence[tuple[str, str]]) -> dict[str, float | None]:
    """Observed agreement of paired answers, the agreement expected from their marginals, and
    Cohen's kappa (Appendix 10.1: clean vs blank-image answers, 51.7% observed, 28.8% expected,
    0.321 pooled).

    >>> r = chance_adjusted_agreement([("yes", "yes"), ("yes", "no"), ("no", "no"), ("no", "no")])
    >>> r["observed"], r["expected"], r["kappa"]
    (0.75, 0.5, 0.5)

    Expected = sum over answers k of p_clean(k) * p_blank(k); kappa is None when expected is 1.
    """
    n = len(pairs)
    if not n:
        return {"observed": None, "expected": None, "kappa": None}
    observed = sum(1 for a, b in pairs if a == b) / n
    clean: dict[str, int] = {}
    blank: dict[str, int] = {}
    for a, b in pairs:
        clean[a] = clean.get(a, 0) + 1
        blank[b] = blank.get(b, 0) + 1
    expected = sum(clean[k] * blank.get(k, 0) for k in clean) / (n * n)
    kappa = None if expected >= 1.0 else (observed - expected) / (1.0 - expected)
    return {"observed": observed, "expected": expected, "kappa": kappa}


def _answer_pairs(rows: Sequence[DecompRow]) -> list[tuple[str, str]]:
    # An unanswered probe is its own answer ("") on either side, as the LP match treats it.
    return [(r.answer or "", r.blank_answer or "") for r in rows if r.blank_answer is not None]


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
        **{f"lp_{k}_agreement" if k != "kappa" else "lp_kappa": v
           for k, v in chance_adjusted_agreement(_answer_pairs(rows)).items()},
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
        entry = {"auroc": auroc(scores, correct),
                 # Where a tie-breaking sort could put it (the penalty score ties a lot).
                 "auroc_tie_range": auroc_tie_range(scores, correct),
                 "aurc": aurc(scores, correct),
                 "sel_acc_60": selective_accuracy(scores, correct, 0.6),
                 "sel_acc_80": selective_accuracy(scores, correct, 0.8),
                 "n_distinct": len(set(scores)),
                 "risk_coverage": risk_coverage(scores, correct)}
        per_score[method] = entry
        out[f"auroc_{method}"] = entry["auroc"]
        out[f"aurc_{method}"] = entry["aurc"]
        out[f"sel_acc_60_{method}"] = entry["sel_acc_60"]
        out[f"sel_acc_80_{method}"] = entry["sel_acc_80"]
    out["best_source_aware"] = best_source_aware({m: per_score[m]["auroc"]
                                                  for m in SCALARIZATIONS[1:]})
    out["scores"] = per_score
    return out


def best_source_aware(aurocs: dict[str, float | None]) -> str | None:
    """The source-aware score with the highest AUROC; a tie goes to the one listed first
    (penalty, weighted, geometric: the order of the paper's columns); None if none is defined.

    >>> best_source_aware({"penalty": 0.7, "weighted": 0.7, "geometric": None})
    'penalty'
    """
    defined = [m for m, value in aurocs.items() if value is not None]
    return max(defined, key=lambda m: (aurocs[m], -defined.index(m)), default=None)


def abstain(results_dir: str | Path) -> dict[str, Any]:
    """Per-(model, dataset) abstention comparison of a decomposition results folder (Table 33)."""
    out = []
    for model, dataset, path in discover(results_dir):
        rows, stats = load_decomposition(path)
        out.append({"model": model, "dataset": dataset, **abstain_rows(rows),
                    **{f"lp_{k}_agreement" if k != "kappa" else "lp_kappa": v
           for k, v in chance_adjusted_agreement(_answer_pairs(rows)).items()},
        "n_unparsed": sum(1 for r in rows if not r.judged.parsed),
                    **_stats_fields(stats)})
    return {"analysis": "abstain", "results_dir": str(results_dir), "rows": out}


# ---------------------------------------------------------------------------------------------
# Pooled summaries (Tables 14, 32, 34)
# ---------------------------------------------------------------------------------------------

#: Coverages of the paper's Table 34.
TABLE34_COVERAGES = (0.05, 0.10, 0.20, 0.40, 0.60, 0.80, 1.00)
SOURCE_AWARE = SCALARIZATIONS[1:]
POOLED = "pooled"


def share(count: int, n: int) -> str:
    """A count as a percentage of n with two decimals, as Table 14 prints it.

    >>> share(2, 14610), share(2, 58440), share(0, 340), share(58287, 58440)
    ('0.01%', '<0.01%', '0.00%', '99.74%')

    A non-zero count that rounds to 0.00% is shown as "<0.01%" so it is not read as none.
    """
    if n <= 0:
        return "n/a"
    pct = 100.0 * count / n
    if count and pct < 0.005:
        return "<0.01%"
    return f"{pct:.2f}%"


def dominance_summary(settings: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Table 14: raw-dominance counts per model (summed over its datasets) and pooled.

    >>> s = [{"model": "m", "dataset": "a", "n": 3, "dominant_v": 1, "dominant_l": 2, "dominant_a": 0},
    ...      {"model": "m", "dataset": "b", "n": 1, "dominant_v": 0, "dominant_l": 0, "dominant_a": 1}]
    >>> r = dominance_summary(s)[0]; r["n"], r["dominant_l"], r["share_l"], r["datasets"]
    (4, 2, '50.00%', ['a', 'b'])

    `settings` are per-(model, dataset) profile rows (`profile_rows` plus model and dataset).
    The last row is the pool of all models (`model` = "pooled").
    """
    keys = ("n", "dominant_v", "dominant_l", "dominant_a")
    groups: dict[str, list[dict[str, Any]]] = {}
    for s in settings:
        groups.setdefault(s["model"], []).append(s)
    groups[POOLED] = list(settings)
    out = []
    for model in sorted(k for k in groups if k != POOLED) + [POOLED]:
        members = groups[model]
        row: dict[str, Any] = {"model": model,
                               "datasets": sorted({m["dataset"] for m in members}),
                               **{k: sum(m[k] for m in members) for k in keys}}
        for c in "vla":
            row[f"share_{c}"] = share(row[f"dominant_{c}"], row["n"])
        out.append(row)
    return out


def _scores(rows: Sequence[DecompRow], method: str) -> list[float]:
    return [scalarize(r.confidence, r.v, r.l, r.a, method) for r in rows]


def auroc_summary(groups: dict[str, Sequence[DecompRow]]) -> list[dict[str, Any]]:
    """Table 32: AUROC of each score per group (a model's datasets pooled), best source-aware.

    >>> from halluscope.prism.results import Correctness
    >>> ok, bad = Correctness(True, True), Correctness(False, True)
    >>> rows = [DecompRow("a", 1, ok, None, 0.9, 0.1, 0.5, 0.1, True),
    ...         DecompRow("b", 2, bad, None, 0.6, 0.1, 0.5, 0.1, False)]
    >>> r = auroc_summary({"m": rows})[0]; r["auroc_scalar"], r["best_source_aware"]
    (1.0, 'penalty')

    The best source-aware score has the highest AUROC; a tie goes to the earlier of penalty,
    weighted, geometric (the order of the paper's columns).
    """
    out = []
    for name, rows in groups.items():
        correct = [r.correct for r in rows]
        row: dict[str, Any] = {"model": name, "n": len(rows),
                               "accuracy": _mean([1.0 if c else 0.0 for c in correct])}
        for method in SCALARIZATIONS:
            row[f"auroc_{method}"] = auroc(_scores(rows, method), correct)
        best = best_source_aware({m: row[f"auroc_{m}"] for m in SOURCE_AWARE})
        row["best_source_aware"] = best
        row["auroc_best_source_aware"] = row[f"auroc_{best}"] if best else None
        out.append(row)
    return out


def risk_summary(rows: Sequence[DecompRow],
                 coverages: Sequence[float] = TABLE34_COVERAGES) -> list[dict[str, Any]]:
    """Table 34: selective risk of each score at each coverage over the given (pooled) rows.

    >>> from halluscope.prism.results import Correctness
    >>> ok, bad = Correctness(True, True), Correctness(False, True)
    >>> rows = [DecompRow("a", 1, ok, None, 0.9, 0.1, 0.5, 0.1, True),
    ...         DecompRow("b", 2, bad, None, 0.6, 0.1, 0.5, 0.1, False)]
    >>> [(p["n_answered"], p["risk_scalar"], p["best_source_aware"]) for p in risk_summary(rows, [0.5, 1.0])]
    [(1, 0.0, 'penalty'), (2, 0.5, 'penalty')]

    Risk = 1 - selective accuracy of the floor(coverage * n) highest-scored rows (ties
    admitted in random order, expected value: `selective.risk_coverage`). The best
    source-aware score has the lowest risk; risks equal to 12 decimals tie (at 100% coverage
    every score has the same risk up to float summation order), and a tie goes to the earlier
    of penalty, weighted, geometric: Table 34 names "Penalty" at 100%.
    """
    correct = [r.correct for r in rows]
    curves = {m: risk_coverage(_scores(rows, m), correct, coverages) for m in SCALARIZATIONS}
    out = []
    for i, coverage in enumerate(coverages):
        point: dict[str, Any] = {"coverage": coverage,
                                 "n_answered": curves["scalar"][i]["n_answered"] if rows else 0}
        for m in SCALARIZATIONS:
            point[f"risk_{m}"] = curves[m][i]["risk"] if rows else None
        best = min(SOURCE_AWARE, key=lambda m: (round(point[f"risk_{m}"], 12),
                                                SOURCE_AWARE.index(m))) if rows else None
        point["best_source_aware"] = best
        point["risk_best_source_aware"] = point[f"risk_{best}"] if best else None
        out.append(point)
    return out


def pooled_summary(results_dir: str | Path,
                   coverages: Sequence[float] = TABLE34_COVERAGES) -> dict[str, Any]:
    """Tables 14, 32 and 34 of a decomposition results folder: per model and pooled.

    Each file is read and de-duplicated once; a model's row pools its datasets, the pooled row
    pools every (model, dataset) file, ranking all rows together (as the paper's pooled rows).
    """
    settings, by_model, pooled = [], {}, []
    for model, dataset, path in discover(results_dir):
        rows, stats = load_decomposition(path)
        settings.append({"model": model, "dataset": dataset, **profile_rows(rows),
                         **_stats_fields(stats)})
        by_model.setdefault(model, []).extend(rows)
        pooled.extend(rows)
    groups = {m: by_model[m] for m in sorted(by_model)}
    groups[POOLED] = pooled
    return {"analysis": "pooled", "results_dir": str(results_dir),
            "settings": [{k: s[k] for k in ("model", "dataset", "n", "accuracy", "dominant_v",
                                            "dominant_l", "dominant_a", "n_unparsed",
                                            "n_duplicates", "n_skipped")} for s in settings],
            "table14": dominance_summary(settings),
            "table32": auroc_summary(groups),
            "table34": risk_summary(pooled, coverages),
            # Appendix 10.1's clean/blank chance-adjusted agreement, per model and pooled.
            "clean_blank_agreement": [{"model": m, **chance_adjusted_agreement(
                _answer_pairs(rows))} for m, rows in groups.items()]}


def _r3(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def pooled_tables(summary: dict[str, Any]) -> list[tuple[str, str, list[str], list[list[str]]]]:
    """(name, title, header, rows) of Tables 14, 32 and 34 as printed (cells are strings).

    >>> s = {"table14": [], "table32": [], "table34": [{"coverage": 0.05, "n_answered": 3,
    ...      "risk_scalar": 0.0182, "risk_penalty": 0.29, "risk_weighted": 0.023,
    ...      "risk_geometric": 0.225, "best_source_aware": "weighted",
    ...      "risk_best_source_aware": 0.023}]}
    >>> pooled_tables(s)[2][3]
    [['5%', '3', '0.018', '0.290', '0.023', '0.225', '0.023 (Weighted)']]
    """
    def name(model: str) -> str:
        return "Pooled" if model == POOLED else model

    t14 = [[name(r["model"]), f"{r['n']:,}",
            *(f"{r[f'dominant_{c}']:,} ({r[f'share_{c}']})" for c in "vla")]
           for r in summary["table14"]]
    t32 = [[name(r["model"]), f"{r['n']:,}", *(_r3(r[f"auroc_{m}"]) for m in SCALARIZATIONS),
            _r3(r["auroc_best_source_aware"]) + (f" ({r['best_source_aware'].capitalize()})"
                                                 if r["best_source_aware"] else "")]
           for r in summary["table32"]]
    t34 = [[f"{100 * p['coverage']:g}%", str(p["n_answered"]),
            *(_r3(p[f"risk_{m}"]) for m in SCALARIZATIONS),
            _r3(p["risk_best_source_aware"]) + (f" ({p['best_source_aware'].capitalize()})"
                                                if p["best_source_aware"] else "")]
           for p in summary["table34"]]
    return [
        ("table14", "Table 14: largest-coordinate counts, raw argmax(V, L, A)",
         ["Model", "N", "Dominant V", "Dominant L", "Dominant A"], t14),
        ("table32", "Table 32: AUROC of scalar confidence and source-aware scalarizations",
         ["Model", "N", "Scalar", "Penalty", "Weighted", "Geometric", "Best SA"], t32),
        ("table34", "Table 34: pooled risk-coverage",
         ["Coverage", "N answered", "Scalar Risk", "Penalty Risk", "Weighted Risk",
          "Geometric Risk", "Best SA Risk"], t34),
    ]


def pooled_markdown(summary: dict[str, Any]) -> str:
    """The three tables as Markdown, with the settings they pool."""
    from halluscope.report.markdown import markdown_table

    covered = ", ".join(f"{s['model']}/{s['dataset']} ({s['n']})" for s in summary["settings"])
    parts = ["# HalluPrism pooled summary", "", f"Results: {summary['results_dir']}", "",
             f"Settings pooled: {covered}.", ""]
    for _key, title, header, rows in pooled_tables(summary):
        parts += [f"## {title}", "", markdown_table(header, rows), ""]
    return "\n".join(parts)


def pooled_csv(summary: dict[str, Any], table: str) -> str:
    """One table's rows as CSV with unformatted numbers (`table`: table14, table32, table34).

    >>> print(pooled_csv({"table34": [{"coverage": 1.0, "n_answered": 2, "risk_scalar": 0.5,
    ...     "risk_penalty": 0.5, "risk_weighted": 0.5, "risk_geometric": 0.5,
    ...     "best_source_aware": "penalty", "risk_best_source_aware": 0.5}]}, "table34"), end="")
    coverage,n_answered,risk_scalar,risk_penalty,risk_weighted,risk_geometric,best_source_aware,risk_best_source_aware
    1.0,2,0.5,0.5,0.5,0.5,penalty,0.5
    """
    import csv
    import io

    rows = summary[table]
    fields = [k for k in rows[0] if k != "datasets"] if rows else []
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def write_pooled(results_dir: str | Path, out_dir: str | Path) -> dict[str, Any]:
    """Write pooled.json, pooled.md and table14/32/34.csv into `out_dir` (atomically)."""
    from halluscope.io.atomic import write_json_atomic, write_text_atomic

    summary = pooled_summary(results_dir)
    out = Path(out_dir)
    write_json_atomic(out / "pooled.json", summary)
    write_text_atomic(out / "pooled.md", pooled_markdown(summary))
    for table in ("table14", "table32", "table34"):
        write_text_atomic(out / f"{table}.csv", pooled_csv(summary, table))
    return summary


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


def win_counts(settings: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Table 36: per model and pooled, in how many settings matched routing beats generic
    prompting, beats no intervention, and breaks less than generic prompting (strictly).

    >>> s = [{"model": "m", "acc_none": 0.8, "acc_generic": 0.7, "acc_matched": 0.75,
    ...       "break_generic": 0.2, "break_matched": 0.1}]
    >>> win_counts(s)[0]["matched_gt_generic"], win_counts(s)[0]["matched_gt_none"]
    (1, 0)

    A setting with an undefined rate (no right or no wrong answers) counts as no win.
    """
    gt = lambda a, b: a is not None and b is not None and a > b  # noqa: E731 - local helper
    models = sorted({s["model"] for s in settings})
    out = []
    for model in [*models, None]:  # None: pooled over every model
        mine = [s for s in settings if model is None or s["model"] == model]
        out.append({"model": model or "pooled", "n_settings": len(mine),
                    "matched_gt_generic": sum(gt(s["acc_matched"], s["acc_generic"]) for s in mine),
                    "matched_gt_none": sum(gt(s["acc_matched"], s["acc_none"]) for s in mine),
                    "lower_break_rate": sum(gt(s["break_generic"], s["break_matched"])
                                            for s in mine)})
    return out


def route(results_dir: str | Path) -> dict[str, Any]:
    """Per-(model, dataset) routing outcomes of an intervention results folder (Table 35) and
    the model-level win counts (Table 36)."""
    out = []
    for model, dataset, path in discover(results_dir):
        raw, stats = read_rows(path)
        rows = [intervention_row(row, path, line) for line, row in raw]
        out.append({"model": model, "dataset": dataset, **route_rows(rows),
                    **_stats_fields(stats)})
    return {"analysis": "route", "results_dir": str(results_dir), "rows": out,
            "win_counts": win_counts(out)}


# ---------------------------------------------------------------------------------------------
# Recompute
# ---------------------------------------------------------------------------------------------

def recompute_file(path: Path, preset: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every row of one file with (V, L, A) recomputed from its raw probe fields (and
    `signature_preset` set), plus a summary.

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
        # The whole row with its scores replaced, so every analysis reads the output folder.
        new = {**row, "v_score": v, "lp_score": l, "a_score": a, "signature_preset": preset}
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
