"""HalluPrism analyses: diagnosis (planted signal, grouped CV), routing, audit kit, entanglement."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from halluscope.prism.audit import (WIKIPEDIA_EXAMPLE, agreement_summary, audit_tables,
                                    confusion, fleiss_kappa, fleiss_kappa_counts)
from halluscope.prism.diagnosis import DiagRow, cross_validate, cv_splits, diagnose
from halluscope.prism.entanglement import entanglement_table, mean_deltas
from halluscope.prism.routing import (INTERVENTIONS, RouteItem, compare_policies,
                                      normalized_dominance, score_policy)

REF = Path("/work/shared/data/halluprism_reference")


def planted_rows(n_items: int = 150, seed: int = 0) -> list[DiagRow]:
    """Three models answer the same items; the family is a function of (V, A), c is noise."""
    rng = random.Random(seed)
    rows = []
    for i in range(n_items):
        dataset = "d1" if i % 2 else "d2"
        for model in ("m1", "m2", "m3"):
            v, l, a = rng.random(), 0.9 + 0.1 * rng.random(), rng.random()
            label = "none" if v + a < 0.8 else ("visual_fam" if v > a else "align_fam")
            rows.append(DiagRow(f"item{i}", model, dataset, rng.random(), v, l, a, label))
    return rows


def test_planted_signal_beats_baselines():
    rows = planted_rows()
    fs = {"c": ("c",), "vla": ("vla",), "dataset_id": ("dataset_id",),
          "model_id": ("model_id",)}
    report = diagnose(rows, ("lr", "xgboost", "lightgbm"), fs, n_splits=5, seed=0,
                      within_dataset=False, leave_out=())
    by = {(e["classifier"], e["features"]): e for e in report["pooled"]}
    for clf in ("lr", "xgboost", "lightgbm"):
        sig = by[(clf, "vla")]
        assert sig["auroc"] > 0.9 and sig["macro_f1"] > 0.7
        for base in ("c", "dataset_id", "model_id"):
            assert sig["auroc"] > by[(clf, base)]["auroc"] + 0.2
    # Tree importances put the planted coordinates (V, A) above the irrelevant L.
    imp = by[("xgboost", "vla")]["importances"]
    assert min(imp["v"], imp["a"]) > imp["l"]


def benchmark_rows(n_items: int = 120, seed: int = 1) -> list[DiagRow]:
    """Rows shaped like the paper's suite: POPE and VSR with one family each, HallusionBench
    with two (attribute when V is high); an item is wrong when A is high; the L variants are
    L_conf's with the answer-match gate (so they differ)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n_items):
        dataset = ("pope", "vsr", "hallusionbench")[i % 3]
        family = {"pope": "object_hallucination", "vsr": "spatial"}.get(dataset)
        for model in ("m1", "m2"):
            v, a = 0.8 * rng.random(), 0.8 * rng.random()
            l, c = 0.9 + 0.1 * rng.random(), rng.random()
            fam = family or ("attribute" if v > 0.4 else "object_hallucination")
            match = rng.random() < 0.5
            rows.append(DiagRow(f"{dataset}{i}", model, dataset, c, v, l, a, "", fam, a < 0.5,
                                (("l_persist", l * match), ("l_match", float(match)),
                                 ("l_stable", l * match))))
    return rows


def test_paper_controls_on_a_benchmark_shaped_suite():
    from halluscope.prism.diagnosis import with_target

    rows = with_target(benchmark_rows(), "outcome")
    report = diagnose(rows, ("lr", "lightgbm"), n_splits=3, seed=0)
    # Tables 23-24: both targets, both protocols, the five identity rows, LightGBM.
    ctl = {(e["target"], e["protocol"], e["features"]): e for e in report["controls"]}
    assert len(ctl) == 2 * 2 * 5 and {e["classifier"] for e in report["controls"]} == {"lightgbm"}
    # The raw family of POPE and VSR is their dataset: dataset ID alone separates those two,
    # and adding V (which sets HallusionBench's family) separates the third.
    assert ctl[("raw", "grouped_cv", "D+M+VLA")]["auroc"] > 0.95
    assert ctl[("raw", "grouped_cv", "D+M+VLA")]["macro_f1"] > \
        ctl[("raw", "grouped_cv", "D")]["macro_f1"] + 0.15
    # Outcome: wrongness is A's, so the signature beats the identities.
    assert ctl[("outcome", "stratified_holdout", "D+M+VLA")]["auroc"] > \
        ctl[("outcome", "stratified_holdout", "D+M")]["auroc"] + 0.2
    # Table 10: L is dominant for every row under L_conf (the largest by construction) and
    # for about half under the answer-match gate.
    share = {e["variant"]: e["l_dominant_share"] for e in report["l_variants"]}
    assert share["l_conf"] == 1.0 and 0.3 < share["l_match"] < 0.7
    # Table 11: the no-VSR scope drops VSR's rows.
    scopes = {(e["scope"], e["features"]): e["n"] for e in report["alignment_control"]}
    assert scopes[("all", "VLA")] == 240 and scopes[("no_vsr", "VLA")] == 160
    # Table 25: HallusionBench is diagnosed on its two raw families, the others on outcome.
    targets = {e["dataset"]: e["target"] for e in report["within_dataset"]}
    assert targets == {"hallusionbench": "raw", "pope": "outcome", "vsr": "outcome"}
    hb = {(e["classifier"], e["features"]): e for e in report["within_dataset"]
          if e["dataset"] == "hallusionbench"}
    assert hb[("lr", "M+VLA")]["auroc"] > hb[("lr", "M+c")]["auroc"] + 0.3
    # Table 26: wrong vs right, each dataset and each model held out once per set.
    fd = report["failure_detection"]
    assert {e["held_out"] for e in fd["leave_one_dataset_out"]} == {"pope", "vsr",
                                                                    "hallusionbench"}
    assert {e["held_out"] for e in fd["leave_one_model_out"]} == {"m1", "m2"}
    assert all(e["auroc"] > 0.9 for e in fd["leave_one_model_out"] if e["features"] == "M+VLA")


def test_grouped_cv_never_leaks_items():
    rows = planted_rows(60)
    labels = sorted({r.label for r in rows})
    folds = cv_splits([labels.index(r.label) for r in rows], [r.item_id for r in rows], 5, 3)
    seen_test = set()
    for train, test in folds:
        train_items = {rows[i].item_id for i in train}
        test_items = {rows[i].item_id for i in test}
        assert not train_items & test_items
        seen_test |= test_items
    assert seen_test == {r.item_id for r in rows}


def test_diagnosis_is_deterministic_with_seed():
    rows = planted_rows(60)
    for clf in ("lr", "xgboost", "lightgbm"):
        a = cross_validate(rows, ("vla", "c"), clf, seed=7)
        b = cross_validate(rows, ("vla", "c"), clf, seed=7)
        assert a == b


def test_fleiss_kappa_wikipedia_case():
    assert fleiss_kappa_counts(WIKIPEDIA_EXAMPLE) == pytest.approx(0.2099, abs=5e-4)
    # Same data given as label lists.
    cats = "abcde"
    ratings = [[c for c, k in zip(cats, row) for _ in range(k)] for row in WIKIPEDIA_EXAMPLE]
    assert fleiss_kappa(ratings, cats) == pytest.approx(fleiss_kappa_counts(WIKIPEDIA_EXAMPLE))
    s = agreement_summary([["visual"] * 3, ["mixed", "alignment", "unclear"]])
    assert s["raw_agreement"] == 0.5 and s["majority_agreement"] == 0.5


def test_confusion_against_dominance():
    c = confusion(["visual", "visual", "alignment", "no_failure"],
                  ["visual", "alignment", "alignment", "visual"])
    assert c["matrix"] == [[1, 0, 1], [0, 0, 0], [0, 0, 1]]
    assert c["accuracy"] == pytest.approx(2 / 3) and c["n_non_source"] == {"no_failure": 1}


def test_normalized_dominance_is_per_model_dataset():
    # L is saturated everywhere: raw argmax would always say L; z-scores do not.
    rows = [("m", "d", 0.1, 0.99, 0.2), ("m", "d", 0.5, 0.99, 0.2), ("m", "d", 0.1, 0.99, 0.9),
            ("n", "d", 0.9, 0.98, 0.9), ("n", "d", 0.9, 0.99, 0.9)]
    # Row 0: V and A below their means, L constant (z = 0) -> L; group n: V, A constant.
    assert normalized_dominance(rows) == [1, 0, 2, 0, 1]


def test_routing_arithmetic_hand_table():
    full = lambda v: dict.fromkeys(INTERVENTIONS, v)  # noqa: E731
    items = [
        RouteItem("a", "m", "d", False, True, {**full(False), "visual_enhance": True}),
        RouteItem("b", "m", "d", True, False, full(True)),
        RouteItem("c", "m", "d", True, False, {**full(True), "cot_grounding": False}),
        RouteItem("d", "m", "d", False, False, full(False)),
    ]
    res = compare_policies(items, [0, 1, 1, 2], seed=0)
    assert res["none"]["acc"] == 0.5 and res["none"]["net"] == 0.0
    g = res["generic"]
    assert (g["acc"], g["fix_rate"], g["break_rate"], g["net"]) == (0.25, 0.5, 1.0, -0.25)
    m = res["matched"]
    assert (m["acc"], m["fix_rate"], m["break_rate"], m["net"]) == (0.75, 0.5, 0.0, 0.25)
    assert res["matched_counts"] == {"visual_enhance": 1, "anti_prior_prompt": 2,
                                     "cot_grounding": 1}
    assert compare_policies(items, [0, 1, 1, 2], seed=5) == compare_policies(items, [0, 1, 1, 2],
                                                                               seed=5)
    # Missing outcomes are left out, not counted as wrong.
    partial = score_policy([RouteItem("x", "m", "d", True, True, {})], ["cot_grounding"])
    assert partial["n_evaluable"] == 0 and partial["acc"] is None


def test_audit_sheet_is_blind_stratified_and_seeded():
    rng = random.Random(0)
    recs = [{"model": m, "dataset": "d", "sample_id": f"{m}{i}", "dominant": dom,
             "v": rng.random(), "l": 1.0, "a": 0.5, "c": 0.9}
            for m in ("m1", "m2") for i, dom in enumerate(["visual"] * 30 + ["alignment"] * 3
                                                          + ["language_prior"] * 10)]
    sheet, key = audit_tables(recs, 12, seed=4, group_key="model", incorrect_share=None)
    assert len(sheet) == 24 and not {"dominant", "v", "model"} & set(sheet[0])
    per = [k for k in key if k["model"] == "m1"]
    assert sum(k["dominant"] == "alignment" for k in per) == 3  # short stratum: all of it
    # The 3 missing slots are refilled round-robin from the other strata.
    assert sorted(k["dominant"] for k in per).count("visual") == 4
    assert sum(k["dominant"] == "language_prior" for k in per) == 5
    assert audit_tables(recs, 12, seed=4, group_key="model", incorrect_share=None) == (sheet, key)


def test_audit_defaults_mix_incorrect_answers_and_adjudication_fills_ties():
    from halluscope.prism.audit import audit_report, normalise

    rng = random.Random(2)
    recs = [{"model": m, "dataset": ds, "sample_id": f"{ds}{m}{i}", "correct": rng.random() < 0.6,
             "v": rng.random(), "l": 0.9 + 0.1 * rng.random(), "a": rng.random(),
             "c": rng.random(), "raw_dominant": "language_prior"}
            for ds in ("pope", "vsr") for m in ("m1", "m2") for i in range(60)]
    normalise(recs)
    sheet, key = audit_tables(recs, 50, seed=1)
    # The paper's plan: 50 per dataset, 35 of them (70%) originally incorrect.
    for ds in ("pope", "vsr"):
        mine = [k for k in key if k["dataset"] == ds]
        assert len(mine) == 50 and sum(not k["correct"] for k in mine) == 35
    # Normalised on the sample: z-scores within model x dataset of the drawn rows only.
    _, key_s = audit_tables(recs, 50, seed=1, normalised_on="sample")
    assert [k["sample_id"] for k in key_s] == [k["sample_id"] for k in key]
    for group in {(k["model"], k["dataset"]) for k in key_s}:
        zv = [k["zv"] for k in key_s if (k["model"], k["dataset"]) == group]
        assert abs(sum(zv) / len(zv)) < 1e-9  # centred on the sample, not the population
    assert {k["normalised_on"] for k in key_s} == {"sample"}
    # Raters: a clear majority on most items, a three-way split on every fifth; the
    # adjudication file decides half of the splits, the rest stay unadjudicated.
    by_id = {k["audit_id"]: k for k in key}
    labelled, decided = [], {}
    for n, k in enumerate(key):
        if n % 5 == 0:
            labelled.append((k["audit_id"], ["visual", "alignment", "mixed"]))
            if n % 10 == 0:
                decided[k["audit_id"]] = "alignment"
        else:
            truth = k["dominant"] if n % 3 else "unclear"
            labelled.append((k["audit_id"], [truth, truth, "mixed"]))
    report = audit_report(labelled, by_id, decided)
    assert report["n_adjudicated"] == 10 and report["n_unadjudicated"] == 10
    assert sum(report["label_counts"].values()) == 90
    t28 = {t["dataset"]: t for t in report["table28"]}
    assert t28["All"]["n"] == 100 and t28["All"]["raw_agreement"] == 0.8
    # Majority labels equal the key's normalised source, the adjudicated ones say alignment.
    clear = [(k, lab) for (aid, lab) in labelled for k in [by_id[aid]]]
    n_match = sum(1 for n, (k, lab) in enumerate(clear) if n % 5 and n % 3) + \
        sum(1 for n, (k, _) in enumerate(clear) if n % 10 == 0 and k["dominant"] == "alignment")
    n_clear = sum(1 for n in range(100) if n % 5 and n % 3) + sum(1 for n in range(100)
                                                                  if n % 10 == 0)
    assert t28["All"]["model_human_agreement"] == pytest.approx(n_match / n_clear)
    assert report["table30"]["normalised"]["n_clear"] == n_clear
    assert report["table30"]["raw"]["matrix"][0][0] == 0  # raw is always language_prior here
    assert {t["features"] for t in report["table31"]} == {"c", "VLA", "zVLA", "VLA+c"}
    assert all(t["n"] == n_clear for t in report["table31"])


def test_entanglement_pass_counts():
    clean = [(0.2, 0.9, 0.3)] * 2
    settings = {("q", "hb"): {"visual": mean_deltas(clean, [(0.1, 0.91, 0.29)] * 2),
                              "language": (-0.047, -0.086, 0.175),
                              "alignment": (0.0, 0.0, 0.0)}}
    t = entanglement_table(settings)
    assert t["pass_counts"] == {"visual": "1/1", "language": "0/1", "alignment": "0/1"}
    assert t["total"] == "1/3"


def test_import_prism_does_not_pull_ml_libraries():
    code = ("import sys, halluscope.prism, halluscope.prism.diagnosis, halluscope.prism.routing, "
            "halluscope.prism.audit, halluscope.prism.entanglement, halluscope.cli.prism; "
            "print([m for m in ('sklearn', 'xgboost', 'lightgbm') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.skipif(not REF.is_dir(), reason="released reference rows not available")
def test_every_logged_intervention_type_is_routed(tmp_path):
    # Released rows name the visual arm `visual_enhance`; under another name visually routed
    # rows would have no outcome for the matched policy and drop out of it.
    from halluscope.errors import InputError
    from halluscope.prism.routing import route_dominance

    template = json.loads((REF / "intervention" / "qwen_vl" / "vsr.jsonl").open().readline())
    kinds = {"visual_enhance": (0.9, 0.5, 0.5), "anti_prior_prompt": (0.1, 0.9, 0.5),
             "cot_grounding": (0.5, 0.1, 0.9)}  # each row's largest z is its own type's source
    rows = [{**template, "sample_id": f"s{i}", "matched_intervention_type": kind,
             "v_score": v, "lp_score": lp, "a_score": a}
            for i, (kind, (v, lp, a)) in enumerate(kinds.items())]
    folder = tmp_path / "results" / "m"
    folder.mkdir(parents=True)
    (folder / "vsr.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (result,) = route_dominance(tmp_path / "results")["rows"]
    assert result["matched_counts"] == dict.fromkeys(kinds, 1)
    assert result["matched"]["n_evaluable"] == result["n_normalized_equals_logged"] == 3
    rows[1]["matched_intervention_type"] = "anti-prior"
    (folder / "vsr.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InputError, match=r"vsr.jsonl:2: .*'anti-prior'"):
        route_dominance(tmp_path / "results")


@pytest.mark.skipif(not REF.is_dir(), reason="released reference rows not available")
def test_cli_on_released_rows(tmp_path):
    from typer.testing import CliRunner

    from halluscope.cli.prism import app

    r = CliRunner().invoke(app, ["diagnose", "--results", str(REF / "decomposition"),
                                 "--out", str(tmp_path / "d.json"), "--classifiers", "lr"])
    assert r.exit_code == 0, r.output
    rep = json.loads((tmp_path / "d.json").read_text())
    assert set(rep["labels"]) == {"none", "spatial"} and rep["notes"]
    r = CliRunner().invoke(app, ["route-dominance", "--results", str(REF / "intervention"),
                                 "--out", str(tmp_path / "r.json")])
    assert r.exit_code == 0, r.output
    qwen = [x for x in json.loads((tmp_path / "r.json").read_text())["rows"]
            if x["model"] == "qwen_vl"][0]
    # Table 35, Qwen3-VL/VSR: none 87.4%, generic 76.2%, matched (as logged) 87.6%.
    assert round(qwen["none"]["acc"], 3) == 0.874 and round(qwen["generic"]["acc"], 3) == 0.762
    assert round(qwen["logged_matched"]["acc"], 3) == 0.876
    sheet = tmp_path / "audit.csv"
    r = CliRunner().invoke(app, ["audit-sheet", "--results", str(REF / "decomposition"),
                                 "--out", str(sheet), "--per-group", "24"])
    assert r.exit_code == 0, r.output
    # Fill the sheet with three raters and score it.
    import csv

    rows = list(csv.DictReader(sheet.open()))
    assert len(rows) == 24  # one dataset (VSR) in the released rows
    key_rows = list(csv.DictReader(sheet.with_suffix(".key.csv").open()))
    assert sum(k["correct"] == "False" for k in key_rows) == round(0.7 * 24)
    for i, row in enumerate(rows):
        row.update(rater_1="visual", rater_2="visual" if i % 2 else "mixed", rater_3="alignment")
    with sheet.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    r = CliRunner().invoke(app, ["kappa", "--ratings", str(sheet), "--key",
                                 str(sheet.with_suffix(".key.csv")),
                                 "--out", str(tmp_path / "k.json")])
    assert r.exit_code == 0, r.output
    k = json.loads((tmp_path / "k.json").read_text())
    # Odd rows: a visual majority; even rows split three ways, not adjudicated: left out.
    assert k["n"] == 24 and k["table30"]["normalised"]["n_clear"] == 12
    assert k["n_unadjudicated"] == 12
    decisions = tmp_path / "adjudicated.csv"
    decisions.write_text("audit_id,label\n" + "".join(
        f"{row['audit_id']},alignment\n" for i, row in enumerate(rows) if i % 2 == 0))
    r = CliRunner().invoke(app, ["kappa", "--ratings", str(sheet), "--key",
                                 str(sheet.with_suffix(".key.csv")), "--adjudicated",
                                 str(decisions), "--out", str(tmp_path / "k2.json")])
    assert r.exit_code == 0, r.output
    k2 = json.loads((tmp_path / "k2.json").read_text())
    assert k2["n_adjudicated"] == 12 and k2["table30"]["normalised"]["n_clear"] == 24
    assert "Table 28" in r.output and "Table 31" in r.output
    decisions.write_text("audit_id,label\nA0001,maybe\n")
    r = CliRunner().invoke(app, ["kappa", "--ratings", str(sheet), "--adjudicated",
                                 str(decisions), "--out", str(tmp_path / "k3.json")])
    assert r.exit_code == 2 and "adjudicated.csv:2:" in r.output
