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
                     ylabel: str, percent: bool = True) -> bytes:
    """Bars of `series[name][i]` for each group i (None: no bar). Fractions shown as %."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(5.0, 0.5 * len(groups) * max(1, len(series)) / 2 + 3),
                                    3.6))
    width = 0.8 / max(1, len(series))
    scale = 100.0 if percent else 1.0
    for k, (name, values) in enumerate(series.items()):
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(groups))]
        heights = [scale * v if v is not None else 0.0 for v in values]
        ax.bar(xs, heights, width=width, label=name)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    if series:
        ax.legend(fontsize=7, ncol=min(3, len(series)))
    return _png(fig)


def mixing_curves_png(budgets: Sequence[str], fpr: Mapping[str, Sequence[float | None]],
                      tpr: Mapping[str, Sequence[float | None]]) -> bytes:
    """Non-assertive FPR and hallucination TPR (%) against the mixing budget, per detector."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharex=True)
    for ax, data, title in ((axes[0], fpr, "non-assertive FPR %"),
                            (axes[1], tpr, "hallucination TPR %")):
        for name, values in data.items():
            xs = [i for i, v in enumerate(values) if v is not None]
            ax.plot(xs, [100.0 * values[i] for i in xs], marker="o", label=name)
        ax.set_xticks(range(len(budgets)))
        ax.set_xticklabels(budgets)
        ax.set_xlabel("budget (% of fit hallucinations)")
        ax.set_title(title, fontsize=9)
    if fpr:
        axes[0].legend(fontsize=7)
    return _png(fig)


def roc_png(curves: Mapping[str, Mapping[str, Any]]) -> bytes:
    """ROC curves concrete (negative) vs hallucinated (positive), AUC in the legend."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(4.8, 4.4))
    ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle=":")
    for name, c in curves.items():
        label = name if c.get("auc") is None else f"{name} ({c['auc']:.2f})"
        ax.plot(c["fpr"], c["tpr"], linewidth=1.2, label=label)
    ax.set_xlabel("concrete FPR")
    ax.set_ylabel("hallucination TPR")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    if curves:
        ax.legend(fontsize=6, loc="lower right")
    return _png(fig)
