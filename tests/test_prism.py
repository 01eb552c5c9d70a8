"""HalluPrism: signature equations, the reference preset, and the paper's VSR tables from released rows."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from halluscope.errors import InputError
from halluscope.prism import analysis
from halluscope.cli.prism import app
from halluscope.prism.results import judge, read_rows
from halluscope.prism.selective import (aurc, auroc, expected_correct_at, risk_coverage,
                                        selective_accuracy)
from halluscope.prism.signature import (ProbeSet, compute_signature, paper_a,
                                        paper_grounding_penalty, paper_l_conf, paper_l_match,
                                        paper_l_persist, paper_l_stable, paper_relation_penalty,
                                        paper_signature, paper_v, reference_a, reference_l,
                                        reference_signature, reference_v)

MODELS = ("gemma_vl", "llava_mistral", "llava_vicuna", "qwen_vl")

# Paper, Table 13 (VSR rows): N, Acc %, mean V, mean L, mean A, LP match %, Dom-V, Dom-L, Dom-A.
TABLE13_VSR = {
    "gemma_vl": (340, 71.8, 0.143, 0.999, 0.675, 64.4, 0, 340, 0),
    "llava_mistral": (340, 70.3, 0.158, 1.000, 0.099, 50.6, 0, 340, 0),
    "llava_vicuna": (340, 51.5, 0.037, 0.914, 0.105, 96.5, 0, 340, 0),
    "qwen_vl": (340, 87.4, 0.142, 0.995, 0.613, 51.8, 0, 339, 1),
}
# Paper, Table 33 (VSR rows): scalar AUROC, scalar selective accuracy at 60% coverage (%).
TABLE33_VSR = {
    "gemma_vl": (0.712, 81.4),
    "llava_mistral": (0.685, 79.9),
    "llava_vicuna": (0.685, 60.8),
    "qwen_vl": (0.802, 95.6),
}
# Paper, Table 35 (VSR rows, models with released intervention results), all in %:
# no intervention, generic, matched, FixG, FixM, BreakG, BreakM.
TABLE35_VSR = {
    "llava_mistral": (70.3, 68.8, 70.6, 5.0, 5.9, 4.2, 2.1),
    "qwen_vl": (87.4, 76.2, 87.6, 18.6, 20.9, 15.5, 2.7),
}


def _pct(x: float) -> float:
    return round(100 * x, 1)


def _row(**over) -> dict:
    """A valid decomposition row in the released schema (VSR-like, no negation probe)."""
    row = {"sample_id": "s1", "dataset_name": "VSR", "task_type": "spatial",
           "gold_answer": "true", "model_prediction": "true", "is_correct": True,
           "scalar_confidence": 0.9, "lp_prediction": "false", "lp_confidence": 0.45,
           "lp_score": 0.5, "lp_answer_matches": False,
           "v_per_perturbation": {
               "blur_heavy": {"prediction": "false", "confidence": 0.8},
               "crop_aggressive": {"prediction": "true", "confidence": 0.9},
               "brightness_low": {"prediction": "true", "confidence": 0.9},
               "noise": {"prediction": "true", "confidence": 0.9}},
           "v_score": 0.17, "cot_prediction": "a dog on a surfboard", "cot_confidence": 0.7,
           "a_score": 0.7}
    row.update(over)
    return row


def _write(folder: Path, model: str, dataset: str, rows: list, raw_lines: list | None = None) -> Path:
    path = folder / model / f"{dataset}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r) for r in rows] + list(raw_lines or [])
    path.write_text("\n".join(lines) + "\n")
    return path


# ---------------------------------------------------------------------------------------------
# Paper equations, hand-computed
# ---------------------------------------------------------------------------------------------

def test_paper_v_hand_computed():
    # flips: no (flip), "Yes." (same after normalisation), yes, "" (empty: counts as a flip)
    # mean flip = 2/4; |delta c| = .3, 0, .1, .2 -> mean .15 -> min(2*.15, 1) = .3
    v = paper_v("yes", 0.9, [("no", 0.6), ("Yes.", 0.9), ("yes", 0.8), ("", 0.7)])
    assert v == pytest.approx(0.6 * 0.5 + 0.4 * 0.3)
    # the confidence term saturates at 1
    assert paper_v("yes", 1.0, [("yes", 0.0)]) == pytest.approx(0.4)
    with pytest.raises(ValueError):
        paper_v("yes", 0.9, [])


def test_paper_l_variants_hand_computed():
    assert paper_l_conf(0.8, 0.4) == pytest.approx(0.5, abs=1e-7)
    assert paper_l_conf(0.5, 0.9) == 1.0                  # clipped
    assert paper_l_conf(0.0, 0.0) == 0.0                  # epsilon keeps it defined
    # persist / match need the same answer after image removal
    assert paper_l_persist("No", "no.", 0.8, 0.4) == pytest.approx(0.5, abs=1e-7)
    assert paper_l_persist("no", "yes", 0.8, 0.4) == 0.0
    assert (paper_l_match("true", "True"), paper_l_match("true", "false")) == (1.0, 0.0)
    # stable: the denominator is floored at 0.1
    assert paper_l_stable("yes", "yes", 0.02, 0.01) == pytest.approx(0.1)
    assert paper_l_stable("yes", "yes", 0.02, 0.01, floor=0.02) == pytest.approx(0.5)
    assert paper_l_stable("yes", "no", 0.8, 0.8) == 0.0


def test_paper_a_hand_computed():
    p_g = paper_grounding_penalty("true", 0.9, "false", 0.3)       # 0.5 + min(0.6, 0.5)
    assert p_g == pytest.approx(1.0)
    assert paper_grounding_penalty("true", 0.9, "True.", 0.8) == pytest.approx(0.1)
    assert paper_relation_penalty("true", "true") == 1.0           # kept verdict after the swap
    assert paper_relation_penalty("true", "false") == 0.0
    assert paper_relation_penalty("true", None) is None
    assert paper_a(1.0, 1.0) == 1.0                                # min(0.4 + 0.6, 1)
    assert paper_a(0.5, 1.0) == pytest.approx(0.8)                 # 0.4*0.5 + 0.6
    assert paper_a(0.5, 0.0) == pytest.approx(0.2)
    assert paper_a(0.5, None) == 0.5                               # relation swap not available
    assert paper_a(1.2, None) == 1.0
    assert paper_a(0.5, 1.0, lam=0.0) == 0.5


def test_paper_signature_bundles_the_equations():
    p = ProbeSet("true", 0.9, (("blur", "false", 0.8), ("crop", "true", 0.9)), "true", 0.45,
                 "false", 0.6, relation_answer="true")
    s = paper_signature(p)
    assert s.v == pytest.approx(0.6 * 0.5 + 0.4 * 0.1)
    assert s.l_conf == pytest.approx(0.5, abs=1e-7) and s.l_persist == pytest.approx(0.5, abs=1e-7)
    assert s.l_match == 1.0 and s.l_stable == pytest.approx(0.5)
    assert s.a == pytest.approx(0.4 * 0.8 + 0.6 * 1.0)
    assert compute_signature(p, "paper") == s.triple()
    with pytest.raises(ValueError, match="unknown preset"):
        compute_signature(p, "nope")


# ---------------------------------------------------------------------------------------------
# Reference preset, hand-computed
# ---------------------------------------------------------------------------------------------

def test_reference_formulas_hand_computed():
    assert reference_v([True, False, False, False], [0.4, 0.1, 0.1, 0.2]) == pytest.approx(
        0.6 * 0.25 + 0.4 * 0.4)
    assert reference_v([True, True], [0.9, 0.9]) == pytest.approx(1.0)
    assert reference_l(0.8, 0.4) == 0.5                      # no epsilon
    assert reference_l(0.4, 0.8) == 1.0
    with pytest.raises(ValueError):
        reference_l(0.0, 0.5)
    # VSR-like (no negation probe): A = min(cot_pen, 1)
    assert reference_a("true", 0.9, "white dog on a board", 0.2) == pytest.approx(1.0)
    assert reference_a("true", 0.9, "true", 0.7) == pytest.approx(0.2)
    # yes/no (POPE, HallusionBench): A = min(0.4 cot_pen + 0.6 neg_pen, 1)
    assert reference_a("yes", 0.9, "yes", 0.8, "no", yes_no=True) == pytest.approx(0.04)
    assert reference_a("yes", 0.9, "yes", 0.8, "yes", yes_no=True) == pytest.approx(0.04 + 0.36)
    assert reference_a("yes", 0.9, "no", 0.2, None, yes_no=True) == pytest.approx(0.4 + 0.36)


def test_reference_and_paper_differ_where_they_should():
    # The reference compares raw strings ("True." != "true"), the paper normalises first.
    p = ProbeSet("true", 0.9, (("blur", "True.", 0.9),), "true", 0.9, "True.", 0.9)
    v_ref, l_ref, a_ref = reference_signature(p)
    v_pap, l_pap, a_pap = compute_signature(p, "paper")
    assert (v_ref, a_ref) == (pytest.approx(0.6), pytest.approx(0.5))
    assert (v_pap, a_pap) == (0.0, 0.0)
    assert l_ref == 1.0 and l_pap == pytest.approx(1.0, abs=1e-7)


# ---------------------------------------------------------------------------------------------
# Correctness is never assumed
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("prediction", ["", None, "   ", "unknown", "maybe",
                                        "let's think step by step", "yes"])
def test_unreadable_or_wrong_label_prediction_is_never_correct(prediction):
    verdict = judge(prediction, "true", stored=True)
    assert verdict.correct is False
    if prediction != "yes":                # "yes" is readable, just not a true/false label
        assert verdict.parsed is False


def test_open_ended_empty_prediction_overrides_stored_flag():
    assert judge("", "unanswerable", stored=True).correct is False
    assert judge("Unanswerable.", "unanswerable").correct is True


def test_empty_prediction_counted_wrong_and_unparsed_in_profile(tmp_path):
    rows = [_row(sample_id="a"), _row(sample_id="b", model_prediction="", is_correct=True),
            _row(sample_id="c", model_prediction="no idea", is_correct=True)]
    _write(tmp_path, "m", "vsr", rows)
    (row,) = analysis.profile(tmp_path)["rows"]
    assert row["n"] == 3 and row["accuracy"] == pytest.approx(1 / 3)
    assert row["n_unparsed"] == 2 and row["n_correct_flag_disagree"] == 2


# ---------------------------------------------------------------------------------------------
# Loading: one-line errors, duplicates
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad_line, message", [
    ("{not json", "malformed JSON"),
    (json.dumps(_row(sample_id="x", scalar_confidence=1.7)), "'scalar_confidence' must be a number in [0, 1]"),
    (json.dumps(_row(sample_id="x", v_score="high")), "'v_score' must be a number in [0, 1]"),
    (json.dumps({k: v for k, v in _row(sample_id="x").items() if k != "gold_answer"}),
     "missing field 'gold_answer'"),
    (json.dumps(_row(sample_id=7)), "'sample_id' must be a non-empty string"),
    (json.dumps(_row(sample_id="x", gold_answer=" ")), "field 'gold_answer' is empty"),
    (json.dumps(_row(sample_id="x", is_correct="yes")), "'is_correct' must be true or false"),
    ("[1, 2]", "expected a JSON object"),
])
def test_malformed_row_is_one_line_error_with_file_and_line(tmp_path, bad_line, message):
    path = _write(tmp_path, "m", "vsr", [_row(sample_id="a"), _row(sample_id="b")], [bad_line])
    with pytest.raises(InputError) as info:
        analysis.profile(tmp_path)
    text = str(info.value)
    assert text.startswith(f"{path}:3: ") and message in text and "\n" not in text


def test_malformed_probe_field_in_recompute(tmp_path):
    bad = _row(sample_id="b")
    bad["v_per_perturbation"]["noise"]["confidence"] = None
    path = _write(tmp_path, "m", "vsr", [_row(sample_id="a"), bad])
    with pytest.raises(InputError, match=rf"^{path}:2: v_per_perturbation\['noise'\]"):
        analysis.recompute(tmp_path, "reference", tmp_path / "out")


def test_cli_reports_bad_input_on_one_line_with_status_2(tmp_path):
    path = _write(tmp_path, "m", "vsr", [_row(sample_id="a")], ['{"sample_id": "b"}'])
    result = CliRunner().invoke(app, ["profile", "--results", str(tmp_path),
                                      "--out", str(tmp_path / "p.json")])
    assert result.exit_code == 2
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert lines == [f"halluscope: error: {path}:2: missing field 'gold_answer'"]


def test_missing_results_folder_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="results folder not found"):
        analysis.profile(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no <model>/<dataset>.jsonl"):
        analysis.profile(tmp_path / "empty")


def test_duplicates_are_dropped_and_counted(tmp_path):
    first = _row(sample_id="a", is_correct=True)
    relogged = dict(first, _logged_at="later", inference_time_s=3.0)
    conflicting = _row(sample_id="b", model_prediction="false", is_correct=False)
    rows = [first, relogged, _row(sample_id="b"), conflicting, _row(sample_id="c")]
    path = _write(tmp_path, "m", "vsr", rows)
    kept, stats = read_rows(path)
    assert [r["sample_id"] for _, r in kept] == ["a", "b", "c"]
    assert (stats.n_lines, stats.n_duplicates, stats.n_duplicate_conflicts) == (5, 2, 1)
    (row,) = analysis.profile(tmp_path)["rows"]
    assert (row["n"], row["n_duplicates"], row["accuracy"]) == (3, 2, 1.0)


def test_file_with_no_usable_rows_gives_nulls_not_numbers(tmp_path):
    _write(tmp_path, "m", "vsr", [_row(sample_id="a", skipped=True)])
    for run in (analysis.profile, analysis.abstain):
        (row,) = run(tmp_path)["rows"]
        assert row["n"] == 0 and row["accuracy"] is None and row["n_skipped"] == 1
    (row,) = analysis.abstain(tmp_path)["rows"]
    assert row["auroc_scalar"] is None and row["sel_acc_60_scalar"] is None
    result = CliRunner().invoke(app, ["abstain", "--results", str(tmp_path),
                                      "--out", str(tmp_path / "a.json")])
    assert result.exit_code == 0 and "n/a" in result.output


def test_single_class_setting_has_undefined_auroc(tmp_path):
    _write(tmp_path, "m", "vsr", [_row(sample_id="a"), _row(sample_id="b", scalar_confidence=0.2)])
    (row,) = analysis.abstain(tmp_path)["rows"]
    assert row["auroc_scalar"] is None and row["sel_acc_60_scalar"] == 1.0


def test_reference_skip_markers_are_dropped_and_counted(tmp_path):
    rows = [_row(sample_id="a"), _row(sample_id="b", model_prediction="[skipped_no_image]")]
    _write(tmp_path, "m", "vsr", rows)
    (row,) = analysis.profile(tmp_path)["rows"]
    assert (row["n"], row["n_skipped"]) == (1, 1)


# ---------------------------------------------------------------------------------------------
# Selective prediction metrics
# ---------------------------------------------------------------------------------------------

def _pairwise_auroc(scores, correct):
    pos = [s for s, c in zip(scores, correct) if c]
    neg = [s for s, c in zip(scores, correct) if not c]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


def test_auroc_with_ties_equals_pairwise_mann_whitney():
    rng = random.Random(0)
    for _ in range(20):
        scores = [rng.choice([0.0, 0.1, 0.5, 0.5, 0.9, 1.0]) for _ in range(40)]
        correct = [rng.random() < 0.6 for _ in range(40)]
        if any(correct) and not all(correct):
            assert auroc(scores, correct) == pytest.approx(_pairwise_auroc(scores, correct))
    assert auroc([0.3] * 6, [True, False] * 3) == 0.5        # all tied: chance, not order
    assert auroc([0.3, 0.4], [True, True]) is None


def test_selective_accuracy_ties_do_not_depend_on_input_order():
    scores = [0.9, 0.5, 0.5, 0.5, 0.1]
    correct = [True, True, False, False, True]
    assert selective_accuracy(scores, correct, 0.4) == pytest.approx((1 + 1 / 3) / 2)
    assert selective_accuracy(scores[::-1], correct[::-1], 0.4) == pytest.approx((1 + 1 / 3) / 2)
    assert expected_correct_at(scores, correct)[-1] == 3
    curve = risk_coverage(scores, correct)
    assert len(curve) == 20 and curve[-1]["risk"] == pytest.approx(0.4)
    assert aurc([0.9, 0.8, 0.1], [True, True, False]) == pytest.approx((0 + 0 + 1 / 3) / 3)


# ---------------------------------------------------------------------------------------------
# Released rows (../shared/data): recompute, Tables 13, 33, 35
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def reference(shared_data) -> Path:
    root = shared_data / "halluprism_reference"
    if not root.is_dir():
        pytest.fail(f"missing {root}")
    return root


def test_reference_preset_recomputes_every_released_row(reference, tmp_path):
    report = analysis.recompute(reference / "decomposition", "reference", tmp_path)
    assert [f["model"] for f in report["files"]] == list(MODELS)
    n_checked = 0
    for model in MODELS:
        stored = [json.loads(line) for line in
                  (reference / "decomposition" / model / "vsr.jsonl").read_text().splitlines()
                  if line.strip()]
        by_id = {r["sample_id"]: r for r in stored}
        recomputed = [json.loads(line) for line in
                      (tmp_path / model / "vsr.jsonl").read_text().splitlines()]
        assert len(recomputed) == len(by_id)
        for row in recomputed:
            original = by_id[row["sample_id"]]
            assert set(row) == set(original) | {"signature_preset"}
            assert {k: v for k, v in row.items() if not k.endswith("_score")} == \
                {**{k: v for k, v in original.items() if not k.endswith("_score")},
                 "signature_preset": "reference"}
            for key in ("v_score", "lp_score", "a_score"):
                assert abs(row[key] - original[key]) <= 1e-9, (model, row["sample_id"], key)
            n_checked += 1
    assert n_checked == 4 * 340
    # the written folder is a results folder: the analyses read it (Table 13 unchanged here)
    assert [r["accuracy"] for r in analysis.profile(tmp_path)["rows"]] == \
        [r["accuracy"] for r in analysis.profile(reference / "decomposition")["rows"]]
    # the paper preset differs only by L's epsilon on these rows (no relation-swap answers)
    paper = analysis.recompute(reference / "decomposition", "paper", tmp_path / "paper")
    for f in paper["files"]:
        assert f["max_abs_delta"]["v_score"] <= 1e-9 and f["max_abs_delta"]["a_score"] <= 1e-9
        assert f["max_abs_delta"]["lp_score"] < 1e-7


def test_table13_vsr_source_profile(reference):
    rows = {r["model"]: r for r in analysis.profile(reference / "decomposition")["rows"]}
    for model, (n, acc, v, l, a, lp, dom_v, dom_l, dom_a) in TABLE13_VSR.items():
        r = rows[model]
        assert r["dataset"] == "vsr"
        assert (r["n"], r["n_duplicates"]) == (n, 0)
        assert _pct(r["accuracy"]) == acc
        assert (round(r["v_mean"], 3), round(r["l_mean"], 3), round(r["a_mean"], 3)) == (v, l, a)
        assert _pct(r["lp_match"]) == lp
        assert (r["dominant_v"], r["dominant_l"], r["dominant_a"]) == (dom_v, dom_l, dom_a)
        assert r["n_correct_flag_disagree"] == 0


def test_table33_vsr_scalar_abstention(reference):
    rows = {r["model"]: r for r in analysis.abstain(reference / "decomposition")["rows"]}
    for model, (auroc_scalar, sel60) in TABLE33_VSR.items():
        r = rows[model]
        assert abs(r["auroc_scalar"] - auroc_scalar) <= 0.01
        assert round(r["auroc_scalar"], 3) == auroc_scalar
        assert _pct(r["sel_acc_60_scalar"]) == sel60
        for method in ("penalty", "weighted", "geometric"):
            assert 0.0 <= r[f"auroc_{method}"] <= 1.0
            assert len(r["scores"][method]["risk_coverage"]) == 20
        # Table 33's finding on VSR: source-aware scores beat scalar confidence only for Vicuna.
        best = max(r[f"auroc_{m}"] for m in ("penalty", "weighted", "geometric"))
        assert (best > r["auroc_scalar"]) == (model == "llava_vicuna")
        # The tie range brackets the mid-rank AUROC; scalar confidence barely ties.
        lo, hi = r["scores"]["penalty"]["auroc_tie_range"]
        assert lo <= r["auroc_penalty"] <= hi
        assert abs(r["auroc_penalty"] - (lo + hi) / 2) < 1e-12
        lo_s, hi_s = r["scores"]["scalar"]["auroc_tie_range"]
        assert hi_s - lo_s < 0.01
    # Gemma's and Qwen's printed best source-aware AUROCs (penalty, 0.654 and 0.751) are not the
    # mid-rank reading but lie inside the range a tie-breaking sort can give.
    for model, printed in (("gemma_vl", 0.654), ("qwen_vl", 0.751)):
        lo, hi = rows[model]["scores"]["penalty"]["auroc_tie_range"]
        assert lo < printed < hi and round(rows[model]["auroc_penalty"], 3) != printed


def test_table35_vsr_routing(reference):
    rows = {r["model"]: r for r in analysis.route(reference / "intervention")["rows"]}
    assert set(rows) == set(TABLE35_VSR)
    keys = ("acc_none", "acc_generic", "acc_matched", "fix_generic", "fix_matched",
            "break_generic", "break_matched")
    for model, expected in TABLE35_VSR.items():
        r = rows[model]
        assert tuple(_pct(r[k]) for k in keys) == expected, model
        for arm in ("original", "generic", "matched"):
            assert r[f"n_correct_flag_disagree_{arm}"] == 0
        assert r["n_route_raw_argmax"] == r["n_route_checkable"] == 340
    # Qwen's generic-prompt answers often start reasoning on the first line: unparsed, so wrong.
    assert rows["qwen_vl"]["n_unparsed_generic"] > 0


def test_table36_win_counts_follow_table35(reference):
    # Table 36's counts of the VSR settings, derived from Table 35's printed rates.
    wins = {w["model"]: w for w in analysis.route(reference / "intervention")["win_counts"]}
    for model, (none, generic, matched, _fg, _fm, break_g, break_m) in TABLE35_VSR.items():
        assert (wins[model]["matched_gt_generic"], wins[model]["matched_gt_none"],
                wins[model]["lower_break_rate"]) == (int(matched > generic), int(matched > none),
                                                     int(break_m < break_g))
    assert wins["pooled"]["n_settings"] == len(TABLE35_VSR)
    # Ties and undefined rates are no win.
    tie = {"model": "m", "acc_none": 0.5, "acc_generic": 0.5, "acc_matched": 0.5,
           "break_generic": None, "break_matched": 0.0}
    assert analysis.win_counts([tie])[0] | {"model": "m"} == {
        "model": "m", "n_settings": 1, "matched_gt_generic": 0, "matched_gt_none": 0,
        "lower_break_rate": 0}


def test_cli_commands_write_the_documented_fields(reference, tmp_path):
    runner = CliRunner()
    decomposition, intervention = reference / "decomposition", reference / "intervention"
    cases = [
        (["profile", "--results", str(decomposition)], "p.json",
         {"n", "accuracy", "v_mean", "l_mean", "a_mean", "lp_match", "dominant_v", "dominant_l",
          "dominant_a"}),
        (["abstain", "--results", str(decomposition)], "a.json",
         {"auroc_scalar", "auroc_penalty", "auroc_weighted", "auroc_geometric",
          "sel_acc_60_scalar"}),
        (["route", "--results", str(intervention)], "r.json",
         {"acc_none", "acc_generic", "acc_matched", "fix_generic", "fix_matched",
          "break_generic", "break_matched"}),
    ]
    for args, name, fields in cases:
        result = runner.invoke(app, args + ["--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
        rows = json.loads((tmp_path / name).read_text())["rows"]
        assert rows and all(fields <= set(r) and {"model", "dataset"} <= set(r) for r in rows)
    result = runner.invoke(app, ["recompute", "--results", str(decomposition), "--preset",
                                 "reference", "--out", str(tmp_path / "rc")])
    assert result.exit_code == 0, result.output
    assert sorted(p.parent.name for p in (tmp_path / "rc").glob("*/vsr.jsonl")) == list(MODELS)
    # Without --preset: the paper's equations, as `prism probe` stores them.
    result = runner.invoke(app, ["recompute", "--results", str(decomposition), "--out",
                                 str(tmp_path / "rc_paper")])
    assert result.exit_code == 0, result.output
    first = (tmp_path / "rc_paper" / MODELS[0] / "vsr.jsonl").read_text().splitlines()[0]
    assert json.loads(first)["signature_preset"] == "paper"


def test_table25_vsr_f1_is_the_weighted_one(reference):
    """Table 25's VSR row (N 1360; F1 0.688 / 0.701 / 0.709 for M+c / M+VLA / M+VLA+c) under
    the paper's stratified 5-fold LR: the support-weighted F1 lands within 0.02 of each printed
    F1, the macro-F1 at least 0.06 below every one, so the paper's F1 is the weighted one."""
    from halluscope.prism.diagnosis import diagnose, load_diag_rows

    rows, _ = load_diag_rows(reference / "decomposition")
    report = diagnose(rows, ("lr",), group_by_item=False, controls=False, leave_out=())
    got = {e["features"]: e for e in report["within_dataset"]}
    assert {e["n"] for e in got.values()} == {1360}
    for features, printed in (("M+c", 0.688), ("M+VLA", 0.701), ("M+VLA+c", 0.709)):
        assert abs(got[features]["weighted_f1"] - printed) <= 0.02, features
        assert got[features]["macro_f1"] <= printed - 0.06, features


def test_clean_blank_chance_adjusted_agreement(reference):
    """Appendix 10.1 on the released VSR rows, against a count from the raw JSON fields: the
    observed agreement is Table 13's LP match, the expected one comes from the two answers'
    marginals, kappa = (observed - expected) / (1 - expected), pooled over the four models."""
    from collections import Counter

    summary = analysis.pooled_summary(reference / "decomposition")
    by_model = {r["model"]: r for r in summary["clean_blank_agreement"]}
    profiles = {r["model"]: r for r in analysis.profile(reference / "decomposition")["rows"]}
    pooled_pairs = []
    for model in MODELS:
        raw = [json.loads(x) for x in (reference / "decomposition" / model / "vsr.jsonl")
               .read_text().splitlines() if x.strip()]
        pairs = [(r["model_prediction"], r["lp_prediction"]) for r in raw]
        pooled_pairs += pairs
        clean, blank = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
        expected = sum(clean[k] * blank[k] for k in clean) / len(pairs) ** 2
        got = by_model[model]
        assert got["observed"] == pytest.approx(profiles[model]["lp_match"])
        assert got["expected"] == pytest.approx(expected)
        assert profiles[model]["lp_kappa"] == pytest.approx(got["kappa"])
    n = len(pooled_pairs)
    observed = sum(a == b for a, b in pooled_pairs) / n
    clean, blank = Counter(a for a, _ in pooled_pairs), Counter(b for _, b in pooled_pairs)
    expected = sum(clean[k] * blank[k] for k in clean) / n ** 2
    assert by_model[analysis.POOLED]["kappa"] == pytest.approx((observed - expected) /
                                                               (1 - expected))
