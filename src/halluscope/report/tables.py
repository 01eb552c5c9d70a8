"""Markdown and CSV of the bench's result tables, and the summary of a `bench run`.

>>> format_cell({"mean": 0.5, "std": 0.1, "n_seeds": 3}, True)
'50.0 ± 10.0'

Reports render the data they are given: the bench builds tables (`bench.tables.common.make_table`:
columns, rows of cells, notes) and this module, which imports nothing from `bench`, turns them
into text.
"""

from __future__ import annotations

import csv
import io
from typing import Any, Mapping

from halluscope.report.markdown import markdown_table

Cell = Any  # str | int | {"mean", "std", "n_seeds"} | None


def is_metric(cell: Cell) -> bool:
    return isinstance(cell, Mapping) and "mean" in cell


def format_cell(cell: Cell, percent: bool) -> str:
    """A cell for Markdown: "12.3 ± 1.0" (% when `percent`), "0.712" for AUCs, "–" if undefined.

    >>> format_cell({"mean": 0.5, "std": 0.1, "n_seeds": 3}, True), format_cell(None, True)
    ('50.0 ± 10.0', '–')
    """
    if cell is None:
        return "–"
    if is_metric(cell):
        if cell.get("mean") is None:
            return "–"
        scale, digits = (100.0, 1) if percent else (1.0, 3)
        text = f"{scale * cell['mean']:.{digits}f}"
        if cell.get("std") is not None:
            text += f" ± {scale * cell['std']:.{digits}f}"
        return text
    if isinstance(cell, float):
        return f"{cell:.3f}"
    return str(cell)


def table_markdown(table: Mapping[str, Any]) -> str:
    """The table in Markdown, with a notes column when any row has notes, then table notes."""
    columns = list(table["columns"])
    with_notes = any(r.get("notes") for r in table["rows"])
    header = columns + (["notes"] if with_notes else [])
    body = [[format_cell(r.get(c), c in table["percent"]) for c in columns]
            + (["; ".join(r.get("notes") or [])] if with_notes else []) for r in table["rows"]]
    lines = [f"**{table['title']}**", ""]
    if table.get("description"):
        lines += [table["description"], ""]
    lines.append(markdown_table(header, body) if body else "(no rows)")
    if table["notes"]:
        lines += ["", "Notes:"] + [f"- {n}" for n in table["notes"]]
    return "\n".join(lines)


def _csv_number(value: float, scale: float) -> str:
    """`value * scale` in full, without the float noise scaling adds (100 * 0.2111).

    >>> _csv_number(0.2111, 100.0), _csv_number(0.2111, 1.0)
    ('21.11', '0.2111')
    """
    return repr(float(value)) if scale == 1.0 else repr(round(scale * float(value), 10))


def table_csv(table: Mapping[str, Any]) -> str:
    """The table as CSV: metric cells as `col` (mean) and `col_sd`; empty if undefined.

    One unit convention with the pages: a percent column holds percentages (0-100, unrounded)
    -- its name ends in "%", or (budget columns) the row's `metric` does; other metric columns
    (AUCs) hold fractions.

    >>> from halluscope.bench.tables.common import make_table
    >>> t = make_table("t", "T", ["d", "x", "y %", "10"],
    ...                [{"d": "a", "x": {"mean": 0.5, "std": None},
    ...                  "y %": {"mean": 0.25, "std": 0.5}, "10": {"mean": 0.125, "std": None}}],
    ...                percent=["y %", "10"])
    >>> table_csv(t).splitlines()
    ['d,x,x_sd,y %,y %_sd,10,10_sd,notes', 'a,0.5,,25.0,50.0,12.5,,']
    """
    columns = list(table["columns"])
    percent = set(table.get("percent") or ())
    metric_columns = {c for c in columns if any(is_metric(r.get(c)) for r in table["rows"])}
    header: list[str] = []
    for c in columns:
        header += [c, f"{c}_sd"] if c in metric_columns else [c]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header + ["notes"])
    for r in table["rows"]:
        line: list[Any] = []
        for c in columns:
            cell = r.get(c)
            if c in metric_columns and (cell is None or is_metric(cell)):
                cell = cell or {}
                scale = 100.0 if c in percent else 1.0
                line += ["" if cell.get(k) is None else _csv_number(cell[k], scale)
                         for k in ("mean", "std")]
            elif c in metric_columns:  # a count row inside a metric column (Table 5's n mixed)
                line += [cell, ""]
            else:
                line.append("" if cell is None else cell)
        writer.writerow(line + ["; ".join(r.get("notes") or [])])
    return buffer.getvalue()


def summary_markdown(results: Mapping[str, Any]) -> str:
    """The run-level summary: inputs, counts, join, settings, headline FPR/TPR, notes."""
    s = results["summary"]
    c = s["class_counts"]
    j = s["join"]
    lines = [f"# NAME-Bench detector run: {s['model']}", "",
             f"{s['n_mentions']} mentions of {s['n_images']} images (concrete {c['concrete']}, "
             f"hallucinated {c['hallucinated']}, non-assertive {c['non_assertive']}); join: "
             f"{j['matched']} matched, {j['signals_without_labels']} signal mentions without "
             f"label, {j['labels_without_signals']} labelled mentions without signals.",
             f"Seeds {', '.join(map(str, s['seeds']))}; budgets {', '.join(s['budgets'])}; "
             "natural share " + ("none" if s["natural_share"] is None else
                                 f"{s['natural_share']:.3f}") + f" ({s['natural_share_source']}).",
             "Threshold: flags 10% of the calibration concrete mentions; metrics on held-out.",
             "", "## Headline (budget 0, mean over seeds)", ""]
    body = [[n, "–" if h["na_fpr"] is None else f"{100 * h['na_fpr']:.1f}",
             "–" if h["halluc_tpr"] is None else f"{100 * h['halluc_tpr']:.1f}"]
            for n, h in s["headline"].items()]
    lines.append(markdown_table(["detector", "NA FPR %", "halluc TPR %"], body))
    if s["notes"]:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in s["notes"]]
    return "\n".join(lines)


def tables_markdown(results: Mapping[str, Any]) -> str:
    return "\n\n".join(table_markdown(t) for t in results["tables"].values())
