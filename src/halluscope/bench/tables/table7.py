"""Table 7 of NAME-Bench: flag rates of absent vs present objects among non-assertive mentions.

Is a detector flagging a non-assertive mention because the object is absent (a grounding
signal) or because of the wording? Per detector and subtype, the held-out flag rates of the
absent and of the present objects, at budget 0 (`bench.published.SeedScores`). Made by `bench
run`; its example is the pipeline test (`tests/test_bench_pipeline.py`).

>>> from halluscope.bench.protocol import MentionTable
>>> t = table7([], MentionTable.from_columns(["a"], ["concrete"]), ["nll"], [])
>>> t["rows"], t["notes"]
([], ['no presence column: Table 7 not computed'])
"""

from __future__ import annotations

from typing import Any, Sequence

from halluscope.bench.published import SeedScores
from halluscope.bench.protocol import MentionTable, flag_rate, mean_std
from halluscope.bench.tables.common import make_table, n_cell
from halluscope.ranking import auc


def table7(seeds: Sequence[SeedScores], table: MentionTable, detectors: Sequence[str],
           subtypes: Sequence[str]) -> dict[str, Any]:
    """Held-out non-assertive mentions flagged when the object is absent / present, and the AUC
    (absent = positive), per detector and subtype ("all" first), budget 0, mean over seeds."""
    columns = ["detector", "subtype", "absent %", "present %", "n absent", "n present",
               "AUC abs-vs-pres"]
    rows = []
    notes: list[str] = []
    if table.present is None:
        notes.append("no presence column: Table 7 not computed")
        detectors = []
    for name in detectors:
        for sub in ["all", *subtypes]:
            per_seed: dict[str, list[float | None]] = {"abs": [], "pres": [], "auc": []}
            n_abs, n_pres, row_notes = [], [], set()
            for s in seeds:
                result = s.results.get(name)
                score = s.scores.get(name)
                if result is None or result["threshold"] is None or isinstance(score, str):
                    row_notes.update(result["notes"] if result else ["not run"])
                    continue
                na = (s.codes == 2) & (table.label == "non_assertive")
                if sub != "all":
                    na &= table.subtype == sub
                absent, present = na & ~table.present, na & table.present
                flags = score > result["threshold"]
                per_seed["abs"].append(flag_rate(flags, absent))
                per_seed["pres"].append(flag_rate(flags, present))
                per_seed["auc"].append(auc(score[absent], score[present]))
                n_abs.append(int(absent.sum()))
                n_pres.append(int(present.sum()))
            if n_abs and not sum(n_abs):
                row_notes.add("no held-out absent mentions")
            if n_pres and not sum(n_pres):
                row_notes.add("no held-out present mentions")
            rows.append({"detector": name, "subtype": sub,
                         "absent %": mean_std(per_seed["abs"]),
                         "present %": mean_std(per_seed["pres"]),
                         "n absent": n_cell(n_abs),
                         "n present": n_cell(n_pres),
                         "AUC abs-vs-pres": mean_std(per_seed["auc"]),
                         "notes": sorted(row_notes)})
    return make_table("table7", "Table 7: non-assertive mentions flagged, object absent vs present",
                      columns, rows, notes=notes, percent=["absent %", "present %"],
                      description="Budget 0 (no non-assertive training); n: held-out mentions "
                                  "per seed (mean).")
