"""Table 13 of NAME-Bench: detectors on position-matched concrete and hallucinated mentions.

>>> pos = np.array([0, 1, 2, 9, 10, 11])
>>> c = np.array([True, True, True, False, True, False])
>>> keep = position_matched(pos, c, ~c, np.array(list("abcdef")), seed=0)
>>> int((keep & c).sum()), int((keep & ~c).sum())  # bin 0 has no hallucination: none kept
(1, 1)

Hallucinations come late in a caption; a detector that reads position alone looks good. Each
hallucinated mention is matched with a concrete one from the same position bin
(`POSITION_BIN` tokens), drawn in a keyed order, and the budget-0 metrics are recomputed on the
matched set. Made by `bench run`.
"""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

import numpy as np

from halluscope.bench.published import SeedScores
from halluscope.bench.protocol import MentionTable, mean_std
from halluscope.ranking import auc
from halluscope.bench.tables.common import detector_group, make_table, n_cell


POSITION_BIN = 4  # tokens per position bin for matching


def position_matched(positions: np.ndarray, is_concrete: np.ndarray, is_halluc: np.ndarray,
                     keys: np.ndarray, seed: int, bin_width: int = POSITION_BIN) -> np.ndarray:
    """Rows kept by position matching: in every bin of `bin_width` caption tokens, the same
    number of concrete and hallucinated mentions (the smaller count), picked in a keyed-hash
    order (blake2b of seed and key), so both classes have the same position histogram.

    >>> pos = np.array([0, 1, 2, 9, 10, 11])
    >>> c = np.array([True, True, True, False, True, False]); h = ~c
    >>> keep = position_matched(pos, c, h, np.array(list("abcdef")), seed=0)
    >>> int((keep & c).sum()), int((keep & h).sum())
    (1, 1)
    """
    bins = np.floor_divide(np.asarray(positions, dtype=np.int64), bin_width)
    digests = np.array([hashlib.blake2b(f"{seed}:pos:{k}".encode(), digest_size=8).hexdigest()
                        for k in keys], dtype=object)
    keep = np.zeros(len(positions), dtype=bool)
    for b in np.unique(bins[is_concrete | is_halluc]):
        groups = [np.flatnonzero((bins == b) & m) for m in (is_concrete, is_halluc)]
        n = min(len(g) for g in groups)
        for g in groups:
            chosen = sorted(g.tolist(), key=lambda i: (digests[i], keys[i]))[:n]
            keep[chosen] = True
    return keep


def table13(seeds: Sequence[SeedScores], table: MentionTable, positions: np.ndarray | None,
            detectors: Sequence[str], bin_width: int = POSITION_BIN) -> dict[str, Any]:
    """Concrete-vs-hallucinated AUC on all held-out mentions and on a position-matched subset.

    >>> from halluscope.bench.published import score_as_published
    >>> from halluscope.bench.tables.common import example_inputs
    >>> inputs = example_inputs()
    >>> late = np.where(inputs.table.label == "hallucinated", 6, 0)  # hallucinations come late
    >>> positions = np.arange(len(inputs.table)) % 12 + late
    >>> seeds = score_as_published(inputs.table, {"caption_token_index": positions},
    ...                            {"position": {}}, [0])
    >>> row = table13(seeds, inputs.table, positions, ["position"])["rows"][0]
    >>> round(row["AUC all"]["mean"], 2), round(row["AUC pos-matched"]["mean"], 2)  # position alone
    (0.82, 0.56)
    """
    columns = ["detector", "group", "AUC all", "AUC pos-matched", "matched pairs"]
    rows = []
    notes = [f"matching: held-out concrete and hallucinated mentions are binned by caption "
             f"token index (bins of {bin_width} tokens); each bin keeps as many of each class as "
             "the rarer class has there, chosen in a seeded hash order; the subset is the same "
             "for every detector of a seed"]
    if positions is None:
        return make_table("table13", "Table 13: position-matched AUC", columns, [],
                          notes=["no caption_token_index in the signals: not computed"])
    keys = table.mention_keys()
    matched = []
    for s in seeds:
        held = s.codes == 2
        c, h = held & (table.label == "concrete"), held & (table.label == "hallucinated")
        matched.append((c, h, position_matched(positions, c, h, keys, s.seed, bin_width)))
    for name in detectors:
        all_auc, pos_auc, pairs, row_notes = [], [], [], set()
        for s, (c, h, keep) in zip(seeds, matched):
            score = s.scores.get(name)
            if score is None or isinstance(score, str):
                row_notes.add(score if isinstance(score, str) else "not run")
                continue
            all_auc.append(auc(score[h], score[c]))
            pos_auc.append(auc(score[h & keep], score[c & keep]))
            pairs.append(int((h & keep).sum()))
        if pairs and not sum(pairs):
            row_notes.add("no position bin holds both classes")
        rows.append({"detector": name, "group": detector_group(name),
                     "AUC all": mean_std(all_auc), "AUC pos-matched": mean_std(pos_auc),
                     "matched pairs": n_cell(pairs),
                     "notes": sorted(row_notes)})
    return make_table("table13", "Table 13: concrete-vs-hallucinated AUC, all vs position-matched",
                      columns, rows, notes=notes,
                      description="Budget 0; matched pairs: per seed (mean).")
