"""Table 14 of NAME-Bench (Appendix H): FPR per subtype at each mixing budget, for the two
strongest probes.

>>> strongest(["nll", "hidden_mid", "dhcp"])
['hidden_mid', 'dhcp']

The budgets run through `bench.runner.run_protocol`, as Table 5's do.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from halluscope.bench.protocol import MentionTable, split_codes
from halluscope.bench.tables.common import (Progress, TableInputs, make_table, n_cell, quiet,
                                            subtypes_of)

STRONGEST: tuple[str, ...] = ("lookback_lens", "hidden_mid")  # Table 14's two probes


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
            progress: Progress = quiet) -> dict[str, Any]:
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
                                       "n held-out": n_cell(held[s]), "notes": []}
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


def build(inputs: TableInputs) -> dict[str, dict[str, Any]]:
    """Table 14 (the strongest detectors) from what `bench tables` loaded.

    >>> from halluscope.bench.tables.common import example_inputs
    >>> negation = build(example_inputs())["table14"]["rows"][3]  # mixing lowers the FPR
    >>> negation["subtype"], round(negation["0"]["mean"], 2), round(negation["nat"]["mean"], 2)
    ('negation', 0.5, 0.07)
    """
    table = table14(inputs.table, inputs.features,
                    {n: inputs.detectors[n] for n in strongest(list(inputs.detectors))},
                    inputs.seeds, inputs.budgets, inputs.natural_share, inputs.progress)
    return {"table14": table}
