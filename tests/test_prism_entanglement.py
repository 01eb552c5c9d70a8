"""Interventional entanglement on real ruined inputs (paper Sec. 7.2, Appendix 9.3, Tables 15-19):
the ruin transforms, then clean and ruined probing end to end on a tiny random Qwen2.5-VL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from halluscope.prism.datasets import Item
from halluscope.prism.entanglement import (DECOY_QUESTIONS, OPPOSITE_PREFIX, ruin, ruin_image,
                                           ruin_language)
from halluscope.prism.probes import (ProbeConfig, ProbeStats, base_prompt_for, build_requests,
                                     negate_question, swap_relation)

VSR_ON = Item("vsr_dev_000000", "vsr", "", "The dog is on the surfboard.", "true", "truefalse",
              "on", "spatial")
VSR_TOUCH = Item("vsr_dev_000001", "vsr", "", "The cup is touching the plate.", "false",
                 "truefalse", "touching", "spatial")
POPE = Item("pope_random_000001", "pope", "", "Is there a snowboard in the image?", "yes", "yesno",
            failure_family_hint="object_hallucination", split="random")
HB = Item("hallusionbench_00001", "hallusionbench", "",
          "Is the red line longer than the blue line?", "no", "yesno")
VIZWIZ = Item("vizwiz_val_00000000", "vizwiz", "", "What is in this can?", "soup", "open",
              answers=("soup",) * 4 + ("beans",) * 6, answerable=True)
CONSTRAINTS = {"vsr": "Answer with only 'True' or 'False'.",
               "pope": "Answer with only 'Yes' or 'No'.",
               "hallusionbench": "Answer with only 'Yes' or 'No'.",
               "vizwiz": "If the image is too unclear to answer, or the question cannot be "
                         "answered from the image, say 'unanswerable'. Otherwise, give a short "
                         "answer (one or two words)."}


def _picture(seed: int, size: tuple[int, int] = (56, 56)):
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    return Image.fromarray(rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8), "RGB")


# ------------------------------------------------------------------ the ruin transforms

def test_visual_ruin_pixelates_at_the_same_size() -> None:
    img = _picture(0, (64, 48))
    before = img.tobytes()
    r = ruin(VSR_ON, img, "visual")
    assert img.tobytes() == before  # the original is not modified
    assert r.method == "pixelated" and r.item == VSR_ON
    assert r.prompt == base_prompt_for("vsr", VSR_ON.question)  # the text is untouched
    out = r.image
    assert out.size == (64, 48) and out.tobytes() != before
    # Nearest-neighbour through 10x10: at most 100 colours, all taken from the original.
    colours = {c for _n, c in out.getcolors(64 * 48)}
    assert len(colours) <= 100
    assert colours <= {c for _n, c in img.getcolors(64 * 48)}
    # Constant over blocks: every row of the 48-pixel height maps to one of 10 source rows.
    assert len({out.crop((0, y, 64, y + 1)).tobytes() for y in range(48)}) <= 10
    assert ruin_image(img).tobytes() == out.tobytes()  # deterministic


@pytest.mark.parametrize("item", [VSR_ON, POPE, HB, VIZWIZ])
def test_language_ruin_is_decoy_plus_constraint(item: Item) -> None:
    img = _picture(1)
    r = ruin(item, img, "language", seed=3)
    decoy = r.item.question
    assert r.method == "decoy_question" and decoy in DECOY_QUESTIONS
    assert r.prompt == f"{decoy} {CONSTRAINTS[item.dataset]}"
    # The constraint is what the clean prompt ends with; nothing of the clean question remains.
    assert base_prompt_for(item.dataset, item.question).endswith(CONSTRAINTS[item.dataset])
    assert item.question not in r.prompt
    assert r.image is img and r.item.item_id == item.item_id and r.item.answer == item.answer
    # The decoy is fixed by (seed, item id): same seed, same decoy; and not one decoy for all.
    assert ruin_language(item, 3).question == decoy
    assert len({ruin_language(item, s).question for s in range(20)}) > 1


def test_decoys_never_get_a_relation_swap_probe() -> None:
    assert all(swap_relation(d, None) is None for d in DECOY_QUESTIONS)
    r = ruin(VSR_ON, _picture(2), "language")
    probes = [q.probe for q in build_requests(r.item, r.image, ProbeConfig(), 0, ProbeStats())]
    assert "relation" not in probes and "negation" not in probes
    assert r.item.relation is None


def test_alignment_ruin_inverts_relation_or_polarity_else_asks_for_the_opposite() -> None:
    img = _picture(3)
    vsr = ruin(VSR_ON, img, "alignment")
    assert (vsr.method, vsr.item.question, vsr.item.relation) == \
        ("relation_inversion", "The dog is under the surfboard.", "under")
    assert vsr.prompt == base_prompt_for("vsr", "The dog is under the surfboard.")
    pope = ruin(POPE, img, "alignment")
    assert (pope.method, pope.item.question) == ("polarity_inversion",
                                                 "Is there no snowboard in the image?")
    # Without a relation or an existence question: Appendix 9.3's opposite-answer prompt.
    for item in (VSR_TOUCH, HB, VIZWIZ):
        r = ruin(item, img, "alignment")
        assert r.method == "opposite_prompt" and r.item.question == item.question
        assert r.prompt == ("Answer the OPPOSITE of what you would normally answer to the "
                            "following question. " + base_prompt_for(item.dataset, item.question))
        assert r.prompt.startswith(OPPOSITE_PREFIX)
    # The image is never swapped: the paper ruins alignment through the text.
    assert all(ruin(it, img, "alignment").image is img for it in (VSR_ON, POPE, VIZWIZ))


def test_probes_of_ruined_items_keep_the_ruined_frame() -> None:
    img = _picture(4)
    pope = ruin(POPE, img, "alignment").item
    reqs = {q.probe: q.prompt for q in build_requests(pope, img, ProbeConfig(), 0, ProbeStats())}
    assert reqs["clean"] == "Is there no snowboard in the image? Answer with only 'Yes' or 'No'."
    # The A probe's negation of the inverted question asks the original polarity again.
    assert reqs["negation"] == \
        "Is there any snowboard in the image? Answer with only 'Yes' or 'No'."
    assert negate_question("Is there no snowboard in the image?") == \
        "Is there any snowboard in the image?"
    hb = ruin(HB, img, "alignment").item
    reqs = {q.probe: q.prompt for q in build_requests(hb, img, ProbeConfig(), 0, ProbeStats())}
    assert reqs["negation"].startswith(OPPOSITE_PREFIX + " Is the answer to the following "
                                       "question 'No'? Is the red line")
    assert reqs["grounding"].endswith(reqs["clean"]) and reqs["blur_heavy"] == reqs["clean"]
    with pytest.raises(ValueError, match="unknown ruined condition"):
        ruin(POPE, img, "semantic")


# ------------------------------------------------------------------ on a tiny model

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")



def test_probe_entanglement_end_to_end(tiny_qwen: Path) -> None:
    from halluscope.models import load_adapter
    from halluscope.prism.entanglement import probe_entanglement

    adapter = load_adapter(tiny_qwen, dtype="float32")
    items = [VSR_ON, POPE, VIZWIZ]
    images = [_picture(10 + i) for i in range(len(items))]
    res = probe_entanglement(adapter, items, images, ProbeConfig(max_new_tokens=4, batch_size=8),
                             "tiny_qwen", seed=0)
    ids = [it.item_id for it in items]
    assert [r["sample_id"] for r in res["clean"]] == ids
    assert set(res["ruined"]) == {"visual", "language", "alignment"}
    methods = {c: [r["ruin_method"] for r in rows] for c, rows in res["ruined"].items()}
    assert methods == {"visual": ["pixelated"] * 3,
                       "language": ["decoy_question"] * 3,
                       "alignment": ["relation_inversion", "polarity_inversion",
                                     "opposite_prompt"]}
    for cond, rows in res["ruined"].items():
        assert [r["sample_id"] for r in rows] == ids
        for row, clean in zip(rows, res["clean"]):
            assert row["ruin_condition"] == cond and row["ruin_seed"] == 0
            for key in ("v_score", "lp_score", "a_score"):
                assert 0.0 <= row[key] <= 1.0
            if cond == "visual":  # same text, other image
                assert row["text_input"] == clean["text_input"]
    lang = res["ruined"]["language"]
    assert all(r["text_input"] in DECOY_QUESTIONS for r in lang)
    assert "relation_prediction" in res["clean"][0] and "relation_prediction" not in lang[0]
    assert res["ruined"]["alignment"][1]["text_input"] == "Is there no snowboard in the image?"
    # One item per dataset: each delta is that item's ruined minus clean score, and a check
    # passes when the targeted coordinate has strictly the largest |delta|.
    table = res["table"]
    assert len(table["checks"]) == 9 and table["per_model"]["tiny_qwen"].endswith("/9")
    target = {"visual": "v_score", "language": "lp_score", "alignment": "a_score"}
    for check in table["checks"]:
        i = ids.index(next(it.item_id for it in items if it.dataset == check["dataset"]))
        ruined, clean = res["ruined"][check["condition"]][i], res["clean"][i]
        want = {k: ruined[f] - clean[f] for k, f in (("v", "v_score"), ("l", "lp_score"),
                                                     ("a", "a_score"))}
        assert check["delta"] == pytest.approx(want, abs=1e-12)
        mine = abs(ruined[target[check["condition"]]] - clean[target[check["condition"]]])
        others = [abs(ruined[f] - clean[f]) for f in target.values()
                  if f != target[check["condition"]]]
        assert check["passed"] == all(mine > o + 1e-12 for o in others)
    passes = sum(c["passed"] for c in table["checks"])
    assert table["total"] == f"{passes}/9"


def _vsr_file(tmp_path: Path) -> tuple[Path, Path]:
    images = tmp_path / "images"
    images.mkdir()
    lines = []
    for i, (cap, rel) in enumerate([("The dog is on the bed.", "on"),
                                    ("The cup is touching the plate.", "touching"),
                                    ("The cat is left of the car.", "left of")]):
        if i != 2:  # the third image is missing
            _picture(20 + i).save(images / f"{i}.png")
        lines.append(json.dumps({"image": f"{i}.png", "caption": cap, "label": i % 2,
                                 "relation": rel}))
    data = tmp_path / "zeroshot_dev.jsonl"
    data.write_text("\n".join(lines) + "\n")
    return data, images


def test_entangle_command_is_deterministic_and_feeds_the_report(tiny_qwen: Path,
                                                                tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from halluscope.cli.prism import app

    data, images = _vsr_file(tmp_path)

    def run(out: Path, seed: str = "0") -> str:
        res = CliRunner().invoke(app, ["entangle", "--model", str(tiny_qwen), "--dataset", "vsr",
                                       "--data", str(data), "--images", str(images), "--out",
                                       str(out), "--seed", seed, "--max-new-tokens", "4"])
        assert res.exit_code == 0, res.output
        return res.output

    output = run(tmp_path / "a")
    assert "items=2 missing_images=1" in output
    assert "decoy_question=2" in output and "opposite_prompt=1" in output
    assert "relation_inversion=1" in output and "pixelated=2" in output
    run(tmp_path / "b")
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*")
                   if p.is_file())
    assert [str(f) for f in files] == [
        ".lock", "clean/tiny_qwen/vsr.jsonl", "entanglement.json", "entanglement.md",
        "ruined/alignment/tiny_qwen/vsr.jsonl", "ruined/language/tiny_qwen/vsr.jsonl",
        "ruined/visual/tiny_qwen/vsr.jsonl", "run.json"]  # run.json, .lock: runs.run_dir
    for f in files:  # same seed: byte-identical output
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    summary = json.loads((tmp_path / "a" / "entanglement.json").read_text())
    checks = summary["table"]["checks"]
    assert [c["condition"] for c in checks] == ["visual", "language", "alignment"]
    # `prism report --ruined` pairs the written rows by sample_id: the same matrix.
    from halluscope.prism.report import build_report

    data_r = build_report(tmp_path / "a" / "clean", ruined_dir=tmp_path / "a" / "ruined")
    assert data_r["entanglement"]["total"] == summary["table"]["total"]
    for mine, theirs in zip(checks, data_r["entanglement"]["checks"]):
        assert mine["delta"] == pytest.approx(theirs["delta"], abs=1e-12)
        assert mine["passed"] == theirs["passed"]
    bad = CliRunner().invoke(app, ["entangle", "--model", str(tiny_qwen), "--dataset", "vsr",
                                   "--data", str(data), "--images", str(images), "--out",
                                   str(tmp_path / "c"), "--conditions", "visual,semantic"])
    assert bad.exit_code == 2 and "--conditions must come from" in bad.output
