import json

import pytest

from halluscope.errors import InputError
from halluscope.vocab import Vocabulary, load_vocabulary
from halluscope.vocab.coco import COCO_CATEGORIES, NAMEBENCH_FORMS
from halluscope.vocab.vocabulary import regular_plural


def test_eighty_categories_each_with_forms_entry():
    assert len(COCO_CATEGORIES) == 80 == len(set(COCO_CATEGORIES))
    assert set(NAMEBENCH_FORMS) == set(COCO_CATEGORIES)


@pytest.mark.parametrize("surface, category", [
    ("people", "person"), ("children", "person"), ("kids", "person"), ("ladies", "person"),
    ("knives", "knife"), ("puppies", "dog"), ("buses", "bus"), ("benches", "bench"),
    ("tennis racquets", "tennis racket"), ("hot dogs", "hot dog"), ("hotdogs", "hot dog"),
    ("cell phones", "cell phone"), ("Television", "tv"), ("TV sets", "tv"),
    ("remote controls", "remote"), ("hair dryers", "hair drier"), ("ski", "skis"),
    ("skis", "skis"), ("oxes", "cow"), ("sheep", "sheep"), ("dining tables", "dining table"),
    ("passersby", None), ("table", None), ("seat", None),
])
def test_surface_forms(surface, category):
    assert Vocabulary.namebench().category_of(surface) == category


def test_plural_rules():
    assert [regular_plural(w) for w in ("box", "match", "dish", "lady", "boy", "cat")] == [
        "boxes", "matches", "dishes", "ladies", "boys", "cats"]


def test_extend_with_json_file(tmp_path):
    path = tmp_path / "extra.json"
    path.write_text(json.dumps({"dog": ["hound"], "kangaroo": ["joey"]}))
    vocab = load_vocabulary(path)
    assert vocab.category_of("hounds") == "dog"
    assert vocab.category_of("joey") == "kangaroo"
    assert vocab.category_of("puppy") == "dog"          # the base is kept
    assert "orange" in vocab.excluded


def test_replace_with_synonyms_txt(tmp_path):
    path = tmp_path / "synonyms.txt"
    path.write_text("dog, hound, pooch\n# comment\ncat, kitty\n")
    vocab = load_vocabulary(path, mode="replace")
    assert vocab.categories == ["dog", "cat"]
    assert vocab.category_of("pooches") == "dog"
    assert vocab.category_of("person") is None


def test_conflicting_forms_are_an_error(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"dog": ["cat"]}))
    with pytest.raises(InputError, match="both"):
        load_vocabulary(path)


@pytest.mark.parametrize("content, message", [
    ("{not json", "malformed JSON"), ('{"dog": "hound"}', "expected"), ("{}", "no category"),
])
def test_bad_vocabulary_files(tmp_path, content, message):
    path = tmp_path / "v.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message) as info:
        load_vocabulary(path)
    assert str(path) in str(info.value)
