"""Table 11 of NAME-Bench (§5.2, Appendix E): the text filter in front of the detectors.

>>> from halluscope.bench.protocol import MentionTable
>>> t = MentionTable.from_columns(list("abcdef"), ["concrete", "hallucinated"] * 2
...                               + ["non_assertive"] * 2, [None] * 4 + ["hedged"] * 2)
>>> rows, m = text_filter_rows(t, np.zeros(6, dtype=np.int8), 0, 0.2); (len(rows), m)
(5, 1)

The text filter (`text.usage.text_filter`) is trained on the fit set's concrete + hallucinated
mentions and the natural share of non-assertive ones. Left table: its recall per subtype and the
held-out hallucinations it removes. Right table: each detector's held-out FPR / TPR without and
with it (threshold recalibrated on the calibration concrete mentions that pass the filter;
filtered mentions are never flagged); training-free detectors as published, trained probes mixed
at the natural share (the paper's "mixing + filter").
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from halluscope.bench.fitting import fit_scores, mix_pool, mixed_count
from halluscope.bench.protocol import (MentionTable, flag_rate, flags_at_threshold, mean_std,
                                       split_codes)
from halluscope.bench.tables.common import (Progress, TableInputs, make_table, n_cell, quiet,
                                            subtypes_of)


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
    m = mixed_count("nat", table, codes, len(pool), natural_share)[0]
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
    out = {f"{s} recall %": flag_rate(filtered, na & (table.subtype == s)) for s in subtypes}
    out["all recall %"] = flag_rate(filtered, na)
    out["halluc removed %"] = flag_rate(filtered, held & (table.label == "hallucinated"))
    out["concrete removed %"] = flag_rate(filtered, held & (table.label == "concrete"))
    return out


def table11(table: MentionTable, features: Mapping[str, np.ndarray],
            detectors: Mapping[str, Mapping[str, Any]], seeds: Sequence[int],
            natural_share: float, progress: Progress = quiet
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
                cell[f"NA FPR{suffix} %"].append(None if flags is None else flag_rate(flags, na))
                cell[f"halluc TPR{suffix} %"].append(
                    None if flags is None else flag_rate(flags, held & (table.label == "hallucinated")))
    filter_row = {"filter": "text filter (p > 0.5)", **{c: mean_std(v) for c, v in recall.items()},
                  "n mixed": n_cell(mixed_counts), "notes": []}
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


def build(inputs: TableInputs) -> dict[str, dict[str, Any]]:
    """Table 11 (the filter's recall, and the detectors with and without it) from what
    `bench tables` loaded.

    >>> from halluscope.bench.tables.common import example_inputs
    >>> nll = build(example_inputs())["table11"]["rows"][0]
    >>> nll["detector"], nll["NA FPR %"]["mean"], nll["NA FPR filter %"]["mean"]
    ('nll', 0.1, 0.0)
    """
    left, right = table11(inputs.table, inputs.features, inputs.detectors, inputs.seeds,
                          inputs.natural_share, inputs.progress)
    return {"table11_filter": left, "table11": right}
