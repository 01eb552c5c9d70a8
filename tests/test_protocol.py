"""NAME-Bench protocol: splits, calibrated thresholds, metrics against closed forms, CLI."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from halluscope.cli.bench import app
from halluscope.bench.protocol import (SPLITS, MentionTable, auc, calibrate_threshold,
                                       evaluate_scores, evaluate_seed, load_scores,
                                       markdown_summary, split_codes, split_images)
from halluscope.errors import InputError

Z90 = 1.2815515655446004  # standard normal 90th percentile


def phi(x: float) -> float:
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def cdf(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def gaussian_table(n: int, mu_h: float, mu_na: float, seed: int = 0, per_image: int = 1):
    """Concrete ~ N(0,1), hallucinated ~ N(mu_h,1), non-assertive ~ N(mu_na,1)."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(["concrete", "hallucinated", "non_assertive"], size=n, p=[0.6, 0.2, 0.2])
    subtypes = [rng.choice(["hedged", "depictive"]) if lab == "non_assertive" else None
                for lab in labels]
    present = rng.random(n) < 0.5
    mean = np.select([labels == "hallucinated", labels == "non_assertive"], [mu_h, mu_na], 0.0)
    # Absent non-assertive objects score 0.5 higher: a known absent-vs-present AUC.
    shift = np.where((labels == "non_assertive") & ~present, 0.5, 0.0)
    scores = rng.normal(mean + shift)
    table = MentionTable.from_columns([f"img{i // per_image}" for i in range(n)], labels,
                                      subtypes, present.tolist())
    return table, scores


# --- splits ---------------------------------------------------------------------------------

def test_splits_keep_images_together_and_have_the_paper_proportions():
    rng = np.random.default_rng(1)
    images = np.array([f"im{int(i)}" for i in rng.integers(0, 3000, size=20000)], dtype=object)
    for seed in (0, 1, 2):
        codes = split_codes(images, seed)
        by_image: dict[str, set[int]] = {}
        for image, code in zip(images, codes):
            by_image.setdefault(image, set()).add(int(code))
        assert all(len(c) == 1 for c in by_image.values())
        image_share = np.bincount([next(iter(c)) for c in by_image.values()], minlength=3)
        n = len(by_image)
        assert image_share[0] == round(8 / 15 * n) and image_share[1] == round(2 / 15 * n)
        mention_share = np.bincount(codes, minlength=3) / len(codes)
        assert np.allclose(mention_share, [8 / 15, 2 / 15, 5 / 15], atol=0.02)


def test_splits_depend_only_on_seed_and_image_set():
    ids = [str(i) for i in range(500)]
    shuffled = ids[:]
    random.Random(3).shuffle(shuffled)
    assert split_images(ids, 7) == split_images(shuffled, 7) == split_images(ids + ids, 7)
    assert split_images(ids, 0) != split_images(ids, 1)
    assert set(split_images(ids, 0).values()) == set(SPLITS)


# --- thresholds -----------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 5, 9, 10, 11, 37, 100, 299, 1234])
def test_threshold_flags_ten_percent_plus_minus_one_on_distinct_scores(n):
    scores = np.random.default_rng(n).normal(size=n)
    t = calibrate_threshold(scores)
    flagged = int((scores > t.value).sum())
    assert flagged == t.flagged and abs(flagged - 0.1 * n) <= 1 and t.within_one
    assert flagged == int(math.floor(0.1 * n + 0.5)) or abs(flagged - 0.1 * n) == 0.5


def test_threshold_with_ties_is_the_closest_count_never_above_target_plus_one():
    rng = np.random.default_rng(5)
    for trial in range(200):
        n = int(rng.integers(1, 300))
        scores = rng.integers(0, int(rng.integers(1, 20)), size=n).astype(float)
        t = calibrate_threshold(scores)
        k = 0.1 * n
        achievable = {int((scores > v).sum()) for v in np.unique(scores)}
        allowed = [f for f in achievable if f <= k + 1]
        best = min(allowed, key=lambda f: (abs(f - k), f))
        assert t.flagged == best == int((scores > t.value).sum())


def test_caption_level_ties_like_halp_are_reported_not_hidden():
    scores = np.repeat(np.arange(20.0), 10)  # 20 captions x 10 mentions, one score per caption
    t = calibrate_threshold(scores)
    assert t.flagged == 20 and t.within_one  # the top caption block is exactly 10%
    t = calibrate_threshold(np.repeat(np.arange(5.0), 40))  # blocks of 20% each
    assert t.flagged == 0 and not t.within_one


# --- metrics against closed forms -----------------------------------------------------------

def test_auc_handles_ties_like_pairwise_counting():
    rng = np.random.default_rng(0)
    pos = rng.integers(0, 5, size=40).astype(float)
    neg = rng.integers(0, 5, size=55).astype(float)
    pairwise = np.mean([(p > q) + 0.5 * (p == q) for p in pos for q in neg])
    assert auc(pos, neg) == pytest.approx(pairwise)
    assert auc(pos, neg[:0]) is None


def test_calibrated_rates_match_the_gaussian_closed_form():
    mu_h, mu_na = 1.5, 0.8
    table, scores = gaussian_table(60000, mu_h, mu_na, seed=11)
    report = evaluate_scores(table, {"d": scores}, seeds=(0, 1, 2))
    m = report["mean"]["d"]
    n_cal_concrete = np.mean([s["detectors"]["d"]["calib_concrete"] for s in report["per_seed"]])
    n_held = report["per_seed"][0]["detectors"]["d"]["n_heldout"]
    se_threshold = math.sqrt(0.09 / n_cal_concrete) / phi(Z90)  # quantile standard error

    def check(observed, mu, n):
        expected = 1 - cdf(Z90 - mu)
        se = math.sqrt(expected * (1 - expected) / n + (phi(Z90 - mu) * se_threshold) ** 2)
        assert abs(observed - expected) < 4 * se, (observed, expected, se)

    check(m["halluc_tpr"]["mean"], mu_h, n_held["hallucinated"])
    check(m["concrete_fpr"]["mean"], 0.0, n_held["concrete"])
    # Non-assertive scores are a 50/50 mixture of N(mu_na, 1) and N(mu_na + 0.5, 1).
    expected_na = 0.5 * (1 - cdf(Z90 - mu_na)) + 0.5 * (1 - cdf(Z90 - mu_na - 0.5))
    assert abs(m["na_fpr"]["mean"] - expected_na) < 0.03
    for sub in ("hedged", "depictive"):
        assert abs(m["na_fpr_by_subtype"][sub]["mean"] - expected_na) < 0.04
    assert m["auc_concrete_vs_halluc"]["mean"] == pytest.approx(cdf(mu_h / math.sqrt(2)), abs=0.015)
    assert m["auc_na_absent_vs_present"]["mean"] == pytest.approx(cdf(0.5 / math.sqrt(2)),
                                                                  abs=0.03)
    for s in report["per_seed"]:
        d = s["detectors"]["d"]
        assert abs(d["calib_flagged"] - 0.1 * d["calib_concrete"]) <= 1
    assert m["halluc_tpr"]["n_seeds"] == 3 and m["halluc_tpr"]["std"] > 0


def test_same_seed_same_report_and_row_order_does_not_matter():
    table, scores = gaussian_table(3000, 1.0, 0.5, seed=2, per_image=4)
    first = evaluate_scores(table, {"d": scores}, seeds=(0, 1))
    again = evaluate_scores(table, {"d": scores}, seeds=(0, 1))
    order = np.random.default_rng(9).permutation(len(table))
    shuffled = MentionTable(table.image_id[order], table.label[order], table.subtype[order],
                            table.present[order])
    other = evaluate_scores(shuffled, {"d": scores[order]}, seeds=(0, 1))
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)
    assert json.dumps(first, sort_keys=True) == json.dumps(other, sort_keys=True)


# --- fallbacks and errors -------------------------------------------------------------------

def test_missing_classes_and_nan_scores_give_none_with_reasons_never_nan():
    n = 400
    table = MentionTable.from_columns([str(i) for i in range(n)], ["concrete"] * 300 +
                                      ["hallucinated"] * 100)
    scores = np.random.default_rng(0).normal(size=n)
    bad = scores.copy()
    bad[7] = np.nan
    report = evaluate_scores(table, {"ok": scores, "bad": bad}, seeds=(0,))
    ok = report["per_seed"][0]["detectors"]["ok"]
    assert ok["na_fpr"] is None and ok["na_fpr_by_subtype"] == {}
    assert "no held-out non-assertive mentions" in ok["notes"]
    assert ok["halluc_tpr"] is not None
    nan = report["per_seed"][0]["detectors"]["bad"]
    assert nan["threshold"] is None and "NaN" in nan["notes"][0]
    json.dumps(report, allow_nan=False)  # raises on any NaN
    text = markdown_summary(report)
    table_part = text.split("Notes:")[0]
    assert "nan" not in table_part.lower() and "| bad | –" in table_part
    assert report["mean"]["ok"]["halluc_tpr"]["std"] is None  # one seed: no spread


def test_no_calibration_concrete_mentions():
    table = MentionTable.from_columns(["a", "b", "c"], ["hallucinated"] * 3)
    result = evaluate_seed(np.zeros(3), table, np.array([1, 2, 2]))
    assert result["threshold"] is None
    assert result["notes"] == ["no calibration concrete mentions; no threshold"]


@pytest.mark.parametrize("kwargs, message", [
    (dict(image_id=["1"], label=["concret"]), "label 'concret' is not one of"),
    (dict(image_id=["1"], label=["non_assertive"], subtype=[None]), "without a subtype"),
    (dict(image_id=[None], label=["concrete"]), "image_id is missing"),
    (dict(image_id=["1"], label=["concrete"], present=["yes"]), "present must be true or false"),
])
def test_bad_tables_raise_one_line_errors(kwargs, message):
    with pytest.raises(InputError, match=message) as info:
        MentionTable.from_columns(**kwargs)
    assert "\n" not in str(info.value)


# --- scores file and CLI --------------------------------------------------------------------

def write_scores(path, n=900, **extra):
    table, scores = gaussian_table(n, 1.2, 0.6, seed=4, per_image=3)
    columns = {"image_id": table.image_id.tolist(), "label": table.label.tolist(),
               "subtype": table.subtype.tolist(), "present": table.present.tolist(),
               "svar": scores, "halp": np.repeat(scores[::3], 3)}
    columns.update(extra)
    pq.write_table(pa.table(columns), path)
    return path


def test_cli_evaluate_writes_json_and_prints_a_table(tmp_path):
    scores = write_scores(tmp_path / "scores.parquet")
    out = tmp_path / "out" / "report.json"
    result = CliRunner().invoke(app, ["evaluate", "--scores", str(scores), "--out", str(out),
                                      "--seeds", "2"])
    assert result.exit_code == 0, result.output
    assert "| svar |" in result.output and "| halp |" in result.output
    report = json.loads(out.read_text())
    assert [s["seed"] for s in report["per_seed"]] == [0, 1]
    seed0 = report["per_seed"][0]
    assert set(seed0["splits"].values()) == set(SPLITS) and len(seed0["splits"]) == 300
    for key in ("threshold", "na_fpr", "na_fpr_by_subtype", "halluc_tpr",
                "auc_concrete_vs_halluc"):
        assert key in seed0["detectors"]["svar"]
    assert set(report["mean"]) == {"svar", "halp"}
    assert not list(out.parent.glob(".*.tmp"))  # atomic write left no temporary file


@pytest.mark.parametrize("setup, message", [
    (lambda p: pq.write_table(pa.table({"image_id": ["1"], "label": ["concrete"]}), p),
     "missing column(s) subtype"),
    (lambda p: pq.write_table(pa.table({"image_id": ["1"], "label": ["concrete"],
                                        "subtype": pa.array([None], pa.string())}), p),
     "no numeric detector score column"),
    (lambda p: p.write_text("not parquet"), "not a Parquet file"),
    (lambda p: write_scores(p, model=["a", "b", "a"] * 300), "holds 2 models"),
])
def test_cli_bad_inputs_exit_2_with_one_line(tmp_path, setup, message):
    path = tmp_path / "scores.parquet"
    setup(path)
    result = CliRunner().invoke(app, ["evaluate", "--scores", str(path),
                                      "--out", str(tmp_path / "o.json")])
    assert result.exit_code == 2
    assert message in result.output and result.output.count("\n") == 1
    assert not (tmp_path / "o.json").exists()


def test_load_scores_selects_detectors_and_model(tmp_path):
    path = write_scores(tmp_path / "s.parquet", model=["a", "b", "a"] * 300)
    table, scores = load_scores(path, ["svar"], model="a")
    assert len(table) == 600 and list(scores) == ["svar"]
    with pytest.raises(InputError, match="no detector column"):
        load_scores(path, ["nope"], model="a")
    with pytest.raises(InputError, match="not numeric"):
        load_scores(path, ["label"], model="a")
