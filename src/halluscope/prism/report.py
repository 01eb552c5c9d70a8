"""One self-contained HTML page (and a Markdown twin) of a HalluPrism results folder.

>>> import json, tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp()); (d / "m").mkdir()
>>> row = {"sample_id": "s0", "gold_answer": "true", "model_prediction": "true",
...        "scalar_confidence": 0.9, "v_score": 0.1, "lp_score": 0.9, "a_score": 0.5,
...        "lp_answer_matches": True}
>>> _ = (d / "m" / "vsr.jsonl").write_text(json.dumps(row) + "\\n")
>>> data = build_report(d); data["profile"][0]["n"], data["entanglement"] is None
(1, True)
>>> "<h2 id='profile'>" in render_html(data) and "# HalluPrism report" in render_markdown(data)
True

`write_prism_report(results, out_dir, interventions=None, ruined=None)` reads a decomposition
folder (`DIR/<model>/<dataset>.jsonl`, see `prism.results`) and writes `report.html` and
`report.md` into `out_dir`, atomically. The page shows what a reader looks at first:

* risk-coverage curves of scalar confidence vs the source-aware scalarizations, per (model,
  dataset) (paper Tables 32-34, AURC in the legend);
* (V, L, A) distributions (box plots) per group: correct answers, and wrong answers per failure
  family (the paper maps correct predictions to "no failure");
* with `interventions` (an intervention folder): fix and break rates of the generic prompt vs
  the matched intervention (Table 35);
* the source profile (Table 13) as a table, and the abstention and routing tables;
* with `ruined` (per-condition signatures, `RUINED/<condition>/<model>/<dataset>.jsonl` with
  condition in visual / language / alignment, rows paired with the clean rows by sample_id):
  the interventional entanglement matrix (Tables 15-19); without it a note says so.

Plots are PNGs (matplotlib Agg, fixed metadata) embedded as base64, built with the NAME-Bench
helpers of `halluscope.report.plots`; tables use `halluscope.report.html.html_table` and
`halluscope.report.markdown.markdown_table`. Same inputs give byte-identical files.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any, Mapping, Sequence

from halluscope.errors import InputError
from halluscope.prism.analysis import SCALARIZATIONS, abstain_rows, profile_rows, route_rows
from halluscope.prism.entanglement import TARGET, entanglement_table, mean_deltas
from halluscope.prism.results import (DecompRow, decomposition_row, discover, intervention_row,
                                      read_rows)

#: Ruined conditions looked for under `--ruined` (the entanglement test's three rows).
CONDITIONS = tuple(TARGET)
#: Colours of the scalar and source-aware scores in the risk-coverage plots.
SCORE_COLOURS = {"scalar": "#222222", "penalty": "#d1495b", "weighted": "#00798c",
                 "geometric": "#edae49"}
COORD_NAMES = (("v", "V (visual fragility)"), ("l", "L (image-removal retention)"),
               ("a", "A (alignment sensitivity)"))


def _pct(x: float | None) -> str:
    """A fraction as a percentage.

    >>> _pct(0.1234), _pct(None)
    ('12.3', 'n/a')
    """
    return "n/a" if x is None else f"{100 * x:.1f}"


def _num(x: float | None) -> str:
    """A number with three decimals.

    >>> _num(0.12345), _num(None)
    ('0.123', 'n/a')
    """
    return "n/a" if x is None else f"{x:.3f}"


def _signed(x: float) -> str:
    """A signed delta with three decimals; one that rounds to zero has no sign.

    >>> _signed(-0.0001), _signed(0.0004), _signed(0.25), _signed(-0.0005001)
    ('0.000', '0.000', '+0.250', '-0.001')
    """
    text = f"{x:+.3f}"
    return text[1:] if float(text) == 0 else text


def group_label(correct: bool, family: Any) -> str:
    """The distribution group of one answer: correct, or wrong with its failure family.

    >>> group_label(True, "spatial"), group_label(False, "spatial"), group_label(False, None)
    ('correct', 'wrong: spatial', 'wrong: unknown')
    """
    if correct:
        return "correct"
    return f"wrong: {family if isinstance(family, str) and family else 'unknown'}"


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------

def _load_setting(path: Path) -> tuple[list[DecompRow], list[str], dict[str, Any]]:
    raw, stats = read_rows(path)
    rows, groups = [], []
    for line, row in raw:
        r = decomposition_row(row, path, line)
        rows.append(r)
        groups.append(group_label(r.correct, row.get("failure_family")))
    return rows, groups, {"n_duplicates": stats.n_duplicates, "n_skipped": stats.n_skipped,
                          "n_duplicate_conflicts": stats.n_duplicate_conflicts}


def distributions(rows: Sequence[DecompRow], groups: Sequence[str]) -> dict[str, Any]:
    """V, L and A values per group, groups ordered correct first, then by name.

    >>> from halluscope.prism.results import Correctness
    >>> rows = [DecompRow("a", 1, Correctness(False, True), None, 0.5, 0.2, 0.9, 0.4, True),
    ...         DecompRow("b", 2, Correctness(True, True), None, 0.9, 0.1, 1.0, 0.3, False)]
    >>> d = distributions(rows, ["wrong: spatial", "correct"]); list(d), d["correct"]["l"]
    (['correct', 'wrong: spatial'], [1.0])
    """
    out: dict[str, dict[str, list[float]]] = {}
    for r, g in zip(rows, groups):
        entry = out.setdefault(g, {"v": [], "l": [], "a": []})
        entry["v"].append(r.v)
        entry["l"].append(r.l)
        entry["a"].append(r.a)
    return {g: out[g] for g in sorted(out, key=lambda g: (g != "correct", g))}


def _ruined_signatures(ruined_dir: Path, clean: Mapping[tuple[str, str], Sequence[DecompRow]]
                       ) -> tuple[dict[tuple[str, str], dict[str, tuple[float, float, float]]],
                                  list[str]]:
    """Mean (dV, dL, dA) per setting and condition, over items present clean and ruined."""
    settings: dict[tuple[str, str], dict[str, tuple[float, float, float]]] = {}
    notes = []
    for cond in CONDITIONS:
        folder = ruined_dir / cond
        if not folder.is_dir():
            notes.append(f"no {cond}-ruined signatures ({folder} missing)")
            continue
        for model, dataset, path in discover(folder):
            base = {r.sample_id: r for r in clean.get((model, dataset), [])}
            raw, _stats = read_rows(path)
            pairs = []
            for line, row in raw:
                r = decomposition_row(row, path, line)
                if r.sample_id in base:
                    c = base[r.sample_id]
                    pairs.append(((c.v, c.l, c.a), (r.v, r.l, r.a)))
            if not pairs:
                notes.append(f"{cond}-ruined {model}/{dataset}: no item paired with a clean row")
                continue
            settings.setdefault((model, dataset), {})[cond] = mean_deltas(
                [p[0] for p in pairs], [p[1] for p in pairs])
            if len(pairs) < len(raw):
                notes.append(f"{cond}-ruined {model}/{dataset}: {len(raw) - len(pairs)} rows "
                             "without a clean counterpart left out")
    return settings, notes


def build_report(results_dir: str | Path, interventions_dir: str | Path | None = None,
                 ruined_dir: str | Path | None = None) -> dict[str, Any]:
    """Everything the page shows, as plain data (see the module docstring for an example)."""
    results = Path(results_dir)
    profile, abstention, dists, notes = [], [], [], []
    clean: dict[tuple[str, str], list[DecompRow]] = {}
    for model, dataset, path in discover(results):
        rows, groups, stats = _load_setting(path)
        clean[(model, dataset)] = rows
        profile.append({"model": model, "dataset": dataset, **profile_rows(rows)})
        ab = abstain_rows(rows)
        abstention.append({"model": model, "dataset": dataset, **ab})
        dists.append({"model": model, "dataset": dataset,
                      "groups": distributions(rows, groups)})
        if stats["n_duplicates"] or stats["n_skipped"]:
            notes.append(f"{model}/{dataset}: {stats['n_duplicates']} duplicated rows "
                         f"({stats['n_duplicate_conflicts']} with differing content) and "
                         f"{stats['n_skipped']} skipped rows left out")
    routing = None
    if interventions_dir is not None:
        routing = []
        for model, dataset, path in discover(interventions_dir):
            raw, _stats = read_rows(path)
            rows_i = [intervention_row(row, path, line) for line, row in raw]
            routing.append({"model": model, "dataset": dataset, **route_rows(rows_i)})
    entanglement = None
    if ruined_dir is not None:
        ruined = Path(ruined_dir)
        if not ruined.is_dir():
            raise InputError("ruined-signature folder not found", path=ruined)
        settings, ruin_notes = _ruined_signatures(ruined, clean)
        notes += ruin_notes
        if settings:
            entanglement = entanglement_table(settings)
    return {"results_dir": str(results), "interventions_dir":
            None if interventions_dir is None else str(interventions_dir),
            "ruined_dir": None if ruined_dir is None else str(ruined_dir),
            "profile": profile, "abstain": abstention, "distributions": dists,
            "route": routing, "entanglement": entanglement, "notes": notes}


# ---------------------------------------------------------------------------------------------
# Plots (PNG bytes through halluscope.report.plots' Agg / fixed-metadata helpers)
# ---------------------------------------------------------------------------------------------

def _grid(n: int) -> tuple[int, int]:
    """(rows, columns) of a panel grid, at most four panels a row.

    >>> _grid(1), _grid(4), _grid(6)
    ((1, 1), (1, 4), (2, 4))
    """
    cols = min(4, max(1, n))
    return (n + cols - 1) // cols, cols


def risk_coverage_png(settings: Sequence[Mapping[str, Any]]) -> bytes:
    """Risk-coverage curves of every score, one panel per (model, dataset), AURC in the legend.

    >>> from halluscope.prism.results import Correctness
    >>> rows = [DecompRow("a", 1, Correctness(True, True), None, 0.9, 0.1, 0.5, 0.1, True),
    ...         DecompRow("b", 2, Correctness(False, True), None, 0.6, 0.1, 0.5, 0.1, False)]
    >>> risk_coverage_png([{"model": "m", "dataset": "d", **abstain_rows(rows)}])[:4]
    b'\\x89PNG'
    """
    from halluscope.report.plots import MAX_WIDTH_IN, _png, _pyplot

    plt = _pyplot()
    nrows, ncols = _grid(len(settings))
    panel = min(3.4, MAX_WIDTH_IN / ncols)  # a row of panels fits the page's width
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel * ncols, 3.0 * nrows), squeeze=False)
    for ax in axes.flat[len(settings):]:
        ax.axis("off")
    for ax, s in zip(axes.flat, settings):
        for method in SCALARIZATIONS:
            entry = s["scores"][method]
            curve = entry["risk_coverage"]
            label = f"{method} (AURC {_num(entry['aurc'])})"
            ax.plot([100 * p["coverage"] for p in curve], [100 * p["risk"] for p in curve],
                    marker="o", markersize=2.5, linewidth=1.6 if method == "scalar" else 1.1,
                    color=SCORE_COLOURS[method], label=label)
        ax.set_title(f"{s['model']}/{s['dataset']} (n={s['n']})", fontsize=9)
        ax.set_xlabel("coverage %", fontsize=8)
        ax.set_ylabel("selective risk %", fontsize=8)
        ax.set_xlim(0, 100)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6, loc="best")
    return _png(fig)


def distributions_png(title: str, groups: Mapping[str, Mapping[str, Sequence[float]]]) -> bytes:
    """Box plots of V, L and A (three panels), one box per group, n in the tick labels.

    >>> groups = {"correct": {"v": [0.1, 0.2], "l": [1.0, 0.9], "a": [0.5, 0.4]}}
    >>> distributions_png("m/d", groups)[:4]
    b'\\x89PNG'
    """
    from halluscope.report.plots import MAX_WIDTH_IN, _png, _pyplot

    plt = _pyplot()
    names = list(groups)
    fig, axes = plt.subplots(1, 3, figsize=(min(MAX_WIDTH_IN, max(7.5, 2.2 * len(names) + 4.5)),
                                            3.6))
    labels = [f"{g}\n(n={len(groups[g]['v'])})" for g in names]
    rotation = 0 if len(names) <= 2 else 30  # many groups: slanted, so labels do not collide
    for ax, (key, name) in zip(axes, COORD_NAMES):
        ax.boxplot([list(groups[g][key]) for g in names], showmeans=True, widths=0.6,
                   flierprops={"markersize": 2})
        ax.set_xticks(range(1, len(names) + 1))
        ax.set_xticklabels(labels, fontsize=7, rotation=rotation,
                           ha="right" if rotation else "center")
        ax.set_ylim(-0.05, 1.05)
        ax.set_title(name, fontsize=9)
        ax.tick_params(axis="y", labelsize=7)
    fig.suptitle(title, fontsize=10)
    return _png(fig)


def routing_png(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """Fix and break rates (%) of the generic prompt vs the matched intervention per setting.

    >>> routing_png([{"model": "m", "dataset": "d", "fix_generic": 0.2, "fix_matched": 0.3,
    ...               "break_generic": 0.1, "break_matched": None}])[:4]
    b'\\x89PNG'
    """
    from halluscope.report.plots import grouped_bars_png

    settings = [f"{r['model']}/{r['dataset']}" for r in rows]
    series = {f"{what} {arm}": [r[f"{what}_{arm}"] for r in rows]
              for what in ("fix", "break") for arm in ("generic", "matched")}
    return grouped_bars_png(settings, series, "rate %")


def text_colour(rgba: Sequence[float]) -> str:
    """Black or white, whichever reads better on a cell of colour `rgba` (WCAG luminance).

    >>> text_colour((0.02, 0.19, 0.38, 1.0)), text_colour((0.97, 0.97, 0.97, 1.0))
    ('white', 'black')
    """
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgba[:3])
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    # Contrast with black (L + 0.05) / 0.05 beats contrast with white 1.05 / (L + 0.05)
    # exactly when L > ~0.179.
    return "black" if luminance > 0.179 else "white"


def entanglement_png(table: Mapping[str, Any]) -> bytes:
    """Heat map of the signed (dV, dL, dA) per setting and ruined condition, PASS/FAIL marked.

    >>> entanglement_png(entanglement_table({("m", "d"): {"visual": (-0.1, 0.0, 0.02)}}))[:4]
    b'\\x89PNG'
    """
    from halluscope.report.plots import _png, _pyplot

    plt = _pyplot()
    checks = table["checks"]
    values = [[c["delta"][k] for k in ("v", "l", "a")] for c in checks]
    bound = max([abs(x) for row in values for x in row] + [1e-6])
    fig, ax = plt.subplots(figsize=(5.6, 0.32 * len(checks) + 1.6))
    image = ax.imshow(values, cmap="RdBu_r", vmin=-bound, vmax=bound, aspect="auto")
    for i, row in enumerate(values):
        for j, x in enumerate(row):
            # White on dark cells, black on light ones (relative luminance of the cell colour).
            ax.text(j, i, _signed(x), ha="center", va="center", fontsize=7,
                    color=text_colour(image.cmap(image.norm(x))))
    ax.set_xticks(range(3))
    ax.set_xticklabels(["ΔV", "ΔL", "ΔA"])
    ax.set_yticks(range(len(checks)))
    ax.set_yticklabels([f"{c['model']}/{c['dataset']} {c['condition']}-ruined "
                        f"{'PASS' if c['passed'] else 'FAIL'}" for c in checks], fontsize=7)
    fig.colorbar(image, ax=ax, fraction=0.05)
    return _png(fig)


def figures(data: Mapping[str, Any]) -> list[tuple[str, str, bytes]]:
    """(anchor, caption, PNG) of every plot the data allow, in page order."""
    out = []
    if data["abstain"]:
        out.append(("risk-coverage", "Risk-coverage: selective risk (1 - selective accuracy) "
                    "against coverage when the most confident answers are kept, for scalar "
                    "confidence c and the source-aware scalarizations penalty = c(1 - max(V, L, "
                    "A)), weighted, geometric; lower is better (ties admitted in random order, "
                    "expected value).", risk_coverage_png(data["abstain"])))
    for d in data["distributions"]:
        out.append((f"dist-{d['model']}-{d['dataset']}",
                    f"{d['model']}/{d['dataset']}: (V, L, A) of correct answers and of wrong "
                    "answers per failure family (box: quartiles, line: median, triangle: mean).",
                    distributions_png(f"{d['model']}/{d['dataset']}", d["groups"])))
    if data["route"]:
        out.append(("routing", "Routing: fix rate (originally wrong made right) and break rate "
                    "(originally right made wrong) of the generic prompt and the matched "
                    "intervention.", routing_png(data["route"])))
    if data["entanglement"]:
        out.append(("entanglement", "Interventional entanglement: mean signed change of each "
                    "coordinate under each ruined condition; PASS when the targeted coordinate "
                    "has strictly the largest |Δ|.", entanglement_png(data["entanglement"])))
    return out


# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------

def tables(data: Mapping[str, Any]) -> list[tuple[str, str, list[str], list[list[str]]]]:
    """(anchor, title, header, rows) of every table, in page order (cells are strings)."""
    out = [("profile", "Source profile (Table 13)",
            ["model", "dataset", "N", "acc %", "V", "L", "A", "LP match %", "Dom V", "Dom L",
             "Dom A", "unparsed"],
            [[p["model"], p["dataset"], str(p["n"]), _pct(p["accuracy"]), _num(p["v_mean"]),
              _num(p["l_mean"]), _num(p["a_mean"]), _pct(p["lp_match"]), str(p["dominant_v"]),
              str(p["dominant_l"]), str(p["dominant_a"]), str(p["n_unparsed"])]
             for p in data["profile"]])]
    out.append(("abstain", "Abstention: scalar vs source-aware scores (Tables 32-34)",
                ["model", "dataset", "N", *(f"AUROC {m}" for m in SCALARIZATIONS),
                 *(f"AURC {m}" for m in SCALARIZATIONS), "sel acc@80 % scalar",
                 "best source-aware"],
                [[a["model"], a["dataset"], str(a["n"]),
                  *(_num(a[f"auroc_{m}"]) for m in SCALARIZATIONS),
                  *(_num(a[f"aurc_{m}"]) for m in SCALARIZATIONS),
                  _pct(a["sel_acc_80_scalar"]), str(a["best_source_aware"])]
                 for a in data["abstain"]]))
    if data["route"]:
        out.append(("route", "Routing (Table 35)",
                    ["model", "dataset", "N", "acc none %", "acc generic %", "acc matched %",
                     "fix generic %", "fix matched %", "break generic %", "break matched %",
                     "routed to"],
                    [[r["model"], r["dataset"], str(r["n"]), _pct(r["acc_none"]),
                      _pct(r["acc_generic"]), _pct(r["acc_matched"]), _pct(r["fix_generic"]),
                      _pct(r["fix_matched"]), _pct(r["break_generic"]), _pct(r["break_matched"]),
                      ", ".join(f"{k} {v}" for k, v in r["dominant_source_counts"].items())]
                     for r in data["route"]]))
    if data["entanglement"]:
        t = data["entanglement"]
        out.append(("entanglement", f"Interventional entanglement (Tables 15-19), "
                    f"{t['total']} checks pass",
                    ["model", "dataset", "condition", "ΔV", "ΔL", "ΔA", "check"],
                    [[c["model"], c["dataset"], f"{c['condition']}-ruined",
                      *(_signed(c["delta"][k]) for k in ("v", "l", "a")),
                      "PASS" if c["passed"] else "FAIL"] for c in t["checks"]]))
    return out


def notes(data: Mapping[str, Any]) -> list[str]:
    """The page's notes: what was not given, and what was left out of the inputs."""
    out = list(data["notes"])
    if data["route"] is None:
        out.append("No intervention results given (--interventions): routing plot and table "
                   "left out.")
    else:
        out.append("Routing rows carry the reference's routing decision (`dominant_source`, "
                   "raw argmax of (V, L, A)); see `halluscope prism route-dominance` for "
                   "routing on normalised dominance.")
    if data["entanglement"] is None:
        out.append("No per-condition (ruined-input) signatures given (--ruined "
                   "DIR/<visual|language|alignment>/<model>/<dataset>.jsonl): the "
                   "interventional entanglement matrix is not shown.")
    out.append("Correctness is recomputed strictly from each prediction and the gold answer; "
               "unparsed answers count as wrong.")
    return out


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------

def _inputs_line(data: Mapping[str, Any]) -> str:
    parts = [f"decomposition results: {data['results_dir']}"]
    if data["interventions_dir"]:
        parts.append(f"intervention results: {data['interventions_dir']}")
    if data["ruined_dir"]:
        parts.append(f"ruined-input signatures: {data['ruined_dir']}")
    n = sum(p["n"] for p in data["profile"])
    return "; ".join(parts) + f" ({len(data['profile'])} settings, {n} rows)."


def report_title(data: Mapping[str, Any]) -> str:
    """The page title: the models it is about, by name.

    >>> report_title({"profile": [{"model": "llava"}, {"model": "qwen"}, {"model": "llava"}]})
    'HalluPrism report: llava, qwen'
    >>> report_title({"profile": [{"model": f"m{i}"} for i in range(5)]})
    'HalluPrism report: m0, m1, m2 and 2 more models'
    """
    models = sorted({str(p["model"]) for p in data.get("profile") or []})
    if not models:
        return "HalluPrism report"
    shown = ", ".join(models[:3])
    more = f" and {len(models) - 3} more models" if len(models) > 3 else ""
    return f"HalluPrism report: {shown}{more}"


def render_html(data: Mapping[str, Any]) -> str:
    """The page as one string, no external resources (example in the module docstring)."""
    from halluscope.report.html import STYLE, html_table

    title = html.escape(report_title(data))
    parts = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'>",
             f"<title>{title}</title><style>{STYLE}</style></head><body>",
             f"<h1>{title}</h1>", f"<p>{html.escape(_inputs_line(data))}</p>",
             "<h2 id='figures'>Figures</h2>"]
    for anchor, caption, png in figures(data):
        encoded = base64.b64encode(png).decode("ascii")
        parts.append(f"<figure id='{html.escape(anchor)}'><img alt='{html.escape(caption)}' "
                     f"src='data:image/png;base64,{encoded}'><figcaption>"
                     f"{html.escape(caption)}</figcaption></figure>")
    for anchor, heading, header, rows in tables(data):
        parts.append(f"<h2 id='{anchor}'>{html.escape(heading)}</h2>")
        parts.append(html_table(header, rows) if rows else "<p>(no rows)</p>")
    if data["entanglement"]:
        t = data["entanglement"]
        parts.append("<p class='notes'>Pass counts: " + html.escape(
            ", ".join(f"{k}-ruined {v}" for k, v in t["pass_counts"].items())
            + "; per model: " + ", ".join(f"{k} {v}" for k, v in t["per_model"].items()))
            + "</p>")
    else:
        parts.append("<h2 id='entanglement'>Interventional entanglement</h2><p class='notes'>"
                     "Not shown: no per-condition (ruined-input) signatures were given.</p>")
    parts.append("<h2 id='notes'>Notes</h2><ul class='notes'>"
                 + "".join(f"<li>{html.escape(n)}</li>" for n in notes(data)) + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def render_markdown(data: Mapping[str, Any]) -> str:
    """The page's Markdown twin: the tables and notes (the plots are in the HTML only)."""
    from halluscope.report.markdown import markdown_table

    parts = [f"# {report_title(data)}", "", _inputs_line(data), "",
             "Figures (in report.html): " + ", ".join(
                 anchor for anchor, _c, _p in _figure_index(data)) + ".", ""]
    for _anchor, heading, header, rows in tables(data):
        parts += [f"## {heading}", "", markdown_table(header, rows) if rows else "(no rows)", ""]
    if not data["entanglement"]:
        parts += ["## Interventional entanglement", "",
                  "Not shown: no per-condition (ruined-input) signatures were given.", ""]
    parts += ["## Notes", ""] + [f"- {n}" for n in notes(data)]
    return "\n".join(parts) + "\n"


def _figure_index(data: Mapping[str, Any]) -> list[tuple[str, str, None]]:
    """The figures' anchors without drawing them (for the Markdown twin)."""
    out = [("risk-coverage", "", None)] if data["abstain"] else []
    out += [(f"dist-{d['model']}-{d['dataset']}", "", None) for d in data["distributions"]]
    if data["route"]:
        out.append(("routing", "", None))
    if data["entanglement"]:
        out.append(("entanglement", "", None))
    return out


def write_prism_report(results_dir: str | Path, out_dir: str | Path,
                       interventions_dir: str | Path | None = None,
                       ruined_dir: str | Path | None = None) -> dict[str, Path]:
    """Write report.html and report.md into `out_dir`, atomically; returns their paths."""
    from halluscope.io.atomic import write_text_atomic

    data = build_report(results_dir, interventions_dir, ruined_dir)
    out = Path(out_dir)
    paths = {"html": out / "report.html", "markdown": out / "report.md"}
    write_text_atomic(paths["html"], render_html(data))
    write_text_atomic(paths["markdown"], render_markdown(data))
    return paths
