"""Table 6 of NAME-Bench (§5.1): does mixing generalise to a subtype the probe never saw?

>>> from halluscope.bench.protocol import MentionTable
>>> t = MentionTable.from_columns(["a", "b"], ["concrete", "non_assertive"], [None, "hedged"])
>>> table6(t, {}, {"dhcp": {}}, seeds=(0,))["notes"]
['fewer than two subtypes: no unseen condition']

Per subtype s, the non-assertive FPR on held-out s when the 30% mixing budget is drawn from
every subtype (seen) and when the same number is drawn from the other subtypes only (unseen);
per trained probe and their mean.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from halluscope.bench.fitting import fit_scores, mix_pool
from halluscope.bench.protocol import (MentionTable, flag_rate, flags_at_threshold, mean_std,
                                       split_codes)
from halluscope.bench.tables.common import (Progress, TableInputs, make_table, n_cell, quiet,
                                            subtypes_of)

TABLE6_BUDGET = 30.0  # % of the fit set's hallucinations, as in the paper


def table6(table: MentionTable, features: Mapping[str, np.ndarray],
           detectors: Mapping[str, Mapping[str, Any]], seeds: Sequence[int],
           budget: float = TABLE6_BUDGET, progress: Progress = quiet) -> dict[str, Any]:
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
                    cell[condition].append(None if flags is None else flag_rate(flags, held))
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
                         "n mixed": n_cell(first["m"]), "n held-out": n_cell(first["n"]),
                         "notes": [] if any(v is not None for v in seen)
                         else ["no held-out mentions of this subtype"]})
    for name in detectors:
        for sub in subtypes if len(subtypes) > 1 else []:
            cell = per[(name, sub)]
            rows.append({"detector": name, "subtype": sub, "seen %": mean_std(cell["seen"]),
                         "unseen %": mean_std(cell["unseen"]), "n mixed": n_cell(cell["m"]),
                         "n held-out": n_cell(cell["n"]), "notes": sorted(set(cell["notes"]))})
    return make_table("table6", "Table 6: non-assertive FPR per subtype, seen -> unseen in "
                      "training", columns, rows, notes=sorted(set(notes)),
                      percent=["seen %", "unseen %"], description=(
                          f"Both conditions mix {budget:g}% of the fit hallucinations; unseen "
                          "draws the same number from the other subtypes only. Threshold: 10% "
                          "of calibration concrete; n: per seed (mean)."))


def build(inputs: TableInputs) -> dict[str, dict[str, Any]]:
    """Table 6 from what `bench tables` loaded.

    >>> from halluscope.bench.tables.common import example_inputs
    >>> rows = build(example_inputs())["table6"]["rows"]
    >>> sorted({r["detector"] for r in rows}), rows[0]["subtype"], rows[0]["n mixed"]
    (['hidden_mid', 'mean (trained probes)'], 'hedged', '6')
    """
    table = table6(inputs.table, inputs.features, inputs.trained, inputs.seeds,
                   progress=inputs.progress)
    return {"table6": table}
