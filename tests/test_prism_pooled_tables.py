"""Pooled summaries: Table 14 (raw dominance counts), Table 32 (AUROC), Table 34 (risk-coverage).

Expected values are the paper's printed tables or counted by hand; none is taken from the code.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from halluscope.prism.analysis import (dominance_summary, load_decomposition, pooled_summary,
                                       share)
from halluscope.cli.prism import app

# Paper, Table 13: (model, dataset, N, Dom-V, Dom-L, Dom-A), all 16 settings.
TABLE13_DOMINANCE = [
    ("Gemma 4", "HallusionBench", 951, 0, 949, 2), ("Gemma 4", "POPE", 9000, 0, 9000, 0),
    ("Gemma 4", "VizWiz", 4319, 2, 4308, 9), ("Gemma 4", "VSR", 340, 0, 340, 0),
    ("LLaVA-Mistral", "HallusionBench", 951, 0, 951, 0),
    ("LLaVA-Mistral", "POPE", 9000, 0, 9000, 0), ("LLaVA-Mistral", "VizWiz", 4319, 0, 4302, 17),
    ("LLaVA-Mistral", "VSR", 340, 0, 340, 0),
    ("LLaVA-Vicuna", "HallusionBench", 951, 0, 951, 0), ("LLaVA-Vicuna", "POPE", 9000, 0, 9000, 0),
    ("LLaVA-Vicuna", "VizWiz", 4319, 0, 4198, 121), ("LLaVA-Vicuna", "VSR", 340, 0, 340, 0),
    ("Qwen3-VL", "HallusionBench", 951, 0, 951, 0), ("Qwen3-VL", "POPE", 9000, 0, 9000, 0),
    ("Qwen3-VL", "VizWiz", 4319, 0, 4318, 1), ("Qwen3-VL", "VSR", 340, 0, 339, 1),
]
# Paper, Table 14 as printed: model, N, Dominant V, L, A (count, share).
TABLE14 = [
    ("Gemma 4", 14610, (2, "0.01%"), (14597, "99.91%"), (11, "0.08%")),
    ("LLaVA-Mistral", 14610, (0, "0.00%"), (14593, "99.88%"), (17, "0.12%")),
    ("LLaVA-Vicuna", 14610, (0, "0.00%"), (14489, "99.17%"), (121, "0.83%")),
    ("Qwen3-VL", 14610, (0, "0.00%"), (14608, "99.99%"), (2, "0.01%")),
    ("pooled", 58440, (2, "<0.01%"), (58287, "99.74%"), (151, "0.26%")),
]
# Paper, Table 13 VSR rows: model -> (N, Dom-V, Dom-L, Dom-A, accuracy %).
TABLE13_VSR = {"gemma_vl": (340, 0, 340, 0, 71.8), "llava_mistral": (340, 0, 340, 0, 70.3),
               "llava_vicuna": (340, 0, 340, 0, 51.5), "qwen_vl": (340, 0, 339, 1, 87.4)}
# Paper, Table 33 VSR rows: scalar AUROC, best source-aware AUROC (method), Sel@60 of both (%).
TABLE33_VSR = {"gemma_vl": (0.712, 0.654, "penalty", 81.4, 81.4),
               "llava_mistral": (0.685, 0.680, "weighted", 79.9, 80.4),
               "llava_vicuna": (0.685, 0.702, "penalty", 60.8, 63.2),
               "qwen_vl": (0.802, 0.751, "penalty", 95.6, 95.1)}


def test_table14_is_table13_summed_per_model_and_pooled() -> None:
    settings = [{"model": m, "dataset": d, "n": n, "dominant_v": v, "dominant_l": l,
                 "dominant_a": a} for m, d, n, v, l, a in TABLE13_DOMINANCE]
    got = dominance_summary(settings)
    assert [r["model"] for r in got] == [row[0] for row in TABLE14]
    for r, (_model, n, v, l, a) in zip(got, TABLE14):
        assert r["n"] == n
        assert (r["dominant_v"], r["share_v"]) == v
        assert (r["dominant_l"], r["share_l"]) == l
        assert (r["dominant_a"], r["share_a"]) == a
    assert got[-1]["datasets"] == ["HallusionBench", "POPE", "VSR", "VizWiz"]


@pytest.mark.parametrize("count,n,expected", [
    (1, 1360, "0.07%"), (1359, 1360, "99.93%"), (0, 5, "0.00%"), (1, 20001, "<0.01%"),
    (1, 20000, "0.01%"), (3, 0, "n/a")])
def test_share_hand_computed(count: int, n: int, expected: str) -> None:
    assert share(count, n) == expected


# ------------------------------------------------------------------ hand-counted synthetic pool

def _row(sample_id: str, c: float, v: float, l: float, a: float, correct: bool) -> dict:
    return {"sample_id": sample_id, "gold_answer": "true",
            "model_prediction": "true" if correct else "false", "scalar_confidence": c,
            "v_score": v, "lp_score": l, "a_score": a, "lp_answer_matches": True}


def _write(root: Path, model: str, dataset: str, rows: list[dict]) -> None:
    path = root / model / f"{dataset}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_pooled_summary_hand_counted(tmp_path: Path) -> None:
    # (c, V, L, A, correct) -> penalty c(1-max), weighted c(1-.3V-.3L-.4A), geometric
    # c((1-V)(1-L)(1-A))^(1/3), counted by hand:
    #   r1 0.9 (.1 .2 .3) T: pen 0.63,  wtd 0.711, geo 0.716; raw argmax A
    #   r2 0.8 (0 .9 0)   F: pen 0.08,  wtd 0.584, geo 0.371; argmax L
    #   r3 0.7 (0 0 0)    T: pen 0.70,  wtd 0.70,  geo 0.70;  argmax V (tie: V first)
    #   r4 0.6 (.5 .5 .5) F: pen 0.30,  wtd 0.30,  geo 0.30;  argmax V (tie: V first)
    _write(tmp_path, "m1", "d1", [_row("r1", 0.9, 0.1, 0.2, 0.3, True),
                                  _row("r2", 0.8, 0.0, 0.9, 0.0, False)])
    _write(tmp_path, "m2", "d1", [_row("r3", 0.7, 0.0, 0.0, 0.0, True),
                                  _row("r4", 0.6, 0.5, 0.5, 0.5, False),
                                  _row("r4", 0.6, 0.5, 0.5, 0.5, False)])  # duplicate: dropped
    s = pooled_summary(tmp_path, coverages=(0.25, 0.5, 0.75, 1.0))
    t14 = {r["model"]: (r["n"], r["dominant_v"], r["dominant_l"], r["dominant_a"])
           for r in s["table14"]}
    assert t14 == {"m1": (2, 0, 1, 1), "m2": (2, 2, 0, 0), "pooled": (4, 2, 1, 1)}
    assert s["settings"][1]["n_duplicates"] == 1
    pooled32 = s["table32"][-1]
    # Scalar: correct {0.9, 0.7} vs wrong {0.8, 0.6}: 3 of 4 pairs ordered right.
    assert pooled32["model"] == "pooled" and pooled32["auroc_scalar"] == pytest.approx(0.75)
    # Every source-aware score puts both correct rows above both wrong ones.
    for m in ("penalty", "weighted", "geometric"):
        assert pooled32[f"auroc_{m}"] == pytest.approx(1.0)
    assert pooled32["best_source_aware"] == "penalty"  # a tie goes to the first column
    # m1 alone: one correct (0.9) above one wrong (0.8) for every score.
    assert s["table32"][0]["auroc_scalar"] == 1.0
    risk = {p["coverage"]: p for p in s["table34"]}
    assert [p["n_answered"] for p in s["table34"]] == [1, 2, 3, 4]
    # 50%: scalar keeps r1 (T), r2 (F); penalty keeps r3, r1; weighted/geometric r1, r3.
    assert risk[0.5]["risk_scalar"] == pytest.approx(0.5)
    assert all(risk[0.5][f"risk_{m}"] == 0.0 for m in ("penalty", "weighted", "geometric"))
    # 75%: every score admits exactly one wrong row among three.
    assert all(risk[0.75][f"risk_{m}"] == pytest.approx(1 / 3)
               for m in ("scalar", "penalty", "weighted", "geometric"))
    # 100%: 2 wrong of 4 whatever the score; the tie names penalty, as Table 34 does.
    assert risk[1.0]["risk_scalar"] == pytest.approx(0.5)
    assert risk[1.0]["best_source_aware"] == "penalty"
    assert risk[1.0]["risk_best_source_aware"] == pytest.approx(0.5)


# ------------------------------------------------------------------ released VSR rows

@pytest.fixture(scope="module")
def decomposition(shared_data: Path) -> Path:
    return shared_data / "halluprism_reference" / "decomposition"


def test_released_vsr_pooled_tables(decomposition: Path) -> None:
    s = pooled_summary(decomposition)
    assert [(x["model"], x["dataset"]) for x in s["settings"]] == \
        [(m, "vsr") for m in TABLE13_VSR]
    t14 = {r["model"]: r for r in s["table14"]}
    for model, (n, v, l, a, _acc) in TABLE13_VSR.items():
        assert (t14[model]["n"], t14[model]["dominant_v"], t14[model]["dominant_l"],
                t14[model]["dominant_a"]) == (n, v, l, a)
    # Pool of the four VSR rows of Table 13: 1,360 items, 1,359 L-dominant, 1 A-dominant.
    p = t14["pooled"]
    assert (p["n"], p["dominant_v"], p["dominant_l"], p["dominant_a"]) == (1360, 0, 1359, 1)
    assert (p["share_l"], p["share_a"]) == ("99.93%", "0.07%")

    # Table 32 rows of a single-dataset model are its Table 33 VSR row.
    t32 = {r["model"]: r for r in s["table32"]}
    for model, (scalar, best_auroc, best, _sel_s, _sel_b) in TABLE33_VSR.items():
        assert round(t32[model]["auroc_scalar"], 3) == scalar
        if model in ("llava_mistral", "llava_vicuna"):  # reproduced to the printed digit
            assert t32[model]["best_source_aware"] == best
            assert round(t32[model]["auroc_best_source_aware"], 3) == best_auroc
    # Gemma and Qwen: the paper's source-aware AUROCs (0.654, 0.751) come from the reference's
    # sort-order tie-breaking over the many tied penalty scores; mid-ranks give less.
    assert t32["gemma_vl"]["auroc_penalty"] < 0.654 and t32["qwen_vl"]["auroc_penalty"] < 0.751

    # Table 34 on the VSR pool: at 100% coverage the risk is 1 - pooled accuracy, and the
    # accuracies of Table 13 (71.8, 70.3, 51.5, 87.4 % of 340) are 244 + 239 + 175 + 297 = 955.
    t34 = {p["coverage"]: p for p in s["table34"]}
    assert list(t34) == [0.05, 0.10, 0.20, 0.40, 0.60, 0.80, 1.00]
    for m in ("scalar", "penalty", "weighted", "geometric"):
        assert t34[1.0][f"risk_{m}"] == pytest.approx(1 - 955 / 1360)
    assert t34[1.0]["best_source_aware"] == "penalty"
    # Scalar risk at 5% and 10% by a plain sort (the scalar confidences at the cuts are not
    # tied, so no tie rule is involved): floor(1360 * 0.05) = 68 and 136 rows answered.
    rows = [r for _m, path in ((m, decomposition / m / "vsr.jsonl") for m in TABLE13_VSR)
            for r in load_decomposition(path)[0]]
    ranked = sorted(rows, key=lambda r: -r.confidence)
    for coverage, k in ((0.05, 68), (0.10, 136)):
        assert ranked[k - 1].confidence != ranked[k].confidence
        wrong = sum(1 for r in ranked[:k] if not r.correct)
        assert t34[coverage]["n_answered"] == k
        assert t34[coverage]["risk_scalar"] == pytest.approx(wrong / k)


def test_pooled_command_writes_json_markdown_csv(decomposition: Path, tmp_path: Path) -> None:
    out = tmp_path / "pooled"
    res = CliRunner().invoke(app, ["pooled", "--results", str(decomposition), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "| Pooled | 1,360 | 0 (0.00%) | 1,359 (99.93%) | 1 (0.07%) |" in res.output
    summary = json.loads((out / "pooled.json").read_text())
    assert summary["analysis"] == "pooled" and len(summary["table34"]) == 7
    md = (out / "pooled.md").read_text()
    assert "## Table 14" in md and "## Table 32" in md and "## Table 34" in md
    assert "| 100% | 1360 | 0.298 | 0.298 | 0.298 | 0.298 | 0.298 (Penalty) |" in md
    t14 = list(csv.DictReader(io.StringIO((out / "table14.csv").read_text())))
    assert [r["model"] for r in t14] == [*TABLE13_VSR, "pooled"]
    assert t14[-1]["dominant_l"] == "1359" and t14[-1]["n"] == "1360"
    t34 = list(csv.DictReader(io.StringIO((out / "table34.csv").read_text())))
    assert [r["coverage"] for r in t34] == ["0.05", "0.1", "0.2", "0.4", "0.6", "0.8", "1.0"]
    assert float(t34[-1]["risk_scalar"]) == pytest.approx(1 - 955 / 1360)
    t32 = list(csv.DictReader(io.StringIO((out / "table32.csv").read_text())))
    assert len(t32) == 5 and {"auroc_scalar", "best_source_aware"} <= set(t32[0])


def test_pooled_command_bad_input_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "res" / "m" / "vsr.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text(json.dumps(_row("a", 0.9, 0.1, 0.2, 0.3, True)) + "\n"
                   + json.dumps(_row("b", 1.5, 0.1, 0.2, 0.3, True)) + "\n")
    res = CliRunner().invoke(app, ["pooled", "--results", str(tmp_path / "res"),
                                   "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert "vsr.jsonl:2: field 'scalar_confidence' must be a number in [0, 1]" in res.output
    assert not (tmp_path / "o" / "pooled.json").exists()
