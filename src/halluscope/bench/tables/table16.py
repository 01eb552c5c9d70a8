"""Table 16 of NAME-Bench (Appendix K): the mentions NAME-Bench leaves out, scored anyway.

>>> is_compound({"usage": "not_object", "reason": "compound-head"})
True

Budget-0 flag rates of the retained subtypes vs the non-assertive mentions outside them
("generic" = Other) when the labels keep them, and of the compound matches (Comp.): not in
NAME-Bench (dropped at the join, usage not_object), but the signal store has their rows, so the
same fitted detectors score them against the same threshold.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from halluscope.bench.fitting import fit_detector, score_rows
from halluscope.bench.protocol import (MentionTable, calibrated_threshold, flag_rate, mean_std,
                                       split_codes)
from halluscope.bench.tables.common import Progress, TableInputs, make_table, n_cell, quiet


@dataclass
class Compounds:
    """The labels' compound matches (usage not_object, a "compound" reason) that the signal store
    has rows for: their image ids and features, and how many were left out and why."""

    image_id: np.ndarray  # str
    features: dict[str, np.ndarray]
    n_labelled: int
    n_without_signals: int


def is_compound(row: Mapping[str, Any]) -> bool:
    """A label row the judge marked a compound match (not the object itself).

    >>> is_compound({"usage": "not_object", "reason": "compound-head"})
    True
    >>> is_compound({"usage": "not_object", "reason": "verb-use"})
    False
    """
    return row.get("usage") == "not_object" and "compound" in str(row.get("reason") or "").lower()


def _compound_rows(labels: str | Path, model: str | None) -> list[dict[str, Any]] | None:
    """The labels' compound rows (of `model`), or None when the labels give no reasons."""
    import pyarrow.parquet as pq

    rows = pq.read_table(labels).to_pylist()  # already read once by the join: no new failure
    if rows and "model" in rows[0] and model is not None:
        rows = [r for r in rows if str(r["model"]) == model]
    if not rows or "reason" not in rows[0]:
        return None
    return [r for r in rows if is_compound(r)]


def load_compounds(labels: str | Path, signals: str | Path, columns: Sequence[str],
                   model: str | None) -> Compounds | None:
    """The compound matches with their signal rows (joined on caption_index, start, end, as the
    bench join does); None when the labels give no reasons to find them by."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from halluscope.bench.dataset import JOIN_KEY
    from halluscope.detectors.base import features_from_arrow
    from halluscope.runs.signal_store import SignalStore

    rows = _compound_rows(labels, model)
    if rows is None:
        return None
    wanted = {(int(r["caption_index"]), int(r["start"]), int(r["end"])) for r in rows}
    parts = []
    # Shard by shard, features read only where a compound is: the store can be many GB.
    for shard in SignalStore(signals).shards("mentions"):
        spans = pq.read_table(shard, columns=list(JOIN_KEY))
        take = [i for i, key in enumerate(zip(*(spans.column(c).to_pylist() for c in JOIN_KEY)))
                if tuple(int(v) for v in key) in wanted]
        if take:
            names = pq.read_schema(shard).names
            part = pq.read_table(shard, columns=[c for c in ["image_id", *columns] if c in names])
            parts.append(part.take(pa.array(take, type=pa.int64())))
    if not parts:
        return Compounds(np.zeros(0, dtype=object), {}, len(rows), len(wanted))
    taken = pa.concat_tables(parts, promote_options="default")
    return Compounds(
        image_id=np.asarray([str(v) for v in taken.column("image_id").to_pylist()], dtype=object),
        features=features_from_arrow(taken, [c for c in columns if c in taken.column_names]),
        n_labelled=len(rows), n_without_signals=len(wanted) - len(taken))


def table16(table: MentionTable, features: Mapping[str, np.ndarray],
            detectors: Mapping[str, Mapping[str, Any]], seeds: Sequence[int],
            compounds: Compounds | None = None, progress: Progress = quiet) -> dict[str, Any]:
    """Budget-0 flag rates on the four retained subtypes, on the other non-assertive mentions
    ("generic" = Other) when the labels keep them, and on the compound matches (Comp.), which
    are not in the table: they are scored by the same fitted detectors against the same
    threshold, on the held-out split of their image (the split is over the table's images, so
    a compound on an image without NAME-Bench mention has none and is left out)."""
    from halluscope.bench.dataset import SUBTYPE_ORDER
    from halluscope.bench.protocol import SPLITS, split_images
    from halluscope.errors import HalluscopeError

    columns = ["detector", "4 cat. %", "Other %", "n Other", "Comp. %", "n Comp."]
    na = table.label == "non_assertive"
    four = na & np.isin(table.subtype, list(SUBTYPE_ORDER))
    other = na & ~four
    notes = []
    n_comp = 0 if compounds is None else len(compounds.image_id)
    if compounds is None:
        notes.append("the labels give no reason column: compound matches cannot be found")
    else:
        notes.append(f"{compounds.n_labelled} compound matches in the labels (usage not_object, "
                     f"reason 'compound'); {compounds.n_without_signals} have no signal row "
                     "(not scored). The LLM judge checks compounds among initially "
                     "non-assertive mentions only (as the paper), the offline judge among all")
        in_table = set(table.image_id.tolist())
        orphans = sum(1 for i in compounds.image_id if i not in in_table)
        if orphans:
            notes.append(f"{orphans} compound matches on images without NAME-Bench mentions: "
                         "no split, not scored")
    if not other.any():
        notes.append("the labels keep no non-assertive mention outside the four subtypes "
                     "(generic mentions are dropped or absent): Other undefined")
    if not other.any() and not n_comp:
        return make_table("table16", "Table 16: excluded non-assertive mentions", columns, [],
                          notes=notes)
    cells = {n: {"four": [], "other": [], "n": [], "comp": [], "n comp": [], "notes": []}
             for n in detectors}
    for seed in seeds:
        codes = split_codes(table.image_id, seed)
        split = split_images(table.image_id, seed)
        comp_held = (np.zeros(0, dtype=np.int64) if compounds is None else np.flatnonzero(
            [split.get(i) == SPLITS[2] for i in compounds.image_id]))
        for name, options in detectors.items():
            progress(f"table 16: seed {seed} {name}")
            cell = cells[name]
            cell["n"].append(int((other & (codes == 2)).sum()))
            cell["n comp"].append(len(comp_held))
            try:
                detector = fit_detector(name, options, table, features, codes,
                                        np.zeros(0, np.int64), seed)
                scored = (np.arange(len(table)) if not detector.trained
                          else np.flatnonzero(codes != 0))
                scores = np.zeros(len(table))
                scores[scored] = score_rows(detector, features, scored)
                comp_scores = (score_rows(detector, compounds.features, comp_held)
                               if len(comp_held) else np.zeros(0))
            except HalluscopeError as exc:
                threshold, reason = None, str(exc)
            else:
                threshold, reason = calibrated_threshold(scores, table, codes,
                                                         np.ones(len(table), dtype=bool))
            if threshold is None:
                cell["notes"].append(reason)
                for key in ("four", "other", "comp"):
                    cell[key].append(None)
                continue
            flags = scores > threshold
            cell["four"].append(flag_rate(flags, four & (codes == 2)))
            cell["other"].append(flag_rate(flags, other & (codes == 2)))
            cell["comp"].append(float((comp_scores > threshold).mean()) if len(comp_scores)
                                else None)
    rows = [{"detector": n, "4 cat. %": mean_std(c["four"]), "Other %": mean_std(c["other"]),
             "n Other": n_cell(c["n"]), "Comp. %": mean_std(c["comp"]),
             "n Comp.": n_cell(c["n comp"]), "notes": sorted(set(c["notes"]))}
            for n, c in cells.items()]
    if other.any():
        notes.append("Other: subtypes " + ", ".join(sorted(set(table.subtype[other].tolist()))))
    return make_table("table16", "Table 16: flag rates of excluded non-assertive mentions "
                      "(budget 0)", columns, rows, notes=notes,
                      percent=["4 cat. %", "Other %", "Comp. %"],
                      description="No non-assertive training; threshold: 10% of calibration "
                                  "concrete; n: held-out per seed (mean).")


def build(inputs: TableInputs) -> dict[str, dict[str, Any]]:
    """Table 16 from what `bench tables` loaded (compound matches only with a labels file), on
    the bench with its generic mentions (`inputs.with_generic`, else `inputs.data`): the one
    table that shows them (as "Other"), with or without --keep-generic.

    >>> from halluscope.bench.tables.common import example_inputs
    >>> t = build(example_inputs())["table16"]; [r["detector"] for r in t["rows"]]
    ['nll', 'hidden_mid']
    """
    compounds = None if inputs.labels is None or inputs.signals is None else load_compounds(
        inputs.labels, inputs.signals, inputs.columns, inputs.model)
    data = inputs.with_generic or inputs.data
    table = table16(data.table, data.features, inputs.detectors, inputs.seeds, compounds,
                    inputs.progress)
    return {"table16": table}
