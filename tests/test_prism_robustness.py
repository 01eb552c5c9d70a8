"""Appendix 10.3, visual-probe robustness: leave-one-perturbation-out diagnosis with a paired
bootstrap CI, normalised-source agreement, and Spearman stability across severity presets."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from halluscope.prism.robustness import (leave_one_perturbation_out, severity_stability,
                                         spearman)

PERTURBATIONS = ("blur_heavy", "crop_aggressive", "brightness_low", "noise")


def _row(i: int, rng: random.Random, wrong: bool, blur_strength: float) -> dict:
    """A released-layout VSR row whose blur answer flips exactly when the clean answer is
    wrong (blur carries the signal), the other three perturbations flip at random."""
    gold = "true" if i % 2 else "false"
    pred = ("false" if gold == "true" else "true") if wrong else gold
    other = "false" if pred == "true" else "true"
    per = {}
    for name in PERTURBATIONS:
        flips = wrong if name == "blur_heavy" else rng.random() < 0.3
        conf = 0.9 - (blur_strength if name == "blur_heavy" and wrong else 0.3 * rng.random())
        per[name] = {"prediction": other if flips else pred, "confidence": max(conf, 0.05)}
    return {"sample_id": f"vsr_{i:04d}", "gold_answer": gold, "task_type": "spatial",
            "failure_family": "spatial", "model_prediction": pred, "is_correct": not wrong,
            "scalar_confidence": 0.9, "v_per_perturbation": per, "lp_prediction": pred,
            "lp_confidence": 0.9, "lp_answer_matches": True, "cot_prediction": pred,
            "cot_confidence": 0.9, "v_score": 0.5, "lp_score": 1.0, "a_score": 0.3}


def _folder(root: Path, blur_strength: float = 0.4, n: int = 160, seed: int = 0) -> Path:
    rng = random.Random(seed)
    for model in ("m1", "m2"):
        rows = [_row(i, rng, wrong=rng.random() < 0.35, blur_strength=blur_strength)
                for i in range(n)]
        (root / model).mkdir(parents=True)
        (root / model / "vsr.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_leaving_out_the_informative_perturbation_costs_auroc(tmp_path: Path) -> None:
    report = leave_one_perturbation_out(_folder(tmp_path / "r"), n_resamples=300)
    by = {v["left_out"]: v for v in report["variants"]}
    assert set(by) == set(PERTURBATIONS) and report["n"] == 320
    assert report["full"]["auroc"] > 0.9
    # Without blur, V is noise: the AUROC falls and its paired CI excludes zero.
    assert by["blur_heavy"]["auroc_diff_vs_full"] < -0.2
    assert by["blur_heavy"]["auroc_diff_ci"][1] < 0
    # Without a noise-only perturbation the diagnosis keeps (nearly) all of its AUROC.
    for name in ("crop_aggressive", "brightness_low", "noise"):
        assert by[name]["auroc_diff_vs_full"] > -0.05, name
        lo, hi = by[name]["auroc_diff_ci"]
        assert lo <= by[name]["auroc_diff_vs_full"] <= hi
        assert 0.0 <= by[name]["normalized_source_agreement"] <= 1.0
    # Seeded: the same report twice.
    again = leave_one_perturbation_out(tmp_path / "r", n_resamples=300)
    assert again == report


def test_full_v_is_the_stored_one_on_released_rows(shared_data: Path) -> None:
    """With the reference formulas the four-probe V is the released v_score, so the variants
    are compared with the paper's own V."""
    root = shared_data / "halluprism_reference" / "decomposition"
    report = leave_one_perturbation_out(root, preset="reference", n_resamples=50)
    stored = []
    for model in sorted(p.name for p in root.iterdir()):
        stored += [json.loads(x)["v_score"] for x in (root / model / "vsr.jsonl")
                   .read_text().splitlines() if x.strip()]
    assert report["full"]["v_mean"] == pytest.approx(sum(stored) / len(stored), abs=1e-12)
    assert len(report["variants"]) == 4


def test_severity_stability_pairs_the_same_items(tmp_path: Path) -> None:
    weak = _folder(tmp_path / "weak", blur_strength=0.2)
    strong = _folder(tmp_path / "strong", blur_strength=0.6)
    report = severity_stability({"weak": weak, "strong": strong})
    assert [(p["model"], p["n"]) for p in report["pairs"]] == [("m1", 160), ("m2", 160)]
    for pair in report["pairs"]:
        # Same answers, stronger confidence drops on the same items: V's ranking is kept.
        assert pair["spearman_v"] > 0.9
        assert pair["v_mean"][1] > pair["v_mean"][0]
        assert pair["spearman_c"] is None  # c is constant in these rows
    with pytest.raises(ValueError):
        severity_stability({"weak": weak})


def test_spearman_by_hand() -> None:
    # ranks 1..4 against 1, 3, 2, 4: sum d^2 = 2, rho = 1 - 6 * 2 / (4 * 15) = 0.8
    assert spearman([1, 2, 3, 4], [10, 30, 20, 40]) == pytest.approx(0.8)
    assert spearman([1, 2, 3], [5, 5, 5]) is None
