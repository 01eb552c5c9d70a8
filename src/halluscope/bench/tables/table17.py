"""Table 17 of NAME-Bench (Appendix J): the COCO concepts of the non-assertive mentions.

>>> t = table17([{"label": "non_assertive", "subtype": "hedged", "category": c}
...              for c in ["dog", "dog", "cat"]])
>>> r = t["rows"][1]; (r["subtype"], r["n"], r["concepts"], r["top 5 (% of subtype)"])
('hedged', 3, 2, 'dog (66.7), cat (33.3)')

Per subtype ("all" first): mentions, distinct concepts, the top five with their shares.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from halluscope.bench.tables.common import TableInputs, make_table

EXCLUDED_CONCEPTS: frozenset[str] = frozenset({"orange"})  # Appendix C: excluded throughout


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


def build(inputs: TableInputs) -> dict[str, dict[str, Any]]:
    """Table 17 from the joined mention rows `bench tables` loaded.

    >>> from halluscope.bench.tables.common import example_inputs
    >>> row = build(example_inputs())["table17"]["rows"][0]
    >>> row["subtype"], row["n"], row["top 5 (% of subtype)"]
    ('all', 200, 'cat (40.0), cup (40.0), dog (20.0)')
    """
    table = table17(inputs.data.rows)
    return {"table17": table}
