"""`make demo`'s HalluPrism part: items written from the generated images, probes, analyses
and report on a tiny random LLaVA, deterministic across reruns."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from halluscope.demo.images import demo_scene, write_demo_images
from halluscope.demo.prism_demo import (OPPOSITE, POPE_FILE, VSR_FILE, demo_scenes,
                                        nameable_shapes, run_prism_demo, spatial_facts)
from halluscope.errors import InputError
from halluscope.prism.datasets import load_pope, load_vsr


@pytest.fixture(scope="module")
def demo_model(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A tiny LLaVA (small image size: fast) and demo images, as model_demo writes them."""
    from halluscope.models import make_tiny

    root = tmp_path_factory.mktemp("prism_demo")
    model = make_tiny("llava", root / "tiny-llava", layers=2, hidden=32, image_size=56)
    write_demo_images(root / "images", 12, size=112)
    return model, root / "images"


def _strict_json(text: str) -> object:
    def refuse(name: str) -> float:
        raise AssertionError(f"non-finite number {name} in JSON output")

    return json.loads(text, parse_constant=refuse)


def _outputs(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*")) if p.suffix in (".json", ".jsonl")}


def test_prism_demo_writes_parsable_inputs_results_and_report(demo_model, tmp_path: Path) -> None:
    model, images = demo_model
    out = tmp_path / "prism"
    printed: list[str] = []
    summary = run_prism_demo(out, printed.append, model, images)

    vsr = load_vsr(out / "inputs" / VSR_FILE, images)
    pope = load_pope(out / "inputs" / POPE_FILE, images)
    assert len(vsr.items) == len(pope.items) == 6
    assert vsr.n_missing_images == pope.n_missing_images == 0
    assert [it.answer for it in vsr.items] == ["true", "false"] * 3
    assert [it.answer for it in pope.items] == ["yes", "no"] * 3
    for name in ("results/tiny-llava/vsr.jsonl", "results/tiny-llava/pope.jsonl", "profile.json",
                 "abstain.json", "routing.json", "summary.json", "entanglement/entanglement.json",
                 "interventions/tiny-llava/vsr.jsonl",
                 "entanglement/ruined/visual/tiny-llava/vsr.jsonl", "report/report.md"):
        assert (out / name).is_file(), name
    html = (out / "report" / "report.html").read_text(encoding="utf-8")
    assert "<html" in html and "Source profile" in html
    outputs = _outputs(out)
    for name, text in outputs.items():
        lines = name.endswith(".jsonl") or name.endswith(POPE_FILE)  # POPE's .json is JSON lines
        for line in (text.splitlines() if lines else [text]):
            _strict_json(line)
    # every probed row got its (V, L, A); undefined metrics are None, with a note
    for name in ("vsr", "pope"):
        rows = [json.loads(x) for x in outputs[f"results/tiny-llava/{name}.jsonl"].splitlines()]
        assert len(rows) == 6 and all(math.isfinite(r["v_score"]) for r in rows)
    for row in summary["abstain"]:
        if row["auroc_scalar"] is None:
            assert any(f"/{row['dataset']}: AUROC undefined" in n for n in summary["notes"])
    assert {r["dataset"] for r in summary["profile"]} == {"vsr", "pope"}
    # every item ran under every correction, so each routing policy is scored on all six
    for row in summary["routing"]:
        assert all(row[arm]["n_evaluable"] == 6 for arm in ("generic", "matched", "permuted"))
    assert "random vision weights" in printed[-1] and "report.html" in printed[-1]

    # a rerun into the same folder writes byte-identical JSON
    run_prism_demo(out, printed.append, model, images)
    assert _outputs(out) == outputs


def test_items_are_true_of_the_drawn_scenes() -> None:
    """Gold answers come from the shapes: a true VSR caption is a spatial fact of its image, a
    false one its opposite; POPE "yes" objects are drawn and unoccluded, "no" colours absent."""
    from halluscope.demo.prism_demo import pope_rows, vsr_rows

    scenes = [(f"{i + 1:012d}.png", demo_scene(i)) for i in range(36)]
    by_name = dict(scenes)
    for row in vsr_rows(scenes, 6):
        facts = {(a.name, rel, b.name) for a, rel, b in spatial_facts(by_name[row["image"]])}
        a, b = row["caption"][4:-1].split(f" is {row['relation']} the ")
        rel = row["relation"] if row["label"] else OPPOSITE[row["relation"]]
        assert (a, rel, b) in facts, row
    for row in pope_rows(scenes, 6):
        scene = by_name[row["image"]]
        name = row["text"].split(" ", 3)[3].removesuffix(" in the image?")
        if row["label"] == "yes":
            assert name in {s.name for s in nameable_shapes(scene)}
        else:
            assert name.split()[0] not in {s.colour for s in scene.shapes}


def test_images_drawn_otherwise_are_refused(tmp_path: Path) -> None:
    write_demo_images(tmp_path, 2, size=64, seed=1)
    with pytest.raises(InputError, match="drawn with seed 0"):
        demo_scenes(tmp_path, seed=0)
    assert len(demo_scenes(tmp_path, seed=1)) == 2
