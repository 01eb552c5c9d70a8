"""Human-audit kit (HalluPrism Appendix 11): stratified blind sample sheet, Fleiss' kappa,
audit labels vs normalised dominance.

>>> round(fleiss_kappa_counts(WIKIPEDIA_EXAMPLE), 3)
0.21

The sheet is stratified by group (model by default) x normalised dominant source; a stratum
short of items gives all it has and the rest of the group's budget is filled from the other
strata (Appendix 11.2). Annotators must not see the signature: the sheet holds only what they
may see, and a separate key file maps `audit_id` to the dominant source and (V, L, A).
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

#: The six audit labels (Table 39); the first three are the clear-source labels.
AUDIT_LABELS = ("visual", "language_prior", "alignment", "mixed", "unclear", "no_failure")
SOURCE_LABELS = AUDIT_LABELS[:3]

#: Fleiss (1971) as worked on Wikipedia's "Fleiss' kappa" page: 10 subjects, 14 raters,
#: 5 categories; kappa = 0.210.
WIKIPEDIA_EXAMPLE = (
    (0, 0, 0, 0, 14), (0, 2, 6, 4, 2), (0, 0, 3, 5, 6), (0, 3, 9, 2, 0), (2, 2, 8, 1, 1),
    (7, 7, 0, 0, 0), (3, 2, 6, 3, 0), (2, 5, 3, 2, 2), (6, 5, 2, 1, 0), (0, 2, 2, 3, 7))


def fleiss_kappa_counts(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa from a subjects x categories table of rater counts (equal raters per row).

    >>> fleiss_kappa_counts([[3, 0], [0, 3]])
    1.0
    >>> fleiss_kappa_counts([[3, 0], [3, 0]]) is None
    True

    None when chance agreement is 1 (every rating in one category): kappa is undefined there.
    """
    n_sub = len(counts)
    raters = sum(counts[0])
    if n_sub == 0 or raters < 2 or any(sum(row) != raters for row in counts):
        raise ValueError("every subject needs the same number (>= 2) of ratings")
    total = n_sub * raters
    p_j = [sum(row[j] for row in counts) / total for j in range(len(counts[0]))]
    p_i = [(sum(c * c for c in row) - raters) / (raters * (raters - 1)) for row in counts]
    p_bar = sum(p_i) / n_sub
    p_e = sum(p * p for p in p_j)
    if p_e >= 1.0 - 1e-12:
        return None
    return (p_bar - p_e) / (1.0 - p_e)


def fleiss_kappa(ratings: Sequence[Sequence[str]],
                 categories: Sequence[str] | None = None) -> float | None:
    """Fleiss' kappa from one list of labels per subject (one label per rater).

    >>> round(fleiss_kappa([["a", "a", "b"], ["b", "b", "b"], ["a", "b", "a"]]), 3)
    0.1
    """
    cats = list(categories) if categories else sorted({x for row in ratings for x in row})
    return fleiss_kappa_counts([[row.count(c) for c in cats] for row in ratings])


def collapse_source(label: str) -> str:
    """Source vs non-source, for the collapsed kappa (Appendix 11).

    >>> collapse_source("alignment"), collapse_source("mixed")
    ('source', 'non_source')
    """
    return "source" if label in SOURCE_LABELS else "non_source"


def agreement_summary(ratings: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Full-label and collapsed Fleiss' kappa, all-rater and >= 2-rater agreement.

    >>> s = agreement_summary([["visual", "visual", "visual"], ["mixed", "alignment", "mixed"]])
    >>> s["raw_agreement"], s["majority_agreement"], round(s["kappa_collapsed"], 6)
    (0.5, 1.0, 0.25)
    """
    n = len(ratings)
    return {"n": n, "n_raters": len(ratings[0]) if ratings else 0,
            "kappa": fleiss_kappa(ratings, AUDIT_LABELS),
            "kappa_collapsed": fleiss_kappa([[collapse_source(x) for x in r] for r in ratings],
                                            ("source", "non_source")),
            "raw_agreement": sum(1 for r in ratings if len(set(r)) == 1) / n if n else None,
            "majority_agreement": (sum(1 for r in ratings if max(r.count(x) for x in r) >= 2) / n
                                   if n else None)}


def confusion(human: Sequence[str], predicted: Sequence[str],
              labels: Sequence[str] = SOURCE_LABELS) -> dict[str, Any]:
    """Confusion matrix (rows: human label, columns: normalised dominant source) on clear-source
    cases, with accuracy, macro-F1 and Cohen's kappa; other human labels are counted aside.

    >>> c = confusion(["visual", "alignment", "mixed"], ["visual", "language_prior", "alignment"])
    >>> c["matrix"], c["n_clear"], c["accuracy"], c["n_non_source"]
    ([[1, 0, 0], [0, 0, 0], [0, 1, 0]], 2, 0.5, {'mixed': 1})
    """
    lab = list(labels)
    m = [[0] * len(lab) for _ in lab]
    aside: dict[str, int] = {}
    for h, p in zip(human, predicted):
        if h not in lab:
            aside[h] = aside.get(h, 0) + 1
            continue
        m[lab.index(h)][lab.index(p)] += 1
    n = sum(map(sum, m))
    diag = sum(m[i][i] for i in range(len(lab)))
    f1s = []
    for i in range(len(lab)):
        tp, row, col = m[i][i], sum(m[i]), sum(m[j][i] for j in range(len(lab)))
        if row + col:
            f1s.append(2 * tp / (row + col))
    p_o = diag / n if n else None
    p_e = sum(sum(m[i]) * sum(m[j][i] for j in range(len(lab))) for i in range(len(lab))) / n**2 \
        if n else None
    kappa = ((p_o - p_e) / (1 - p_e)) if n and p_e < 1 else None
    return {"labels": lab, "matrix": m, "n_clear": n, "accuracy": p_o,
            "macro_f1": sum(f1s) / len(f1s) if f1s else None, "cohen_kappa": kappa,
            "n_non_source": aside}


def stratified_sample(records: Sequence[Mapping[str, Any]], per_group: int, seed: int = 0,
                      group_key: str = "model", stratum_key: str = "dominant") -> list[int]:
    """Indices of a seeded sample: `per_group` records from each group, split as evenly as the
    strata allow across its `stratum_key` values, shortfalls refilled from the other strata.

    >>> recs = [{"model": "m", "dominant": d} for d in "VVVVVVLA"]
    >>> sorted(recs[i]["dominant"] for i in stratified_sample(recs, 6, seed=1))
    ['A', 'L', 'V', 'V', 'V', 'V']
    """
    rng = random.Random(seed)
    chosen: list[int] = []
    groups: dict[Any, list[int]] = {}
    for i, r in enumerate(records):
        groups.setdefault(r[group_key], []).append(i)
    for g in sorted(groups, key=str):
        strata: dict[Any, list[int]] = {}
        for i in groups[g]:
            strata.setdefault(records[i][stratum_key], []).append(i)
        pools = {k: rng.sample(v, len(v)) for k, v in sorted(strata.items(), key=lambda kv: str(kv[0]))}
        budget = min(per_group, len(groups[g]))
        taken: list[int] = []
        # Round-robin over strata: equal shares where possible, the rest from larger strata.
        while len(taken) < budget:
            for k in pools:
                if pools[k] and len(taken) < budget:
                    taken.append(pools[k].pop())
        chosen += sorted(taken)
    return chosen


SHEET_FIELDS = ("audit_id", "dataset", "sample_id", "image_path", "text_input", "gold_answer",
                "model_answer", "correct", "rater_1", "rater_2", "rater_3", "notes")
KEY_FIELDS = ("audit_id", "model", "dataset", "sample_id", "dominant", "v", "l", "a", "c")


def audit_tables(records: Sequence[Mapping[str, Any]], per_group: int, seed: int = 0,
                 group_key: str = "model") -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(blind sheet rows, key rows) for a stratified sample; order shuffled (seeded) so the
    sheet reveals neither model nor stratum by position. Model names stay in the key only.

    >>> recs = [{"model": "m", "dataset": "d", "sample_id": f"s{i}", "dominant": "visual",
    ...          "v": 0.1, "l": 0.9, "a": 0.2, "c": 0.8} for i in range(3)]
    >>> sheet, key = audit_tables(recs, 2)
    >>> len(sheet), "dominant" in sheet[0], key[0]["dominant"]
    (2, False, 'visual')
    """
    idx = stratified_sample(records, per_group, seed, group_key)
    random.Random(seed + 1).shuffle(idx)
    sheet, key = [], []
    for n, i in enumerate(idx, 1):
        r = records[i]
        aid = f"A{n:04d}"
        sheet.append({f: r.get(f, "") for f in SHEET_FIELDS} | {"audit_id": aid,
                     "rater_1": "", "rater_2": "", "rater_3": "", "notes": ""})
        key.append({f: r.get(f, "") for f in KEY_FIELDS} | {"audit_id": aid})
    return sheet, key


def to_csv(rows: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> str:
    """CSV text with a header row.

    >>> to_csv([{"a": 1, "b": "x,y"}], ("a", "b")).splitlines()
    ['a,b', '1,"x,y"']
    """
    import csv
    import io

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(fields), extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def load_audit_records(results_dir: Any) -> list[dict[str, Any]]:
    """Decomposition rows as audit records with the normalised dominant source."""
    from halluscope.prism.results import decomposition_row, discover, read_rows
    from halluscope.prism.routing import SOURCES, normalized_dominance

    recs: list[dict[str, Any]] = []
    for model, dataset, path in discover(results_dir):
        raw, _ = read_rows(path)
        for line, row in raw:
            d = decomposition_row(row, path, line)
            recs.append({"model": model, "dataset": dataset, "sample_id": d.sample_id,
                         "image_path": row.get("image_path", ""),
                         "text_input": row.get("text_input", ""),
                         "gold_answer": row.get("gold_answer", ""),
                         "model_answer": row.get("model_prediction", ""),
                         "correct": d.correct, "v": d.v, "l": d.l, "a": d.a, "c": d.confidence})
    dom = normalized_dominance([(r["model"], r["dataset"], r["v"], r["l"], r["a"]) for r in recs])
    for r, k in zip(recs, dom):
        r["dominant"] = SOURCES[k]
    return recs
