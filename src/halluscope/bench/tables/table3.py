"""Table 3 of NAME-Bench: how CHAIR and THRONE treat each kind of mention.

>>> from halluscope.metrics.throne import ThroneVotes
>>> rows = [{"namebench_class": "non_assertive", "subtype": "hedged", "present": False,
...          "chair_hallucinated": True},
...         {"namebench_class": "hallucinated", "subtype": None, "present": False,
...          "chair_hallucinated": False}]
>>> votes = [ThroneVotes([True] * 5 + [False] * 4), ThroneVotes([True] * 9)]
>>> t = table3_rows(rows, votes)
>>> [(r["group"], r["n"], r["chair_pct"], r["throne_majority_pct"]) for r in t[:3]]
[('hallucinated', 1, 0.0, 100.0), ('non_assertive', 1, 100.0, 100.0), ('hedged', 1, 100.0, 100.0)]

Rows (groups): hallucinated mentions (the recall column of the paper, higher is better), all
non-assertive mentions, each non-assertive subtype, and concrete mentions as a control. Columns,
all in %:

* `chair_pct`: mentions whose CHAIR word was counted as hallucinated (`chair_hallucinated` of the
  usage report, CHAIR's own alignment; null when the report was built without CHAIR);
* `throne_majority_pct`, `throne_unanimous_pct`: mentions THRONE counts as hallucinated, i.e.
  verdict "present" and the object not annotated (`present` false). For non-assertive and
  concrete groups the denominator is the mentions that receive a verdict (disqualified ones
  dropped, as THRONE's metric drops them; Table 12's convention); for the hallucinated group it
  is a recall, with disqualified mentions counted as missed;
* `throne_disqualified_pct`: mentions with split votes under the unanimous rule, over the
  mentions judged without failure (`throne_majority_disqualified_pct`: ties, only possible with
  an even number of votes).

`throne.prompts` of table3.json names the LLM judge's prompt set (`ThronePrompts.describe`:
halluscope's default and its version id, or a prompt file by sha256; null for the offline judge).

Mentions whose THRONE votes failed are left out of every THRONE column and counted in
`throne_failed`. Mentions without a NAME-Bench class (ambiguous, not an object, excluded, failed
usage labels) are not in the table, nor, unless `keep_generic`, generic non-assertive mentions
(outside the four subtypes; NAME-Bench drops them, Appendix C): they are counted in
`counts.generic_dropped` of table3.json.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from halluscope.metrics.throne import ThroneJudge, ThroneQuery, ThroneVotes
from halluscope.text.usage.base import SUBTYPES

GROUPS: tuple[str, ...] = ("hallucinated", "non_assertive", *SUBTYPES, "concrete")
COLUMNS: tuple[str, ...] = (
    "group", "n", "chair_n", "chair_hallucinated", "chair_pct", "throne_failed",
    "throne_majority_verdicts", "throne_majority_hallucinated", "throne_majority_pct",
    "throne_majority_disqualified_pct", "throne_unanimous_verdicts",
    "throne_unanimous_hallucinated", "throne_unanimous_pct", "throne_disqualified",
    "throne_disqualified_pct")
REQUIRED: tuple[str, ...] = ("caption_index", "category", "start", "end", "namebench_class",
                             "subtype", "present", "chair_hallucinated")


def _pct(numerator: int, denominator: int) -> float | None:
    return None if denominator == 0 else round(100.0 * numerator / denominator, 4)


def _in_group(row: Mapping[str, Any], group: str) -> bool:
    cls = row.get("namebench_class")
    if group in ("hallucinated", "non_assertive", "concrete"):
        return cls == group
    return cls == "non_assertive" and row.get("subtype") == group


def is_generic(row: Mapping[str, Any]) -> bool:
    """A generic non-assertive mention (outside the four subtypes), which NAME-Bench drops.

    >>> is_generic({"namebench_class": "non_assertive", "subtype": "generic"})
    True
    """
    return row.get("namebench_class") == "non_assertive" and row.get("subtype") == "generic"


def table3_rows(rows: Sequence[Mapping[str, Any]], votes: Sequence[ThroneVotes],
                keep_generic: bool = False) -> list[dict[str, Any]]:
    """One dict per group of `GROUPS` (columns `COLUMNS`), from mention rows and their THRONE
    votes (aligned with `rows`); generic mentions are left out (and their group) unless
    `keep_generic`.

    >>> table3_rows([], [])[0]["n"], table3_rows([], [])[0]["chair_pct"]
    (0, None)
    """
    if len(rows) != len(votes):
        raise ValueError(f"{len(rows)} mentions but {len(votes)} THRONE results")
    if not keep_generic:
        pairs = [(row, v) for row, v in zip(rows, votes) if not is_generic(row)]
        rows, votes = [row for row, _ in pairs], [v for _, v in pairs]
    table = []
    for group in GROUPS:
        if group == "generic" and not keep_generic:
            continue
        members = [(row, v) for row, v in zip(rows, votes) if _in_group(row, group)]
        chair = [row["chair_hallucinated"] for row, _ in members
                 if row.get("chair_hallucinated") is not None]
        judged = [(row, v) for row, v in members if v.verdict("majority") != "failed"]
        out: dict[str, Any] = {"group": group, "n": len(members), "chair_n": len(chair),
                               "chair_hallucinated": sum(1 for c in chair if c),
                               "chair_pct": _pct(sum(1 for c in chair if c), len(chair)),
                               "throne_failed": len(members) - len(judged)}
        for rule in ("majority", "unanimous"):
            verdicts = [(row, v.verdict(rule)) for row, v in judged]
            scored = [(row, verdict) for row, verdict in verdicts if verdict != "disqualified"]
            counted = sum(1 for row, verdict in scored
                          if verdict == "present" and not row["present"])
            disqualified = len(verdicts) - len(scored)
            # Recall counts disqualified hallucinations as missed; elsewhere they are dropped.
            denominator = len(verdicts) if group == "hallucinated" else len(scored)
            out[f"throne_{rule}_verdicts"] = len(scored)
            out[f"throne_{rule}_hallucinated"] = counted
            out[f"throne_{rule}_pct"] = _pct(counted, denominator)
            if rule == "majority":
                out["throne_majority_disqualified_pct"] = _pct(disqualified, len(verdicts))
            else:
                out["throne_disqualified"] = disqualified
                out["throne_disqualified_pct"] = _pct(disqualified, len(verdicts))
        table.append({column: out[column] for column in COLUMNS})
    return table


def load_mentions(path: str | Path) -> list[dict[str, Any]]:
    """The per-mention table of `halluscope report` (mentions.parquet), checked for the columns
    Table 3 needs."""
    import pyarrow.parquet as pq

    from halluscope.errors import InputError

    table = pq.read_table(path)
    missing = [c for c in REQUIRED if c not in table.column_names]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)} (expected the mentions.parquet "
                         f"of `halluscope report`)", path=path)
    return table.to_pylist()


def build_queries(rows: Sequence[Mapping[str, Any]], captions: Mapping[int, str]
                  ) -> list[ThroneQuery]:
    """One THRONE query per mention row: its caption (by `caption_index`) and class.

    >>> build_queries([{"caption_index": 0, "category": "dog", "start": 2, "end": 5,
    ...                 "word": "dog"}], {0: "A dog."})[0]
    ThroneQuery(caption='A dog.', category='dog', start=2, end=5, word='dog')
    """
    from halluscope.errors import InputError

    queries = []
    for number, row in enumerate(rows, start=1):
        index = int(row["caption_index"])
        if index not in captions:
            raise InputError(f"caption_index {index} is not in the captions file",
                             item=f"mention {number}")
        queries.append(ThroneQuery(captions[index], str(row["category"]), int(row["start"]),
                                   int(row["end"]), row.get("word")))
    return queries


def run_table3(mentions: str | Path, captions: str | Path, out_dir: str | Path,
               judge: ThroneJudge, progress: Callable[[str], None] | None = None,
               keep_generic: bool = False) -> dict[str, Any]:
    """Judge every classed mention with `judge`, build Table 3 and write table3.json,
    table3.csv, table3.md and throne_votes.parquet (per mention) to `out_dir`, each atomically.
    Returns the JSON document."""
    from halluscope.data.captions import read_captions
    from halluscope.io.atomic import (uniform_image_ids, write_json_atomic,
                                      write_parquet_atomic, write_text_atomic)

    rows = load_mentions(mentions)
    text = {record.index: record.caption for record in read_captions(captions)}
    # All mentions of a caption go to the judge (the offline one reads earlier mentions), but
    # only classed ones enter the table.
    usable = [row for row in rows if row.get("error") is None]
    if progress:
        progress(f"THRONE ({judge.name}, {judge.votes_per_query} votes): {len(usable)} mentions")
    votes = judge.judge(build_queries(usable, text))
    classed = [(row, v) for row, v in zip(usable, votes) if row.get("namebench_class") in
               ("concrete", "hallucinated", "non_assertive")]
    table = table3_rows([row for row, _ in classed], [v for _, v in classed], keep_generic)
    document = {
        "table": "3", "columns": list(COLUMNS), "rows": table,
        "throne": {"judge": judge.name, "votes_per_query": judge.votes_per_query,
                   "prompts": getattr(judge, "prompt_set", None),
                   "stats": dict(getattr(judge, "stats", {}) or {}),
                   # The offline stand-in is not THRONE: say so wherever its numbers go.
                   "stand_in": getattr(judge, "warning", None) is not None,
                   "warning": getattr(judge, "warning", None)},
        "counts": {"mentions": len(rows), "usage_failures": len(rows) - len(usable),
                   "classed": len(classed),
                   "generic_dropped": 0 if keep_generic else sum(
                       1 for row, _ in classed if is_generic(row))},
        "keep_generic": keep_generic,
        "inputs": {"mentions": str(mentions), "captions": str(captions)},
        "notes": ("% of each group counted as hallucinated. CHAIR: chair_hallucinated of the "
                  "usage report. THRONE: verdict present and object not annotated; recall "
                  "(hallucinated) counts disqualified as missed, other groups drop them. "
                  "throne_disqualified_pct: unanimous rule. The offline THRONE judge is a "
                  "stand-in, not THRONE (claimed present iff the offline usage judge says "
                  "existential).")}
    out = Path(out_dir)
    per_mention = [{"caption_index": row["caption_index"], "mention_index":
                    row.get("mention_index"), "image_id": row.get("image_id"),
                    "start": row["start"], "end": row["end"], "category": row["category"],
                    "namebench_class": row.get("namebench_class"), "subtype": row.get("subtype"),
                    "present": row.get("present"), "n_yes": v.n_yes, "n_no": v.n_no,
                    "n_failed": len(v.errors), "majority": v.verdict("majority"),
                    "unanimous": v.verdict("unanimous"),
                    "error": "; ".join(v.errors) if v.errors else None}
                   for row, v in zip(usable, votes)]
    if per_mention:
        write_parquet_atomic(out / "throne_votes.parquet", uniform_image_ids(per_mention))
    write_json_atomic(out / "table3.json", document)
    write_text_atomic(out / "table3.csv", table3_csv(table))
    write_text_atomic(out / "table3.md", table3_markdown(document) + "\n")
    return document


def table3_csv(table: Sequence[Mapping[str, Any]]) -> str:
    """CSV of `table3_rows` (empty cells for undefined rates).

    >>> table3_csv([])
    'group,n,chair_n,chair_hallucinated,chair_pct,throne_failed,throne_majority_verdicts,throne_majority_hallucinated,throne_majority_pct,throne_majority_disqualified_pct,throne_unanimous_verdicts,throne_unanimous_hallucinated,throne_unanimous_pct,throne_disqualified,throne_disqualified_pct\\r\\n'
    """
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(COLUMNS))
    writer.writeheader()
    for row in table:
        writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in COLUMNS})
    return buffer.getvalue()


def table3_markdown(document: Mapping[str, Any]) -> str:
    """A Markdown table: one line per group, rates in %.

    >>> print(table3_markdown({"rows": [{"group": "hedged", "n": 2, "chair_pct": 50.0,
    ...     "throne_majority_pct": None, "throne_unanimous_pct": 0.0,
    ...     "throne_disqualified_pct": 50.0, "throne_failed": 0}]}).splitlines()[-1])
    | hedged | 2 | 50.0 | - | 0.0 | 50.0 | 0 |
    """
    throne = document.get("throne", {})
    prompts = throne.get("prompts")
    shown = ""
    if prompts:  # a file's sha256 shortened to 12 hex digits (table3.json has it whole)
        pid = str(prompts.get("id"))
        pid = pid[:19] if pid.startswith("sha256:") else pid
        shown = f", prompts: {prompts.get('source')} {pid}"
    lines = [f"Table 3: % counted as hallucinated (hallucinated row: recall). THRONE judge: "
             f"{throne.get('judge', '?')}, {throne.get('votes_per_query', '?')} votes{shown}.",
             *([f"WARNING: {throne['warning']}."] if throne.get("warning") else []),
             "",
             "| group | n | CHAIR % | THRONE maj. % | THRONE unan. % | THRONE disq. % | "
             "THRONE failed |", "|---|---:|---:|---:|---:|---:|---:|"]

    def fmt(value: Any) -> str:
        return "-" if value is None else f"{value:.1f}"

    for row in document["rows"]:
        lines.append(f"| {row['group']} | {row['n']} | {fmt(row['chair_pct'])} | "
                     f"{fmt(row['throne_majority_pct'])} | {fmt(row['throne_unanimous_pct'])} | "
                     f"{fmt(row['throne_disqualified_pct'])} | {row['throne_failed']} |")
    return "\n".join(lines)
