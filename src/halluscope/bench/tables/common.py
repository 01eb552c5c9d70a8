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
    """A count per seed as one cell: the mean over seeds, an integer when it is one.

    >>> n_cell([3, 4]), n_cell([3, 3]), n_cell([])
    ('3.5', '3', '0')
    """
    if not values:
        return "0"
    mean = float(np.mean(values))
    return str(int(mean)) if mean.is_integer() else f"{mean:.1f}"


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
    natural_share: float | None  # None: unknown, tables that need it leave budget nat out
    natural_share_estimated: bool
    budgets: list[str]
    progress: Progress = field(default=quiet)
    # The bench with its generic non-assertive mentions, which Table 16 scores as "Other"
    # (None: `data` is already that, e.g. with --keep-generic).
    with_generic: BenchData | None = None

    @property
    def table(self) -> MentionTable:
        return self.data.table

    @property
    def features(self) -> Mapping[str, np.ndarray]:
        return self.data.features

    @property
    def trained(self) -> dict[str, dict[str, Any]]:
        """The trained detectors among those run, with their options."""
        from halluscope.detectors import MIXED

        return {n: o for n, o in self.detectors.items() if n in MIXED}


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
    from halluscope.detectors import MIXED, REFERENCE

    return "reference" if name in REFERENCE else "trained" if name in MIXED else "training-free"


# Table 1's non-assertive share per model, where the paper's text gives a model's own figure
# (§3.3: "1.3% of LLaVA-1.5's object mentions"; the four newer models only as a range,
# 4.2-5.0%, so they have no default and need --natural-share).
PAPER_NATURAL_SHARES: dict[str, float] = {"llava-1.5-7b": 0.013}
_PAPER_MODEL_NAMES: dict[str, str] = {"llava-1.5": "llava-1.5-7b", "llava-1.5-7b": "llava-1.5-7b"}


def paper_natural_share(model: str | None) -> tuple[str, float] | None:
    """(the paper's model name, its Table 1 natural share) for `model`, or None when the paper
    gives none; hub ids, "-hf" and "v1.5" spellings are accepted.

    >>> paper_natural_share("llava-hf/llava-1.5-7b-hf"), paper_natural_share("LLaVA-v1.5-7B")
    (('llava-1.5-7b', 0.013), ('llava-1.5-7b', 0.013))
    >>> paper_natural_share("Qwen2.5-VL-7B") is None, paper_natural_share(None) is None
    (True, True)
    """
    if not model:
        return None
    name = model.strip().lower().rsplit("/", 1)[-1].replace("_", "-").removesuffix("-hf")
    name = name.replace("llava-v1.5", "llava-1.5")
    paper = _PAPER_MODEL_NAMES.get(name)
    return None if paper is None else (paper, PAPER_NATURAL_SHARES[paper])


@dataclass(frozen=True)
class NaturalShare:
    """The natural share a run uses (None: unknown and not needed), where it came from, and the
    warning to print when it was estimated from the labelled mentions themselves."""

    value: float | None
    source: str
    warning: str | None = None

    @property
    def estimated(self) -> bool:
        return self.source.startswith("estimated")


def resolve_natural_share(table: MentionTable, natural_share: float | None,
                          model: str | None = None, estimate: bool = False,
                          required: bool = True) -> NaturalShare:
    """The natural share: `natural_share` when given, else the paper's Table 1 figure for
    `model` when it gives one, else (with `estimate`) the labels' own non-assertive share, with
    a warning; else a `ConfigError` when `required`, or an unknown share.

    >>> t = MentionTable.from_columns(list("abcd"), ["concrete"] * 3 + ["non_assertive"],
    ...                               [None] * 3 + ["hedged"])
    >>> resolve_natural_share(t, 0.1).value, resolve_natural_share(t, None, "llava-1.5-7b").value
    (0.1, 0.013)
    >>> r = resolve_natural_share(t, None, "qwen", estimate=True); r.value, r.warning is not None
    (0.25, True)
    >>> resolve_natural_share(t, None, "qwen", required=False).value is None
    True
    """
    from halluscope.errors import ConfigError

    warning = None
    if natural_share is not None:
        source = "given (--natural-share)"
    elif (paper := paper_natural_share(model)) is not None:
        natural_share, source = paper[1], f"the paper's Table 1 for {paper[0]}"
    elif estimate:
        natural_share = float((table.label == "non_assertive").mean())
        source = "estimated from these labelled mentions (--estimate-natural-share)"
        warning = (f"natural share {natural_share:.3f} estimated from the labelled mentions: "
                   "right only if they come from captions of random images, too high on a set "
                   "that oversamples non-assertive mentions; pass --natural-share otherwise")
    elif required:
        known = ", ".join(PAPER_NATURAL_SHARES)
        raise ConfigError(f"no natural share for model {model!r} (the paper's Table 1 figure "
                          f"is built in only for {known}): pass --natural-share (the "
                          "non-assertive share of the model's captions of random images, e.g. "
                          "from `halluscope report`), or --estimate-natural-share to use these "
                          "labels' own share")
    else:
        return NaturalShare(None, "unknown (not needed)")
    if not 0 <= natural_share < 1:
        raise ConfigError(f"natural share {natural_share} is not in [0, 1)")
    return NaturalShare(float(natural_share), source, warning)


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
