"""Table 15 of NAME-Bench (Appendix I): hedges re-labelled as claims.

>>> from halluscope.bench.protocol import MentionTable
>>> t = MentionTable.from_columns(["a", "b"], ["non_assertive"] * 2, ["hedged", "purpose"],
...                               [False, False])
>>> hedges_as_claims(t).label.tolist()
['hallucinated', 'non_assertive']

Hedged mentions judged like existential ones (`namebench_class(..., hedges_as_claims=True)`),
probes retrained at budgets 0 and nat; FPR on the held-out non-hedged non-assertive mentions
(the same mentions under both conventions), TPR on each convention's hallucinations.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from halluscope.bench.fitting import fit_scores, mix_pool, mixed_count
from halluscope.bench.protocol import (MentionTable, flag_rate, flags_at_threshold, mean_std,
                                       split_codes)
from halluscope.bench.tables.common import Progress, TableInputs, make_table, quiet


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
            progress: Progress = quiet) -> dict[str, Any]:
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
                m = 0 if b == "0" or share is None else mixed_count(
                    "nat", t, codes, len(pool), share)[0]
                for name, options in detectors.items():
                    progress(f"table 15: seed {seed} {convention} budget {b} {name}")
                    scores = fit_scores(name, options, t, features, codes, pool[:m], seed)
                    cell = cells.setdefault((name, b), {c: [] for c in columns[2:]} | {"notes": []})
                    flags, reason = ((None, scores) if isinstance(scores, str)
                                     else flags_at_threshold(scores, t, codes))
                    if reason:
                        cell["notes"].append(reason)
                    cell[f"FPR {convention} %"].append(
                        None if flags is None else flag_rate(flags, held & target))
                    cell[f"TPR {convention} %"].append(
                        None if flags is None else flag_rate(flags, held & (t.label == "hallucinated")))
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


def build(inputs: TableInputs) -> dict[str, dict[str, Any]]:
    """Table 15 from what `bench tables` loaded.

    >>> from halluscope.bench.tables.common import example_inputs
    >>> row = build(example_inputs())["table15"]["rows"][0]
    >>> row["budget"], round(row["FPR ours %"]["mean"], 3), round(row["FPR claim %"]["mean"], 3)
    ('0', 0.375, 0.446)
    """
    table = table15(inputs.table, inputs.features, inputs.trained, inputs.seeds,
                    inputs.natural_share, inputs.natural_share_estimated, inputs.progress)
    return {"table15": table}
