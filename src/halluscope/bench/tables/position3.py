"""§4.1's three-class position match: do the trained probes flag non-assertive mentions because
they sit late in captions? Non-assertive FPR on all held-out mentions vs on a subset in which
concrete, hallucinated and non-assertive mentions have the same position histogram.

>>> pos = np.array([0, 1, 2, 0, 9, 10, 9, 11])
>>> labels = np.array(["concrete"] * 3 + ["non_assertive", "hallucinated", "concrete",
...                    "non_assertive", "hallucinated"])
>>> keep = matched_three(pos, labels, np.array(list("abcdefgh")), seed=0, bin_width=4)
>>> sorted(labels[keep].tolist())  # bin 0 has no hallucination; bin 2 one of each
['concrete', 'hallucinated', 'non_assertive']

The paper: "on a subset in which concrete, hallucinated and non-assertive mentions are matched
for position, the trained probes' non-assertive FPR changes by at most 3 points, while concrete
mentions at the same positions are flagged at 11-21%". Each seed's held-out mentions are binned
by caption token index (`table13.POSITION_BIN` tokens); every bin keeps as many mentions of each
class as its rarest class has there, drawn in a keyed-hash order. The detectors are the trained
ones at budget 0 (fitted without non-assertive mentions), thresholded at 10% calibration
concrete FPR as everywhere; the threshold is not recomputed on the subset.
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping, Sequence

import numpy as np

from halluscope.bench.protocol import MentionTable, flag_rate, mean_std, split_codes
from halluscope.bench.tables.common import (Progress, TableInputs, make_table, n_cell, quiet)
from halluscope.bench.tables.table13 import POSITION_BIN

CLASS_ORDER: tuple[str, ...] = ("concrete", "hallucinated", "non_assertive")


def matched_three(positions: np.ndarray, labels: np.ndarray, keys: np.ndarray, seed: int,
                  bin_width: int = POSITION_BIN, rows: np.ndarray | None = None) -> np.ndarray:
    """Rows kept (among `rows`, default all) so that the three classes have equal counts in every
    position bin: the rarest class's count there, picked in blake2b(seed, key) order."""
    candidates = np.ones(len(labels), dtype=bool) if rows is None else rows
    bins = np.floor_divide(np.asarray(positions, dtype=np.int64), bin_width)
    keep = np.zeros(len(labels), dtype=bool)
    for b in np.unique(bins[candidates]):
        groups = [np.flatnonzero(candidates & (bins == b) & (labels == c)) for c in CLASS_ORDER]
        n = min(len(g) for g in groups)
        if not n:
            continue
        for g in groups:
            order = sorted(g.tolist(), key=lambda i: (hashlib.blake2b(
                f"{seed}:pos3:{keys[i]}".encode(), digest_size=8).digest(), str(keys[i])))
            keep[order[:n]] = True
    return keep


def position3(table: MentionTable, features: Mapping[str, np.ndarray],
              detectors: Mapping[str, Mapping[str, Any]], seeds: Sequence[int],
              positions: np.ndarray | None, bin_width: int = POSITION_BIN,
              progress: Progress = quiet) -> dict[str, Any]:
    """Per trained detector: held-out NA FPR on all mentions and on the three-class matched
    subset, the change in points, and the matched concrete and hallucinated flag rates."""
    from halluscope.bench.fitting import fit_scores
    from halluscope.bench.protocol import calibrated_threshold

    columns = ["detector", "NA FPR all %", "NA FPR matched %", "change (points)",
               "concrete matched %", "halluc TPR matched %", "matched per class"]
    title = "Three-class position match (§4.1): non-assertive FPR, all vs position-matched"
    if positions is None:
        return make_table("position3", title, columns, [],
                          notes=["no caption_token_index in the signals: not computed"])
    if not detectors:
        return make_table("position3", title, columns, [], notes=["no trained detector run"])
    keys = table.mention_keys()
    positions = np.asarray(positions)
    na, conc, hal = (table.label == c for c in ("non_assertive", "concrete", "hallucinated"))
    cells = {n: {k: [] for k in ("all", "matched", "change", "concrete", "tpr", "n", "notes")}
             for n in detectors}
    for seed in seeds:
        codes = split_codes(table.image_id, seed)
        held = codes == 2
        keep = matched_three(positions, table.label, keys, seed, bin_width, rows=held)
        n_per_class = int((keep & conc).sum())
        for name, options in detectors.items():
            progress(f"position match: seed {seed} {name}")
            cell = cells[name]
            cell["n"].append(n_per_class)
            scores = fit_scores(name, options, table, features, codes, np.zeros(0, np.int64),
                                seed)
            if isinstance(scores, str):
                cell["notes"].append(scores)
                continue
            threshold, reason = calibrated_threshold(scores, table, codes,
                                                     np.ones(len(table), dtype=bool))
            if threshold is None:
                cell["notes"].append(str(reason))
                continue
            flags = scores > threshold
            every, matched = flag_rate(flags, na & held), flag_rate(flags, na & keep)
            cell["all"].append(every)
            cell["matched"].append(matched)
            cell["change"].append(None if every is None or matched is None else matched - every)
            cell["concrete"].append(flag_rate(flags, conc & keep))
            cell["tpr"].append(flag_rate(flags, hal & keep))
    rows = [{"detector": n, "NA FPR all %": mean_std(c["all"]),
             "NA FPR matched %": mean_std(c["matched"]),
             "change (points)": mean_std(c["change"]),
             "concrete matched %": mean_std(c["concrete"]),
             "halluc TPR matched %": mean_std(c["tpr"]), "matched per class": n_cell(c["n"]),
             "notes": sorted(set(c["notes"]))} for n, c in cells.items()]
    notes = [f"held-out mentions binned by caption token index (bins of {bin_width} tokens); "
             "each bin keeps as many concrete, hallucinated and non-assertive mentions as its "
             "rarest class has there; threshold: 10% of all calibration concrete mentions"]
    if rows and all(not c["n"] or not sum(c["n"]) for c in cells.values()):
        notes.append("no position bin holds all three classes: the matched subset is empty")
    return make_table("position3", title, columns, rows, notes=notes,
                      percent=["NA FPR all %", "NA FPR matched %", "change (points)",
                               "concrete matched %", "halluc TPR matched %"],
                      description="Trained detectors at budget 0; mean over seeds; matched "
                                  "per class: held-out mentions per class per seed (mean).")


def build(inputs: TableInputs) -> dict[str, dict[str, Any]]:
    """The three-class position match from what `bench tables` loaded (trained detectors).

    >>> from halluscope.bench.tables.common import example_inputs
    >>> from halluscope.bench.dataset import POSITION_COLUMN
    >>> inputs = example_inputs()
    >>> inputs.data.features[POSITION_COLUMN] = np.arange(len(inputs.table)) % 4  # one bin
    >>> row = build(inputs)["position3"]["rows"][0]; row["detector"], row["matched per class"]
    ('hidden_mid', '14')
    """
    from halluscope.bench.dataset import POSITION_COLUMN

    positions = inputs.features.get(POSITION_COLUMN)
    return {"position3": position3(inputs.table, inputs.features, inputs.trained, inputs.seeds,
                                   None if positions is None else np.asarray(positions),
                                   progress=inputs.progress)}
