"""`halluscope pope`: answers joined on question_id, every yes/no spelling, hedges counted apart.

Expected figures are worked out by hand in the comments (or from the raw split file's labels),
never taken from the code under test.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from halluscope.benchmark_jobs import pope_job
from halluscope.cli.main import app
from halluscope.errors import InputError
from halluscope.metrics.pope import PopeQuestion, llava_reading, pope_metrics
from halluscope.prism.answers import classify_yes_no as classify_answer

YES = ["Yes", "yes", " Yes", " yes", "YES", "Yes.", "yes.", " Yes.", "Yes,", "Yes!", "**Yes**",
       "'Yes'", '"yes"', "`yes`", "(Yes)", "\nYes", "Yes\n", "Yes, there is a dog in the image.",
       "yes, it is", "Answer: yes"]
NO = ["No", "no", " No", " no", "NO", "No.", "no.", " No.", "No,", "No!", "**No**", "'No'",
      '"no"', "`no`", "(No)", "\nNo", "no\n", "No, there is no dog.", "no, it is not",
      "Answer: no"]
HEDGED = ["There might be a dog.", "Possibly.", "Maybe", "It is hard to tell.",
          "I cannot determine that from the image.", "Not sure.", "It seems so.",
          "There may be a dog in the background."]
UNPARSED = ["", "   ", "\n", None, "A dog on the grass.", "yesterday", "Nobody knows.",
            "I think so."]


@pytest.mark.parametrize("text", YES)
def test_every_yes_spelling(text):
    assert classify_answer(text) == "yes"


@pytest.mark.parametrize("text", NO)
def test_every_no_spelling(text):
    assert classify_answer(text) == "no"


@pytest.mark.parametrize("text", HEDGED)
def test_hedges_are_their_own_class(text):
    assert classify_answer(text) == "hedged"


@pytest.mark.parametrize("text", UNPARSED)
def test_empty_and_unanswering_text_is_unparsed(text):
    assert classify_answer(text) == "unparsed"


def _questions(labels):
    return [PopeQuestion(str(i + 1), f"{i}.jpg", "Is there a dog?", lab)
            for i, lab in enumerate(labels)]


def test_hand_computed_metrics():
    qs = _questions(["yes"] * 5 + ["no"] * 5)
    texts = ["Yes", " yes", "YES.", "There might be a dog.", "No",      # yes items
             "No", " no", "Yes", "", "I think so."]                     # no items
    m = pope_metrics(qs, {str(i + 1): classify_answer(t) for i, t in enumerate(texts)})
    # yes items: TP 3, FN 2 (one hedge, one no); no items: TN 2, FP 1, two unparsed.
    assert (m["tp"], m["fn"], m["tn"], m["fp"]) == (3, 2, 2, 1)
    assert m["accuracy"] == pytest.approx(5 / 10)
    assert m["precision"] == pytest.approx(3 / 4)
    assert m["recall"] == pytest.approx(3 / 5)
    assert m["f1"] == pytest.approx(2 * 0.75 * 0.6 / (0.75 + 0.6))
    assert m["yes_ratio"] == pytest.approx(4 / 10)
    assert (m["n_hedged"], m["n_unparsed"]) == (1, 2)
    # LLaVA's parser reads the hedge, "" and "I think so." as yes: TP 4, FN 1, FP 3, TN 2.
    ll = pope_metrics(qs, {str(i + 1): llava_reading(t) for i, t in enumerate(texts)})
    assert (ll["tp"], ll["fn"], ll["fp"], ll["tn"]) == (4, 1, 3, 2)
    assert ll["f1"] == pytest.approx(2 * (4 / 7) * 0.8 / (4 / 7 + 0.8))


def test_a_model_that_never_says_yes():
    m = pope_metrics(_questions(["yes", "no"]), {"1": "no", "2": "no"})
    # precision has no denominator; F1 = 2TP / (2TP + FP + FN) = 0
    assert (m["precision"], m["recall"], m["f1"], m["yes_ratio"]) == (None, 0.0, 0.0, 0.0)


def test_llava_reading_matches_its_script():
    # first sentence only; the words No/no/not (case as written) mean no
    assert llava_reading("Yes. No.") == "yes"
    assert llava_reading("There is not a dog") == "no"
    assert llava_reading("Nope") == "yes"


def _write_split(path: Path, labels: list[str]) -> Path:
    path.write_text("".join(json.dumps({"question_id": i + 1, "image": f"{i}.jpg",
                                        "text": "Is there a dog in the image?", "label": lab})
                            + "\n" for i, lab in enumerate(labels)))
    return path


def _write_answers(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps({"question_id": q, "text": t}) + "\n" for q, t in rows))
    return path


def test_missing_and_duplicated_ids_are_one_error_naming_them(tmp_path):
    split = _write_split(tmp_path / "coco_pope_random.json", ["yes", "no", "yes", "no"])
    answers = _write_answers(tmp_path / "a.jsonl", [(1, "Yes"), (2, "No"), (2, "Yes"), (4, "No")])
    with pytest.raises(InputError) as err:
        pope_job([split], [answers])
    message = str(err.value)
    assert "missing question_id 3" in message and "duplicated question_id 2" in message
    assert "\n" not in message
    result = CliRunner().invoke(app, ["pope", "--split", str(split), "--answers", str(answers)])
    assert result.exit_code == 2
    assert "missing question_id 3" in result.output


def test_skip_bad_leaves_bad_ids_out_counted(tmp_path):
    split = _write_split(tmp_path / "coco_pope_random.json", ["yes", "no", "yes", "no"])
    answers = _write_answers(tmp_path / "a.jsonl",
                             [(1, "Yes"), (2, "No"), (2, "Yes"), (4, "Yes"), (9, "No")])
    m = pope_job([split], [answers], skip_bad=True)["splits"]["random"]
    assert m["skipped"] == {"missing": 1, "duplicated": 1, "unknown": 1}
    assert m["skipped_ids"] == {"missing": ["3"], "duplicated": ["2"], "unknown": ["9"]}
    # scored: q1 yes/Yes (TP), q4 no/Yes (FP)
    assert (m["n"], m["tp"], m["fp"], m["accuracy"]) == (2, 1, 1, 0.5)


def test_join_ignores_line_order(tmp_path):
    labels = ["yes", "no"] * 10
    split = _write_split(tmp_path / "coco_pope_popular.json", labels)
    rows = [(i + 1, "Yes" if (lab == "yes") != (i % 3 == 0) else "No")
            for i, lab in enumerate(labels)]
    ordered = pope_job([split], [_write_answers(tmp_path / "a.jsonl", rows)])
    random.Random(0).shuffle(rows)
    shuffled = pope_job([split], [_write_answers(tmp_path / "b.jsonl", rows)])
    assert ordered["splits"] == shuffled["splits"]


def test_corrected_labels(tmp_path):
    split = _write_split(tmp_path / "coco_pope_adversarial.json", ["yes", "yes", "no", "no"])
    # corrected: q2 becomes no, q4 is dropped as ambiguous
    labels = tmp_path / "repope_adversarial.json"
    labels.write_text("".join(json.dumps({"question_id": q, "image": "", "text": "", "label": l})
                              + "\n" for q, l in [(1, "yes"), (2, "no"), (3, "no")]))
    answers = _write_answers(tmp_path / "a.jsonl", [(1, "Yes"), (2, "No"), (3, "No"), (4, "No")])
    with pytest.raises(InputError, match="unknown question_id 4"):
        pope_job([split], [answers], label_files=[labels])
    m = pope_job([split], [answers], label_files=[labels], skip_bad=True)["splits"]["adversarial"]
    # against corrected labels every scored answer is right: TP 1, TN 2
    assert (m["n"], m["tp"], m["tn"], m["accuracy"], m["n_questions"]) == (3, 1, 2, 1.0, 3)


def test_probe_store_rows(tmp_path):
    split = _write_split(tmp_path / "coco_pope_random.json", ["yes", "no"])
    store = tmp_path / "model" / "pope.jsonl"
    store.parent.mkdir()
    store.write_text("".join(json.dumps(r) + "\n" for r in [
        {"sample_id": "pope_random_000002", "raw_response": "No, there is not.",
         "model_prediction": "no", "pope_split": "random"},
        {"sample_id": "pope_random_000001", "raw_response": "There may be one.",
         "model_prediction": ""}]))
    m = pope_job([split], [store])["splits"]["random"]
    assert (m["tn"], m["n_hedged"], m["fn"]) == (1, 1, 1)


def test_real_split_with_flipped_answers(shared_data, tmp_path):
    path = shared_data / "pope" / "coco_pope_random.json"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    n_yes = sum(r["label"] == "yes" for r in rows)
    n_no = len(rows) - n_yes
    # Answer every question correctly, then flip the first 100 yes items to "No" and the first
    # 40 no items to " yes"; the answers file is written in reverse order.
    flipped_yes = [r["question_id"] for r in rows if r["label"] == "yes"][:100]
    flipped_no = [r["question_id"] for r in rows if r["label"] == "no"][:40]
    answers = []
    for r in reversed(rows):
        right = "Yes" if r["label"] == "yes" else "No"
        text = "No" if r["question_id"] in flipped_yes else \
            " yes" if r["question_id"] in flipped_no else right
        answers.append((r["question_id"], text))
    result = pope_job([path], [_write_answers(tmp_path / "a.jsonl", answers)])
    m = result["splits"]["random"]
    tp, fn, fp, tn = n_yes - 100, 100, 40, n_no - 40
    assert (m["tp"], m["fn"], m["fp"], m["tn"]) == (tp, fn, fp, tn)
    assert m["f1"] == pytest.approx(2 * tp / (2 * tp + fp + fn))
    assert m["accuracy"] == pytest.approx((tp + tn) / len(rows))
    assert m["yes_ratio"] == pytest.approx((tp + fp) / len(rows))
    assert result["average"]["f1"] == pytest.approx(m["f1"])
    # 2,910 answers against the 3,000 questions: an error naming the missing ids, never a
    # shifted join.
    short = _write_answers(tmp_path / "short.jsonl", answers[90:])
    with pytest.raises(InputError, match=r"missing question_id .*\(\+80 more\)"):
        pope_job([path], [short])


def test_average_over_three_real_splits(shared_data, tmp_path):
    files = [shared_data / "pope" / f"coco_pope_{s}.json" for s in
             ("random", "popular", "adversarial")]
    answer_files = []
    f1 = []
    for k, f in enumerate(files):
        rows = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
        # wrong on every (k+3)-th question
        ans = [(r["question_id"], ("Yes" if r["label"] == "yes" else "No")
                if i % (k + 3) else ("No" if r["label"] == "yes" else "Yes"))
               for i, r in enumerate(rows)]
        tp = sum(1 for i, r in enumerate(rows) if r["label"] == "yes" and i % (k + 3))
        fn = sum(1 for i, r in enumerate(rows) if r["label"] == "yes" and not i % (k + 3))
        fp = sum(1 for i, r in enumerate(rows) if r["label"] == "no" and not i % (k + 3))
        f1.append(2 * tp / (2 * tp + fp + fn))
        # one answers file per split, named the way lmms-eval names its tasks
        name = ["pope_random", "pope_pop", "pope_adv"][k]
        answer_files.append(_write_answers(tmp_path / f"{name}.jsonl", ans))
    result = pope_job(files, answer_files)
    assert result["average"]["f1"] == pytest.approx(sum(f1) / 3)
    cli = CliRunner().invoke(app, ["pope", *sum([["--split", str(f)] for f in files], []),
                                   *sum([["--answers", str(f)] for f in answer_files], []),
                                   "--out", str(tmp_path / "r.json")])
    assert cli.exit_code == 0, cli.output
    assert f"{100 * sum(f1) / 3:.2f}" in cli.output
    assert json.loads((tmp_path / "r.json").read_text())["average"]["f1"] == \
        pytest.approx(sum(f1) / 3)
