"""The paper's detector experiments as tables: Tables 4, 5, 7 and 13, from per-seed scores.

>>> t = make_table("t", "A table", ["detector", "FPR %"], [{"detector": "nll",
...     "FPR %": {"mean": 0.25, "std": None, "n_seeds": 1}, "notes": []}], percent=["FPR %"])
>>> from halluscope.report.tables import table_markdown
>>> print(table_markdown(t))
**A table**
<BLANKLINE>
| detector | FPR % |
|---|---|
| nll | 25.0 |

Why budget 0 is scored here and not by the runner: Tables 7 and 13 and the score plot need
per-mention scores, which `runner.run_protocol` does not return. `score_as_published` repeats
the runner's budget-0 step exactly (same canonical row order, splits, fit rows, labels and
detector seeds; `evaluate_seed` on the result), and the runner runs only the mixing budgets, so
nothing is trained twice. A test checks that both give the same budget-0 metrics.

Tables hold metric cells as {"mean", "std", "n_seeds"} (fractions; None where undefined, with
the reason in the row's notes) and plain cells as strings or integers; `report.tables` renders
them (Markdown in %, CSV as fractions with a `_sd` column).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from halluscope.bench.protocol import (MentionTable, auc, empty_result, evaluate_seed,
                                       split_codes)

Cell = Any  # str | int | {"mean", "std", "n_seeds"} | None


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
    from halluscope.detectors import get_detector
    from halluscope.errors import HalluscopeError

    keys = table.mention_keys().astype(str)
    if len(keys) > 1 and not (keys[:-1] <= keys[1:]).all():
        raise ValueError("table rows are not sorted by mention key (the runner's order)")
    say = progress or (lambda message: None)
    timings = timings if timings is not None else {}
    fixed: dict[str, np.ndarray | str] = {}
    out = []
    for seed in seeds:
        codes = split_codes(table.image_id, seed)
        rows = np.flatnonzero((codes == 0) & (table.label != "non_assertive"))
        y = (table.label[rows] == "hallucinated").astype(np.int64)
        scored = np.flatnonzero(codes != 0)
        scores: dict[str, np.ndarray | str] = {}
        for name, options in detectors.items():
            detector = get_detector(name, **options)
            start = time.perf_counter()
            if not detector.trained:
                if name not in fixed:  # seed-independent: score once
                    try:
                        fixed[name] = _score(detector, features, np.arange(len(table)))
                    except HalluscopeError as exc:
                        fixed[name] = str(exc)
                scores[name] = fixed[name]
            else:
                if hasattr(detector, "seed"):
                    detector.seed = int(seed)
                say(f"seed {seed} budget 0: fitting {name} on {len(rows)} mentions")
                try:
                    detector.fit(_take(features, detector.columns, rows), y)
                    values = np.zeros(len(table))
                    values[scored] = _score(detector, features, scored)
                    scores[name] = values
                except HalluscopeError as exc:
                    scores[name] = str(exc)
            timings[name] = timings.get(name, 0.0) + time.perf_counter() - start
        results = {name: (empty_result(s) if isinstance(s, str) else evaluate_seed(s, table, codes))
                   for name, s in scores.items()}
        out.append(SeedScores(int(seed), codes, scores, results))
    return out


def _take(features: Mapping[str, np.ndarray], columns: Sequence[str], rows: np.ndarray
          ) -> dict[str, np.ndarray]:
    return {c: np.asarray(features[c])[rows] for c in columns if c in features}


def _score(detector: Any, features: Mapping[str, np.ndarray], rows: np.ndarray,
           chunk: int = 4096) -> np.ndarray:
    # Chunked like the runner, so large feature copies stay bounded.
    parts = [np.asarray(detector.score(_take(features, detector.columns, rows[i:i + chunk])),
                        dtype=np.float64) for i in range(0, len(rows), chunk)]
    return np.concatenate(parts) if parts else np.zeros(0)


# --- table containers and rendering ------------------------------------------------------------

def make_table(name: str, title: str, columns: Sequence[str], rows: Sequence[Mapping[str, Any]],
               notes: Sequence[str] = (), percent: Sequence[str] = (),
               description: str = "") -> dict[str, Any]:
    """A table as plain JSON: columns, rows ({column: cell, "notes": [...]}) and notes."""
    return {"name": name, "title": title, "description": description, "columns": list(columns),
            "percent": list(percent), "rows": [dict(r) for r in rows], "notes": list(notes)}


# --- Table 4: as published ---------------------------------------------------------------------

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


def table4(summaries: Mapping[str, Mapping[str, Any]], subtypes: Sequence[str]
           ) -> dict[str, Any]:
    """Non-assertive FPR per subtype per detector without non-assertive training, plus TPR."""
    order = {"trained": 0, "training-free": 1, "reference": 2}
    columns = (["detector", "group", "NA FPR %"] + [f"{s} %" for s in subtypes]
               + ["halluc TPR %", "concrete FPR %", "AUC c-vs-h"])
    rows = []
    for name, m in sorted(summaries.items(), key=lambda kv: (order[detector_group(kv[0])], kv[0])):
        row: dict[str, Any] = {"detector": name, "group": detector_group(name),
                               "NA FPR %": m["na_fpr"], "halluc TPR %": m["halluc_tpr"],
                               "concrete FPR %": m["concrete_fpr"],
                               "AUC c-vs-h": m["auc_concrete_vs_halluc"], "notes": m["notes"]}
        for s in subtypes:
            row[f"{s} %"] = m["na_fpr_by_subtype"].get(s)
        rows.append(row)
    percent = [c for c in columns if c.endswith("%")]
    return make_table("table4", "Table 4: non-assertive FPR without non-assertive training",
                      columns, rows, percent=percent, description=(
                          "Held-out mentions flagged at the threshold that flags 10% of the "
                          "calibration concrete mentions; mean ± sd over seeds."))


# --- Table 5: mixing budgets --------------------------------------------------------------------

def table5(mean: Mapping[str, Mapping[str, Mapping[str, Any]]],
           per_seed_budgets: Sequence[Mapping[str, Mapping[str, Any]]], budgets: Sequence[str],
           trained: Sequence[str]) -> dict[str, Any]:
    """FPR and TPR per budget per trained detector; `n mixed` rows; capped budgets as notes.

    `mean[budget][detector]` are seed summaries; `per_seed_budgets[i][budget]` has `n_mixed` and
    `notes` (the runner's per-seed budget entries; budget 0 mixes nothing).
    """
    columns = ["detector", "metric"] + list(budgets)
    rows: list[dict[str, Any]] = []
    mixed_row: dict[str, Any] = {"detector": "(all)", "metric": "n mixed (mean over seeds)",
                                 "notes": []}
    notes: list[str] = []
    for b in budgets:
        counts = [int(s.get(b, {}).get("n_mixed", 0)) for s in per_seed_budgets]
        mixed_row[b] = f"{np.mean(counts):.1f}" if counts else "0"
        for i, s in enumerate(per_seed_budgets):
            notes += [f"seed {i}: {n}" for n in s.get(b, {}).get("notes", [])]
    for name in trained:
        for metric, label in (("na_fpr", "NA FPR %"), ("halluc_tpr", "halluc TPR %")):
            row: dict[str, Any] = {"detector": name, "metric": label}
            by_note: dict[str, list[str]] = {}  # one note per text, naming its budgets
            for b in budgets:
                m = mean.get(b, {}).get(name)
                row[b] = m[metric] if m is not None else None
                if m is not None and m[metric].get("mean") is None:
                    for n in m["notes"]:
                        by_note.setdefault(n, []).append(b)
            row["notes"] = [f"budget {', '.join(bs)}: {n}" for n, bs in sorted(by_note.items())]
            rows.append(row)
    if per_seed_budgets and all(int(s.get(b, {}).get("n_mixed", 0)) == 0
                                for s in per_seed_budgets for b in budgets):
        notes.append("no non-assertive mentions in any fit set: every budget trains on the same "
                     "data as budget 0")
    if not trained:
        notes.append("no trained detector ran: nothing to mix")
    return make_table("table5", "Table 5: mixing budgets (trained detectors)", columns,
                      [mixed_row] + rows, notes=sorted(set(notes), key=notes.index),
                      percent=list(budgets), description=(
                          "Budget: non-assertive training examples as % of the fit set's "
                          "hallucinations; nat = natural share; max = all available."))


# --- Table 7: absent vs present among non-assertive ----------------------------------------------

def mean_std(values: Sequence[float | None]) -> dict[str, Any]:
    """Mean and sample sd (ddof=1) over the seeds where a value is defined, as in the protocol.

    >>> mean_std([0.2, None, 0.4])["n_seeds"], mean_std([None])["mean"]
    (2, None)
    """
    kept = [float(v) for v in values if v is not None]
    if not kept:
        return {"mean": None, "std": None, "n_seeds": 0}
    std = float(np.std(kept, ddof=1)) if len(kept) > 1 else None
    return {"mean": float(np.mean(kept)), "std": std, "n_seeds": len(kept)}


def _flag_rate(flags: np.ndarray) -> float | None:
    return float(flags.mean()) if len(flags) else None


def table7(seeds: Sequence[SeedScores], table: MentionTable, detectors: Sequence[str],
           subtypes: Sequence[str]) -> dict[str, Any]:
    """Held-out non-assertive mentions flagged when the object is absent / present, and the AUC
    (absent = positive), per detector and subtype ("all" first), budget 0, mean over seeds."""
    columns = ["detector", "subtype", "absent %", "present %", "n absent", "n present",
               "AUC abs-vs-pres"]
    rows = []
    notes: list[str] = []
    if table.present is None:
        notes.append("no presence column: Table 7 not computed")
        detectors = []
    for name in detectors:
        for sub in ["all", *subtypes]:
            per_seed: dict[str, list[float | None]] = {"abs": [], "pres": [], "auc": []}
            n_abs, n_pres, row_notes = [], [], set()
            for s in seeds:
                result = s.results.get(name)
                score = s.scores.get(name)
                if result is None or result["threshold"] is None or isinstance(score, str):
                    row_notes.update(result["notes"] if result else ["not run"])
                    continue
                na = (s.codes == 2) & (table.label == "non_assertive")
                if sub != "all":
                    na &= table.subtype == sub
                absent, present = na & ~table.present, na & table.present
                flags = score > result["threshold"]
                per_seed["abs"].append(_flag_rate(flags[absent]))
                per_seed["pres"].append(_flag_rate(flags[present]))
                per_seed["auc"].append(auc(score[absent], score[present]))
                n_abs.append(int(absent.sum()))
                n_pres.append(int(present.sum()))
            if n_abs and not sum(n_abs):
                row_notes.add("no held-out absent mentions")
            if n_pres and not sum(n_pres):
                row_notes.add("no held-out present mentions")
            rows.append({"detector": name, "subtype": sub,
                         "absent %": mean_std(per_seed["abs"]),
                         "present %": mean_std(per_seed["pres"]),
                         "n absent": f"{np.mean(n_abs):.1f}" if n_abs else "0",
                         "n present": f"{np.mean(n_pres):.1f}" if n_pres else "0",
                         "AUC abs-vs-pres": mean_std(per_seed["auc"]),
                         "notes": sorted(row_notes)})
    return make_table("table7", "Table 7: non-assertive mentions flagged, object absent vs present",
                      columns, rows, notes=notes, percent=["absent %", "present %"],
                      description="Budget 0 (no non-assertive training); n: held-out mentions "
                                  "per seed (mean).")


# --- Table 13: position-matched AUC --------------------------------------------------------------

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
    """Concrete-vs-hallucinated AUC on all held-out mentions and on a position-matched subset."""
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
                     "matched pairs": f"{np.mean(pairs):.1f}" if pairs else "0",
                     "notes": sorted(row_notes)})
    return make_table("table13", "Table 13: concrete-vs-hallucinated AUC, all vs position-matched",
                      columns, rows, notes=notes,
                      description="Budget 0; matched pairs: per seed (mean).")


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
