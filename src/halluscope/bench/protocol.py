"""NAME-Bench evaluation protocol (§3.5 and Appendix B of the paper), on scores from any source.

>>> table = MentionTable.from_columns(
...     image_id=[str(i // 2) for i in range(60)],
...     label=["concrete"] * 40 + ["hallucinated"] * 10 + ["non_assertive"] * 10,
...     subtype=[None] * 50 + ["hedged"] * 10)
>>> scores = {"position": np.arange(60.0)}
>>> report = evaluate_scores(table, scores, seeds=(0,))
>>> sorted(report["per_seed"][0]["detectors"]["position"])[:4]
['auc_concrete_vs_halluc', 'auc_na_absent_vs_present', 'calib_concrete', 'calib_flagged']

The protocol, exactly:

* Splits (per seed): the distinct image ids are ordered by a keyed hash,
  blake2b(f"{seed}:{image_id}"), and the first round(8/15 n) images go to `fit`, the next
  round(2/15 n) to `calibration`, the rest (about 5/15) to `heldout` -- 53.3 / 13.3 / 33.3% of the
  images. All mentions of an image share its split. The assignment depends only on the seed and
  the set of image ids, never on row order. Default seeds: 0, 1, 2.
* Threshold: a mention is flagged when its score is *strictly greater* than the threshold. The
  threshold is one of the calibration concrete scores, chosen so that the number f of calibration
  concrete mentions flagged is as close as possible to the target k = 0.1 n (n = calibration
  concrete mentions) subject to f <= k + 1; equal distances go to the smaller f (fewer flags).
  With distinct scores this flags round(k) mentions (halves down), i.e. 10% +- 1 mention, and the
  threshold is the 90th percentile of those scores. With ties (HALP gives one score per caption)
  a tie block is never split: if no threshold gets within one mention of k, the closest
  achievable count is used and the result carries a note (`calib_within_one` is False).
* Held-out metrics (fractions in [0, 1], not %): `na_fpr` (non-assertive mentions flagged),
  `na_fpr_by_subtype`, `halluc_tpr` (hallucinated mentions flagged), `concrete_fpr` (held-out
  concrete mentions flagged; about 0.10 by construction), `auc_concrete_vs_halluc` (probability
  that a hallucinated mention outscores a concrete one, ties counting one half: the Mann-Whitney
  AUC with mid-ranks), `auc_na_absent_vs_present` (the same among non-assertive mentions, absent
  object = positive; needs a `present` column).
* A metric that cannot be computed (no mentions of a class in the held-out set, no `present`
  column, a score column with NaN) is None, and the reason is added to `notes`; nothing is NaN.
* Over seeds: the mean and the sample standard deviation (ddof=1; None with one seed) of every
  metric, over the seeds where it is defined (`n_seeds` says how many).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from halluscope.errors import InputError
from halluscope.metrics.classes import CLASSES
from halluscope.ranking import auc

SPLITS: tuple[str, ...] = ("fit", "calibration", "heldout")
# 53.3 / 13.3 / 33.3 % of the images (the paper's 8:2:5).
SPLIT_FRACTIONS: tuple[float, float, float] = (8 / 15, 2 / 15, 5 / 15)
DEFAULT_SEEDS: tuple[int, ...] = (0, 1, 2)
TARGET_CONCRETE_FPR = 0.10
# Columns of a scores file that are never detector scores.
RESERVED_COLUMNS: frozenset[str] = frozenset({
    "image_id", "label", "subtype", "present", "model", "key", "caption_index", "mention_index"})
METRICS: tuple[str, ...] = ("threshold", "na_fpr", "halluc_tpr", "concrete_fpr",
                            "auc_concrete_vs_halluc", "auc_na_absent_vs_present")


@dataclass(frozen=True)
class MentionTable:
    """One row per mention: image id, NAME-Bench class, subtype, and (optional) presence.

    `key` identifies a mention independently of row order (the signal extractor's
    "caption:mention" key); when absent, `image_id` plus the occurrence index within the image
    stands in for it.
    """

    image_id: np.ndarray  # str
    label: np.ndarray  # str, one of CLASSES
    subtype: np.ndarray  # object: str for non-assertive rows, else None
    present: np.ndarray | None = None  # bool
    key: np.ndarray | None = None  # str

    def __len__(self) -> int:
        return len(self.label)

    @classmethod
    def from_columns(cls, image_id: Iterable[Any], label: Iterable[Any],
                     subtype: Iterable[Any] | None = None, present: Iterable[Any] | None = None,
                     key: Iterable[Any] | None = None, source: str | None = None
                     ) -> "MentionTable":
        """Validate and build; bad values raise `InputError` naming `source` and the row.

        >>> MentionTable.from_columns(["1"], ["concret"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        halluscope.errors.InputError: [row 0]: label 'concret' is not one of concrete, ...
        """
        ids = list(image_id)
        labels = list(label)
        n = len(labels)
        if len(ids) != n:
            raise InputError(f"image_id has {len(ids)} rows, label {n}", path=source)
        for i, value in enumerate(ids):
            if value is None or (isinstance(value, float) and math.isnan(value)):
                raise InputError("image_id is missing", path=source, item=f"row {i}")
        for i, value in enumerate(labels):
            if value not in CLASSES:
                raise InputError(f"label {value!r} is not one of {', '.join(CLASSES)}",
                                 path=source, item=f"row {i}")
        subtypes = list(subtype) if subtype is not None else [None] * n
        if len(subtypes) != n:
            raise InputError(f"subtype has {len(subtypes)} rows, label {n}", path=source)
        clean_subtypes: list[str | None] = []
        for i, (lab, sub) in enumerate(zip(labels, subtypes)):
            if lab == "non_assertive":
                if not isinstance(sub, str) or not sub:
                    raise InputError("non-assertive mention without a subtype", path=source,
                                     item=f"row {i}")
                clean_subtypes.append(sub)
            else:
                clean_subtypes.append(None)
        pres = None
        if present is not None:
            values = list(present)
            if len(values) != n:
                raise InputError(f"present has {len(values)} rows, label {n}", path=source)
            for i, value in enumerate(values):
                if not isinstance(value, (bool, np.bool_)):
                    raise InputError(f"present must be true or false, got {value!r}",
                                     path=source, item=f"row {i}")
            pres = np.asarray(values, dtype=bool)
        keys = None
        if key is not None:
            keys = np.asarray([str(k) for k in key], dtype=object)
            if len(keys) != n:
                raise InputError(f"key has {len(keys)} rows, label {n}", path=source)
            if len(set(keys.tolist())) != n:
                raise InputError("key values are not unique", path=source)
        return cls(image_id=np.asarray([str(v) for v in ids], dtype=object),
                   label=np.asarray(labels, dtype=object),
                   subtype=np.asarray(clean_subtypes, dtype=object), present=pres, key=keys)

    def mention_keys(self) -> np.ndarray:
        """Stable per-mention keys: `key`, else f"{image_id}#{occurrence within the image}"."""
        if self.key is not None:
            return self.key
        seen: dict[str, int] = {}
        out = []
        for image in self.image_id:
            count = seen.get(image, 0)
            seen[image] = count + 1
            out.append(f"{image}#{count}")
        return np.asarray(out, dtype=object)


@dataclass(frozen=True)
class Threshold:
    """A calibrated threshold and how many calibration concrete mentions it flags."""

    value: float
    flagged: int
    n: int
    target: float

    @property
    def within_one(self) -> bool:
        return abs(self.flagged - self.target) <= 1


def _hash_key(seed: int, image_id: str) -> bytes:
    return hashlib.blake2b(f"{seed}:{image_id}".encode("utf-8"), digest_size=8).digest()


def split_images(image_ids: Iterable[Any], seed: int,
                 fractions: Sequence[float] = SPLIT_FRACTIONS) -> dict[str, str]:
    """{image_id: "fit" | "calibration" | "heldout"}; depends only on the seed and the id set.

    >>> s = split_images([str(i) for i in range(15)], seed=0)
    >>> [sum(v == name for v in s.values()) for name in SPLITS]
    [8, 2, 5]
    >>> s == split_images([str(i) for i in reversed(range(15))], seed=0)
    True
    """
    ids = sorted({str(i) for i in image_ids})
    order = sorted(ids, key=lambda i: (_hash_key(seed, i), i))
    n = len(order)
    n_fit = int(round(fractions[0] * n))
    n_cal = min(n - n_fit, int(round(fractions[1] * n)))
    return {image: SPLITS[0 if rank < n_fit else 1 if rank < n_fit + n_cal else 2]
            for rank, image in enumerate(order)}


def split_codes(image_ids: np.ndarray, seed: int) -> np.ndarray:
    """Per-row split index (0 fit, 1 calibration, 2 heldout) from `split_images`.

    >>> codes = split_codes(np.array(["a", "a", "b"], dtype=object), seed=0)
    >>> codes.dtype.name, bool(codes[0] == codes[1])
    ('int8', True)
    """
    mapping = split_images(image_ids, seed)
    index = {name: i for i, name in enumerate(SPLITS)}
    return np.fromiter((index[mapping[str(i)]] for i in image_ids), dtype=np.int8,
                       count=len(image_ids))


def calibrate_threshold(concrete_scores: np.ndarray, rate: float = TARGET_CONCRETE_FPR
                        ) -> Threshold:
    """The threshold flagging (score > threshold) about `rate` of `concrete_scores`.

    >>> t = calibrate_threshold(np.arange(100.0)); (t.value, t.flagged)
    (89.0, 10)
    >>> t = calibrate_threshold(np.array([0.0] * 5 + [1.0] * 4 + [2.0])); (t.value, t.flagged)
    (1.0, 1)
    >>> t = calibrate_threshold(np.array([0.0] * 7 + [1.0] * 3)); (t.value, t.flagged, t.within_one)
    (1.0, 0, True)

    Rule (see the module docstring): candidates are the distinct scores v, each flagging
    f(v) = #{s > v}; keep those with f <= k + 1 (k = rate * n), take the f closest to k, and on
    equal distance the smaller f. The maximum score (f = 0) is always a candidate.
    """
    scores = np.asarray(concrete_scores, dtype=np.float64)
    n = len(scores)
    if n == 0:
        raise ValueError("no calibration concrete mentions to set a threshold on")
    target = rate * n
    values, counts = np.unique(scores, return_counts=True)
    flagged = n - np.cumsum(counts)  # flagged when the threshold is values[i]
    allowed = flagged <= target + 1
    distance = np.where(allowed, np.abs(flagged - target), np.inf)
    best = int(np.lexsort((flagged, distance))[0])
    return Threshold(value=float(values[best]), flagged=int(flagged[best]), n=n, target=target)


def flag_rate(flags: np.ndarray, mask: np.ndarray | None = None) -> float | None:
    """Share of the `mask` rows (all rows without one) flagged; None when there are none (never
    NaN).

    >>> flag_rate(np.array([True, False])), flag_rate(np.array([True]), np.array([False])) is None
    (0.5, True)
    """
    chosen = flags if mask is None else flags[mask]
    return float(chosen.mean()) if len(chosen) else None


def calibrated_threshold(scores: np.ndarray, table: MentionTable, codes: np.ndarray,
                         passed: np.ndarray) -> tuple[float | None, str | None]:
    """The threshold flagging 10% of the calibration concrete mentions that pass a filter
    (`passed`), or (None, reason)."""
    if not np.isfinite(scores).all():
        return None, "NaN or infinite scores"
    calibration = scores[(codes == 1) & (table.label == "concrete") & passed]
    if not len(calibration):
        return None, "no calibration concrete mentions (after the filter)"
    return calibrate_threshold(calibration).value, None


def flags_at_threshold(scores: np.ndarray, table: MentionTable, codes: np.ndarray,
                       passed: np.ndarray | None = None) -> tuple[np.ndarray | None, str | None]:
    """Flags (score > threshold) of mentions that pass the filter, the threshold flagging 10% of
    the calibration concrete mentions that pass it; (None, reason) when there are none.

    >>> t = MentionTable.from_columns(list("abcd"), ["concrete"] * 4)
    >>> flags, _ = flags_at_threshold(np.arange(4.0), t, np.array([1, 1, 2, 2]))
    >>> flags.tolist()
    [False, False, True, True]
    """
    passed = np.ones(len(table), dtype=bool) if passed is None else passed
    threshold, reason = calibrated_threshold(scores, table, codes, passed)
    if threshold is None:
        return None, reason
    return (scores > threshold) & passed, None


def empty_result(*notes: str) -> dict[str, Any]:
    """A result with every metric None, and the reasons.

    >>> empty_result("fit failed")["na_fpr"], empty_result("fit failed")["notes"]
    (None, ['fit failed'])
    """
    result: dict[str, Any] = {m: None for m in METRICS}
    result.update({"na_fpr_by_subtype": {}, "calib_flagged": None, "calib_concrete": None,
                   "calib_target": None, "calib_within_one": None, "n_heldout": {},
                   "notes": list(notes)})
    return result


def evaluate_seed(scores: np.ndarray, table: MentionTable, codes: np.ndarray,
                  rate: float = TARGET_CONCRETE_FPR) -> dict[str, Any]:
    """One detector, one split: threshold on calibration concrete, metrics on held-out.

    >>> t = MentionTable.from_columns(["a", "b", "c"], ["concrete"] * 3)
    >>> r = evaluate_seed(np.zeros(3), t, np.array([1, 1, 2]))
    >>> r["threshold"], r["na_fpr"], "no held-out non-assertive mentions" in r["notes"]
    (0.0, None, True)
    """
    scores = np.asarray(scores, dtype=np.float64)
    result = empty_result()
    notes: list[str] = result["notes"]
    bad = ~np.isfinite(scores)
    if bad.any():
        notes.append(f"{int(bad.sum())} of {len(scores)} scores are NaN or infinite; "
                     "detector not evaluated")
        return result
    labels = table.label
    calibration = scores[(codes == 1) & (labels == "concrete")]
    if len(calibration) == 0:
        notes.append("no calibration concrete mentions; no threshold")
        return result
    threshold = calibrate_threshold(calibration, rate)
    result.update(threshold=threshold.value, calib_flagged=threshold.flagged,
                  calib_concrete=threshold.n, calib_target=threshold.target,
                  calib_within_one=threshold.within_one)
    if not threshold.within_one:
        notes.append(f"tied scores: threshold flags {threshold.flagged} of {threshold.n} "
                     f"calibration concrete mentions (target {threshold.target:.1f})")
    held = codes == 2
    flagged = scores > threshold.value
    masks = {name: held & (labels == name) for name in CLASSES}
    result["n_heldout"] = {name: int(m.sum()) for name, m in masks.items()}
    result["concrete_fpr"] = flag_rate(flagged, masks["concrete"])
    result["halluc_tpr"] = flag_rate(flagged, masks["hallucinated"])
    result["na_fpr"] = flag_rate(flagged, masks["non_assertive"])
    for name, message in (("concrete", "no held-out concrete mentions"),
                          ("hallucinated", "no held-out hallucinated mentions"),
                          ("non_assertive", "no held-out non-assertive mentions")):
        if not masks[name].any():
            notes.append(message)
    na = masks["non_assertive"]
    result["na_fpr_by_subtype"] = {
        sub: float(flagged[na & (table.subtype == sub)].mean())
        for sub in sorted({s for s in table.subtype[na]})}
    result["auc_concrete_vs_halluc"] = auc(scores[masks["hallucinated"]],
                                           scores[masks["concrete"]])
    if table.present is not None and na.any():
        result["auc_na_absent_vs_present"] = auc(scores[na & ~table.present],
                                                 scores[na & table.present])
        if result["auc_na_absent_vs_present"] is None:
            notes.append("held-out non-assertive mentions are all absent or all present")
    return result


def mean_std(values: Sequence[float | None]) -> dict[str, Any]:
    """Mean and sample sd (ddof=1) over the seeds where a value is defined.

    >>> mean_std([0.2, None, 0.4])["n_seeds"], mean_std([None])["mean"]
    (2, None)
    """
    kept = [float(v) for v in values if v is not None]
    if not kept:
        return {"mean": None, "std": None, "n_seeds": 0}
    std = float(np.std(kept, ddof=1)) if len(kept) > 1 else None
    return {"mean": float(np.mean(kept)), "std": std, "n_seeds": len(kept)}


def summarize_seeds(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Mean and standard deviation over seeds of each metric of one detector.

    >>> summarize_seeds([{"na_fpr": 0.2, "na_fpr_by_subtype": {}}, {"na_fpr": 0.4,
    ...                   "na_fpr_by_subtype": {}}])["na_fpr"]["mean"]
    0.30000000000000004
    """
    out: dict[str, Any] = {m: mean_std([r.get(m) for r in results]) for m in METRICS}
    subtypes = sorted({s for r in results for s in r.get("na_fpr_by_subtype", {})})
    out["na_fpr_by_subtype"] = {s: mean_std([r["na_fpr_by_subtype"].get(s) for r in results])
                                for s in subtypes}
    notes = sorted({n for r in results for n in r.get("notes", [])})
    out["notes"] = notes
    return out


def evaluate_scores(table: MentionTable, scores: Mapping[str, np.ndarray],
                    seeds: Sequence[int] = DEFAULT_SEEDS, rate: float = TARGET_CONCRETE_FPR
                    ) -> dict[str, Any]:
    """The whole protocol for fixed (already computed) scores: per seed and mean over seeds.

    Every score array has one value per row of `table` (higher = more likely hallucinated).
    """
    if not scores:
        raise InputError("no detector score columns")
    if not seeds:
        raise InputError("no seeds")
    for name, values in scores.items():
        if len(values) != len(table):
            raise InputError(f"score column {name!r} has {len(values)} rows, table {len(table)}")
    per_seed = []
    for seed in seeds:
        splits = split_images(table.image_id, seed)
        index = {name: i for i, name in enumerate(SPLITS)}
        codes = np.fromiter((index[splits[i]] for i in table.image_id), dtype=np.int8,
                            count=len(table))
        per_seed.append({
            "seed": int(seed), "splits": splits, "split_counts": split_counts(table, codes),
            "detectors": {name: evaluate_seed(np.asarray(values), table, codes, rate)
                          for name, values in scores.items()}})
    notes = [] if table.present is not None else [
        "no 'present' column: absent-vs-present AUC not computed"]
    return {
        "protocol": protocol_description(rate), "notes": notes,
        "n_mentions": len(table), "n_images": len(set(table.image_id.tolist())),
        "class_counts": {c: int((table.label == c).sum()) for c in CLASSES},
        "seeds": [int(s) for s in seeds],
        "per_seed": per_seed,
        "mean": {name: summarize_seeds([s["detectors"][name] for s in per_seed])
                 for name in scores},
    }


def split_counts(table: MentionTable, codes: np.ndarray) -> dict[str, dict[str, int]]:
    """Images and mentions of each class in each split."""
    out = {}
    for i, name in enumerate(SPLITS):
        rows = codes == i
        out[name] = {"images": len(set(table.image_id[rows].tolist())),
                     **{c: int((rows & (table.label == c)).sum()) for c in CLASSES}}
    return out


def protocol_description(rate: float = TARGET_CONCRETE_FPR) -> dict[str, Any]:
    return {"split_fractions": dict(zip(SPLITS, SPLIT_FRACTIONS)),
            "split_rule": "images ordered by blake2b(f'{seed}:{image_id}'); first round(8/15 n) "
                          "fit, next round(2/15 n) calibration, rest heldout",
            "target_concrete_fpr": rate,
            "threshold_rule": "flag score > threshold; threshold = a calibration concrete score "
                              "whose flagged count f is closest to k = rate*n with f <= k+1, "
                              "ties to the smaller f",
            "metrics_scale": "fractions in [0, 1]",
            "std": "sample standard deviation over seeds (ddof=1)"}


def load_scores(path: str | Path, detectors: Sequence[str] | None = None,
                model: str | None = None) -> tuple[MentionTable, dict[str, np.ndarray]]:
    """Read a scores Parquet file: the mention table and one float array per detector column.

    Detector columns are the numeric (non-boolean) columns outside `RESERVED_COLUMNS`, or the
    `detectors` named. With `model`, only rows whose `model` column equals it are kept; a file
    holding several models needs it (the protocol splits each model's mentions on their own).
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", path=path)
    try:
        data = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"not a Parquet file ({exc})", path=path) from None
    missing = [c for c in ("image_id", "label", "subtype") if c not in data.column_names]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)} (need image_id, label, "
                         "subtype and one numeric column per detector)", path=path)
    if "model" in data.column_names:
        models = sorted({str(m) for m in data.column("model").to_pylist()})
        if model is not None:
            if model not in models:
                raise InputError(f"model {model!r} not in the file ({', '.join(models)})",
                                 path=path)
            data = data.filter(pc.equal(data.column("model").cast(pa.string()), model))
        elif len(models) > 1:
            raise InputError(f"the file holds {len(models)} models ({', '.join(models)}); "
                             "choose one with --model", path=path)
    elif model is not None:
        raise InputError("--model given but the file has no 'model' column", path=path)
    if data.num_rows == 0:
        raise InputError("no rows", path=path)
    numeric = [name for name, typ in zip(data.column_names, data.schema.types)
               if name not in RESERVED_COLUMNS and (pa.types.is_integer(typ)
                                                    or pa.types.is_floating(typ))]
    if detectors:
        unknown = [d for d in detectors if d not in data.column_names]
        if unknown:
            raise InputError(f"no detector column(s) {', '.join(unknown)}; numeric columns: "
                             f"{', '.join(numeric) or 'none'}", path=path)
        not_numeric = [d for d in detectors if d not in numeric]
        if not_numeric:
            raise InputError(f"column(s) {', '.join(not_numeric)} are not numeric scores",
                             path=path)
        names = list(detectors)
    else:
        names = numeric
    if not names:
        raise InputError("no numeric detector score column", path=path)
    present = data.column("present").to_pylist() if "present" in data.column_names else None
    key = data.column("key").to_pylist() if "key" in data.column_names else None
    table = MentionTable.from_columns(data.column("image_id").to_pylist(),
                                      data.column("label").to_pylist(),
                                      data.column("subtype").to_pylist(), present, key,
                                      source=str(path))
    scores = {name: data.column(name).cast(pa.float64()).fill_null(float("nan")).to_numpy()
              for name in names}
    return table, scores


def _cell(summary: Mapping[str, Any] | None, percent: bool = True) -> str:
    if not summary or summary.get("mean") is None:
        return "–"
    scale = 100.0 if percent else 1.0
    digits = 1 if percent else 3
    text = f"{scale * summary['mean']:.{digits}f}"
    if summary.get("std") is not None:
        text += f" ± {scale * summary['std']:.{digits}f}"
    return text


def markdown_summary(report: Mapping[str, Any]) -> str:
    """The mean-over-seeds table: FPR/TPR in %, AUCs as fractions, "–" where undefined."""
    from halluscope.report.markdown import markdown_table

    means = report["mean"]
    subtypes = sorted({s for m in means.values() for s in m["na_fpr_by_subtype"]})
    header = (["detector", "NA FPR %"] + [f"{s} %" for s in subtypes]
              + ["halluc TPR %", "concrete FPR %", "AUC c-vs-h", "AUC NA abs-vs-pres"])
    rows = []
    for name, m in means.items():
        rows.append([name, _cell(m["na_fpr"])]
                    + [_cell(m["na_fpr_by_subtype"].get(s)) for s in subtypes]
                    + [_cell(m["halluc_tpr"]), _cell(m["concrete_fpr"]),
                       _cell(m["auc_concrete_vs_halluc"], percent=False),
                       _cell(m["auc_na_absent_vs_present"], percent=False)])
    seeds = ", ".join(str(s) for s in report["seeds"])
    counts = report["class_counts"]
    lines = [f"{report['n_mentions']} mentions of {report['n_images']} images "
             f"({', '.join(f'{k} {v}' for k, v in counts.items())}); seeds {seeds}; "
             "threshold flags 10% of calibration concrete mentions; mean ± sd over seeds.",
             "", markdown_table(header, rows)]
    notes = [f"- {note}" for note in report.get("notes", [])]
    notes += [f"- {name}: {note}" for name, m in means.items() for note in m["notes"]]
    if notes:
        lines += ["", "Notes:"] + notes
    return "\n".join(lines)
