"""The plots of a bench run, as PNG bytes (matplotlib, Agg backend; nothing is shown or saved).

>>> png = grouped_bars_png(["a", "b"], {"x": [0.1, None], "y": [0.3, 0.2]}, "FPR %")
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True

Each function takes plain data (lists, dicts from `results.json`) and returns PNG bytes, so the
HTML page can embed them and tests need no display. PNG metadata is fixed (no software version
or date), so the same data gives the same bytes.
"""

from __future__ import annotations

import io
from typing import Any, Mapping, Sequence

GROUP_COLOURS = {"concrete": "#4c956c", "hallucinated": "#d1495b", "hedged": "#edae49",
                 "depictive": "#00798c", "purpose": "#8d6cab", "negation": "#30638e"}
#: Series colours: matplotlib's ten plus four dark ones, so fourteen detectors get fourteen
#: colours; past those, line style and marker tell series apart (and help in greyscale).
SERIES_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                  "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#6b4c00", "#00307a", "#7a0043")
LINE_STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
#: Widest figure (inches): past this, a figure is split into panels, not stretched.
MAX_WIDTH_IN = 11.0


def series_styles(names: Sequence[str]) -> dict[str, dict[str, str]]:
    """A distinct (colour, line style, marker) per name, in the order given, so one detector
    looks the same in every figure of a page when each gets the same `names`.

    >>> styles = series_styles([f"d{i}" for i in range(16)])
    >>> len({s["color"] for s in styles.values()}), len({tuple(s.values()) for s in styles.values()})
    (14, 16)
    >>> styles["d0"], styles["d14"]["linestyle"]
    ({'color': '#1f77b4', 'linestyle': '-', 'marker': 'o'}, '--')
    """
    n = len(SERIES_COLOURS)
    return {name: {"color": SERIES_COLOURS[i % n],
                   "linestyle": LINE_STYLES[(i // n) % len(LINE_STYLES)],
                   "marker": MARKERS[i % len(MARKERS)]} for i, name in enumerate(names)}


def _styles_for(names: Sequence[str], order: Sequence[str] | None) -> dict[str, dict[str, str]]:
    """Styles keyed by the page-wide `order` (names not in it appended after)."""
    full = list(order or []) + [n for n in names if n not in (order or [])]
    return series_styles(full)


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)  # headless; never a GUI backend
    import matplotlib.pyplot as plt

    return plt


def _png(figure: Any) -> bytes:
    plt = _pyplot()
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
    plt.close(figure)
    return buffer.getvalue()


def score_bars_png(figure_data: Mapping[str, Any]) -> bytes:
    """Per-mention scores of one detector with its calibrated threshold (Figure 1 style)."""
    plt = _pyplot()
    examples = figure_data["examples"]
    fig, ax = plt.subplots(figsize=(max(5.0, 0.55 * len(examples) + 2), 3.6))
    labels = [f"{e['word']}\n({e['group']})" for e in examples]
    colours = [GROUP_COLOURS.get(e["group"], "#888888") for e in examples]
    ax.bar(range(len(examples)), [e["score"] for e in examples], color=colours,
           edgecolor=["black" if e["flagged"] else "none" for e in examples])
    ax.axhline(figure_data["threshold"], color="black", linestyle="--", linewidth=1,
               label="threshold (10% concrete FPR)")
    ax.set_xticks(range(len(examples)))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel(f"{figure_data['detector']} score")
    ax.set_title(f"{figure_data['detector']}, held-out mentions (seed {figure_data['seed']}); "
                 "outlined = flagged", fontsize=9)
    ax.legend(fontsize=7, loc="best")
    return _png(fig)


def grouped_bars_png(groups: Sequence[str], series: Mapping[str, Sequence[float | None]],
                     ylabel: str, percent: bool = True,
                     order: Sequence[str] | None = None) -> bytes:
    """Bars of `series[name][i]` for each group i (None: no bar, "n/a" written where it would
    be). Fractions shown as %. For a few series; many series read better as `panel_bars_png`."""
    plt = _pyplot()
    styles = _styles_for(list(series), order)
    width_in = min(MAX_WIDTH_IN, max(5.0, 0.35 * len(groups) * max(1, len(series)) + 2.5))
    fig, ax = plt.subplots(figsize=(width_in, 3.8))
    width = 0.8 / max(1, len(series))
    scale = 100.0 if percent else 1.0
    for k, (name, values) in enumerate(series.items()):
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(groups))]
        shown = [(x, scale * v) for x, v in zip(xs, values) if v is not None]
        ax.bar([x for x, _ in shown], [h for _, h in shown], width=width, label=name,
               color=styles[name]["color"])
        for x, v in zip(xs, values):
            if v is None:
                ax.text(x, 0, "n/a", ha="center", va="bottom", fontsize=6, rotation=90)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    if series:  # beside the axes: never over a bar
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _png(fig)


def panel_bars_png(groups: Sequence[str], series: Mapping[str, Sequence[float | None]],
                   xlabel: str, percent: bool = True,
                   order: Sequence[str] | None = None) -> bytes:
    """One panel per group, one horizontal bar per series (detector), the value written at the
    bar's end; None is written "n/a" (undefined, not zero). Fractions shown as %.

    Readable with many series: the NA-FPR-per-subtype figure of a bench run (14 detectors x
    5 groups) stays about 11 x 4.5 inches.

    >>> panel_bars_png(["all", "hedged"], {"nll": [0.25, None], "svar": [0.0, 0.5]}, "%")[:4]
    b'\\x89PNG'
    """
    plt = _pyplot()
    names = list(series)
    styles = _styles_for(names, order)
    n_panels = max(1, len(groups))
    panel_in = min(2.6, (MAX_WIDTH_IN - 1.6) / n_panels)
    fig, axes = plt.subplots(1, n_panels, sharey=True, squeeze=False,
                             figsize=(1.6 + panel_in * n_panels, 0.26 * len(names) + 1.3))
    scale = 100.0 if percent else 1.0
    top = 100.0 if percent else max([abs(v) for vs in series.values() for v in vs
                                      if v is not None] + [1.0])
    ys = list(range(len(names)))
    for ax, (g, group) in zip(axes[0], enumerate(groups)):
        for y, name in zip(ys, names):
            value = series[name][g]
            if value is None:
                ax.text(0.02 * top, y, "n/a", va="center", fontsize=6, color="#666666")
                continue
            ax.barh(y, scale * value, height=0.7, color=styles[name]["color"])
            ax.text(scale * value + 0.02 * top, y, f"{scale * value:.0f}", va="center",
                    fontsize=6)
        ax.set_xlim(0, 1.25 * top)
        if percent:  # room for the value labels, ticks only where values can be
            ax.set_xticks([0, 50, 100])
        ax.set_title(group, fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0][0].set_yticks(ys)
    axes[0][0].set_yticklabels(names, fontsize=7)
    axes[0][0].invert_yaxis()
    return _png(fig)


def mixing_curves_png(budgets: Sequence[str], fpr: Mapping[str, Sequence[float | None]],
                      tpr: Mapping[str, Sequence[float | None]],
                      order: Sequence[str] | None = None) -> bytes:
    """Non-assertive FPR and hallucination TPR (%) against the mixing budget, per detector.

    The budget is the number of non-assertive training examples as a % of the fit set's
    hallucinations ("nat": the natural share, "max": all available), as in Table 5.
    """
    plt = _pyplot()
    styles = _styles_for(list(fpr) + [n for n in tpr if n not in fpr], order)
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 3.8), sharex=True)
    for ax, data, title in ((axes[0], fpr, "non-assertive FPR %"),
                            (axes[1], tpr, "hallucination TPR %")):
        for name, values in data.items():
            xs = [i for i, v in enumerate(values) if v is not None]
            ax.plot(xs, [100.0 * values[i] for i in xs], label=name, linewidth=1.3,
                    markersize=4, **styles[name])
        ax.set_xticks(range(len(budgets)))
        ax.set_xticklabels(budgets)
        ax.set_xlabel("budget: non-assertive examples, % of fit hallucinations", fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.set_ylim(-5, 105)
    if fpr or tpr:
        axes[1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5))
    return _png(fig)


def roc_png(curves: Mapping[str, Mapping[str, Any]], order: Sequence[str] | None = None) -> bytes:
    """ROC curves concrete (negative) vs hallucinated (positive), "AUC 0.71" in the legend."""
    plt = _pyplot()
    styles = _styles_for(list(curves), order)
    fig, ax = plt.subplots(figsize=(7.4, 4.6))
    ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle=":")
    for name, c in curves.items():
        label = name if c.get("auc") is None else f"{name} (AUC {c['auc']:.2f})"
        style = {k: v for k, v in styles[name].items() if k != "marker"}
        ax.plot(c["fpr"], c["tpr"], linewidth=1.3, label=label, **style)
    ax.set_xlabel("concrete FPR")
    ax.set_ylabel("hallucination TPR")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    ax.set_aspect("equal")
    if curves:
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.03, 0.5))
    return _png(fig)
