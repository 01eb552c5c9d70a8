"""Writes the bad-input corpus under `cases/` (run once; the files are committed).

    python tests/reliability/build_corpus.py

Every file is small and made here by hand, so what is wrong with it is stated next to it; the
expected outcome of each command on it is a row of `cases.jsonl`. Inputs that are large by
nature (a 1 MB caption, JSON nested 100,000 levels) are made by the test at run time instead.
"""

from __future__ import annotations

import io
import json
import struct
import zlib
from pathlib import Path

CASES = Path(__file__).resolve().parent / "cases"


def _png(width: int, height: int, seed: int = 0) -> bytes:
    """A valid RGB PNG with seeded pixels."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    buffer = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (height, width, 3), dtype=np.uint8)).save(buffer, "PNG")
    return buffer.getvalue()


def _jpeg(width: int, height: int, seed: int = 0) -> bytes:
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    buffer = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (height, width, 3), dtype=np.uint8)).save(buffer, "JPEG")
    return buffer.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _bomb_png() -> bytes:
    """A 60 KB-scale claim of 100,000 x 100,000 pixels (10 gigapixels): PIL refuses it at open
    (DecompressionBombError) before allocating anything."""
    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    row = b"\x00" + b"\x00" * 3 * 100_000
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(row, 9)) + _chunk(b"IEND", b""))


def _lines(*objects: object) -> str:
    return "".join(json.dumps(o) + "\n" for o in objects)


def _prism_row(sample_id: str, **changes: object) -> dict:
    """An invented HalluPrism result row in the released layout."""
    row = {"dataset_name": "VSR", "sample_id": sample_id, "image_path": "img/1.jpg",
           "text_input": "The cat is on the table.", "gold_answer": "true",
           "task_type": "spatial", "failure_family": "spatial", "relation": "on",
           "model_prediction": "true", "scalar_confidence": 0.9, "raw_response": "True",
           "is_correct": True, "lp_prediction": "false", "lp_confidence": 0.8, "lp_score": 0.7,
           "lp_answer_matches": False, "v_score": 0.3, "v_flip_rate": 0.25,
           "v_n_perturbations": 4, "a_score": 0.6, "cot_prediction": "a cat on a table",
           "cot_flipped": False, "cot_confidence": 0.7}
    row.update(changes)
    return row


def build() -> dict[str, int]:
    files: dict[str, bytes | str] = {}
    good = {"image_id": 1, "caption": "A dog sleeps on a couch next to a cat."}
    # ---- caption files (label, report, chair, signals)
    files["captions_good.jsonl"] = _lines(good, {"image_id": 2, "caption": "A cat on a bed."})
    files["captions_malformed.jsonl"] = _lines(good) + '{"image_id": 2, "caption": "a cat\n'
    files["captions_array.jsonl"] = json.dumps([good]) + "\n"
    files["captions_not_utf8.jsonl"] = (_lines(good).encode()
                                        + b'{"image_id": 2, "caption": "caf\xe9"}\n')
    files["captions_bom.jsonl"] = b"\xef\xbb\xbf" + _lines(good).encode()
    files["captions_surrogate.jsonl"] = '{"image_id": 1, "caption": "a dog \\ud800 on a couch"}\n'
    files["captions_nul_byte.jsonl"] = b'{"image_id": 1, "caption": "a dog\x00 on a couch"}\n'
    files["captions_nul_escape.jsonl"] = '{"image_id": 1, "caption": "a dog \\u0000 on a couch"}\n'
    files["captions_id_bool.jsonl"] = _lines({"image_id": True, "caption": "a dog"})
    files["captions_caption_number.jsonl"] = _lines({"image_id": 1, "caption": 42})
    files["captions_missing_caption.jsonl"] = _lines({"image_id": 1, "text": "a dog"})
    files["captions_empty.jsonl"] = ""
    files["captions_blank_lines.jsonl"] = "\n  \n\n"
    files["captions_whitespace.jsonl"] = _lines(good, {"image_id": 2, "caption": " \t "})
    files["captions_duplicate_id.jsonl"] = _lines(good, {"image_id": "1", "caption": "A cat."})
    files["captions_duplicate_key.jsonl"] = (
        '{"image_id": 1, "caption": "a dog", "caption": "a cat"}\n')
    files["captions_unknown_id.jsonl"] = _lines(good, {"image_id": 999, "caption": "A cat."})
    files["captions_no_objects.jsonl"] = _lines({"image_id": 1, "caption": "It is sunny."})
    # ---- annotations
    files["objects_good.json"] = json.dumps({"1": ["dog", "couch"], "2": ["cat", "bed"]})
    files["objects_bad_names.json"] = json.dumps({"1": ["Dog", "sofa"], "2": ["cat"]})
    files["objects_not_lists.json"] = json.dumps({"1": "dog", "2": ["cat"]})
    files["objects_array.json"] = json.dumps([{"image_id": 1, "objects": ["dog"]}])
    files["coco_no_annotations.json"] = json.dumps(
        {"images": [{"id": 1}, {"id": 2}], "categories": [{"id": 18, "name": "dog"}]})
    files["coco_annotation_no_category.json"] = json.dumps(
        {"images": [{"id": 1}, {"id": 2}], "categories": [{"id": 18, "name": "dog"}],
         "annotations": [{"id": 1, "image_id": 1}]})
    files["coco_truncated.json"] = json.dumps(
        {"images": [{"id": 1}], "categories": [], "annotations": []})[:40]
    files["chair_synonyms.txt"] = "dog, puppy\ncat, kitten\ncouch, sofa\nbed\n"
    # ---- images
    files["img_good.png"] = _png(32, 24, seed=1)
    files["img_zero_byte.jpg"] = b""
    jpeg = _jpeg(48, 32, seed=2)
    files["img_truncated.jpg"] = jpeg[:len(jpeg) // 2]
    png = _png(32, 24, seed=3)
    files["img_corrupt.png"] = png[:40] + bytes(b ^ 0x5A for b in png[40:])
    files["img_bomb.png"] = _bomb_png()
    files["img_text_as_jpeg.jpg"] = "this is not a JPEG\n"
    # ---- caption item files
    files["items_dotdot.jsonl"] = _lines({"image_id": 1, "image": "../outside/secret.jpg"})
    files["items_absolute.jsonl"] = _lines({"image_id": 1, "image": "/etc/hostname"})
    files["items_missing_image_field.jsonl"] = _lines({"image_id": 1, "path": "a.png"})
    files["items_duplicate_id.jsonl"] = _lines({"image_id": 1, "image": "a.png"},
                                               {"image_id": "1", "image": "b.png"})
    # ---- signals captions (with image paths)
    files["signals_dotdot.jsonl"] = _lines({"image_id": 1, "image": "../../etc/passwd",
                                            "caption": "A dog on a couch."})
    # ---- HalluPrism VSR items and released-layout results
    files["vsr_dotdot.jsonl"] = _lines(
        {"image": "img_good.png", "caption": "The dog is on the couch.", "label": 1,
         "relation": "on"},
        {"image": "../build_corpus.py", "caption": "The cat is on the bed.", "label": 0,
         "relation": "on"})  # a file that exists, one folder up from the image root
    files["vsr_bad_label.jsonl"] = _lines({"image": "a.png", "caption": "The dog is on it.",
                                           "label": 7, "relation": "on"})
    files["prism_truncated/m/vsr.jsonl"] = (_lines(_prism_row("vsr_dev_000000"))
                                            + json.dumps(_prism_row("vsr_dev_000001"))[:70])
    files["prism_bad_number/m/vsr.jsonl"] = _lines(_prism_row("vsr_dev_000000"),
                                                   _prism_row("vsr_dev_000001", v_score="high"))
    files["prism_no_sample_id/m/vsr.jsonl"] = _lines(_prism_row("vsr_dev_000000"),
                                                     _prism_row(""))
    files["prism_surrogate/m/vsr.jsonl"] = (
        _lines(_prism_row("vsr_dev_000000"))
        + json.dumps(_prism_row("vsr_dev_000001")).replace('"a cat on a table"',
                                                           '"a cat \\udc00 on"') + "\n")
    files["prism_empty/.keep"] = ""
    # ---- POPE (split files must be named after their split), AMBER, a VizWiz VQA file
    pope = {"question_id": 1, "image": "a.jpg", "text": "Is there a dog in the image?"}
    files["coco_pope_random_good.json"] = _lines(
        {**pope, "label": "yes"}, {**pope, "question_id": 2, "label": "no",
                                   "text": "Is there a cat in the image?"})
    files["coco_pope_random_no_label.json"] = _lines(pope)
    files["pope_answers_unknown_id.jsonl"] = _lines(
        {"question_id": 1, "text": "Yes"}, {"question_id": 2, "text": "No"},
        {"question_id": 99, "text": "No"})
    files["pope_answers_duplicate_id.jsonl"] = _lines({"question_id": 1, "text": "Yes"},
                                                      {"question_id": 1, "text": "No"})
    files["pope_answers_surrogate.jsonl"] = '{"question_id": 1, "text": "Yes \\udbff"}\n'
    files["amber_responses_no_id.json"] = json.dumps([{"response": "A dog."}])
    files["vizwiz_no_question.json"] = json.dumps(
        [{"image": "VizWiz_val_00000000.jpg", "answerable": 1,
          "answers": [{"answer": "soup", "answer_confidence": "yes"}]}])
    # ---- tiny-model and bench stores are made at run time (they depend on the installed
    # libraries' file formats); wrong-schema Parquet files are small and fixed:
    files["scores_not_parquet.parquet"] = "image_id,label\n1,concrete\n"
    CASES.mkdir(exist_ok=True)
    for name, content in sorted(files.items()):
        path = CASES / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode("utf-8", "surrogatepass")
        path.write_bytes(content)
    _wrong_schema_parquet(CASES / "labels_wrong_schema.parquet")
    for part in ("mentions", "captions"):  # a signal store whose shards have other columns
        (CASES / "signals_wrong_columns" / part).mkdir(parents=True, exist_ok=True)
        _wrong_schema_parquet(CASES / "signals_wrong_columns" / part / "shard-000000.parquet")
    return {"files": len(files) + 3}


def _wrong_schema_parquet(path: Path) -> None:
    """A valid Parquet file whose columns are not a labels table's."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"image": ["1.jpg", "2.jpg"], "score": [0.1, 0.9]}), path)


if __name__ == "__main__":
    print(build())
