"""§4.1's median relative position per class: where in the caption each kind of mention sits.

>>> t = MentionTable.from_columns(list("abcde"), ["concrete", "concrete", "hallucinated",
...     "non_assertive", "non_assertive"], [None, None, None, "hedged", "negation"])
>>> rows = relative_positions(t, np.array([0.1, 0.3, 0.8, 0.5, 0.7]))["rows"]
>>> [(r["class"], r["median"]) for r in rows[:3]]
[('concrete', 0.2), ('hallucinated', 0.8), ('non_assertive', 0.6)]

The paper: "Non-assertive mentions sit late in captions, like hallucinations (median relative
position 0.46-0.55 vs. 0.18-0.22 for concrete mentions)". Relative position: the object token's
index among the caption tokens over the caption's token count (`relative_token_position` of
`halluscope signals`), over every mention of the bench (no split: nothing is fitted). One row
per class, then one per non-assertive subtype, with the quartiles.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from halluscope.bench.protocol import MentionTable
from halluscope.bench.tables.common import TableInputs, make_table, subtypes_of

COLUMN = "relative_token_position"


def relative_positions(table: MentionTable, relative: np.ndarray | None) -> dict[str, Any]:
    """Median (and quartiles) of `relative` per class and per non-assertive subtype."""
    columns = ["class", "n", "median", "q1", "q3"]
    title = "Median relative position per class (§4.1)"
    if relative is None:
        return make_table("relpos", title, columns, [],
                          notes=[f"no {COLUMN} in the signals: not computed"])
    relative = np.asarray(relative, dtype=np.float64)
    groups = [(c, table.label == c) for c in ("concrete", "hallucinated", "non_assertive")]
    groups += [(f"non_assertive: {s}", (table.label == "non_assertive") & (table.subtype == s))
               for s in subtypes_of(table)]
    rows = []
    for name, mask in groups:
        values = relative[mask]
        q1, median, q3 = ((round(float(v), 4) for v in np.percentile(values, [25, 50, 75]))
                          if len(values) else (None, None, None))
        rows.append({"class": name, "n": int(mask.sum()), "median": median, "q1": q1, "q3": q3,
                     "notes": [] if len(values) else ["no mentions"]})
    return make_table("relpos", title, columns, rows,
                      notes=["relative position: object token index / caption tokens, every "
                             "mention of the bench; quartiles by linear interpolation"])


def build(inputs: TableInputs) -> dict[str, dict[str, Any]]:
    """Relative positions from what `bench tables` loaded.

    >>> from halluscope.bench.tables.common import example_inputs
    >>> build(example_inputs())["relpos"]["notes"][0][:25]
    'no relative_token_positio'
    """
    relative = inputs.features.get(COLUMN)
    return {"relpos": relative_positions(inputs.table, None if relative is None
                                         else np.asarray(relative))}
