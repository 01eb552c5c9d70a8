"""Table 2 of NAME-Bench: mentions per class and per non-assertive subtype, per model.

>>> t = table2({"m": {"concrete": 5, "hallucinated": 2, "non_assertive": 1, "total": 8,
...     "subtypes": {"hedged": {"n": 1, "share": 100.0}}}}, ["hedged", "negation"])
>>> r = t["rows"][0]; r["hedged"], r["negation"]
('1 (100.0%)', '0')

Counts come from `bench.dataset.class_counts`. Made by `bench run`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from halluscope.bench.tables.common import make_table


def table2(counts: Mapping[str, Mapping[str, Any]], subtypes: Sequence[str]) -> dict[str, Any]:
    rows = []
    for model, c in counts.items():
        row: dict[str, Any] = {"model": model, "concrete": c["concrete"],
                               "hallucinated": c["hallucinated"],
                               "non-assertive": c["non_assertive"], "total": c["total"],
                               "notes": []}
        for s in subtypes:
            cell = c["subtypes"].get(s)
            row[s] = f"{cell['n']} ({cell['share']:.1f}%)" if cell else "0"
        rows.append(row)
    return make_table("table2", "Table 2: mentions per class and non-assertive subtype",
                      ["model", "concrete", "hallucinated", "non-assertive", "total",
                       *subtypes], rows)
