"""CHAIR: the reference example, the vocabulary loader and the reference's special cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from halluscope.errors import ConfigError, InputError
from halluscope.metrics.chair import (caption_to_words, chair_ground_truth, compute_chair,
                                      load_gt_objects)
from halluscope.vocab.chair import (ENV_VAR, ChairVocabulary, load_chair_vocabulary,
                                    reference_double_words)

# A tiny table in the synonyms.txt layout (our own lines, not the third-party file).
SMALL_TXT = "person, man, woman, passenger\ndog, puppy\ncow, calf\nchair, seat\ntoilet\n" \
            "train\nhot dog\nwine glass\ncake,  cheesecake\n"


@pytest.fixture()
def small_vocab(tmp_path: Path) -> ChairVocabulary:
    path = tmp_path / "synonyms.txt"
    path.write_text(SMALL_TXT)
    return load_chair_vocabulary(path)


@pytest.fixture(scope="module")
def chair_vocab(shared_data: Path) -> ChairVocabulary:
    return load_chair_vocabulary(shared_data / "chair_reference" / "chair_vocabulary.json")


@pytest.fixture(scope="module")
def gt2014(shared_data: Path) -> dict[int, set[str]]:
    return load_gt_objects(shared_data / "coco" / "chair_gt_objects_coco2014.json")


# --- the shared reference example -------------------------------------------------------------

def test_example_equals_reference_output(shared_data: Path, chair_vocab: ChairVocabulary,
                                         gt2014: dict[int, set[str]]) -> None:
    ref_dir = shared_data / "chair_reference"
    records = [json.loads(line) for line in
               (ref_dir / "example_inputs.jsonl").read_text().splitlines() if line.strip()]
    expected = json.loads((ref_dir / "example_outputs.json").read_text())
    out = compute_chair(records, gt2014, chair_vocab)

    assert out["overall"] == expected["overall_metrics"]
    assert len(out["captions"]) == len(expected["sentences"])
    for got, ref in zip(out["captions"], expected["sentences"]):
        for key in ("image_id", "caption", "mscoco_hallucinated_words", "mscoco_generated_words",
                    "hallucination_idxs", "words", "metrics"):
            assert got[key] == ref[key], key
        # The reference lists its ground-truth set in (random) set order; ours is sorted.
        assert got["mscoco_gt_words"] == sorted(ref["mscoco_gt_words"])
        assert got["gt_words"] == sorted(ref["mscoco_gt_words"])
        assert got["generated_words"] == ref["mscoco_generated_words"]
        assert got["hallucinated_words"] == ref["mscoco_hallucinated_words"]


# --- vocabulary -------------------------------------------------------------------------------

def test_missing_vocabulary_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    with pytest.raises(ConfigError, match=ENV_VAR) as info:
        load_chair_vocabulary(None)
    assert "\n" not in str(info.value)


def test_env_var_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "synonyms.txt"
    path.write_text(SMALL_TXT)
    monkeypatch.setenv(ENV_VAR, str(path))
    assert load_chair_vocabulary().inverse_synonym_dict["puppy"] == "dog"
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nope.json"))
    with pytest.raises(ConfigError, match="does not exist"):
        load_chair_vocabulary()


def test_txt_layout_builds_reference_tables(small_vocab: ChairVocabulary) -> None:
    assert small_vocab.inverse_synonym_dict["passenger"] == "person"
    assert small_vocab.inverse_synonym_dict["cake"] == "cake"
    # The reference splits on ", " only: a doubled space leaves a form that never matches.
    assert " cheesecake" in small_vocab.mscoco_objects
    assert not small_vocab.is_object("cheesecake")
    assert small_vocab.double_word_dict == reference_double_words()


def _txt_from_json_layout(vocab: ChairVocabulary) -> str:
    """Rebuild synonyms.txt lines from mscoco_objects (a new line starts where the category
    changes, or at the empty form a blank line produced)."""
    lines: list[list[str]] = []
    previous: str | None = None
    for form in vocab.mscoco_objects:
        category = vocab.inverse_synonym_dict[form]
        if form == "" or category != previous or not lines:
            lines.append([form])
        else:
            lines[-1].append(form)
        previous = category
    return "\n".join(", ".join(line) for line in lines) + "\n"


def test_txt_layout_loads_like_json(chair_vocab: ChairVocabulary, tmp_path: Path) -> None:
    path = tmp_path / "synonyms.txt"
    path.write_text(_txt_from_json_layout(chair_vocab))
    from_txt = load_chair_vocabulary(path)
    assert from_txt.mscoco_objects == chair_vocab.mscoco_objects
    assert from_txt.inverse_synonym_dict == chair_vocab.inverse_synonym_dict
    assert from_txt.double_word_dict == chair_vocab.double_word_dict


@pytest.mark.parametrize("name,text,line", [
    ("v.json", '{"mscoco_objects": ["dog"],\n "inverse_synonym_dict": {"dog": "dog"},\n'
               ' "double_word_dict": {,}}', 3),
    ("v.json", '{"mscoco_objects": ["dog"],\n"double_word_dict": {}}', 1),
    ("v.json", '{"mscoco_objects": ["dog", "pup"],\n"inverse_synonym_dict": {"dog": "dog"},\n'
               '"double_word_dict": {}}', 2),
    ("v.json", '{"mscoco_objects": "dog",\n"inverse_synonym_dict": {},\n'
               '"double_word_dict": {}}', 1),
    ("v.txt", "dog, puppy\n, cat\n", 2),
    ("v.txt", "\n\n", 1),
])
def test_malformed_vocabulary(tmp_path: Path, name: str, text: str, line: int) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as info:
        load_chair_vocabulary(path)
    assert info.value.line == line
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert "\n" not in str(info.value)


def test_missing_vocabulary_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        load_chair_vocabulary(tmp_path / "absent.json")


# --- the reference's special cases ------------------------------------------------------------

def test_two_word_merges(small_vocab: ChairVocabulary) -> None:
    words, nodes, idxs, raw = caption_to_words(
        "A baby cow, two passenger trains and wine glasses.", small_vocab)
    # "baby cow" -> cow (not person), "passenger train" -> train, "wine glas" -> wine glass
    assert raw == ["a", "cow", ",", "two", "train", "and", "wine glass", "."]
    assert nodes == ["cow", "train", "wine glass"]
    assert idxs == [1, 5, 8]
    assert words == ["cow", "train", "wine glass"]


def test_toilet_seat_rule_and_its_index_quirk(small_vocab: ChairVocabulary) -> None:
    words, nodes, idxs, raw = caption_to_words("The seat of the toilet and a puppy.", small_vocab)
    assert "seat" in raw and nodes == ["toilet", "dog"]
    # The reference indexes the pre-removal positions with post-removal ones: toilet is token 4
    # and puppy token 7, but it reports 3 and 6. We keep that.
    assert idxs == [3, 6]
    # Without a toilet, a seat is a chair.
    assert caption_to_words("A seat.", small_vocab)[1] == ["chair"]
    # "toilet seat" merges to toilet before the rule applies.
    assert caption_to_words("A toilet seat.", small_vocab)[1] == ["toilet"]


def test_repeated_mentions_count_each_time(small_vocab: ChairVocabulary) -> None:
    out = compute_chair([{"image_id": 1, "caption": "A dog, a dog and a man."}],
                        {1: {"person"}}, small_vocab)
    caption = out["captions"][0]
    assert caption["generated_words"] == ["dog", "dog", "person"]
    assert caption["hallucinated_words"] == [["dog", "dog"], ["dog", "dog"]]
    assert caption["mscoco_hallucinated_words"] == [["dog", "dog"], ["dog", "dog"]]
    assert out["overall"] == {"CHAIRs": 1.0, "CHAIRi": 2 / 3, "Recall": 1.0}


def test_missing_ground_truth(small_vocab: ChairVocabulary) -> None:
    records = [{"image_id": 5, "caption": "A puppy."}]
    with pytest.raises(InputError, match="image 5"):
        compute_chair(records, {}, small_vocab)
    # The reference's defaultdict behaviour, on request.
    out = compute_chair(records, {}, small_vocab, missing_gt="empty")
    assert out["overall"] == {"CHAIRs": 1.0, "CHAIRi": 1.0, "Recall": 0.0}


@pytest.mark.parametrize("record", [{"image_id": "1", "caption": "x"},
                                    {"image_id": 1, "caption": None}, ["not", "a", "dict"]])
def test_bad_records(small_vocab: ChairVocabulary, record: object) -> None:
    with pytest.raises(InputError, match=r"\[record 1\]"):
        compute_chair([record], {1: set()}, small_vocab)  # type: ignore[list-item]


def test_ground_truth_from_coco_files(shared_data: Path, chair_vocab: ChairVocabulary,
                                      gt2014: dict[int, set[str]]) -> None:
    # val2017 images are COCO-2014 images with the same instances and captions, so building the
    # ground truth from the mini val2017 files must give the shared 2014 table's rows exactly.
    mini = shared_data / "coco" / "mini_val2017"
    gt = chair_ground_truth(mini / "instances_val2017.json", mini / "captions_val2017.json",
                            chair_vocab)
    assert len(gt) == 79
    assert all(gt[image_id] == gt2014[image_id] for image_id in gt)


def test_ground_truth_rejects_unknown_category(tmp_path: Path,
                                               small_vocab: ChairVocabulary) -> None:
    instances = tmp_path / "i.json"
    instances.write_text(json.dumps({"categories": [{"id": 1, "name": "zebra"}], "images": [],
                                     "annotations": [{"image_id": 3, "category_id": 1}]}))
    captions = tmp_path / "c.json"
    captions.write_text(json.dumps({"images": [], "annotations": []}))
    with pytest.raises(InputError, match="zebra"):
        chair_ground_truth(instances, captions, small_vocab)
