"""Source-signature means by slice: failure family (HalluPrism Table 20) and matched
source-stress slices from the rows' metadata (Table 27).

>>> from halluscope.prism.results import Correctness, DecompRow
>>> r = lambda ok, v: DecompRow("s", 1, Correctness(ok, True), ok, 0.9, v, 1.0, 0.5, ok)
>>> s = slice_means([r(True, 0.1), r(False, 0.3)]); s["n"], s["accuracy"], round(s["v_mean"], 3)
(2, 0.5, 0.2)

Both tables pool every (model, dataset) file of a decomposition folder. Table 20 groups all
rows by their `failure_family` (None included: "the no-annotated-family row"); Table 27 slices
one dataset at a time by a metadata field: POPE by `pope_split`, VizWiz by `answerable`,
HallusionBench by `visual_input_required`, VSR by `relation` (all relations, then the most
frequent ones: the paper lists eight, which are the eight largest on its VSR dev rows). On the
released VSR rows both tables reproduce the paper's VSR rows to the printed digit (tested).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from halluscope.prism.results import DecompRow, decomposition_row, discover, read_rows


@dataclass(frozen=True)
class StressSlice:
    """How one dataset is sliced in Table 27: the metadata field, the names of its values and
    the source the slice is expected to stress."""

    dataset: str
    field: str
    expected_source: str
    names: tuple[tuple[Any, str], ...] = ()  # (value, label); empty: every value, "field=value"


STRESS_SLICES = (
    StressSlice("pope", "pope_split", "L",
                (("adversarial", "adversarial"), ("popular", "popular"), ("random", "random"))),
    StressSlice("vizwiz", "answerable", "V/answerability",
                ((False, "unanswerable"), (True, "answerable"))),
    StressSlice("hallusionbench", "visual_input_required", "V/A",
                ((False, "not visual-required"), (True, "visual-required"))),
    StressSlice("vsr", "relation", "A"),
)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def slice_means(rows: Sequence[DecompRow]) -> dict[str, Any]:
    """N, accuracy, mean V/L/A, mean scalar confidence and LP match of a group of rows."""
    return {"n": len(rows), "accuracy": _mean([float(r.correct) for r in rows]),
            "v_mean": _mean([r.v for r in rows]), "l_mean": _mean([r.l for r in rows]),
            "a_mean": _mean([r.a for r in rows]),
            "scalar_mean": _mean([r.confidence for r in rows]),
            "lp_match": _mean([float(r.lp_match) for r in rows])}


def load_with_metadata(results_dir: str | Path) -> list[tuple[str, str, DecompRow, dict]]:
    """`(model, dataset, validated row, raw row)` for every row of a decomposition folder."""
    out = []
    for model, dataset, path in discover(results_dir):
        raw, _stats = read_rows(path)
        out += [(model, dataset.lower(), decomposition_row(row, path, line), row)
                for line, row in raw]
    return out


def family_means(results_dir: str | Path) -> dict[str, Any]:
    """Table 20: pooled source means by raw `failure_family`, sorted by family name."""
    groups: dict[str | None, list[DecompRow]] = {}
    for _model, _dataset, row, raw in load_with_metadata(results_dir):
        groups.setdefault(raw.get("failure_family"), []).append(row)
    rows = [{"failure_family": family, **slice_means(groups[family])}
            for family in sorted(groups, key=lambda f: (f is None, f or ""))]
    return {"analysis": "family_means", "table": 20, "results_dir": str(results_dir),
            "rows": rows}


def stress_slices(results_dir: str | Path, top_relations: int = 8) -> dict[str, Any]:
    """Table 27: per dataset present, the whole dataset's row when it is sliced by every value
    (VSR) and one row per named value; rows lacking the field are counted, not sliced."""
    loaded = load_with_metadata(results_dir)
    rows, unsliced = [], {}
    for spec in STRESS_SLICES:
        mine = [(row, raw) for _m, dataset, row, raw in loaded if dataset == spec.dataset]
        if not mine:
            continue
        by_value: dict[Any, list[DecompRow]] = {}
        for row, raw in mine:
            by_value.setdefault(raw.get(spec.field), []).append(row)
        unsliced[spec.dataset] = len(by_value.pop(None, []))
        names = list(spec.names)
        if not names:
            rows.append({"dataset": spec.dataset, "slice": "all", "field": spec.field,
                         "expected_source": spec.expected_source,
                         **slice_means([row for row, _raw in mine])})
            counts = Counter({value: len(group) for value, group in by_value.items()})
            frequent = sorted(counts.most_common(top_relations), key=lambda vc: str(vc[0]))
            names = [(value, f"{spec.field}={value}") for value, _count in frequent]
        rows += [{"dataset": spec.dataset, "slice": label, "field": spec.field,
                  "expected_source": spec.expected_source, **slice_means(by_value[value])}
                 for value, label in names if value in by_value]
    return {"analysis": "stress_slices", "table": 27, "results_dir": str(results_dir),
            "top_relations": top_relations, "rows": rows, "n_without_slice_field": unsliced}
