"""`halluscope chair-gt` (CHAIR's ground truth = instances ∪ objects named in the reference
captions) against the reference's own table, and `report` using it by default."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from halluscope.cli.main import app
from halluscope.metrics.chair import load_gt_objects


def test_chair_gt_reproduces_the_reference_ground_truth(shared_data: Path, tmp_path: Path):
    # val2017 images are COCO-2014 images (same ids, instances, captions): the table built from
    # the mini val2017 files must equal the reference's chair.pkl rows for those 79 images.
    mini = shared_data / "coco" / "mini_val2017"
    reference = shared_data / "coco" / "chair_gt_objects_coco2014.json"
    out = tmp_path / "gt.json"
    result = CliRunner().invoke(app, [
        "chair-gt", "--instances", str(mini / "instances_val2017.json"), "--captions",
        str(mini / "captions_val2017.json"), "--out", str(out), "--chair-vocab",
        str(shared_data / "chair_reference" / "chair_vocabulary.json"),
        "--compare", str(reference)])
    assert result.exit_code == 0, result.output
    assert "79 of 79 images identical" in result.output
    built = load_gt_objects(out)
    expected = load_gt_objects(reference)
    assert len(built) == 79 and all(built[k] == expected[k] for k in built)
    # The captions add objects the instances lack (CHAIR's reading): counted from the raw
    # instances file, the union must be strictly larger.
    instances = json.loads((mini / "instances_val2017.json").read_text())
    names = {c["id"]: c["name"] for c in instances["categories"]}
    pairs = {(a["image_id"], names[a["category_id"]]) for a in instances["annotations"]}
    assert sum(len(v) for v in built.values()) > len(pairs)


def _coco(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    instances = tmp_path / "instances.json"
    instances.write_text(json.dumps({
        "images": [{"id": 1}], "categories": [{"id": 18, "name": "dog"}, {"id": 17, "name": "cat"}],
        "annotations": [{"image_id": 1, "category_id": 18}]}))
    references = tmp_path / "captions_ref.json"
    references.write_text(json.dumps({"images": [{"id": 1}], "annotations": [
        {"image_id": 1, "caption": "A dog sleeps next to a kitten."}]}))
    synonyms = tmp_path / "synonyms.txt"
    synonyms.write_text("dog, puppy\ncat, kitten\n")
    captions = tmp_path / "captions.jsonl"
    captions.write_text(json.dumps({"image_id": 1, "caption": "A dog and a cat."}) + "\n")
    return instances, references, synonyms, captions


def test_report_uses_instances_and_reference_captions_by_default(tmp_path: Path):
    instances, references, synonyms, captions = _coco(tmp_path)
    base = ["report", "--captions", str(captions), "--annotations", str(instances),
            "--chair-vocab", str(synonyms), "--bootstrap", "10"]
    union = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "u"), "--chair-captions",
                                     str(references)])
    assert union.exit_code == 0, union.output
    only = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "i"), "--chair-captions",
                                    str(references), "--chair-instances-only"])
    assert only.exit_code == 0, only.output
    summary_u = json.loads((tmp_path / "u" / "summary.json").read_text())
    summary_i = json.loads((tmp_path / "i" / "summary.json").read_text())
    # By hand: "dog" and "cat" mentioned; the instances hold dog, the reference caption names
    # a kitten (cat). Union: nothing hallucinated; instances only: cat, 1 of 2 mentions.
    assert summary_u["chair"]["CHAIRi"] == 0.0 and summary_u["chair"]["CHAIRs"] == 0.0
    assert summary_i["chair"]["CHAIRi"] == 0.5 and summary_i["chair"]["CHAIRs"] == 1.0
    assert summary_u["inputs"]["chair_gt_source"] == "instances ∪ reference captions"
    assert summary_i["inputs"]["chair_gt_source"] == "instances only (--annotations)"
