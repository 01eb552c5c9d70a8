"""Every figure of the two report pages, rendered and measured: size, nothing cut off, one look
per detector, AUC in the ROC legend, the mixing caption naming the axis's quantity, heat-map
text readable on its cell, no "-0.000", counts as integers, titles naming the model.

Each plot function is run with `report.plots._png` wrapped: the wrapper lays the figure out as
`_png` does, then measures it with matplotlib's renderer (`get_window_extent` of every text and
legend against the figure's box) before the PNG is written.
"""

from __future__ import annotations

import numpy as np
import pytest

from halluscope.report import plots

DETECTORS = ["svar", "vade", "internal_confidence", "glsim", "pas", "nll", "entropy",
             "position", "lookback_lens", "hidden_mid", "hidden_last", "text_only", "dhcp",
             "halp"]
SUBTYPES = ["hedged", "depictive", "purpose", "negation"]


@pytest.fixture
def captured(monkeypatch):
    """Figures passed to `_png`, measured just before they become PNG bytes."""
    seen: list[dict] = []
    original = plots._png

    def measuring_png(figure):
        figure.tight_layout()
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        box = figure.bbox
        from matplotlib.text import Text

        # Each axis (drawn tick labels and its label), title, legend and text, and the
        # figure's own texts, against the figure's box.
        parts = []
        for ax in figure.axes:
            parts += [ax.xaxis, ax.yaxis, ax.title, ax.get_legend(), *ax.texts]
        parts += [*figure.texts, *figure.legends]
        outside = []
        for artist in parts:
            if artist is None or not artist.get_visible():
                continue
            if isinstance(artist, Text) and not artist.get_text():
                continue
            extent = artist.get_tightbbox(renderer)
            if extent is None or (extent.width == 0 and extent.height == 0):
                continue
            if (extent.x0 < box.x0 - 1 or extent.y0 < box.y0 - 1 or extent.x1 > box.x1 + 1
                    or extent.y1 > box.y1 + 1):
                outside.append(artist.get_text() if isinstance(artist, Text) else repr(artist))
        texts = [t.get_text() for t in figure.findobj(Text) if t.get_text()]
        seen.append({"size": tuple(figure.get_size_inches()), "outside": outside,
                     "texts": texts, "figure": figure,
                     "lines": [(ax, list(ax.get_lines())) for ax in figure.axes],
                     "legends": [[t.get_text() for t in ax.get_legend().get_texts()]
                                 for ax in figure.axes if ax.get_legend() is not None]})
        return original(figure)

    monkeypatch.setattr(plots, "_png", measuring_png)
    return seen


def _metric(x):
    return {"mean": x, "std": None, "n_seeds": 1}


def bench_results() -> dict:
    rng = np.random.default_rng(0)
    t4_columns = ["detector", "NA FPR %", *(f"{s} %" for s in SUBTYPES), "halluc TPR %",
                  "concrete FPR %"]
    t4_rows = [{"detector": d, "NA FPR %": _metric(rng.random()),
                **{f"{s} %": _metric(None if (i + k) % 5 == 0 else rng.random())
                   for k, s in enumerate(SUBTYPES)},
                "halluc TPR %": _metric(rng.random()), "concrete FPR %": _metric(0.1)}
               for i, d in enumerate(DETECTORS)]
    budgets = ["0", "nat", "10", "30", "100", "max"]
    trained = ["lookback_lens", "hidden_mid", "hidden_last", "text_only", "dhcp"]
    t5_rows = [{"detector": d, "metric": m, **{b: _metric(rng.random()) for b in budgets}}
               for d in trained for m in ("NA FPR %", "halluc TPR %")]
    roc = {}
    for d in DETECTORS:
        fpr = np.sort(np.concatenate([[0.0, 1.0], rng.random(8)]))
        tpr = np.sort(np.concatenate([[0.0, 1.0], rng.random(8)]))
        roc[d] = {"fpr": fpr.tolist(), "tpr": tpr.tolist(), "auc": float(rng.random())}
    examples = [{"word": w, "group": g, "score": float(rng.random()), "flagged": bool(k % 2)}
                for k, (w, g) in enumerate([("dog", "concrete"), ("cat", "hallucinated"),
                                            ("remote control", "hedged"),
                                            ("horse", "depictive"), ("train", "purpose"),
                                            ("people", "negation")])]
    return {"summary": {"detectors": DETECTORS},
            "tables": {"table4": {"columns": t4_columns, "rows": t4_rows},
                       "table5": {"columns": ["detector", "metric", *budgets], "rows": t5_rows}},
            "figures": {"scores": {"detector": "nll", "seed": 0, "threshold": 0.4,
                                   "examples": examples}, "roc": roc, "roc_seed": 0}}


def _check_layout(figure: dict, name: str) -> None:
    width, height = figure["size"]
    assert figure["outside"] == [], f"{name}: cut off: {figure['outside']}"
    assert 3.0 <= width <= 11.5 and 2.5 <= height <= 9, f"{name}: {width:.1f} x {height:.1f} in"
    for ax in figure["figure"].axes:  # no panel is a flat strip
        assert ax.bbox.width / ax.bbox.height <= 3.5, f"{name}: a flat panel {ax.bbox.bounds}"


def test_bench_figures_fit_and_tell_detectors_apart(captured) -> None:
    from halluscope.report.html import _figures

    made = _figures(bench_results())
    assert [anchor for anchor, _, _ in made] == ["scores", "fpr", "mixing", "roc"]
    assert len(captured) == 4
    for (anchor, _, png), figure in zip(made, captured):
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        _check_layout(figure, anchor)

    roc = captured[3]
    curves = [line for ax, lines in roc["lines"] for line in lines
              if line.get_linestyle() != ":"]  # the chance diagonal is dotted
    assert len(curves) == 14
    looks = {(line.get_color(), line.get_linestyle()) for line in curves}
    assert len(looks) == 14 and len({line.get_color() for line in curves}) == 14
    legend = roc["legends"][0]
    assert len(legend) == 14 and all(" (AUC 0." in text or " (AUC 1." in text
                                     for text in legend)

    # The mixing plot's curves: a detector keeps its ROC colour.
    roc_colour = {line.get_label().split(" (AUC")[0]: line.get_color() for line in curves}
    mixing_lines = [line for _, lines in captured[2]["lines"] for line in lines]
    assert all(line.get_color() == roc_colour[line.get_label()] for line in mixing_lines)

    # Per-subtype panel figure: every detector named, n/a where a subtype is undefined.
    fpr = captured[1]
    assert all(d in fpr["texts"] for d in DETECTORS) and "n/a" in fpr["texts"]


def test_mixing_caption_names_the_axis_quantity(captured) -> None:
    from halluscope.report.html import _figures

    caption = dict((a, c) for a, c, _ in _figures(bench_results()))["mixing"]
    mixing = captured[2]
    xlabels = {ax.get_xlabel() for ax, _ in mixing["lines"]}
    assert len(xlabels) == 1
    xlabel = xlabels.pop()
    # Both say: non-assertive examples, as % of the fit set's hallucinations.
    for words in (("non-assertive",), ("%",), ("hallucinations",)):
        assert all(w in xlabel for w in words) and all(w in caption for w in words), words
    assert "number of" not in caption


def test_prism_figures_fit_and_heat_map_text_reads(captured) -> None:
    from halluscope.prism.analysis import abstain_rows
    from halluscope.prism.entanglement import entanglement_table
    from halluscope.prism.report import (distributions_png, entanglement_png, risk_coverage_png,
                                         routing_png)
    from halluscope.prism.results import Correctness, DecompRow

    rng = np.random.default_rng(1)
    rows = [DecompRow(f"s{i}", i, Correctness(bool(rng.random() < 0.6), True), None,
                      float(rng.random()), float(rng.random()), float(rng.random()),
                      float(rng.random()), bool(rng.random() < 0.5)) for i in range(40)]
    settings = [{"model": m, "dataset": d, **abstain_rows(rows)}
                for m in ("llava-1.5-7b-hf", "Qwen2.5-VL-7B-Instruct") for d in ("vsr", "pope")]
    risk_coverage_png(settings)
    groups = {g: {k: rng.random(12).tolist() for k in "vla"}
              for g in ("correct", "wrong: spatial", "wrong: counting", "wrong: unknown")}
    distributions_png("llava-1.5-7b-hf/vsr", groups)
    routing_png([{"model": "llava-1.5-7b-hf", "dataset": d, "fix_generic": 0.2,
                  "fix_matched": 0.3, "break_generic": 0.1, "break_matched": None}
                 for d in ("vsr", "pope")])
    # Deltas chosen so the colour scale's ends (|delta| = 0.2: darkest red and blue of RdBu_r)
    # and its middle (0, a tiny negative: near white) all appear.
    table = entanglement_table({
        ("llava-1.5-7b-hf", "vsr"): {"visual": (-0.2, 0.0, -0.00004),
                                     "language": (0.01, 0.2, 0.0)},
        ("Qwen2.5-VL-7B-Instruct", "pope"): {"alignment": (0.0, -0.00001, 0.2)}})
    entanglement_png(table)
    names = ["risk-coverage", "distributions", "routing", "entanglement"]
    assert len(captured) == 4
    for figure, name in zip(captured, names):
        _check_layout(figure, name)

    heat = captured[3]["figure"]
    cells = {}
    for text in heat.axes[0].texts:
        cells.setdefault(text.get_text(), set()).add(text.get_color())
    assert "-0.000" not in cells and "+0.000" not in cells
    assert cells["+0.200"] == {"white"} and cells["-0.200"] == {"white"}  # dark ends
    assert cells["0.000"] == {"black"}  # the near-white middle
    assert "+0.010" in cells and cells["+0.010"] == {"black"}


def test_counts_over_seeds_print_as_integers() -> None:
    from halluscope.bench.tables.common import n_cell
    from halluscope.bench.tables.table5 import table5

    assert n_cell([4, 4, 4]) == "4" and n_cell([3, 4]) == "3.5"
    t = table5({"0": {}, "10": {}}, [{"0": {"n_mixed": 0}, "10": {"n_mixed": 3}}], ["0", "10"],
               [])
    mixed = next(r for r in t["rows"] if r["detector"] == "(all)")
    assert (mixed["0"], mixed["10"]) == ("0", "3")


def test_prism_page_title_names_the_models() -> None:
    from halluscope.prism.report import render_html, render_markdown

    data = {"results_dir": "r", "interventions_dir": None, "ruined_dir": None,
            "profile": [{"model": "llava-1.5-7b-hf", "dataset": "vsr", "n": 0, "accuracy": None,
                         "v_mean": None, "l_mean": None, "a_mean": None, "lp_match": None,
                         "dominant_v": 0, "dominant_l": 0, "dominant_a": 0, "n_unparsed": 0}],
            "abstain": [], "distributions": [], "route": None, "entanglement": None,
            "notes": []}
    assert "<title>HalluPrism report: llava-1.5-7b-hf</title>" in render_html(data)
    assert render_markdown(data).startswith("# HalluPrism report: llava-1.5-7b-hf")
