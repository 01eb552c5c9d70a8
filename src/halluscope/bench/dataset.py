"""Join usage labels with a signal store into what the detector runner takes, plus Tables 1-2.

>>> labels = [{"caption_index": 0, "start": 2, "end": 5}, {"caption_index": 0, "start": 9, "end": 12}]
>>> signals = [{"caption_index": 0, "start": 2, "end": 5}]
>>> join_report(labels, signals)
{'matched': 1, 'labels_without_signals': 1, 'signals_without_labels': 0}

Inputs:
- labels: the per-mention Parquet of `halluscope report` (with `present` and
  `namebench_class`), or the Parquet of `halluscope label` plus an annotations file (presence
  and the class are then derived here with `with_class`). An optional `model` column lets
  one file hold several models; a run takes one (`model=`).
- signals: a `halluscope signals` directory: `mentions/` (one row per mention, key
  "caption_index:mention_index", with span, category, token position and features) and
  `captions/` (one row per caption, with the HALP vector `halp_hidden`).

Join: by (caption_index, start, end): the character span of the mention in the caption, which
both sides compute from the same caption text and the same vocabulary. The image id and the
category of every matched pair must agree (otherwise the two sides were made from different
caption files, and the join is refused). A mention present on one side only is an error that
names both counts, unless `allow_unmatched`, in which case it is dropped and the drop is
reported in the notes (e.g. signals extracted with --limit cover only some captions).

Matched mentions whose class is None (ambiguous / not_object usage, an excluded category, a
judge failure) are not in NAME-Bench; they are dropped and counted, never an error.

Rows come out sorted by the signal key (the runner's canonical order), so per-mention outputs
line up with the runner's rows and do not depend on shard layout.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from halluscope.bench.protocol import MentionTable
from halluscope.errors import InputError
from halluscope.metrics.classes import CLASSES, with_class
from halluscope.runs.signal_store import SignalStore

JOIN_KEY: tuple[str, str, str] = ("caption_index", "start", "end")
# Column the position-matched evaluation (Table 13) and the position baseline read.
POSITION_COLUMN = "caption_token_index"
SUBTYPE_ORDER: tuple[str, ...] = ("hedged", "depictive", "purpose", "negation")
# Non-assertive mentions outside the four subtypes (kind-level and habitual statements): not in
# NAME-Bench (§3.3, Appendix C: "only non-assertive mentions that fall clearly into one subtype"),
# kept only where the paper shows them (Table 16's "Other") or on request (--keep-generic).
GENERIC = "generic"


def _key(row: Mapping[str, Any]) -> tuple[int, int, int]:
    return (int(row["caption_index"]), int(row["start"]), int(row["end"]))


def join_report(labels: Iterable[Mapping[str, Any]], signals: Iterable[Mapping[str, Any]]
                ) -> dict[str, int]:
    """Counts of mentions matched, on the label side only and on the signal side only."""
    left = {_key(r) for r in labels}
    right = {_key(r) for r in signals}
    return {"matched": len(left & right), "labels_without_signals": len(left - right),
            "signals_without_labels": len(right - left)}


def join_error(counts: Mapping[str, int], labelled_captions_missing: int = 0) -> str | None:
    """The one-line error for an incomplete join, or None when both sides match exactly.

    >>> join_error({"matched": 5, "labels_without_signals": 0, "signals_without_labels": 2})
    'signals and labels do not match on (caption_index, start, end): 5 matched, 2 signal mentions have no label, 0 labelled mentions have no signals; pass --allow-unmatched to drop them'
    """
    if not counts["labels_without_signals"] and not counts["signals_without_labels"]:
        return None
    hint = (f" ({labelled_captions_missing} labelled captions are not in the signal store at "
            "all: extracted with --limit?)" if labelled_captions_missing else "")
    return ("signals and labels do not match on (caption_index, start, end): "
            f"{counts['matched']} matched, {counts['signals_without_labels']} signal mentions "
            f"have no label, {counts['labels_without_signals']} labelled mentions have no "
            f"signals{hint}; pass --allow-unmatched to drop them")


def _read_parquet_rows(path: Path, columns: Sequence[str] | None = None) -> list[dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path, columns=list(columns) if columns else None)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", path=path) from None
    return table.to_pylist()


def read_labels(path: str | Path, annotations: str | Path | None = None,
                model: str | None = None, hedges_as_claims: bool = False
                ) -> list[dict[str, Any]]:
    """Label rows with `present` and `namebench_class` (derived from `annotations` if absent).

    Keeps rows of `model` when the file has a `model` column; a file with several models needs
    `model`. Every row gets `model` (the given name, the column's value, or None).
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("no such labels file", path=path)
    rows = _read_parquet_rows(path)
    if not rows:
        raise InputError("the labels file has no rows", path=path)
    missing = [c for c in (*JOIN_KEY, "image_id", "category", "usage", "subtype") if c not in rows[0]]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)} (expected the mentions.parquet "
                         "of `halluscope report` or the output of `halluscope label`)", path=path)
    if "model" in rows[0]:
        models = sorted({str(r["model"]) for r in rows})
        if model is not None:
            if model not in models:
                raise InputError(f"model {model!r} not in the labels ({', '.join(models)})",
                                 path=path)
            rows = [r for r in rows if str(r["model"]) == model]
        elif len(models) > 1:
            raise InputError(f"the labels hold {len(models)} models ({', '.join(models)}); "
                             "choose one with --model", path=path)
    has_classes = "present" in rows[0] and "namebench_class" in rows[0]
    if annotations is not None or not has_classes:
        if annotations is None:
            raise InputError("the labels have no 'present' / 'namebench_class' columns (output "
                             "of `halluscope label`): pass --annotations to add presence",
                             path=path)
        from halluscope.data.presence import load_presence

        presence = load_presence(annotations)
        rows = [with_class(r, presence, hedges_as_claims) for r in rows]
    return [{**r, "model": model if model is not None else r.get("model")} for r in rows]


@dataclass
class BenchData:
    """The joined mentions: the protocol's table, the feature dict, and per-row metadata."""

    table: MentionTable
    features: dict[str, np.ndarray]
    rows: list[dict[str, Any]]  # key, caption_index, image_id, start, end, category, label, ...
    join: dict[str, int]
    notes: list[str] = field(default_factory=list)
    model: str | None = None


META_COLUMNS: tuple[str, ...] = ("key", "caption_index", "mention_index", "image_id", "start",
                                 "end", "category", "word")


def load_bench(labels_path: str | Path, signals_dir: str | Path,
               feature_columns: Sequence[str], annotations: str | Path | None = None,
               model: str | None = None, allow_unmatched: bool = False,
               hedges_as_claims: bool = False) -> BenchData:
    """Read both sides, join them, and build the MentionTable and features of `feature_columns`.

    `halp_hidden` is read from the captions store and repeated on each mention of the caption.
    Feature columns the store lacks are left out (the caller reports which detectors that
    skips); `POSITION_COLUMN` is always loaded when present.
    """
    from halluscope.detectors.base import features_from_arrow

    signals_dir = Path(signals_dir)
    labels = read_labels(labels_path, annotations, model, hedges_as_claims)
    have = set(SignalStore(signals_dir).columns("mentions"))
    missing_meta = [c for c in (*JOIN_KEY, "key", "image_id", "category") if c not in have]
    if missing_meta:
        raise InputError(f"signal mentions lack column(s) {', '.join(missing_meta)}",
                         path=signals_dir / "mentions")
    wanted = [c for c in dict.fromkeys([*feature_columns, POSITION_COLUMN])
              if c != "halp_hidden" and c in have]
    store = SignalStore(signals_dir).read("mentions",
                        [c for c in META_COLUMNS if c in have] + wanted)
    meta = store.select([c for c in META_COLUMNS if c in store.column_names]).to_pylist()
    counts = join_report(labels, meta)
    label_by_key = {_key(r): r for r in labels}
    if len(label_by_key) != len(labels):
        raise InputError(f"{len(labels) - len(label_by_key)} label rows repeat a (caption_index, "
                         "start, end) span", path=labels_path)
    signal_keys = [_key(r) for r in meta]
    if len(set(signal_keys)) != len(signal_keys):
        raise InputError("signal mentions repeat a (caption_index, start, end) span",
                         path=signals_dir)
    notes: list[str] = []
    message = join_error(counts, len({k[0] for k in label_by_key} - {k[0] for k in signal_keys}))
    if message is not None:
        if not allow_unmatched:
            raise InputError(message)
        notes.append(f"join: dropped {counts['signals_without_labels']} signal mentions without "
                     f"a label and {counts['labels_without_signals']} labelled mentions without "
                     "signals (--allow-unmatched)")
    keep: list[int] = []
    dropped: Counter = Counter()
    bad_ids = bad_categories = 0
    for i, (k, m) in enumerate(zip(signal_keys, meta)):
        lab = label_by_key.get(k)
        if lab is None:
            continue
        if str(lab["image_id"]) != str(m["image_id"]):
            bad_ids += 1
        if str(lab["category"]) != str(m["category"]):
            bad_categories += 1
        if lab["namebench_class"] is None:
            dropped[_drop_reason(lab)] += 1
            continue
        keep.append(i)
    if bad_ids or bad_categories:
        raise InputError(f"labels and signals disagree on {bad_ids} image ids and "
                         f"{bad_categories} categories of matched mentions: made from different "
                         "caption files?")
    if dropped:
        notes.append("not in NAME-Bench (dropped): " + ", ".join(
            f"{n} {reason}" for reason, n in sorted(dropped.items())))
    if not keep:
        raise InputError(f"no NAME-Bench mention left after the join ({counts['matched']} "
                         "matched, none concrete / hallucinated / non-assertive)")
    keys = np.asarray([str(meta[i]["key"]) for i in keep], dtype=object)
    order = np.argsort(keys.astype(str), kind="stable")  # the runner's canonical order
    keep_sorted = [keep[i] for i in order]
    rows = []
    for i in keep_sorted:
        lab = label_by_key[signal_keys[i]]
        rows.append({"key": str(meta[i]["key"]), "caption_index": int(meta[i]["caption_index"]),
                     "image_id": str(meta[i]["image_id"]), "start": int(meta[i]["start"]),
                     "end": int(meta[i]["end"]), "category": str(meta[i]["category"]),
                     "word": meta[i].get("word"), "label": lab["namebench_class"],
                     "subtype": lab["subtype"] if lab["namebench_class"] == "non_assertive"
                     else None, "present": bool(lab["present"]), "model": lab.get("model")})
    import pyarrow as pa

    taken = store.take(pa.array(keep_sorted, type=pa.int64()))
    features = features_from_arrow(taken, [c for c in wanted if c in taken.column_names])
    if "halp_hidden" in feature_columns:
        halp = _halp_features(signals_dir, [r["caption_index"] for r in rows])
        if halp is None:
            notes.append("no halp_hidden in the captions store: HALP not run")
        else:
            features["halp_hidden"] = halp
    table = MentionTable.from_columns([r["image_id"] for r in rows], [r["label"] for r in rows],
                                      [r["subtype"] for r in rows], [r["present"] for r in rows],
                                      [r["key"] for r in rows], source=str(labels_path))
    return BenchData(table=table, features=features, rows=rows, join=counts, notes=notes,
                     model=model if model is not None else rows[0].get("model"))


def generic_mask(table: MentionTable) -> np.ndarray:
    """True for the generic non-assertive mentions (subtype "generic"), which NAME-Bench drops.

    >>> t = MentionTable.from_columns(["1", "1", "2"], ["non_assertive", "non_assertive",
    ...                               "concrete"], ["generic", "hedged", None])
    >>> generic_mask(t).tolist()
    [True, False, False]
    """
    return np.asarray([lab == "non_assertive" and sub == GENERIC
                       for lab, sub in zip(table.label, table.subtype)], dtype=bool)


def drop_generic(data: BenchData) -> BenchData:
    """`data` without its generic non-assertive mentions (table, features and rows alike), with a
    note counting them; `data` itself when it has none.

    >>> from halluscope.bench.tables.common import example_inputs
    >>> full = example_inputs().data; kept = drop_generic(full)
    >>> len(full.table), len(kept.table), kept.notes[-1][:37]
    (360, 320, '40 generic non-assertive mentions dro')
    """
    from dataclasses import replace

    generic = generic_mask(data.table)
    if not generic.any():
        return data
    keep = np.flatnonzero(~generic)
    if not len(keep):
        raise InputError(f"every one of the {len(generic)} mentions is a generic non-assertive "
                         "mention, which NAME-Bench drops; pass --keep-generic to keep them")
    t = data.table
    table = MentionTable(image_id=t.image_id[keep], label=t.label[keep], subtype=t.subtype[keep],
                         present=None if t.present is None else t.present[keep],
                         key=None if t.key is None else t.key[keep])
    note = (f"{int(generic.sum())} generic non-assertive mentions dropped (outside the four "
            "subtypes, as NAME-Bench does; --keep-generic keeps them)")
    if not (table.label == "non_assertive").any():
        note += ("; no non-assertive mention is left: labels whose non-assertive subtype is a "
                 "placeholder (the text filter's) need --keep-generic")
    return replace(data, table=table, features={k: np.asarray(v)[keep]
                                                for k, v in data.features.items()},
                   rows=[data.rows[i] for i in keep], notes=[*data.notes, note])


def _drop_reason(label: Mapping[str, Any]) -> str:
    """Why a labelled mention is not in NAME-Bench (for the drop note).

    >>> _drop_reason({"usage": "ambiguous", "error": None})
    'ambiguous'
    """
    if label.get("error") is not None or label.get("usage") is None:
        return "judge failure"
    if label.get("excluded"):
        return "excluded category"
    return str(label["usage"])


def _halp_features(signals_dir: Path, caption_indices: Sequence[int]) -> np.ndarray | None:
    """The captions store's `halp_hidden`, one row per mention (its caption's vector)."""
    from halluscope.detectors.base import features_from_arrow

    try:
        store = SignalStore(signals_dir).read("captions", ["caption_index", "halp_hidden"])
    except InputError:
        return None
    if "halp_hidden" not in store.column_names:
        return None
    vectors = features_from_arrow(store, ["halp_hidden"])["halp_hidden"]
    index = {int(c): i for i, c in enumerate(store.column("caption_index").to_pylist())}
    missing = sorted({c for c in caption_indices if c not in index})
    if missing:
        raise InputError(f"{len(missing)} captions with mentions have no caption row (HALP "
                         f"vector), e.g. caption {missing[0]}", path=signals_dir / "captions")
    return vectors[[index[c] for c in caption_indices]]


# --- Tables 1 and 2 ---------------------------------------------------------------------------

def _by_model(rows: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        groups.setdefault(str(r.get("model") or "model"), []).append(r)
    return dict(sorted(groups.items()))


def natural_rates(rows: Iterable[Mapping[str, Any]], n_resamples: int = 1000, seed: int = 0
                  ) -> dict[str, dict[str, Any]]:
    """Table 1 per model: non-assertive share and hallucination rate, image-bootstrap 95% CIs.

    >>> rows = [{"image_id": i, "label": l} for i, l in enumerate(
    ...     ["concrete"] * 6 + ["hallucinated"] * 2 + ["non_assertive"] * 2)]
    >>> t = natural_rates(rows, n_resamples=50)["model"]
    >>> t["non_assertive_share"]["value"], t["hallucination_rate"]["value"]
    (0.2, 0.25)

    Rows carry `label` (a NAME-Bench class; others are ignored), `image_id`, optional `model`.
    The rates are only "natural" on captions of random images (the paper's 2,000 per model), not
    on a set that oversamples non-assertive mentions.
    """
    from halluscope.metrics.rates import bootstrap_ratio

    out = {}
    for model, group in _by_model(rows).items():
        group = [r for r in group if r.get("label") in CLASSES]
        images = sorted({str(r["image_id"]) for r in group})
        index = {image: i for i, image in enumerate(images)}
        na, total, hal, existential = (np.zeros(len(images), dtype=np.int64) for _ in range(4))
        for r in group:
            i = index[str(r["image_id"])]
            total[i] += 1
            na[i] += r["label"] == "non_assertive"
            existential[i] += r["label"] != "non_assertive"
            hal[i] += r["label"] == "hallucinated"
        out[model] = {
            "n_images": len(images), "n_mentions": int(total.sum()),
            "non_assertive_share": bootstrap_ratio(na, total, n_resamples, seed).to_dict(),
            "hallucination_rate": bootstrap_ratio(hal, existential, n_resamples, seed).to_dict()}
    return out


def class_counts(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Table 2 per model: mentions per class, and non-assertive per subtype with its share (%).

    >>> rows = [{"label": "concrete", "subtype": None}, {"label": "non_assertive",
    ...          "subtype": "hedged"}, {"label": "non_assertive", "subtype": "negation"}]
    >>> c = class_counts(rows)["model"]
    >>> c["concrete"], c["non_assertive"], c["subtypes"]["hedged"]
    (1, 2, {'n': 1, 'share': 50.0})
    """
    out = {}
    for model, group in _by_model(rows).items():
        labels = Counter(r.get("label") for r in group)
        subtypes = Counter(r.get("subtype") for r in group if r.get("label") == "non_assertive")
        n_na = labels.get("non_assertive", 0)
        names = [s for s in SUBTYPE_ORDER if s in subtypes] + sorted(
            s for s in subtypes if s not in SUBTYPE_ORDER)
        out[model] = {**{c: labels.get(c, 0) for c in CLASSES},
                      "total": sum(labels.get(c, 0) for c in CLASSES),
                      "subtypes": {s: {"n": subtypes[s],
                                       "share": round(100.0 * subtypes[s] / n_na, 1)}
                                   for s in names}}
    return out
