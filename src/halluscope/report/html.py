"""One self-contained HTML page (and a Markdown twin) per bench run; plots embedded as base64.

>>> html_table(["a", "b"], [["1", "<x>"]])
'<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>&lt;x&gt;</td></tr></tbody></table>'

`write_run_report(results, out_dir)` reads only the `results` dict of `halluscope bench run`
(the content of results.json), so a page can be rebuilt from that file alone. The page shows,
first, what a reader looks at: per-mention scores against the calibrated threshold, FPR per
subtype per detector, the mixing curves and the ROC curves; then every table and the notes.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any, Mapping, Sequence

STYLE = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}th{background:#f3f3f3}
td:first-child,th:first-child{text-align:left}img{max-width:100%;display:block;margin:.5em 0}
.notes{font-size:13px;color:#555}figure{margin:1em 0}figcaption{font-size:13px;color:#444}"""


def html_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """An escaped HTML table."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _table_html(table: Mapping[str, Any]) -> str:
    from halluscope.report.tables import format_cell

    columns = list(table["columns"])
    with_notes = any(r.get("notes") for r in table["rows"])
    rows = [[format_cell(r.get(c), c in table["percent"]) for c in columns]
            + (["; ".join(r.get("notes") or [])] if with_notes else []) for r in table["rows"]]
    parts = [f"<h3>{html.escape(table['title'])}</h3>"]
    if table.get("description"):
        parts.append(f"<p class='notes'>{html.escape(table['description'])}</p>")
    parts.append(html_table(columns + (["notes"] if with_notes else []), rows)
                 if rows else "<p>(no rows)</p>")
    if table["notes"]:
        parts.append("<ul class='notes'>" + "".join(f"<li>{html.escape(n)}</li>"
                                                    for n in table["notes"]) + "</ul>")
    return "\n".join(parts)


def _figures(results: Mapping[str, Any]) -> list[tuple[str, str, bytes]]:
    """(anchor, caption, PNG) of each plot the results allow; skipped plots are left out."""
    from halluscope.report import plots

    out = []
    figures = results.get("figures", {})
    tables = results["tables"]
    # One style per detector on the whole page: the run's detector order.
    order = list(results.get("summary", {}).get("detectors") or [])
    if figures.get("scores") and figures["scores"]["examples"]:
        f = figures["scores"]
        out.append(("scores", f"Per-mention {f['detector']} scores (budget 0) of held-out "
                              "mentions of each class and subtype; dashed: threshold calibrated "
                              "at 10% concrete FPR.", plots.score_bars_png(f)))
    t4 = tables["table4"]
    groups = [c for c in t4["columns"] if c.endswith("%") and c not in (
        "halluc TPR %", "concrete FPR %")]
    if t4["rows"] and groups:
        series = {r["detector"]: [(r.get(g) or {}).get("mean") for g in groups]
                  for r in t4["rows"]}
        out.append(("fpr", "Non-assertive FPR per subtype per detector (budget 0: without "
                           "non-assertive training): % of held-out non-assertive mentions "
                           "flagged at the threshold calibrated at 10% concrete FPR; 'NA FPR': "
                           "all subtypes; n/a: no such mentions held out.",
                    plots.panel_bars_png([g.replace(" %", "") for g in groups], series,
                                         "flagged %", order=order)))
    t5 = tables["table5"]
    budgets = [c for c in t5["columns"] if c not in ("detector", "metric")]
    fpr = {r["detector"]: [(r.get(b) or {}).get("mean") for b in budgets]
           for r in t5["rows"] if r["metric"] == "NA FPR %"}
    tpr = {r["detector"]: [(r.get(b) or {}).get("mean") for b in budgets]
           for r in t5["rows"] if r["metric"] == "halluc TPR %"}
    if fpr and len(budgets) > 1:
        out.append(("mixing", "Mixing: non-assertive FPR and hallucination TPR of the trained "
                              "detectors against the mixing budget, the non-assertive training "
                              "examples as % of the fit set's hallucinations (nat: the natural "
                              "share; max: all available).",
                    plots.mixing_curves_png(budgets, fpr, tpr, order=order)))
    if figures.get("roc"):
        out.append(("roc", f"ROC, concrete vs hallucinated, held-out mentions of seed "
                           f"{figures.get('roc_seed', 0)} (budget 0).",
                    plots.roc_png(figures["roc"], order=order)))
    return out


def render_html(results: Mapping[str, Any]) -> str:
    """The page as one string (no external resources)."""
    from halluscope.report.tables import summary_markdown

    s = results["summary"]
    title = f"NAME-Bench detector run: {s['model']}"
    parts = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'>",
             f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>"]
    summary_lines = summary_markdown(results).splitlines()[2:5]
    parts += [f"<p>{html.escape(line)}</p>" for line in summary_lines if line]
    for anchor, caption, png in _figures(results):
        data = base64.b64encode(png).decode("ascii")
        parts.append(f"<figure id='{anchor}'><img alt='{html.escape(caption)}' "
                     f"src='data:image/png;base64,{data}'><figcaption>{html.escape(caption)}"
                     "</figcaption></figure>")
    parts.append("<h2>Tables</h2>")
    parts += [_table_html(t) for t in results["tables"].values()]
    if s["notes"]:
        parts.append("<h2>Notes</h2><ul class='notes'>" + "".join(
            f"<li>{html.escape(n)}</li>" for n in s["notes"]) + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def render_markdown(results: Mapping[str, Any]) -> str:
    """The page's Markdown twin: summary and tables (plots are in the HTML only)."""
    from halluscope.report.tables import summary_markdown, tables_markdown

    return summary_markdown(results) + "\n\n## Tables\n\n" + tables_markdown(results) + "\n"


def write_run_report(results: Mapping[str, Any], out_dir: str | Path) -> dict[str, Path]:
    """Write report.html and report.md into `out_dir`, atomically."""
    from halluscope.io.atomic import write_text_atomic

    out = Path(out_dir)
    paths = {"html": out / "report.html", "markdown": out / "report.md"}
    write_text_atomic(paths["html"], render_html(results))
    write_text_atomic(paths["markdown"], render_markdown(results))
    return paths
