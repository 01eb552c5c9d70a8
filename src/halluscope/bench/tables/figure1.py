"""Figure 1's view: the trained detectors before and after adding a fixed number of non-assertive
training examples (20 in the paper), as a table of held-out rates and the example mentions.

>>> from halluscope.bench.tables.common import example_inputs
>>> out = build(example_inputs())
>>> out["figure1"]["rows"][0]["detector"], out["figure1"]["rows"][0]["n mixed"]
('hidden_mid', '20')

The paper's Figure 1: "Bars show Lookback Lens scores before non-assertive training; circles
show scores after adding 20 non-assertive examples. The dashed line marks the threshold
calibrated at 10% concrete FPR. Training reduces the overall non-assertive FPR from 40% to 17%."
Here, per seed: each trained detector fitted at budget 0 and with the first `examples` of the
fit split's non-assertive mentions in the mixing order (`bench.fitting.mix_pool`, the same
mentions every budget draws from), each thresholded at 10% of the calibration concrete mentions
(the threshold is recalibrated after training, as both fits are scored on their own scale).
Rows: held-out non-assertive FPR (overall and per subtype) and hallucination TPR, before and
after. `figure1_examples`: for the first seed and the figure detector (Lookback Lens when run),
one held-out mention per class and subtype (the first in key order) with both scores and both
thresholds -- the data of the figure's bars, circles and dashed line.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from halluscope.bench.protocol import MentionTable, flag_rate, mean_std, split_codes
from halluscope.bench.tables.common import (Progress, TableInputs, make_table, n_cell, quiet,
                                            subtypes_of)

EXAMPLES = 20  # the paper's count


def figure1(table: MentionTable, features: Mapping[str, np.ndarray],
            detectors: Mapping[str, Mapping[str, Any]], seeds: Sequence[int],
            rows_meta: Sequence[Mapping[str, Any]] | None = None, examples: int = EXAMPLES,
            progress: Progress = quiet) -> dict[str, dict[str, Any]]:
    """The before/after table and the example mentions (see the module docstring)."""
    from halluscope.bench.fitting import fit_scores, mix_pool
    from halluscope.bench.protocol import calibrated_threshold
    from halluscope.bench.published import FIGURE_PREFERENCE

    subtypes = subtypes_of(table)
    columns = ["detector", "n mixed", "NA FPR before %", "NA FPR after %",
               "halluc TPR before %", "halluc TPR after %",
               *[f"{s} before %" for s in subtypes], *[f"{s} after %" for s in subtypes]]
    percent = [c for c in columns if c.endswith("%")]
    title = f"Figure 1: before and after {examples} non-assertive training examples"
    ex_columns = ["group", "key", "word", "score before", "threshold before", "flagged before",
                  "score after", "threshold after", "flagged after"]
    if not detectors:
        empty = make_table("figure1", title, columns, [], notes=["no trained detector run"])
        return {"figure1": empty, "figure1_examples": make_table(
            "figure1_examples", "Figure 1: example mentions", ex_columns, [])}
    na = table.label == "non_assertive"
    hal = table.label == "hallucinated"
    figure_detector = next((d for d in FIGURE_PREFERENCE if d in detectors), next(iter(detectors)))
    cells = {n: {"n": [], "notes": [], **{k: [] for k in percent}} for n in detectors}
    example_rows: list[dict[str, Any]] = []
    notes: list[str] = []
    for seed in seeds:
        codes = split_codes(table.image_id, seed)
        held = codes == 2
        pool = mix_pool(table, codes, seed)
        mixed = pool[:examples]
        if len(mixed) < examples:
            notes.append(f"seed {seed}: only {len(mixed)} non-assertive fit mentions to add")
        for name, options in detectors.items():
            cell = cells[name]
            cell["n"].append(len(mixed))
            fitted = {}
            for when, rows in (("before", np.zeros(0, np.int64)), ("after", mixed)):
                progress(f"figure 1: seed {seed} {name} {when}")
                scores = fit_scores(name, options, table, features, codes, rows, seed)
                threshold, reason = ((None, scores) if isinstance(scores, str) else
                                     calibrated_threshold(scores, table, codes,
                                                          np.ones(len(table), dtype=bool)))
                if threshold is None:
                    cell["notes"].append(str(reason))
                    break
                flags = scores > threshold
                fitted[when] = (scores, threshold, flags)
                cell[f"NA FPR {when} %"].append(flag_rate(flags, na & held))
                cell[f"halluc TPR {when} %"].append(flag_rate(flags, hal & held))
                for s in subtypes:
                    cell[f"{s} {when} %"].append(flag_rate(flags, na & held &
                                                           (table.subtype == s)))
            if name == figure_detector and seed == seeds[0] and len(fitted) == 2:
                example_rows = _examples(table, rows_meta, held, fitted)
    rows = [{"detector": n, "n mixed": n_cell(c["n"]),
             **{k: mean_std(c[k]) for k in percent}, "notes": sorted(set(c["notes"]))}
            for n, c in cells.items()]
    table_out = make_table("figure1", title, columns, rows, notes=notes, percent=percent,
                           description="Trained detectors; threshold: 10% of calibration "
                                       "concrete mentions, recalibrated after training; "
                                       "held-out rates, mean over seeds.")
    examples_out = make_table("figure1_examples", f"Figure 1: example held-out mentions "
                              f"({figure_detector}, seed {seeds[0]})", ex_columns, example_rows)
    return {"figure1": table_out, "figure1_examples": examples_out}


def _examples(table: MentionTable, rows_meta: Sequence[Mapping[str, Any]] | None,
              held: np.ndarray, fitted: Mapping[str, tuple[np.ndarray, float, np.ndarray]]
              ) -> list[dict[str, Any]]:
    """One held-out mention per class and subtype, first in key order, with both scores."""
    keys = table.mention_keys()
    groups = [("concrete", table.label == "concrete"), ("hallucinated", table.label ==
                                                        "hallucinated")]
    groups += [(s, (table.label == "non_assertive") & (table.subtype == s))
               for s in subtypes_of(table)]
    out = []
    for group, mask in groups:
        candidates = np.flatnonzero(mask & held)
        if not len(candidates):
            continue
        i = int(min(candidates, key=lambda k: str(keys[k])))
        row: dict[str, Any] = {"group": group, "key": str(keys[i]),
                               "word": None if rows_meta is None else rows_meta[i].get("word"),
                               "notes": []}
        for when, (scores, threshold, flags) in fitted.items():
            row[f"score {when}"] = round(float(scores[i]), 6)
            row[f"threshold {when}"] = round(float(threshold), 6)
            row[f"flagged {when}"] = bool(flags[i])
        out.append(row)
    return out


def build(inputs: TableInputs) -> dict[str, dict[str, Any]]:
    """Figure 1's view from what `bench tables` loaded (its trained detectors)."""
    return figure1(inputs.table, inputs.features, inputs.trained, inputs.seeds,
                   inputs.data.rows, progress=inputs.progress)
