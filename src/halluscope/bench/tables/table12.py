"""Table 12 of NAME-Bench (Appendix F): THRONE's verdicts under majority and unanimous voting,
per judge, on the mentions of several models pooled (the paper: the four newer models).

>>> from halluscope.metrics.throne import ThroneVotes
>>> a = [{"namebench_class": "hallucinated", "subtype": None, "present": False}]
>>> b = [{"namebench_class": "hallucinated", "subtype": None, "present": False}]
>>> t = table12({"flan-t5": [(a, [ThroneVotes([True] * 9)]), (b, [ThroneVotes([True] * 5
...                                                                        + [False] * 4)])]})
>>> row = t["rows"][0]; row["group"], row["flan-t5 maj. %"]["mean"], row["flan-t5 unan. %"]["mean"]
('hallucinated', 1.0, 0.5)

Input per judge: one (mention rows, votes) pair per model, e.g. read from each model's `bench
table3` output (`votes_from_table3`: its throne_votes.parquet). The models' mentions are pooled
(counts added, not rates averaged) and `table3.table3_rows` computes every figure, so Table 12
and Table 3 share one definition: recall (hallucinated row, disqualified counted as missed), the
share counted as hallucinated among the mentions that receive a verdict (other rows), and the
disqualified share (split votes under the unanimous rule). Generic mentions are left out unless
`keep_generic`, as in Table 3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from halluscope.bench.protocol import mean_std
from halluscope.bench.tables.common import make_table
from halluscope.metrics.throne import ThroneVotes

Pair = tuple[Sequence[Mapping[str, Any]], Sequence[ThroneVotes]]


def votes_from_table3(out_dir: str | Path) -> Pair:
    """(mention rows, votes) from a `bench table3` output folder's throne_votes.parquet: each
    mention's yes / no counts become votes, its failed votes errors."""
    import pyarrow.parquet as pq

    from halluscope.errors import InputError

    path = Path(out_dir) / "throne_votes.parquet"
    if not path.is_file():
        raise InputError("no throne_votes.parquet (the output folder of `halluscope bench "
                         "table3`)", path=out_dir)
    rows = pq.read_table(path).to_pylist()
    needed = ("namebench_class", "subtype", "present", "n_yes", "n_no", "n_failed")
    missing = [c for c in needed if rows and c not in rows[0]]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", path=path)
    votes = [ThroneVotes([True] * int(r["n_yes"]) + [False] * int(r["n_no"]),
                         ["failed"] * int(r["n_failed"])) for r in rows]
    return rows, votes


def table12(judges: Mapping[str, Sequence[Pair]], keep_generic: bool = False) -> dict[str, Any]:
    """One row per Table 3 group, three columns per judge (majority %, unanimous %, disqualified
    %), over the pooled mentions of every model given for that judge."""
    from halluscope.bench.tables.table3 import table3_rows

    classes = ("concrete", "hallucinated", "non_assertive")
    columns = ["group"]
    by_judge: dict[str, dict[str, dict[str, Any]]] = {}
    counts: dict[str, int] = {}
    for judge, pairs in judges.items():
        rows = [r for rs, _ in pairs for r in rs]
        votes = [v for _, vs in pairs for v in vs]
        kept = [(r, v) for r, v in zip(rows, votes) if r.get("namebench_class") in classes]
        counts[judge] = len(kept)
        table = table3_rows([r for r, _ in kept], [v for _, v in kept], keep_generic)
        by_judge[judge] = {r["group"]: r for r in table}
        columns += [f"{judge} maj. %", f"{judge} unan. %", f"{judge} disq. %", f"{judge} n"]
    groups = list(next(iter(by_judge.values()))) if by_judge else []
    out_rows = []
    for group in groups:
        row: dict[str, Any] = {"group": group, "notes": []}
        for judge, rows in by_judge.items():
            r = rows[group]
            for column, key in (("maj.", "throne_majority_pct"),
                                ("unan.", "throne_unanimous_pct"),
                                ("disq.", "throne_disqualified_pct")):
                value = r[key]
                row[f"{judge} {column} %"] = mean_std([None if value is None else value / 100])
            row[f"{judge} n"] = r["n"]
        out_rows.append(row)
    notes = [f"{judge}: {len(pairs)} model(s) pooled, {counts[judge]} classed mentions"
             for judge, pairs in judges.items()]
    notes.append("hallucinated: recall (disqualified counted as missed); other rows: share "
                 "counted as hallucinated among mentions with a verdict; disq.: split votes "
                 "under the unanimous rule")
    return make_table("table12", "Table 12: THRONE by judge and voting rule (models pooled)",
                      columns, out_rows, notes=notes,
                      percent=[c for c in columns if c.endswith("%")])
