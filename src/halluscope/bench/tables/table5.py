"""Table 5 of NAME-Bench: FPR and TPR of the trained detectors at each mixing budget.

>>> m = {"0": {"dhcp": {"na_fpr": {"mean": 0.5}, "halluc_tpr": {"mean": 0.6}, "notes": []}}}
>>> t = table5(m, [{"0": {"n_mixed": 0, "notes": []}}], ["0"], ["dhcp"])
>>> [(r["detector"], r["metric"], r["0"]) for r in t["rows"]][1]
('dhcp', 'NA FPR %', {'mean': 0.5})

From `bench.runner.run_protocol`'s seed summaries per budget. Made by `bench run`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from halluscope.bench.tables.common import make_table, n_cell


def table5(mean: Mapping[str, Mapping[str, Mapping[str, Any]]],
           per_seed_budgets: Sequence[Mapping[str, Mapping[str, Any]]], budgets: Sequence[str],
           trained: Sequence[str]) -> dict[str, Any]:
    """FPR and TPR per budget per trained detector; `n mixed` rows; capped budgets as notes.

    `mean[budget][detector]` are seed summaries; `per_seed_budgets[i][budget]` has `n_mixed` and
    `notes` (the runner's per-seed budget entries; budget 0 mixes nothing).
    """
    columns = ["detector", "metric"] + list(budgets)
    rows: list[dict[str, Any]] = []
    mixed_row: dict[str, Any] = {"detector": "(all)", "metric": "n mixed (mean over seeds)",
                                 "notes": []}
    notes: list[str] = []
    for b in budgets:
        counts = [int(s.get(b, {}).get("n_mixed", 0)) for s in per_seed_budgets]
        mixed_row[b] = n_cell(counts)
        for i, s in enumerate(per_seed_budgets):
            notes += [f"seed {i}: {n}" for n in s.get(b, {}).get("notes", [])]
    for name in trained:
        for metric, label in (("na_fpr", "NA FPR %"), ("halluc_tpr", "halluc TPR %")):
            row: dict[str, Any] = {"detector": name, "metric": label}
            by_note: dict[str, list[str]] = {}  # one note per text, naming its budgets
            for b in budgets:
                m = mean.get(b, {}).get(name)
                row[b] = m[metric] if m is not None else None
                if m is not None and m[metric].get("mean") is None:
                    for n in m["notes"]:
                        by_note.setdefault(n, []).append(b)
            row["notes"] = [f"budget {', '.join(bs)}: {n}" for n, bs in sorted(by_note.items())]
            rows.append(row)
    if per_seed_budgets and all(int(s.get(b, {}).get("n_mixed", 0)) == 0
                                for s in per_seed_budgets for b in budgets):
        notes.append("no non-assertive mentions in any fit set: every budget trains on the same "
                     "data as budget 0")
    if not trained:
        notes.append("no trained detector ran: nothing to mix")
    return make_table("table5", "Table 5: mixing budgets (trained detectors)", columns,
                      [mixed_row] + rows, notes=sorted(set(notes), key=notes.index),
                      percent=list(budgets), description=(
                          "Budget: non-assertive training examples as % of the fit set's "
                          "hallucinations; nat = natural share; max = all available."))
