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


def final_labels(labelled: Sequence[tuple[str, Sequence[str]]],
                 adjudicated: Mapping[str, str] | None = None) -> dict[str, str | None]:
    """Each item's audit label: the raters' majority (>= 2 agree), else the manual
    adjudication's label, else None (unadjudicated: never guessed).

    >>> final_labels([("A1", ["visual", "visual", "mixed"]), ("A2", ["visual", "mixed", "unclear"]),
    ...               ("A3", ["visual", "alignment", "unclear"])], {"A2": "mixed"})
    {'A1': 'visual', 'A2': 'mixed', 'A3': None}
    """
    out: dict[str, str | None] = {}
    for aid, labels in labelled:
        top = max(AUDIT_LABELS, key=list(labels).count)
        out[aid] = top if list(labels).count(top) >= 2 else (adjudicated or {}).get(aid)
    return out


def audit_classifier(rows: Sequence[Mapping[str, Any]], labels: Mapping[str, str | None],
                     seed: int = 0) -> list[dict[str, Any]]:
    """Table 31: predict the clear-source audit label (visual / language-prior / alignment)
    from c, raw (V, L, A), normalised (zV, zL, zA) and (V, L, A) + c; stratified-CV logistic
    regression, macro-F1, balanced accuracy and weighted one-vs-rest AUROC.

    `rows` are key rows (`audit_id`, v, l, a, zv, zl, za, c); items without a clear-source
    label are left out (the paper: 107 of 200).
    """
    from halluscope.prism.diagnosis import DiagRow, cross_validate

    clear = [r for r in rows if labels.get(r["audit_id"]) in SOURCE_LABELS]
    if len({labels[r["audit_id"]] for r in clear}) < 2:
        return []

    def diag(prefix: str) -> list[DiagRow]:
        return [DiagRow(r["audit_id"], str(r.get("model", "")), str(r.get("dataset", "")),
                        float(r["c"]), float(r[f"{prefix}v"]), float(r[f"{prefix}l"]),
                        float(r[f"{prefix}a"]), str(labels[r["audit_id"]])) for r in clear]

    out = []
    for name, prefix, features in (("c", "", ("c",)), ("VLA", "", ("vla",)),
                                   ("zVLA", "z", ("vla",)), ("VLA+c", "", ("vla", "c"))):
        res = cross_validate(diag(prefix), features, "lr", 5, seed, group_by_item=False)
        out.append({"features": name, "n": len(clear), "macro_f1": res["macro_f1"],
                    "balanced_accuracy": res["balanced_accuracy"], "auroc": res["auroc"],
                    "n_folds": res["n_folds"]})
    return out


def audit_report(labelled: Sequence[tuple[str, Sequence[str]]],
                 key: Mapping[str, Mapping[str, Any]] | None = None,
                 adjudicated: Mapping[str, str] | None = None, seed: int = 0) -> dict[str, Any]:
    """Tables 28-31 from the raters' labels, the audit key and the manual adjudication.

    >>> lab = [("A1", ["visual"] * 3), ("A2", ["alignment", "alignment", "mixed"])]
    >>> key = {"A1": {"dataset": "vsr", "dominant": "visual", "raw_dominant": "language_prior"},
    ...        "A2": {"dataset": "pope", "dominant": "visual", "raw_dominant": "language_prior"}}
    >>> r = audit_report(lab, key); [(t["dataset"], t["model_human_agreement"]) for t in r["table28"]]
    [('pope', 0.0), ('vsr', 1.0), ('All', 0.5)]

    Table 28 per dataset and overall: N, raw agreement (at least two raters agree, as the
    paper's "All" row equals Table 29's), Fleiss' kappa before adjudication, and model-human
    agreement after it (the normalised dominant source against the final label, on
    clear-source items). Table 29: agreement figures and the final label counts. Table 30: the
    final clear-source labels against the normalised and the raw dominant source. Table 31:
    `audit_classifier`. Items with no majority and no adjudication are counted, not labelled.
    """
    final = final_labels(labelled, adjudicated)
    report: dict[str, Any] = {**agreement_summary([x for _, x in labelled]),
                              "n_adjudicated": sum(1 for aid, x in labelled
                                                   if max(map(list(x).count, x)) < 2
                                                   and final[aid] is not None),
                              "n_unadjudicated": sum(1 for v in final.values() if v is None),
                              "label_counts": {k: sum(1 for v in final.values() if v == k)
                                               for k in AUDIT_LABELS}}
    if key is None:
        return report
    missing = [aid for aid, _ in labelled if aid not in key]
    if missing:
        raise ValueError(f"{len(missing)} audit ids are not in the key (first: {missing[0]})")
    rows = []
    datasets = sorted({str(key[aid].get("dataset", "")) for aid, _ in labelled})
    for ds in datasets + ["All"]:
        sub = [(aid, x) for aid, x in labelled if ds == "All" or key[aid].get("dataset") == ds]
        summary = agreement_summary([x for _, x in sub])
        clear = [aid for aid, _ in sub if final[aid] in SOURCE_LABELS]
        rows.append({"dataset": ds, "n": len(sub), "raw_agreement": summary["majority_agreement"],
                     "all_agree": summary["raw_agreement"], "fleiss_kappa": summary["kappa"],
                     "n_clear": len(clear),
                     "model_human_agreement": (sum(1 for aid in clear if key[aid]["dominant"]
                                                   == final[aid]) / len(clear)
                                               if clear else None)})
    report["table28"] = rows
    ids = [aid for aid, _ in labelled if final[aid] is not None]
    report["table30"] = {
        "normalised": confusion([final[a] for a in ids], [key[a]["dominant"] for a in ids]),
        "raw": confusion([final[a] for a in ids], [key[a].get("raw_dominant", "") for a in ids])}
    if all(all(f in key[a] and key[a][f] != "" for f in ("v", "l", "a", "zv", "zl", "za", "c"))
           for a in ids):
        report["table31"] = audit_classifier([{**key[a], "audit_id": a} for a in ids], final, seed)
    return report


#: Appendix 11: 140 of the 200 audited examples were originally incorrect.
PAPER_INCORRECT_SHARE = 0.7


def _round_robin(records: Sequence[Mapping[str, Any]], idx: Sequence[int], budget: int,
                 stratum_key: str, rng: random.Random) -> list[int]:
    """Up to `budget` of `idx`, as evenly as the strata allow, the rest from larger strata."""
    strata: dict[Any, list[int]] = {}
    for i in idx:
        strata.setdefault(records[i][stratum_key], []).append(i)
    pools = {k: rng.sample(v, len(v)) for k, v in sorted(strata.items(), key=lambda kv: str(kv[0]))}
    taken: list[int] = []
    budget = min(budget, len(idx))
    while len(taken) < budget:
        for k in pools:
            if pools[k] and len(taken) < budget:
                taken.append(pools[k].pop())
    return taken


def stratified_sample(records: Sequence[Mapping[str, Any]], per_group: int, seed: int = 0,
                      group_key: str = "dataset", stratum_key: str = "dominant",
                      incorrect_share: float | None = None) -> list[int]:
    """Indices of a seeded sample: `per_group` records from each group, split as evenly as the
    strata allow across its `stratum_key` values, shortfalls refilled from the other strata.

    >>> recs = [{"dataset": "d", "dominant": d} for d in "VVVVVVLA"]
    >>> sorted(recs[i]["dominant"] for i in stratified_sample(recs, 6, seed=1))
    ['A', 'L', 'V', 'V', 'V', 'V']
    >>> recs = [{"dataset": "d", "dominant": "V", "correct": i < 8} for i in range(12)]
    >>> sum(not recs[i]["correct"] for i in stratified_sample(recs, 5, incorrect_share=0.7))
    4

    With `incorrect_share` a group's budget is split between its originally incorrect and
    correct records first (round(share x budget) incorrect; a short side is filled from the
    other), each side stratified as above: the paper's audit mixes 140 incorrect with 60
    correct answers.
    """
    rng = random.Random(seed)
    chosen: list[int] = []
    groups: dict[Any, list[int]] = {}
    for i, r in enumerate(records):
        groups.setdefault(r[group_key], []).append(i)
    for g in sorted(groups, key=str):
        idx = groups[g]
        budget = min(per_group, len(idx))
        if incorrect_share is None:
            chosen += sorted(_round_robin(records, idx, budget, stratum_key, rng))
            continue
        wrong = [i for i in idx if not records[i]["correct"]]
        right = [i for i in idx if records[i]["correct"]]
        n_wrong = min(len(wrong), max(budget - len(right), round(incorrect_share * budget)))
        taken = _round_robin(records, wrong, n_wrong, stratum_key, rng)
        taken += _round_robin(records, right, budget - len(taken), stratum_key, rng)
        chosen += sorted(taken)
    return chosen


SHEET_FIELDS = ("audit_id", "dataset", "sample_id", "image_path", "text_input", "gold_answer",
                "model_answer", "correct", "rater_1", "rater_2", "rater_3", "notes")
KEY_FIELDS = ("audit_id", "model", "dataset", "sample_id", "correct", "dominant",
              "raw_dominant", "v", "l", "a", "c", "zv", "zl", "za", "normalised_on")
NORMALISATIONS = ("population", "sample")


def normalise(records: Sequence[dict[str, Any]]) -> None:
    """Set `zv`, `zl`, `za` (z-scores within model x dataset over `records`) and `dominant`
    (the largest of them, `routing.normalized_dominance`) on every record, in place.

    >>> recs = [{"model": "m", "dataset": "d", "v": v, "l": 1.0, "a": 0.5} for v in (0.1, 0.3)]
    >>> normalise(recs); [r["dominant"] for r in recs], round(recs[1]["zv"], 6)
    (['language_prior', 'visual'], 1.0)

    (The first record's zL and zA tie at 0: the earlier coordinate wins, as in routing.)
    """
    from halluscope.prism.routing import SOURCES, normalized_dominance, zscores

    groups: dict[tuple[Any, Any], list[int]] = {}
    for i, r in enumerate(records):
        groups.setdefault((r["model"], r["dataset"]), []).append(i)
    for idx in groups.values():
        for coord in ("v", "l", "a"):
            for i, z in zip(idx, zscores([records[i][coord] for i in idx])):
                records[i][f"z{coord}"] = z
    dom = normalized_dominance([(r["model"], r["dataset"], r["v"], r["l"], r["a"])
                                for r in records])
    for r, k in zip(records, dom):
        r["dominant"] = SOURCES[k]


def audit_tables(records: Sequence[Mapping[str, Any]], per_group: int = 50, seed: int = 0,
                 group_key: str = "dataset", incorrect_share: float | None = PAPER_INCORRECT_SHARE,
                 normalised_on: str = "population"
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(blind sheet rows, key rows) for a stratified sample; order shuffled (seeded) so the
    sheet reveals neither model nor stratum by position. Model names stay in the key only.

    >>> recs = [{"model": "m", "dataset": "d", "sample_id": f"s{i}", "dominant": "visual",
    ...          "correct": False, "v": 0.1, "l": 0.9, "a": 0.2, "c": 0.8} for i in range(3)]
    >>> sheet, key = audit_tables(recs, 2)
    >>> len(sheet), "dominant" in sheet[0], key[0]["dominant"]
    (2, False, 'visual')

    The paper's defaults: 50 per dataset, 70% originally incorrect, stratified by the
    normalised dominant source z-scored on the whole population. `normalised_on="sample"`
    z-scores the key's (zV, zL, zA) and dominant source again within the drawn sample (the
    sampling itself always uses the population's).
    """
    if normalised_on not in NORMALISATIONS:
        raise ValueError(f"normalised_on must be one of {NORMALISATIONS}, not {normalised_on!r}")
    idx = stratified_sample(records, per_group, seed, group_key, incorrect_share=incorrect_share)
    random.Random(seed + 1).shuffle(idx)
    drawn = [dict(records[i]) for i in idx]
    if normalised_on == "sample":
        normalise(drawn)
    sheet, key = [], []
    for n, r in enumerate(drawn, 1):
        aid = f"A{n:04d}"
        sheet.append({f: r.get(f, "") for f in SHEET_FIELDS} | {"audit_id": aid,
                     "rater_1": "", "rater_2": "", "rater_3": "", "notes": ""})
        key.append({f: r.get(f, "") for f in KEY_FIELDS} | {"audit_id": aid,
                                                            "normalised_on": normalised_on})
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
    """Decomposition rows as audit records with their raw and normalised dominant source and
    (zV, zL, zA) over the whole population (`normalise`)."""
    from halluscope.prism.analysis import dominant_index
    from halluscope.prism.results import decomposition_row, discover, read_rows
    from halluscope.prism.routing import SOURCES

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
                         "correct": d.correct, "v": d.v, "l": d.l, "a": d.a, "c": d.confidence,
                         "raw_dominant": SOURCES[dominant_index((d.v, d.l, d.a))]})
    normalise(recs)
    return recs
