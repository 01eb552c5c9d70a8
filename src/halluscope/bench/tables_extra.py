"""NAME-Bench appendix tables over the loaded bench data: Tables 6, 11, 14, 15, 16 and 17.

>>> t = table17([{"label": "non_assertive", "subtype": "hedged", "category": c}
...              for c in ["dog", "dog", "cat"]])
>>> r = t["rows"][1]; (r["subtype"], r["n"], r["concepts"], r["top 5 (% of subtype)"])
('hedged', 3, 2, 'dog (66.7), cat (33.3)')

- Table 6 (§5.1): per subtype s, non-assertive FPR on held-out s when the 30% mixing budget is
  drawn from every subtype (seen) and when the same number is drawn from the other subtypes
  only (unseen); per trained probe and their mean.
- Table 11 (§5.2, Appendix E): the text filter (`text.usage.text_filter`) trained on the fit
  set's concrete + hallucinated mentions and the natural share of non-assertive ones; its recall
  per subtype, the held-out hallucinations it removes, and each detector's held-out FPR / TPR
  without and with it (threshold recalibrated on the calibration concrete mentions that pass the
  filter; filtered mentions are never flagged). Training-free detectors as published, trained
  probes mixed at the natural share (the paper's "mixing + filter").
- Table 14 (Appendix H): FPR per subtype per mixing budget for the two strongest probes.
- Table 15 (Appendix I): hedges re-labelled as claims (`namebench_class(...,
  hedges_as_claims=True)`), probes retrained at budgets 0 and nat; FPR on the held-out
  non-hedged non-assertive mentions (the same mentions under both conventions), TPR.
- Table 16 (Appendix K): budget-0 flag rates of the retained subtypes vs the non-assertive
  mentions outside them ("generic" = Other) when the labels keep them, and of the compound
  matches (Comp.): not in NAME-Bench (dropped at the join, usage not_object), but the signal
  store has their rows, so the same fitted detectors score them against the same threshold.
- Table 17 (Appendix J): COCO concepts per subtype (n, distinct, top five with shares).

Every metric cell is {"mean", "std", "n_seeds"} over seeds (None where undefined, never NaN,
with the reason in the notes), as in `bench.experiments`; all randomness is keyed on the seed
and the mention keys (same mixing order as `bench.runner`), so reruns are identical.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from halluscope.bench.experiments import make_table, mean_std, subtypes_of
from halluscope.bench.protocol import MentionTable, calibrate_threshold, split_codes

TABLES: tuple[str, ...] = ("6", "11", "14", "15", "16", "17")
TABLE6_BUDGET = 30.0  # % of the fit set's hallucinations, as in the paper
STRONGEST: tuple[str, ...] = ("lookback_lens", "hidden_mid")  # Table 14's two probes
EXCLUDED_CONCEPTS: frozenset[str] = frozenset({"orange"})  # Appendix C: excluded throughout
Progress = Callable[[str], None]


def _quiet(message: str) -> None:
    return None


# --- fitting and flagging ----------------------------------------------------------------------

def _take(features: Mapping[str, np.ndarray], columns: Sequence[str], rows: np.ndarray
          ) -> dict[str, np.ndarray]:
    return {c: np.asarray(features[c])[rows] for c in columns if c in features}


def fit_detector(name: str, options: Mapping[str, Any], table: MentionTable,
                 features: Mapping[str, np.ndarray], codes: np.ndarray, mixed: np.ndarray,
                 seed: int) -> Any:
    """Detector `name` trained on the fit set's concrete + hallucinated mentions plus the rows
    `mixed` (label 0); training-free detectors are returned as built. Mirrors the runner's fit
    step (same labels, detector seed) so budget-0 results equal the main run's. Raises the
    detector's `HalluscopeError` on bad features."""
    from halluscope.detectors import get_detector

    detector = get_detector(name, **options)
    if not detector.trained:
        return detector
    if hasattr(detector, "seed"):
        detector.seed = int(seed)
    base = np.flatnonzero((codes == 0) & (table.label != "non_assertive"))
    rows = np.sort(np.concatenate([base, np.asarray(mixed, dtype=np.int64)]))
    y = (table.label[rows] == "hallucinated").astype(np.int64)
    detector.fit(_take(features, detector.columns, rows), y)
    return detector


def score_with(detector: Any, features: Mapping[str, np.ndarray], rows: np.ndarray
               ) -> np.ndarray:
    """`detector`'s float64 scores of `rows` of `features`."""
    return np.asarray(detector.score(_take(features, detector.columns, rows)), dtype=np.float64)


def fit_scores(name: str, options: Mapping[str, Any], table: MentionTable,
               features: Mapping[str, np.ndarray], codes: np.ndarray, mixed: np.ndarray,
               seed: int) -> np.ndarray | str:
    """Scores of every non-fit row (0.0 on fit rows; training-free detectors: every row) of
    `fit_detector(...)`, or its failure message."""
    from halluscope.errors import HalluscopeError

    try:
        detector = fit_detector(name, options, table, features, codes, mixed, seed)
        if not detector.trained:
            return score_with(detector, features, np.arange(len(table)))
        scored = np.flatnonzero(codes != 0)
        out = np.zeros(len(table))
        out[scored] = score_with(detector, features, scored)
        return out
    except HalluscopeError as exc:
        return str(exc)


def flags_at_threshold(scores: np.ndarray, table: MentionTable, codes: np.ndarray,
                       passed: np.ndarray | None = None) -> tuple[np.ndarray | None, str | None]:
    """Flags (score > threshold) of mentions that pass the filter, the threshold flagging 10% of
    the calibration concrete mentions that pass it; (None, reason) when there are none.

    >>> t = MentionTable.from_columns(list("abcd"), ["concrete"] * 4)
    >>> flags, _ = flags_at_threshold(np.arange(4.0), t, np.array([1, 1, 2, 2]))
    >>> flags.tolist()
    [False, False, True, True]
    """
    passed = np.ones(len(table), dtype=bool) if passed is None else passed
    threshold, reason = calibrated_threshold(scores, table, codes, passed)
    if threshold is None:
        return None, reason
    return (scores > threshold) & passed, None


def calibrated_threshold(scores: np.ndarray, table: MentionTable, codes: np.ndarray,
                         passed: np.ndarray) -> tuple[float | None, str | None]:
    """The threshold flagging 10% of the calibration concrete mentions that pass, or (None,
    reason)."""
    if not np.isfinite(scores).all():
        return None, "NaN or infinite scores"
    calibration = scores[(codes == 1) & (table.label == "concrete") & passed]
    if not len(calibration):
        return None, "no calibration concrete mentions (after the filter)"
    return calibrate_threshold(calibration).value, None


def rate(flags: np.ndarray, mask: np.ndarray) -> float | None:
    """Share of `mask` rows flagged; None when `mask` is empty (never NaN).

    >>> rate(np.array([True, False]), np.array([True, True]))
    0.5
    >>> rate(np.array([True]), np.array([False])) is None
    True
    """
    return float(flags[mask].mean()) if mask.any() else None


def mix_pool(table: MentionTable, codes: np.ndarray, seed: int,
             keep: np.ndarray | None = None) -> np.ndarray:
    """The fit set's non-assertive rows (optionally only `keep` rows) in the runner's keyed mixing
    order, so the first m of them are what budget m mixes in."""
    from halluscope.bench.runner import _mix_order  # one definition of the order

    rows = np.flatnonzero((codes == 0) & (table.label == "non_assertive")
                          & (True if keep is None else keep))
    return rows[_mix_order(table.mention_keys()[rows], seed)]


def natural_count(table: MentionTable, codes: np.ndarray, natural_share: float) -> int:
    """Non-assertive examples of the "nat" budget for this split (the runner's formula).

    >>> t = MentionTable.from_columns(list("abcd"), ["concrete", "hallucinated"] * 2)
    >>> natural_count(t, np.zeros(4, dtype=np.int8), 0.2)
    1
    """
    n_training = int(((codes == 0) & (table.label != "non_assertive")).sum())
    return int(round(natural_share * n_training / (1.0 - natural_share)))


def _n_cell(values: Sequence[int]) -> str:
    return f"{np.mean(values):.1f}" if values else "0"


# --- Table 6: seen -> unseen subtype ------------------------------------------------------------

def table6(table: MentionTable, features: Mapping[str, np.ndarray],
           detectors: Mapping[str, Mapping[str, Any]], seeds: Sequence[int],
           budget: float = TABLE6_BUDGET, progress: Progress = _quiet) -> dict[str, Any]:
    """Held-out FPR on each subtype, trained with it (seen) vs without it (unseen) in the mix."""
    subtypes = subtypes_of(table)
    columns = ["detector", "subtype", "seen %", "unseen %", "n mixed", "n held-out"]
    notes: list[str] = []
    if len(subtypes) < 2:
        notes.append("fewer than two subtypes: no unseen condition")
    if not detectors:
        notes.append("no trained detector ran")
    per: dict[tuple[str, str], dict[str, list[Any]]] = {}
    for seed in seeds:
        codes = split_codes(table.image_id, seed)
        pool = mix_pool(table, codes, seed)
        wanted = int(round(budget / 100.0 * ((codes == 0) & (table.label == "hallucinated")).sum()))
        for name, options in detectors.items():
            cache: dict[tuple[int, ...], np.ndarray | str] = {}
            for sub in subtypes if len(subtypes) > 1 else []:
                other = pool[table.subtype[pool] != sub]
                m = min(wanted, len(other))  # same count in both conditions
                if m < wanted:
                    notes.append(f"seed {seed}, {sub}: {wanted} wanted, {m} unseen available")
                cell = per.setdefault((name, sub), {"seen": [], "unseen": [], "m": [], "n": [],
                                                    "notes": []})
                held = (codes == 2) & (table.subtype == sub)
                for condition, mixed in (("seen", pool[:m]), ("unseen", other[:m])):
                    key = tuple(mixed.tolist())
                    if key not in cache:
                        progress(f"table 6: seed {seed} {name} {sub} {condition} ({m} mixed)")
                        cache[key] = fit_scores(name, options, table, features, codes, mixed,
                                                seed)
                    scores = cache[key]
                    flags, reason = ((None, scores) if isinstance(scores, str)
                                     else flags_at_threshold(scores, table, codes))
                    cell[condition].append(None if flags is None else rate(flags, held))
                    if reason:
                        cell["notes"].append(reason)
                cell["m"].append(m)
                cell["n"].append(int(held.sum()))
    rows = []
    for sub in subtypes if len(subtypes) > 1 else []:
        # The paper's cell: mean over the probes, per seed, then over seeds.
        seen, unseen = [], []
        for i in range(len(seeds)):
            for condition, out in (("seen", seen), ("unseen", unseen)):
                values = [per[(n, sub)][condition][i] for n in detectors
                          if per[(n, sub)][condition][i] is not None]
                out.append(float(np.mean(values)) if values else None)
        if detectors:
            first = per[(next(iter(detectors)), sub)]
            rows.append({"detector": "mean (trained probes)", "subtype": sub,
                         "seen %": mean_std(seen), "unseen %": mean_std(unseen),
                         "n mixed": _n_cell(first["m"]), "n held-out": _n_cell(first["n"]),
                         "notes": [] if any(v is not None for v in seen)
                         else ["no held-out mentions of this subtype"]})
    for name in detectors:
        for sub in subtypes if len(subtypes) > 1 else []:
            cell = per[(name, sub)]
            rows.append({"detector": name, "subtype": sub, "seen %": mean_std(cell["seen"]),
                         "unseen %": mean_std(cell["unseen"]), "n mixed": _n_cell(cell["m"]),
                         "n held-out": _n_cell(cell["n"]), "notes": sorted(set(cell["notes"]))})
    return make_table("table6", "Table 6: non-assertive FPR per subtype, seen -> unseen in "
                      "training", columns, rows, notes=sorted(set(notes)),
                      percent=["seen %", "unseen %"], description=(
                          f"Both conditions mix {budget:g}% of the fit hallucinations; unseen "
                          "draws the same number from the other subtypes only. Threshold: 10% "
                          "of calibration concrete; n: per seed (mean)."))


# --- Table 11: text filter ----------------------------------------------------------------------

def text_filter_rows(table: MentionTable, codes: np.ndarray, seed: int, natural_share: float
                     ) -> tuple[np.ndarray, int]:
    """(training rows, number of non-assertive among them) of the text filter (Appendix E): the
    fit split's concrete + hallucinated mentions and the natural-share budget of its
    non-assertive ones, in the runner's mixing order.

    >>> t = MentionTable.from_columns(list("abcdef"), ["concrete", "hallucinated"] * 2
    ...                               + ["non_assertive"] * 2, [None] * 4 + ["hedged"] * 2)
    >>> rows, m = text_filter_rows(t, np.zeros(6, dtype=np.int8), 0, 0.2); (len(rows), m)
    (5, 1)
    """
    pool = mix_pool(table, codes, seed)
    m = min(natural_count(table, codes, natural_share), len(pool))
    base = np.flatnonzero((codes == 0) & (table.label != "non_assertive"))
    return np.sort(np.concatenate([base, pool[:m]])), m


def text_filter_rates(filtered: np.ndarray, table: MentionTable, codes: np.ndarray,
                      subtypes: Sequence[str]) -> dict[str, float | None]:
    """Held-out shares the filter marks: recall per non-assertive subtype and overall, and the
    hallucinated and concrete mentions it removes (None where a group is empty).

    >>> t = MentionTable.from_columns(list("abc"), ["non_assertive", "hallucinated", "concrete"],
    ...                               ["hedged", None, None])
    >>> r = text_filter_rates(np.array([True, False, True]), t, np.full(3, 2), ["hedged"])
    >>> r["hedged recall %"], r["halluc removed %"], r["concrete removed %"]
    (1.0, 0.0, 1.0)
    """
    held = codes == 2
    na = held & (table.label == "non_assertive")
    out = {f"{s} recall %": rate(filtered, na & (table.subtype == s)) for s in subtypes}
    out["all recall %"] = rate(filtered, na)
    out["halluc removed %"] = rate(filtered, held & (table.label == "hallucinated"))
    out["concrete removed %"] = rate(filtered, held & (table.label == "concrete"))
    return out


def table11(table: MentionTable, features: Mapping[str, np.ndarray],
            detectors: Mapping[str, Mapping[str, Any]], seeds: Sequence[int],
            natural_share: float, progress: Progress = _quiet
            ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(filter table: recall per subtype and hallucinations removed; detector table: FPR / TPR
    without and with the filter)."""
    from halluscope.detectors import TRAINED
    from halluscope.errors import HalluscopeError
    from halluscope.text.usage.text_filter import FEATURE_COLUMN, fit_text_filter

    subtypes = subtypes_of(table)
    f_columns = (["filter", *[f"{s} recall %" for s in subtypes], "all recall %",
                  "halluc removed %", "concrete removed %", "n mixed"])
    d_columns = ["detector", "group", "NA FPR %", "NA FPR filter %", "halluc TPR %",
                 "halluc TPR filter %"]
    notes: list[str] = []
    if FEATURE_COLUMN not in features:
        notes.append(f"the signals have no {FEATURE_COLUMN}: no text filter")
        return (make_table("table11_filter", "Table 11 (left): text filter", f_columns, [],
                           notes=notes),
                make_table("table11", "Table 11 (right): detectors with the text filter",
                           d_columns, [], notes=notes))
    recall: dict[str, list[float | None]] = {c: [] for c in f_columns[1:-1]}
    mixed_counts: list[int] = []
    cells: dict[str, dict[str, list[Any]]] = {
        n: {c: [] for c in d_columns[2:]} | {"notes": []} for n in detectors}
    x = np.asarray(features[FEATURE_COLUMN])
    for seed in seeds:
        codes = split_codes(table.image_id, seed)
        rows, m = text_filter_rows(table, codes, seed, natural_share)
        mixed_counts.append(m)
        progress(f"table 11: seed {seed} fitting the text filter ({m} non-assertive)")
        try:
            model = fit_text_filter(x[rows], table.label[rows] == "non_assertive")
            filtered = model.is_non_assertive(x)
        except HalluscopeError as exc:
            notes.append(f"seed {seed}: text filter not fitted ({exc})")
            continue
        passed = ~filtered
        held = codes == 2
        na = held & (table.label == "non_assertive")
        for column, value in text_filter_rates(filtered, table, codes, subtypes).items():
            recall[column].append(value)
        nat_mix = mix_pool(table, codes, seed)[:m]
        for name, options in detectors.items():
            progress(f"table 11: seed {seed} {name}")
            scores = fit_scores(name, options, table, features, codes, nat_mix, seed)
            cell = cells[name]
            for suffix, keep in (("", None), (" filter", passed)):
                flags, reason = ((None, scores) if isinstance(scores, str)
                                 else flags_at_threshold(scores, table, codes, keep))
                if reason:
                    cell["notes"].append(reason)
                cell[f"NA FPR{suffix} %"].append(None if flags is None else rate(flags, na))
                cell[f"halluc TPR{suffix} %"].append(
                    None if flags is None else rate(flags, held & (table.label == "hallucinated")))
    filter_row = {"filter": "text filter (p > 0.5)", **{c: mean_std(v) for c, v in recall.items()},
                  "n mixed": _n_cell(mixed_counts), "notes": []}
    d_rows = []
    for name in detectors:
        group = "trained (nat mix)" if name in TRAINED else "training-free"
        d_rows.append({"detector": name, "group": group,
                       **{c: mean_std(cells[name][c]) for c in d_columns[2:]},
                       "notes": sorted(set(cells[name]["notes"]))})
    ranges = _group_ranges(d_rows)
    left = make_table("table11_filter", "Table 11 (left): text filter recall", f_columns,
                      [filter_row], notes=sorted(set(notes)),
                      percent=[c for c in f_columns if c.endswith("%")], description=(
                          "Class-balanced logistic regression on standardised "
                          f"{FEATURE_COLUMN}, fit concrete + hallucinated vs the natural share "
                          "of non-assertive mentions, threshold 0.5; held-out shares filtered."))
    right = make_table("table11", "Table 11 (right): detectors without / with the text filter",
                       d_columns, d_rows, notes=sorted(set(notes)) + ranges,
                       percent=[c for c in d_columns if c.endswith("%")], description=(
                           "With the filter, filtered mentions are never flagged and the "
                           "threshold flags 10% of the calibration concrete mentions that pass "
                           "it. Trained probes are mixed at the natural share."))
    return left, right


def _group_ranges(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The paper's summary: min-max NA FPR per detector group, without -> with the filter."""
    out = []
    for group in sorted({r["group"] for r in rows}):
        spans = []
        for column in ("NA FPR %", "NA FPR filter %"):
            values = [r[column]["mean"] for r in rows
                      if r["group"] == group and r[column]["mean"] is not None]
            spans.append(f"{100 * min(values):.0f}-{100 * max(values):.0f}" if values else "-")
        out.append(f"{group}: NA FPR {spans[0]}% without, {spans[1]}% with the filter")
    return out


# --- Table 14: mixing by category ---------------------------------------------------------------

def strongest(names: Sequence[str]) -> list[str]:
    """Table 14's two probes: Lookback Lens and the mid-layer probe, else the first trained ones.

    >>> strongest(["nll", "hidden_mid", "dhcp"])
    ['hidden_mid', 'dhcp']
    """
    from halluscope.detectors import TRAINED

    trained = [n for n in names if n in TRAINED]
    chosen = [n for n in STRONGEST if n in trained]
    return (chosen + [n for n in trained if n not in chosen])[:2]


def table14(table: MentionTable, features: Mapping[str, np.ndarray],
            detectors: Mapping[str, Mapping[str, Any]], seeds: Sequence[int],
            budgets: Sequence[str], natural_share: float | None,
            progress: Progress = _quiet) -> dict[str, Any]:
    """Held-out FPR per subtype at each mixing budget (runner's protocol) for `detectors`."""
    from halluscope.bench.runner import run_protocol

    subtypes = subtypes_of(table)
    budgets = list(dict.fromkeys(["0", *budgets]))
    if natural_share is None and "nat" in budgets:
        budgets.remove("nat")
    columns = ["detector", "subtype", "n held-out", *budgets]
    notes: list[str] = []
    rows = []
    if detectors and subtypes:
        report = run_protocol(table, features, dict(detectors), tuple(seeds), budgets,
                              natural_share, progress=progress)
        held = {s: [int(((split_codes(table.image_id, seed) == 2) & (table.subtype == s)).sum())
                    for seed in seeds] for s in subtypes}
        for b in budgets:
            counts = [p["budgets"][b]["n_mixed"] for p in report["per_seed"]]
            notes.append(f"budget {b}: {np.mean(counts):.1f} non-assertive mixed (mean)")
            notes += [n for p in report["per_seed"] for n in p["budgets"][b]["notes"]]
        for name in detectors:
            for s in subtypes:
                row: dict[str, Any] = {"detector": name, "subtype": s,
                                       "n held-out": _n_cell(held[s]), "notes": []}
                for b in budgets:
                    summary = report["mean"][b][name]
                    row[b] = summary["na_fpr_by_subtype"].get(
                        s, {"mean": None, "std": None, "n_seeds": 0})
                    if row[b]["mean"] is None:
                        row["notes"] = sorted(set(row["notes"]) | {f"budget {b}: undefined"})
                if min(held[s]) < 30:
                    row["notes"].append("n < 30 on some seed: noisy")
                rows.append(row)
    else:
        notes.append("no trained probe or no non-assertive mentions: nothing to mix")
    return make_table("table14", "Table 14: non-assertive FPR per subtype by mixing budget",
                      columns, rows, notes=sorted(set(notes), key=notes.index),
                      percent=list(budgets), description=(
                          "Budgets: non-assertive training examples as % of fit hallucinations; "
                          "nat = natural share; n: held-out mentions per seed (mean)."))


# --- Table 15: hedges as claims -----------------------------------------------------------------

def hedges_as_claims(table: MentionTable) -> MentionTable:
    """The table relabelled with hedged mentions judged like existential ones (Appendix I).

    >>> t = MentionTable.from_columns(["a", "b"], ["non_assertive"] * 2, ["hedged", "negation"],
    ...                               [False, True])
    >>> hedges_as_claims(t).label.tolist()
    ['hallucinated', 'non_assertive']
    """
    from halluscope.metrics.classes import namebench_class

    if table.present is None:
        raise ValueError("hedges as claims needs presence")
    labels = [namebench_class("non_assertive" if lab == "non_assertive" else "existential",
                              sub, bool(pres), hedges_as_claims=True)
              for lab, sub, pres in zip(table.label, table.subtype, table.present)]
    return MentionTable.from_columns(table.image_id, labels, table.subtype.tolist(),
                                     table.present.tolist(), table.mention_keys())


def table15(table: MentionTable, features: Mapping[str, np.ndarray],
            detectors: Mapping[str, Mapping[str, Any]], seeds: Sequence[int],
            natural_share: float | None, natural_estimated: bool,
            progress: Progress = _quiet) -> dict[str, Any]:
    """FPR on held-out non-hedged non-assertive mentions and TPR, hedges non-assertive (ours) vs
    hedges as claims (probes retrained), at budgets 0 and nat."""
    columns = ["detector", "budget", "FPR ours %", "FPR claim %", "TPR ours %", "TPR claim %"]
    notes: list[str] = []
    if table.present is None:
        return make_table("table15", "Table 15: hedges as claims", columns, [],
                          notes=["no presence column: hedges cannot be re-labelled"])
    claim = hedges_as_claims(table)
    if not (table.subtype == "hedged").any():
        notes.append("no hedged mentions: both conventions are the same")
    shares: dict[str, float | None] = {"ours": natural_share, "claim": None}
    if natural_share is not None:
        if natural_estimated:  # the labels' own share, recomputed after re-labelling
            shares["claim"] = float((claim.label == "non_assertive").mean())
        else:  # a given share: the hedged part of it becomes claims
            na = table.label == "non_assertive"
            kept = float((na & (table.subtype != "hedged")).sum() / max(int(na.sum()), 1))
            shares["claim"] = natural_share * kept
            notes.append(f"claim convention: natural share {natural_share:.3f} x {kept:.3f} "
                         "(non-hedged part of the non-assertive mentions)")
    budgets = ["0"] + (["nat"] if natural_share is not None else [])
    if natural_share is None:
        notes.append("no natural share: budget nat not run")
    target = (table.label == "non_assertive") & (table.subtype != "hedged")
    cells: dict[tuple[str, str], dict[str, list[Any]]] = {}
    for seed in seeds:
        codes = split_codes(table.image_id, seed)
        held = codes == 2
        for convention, t in (("ours", table), ("claim", claim)):
            pool = mix_pool(t, codes, seed)
            for b in budgets:
                share = shares[convention]
                m = 0 if b == "0" or share is None else min(
                    natural_count(t, codes, share), len(pool))
                for name, options in detectors.items():
                    progress(f"table 15: seed {seed} {convention} budget {b} {name}")
                    scores = fit_scores(name, options, t, features, codes, pool[:m], seed)
                    cell = cells.setdefault((name, b), {c: [] for c in columns[2:]} | {"notes": []})
                    flags, reason = ((None, scores) if isinstance(scores, str)
                                     else flags_at_threshold(scores, t, codes))
                    if reason:
                        cell["notes"].append(reason)
                    cell[f"FPR {convention} %"].append(
                        None if flags is None else rate(flags, held & target))
                    cell[f"TPR {convention} %"].append(
                        None if flags is None else rate(flags, held & (t.label == "hallucinated")))
    rows = [{"detector": name, "budget": b, **{c: mean_std(cells[(name, b)][c])
                                                for c in columns[2:]},
             "notes": sorted(set(cells[(name, b)]["notes"]))}
            for name in detectors for b in budgets]
    if not target.any():
        notes.append("no non-hedged non-assertive mentions: FPR undefined")
    return make_table("table15", "Table 15: hedges non-assertive (ours) vs hedges as claims",
                      columns, rows, notes=notes, percent=columns[2:], description=(
                          "FPR: held-out depictive / purpose / negation (non-hedged) mentions "
                          "flagged, the same mentions under both conventions; TPR: each "
                          "convention's held-out hallucinations (claim: absent hedges count)."))


# --- Table 16: excluded mentions ----------------------------------------------------------------

@dataclass
class Compounds:
    """The labels' compound matches (usage not_object, a "compound" reason) that the signal store
    has rows for: their image ids and features, and how many were left out and why."""

    image_id: np.ndarray  # str
    features: dict[str, np.ndarray]
    n_labelled: int
    n_without_signals: int


def is_compound(row: Mapping[str, Any]) -> bool:
    """A label row the judge marked a compound match (not the object itself).

    >>> is_compound({"usage": "not_object", "reason": "compound-head"})
    True
    >>> is_compound({"usage": "not_object", "reason": "verb-use"})
    False
    """
    return row.get("usage") == "not_object" and "compound" in str(row.get("reason") or "").lower()


def _compound_rows(labels: str | Path, model: str | None) -> list[dict[str, Any]] | None:
    """The labels' compound rows (of `model`), or None when the labels give no reasons."""
    import pyarrow.parquet as pq

    rows = pq.read_table(labels).to_pylist()  # already read once by the join: no new failure
    if rows and "model" in rows[0] and model is not None:
        rows = [r for r in rows if str(r["model"]) == model]
    if not rows or "reason" not in rows[0]:
        return None
    return [r for r in rows if is_compound(r)]


def load_compounds(labels: str | Path, signals: str | Path, columns: Sequence[str],
                   model: str | None) -> Compounds | None:
    """The compound matches with their signal rows (joined on caption_index, start, end, as the
    bench join does); None when the labels give no reasons to find them by."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from halluscope.bench.dataset import JOIN_KEY
    from halluscope.detectors.base import features_from_arrow
    from halluscope.runs.signal_store import SignalStore

    rows = _compound_rows(labels, model)
    if rows is None:
        return None
    wanted = {(int(r["caption_index"]), int(r["start"]), int(r["end"])) for r in rows}
    parts = []
    # Shard by shard, features read only where a compound is: the store can be many GB.
    for shard in SignalStore(signals).shards("mentions"):
        spans = pq.read_table(shard, columns=list(JOIN_KEY))
        take = [i for i, key in enumerate(zip(*(spans.column(c).to_pylist() for c in JOIN_KEY)))
                if tuple(int(v) for v in key) in wanted]
        if take:
            names = pq.read_schema(shard).names
            part = pq.read_table(shard, columns=[c for c in ["image_id", *columns] if c in names])
            parts.append(part.take(pa.array(take, type=pa.int64())))
    if not parts:
        return Compounds(np.zeros(0, dtype=object), {}, len(rows), len(wanted))
    taken = pa.concat_tables(parts, promote_options="default")
    return Compounds(
        image_id=np.asarray([str(v) for v in taken.column("image_id").to_pylist()], dtype=object),
        features=features_from_arrow(taken, [c for c in columns if c in taken.column_names]),
        n_labelled=len(rows), n_without_signals=len(wanted) - len(taken))


def table16(table: MentionTable, features: Mapping[str, np.ndarray],
            detectors: Mapping[str, Mapping[str, Any]], seeds: Sequence[int],
            compounds: Compounds | None = None, progress: Progress = _quiet) -> dict[str, Any]:
    """Budget-0 flag rates on the four retained subtypes, on the other non-assertive mentions
    ("generic" = Other) when the labels keep them, and on the compound matches (Comp.), which
    are not in the table: they are scored by the same fitted detectors against the same
    threshold, on the held-out split of their image (the split is over the table's images, so
    a compound on an image without NAME-Bench mention has none and is left out)."""
    from halluscope.bench.dataset import SUBTYPE_ORDER
    from halluscope.bench.protocol import SPLITS, split_images
    from halluscope.errors import HalluscopeError

    columns = ["detector", "4 cat. %", "Other %", "n Other", "Comp. %", "n Comp."]
    na = table.label == "non_assertive"
    four = na & np.isin(table.subtype, list(SUBTYPE_ORDER))
    other = na & ~four
    notes = []
    n_comp = 0 if compounds is None else len(compounds.image_id)
    if compounds is None:
        notes.append("the labels give no reason column: compound matches cannot be found")
    else:
        notes.append(f"{compounds.n_labelled} compound matches in the labels (usage not_object, "
                     f"reason 'compound'); {compounds.n_without_signals} have no signal row "
                     "(not scored). The LLM judge checks compounds among initially "
                     "non-assertive mentions only (as the paper), the offline judge among all")
        in_table = set(table.image_id.tolist())
        orphans = sum(1 for i in compounds.image_id if i not in in_table)
        if orphans:
            notes.append(f"{orphans} compound matches on images without NAME-Bench mentions: "
                         "no split, not scored")
    if not other.any():
        notes.append("the labels keep no non-assertive mention outside the four subtypes "
                     "(generic mentions are dropped or absent): Other undefined")
    if not other.any() and not n_comp:
        return make_table("table16", "Table 16: excluded non-assertive mentions", columns, [],
                          notes=notes)
    cells = {n: {"four": [], "other": [], "n": [], "comp": [], "n comp": [], "notes": []}
             for n in detectors}
    for seed in seeds:
        codes = split_codes(table.image_id, seed)
        split = split_images(table.image_id, seed)
        comp_held = (np.zeros(0, dtype=np.int64) if compounds is None else np.flatnonzero(
            [split.get(i) == SPLITS[2] for i in compounds.image_id]))
        for name, options in detectors.items():
            progress(f"table 16: seed {seed} {name}")
            cell = cells[name]
            cell["n"].append(int((other & (codes == 2)).sum()))
            cell["n comp"].append(len(comp_held))
            try:
                detector = fit_detector(name, options, table, features, codes,
                                        np.zeros(0, np.int64), seed)
                scored = (np.arange(len(table)) if not detector.trained
                          else np.flatnonzero(codes != 0))
                scores = np.zeros(len(table))
                scores[scored] = score_with(detector, features, scored)
                comp_scores = (score_with(detector, compounds.features, comp_held)
                               if len(comp_held) else np.zeros(0))
            except HalluscopeError as exc:
                threshold, reason = None, str(exc)
            else:
                threshold, reason = calibrated_threshold(scores, table, codes,
                                                         np.ones(len(table), dtype=bool))
            if threshold is None:
                cell["notes"].append(reason)
                for key in ("four", "other", "comp"):
                    cell[key].append(None)
                continue
            flags = scores > threshold
            cell["four"].append(rate(flags, four & (codes == 2)))
            cell["other"].append(rate(flags, other & (codes == 2)))
            cell["comp"].append(float((comp_scores > threshold).mean()) if len(comp_scores)
                                else None)
    rows = [{"detector": n, "4 cat. %": mean_std(c["four"]), "Other %": mean_std(c["other"]),
             "n Other": _n_cell(c["n"]), "Comp. %": mean_std(c["comp"]),
             "n Comp.": _n_cell(c["n comp"]), "notes": sorted(set(c["notes"]))}
            for n, c in cells.items()]
    if other.any():
        notes.append("Other: subtypes " + ", ".join(sorted(set(table.subtype[other].tolist()))))
    return make_table("table16", "Table 16: flag rates of excluded non-assertive mentions "
                      "(budget 0)", columns, rows, notes=notes,
                      percent=["4 cat. %", "Other %", "Comp. %"],
                      description="No non-assertive training; threshold: 10% of calibration "
                                  "concrete; n: held-out per seed (mean).")


# --- Table 17: concept distribution -------------------------------------------------------------

def table17(rows: Sequence[Mapping[str, Any]], top: int = 5) -> dict[str, Any]:
    """Per subtype ("all" first): non-assertive mentions, distinct COCO concepts, top concepts."""
    from halluscope.bench.dataset import SUBTYPE_ORDER

    na = [r for r in rows if r.get("label") == "non_assertive"
          and str(r.get("category")) not in EXCLUDED_CONCEPTS]
    dropped = sum(1 for r in rows if r.get("label") == "non_assertive") - len(na)
    found = {str(r["subtype"]) for r in na}
    order = [s for s in SUBTYPE_ORDER if s in found] + sorted(found - set(SUBTYPE_ORDER))
    columns = ["subtype", "n", "concepts", f"top {top} (% of subtype)"]
    out = []
    for sub in ["all", *order]:
        group = [r for r in na if sub == "all" or str(r["subtype"]) == sub]
        counts = Counter(str(r["category"]) for r in group)
        # Ties broken by name, so the table does not depend on row order.
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
        out.append({"subtype": sub, "n": len(group), "concepts": len(counts),
                    f"top {top} (% of subtype)": ", ".join(
                        f"{c} ({100.0 * n / len(group):.1f})" for c, n in ranked),
                    "notes": []})
    notes = [f"{dropped} mentions of excluded concepts left out"] if dropped else []
    if not na:
        notes.append("no non-assertive mentions")
    return make_table("table17", "Table 17: COCO concepts of the non-assertive mentions",
                      columns, out, notes=notes)


# --- the command ------------------------------------------------------------------------------

def parse_tables(text: str | None) -> list[str]:
    """Table numbers from "6,11,...", in the canonical order; all when empty.

    >>> parse_tables("17,6"), parse_tables(None)[:2]
    (['6', '17'], ['6', '11'])
    """
    from halluscope.errors import ConfigError

    if not text:
        return list(TABLES)
    wanted = {p.strip() for p in text.split(",") if p.strip()}
    unknown = sorted(wanted - set(TABLES))
    if unknown:
        raise ConfigError(f"unknown table(s) {', '.join(unknown)}; choose from {', '.join(TABLES)}")
    return [t for t in TABLES if t in wanted]


def resolve_natural_share(table: MentionTable, natural_share: float | None
                          ) -> tuple[float, str | None]:
    """(the natural share, a note when it was estimated from the labels themselves).

    >>> t = MentionTable.from_columns(list("abcd"), ["concrete"] * 3 + ["non_assertive"],
    ...                               [None] * 3 + ["hedged"])
    >>> resolve_natural_share(t, None)[0], resolve_natural_share(t, 0.1)
    (0.25, (0.1, None))
    """
    from halluscope.errors import ConfigError

    note = None
    if natural_share is None:
        natural_share = float((table.label == "non_assertive").mean())
        note = (f"natural share {natural_share:.3f} estimated from these labels (right only for "
                "captions of random images; pass --natural-share otherwise)")
    if not 0 <= natural_share < 1:
        raise ConfigError(f"natural share {natural_share} is not in [0, 1)")
    return natural_share, note


def fit_bench_text_filter(labels: str | Path, signals: str | Path, out: str | Path,
                          seed: int = 0, model: str | None = None,
                          annotations: str | Path | None = None,
                          natural_share: float | None = None, allow_unmatched: bool = False
                          ) -> dict[str, Any]:
    """Fit the text filter as Appendix E (and Table 11, seed `seed`) does, save it to `out` (JSON,
    or .npz; never pickle) and return {"path", "n_train", "n_mixed", "natural_share", "rates":
    held-out `text_filter_rates`, "notes"}."""
    from dataclasses import replace

    from halluscope.bench.dataset import load_bench
    from halluscope.errors import InputError
    from halluscope.text.usage.text_filter import FEATURE_COLUMN, fit_text_filter

    data = load_bench(labels, signals, [FEATURE_COLUMN], annotations, model, allow_unmatched)
    if FEATURE_COLUMN not in data.features:
        raise InputError(f"the signal store has no {FEATURE_COLUMN} column (the text-only "
                         "probe's features), which the text filter reads",
                         path=Path(signals) / "mentions")
    table = data.table
    natural_share, note = resolve_natural_share(table, natural_share)
    codes = split_codes(table.image_id, seed)
    rows, m = text_filter_rows(table, codes, seed, natural_share)
    x = np.asarray(data.features[FEATURE_COLUMN])
    fitted = fit_text_filter(x[rows], table.label[rows] == "non_assertive")
    rates = text_filter_rates(fitted.is_non_assertive(x), table, codes, subtypes_of(table))
    info = {"labels": str(labels), "signals": str(signals), "model": data.model or model,
            "seed": int(seed), "natural_share": natural_share, "n_mixed": m,
            "heldout": rates}
    fitted = replace(fitted, info=info)
    fitted.save(out)
    return {"path": str(out), "n_train": dict(fitted.n_train or {}), "n_mixed": m,
            "natural_share": natural_share, "rates": rates,
            "notes": data.notes + ([note] if note else [])}


def run_tables_extra(labels: str | Path, signals: str | Path, out: str | Path,
                     tables: Sequence[str] | str | None = None, seeds: int = 3,
                     detectors: Sequence[str] | None = None, model: str | None = None,
                     annotations: str | Path | None = None, natural_share: float | None = None,
                     budgets: str = "0,nat,10,30,100,max", allow_unmatched: bool = False,
                     detector_options: Mapping[str, Mapping[str, Any]] | None = None,
                     progress: Progress | None = None) -> dict[str, Any]:
    """Load the bench, compute the requested tables, write `extra_results.json`,
    `extra_tables.md` and one CSV per table under `out` (atomically); return the results.
    `detector_options` ({name: {option: value}}) are passed to the detectors' constructors."""
    from halluscope.bench.dataset import load_bench
    from halluscope.runs.signal_store import SignalStore
    from halluscope.report.tables import table_csv, table_markdown
    from halluscope.bench.run import _captions_have_halp, parse_budgets, resolve_detectors
    from halluscope.detectors import DETECTOR_COLUMNS, TRAINED
    from halluscope.errors import ConfigError, InputError
    from halluscope.io.atomic import write_json_atomic, write_text_atomic
    from halluscope.text.usage.text_filter import FEATURE_COLUMN

    say = progress or _quiet
    wanted = parse_tables(tables) if not isinstance(tables, (list, tuple)) else parse_tables(
        ",".join(tables))
    if seeds < 1:
        raise ConfigError("--seeds must be at least 1")
    signals, out = Path(signals), Path(out)
    available = set(SignalStore(signals).columns("mentions"))
    if _captions_have_halp(signals):
        available.add("halp_hidden")
    names, notes = resolve_detectors(detectors, available)
    names = [n for n in names if n not in ("halp", "position")]  # reference rows: not here
    if not names:
        raise InputError("no detector can run: the signal store has none of their columns")
    columns = sorted({c for n in names for c in DETECTOR_COLUMNS[n]} | {FEATURE_COLUMN})
    data = load_bench(labels, signals, columns, annotations, model, allow_unmatched)
    table, features = data.table, data.features
    seed_list = tuple(range(seeds))
    notes = data.notes + notes
    estimated = natural_share is None
    natural_share, note = resolve_natural_share(table, natural_share)
    notes += [note] if note else []
    options = {n: dict((detector_options or {}).get(n, {})) for n in names}
    trained = {n: options[n] for n in names if n in TRAINED}
    every = {n: options[n] for n in names}
    results: dict[str, Any] = {}
    if "6" in wanted:
        results["table6"] = table6(table, features, trained, seed_list, progress=say)
    if "11" in wanted:
        left, right = table11(table, features, every, seed_list, natural_share, say)
        results["table11_filter"], results["table11"] = left, right
    if "14" in wanted:
        results["table14"] = table14(table, features, {n: options[n] for n in strongest(names)},
                                     seed_list, [b for b in parse_budgets(budgets)],
                                     natural_share, say)
    if "15" in wanted:
        results["table15"] = table15(table, features, trained, seed_list, natural_share,
                                     estimated, say)
    if "16" in wanted:
        results["table16"] = table16(table, features, every, seed_list,
                                     load_compounds(labels, signals, columns, model), say)
    if "17" in wanted:
        results["table17"] = table17(data.rows)
    payload = {"model": data.model or model or "model", "n_mentions": len(table),
               "seeds": list(seed_list), "detectors": names, "natural_share": natural_share,
               "tables_requested": wanted, "notes": notes, "tables": results}
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / "extra_results.json", payload)
    for name, t in results.items():
        write_text_atomic(out / f"{name}.csv", table_csv(t))
    text = "\n\n".join(table_markdown(t) for t in results.values())
    write_text_atomic(out / "extra_tables.md", text + "\n")
    return payload
