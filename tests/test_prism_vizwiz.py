"""VizWiz-VQA: the official val annotation format, missing images, malformed files, VQA accuracy.

Every expected accuracy below is counted by hand from the ten annotator answers:
min(#annotators giving the normalised prediction / 3, 1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from halluscope.errors import InputError
from halluscope.prism.answers import normalize_open, score, vqa_accuracy
from halluscope.prism.datasets import load_dataset


def _answers(*groups: tuple[str, int]) -> list[dict[str, str]]:
    """Ten annotator answers in the official layout, e.g. ("red", 2), ("blue", 8)."""
    out = [{"answer": a, "answer_confidence": "yes"} for a, n in groups for _ in range(n)]
    assert len(out) == 10
    return out


def _entry(index: int, question: str, answers: list[Any], answerable: Any = 1,
           answer_type: str = "other") -> dict[str, Any]:
    return {"image": f"VizWiz_val_{index:08d}.jpg", "question": question, "answers": answers,
            "answer_type": answer_type, "answerable": answerable}


ENTRIES = [
    _entry(0, "What color is this shirt?", _answers(("Red", 2), ("blue", 8))),
    _entry(1, "What is in this can?", _answers(("soup", 4), ("tomato soup", 3), ("beans", 3))),
    _entry(2, "What does this say?", _answers(("unanswerable", 6), ("unsuitable", 1),
                                               ("stop", 3)), answerable=0,
           answer_type="unanswerable"),
    _entry(3, "How many coins are there?", _answers(("two", 5), ("2", 2), ("3", 3)),
           answer_type="number"),
]


def _write(tmp_path: Path, entries: list[Any] | str, with_images: tuple[int, ...] = (0, 1, 2)
           ) -> tuple[Path, Path]:
    from PIL import Image

    ann = tmp_path / "val.json"
    ann.write_text(entries if isinstance(entries, str) else json.dumps(entries, indent=1))
    images = tmp_path / "val"
    images.mkdir(exist_ok=True)
    for i in with_images:
        colour = (40 * i % 256, 200 - 30 * i, 90)
        Image.new("RGB", (24 + 8 * i, 20), colour).save(images / f"VizWiz_val_{i:08d}.jpg")
    return ann, images


def test_loads_official_format_and_counts_missing_images(tmp_path: Path) -> None:
    ann, images = _write(tmp_path, ENTRIES)  # image 3 is not written
    ds = load_dataset("vizwiz", ann, images_dir=images)
    assert [it.item_id for it in ds.items] == [f"vizwiz_val_{i:08d}" for i in range(4)]
    first = ds.items[0]
    assert first.question == "What color is this shirt?"
    assert first.answer == "blue"  # 8 of 10
    assert len(first.answers) == 10 and first.answers[:2] == ("Red", "Red")
    assert first.answer_type == "open" and first.answerable is True
    assert first.image == str(images / "VizWiz_val_00000000.jpg")
    # Majorities after normalisation: "two" and "2" are one answer (5 + 2 = 7 of 10); six
    # "unanswerable" plus one "unsuitable" make the unanswerable majority.
    assert ds.items[3].answer == "2"
    assert ds.items[2].answer == "unanswerable" and ds.items[2].answerable is False
    # The missing image is counted and named, never silently dropped.
    assert ds.missing_images == ["vizwiz_val_00000003"] and ds.n_missing_images == 1
    assert [it.item_id for it in ds.present()] == [f"vizwiz_val_{i:08d}" for i in range(3)]
    assert ds.summary() == {"dataset": "vizwiz", "file": str(ann), "n_items": 4,
                            "n_missing_images": 1, "n_excluded": 0}
    # Without an images folder every image counts as missing.
    assert load_dataset("vizwiz", ann).n_missing_images == 4


def test_answerable_flag_accepts_booleans_and_absence(tmp_path: Path) -> None:
    entries = [dict(ENTRIES[0], answerable=True), dict(ENTRIES[1], answerable=False),
               {k: v for k, v in ENTRIES[3].items() if k != "answerable"}]
    ann, _ = _write(tmp_path, entries, with_images=())
    assert [it.answerable for it in load_dataset("vizwiz", ann).items] == [True, False, None]


@pytest.mark.parametrize("entries,message", [
    ('[{"image": "VizWiz_val_00000000.jpg",', r"val\.json:1: not valid JSON"),
    ({"image": "x.jpg"}, r"val\.json: expected a JSON array"),
    (["not an object"], r"val\.json \[question 0\]: expected a JSON object"),
    ([ENTRIES[0], {k: v for k, v in ENTRIES[1].items() if k != "question"}],
     r"val\.json \[question 1\]: missing field 'question'"),
    ([dict(ENTRIES[0], question="  ")], r"\[question 0\]: field 'question' is empty"),
    ([dict(ENTRIES[0], answers=None)], r"\[question 0\]: field 'answers' has the wrong type"),
    ([dict(ENTRIES[0], answers=[])], r"\[question 0\]: field 'answers' is empty"),
    ([dict(ENTRIES[0], answers=[{"answer": None}] * 10)],
     r"\[question 0\]: answer 0 must be a string"),
    ([dict(ENTRIES[0], answers=[{"answer": "red"}] * 9 + [{"answer_confidence": "yes"}])],
     r"\[question 0\]: answer 9 must be a string"),
    ([dict(ENTRIES[0], answers=[{"answer": ""}] * 10)],
     r"\[question 0\]: no annotator gave a non-empty answer"),
    ([dict(ENTRIES[0], answerable="0")], r"\[question 0\]: field 'answerable' must be 0 or 1"),
    ([dict(ENTRIES[0], answerable=2)], r"\[question 0\]: field 'answerable' must be 0 or 1"),
    ([ENTRIES[0], ENTRIES[1], dict(ENTRIES[2], image="VizWiz_val_00000000.jpg")],
     r"\[question 2\]: duplicate image 'VizWiz_val_00000000.jpg'"),
])
def test_malformed_files_fail_naming_file_and_question(tmp_path: Path, entries: Any,
                                                       message: str) -> None:
    ann, images = _write(tmp_path, entries, with_images=())
    with pytest.raises(InputError, match=message) as info:
        load_dataset("vizwiz", ann, images_dir=images)
    assert str(ann) in str(info.value) and "\n" not in str(info.value)


def test_missing_files_fail(tmp_path: Path) -> None:
    ann, _ = _write(tmp_path, ENTRIES, with_images=())
    with pytest.raises(InputError, match="images folder not found"):
        load_dataset("vizwiz", ann, images_dir=tmp_path / "nope")
    with pytest.raises(InputError, match="data file not found"):
        load_dataset("vizwiz", tmp_path / "missing.json")


# ------------------------------------------------------------------ VQA accuracy

RED_BLUE = [a["answer"] for a in ENTRIES[0]["answers"]]  # Red x2, blue x8
SOUP = [a["answer"] for a in ENTRIES[1]["answers"]]  # soup x4, tomato soup x3, beans x3
UNANSWERABLE = [a["answer"] for a in ENTRIES[2]["answers"]]  # unanswerable x6, unsuitable, stop x3
COINS = [a["answer"] for a in ENTRIES[3]["answers"]]  # two x5, 2 x2, 3 x3


@pytest.mark.parametrize("prediction,answers,expected", [
    ("red", RED_BLUE, 2 / 3),  # 2 of 10 annotators
    ("**Red.**", RED_BLUE, 2 / 3),  # markup, case, punctuation normalised
    ("Blue", RED_BLUE, 1.0),  # 8 of 10, capped at 1
    ("green", RED_BLUE, 0.0),
    ("soup", SOUP, 1.0),  # 4 of 10: capped at 1
    ("Tomato soup", SOUP, 1.0),  # exactly 3
    ("beans.", SOUP, 1.0),
    ("a can of beans", SOUP, 0.0),  # not an annotator answer
    ("2", COINS, 1.0),  # "two" x5 + "2" x2
    ("Three", COINS, 1.0),  # "3" x3
    ("Unanswerable", UNANSWERABLE, 1.0),  # unanswerable x6 + unsuitable x1
    ("I can't tell from this image.", UNANSWERABLE, 1.0),
    ("The question cannot be answered.", UNANSWERABLE, 1.0),
    ("stop", UNANSWERABLE, 1.0),
    ("unanswerable", ["unanswerable"] + ["stop"] * 9, 1 / 3),  # 1 of 10
    ("", RED_BLUE, 0.0),
    ("   ", RED_BLUE, 0.0),
    (None, RED_BLUE, 0.0),
    ("The", ["the"] * 10, 0.0),  # only an article: nothing left, never a match
    ("", [""] * 10, 0.0),  # blank annotator answers never make a blank prediction right
])
def test_vqa_accuracy_hand_counted(prediction: str | None, answers: list[str],
                                   expected: float) -> None:
    assert vqa_accuracy(prediction, answers) == pytest.approx(expected)


def test_vqa_accuracy_exact_option_uses_the_majority() -> None:
    assert vqa_accuracy("blue", RED_BLUE, exact=True) == 1.0
    assert vqa_accuracy("red", RED_BLUE, exact=True) == 0.0  # 2/3 under the soft rule
    assert vqa_accuracy("two", COINS, exact=True) == 1.0  # majority "2" after normalisation
    assert vqa_accuracy("not answerable", UNANSWERABLE, exact=True) == 1.0
    assert vqa_accuracy("", ["unanswerable"] * 10, exact=True) == 0.0


def test_decimals_survive_normalisation() -> None:
    assert normalize_open("$2.99") == "2.99"
    assert vqa_accuracy("2.99", ["2.99"] * 3 + ["3"] * 7) == 1.0
    assert vqa_accuracy("2 99", ["2.99"] * 10) == 0.0


def test_empty_predictions_score_zero_and_stay_in_the_mean(tmp_path: Path) -> None:
    ann, images = _write(tmp_path, ENTRIES)
    items = load_dataset("vizwiz", ann, images_dir=images).items
    responses = ["Blue", "Soup", "", "3"]  # 1, 1, 0 (empty), 1
    judged = [score(r, it.answer_type, it.answer, it.answers) for r, it in zip(responses, items)]
    assert [j.accuracy for j in judged] == pytest.approx([1.0, 1.0, 0.0, 1.0])
    assert [j.parsed for j in judged] == [True, True, False, True]
    assert [j.correct for j in judged] == [True, True, False, True]
    # The empty answer is counted in the mean (3/4), not dropped (which would give 1).
    assert sum(j.accuracy for j in judged) / len(judged) == pytest.approx(0.75)
    # A 2-of-10 answer has accuracy 2/3 but is not "correct" (that needs accuracy 1).
    red = score("red", items[0].answer_type, items[0].answer, items[0].answers)
    assert red.accuracy == pytest.approx(2 / 3) and not red.correct and red.parsed


# ------------------------------------------------------------------ probing a VizWiz file

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")



def test_probe_command_on_vizwiz_reports_missing_images(tiny_qwen: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from halluscope.cli.prism import app

    ann, images = _write(tmp_path, ENTRIES[:3] + [ENTRIES[3]], with_images=(0, 2))
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["probe", "--model", str(tiny_qwen), "--dataset", "vizwiz",
                                   "--data", str(ann), "--images", str(images), "--out", str(out),
                                   "--batch-size", "2", "--max-new-tokens", "4"])
    assert res.exit_code == 0, res.output
    assert "items=4 probed=2" in res.output and "missing_images=2" in res.output
    rows = [json.loads(x) for x in (out / "tiny_qwen" / "vizwiz.jsonl").read_text().splitlines()]
    assert [r["sample_id"] for r in rows if r.get("skipped")] == ["vizwiz_val_00000001",
                                                                  "vizwiz_val_00000003"]
    probed = [r for r in rows if not r.get("skipped")]
    assert [r["sample_id"] for r in probed] == ["vizwiz_val_00000000", "vizwiz_val_00000002"]
    for r, entry in zip(probed, (ENTRIES[0], ENTRIES[2])):
        assert r["task_type"] == "open_ended" and r["answerable"] == bool(entry["answerable"])
        # The stored accuracy is the hand rule on the stored prediction: annotators are counted
        # after the same normalisation, an empty prediction scores 0 and is never correct.
        pred = r["model_prediction"]
        gold = [normalize_open(a["answer"]) for a in entry["answers"]]
        want = min(sum(g == pred for g in gold) / 3, 1.0) if pred else 0.0
        assert r["vqa_accuracy"] == pytest.approx(want)
        assert r["is_correct"] == (want == 1.0) and r["is_parsed"] == bool(pred)
        assert set(r) >= {"v_score", "lp_score", "a_score"}
