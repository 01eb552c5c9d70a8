"""Budget 0 "as published": every detector fitted without non-assertive mentions, its
per-mention scores kept, and the figure data drawn from them.

>>> roc_curve(np.array([2.0, 3.0]), np.array([1.0, 2.0]))[1]
[0.0, 0.5, 1.0, 1.0]

Why budget 0 is scored here and not by the runner: Tables 7 and 13 and the score plot need
per-mention scores of every detector, which `runner.run_protocol` keeps for trained ones only.
Both call the one fit step (`bench.fitting.fit_scores`) on the same canonical row order, and the
runner runs only the mixing budgets, so nothing is trained twice. A test checks that both give
the same budget-0 metrics.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from halluscope.bench.fitting import fit_scores
from halluscope.bench.protocol import MentionTable, empty_result, evaluate_seed, split_codes
NOTHING_MIXED = np.zeros(0, dtype=np.int64)  # budget 0


# --- scores at budget 0 ("as published") -------------------------------------------------------

@dataclass
class SeedScores:
    """One seed at budget 0: split codes, per-detector scores (or the failure), and results."""

    seed: int
    codes: np.ndarray  # 0 fit, 1 calibration, 2 heldout
    scores: dict[str, np.ndarray | str]  # trained detectors: 0.0 on fit rows (not scored)
    results: dict[str, dict[str, Any]]


def score_as_published(table: MentionTable, features: Mapping[str, np.ndarray],
                       detectors: Mapping[str, Mapping[str, Any]], seeds: Sequence[int],
                       progress: Callable[[str], None] | None = None,
                       timings: dict[str, float] | None = None) -> list[SeedScores]:
    """Fit on the fit set's concrete + hallucinated mentions (no non-assertive), score, evaluate.

    `table` must be in canonical order (sorted by key; `load_bench` does this), as the runner
    would reorder it otherwise and seeds of trained detectors would see other row orders.
    """
    keys = table.mention_keys().astype(str)
    if len(keys) > 1 and not (keys[:-1] <= keys[1:]).all():
        raise ValueError("table rows are not sorted by mention key (the runner's order)")
    timings = timings if timings is not None else {}
    fixed: dict[str, np.ndarray | str] = {}
    out = []
    for seed in seeds:
        codes = split_codes(table.image_id, seed)
        scores: dict[str, np.ndarray | str] = {}
        for name, options in detectors.items():
            start = time.perf_counter()
            scores[name] = fit_scores(name, options, table, features, codes, NOTHING_MIXED, seed,
                                      cache=fixed, progress=progress)
            timings[name] = timings.get(name, 0.0) + time.perf_counter() - start
        results = {name: (empty_result(s) if isinstance(s, str) else evaluate_seed(s, table, codes))
                   for name, s in scores.items()}
        out.append(SeedScores(int(seed), codes, scores, results))
    return out


# --- figure data ---------------------------------------------------------------------------------

FIGURE_PREFERENCE: tuple[str, ...] = ("lookback_lens", "hidden_mid", "hidden_last", "dhcp",
                                      "text_only", "svar", "vade", "nll")


def figure_examples(seed: SeedScores, table: MentionTable, rows: Sequence[Mapping[str, Any]],
                    detector: str | None = None, per_group: int = 2) -> dict[str, Any] | None:
    """Per-mention scores for the Figure-1-style plot: a few held-out mentions of each class and
    subtype (keyed-hash order), the detector's score and the calibrated threshold."""
    usable = [n for n, r in seed.results.items()
              if r["threshold"] is not None and not isinstance(seed.scores[n], str)]
    if detector is None:
        detector = next((n for n in FIGURE_PREFERENCE if n in usable), usable[0] if usable else None)
    if detector is None or detector not in usable:
        return None
    score = np.asarray(seed.scores[detector])
    threshold = float(seed.results[detector]["threshold"])
    keys = table.mention_keys()
    held = seed.codes == 2
    groups = [("concrete", held & (table.label == "concrete")),
              ("hallucinated", held & (table.label == "hallucinated"))]
    from halluscope.bench.tables.common import subtypes_of

    groups += [(s, held & (table.subtype == s)) for s in subtypes_of(table)]
    examples = []
    for group, mask in groups:
        picks = sorted(np.flatnonzero(mask).tolist(), key=lambda i: (hashlib.blake2b(
            f"{seed.seed}:fig:{keys[i]}".encode(), digest_size=8).hexdigest(), keys[i]))
        for i in picks[:per_group]:
            examples.append({"group": group, "key": str(keys[i]),
                             "word": rows[i].get("word") or rows[i].get("category"),
                             "score": float(score[i]), "flagged": bool(score[i] > threshold)})
    return {"detector": detector, "seed": seed.seed, "threshold": threshold,
            "examples": examples}


def roc_curve(positive: np.ndarray, negative: np.ndarray) -> tuple[list[float], list[float]]:
    """(FPR, TPR) points of the ROC, thresholds at every distinct score (flag: score > t).

    >>> roc_curve(np.array([2.0, 3.0]), np.array([1.0, 2.0]))
    ([0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0])
    """
    values = np.unique(np.concatenate([positive, negative]))[::-1]
    fpr, tpr = [0.0], [0.0]
    for v in values:
        fpr.append(float((negative >= v).mean()))
        tpr.append(float((positive >= v).mean()))
    return fpr, tpr
