"""The analyses the paper reports without a table (§4.1's three-class position match and median
relative positions, Table 12 pooled over models, Figure 1's "after 20 examples"), each on
synthetic mentions whose expected figures are counted by hand.

Features are built so that the trained probe's flags follow from the features alone: the probe
(hidden_mid, a logistic regression) is fitted on concrete (first feature in [0, 1]) vs
hallucinated (first feature 3) mentions, which the first feature separates, so it ranks by it;
non-assertive mentions at +5 score above every concrete mention (flagged whatever the exact 10%
threshold) and those at -5 below every one (never flagged)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from halluscope.bench.protocol import split_images
from halluscope.cli.bench import app

N_IMAGES = 30


def _write(root: Path, plan: list[tuple[str, str | None, int, float, float]],
           relative: list[float] | None = None) -> tuple[Path, Path]:
    """Every image gets the mentions of `plan`: (class, subtype, token position, feature a,
    feature b); concrete feature a gets a small per-image jitter in [0, 1]."""
    root.mkdir(parents=True, exist_ok=True)
    labels, signals = [], []
    for image in range(N_IMAGES):
        for m, (cls, sub, position, a, b) in enumerate(plan):
            if cls == "concrete":
                a = a + (image * len(plan) + m) / (N_IMAGES * len(plan) * 10)
            span = {"caption_index": image, "start": 10 * m, "end": 10 * m + 3}
            labels.append({**span, "image_id": 700 + image, "mention_index": m, "word": "dog",
                           "category": "dog", "excluded": False,
                           "usage": "non_assertive" if sub else "existential", "subtype": sub,
                           "error": None, "present": cls == "concrete",
                           "namebench_class": cls})
            row = {**span, "key": f"{image:03d}:{m:02d}", "mention_index": m,
                   "image_id": str(700 + image), "word": "dog", "category": "dog",
                   "caption_token_index": position, "hidden_mid_w4": [float(a), float(b)],
                   "lookback_ratio_w4": [[float(a), float(b)]]}
            if relative is not None:
                row["relative_token_position"] = relative[m]
            signals.append(row)
    labels_path = root / "labels.parquet"
    pq.write_table(pa.Table.from_pylist(labels), labels_path)
    (root / "signals" / "mentions").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(signals),
                   root / "signals" / "mentions" / "shard-000000.parquet")
    return labels_path, root / "signals"


def _tables(root: Path, labels: Path, signals: Path, names: str, seeds: int = 1,
            detector: str = "hidden_mid") -> dict:
    out = root / "out"
    result = CliRunner().invoke(app, ["tables", "--labels", str(labels), "--signals",
                                      str(signals), "--out", str(out), "--detectors",
                                      detector, "--seeds", str(seeds), "--tables", names,
                                      "--natural-share", "0.05"])
    assert result.exit_code == 0, result.output
    return json.loads((out / "extra_results.json").read_text())["tables"]


def _held_images(seed: int = 0) -> int:
    split = split_images([str(700 + i) for i in range(N_IMAGES)], seed)
    return sum(1 for v in split.values() if v == "heldout")


def test_three_class_position_match(tmp_path):
    # Position bins of 4 tokens: bin 0 holds 3 concrete, 1 hallucinated, 1 non-assertive (not
    # flagged); bin 5 holds 1 concrete, 1 hallucinated, 2 non-assertive (both flagged); bin 10
    # one non-assertive (flagged), no other class. Per held-out image the match keeps one of
    # each class in bins 0 and 5: 2 per class. NA FPR: all 3/4 = 75%, matched 1/2 = 50%.
    plan = [("concrete", None, 0, 0.0, 0.0), ("concrete", None, 1, 0.0, 0.0),
            ("concrete", None, 2, 0.0, 0.0), ("concrete", None, 20, 0.0, 0.0),
            ("hallucinated", None, 21, 3.0, 0.0), ("hallucinated", None, 1, 3.0, 0.0),
            ("non_assertive", "hedged", 22, 5.0, 0.0), ("non_assertive", "purpose", 23, 5.0, 0.0),
            ("non_assertive", "negation", 2, -5.0, 0.0),
            ("non_assertive", "depictive", 40, 5.0, 0.0)]
    labels, signals = _write(tmp_path, plan)
    row = _tables(tmp_path, labels, signals, "position3")["position3"]["rows"][0]
    assert row["detector"] == "hidden_mid"
    assert row["NA FPR all %"]["mean"] == pytest.approx(0.75)
    assert row["NA FPR matched %"]["mean"] == pytest.approx(0.5)
    assert row["change (points)"]["mean"] == pytest.approx(-0.25)
    assert row["halluc TPR matched %"]["mean"] == pytest.approx(1.0)
    assert row["matched per class"] == str(2 * _held_images())


def test_median_relative_position_per_class(tmp_path):
    plan = [("concrete", None, 0, 0.0, 0.0), ("concrete", None, 1, 0.0, 0.0),
            ("concrete", None, 2, 0.0, 0.0), ("hallucinated", None, 9, 3.0, 0.0),
            ("non_assertive", "hedged", 5, 5.0, 0.0), ("non_assertive", "negation", 6, 5.0, 0.0)]
    relative = [0.1, 0.2, 0.6, 0.9, 0.4, 0.5]
    labels, signals = _write(tmp_path, plan, relative)
    rows = {r["class"]: r for r in _tables(tmp_path, labels, signals, "relpos")["relpos"]["rows"]}
    # Every image repeats the plan: medians of {0.1, 0.2, 0.6}, {0.9}, {0.4, 0.5}.
    assert rows["concrete"]["median"] == pytest.approx(0.2)
    assert rows["concrete"]["n"] == 3 * N_IMAGES
    assert rows["hallucinated"]["median"] == pytest.approx(0.9)
    assert rows["non_assertive"]["median"] == pytest.approx(0.45)
    assert rows["non_assertive"]["q1"] == pytest.approx(0.4)  # 30 of 0.4, 30 of 0.5
    assert rows["non_assertive: hedged"]["median"] == pytest.approx(0.4)


def test_figure1_before_and_after_twenty_examples(tmp_path):
    # Lookback Lens (unscaled logistic regression). Non-assertive mentions look like
    # hallucinations on feature a and differ only on b, which every concrete and hallucinated
    # mention has at 0: before any non-assertive training b gets no weight, so they score
    # exactly as hallucinations (all flagged). Twenty of them as negatives put weight on b,
    # and at b = 1000 the smallest such weight sends them below every concrete mention (none
    # flagged). 16 fit images x 2 non-assertive mentions: 20 are available.
    plan = [("concrete", None, 0, 0.0, 0.0), ("concrete", None, 1, 0.0, 0.0),
            ("concrete", None, 2, 0.0, 0.0), ("hallucinated", None, 3, 3.0, 0.0),
            ("non_assertive", "hedged", 4, 3.0, 1000.0),
            ("non_assertive", "negation", 5, 3.0, 1000.0)]
    labels, signals = _write(tmp_path, plan)
    tables = _tables(tmp_path, labels, signals, "figure1", detector="lookback_lens")
    row = tables["figure1"]["rows"][0]
    assert row["n mixed"] == "20"
    assert row["NA FPR before %"]["mean"] == pytest.approx(1.0)
    assert row["NA FPR after %"]["mean"] == pytest.approx(0.0)
    assert row["halluc TPR before %"]["mean"] == pytest.approx(1.0)
    assert row["hedged before %"]["mean"] == pytest.approx(1.0)
    examples = {r["group"]: r for r in tables["figure1_examples"]["rows"]}
    assert set(examples) == {"concrete", "hallucinated", "hedged", "negation"}
    assert examples["hedged"]["flagged before"] is True
    assert examples["hedged"]["flagged after"] is False


def _votes_dir(root: Path, rows: list[dict]) -> Path:
    root.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), root / "throne_votes.parquet")
    return root


def _vote(cls: str, sub: str | None, present: bool, yes: int, no: int) -> dict:
    return {"namebench_class": cls, "subtype": sub, "present": present, "n_yes": yes,
            "n_no": no, "n_failed": 0}


def test_table12_pools_models_per_judge(tmp_path):
    a = _votes_dir(tmp_path / "a", [_vote("hallucinated", None, False, 9, 0),
                                    _vote("non_assertive", "hedged", False, 5, 4),
                                    _vote("concrete", None, True, 9, 0)])
    b = _votes_dir(tmp_path / "b", [_vote("hallucinated", None, False, 4, 5),
                                    _vote("non_assertive", "hedged", False, 9, 0),
                                    _vote("non_assertive", "generic", False, 9, 0)])
    llama = _votes_dir(tmp_path / "c", [_vote("hallucinated", None, False, 2, 1),
                                        _vote("non_assertive", "hedged", False, 0, 3)])
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["table12", "--votes", f"flan={a}", "--votes",
                                      f"flan={b}", "--votes", f"llama={llama}", "--out",
                                      str(out)])
    assert result.exit_code == 0, result.output
    rows = {r["group"]: r for r in json.loads((out / "table12.json").read_text())["table"]["rows"]}
    # flan, pooled: hallucinated 9/0 (present) and 4/5 (absent by majority, disqualified by
    # unanimity): recall 1/2 under both rules; disqualified 1/2.
    assert rows["hallucinated"]["flan maj. %"]["mean"] == pytest.approx(0.5)
    assert rows["hallucinated"]["flan unan. %"]["mean"] == pytest.approx(0.5)
    assert rows["hallucinated"]["flan disq. %"]["mean"] == pytest.approx(0.5)
    # hedged 5/4 (majority present, unanimous disqualified) and 9/0: majority 2/2; unanimous
    # 1 of the 1 with a verdict; the generic mention is left out.
    assert rows["non_assertive"]["flan n"] == 2
    assert rows["non_assertive"]["flan maj. %"]["mean"] == pytest.approx(1.0)
    assert rows["non_assertive"]["flan unan. %"]["mean"] == pytest.approx(1.0)
    assert rows["non_assertive"]["flan disq. %"]["mean"] == pytest.approx(0.5)
    # llama: 2/1 majority present, unanimous disqualified; hedged 0/3 absent.
    assert rows["hallucinated"]["llama maj. %"]["mean"] == pytest.approx(1.0)
    assert rows["hallucinated"]["llama unan. %"]["mean"] == pytest.approx(0.0)
    assert rows["hedged"]["llama maj. %"]["mean"] == pytest.approx(0.0)
    assert "generic" not in rows
