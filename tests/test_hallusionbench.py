"""`halluscope hallusionbench`: aAcc, fAcc, qAcc grouped as the benchmark's own scorer groups them.

The release-wide figures come from the official scorer (`utils.py` of tianyi-lab/HallusionBench:
`assign_correctness`, `get_eval_all`, `get_eval_fig`, `get_eval_pair_all`), run outside this
repository on the same synthetic answers, with its GPT judge replaced by the code each synthetic
answer implies (hedge -> 2 "unclear", empty -> 0, right label -> 1, wrong label -> 0).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from halluscope.benchmark_jobs import hallusionbench_job
from halluscope.cli.main import app
from halluscope.errors import InputError
from halluscope.metrics.hallusionbench import HBQuestion, hallusionbench_metrics
from halluscope.prism.answers import classify_yes_no

# (correct, total) per metric from the reference run: overall, VD, VS.
REFERENCE = {"all": {"aAcc": (607, 1129), "fAcc": (48, 346), "qAcc": (100, 455)},
             "VD": {"aAcc": (308, 591), "fAcc": (39, 230), "qAcc": (74, 277)},
             "VS": {"aAcc": (299, 538), "fAcc": (9, 116), "qAcc": (26, 178)}}


def synthetic_answer(i: int, gt: str) -> str:
    """The rule the reference run used, by release index."""
    if i % 13 == 0:
        return "I cannot tell without more information."
    if i % 17 == 0:
        return ""
    right = (i * 7) % 10 < 6
    yes = (gt == "1") == right
    spell = (["Yes", " yes", "YES.", "**Yes**", "yes, it is"] if yes else
             ["No", " no", "NO.", "**No**", "no, it is not"])
    return spell[i % 5]


@pytest.fixture(scope="module")
def release(shared_data: Path) -> Path:
    return shared_data / "hallusionbench" / "HallusionBench.json"


def _answers_file(path: Path, release: Path, keep=lambda q: True) -> Path:
    rows = json.loads(release.read_text())
    with path.open("w") as f:
        for i, q in enumerate(rows):
            if keep(q):
                f.write(json.dumps({**{k: q[k] for k in ("category", "subcategory", "set_id",
                                                         "figure_id", "question_id")},
                                    "text": synthetic_answer(i, q["gt_answer"])}) + "\n")
    return path


def test_release_matches_the_official_scorer(release, tmp_path):
    r = hallusionbench_job(release, [_answers_file(tmp_path / "a.jsonl", release)])
    assert (r["n_questions"], r["n_figures"], r["n_pairs"]) == (1129, 346, 455)
    assert r["subset"] is False
    for name, ref in REFERENCE.items():
        got = r if name == "all" else r["by_category"][name]
        for metric, (correct, total) in ref.items():
            assert got[metric] == pytest.approx(correct / total), (name, metric)
    # 87 indices are multiples of 13, 61 more are multiples of 17 only
    assert (r["n_hedged"], r["n_unparsed"]) == (87, 61)


def test_hand_built_groups():
    # one VD set with two figures and two questions each; one VS set asked without and with
    # its figure
    qs = [HBQuestion("VD", "map", "0", "0", "0", "1", "1"),
          HBQuestion("VD", "map", "0", "0", "1", "0", "1"),
          HBQuestion("VD", "map", "0", "1", "0", "0", "2"),
          HBQuestion("VD", "map", "0", "1", "1", "1", "2"),
          HBQuestion("VS", "chart", "0", "0", "0", "1", "0"),
          HBQuestion("VS", "chart", "0", "1", "0", "1", "1"),
          HBQuestion("VS", "chart", "1", "0", "0", "0", "0"),
          HBQuestion("VS", "chart", "1", "1", "0", "0", "1")]
    texts = ["Yes", "no.", "No", "Maybe.",          # VD: the hedge on a figure is wrong
             "Hard to say.", "Yes",                 # VS set 0: unsure without figure is right
             "", "No"]                              # VS set 1: unparsed is never right
    m = hallusionbench_metrics(qs, {q.key: classify_yes_no(t) for q, t in zip(qs, texts)})
    # correct: T T T F | T T | F T -> 6/8
    assert m["aAcc"] == pytest.approx(6 / 8)
    # figures (VS without figure excluded): VD0 [T,T] ok, VD1 [T,F] no, VS0f1 ok, VS1f1 ok -> 3/4
    assert m["fAcc"] == pytest.approx(3 / 4)
    # pairs: VD q0 [T,T] ok, VD q1 [T,F] no, VS0 q0 [T,T] ok, VS1 q0 [F,T] no -> 2/4
    assert m["qAcc"] == pytest.approx(2 / 4)
    assert (m["n_hedged"], m["n_unparsed"]) == (2, 1)


def test_count_checked_against_the_release(release, tmp_path):
    images_only = _answers_file(tmp_path / "a.jsonl", release,
                                keep=lambda q: q["visual_input"] != "0")
    with pytest.raises(InputError, match="cover 951 of the release's 1129 questions"):
        hallusionbench_job(release, [images_only])
    r = hallusionbench_job(release, [images_only], allow_subset=True)
    assert (r["subset"], r["n_questions"], r["n_missing"]) == (True, 951, 178)
    cli = CliRunner().invoke(app, ["hallusionbench", "--release", str(release), "--answers",
                                   str(images_only)])
    assert cli.exit_code == 2 and "--allow-subset" in cli.output


def test_duplicated_answer_is_an_error(release, tmp_path):
    path = _answers_file(tmp_path / "a.jsonl", release)
    with path.open("a") as f:
        f.write(json.dumps({"category": "VD", "subcategory": "illusion", "set_id": "0",
                            "figure_id": "0", "question_id": "0", "text": "Yes"}) + "\n")
    with pytest.raises(InputError, match=r"a\.jsonl:1130: .*second answer to VD_illusion_0_0_0"):
        hallusionbench_job(release, [path])


def test_cli_prints_the_three_accuracies(release, tmp_path):
    path = _answers_file(tmp_path / "a.jsonl", release)
    cli = CliRunner().invoke(app, ["hallusionbench", "--release", str(release), "--answers",
                                   str(path), "--out", str(tmp_path / "r.json")])
    assert cli.exit_code == 0, cli.output
    assert f"aAcc={100 * 607 / 1129:.2f} fAcc={100 * 48 / 346:.2f} qAcc={100 * 100 / 455:.2f}" \
        in cli.output
    assert json.loads((tmp_path / "r.json").read_text())["n_questions"] == 1129
