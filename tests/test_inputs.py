"""Bad input gets one line naming the file and line, or a counted skip when asked."""

import json

import pytest

from halluscope.data.captions import read_captions
from halluscope.data.presence import load_presence
from halluscope.errors import InputError
from halluscope.io.jsonl import SkipLog

GOOD = '{"image_id": 1, "caption": "A cat."}\n'


@pytest.mark.parametrize("bad_line, message", [
    (b"{not json\n", "malformed JSON"),
    (b'{"caption": "A cat."}\n', "missing field 'image_id'"),
    (b'{"image_id": 3}\n', "missing field 'caption'"),
    (b'{"image_id": 3, "caption": "   "}\n', "caption is empty"),
    (b'{"image_id": 3, "caption": 7}\n', "must be a string"),
    (b'{"image_id": null, "caption": "x"}\n', "image_id"),
    (b'[1, 2]\n', "expected a JSON object"),
    (b'{"image_id": 3, "caption": "caf\xe9"}\n', "not valid UTF-8"),
])
def test_bad_caption_line_names_file_and_line(tmp_path, bad_line, message):
    path = tmp_path / "caps.jsonl"
    path.write_bytes(GOOD.encode() + b"\n" + bad_line)
    with pytest.raises(InputError) as info:
        read_captions(path)
    text = str(info.value)
    assert text.startswith(f"{path}:3: ") and message in text and "\n" not in text


def test_skip_bad_records_and_counts(tmp_path):
    path = tmp_path / "caps.jsonl"
    path.write_bytes(GOOD.encode() + b"{oops\n" + b'{"image_id": 2, "caption": ""}\n'
                     + b'{"image_id": "5", "caption": "A dog."}\n')
    skips = SkipLog()
    records = read_captions(path, skip_bad=True, skips=skips)
    assert [(r.index, r.line, r.image_id) for r in records] == [(0, 1, 1), (3, 4, 5)]
    assert skips.count == 2 and [e["line"] for e in skips.entries] == [2, 3]


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_captions(tmp_path / "nope.jsonl")


def test_presence_formats(tmp_path):
    coco = {"images": [{"id": 1}, {"id": 2}], "annotations": [
        {"id": 1, "image_id": 1, "category_id": 18}], "categories": [{"id": 18, "name": "dog"}]}
    (tmp_path / "inst.json").write_text(json.dumps(coco))
    presence = load_presence(tmp_path / "inst.json")
    assert presence.is_present(1, "dog") and not presence.is_present(2, "dog")
    (tmp_path / "lists.json").write_text(json.dumps({"1": ["dog"], "000002": []}))
    presence = load_presence(tmp_path / "lists.json")
    assert presence.is_present(1, "dog") and presence.categories(2) == frozenset()
    with pytest.raises(InputError, match="not in the annotations"):
        presence.categories(3)


@pytest.mark.parametrize("content, message", [
    ('{"annotations": []}', "not a COCO instances file"),
    ('{"images": [], "annotations": [{"image_id": 1, "category_id": 9}], "categories": []}',
     "unknown category_id"),
    ('{"1": "dog"}', "expected a list"),
    ('[1, 2]', "COCO instances JSON or"),
    ('{"1": ["dog"],', "malformed JSON"),
])
def test_wrong_annotation_format(tmp_path, content, message):
    path = tmp_path / "ann.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message) as info:
        load_presence(path)
    assert str(path) in str(info.value)


def test_real_coco_instances(shared_data):
    presence = load_presence(shared_data / "coco" / "mini_val2017" / "instances_val2017.json")
    assert len(presence.objects) == 79
    raw = json.loads((shared_data / "coco" / "mini_val2017" / "instances_val2017.json")
                     .read_text())
    names = {c["id"]: c["name"] for c in raw["categories"]}
    first = raw["annotations"][0]
    assert presence.is_present(first["image_id"], names[first["category_id"]])
