"""Table 4 of NAME-Bench: non-assertive FPR per subtype without non-assertive training.

>>> s = {"nll": {"na_fpr": {"mean": 0.3}, "halluc_tpr": {"mean": 0.5},
...     "concrete_fpr": {"mean": 0.1}, "auc_concrete_vs_halluc": 0.7,
...     "na_fpr_by_subtype": {"hedged": {"mean": 0.4}}, "notes": []}}
>>> r = table4(s, ["hedged"])["rows"][0]; r["group"], r["hedged %"]
('training-free', {'mean': 0.4})

From the seed summaries of budget 0 (`bench.published.score_as_published`). Made by `bench run`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from halluscope.bench.tables.common import detector_group, make_table


def table4(summaries: Mapping[str, Mapping[str, Any]], subtypes: Sequence[str]
           ) -> dict[str, Any]:
    """Non-assertive FPR per subtype per detector without non-assertive training, plus TPR."""
    order = {"trained": 0, "training-free": 1, "reference": 2}
    columns = (["detector", "group", "NA FPR %"] + [f"{s} %" for s in subtypes]
               + ["halluc TPR %", "concrete FPR %", "AUC c-vs-h"])
    rows = []
    for name, m in sorted(summaries.items(), key=lambda kv: (order[detector_group(kv[0])], kv[0])):
        row: dict[str, Any] = {"detector": name, "group": detector_group(name),
                               "NA FPR %": m["na_fpr"], "halluc TPR %": m["halluc_tpr"],
                               "concrete FPR %": m["concrete_fpr"],
                               "AUC c-vs-h": m["auc_concrete_vs_halluc"], "notes": m["notes"]}
        for s in subtypes:
            row[f"{s} %"] = m["na_fpr_by_subtype"].get(s)
        rows.append(row)
    percent = [c for c in columns if c.endswith("%")]
    return make_table("table4", "Table 4: non-assertive FPR without non-assertive training",
                      columns, rows, percent=percent, description=(
                          "Held-out mentions flagged at the threshold that flags 10% of the "
                          "calibration concrete mentions; mean ± sd over seeds."))
