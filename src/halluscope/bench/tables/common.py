"""What the paper tables share: the table container, the subtype order, detector groups, and the
inputs `bench tables` loads once for all of them.

>>> t = make_table("t", "A table", ["detector", "FPR %"], [{"detector": "nll",
...     "FPR %": {"mean": 0.25, "std": None, "n_seeds": 1}, "notes": []}], percent=["FPR %"])
>>> from halluscope.report.tables import table_markdown
>>> print(table_markdown(t))
**A table**
<BLANKLINE>
| detector | FPR % |
|---|---|
| nll | 25.0 |

Tables hold metric cells as {"mean", "std", "n_seeds"} (fractions; None where undefined, with
the reason in the row's notes, never NaN) and plain cells as strings or integers; `report.tables`
renders them (Markdown in %, CSV as fractions with a `_sd` column). Every randomness is keyed on
the seed and the mention keys (`bench.fitting`), so reruns are identical.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from halluscope.bench.protocol import MentionTable

if TYPE_CHECKING:
    from halluscope.bench.dataset import BenchData

Progress = Callable[[str], None]


def quiet(message: str) -> None:
    """The progress callback that says nothing."""
    return None


def n_cell(values: Sequence[int]) -> str:
    """A count per seed as one cell: the mean over seeds.

    >>> n_cell([3, 4]), n_cell([])
    ('3.5', '0')
    """
    return f"{np.mean(values):.1f}" if values else "0"


@dataclass(frozen=True)
class TableInputs:
    """What `bench tables` loads once and gives every table it builds (`TABLES[...].build`)."""

    data: BenchData
    labels: Path | None  # None: no labels file to find Table 16's compound matches in
    signals: Path | None
    columns: list[str]
    model: str | None
    detectors: dict[str, dict[str, Any]]  # name -> constructor options, every detector run
    seeds: tuple[int, ...]
    natural_share: float
    natural_share_estimated: bool
    budgets: list[str]
    progress: Progress = field(default=quiet)

    @property
    def table(self) -> MentionTable:
        return self.data.table

    @property
    def features(self) -> Mapping[str, np.ndarray]:
        return self.data.features

    @property
    def trained(self) -> dict[str, dict[str, Any]]:
        """The trained detectors among those run, with their options."""
        from halluscope.detectors import TRAINED

        return {n: o for n, o in self.detectors.items() if n in TRAINED}


def make_table(name: str, title: str, columns: Sequence[str], rows: Sequence[Mapping[str, Any]],
               notes: Sequence[str] = (), percent: Sequence[str] = (),
               description: str = "") -> dict[str, Any]:
    """A table as plain JSON: columns, rows ({column: cell, "notes": [...]}) and notes."""
    return {"name": name, "title": title, "description": description, "columns": list(columns),
            "percent": list(percent), "rows": [dict(r) for r in rows], "notes": list(notes)}


def subtypes_of(table: MentionTable) -> list[str]:
    """Subtypes present, in the paper's order (hedged, depictive, purpose, negation), then others.

    >>> t = MentionTable.from_columns(["a", "b"], ["non_assertive"] * 2, ["negation", "hedged"])
    >>> subtypes_of(t)
    ['hedged', 'negation']
    """
    from halluscope.bench.dataset import SUBTYPE_ORDER

    found = {s for s in table.subtype.tolist() if s is not None}
    return [s for s in SUBTYPE_ORDER if s in found] + sorted(found - set(SUBTYPE_ORDER))


def detector_group(name: str) -> str:
    """'trained', 'training-free' or 'reference' (HALP and the position baseline).

    >>> detector_group("nll"), detector_group("halp"), detector_group("dhcp")
    ('training-free', 'reference', 'trained')
    """
    from halluscope.detectors import REFERENCE, TRAINED

    return "reference" if name in REFERENCE else "trained" if name in TRAINED else "training-free"


def resolve_natural_share(table: MentionTable, natural_share: float | None
                          ) -> tuple[float, str | None]:
    """(the natural share, a note when it was estimated from the labels themselves).

    >>> t = MentionTable.from_columns(list("abcd"), ["concrete"] * 3 + ["non_assertive"],
    ...                               [None] * 3 + ["hedged"])
    >>> resolve_natural_share(t, None)[0], resolve_natural_share(t, 0.1)
    (0.25, (0.1, None))
    """
    from halluscope.errors import ConfigError

    note = None
    if natural_share is None:
        natural_share = float((table.label == "non_assertive").mean())
        note = (f"natural share {natural_share:.3f} estimated from these labels (right only for "
                "captions of random images; pass --natural-share otherwise)")
    if not 0 <= natural_share < 1:
        raise ConfigError(f"natural share {natural_share} is not in [0, 1)")
    return natural_share, note


def example_inputs(n_images: int = 40, seed: int = 0) -> TableInputs:
    """A small synthetic bench for the tables' examples: every class and subtype, the features
    of `nll`, `hidden_mid` and the text filter; hallucinated mentions are shifted in every
    feature, non-assertive ones in the text filter's and in one dimension of `hidden_mid`'s.

    >>> inputs = example_inputs(); len(inputs.table), sorted(inputs.detectors)
    (360, ['hidden_mid', 'nll'])
    """
    from halluscope.bench.dataset import BenchData

    rng = np.random.default_rng(seed)
    # Keys sort in row order (the runner's canonical order). Per image: three concrete, one hallucinated, one non-assertive of each subtype and one
    # "generic" (the kind NAME-Bench drops: Table 16's Other).
    kinds = [("concrete", None)] * 3 + [("hallucinated", None)] + [
        ("non_assertive", s) for s in ("hedged", "depictive", "purpose", "negation", "generic")]
    labels, subtypes, rows = [], [], []
    for image in range(n_images):
        for i, (label, subtype) in enumerate(kinds):
            labels.append(label)
            subtypes.append(subtype)
            rows.append({"key": f"{image:04d}:{i}", "image_id": str(image), "label": label,
                         "subtype": subtype, "category": ("dog", "cat", "cup")[i % 3]})
    label_array = np.array(labels)
    bad = (label_array == "hallucinated").astype(float)
    na = (label_array == "non_assertive").astype(float)
    n = len(labels)
    features = {"nll": rng.normal(size=n) + bad,
                # Non-assertive mentions look hallucinated along the first dimension only:
                # flagged without non-assertive training, separable with it.
                "hidden_mid_w4": (rng.normal(size=(n, 4)) + bad[:, None]
                                  + np.outer(na, [1.5, 0, 0, 0])),
                "text_hidden_mid_w4": rng.normal(size=(n, 4)) + 2 * na[:, None]}
    table = MentionTable.from_columns([r["image_id"] for r in rows], labels, subtypes,
                                      [label == "concrete" for label in labels],
                                      [r["key"] for r in rows])
    data = BenchData(table=table, features=features, rows=rows, join={"matched": n})
    return TableInputs(data=data, labels=None, signals=None, columns=sorted(features),
                       model="example", detectors={"nll": {}, "hidden_mid": {}}, seeds=(0,),
                       natural_share=float(na.mean()), natural_share_estimated=True,
                       budgets=["0", "nat", "max"])
