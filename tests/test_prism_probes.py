"""HalluPrism probing: datasets, answer parsing, perturbations, one-pass option scoring, rows that
feed signature.py, and the `prism probe` command, on a tiny random Qwen2.5-VL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from halluscope.errors import InputError
from halluscope.prism.answers import (TRUE_FALSE, YES_NO, normalize_open, parse_closed, score,
                                      vqa_accuracy)
from halluscope.prism.datasets import Item, load_dataset
from halluscope.prism.perturb import (PRESETS, blank_image, gaussian_noise, stable_seed,
                                      visual_perturbations)
from halluscope.prism.probes import negate_question, swap_relation

# ------------------------------------------------------------------ answers (no model needed)

CLOSED_CASES = [
    # (response, labels, expected label or None)
    ("Yes", YES_NO, "yes"),
    ("Yes, there is a dog.", YES_NO, "yes"),
    ("yes.", YES_NO, "yes"),
    ("**No**", YES_NO, "no"),
    ("No, there is no cat in the image.", YES_NO, "no"),
    ("'No'", YES_NO, "no"),
    ("The image shows a kitchen with a fridge.\nYes", YES_NO, "yes"),
    ("The image shows a dog lying on a couch.\n\nAnswer: **No**", YES_NO, "no"),
    ("A man rides a horse. So the answer is yes.", YES_NO, "yes"),
    ("There is no dog in the picture, only a cat.", YES_NO, None),  # "no" as a determiner
    ("I cannot determine that.", YES_NO, None),
    ("Yesterday it rained.", YES_NO, None),
    ("", YES_NO, None),
    ("True.", TRUE_FALSE, "true"),
    ("True", YES_NO, None),  # a label of the other set is not an answer
    ("FALSE", TRUE_FALSE, "false"),
    ("A white bulldog stands on a surfboard in the water.\nTrue.", TRUE_FALSE, "true"),
    ("The laptop is to the right of the dog. The statement is false.", TRUE_FALSE, "false"),
    ("White bulldog wearing a life vest riding a wave", TRUE_FALSE, None),
    ("Final answer: `False`", TRUE_FALSE, "false"),
]


@pytest.mark.parametrize("text,labels,expected", CLOSED_CASES)
def test_parse_closed_real_outputs(text: str, labels: tuple[str, str], expected: str | None) -> None:
    assert parse_closed(text, labels) == expected


@pytest.mark.parametrize("text,expected", [
    ("Unanswerable", "unanswerable"), ("unanswerable.", "unanswerable"),
    ("The question cannot be answered from the image.", "unanswerable"),
    ("I can't tell.", "unanswerable"), ("Not answerable", "unanswerable"),
    ("Two", "2"), ("A can of soup.", "can of soup"), ("Coca-Cola", "coca cola"),
    ("This is a bottle.\nAnswer: Shampoo", "shampoo"), ("", ""), ("  **  ", ""),
])
def test_normalize_open(text: str, expected: str) -> None:
    assert normalize_open(text) == expected


def test_vqa_accuracy_and_unparsed_never_correct() -> None:
    ten = ["soup"] * 2 + ["can of soup"] * 5 + ["unanswerable"] * 3
    assert vqa_accuracy("Soup", ten) == pytest.approx(2 / 3)
    assert vqa_accuracy("a can of soup", ten) == 1.0
    assert vqa_accuracy("Unanswerable.", ten) == 1.0
    assert vqa_accuracy("soup", ten, exact=True) == 0.0
    assert vqa_accuracy("can of soup", ten, exact=True) == 1.0
    assert vqa_accuracy("", [""] * 10) == 0.0
    s = score("let me think", "truefalse", "true")
    assert (s.correct, s.parsed) == (False, False)
    s = score("", "open", "soup", ten)
    assert (s.correct, s.parsed, s.accuracy) == (False, False, 0.0)
    assert score("Soup", "open", "can of soup", ten).accuracy == pytest.approx(2 / 3)


def test_relation_swap_and_negation() -> None:
    assert swap_relation("The cone is at the left side of the car.", "at the left side of") == \
        "The cone is at the right side of the car."
    assert swap_relation("The cat is above the bed.", "above") == "The cat is below the bed."
    assert swap_relation("The bowl is on top of the box.", "on top of") == \
        "The bowl is under the box."
    assert swap_relation("The dog is in front of the bus.", "in front of") == \
        "The dog is behind the bus."
    assert swap_relation("The bowl contains the apple.", "contains") is None
    assert negate_question("Is there a snowboard in the image?") == \
        "Is there no snowboard in the image?"
    assert "'No'" in negate_question("Is the man taller than the woman?")


# ------------------------------------------------------------------ perturbations


def test_perturbations_deterministic_per_item(picture) -> None:
    img = picture()
    a = visual_perturbations(img, "vsr_dev_000007")
    b = visual_perturbations(img.copy(), "vsr_dev_000007")
    assert [n for n, _ in a] == ["blur_heavy", "crop_aggressive", "brightness_low", "noise"]
    assert all(x.tobytes() == y.tobytes() and x.size == img.size for (_, x), (_, y) in zip(a, b))
    # Noise depends on the item id only (not on a global generator or the call order).
    other = visual_perturbations(img, "vsr_dev_000008")[3][1]
    assert other.tobytes() != a[3][1].tobytes()
    assert stable_seed("vsr_dev_000007") == stable_seed("vsr_dev_000007")
    noisy = gaussian_noise(img, PRESETS["default"].noise_sigma, 1)
    import numpy as np
    diff = np.asarray(noisy, float) - np.asarray(img, float)
    assert 15 < diff.std() < 30  # sigma 25, clipped at 0/255
    assert blank_image(img).size == img.size
    assert blank_image(img, "reference").size == (384, 384)
    weak, strong = (visual_perturbations(img, "x", p)[2][1] for p in ("weak", "strong"))
    assert np.asarray(weak).mean() > np.asarray(strong).mean()


# ------------------------------------------------------------------ datasets

def test_dataset_loaders_on_shared_files(shared_data: Path) -> None:
    vsr = load_dataset("vsr", shared_data / "vsr" / "zeroshot_dev.jsonl")
    assert len(vsr.items) == 340 and vsr.items[0].item_id == "vsr_dev_000000"
    assert vsr.items[0].answer == "true" and vsr.items[0].relation == "on"
    hb = load_dataset("hallusionbench", shared_data / "hallusionbench" / "HallusionBench.json")
    assert len(hb.items) == 951 and hb.n_excluded == 178
    families = [it.failure_family_hint for it in hb.items]
    assert families.count("attribute") == 360 and families.count("object_hallucination") == 591
    pope = load_dataset("pope", shared_data / "pope" / "coco_pope_popular.json",
                        images_dir=shared_data / "coco" / "val2014_images")
    assert len(pope.items) == 3000 and pope.items[0].split == "popular"
    # Missing images are counted, not dropped.
    assert pope.n_missing_images == 3000 - len(pope.present())


def test_dataset_errors_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "zeroshot_dev.jsonl"
    bad.write_text('{"image": "a.jpg", "caption": "A cat.", "label": 1, "relation": "on"}\n'
                   '{"image": "b.jpg", "caption": "A dog.", "label": 5, "relation": "on"}\n')
    with pytest.raises(InputError, match=r"zeroshot_dev.jsonl:2: field 'label'"):
        load_dataset("vsr", bad)
    with pytest.raises(InputError, match="data file not found"):
        load_dataset("vsr", tmp_path / "nope.jsonl")
    with pytest.raises(InputError, match="POPE split"):
        load_dataset("pope", bad)


# ------------------------------------------------------------------ model-side

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")



@pytest.fixture(scope="session")
def qwen(tiny_qwen_adapter):
    return tiny_qwen_adapter


def _items() -> list[Item]:
    return [
        Item("vsr_dev_000000", "vsr", "", "The dog is on the surfboard.", "true", "truefalse",
             "on", "spatial"),
        Item("vsr_dev_000001", "vsr", "", "The cup is touching the plate.", "false",
             "truefalse", "touching", "spatial"),
        Item("pope_random_000001", "pope", "", "Is there a snowboard in the image?", "yes",
             "yesno", failure_family_hint="object_hallucination", split="random"),
        Item("pope_random_000002", "pope", "", "Is there a car in the image?", "no", "yesno",
             failure_family_hint="object_hallucination", split="random"),
    ]


def _hand_logprob(adapter, image, prompt: str, caption_ids: list[int], n_scored: int) -> float:
    """Sum of log p over the last n_scored caption tokens, from a full teacher-forced forward."""
    batch = adapter.encode([image], [prompt], [caption_ids], padding_side="right")
    with torch.no_grad():
        logits = adapter.model(**batch.inputs).logits[0].float()
    logp = torch.log_softmax(logits, dim=-1)
    start = batch.items[0].prompt_length
    total = 0.0
    for j in range(len(caption_ids) - n_scored, len(caption_ids)):
        total += float(logp[start + j - 1, caption_ids[j]])
    return total


def test_option_scoring_equals_teacher_forced_forward(qwen, picture) -> None:
    from halluscope.prism.probes import score_options

    images = [picture(1, (56, 56)), picture(2, (84, 56))]
    prompts = ["Is there a dog? Answer with only 'Yes' or 'No'.",
               "Is the statement true or false? Answer with only 'True' or 'False'."]
    # Single-token options (one row per request) and multi-token options (one row per option).
    for options in ([["Yes", "No"], ["True", "False"]],
                    [["Yes indeed", "No way"], ["Absolutely true", "False"]]):
        got = score_options(qwen, images, prompts, options)
        for i, opts in enumerate(options):
            for k, opt in enumerate(opts):
                ids = qwen.tokenize_caption(opt)[0]
                want = _hand_logprob(qwen, images[i], prompts[i], ids, len(ids))
                assert got[i].logprobs[k] == pytest.approx(want, abs=1e-4)
                assert got[i].n_tokens[k] == len(ids)
        assert any(n > 1 for s in got for n in s.n_tokens) or options[0][0] == "Yes"
    # After a response prefix (the grounding re-check's label position).
    prefix = "A dog on a board.\nAnswer:"
    got = score_options(qwen, images[:1], prompts[:1], [["Yes", "No"]], prefixes=[prefix])[0]
    pre = qwen.tokenize_caption(prefix)[0]
    for k, opt in enumerate(["Yes", "No"]):
        ids = list(qwen.tokenizer(" " + opt, add_special_tokens=False)["input_ids"])
        want = _hand_logprob(qwen, images[0], prompts[0], pre + ids, len(ids))
        assert got.logprobs[k] == pytest.approx(want, abs=1e-4)
    # Confidence modes.
    c_geo, c_two = got.confidence(got.best()), got.confidence(got.best(), "two_way")
    assert 0 < c_geo <= c_two <= 1 and c_two >= 0.5


def test_probe_rows_do_not_depend_on_batching(qwen, picture) -> None:
    from halluscope.prism.probes import ProbeConfig, probe_items

    items = _items()
    images = [picture(i, (56 + 28 * (i % 2), 56)) for i in range(len(items))]
    cfg = dict(max_new_tokens=12)
    together = list(probe_items(qwen, items, ProbeConfig(batch_size=4, **cfg), images=images))
    alone = list(probe_items(qwen, items[2:3], ProbeConfig(batch_size=1, **cfg),
                             images=images[2:3]))
    a, b = together[2], alone[0]
    assert a["model_prediction"] == b["model_prediction"]
    assert a["scalar_confidence"] == pytest.approx(b["scalar_confidence"], rel=1e-4)
    for name in a["v_per_perturbation"]:
        pa, pb = a["v_per_perturbation"][name], b["v_per_perturbation"][name]
        assert pa["prediction"] == pb["prediction"]
        assert pa["confidence"] == pytest.approx(pb["confidence"], rel=1e-4)
    assert a["lp_confidence"] == pytest.approx(b["lp_confidence"], rel=1e-4)


def test_probe_rows_feed_signature(qwen, tmp_path: Path, picture) -> None:
    from halluscope.prism.probes import ProbeConfig, ProbeStats, probe_items, skipped_row
    from halluscope.prism.results import decomposition_row, probe_set, read_rows
    from halluscope.prism.signature import compute_signature

    items = _items()
    images = [picture(i) for i in range(len(items))]
    stats = ProbeStats()
    rows = list(probe_items(qwen, items, ProbeConfig(batch_size=3, max_new_tokens=12),
                            "tiny_qwen", stats, images=images))
    assert stats.n_items == 4 and stats.n_no_relation_swap == 1  # "touching" has no opposite
    assert stats.n_negated == 2
    vsr, vsr_touch, pope = rows[0], rows[1], rows[2]
    assert vsr["model_prediction"] in ("true", "false") and 0 < vsr["scalar_confidence"] <= 1
    assert set(vsr["v_per_perturbation"]) == {"blur_heavy", "crop_aggressive",
                                              "brightness_low", "noise"}
    assert "relation_prediction" in vsr and "relation_prediction" not in vsr_touch
    assert "negation_prediction" in pope and pope["task_type"] == "yes_no"
    assert vsr["task_type"] == "spatial" and "negation_prediction" not in vsr
    for i, row in enumerate(rows):
        p = probe_set(row, "f.jsonl", i + 1)
        v, l, a = compute_signature(p, "paper")
        assert (v, l, a) == pytest.approx((row["v_score"], row["lp_score"], row["a_score"]))
        # the raw dominant source: the largest coordinate, the first one on a tie
        assert row["dominant_source"] == ("visual", "language_prior", "alignment")[
            max(range(3), key=lambda k: ((v, l, a)[k], -k))]
        assert all(0.0 <= x <= 1.0 for x in compute_signature(p, "reference"))
        assert p.relation_answer == row.get("relation_prediction")
    # Written in the released layout, the rows load like released ones (skipped rows counted).
    path = tmp_path / "tiny_qwen" / "vsr.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows[:2] + [skipped_row(items[0])]))
    kept, file_stats = read_rows(path)
    assert len(kept) == 2 and file_stats.n_skipped == 1
    assert decomposition_row(kept[0][1], path, kept[0][0]).confidence == rows[0]["scalar_confidence"]


def test_probe_command_writes_and_resumes(tiny_qwen: Path, tmp_path: Path, picture) -> None:
    from typer.testing import CliRunner

    from halluscope.cli.prism import app

    images = tmp_path / "images"
    images.mkdir()
    data = tmp_path / "zeroshot_dev.jsonl"
    lines = []
    for i, (cap, rel) in enumerate([("The dog is on the bed.", "on"),
                                    ("The cat is left of the car.", "left of"),
                                    ("The cup is touching the plate.", "touching")]):
        name = f"{i}.jpg"
        if i != 2:  # the third image is missing
            picture(i, (56, 56)).save(images / name)
        lines.append(json.dumps({"image": name, "caption": cap, "label": i % 2, "relation": rel}))
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    args = ["probe", "--model", str(tiny_qwen), "--dataset", "vsr", "--data", str(data),
            "--images", str(images), "--out", str(out), "--batch-size", "2",
            "--max-new-tokens", "8"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "probed=2" in res.output and "missing_images=1" in res.output
    target = out / "tiny_qwen" / "vsr.jsonl"
    rows = [json.loads(x) for x in target.read_text().splitlines()]
    assert len(rows) == 3 and sum(1 for r in rows if r.get("skipped")) == 1
    # The finished file carries each row's normalised dominant source: the largest z-score
    # of (V, L, A) over the file's signed rows (a constant column scores 0), first on ties.
    import numpy as np

    signed = [r for r in rows if not r.get("skipped")]
    m = np.array([[r["v_score"], r["lp_score"], r["a_score"]] for r in signed])
    sd = m.std(axis=0)
    z = np.where(sd > 1e-12, (m - m.mean(axis=0)) / np.where(sd > 1e-12, sd, 1), 0.0)
    names = ("visual", "language_prior", "alignment")
    assert [r["normalized_dominant_source"] for r in signed] == \
        [names[int(np.argmax(zi))] for zi in z]
    # Resume: a torn last line is cut off and that item probed again; done items are skipped.
    text = target.read_text()
    target.write_text(text + '{"sample_id": "vsr_dev_0000')
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0 and "probed=0" in res.output, res.output
    assert [json.loads(x)["sample_id"] for x in target.read_text().splitlines()] == \
        [r["sample_id"] for r in rows]
    bad = CliRunner().invoke(app, args[:6] + [str(tmp_path / "missing.jsonl")] + args[7:])
    assert bad.exit_code == 2 and "data file not found" in bad.output


def test_prism_import_does_not_import_torch() -> None:
    import subprocess
    import sys

    code = ("import sys, halluscope.prism, halluscope.prism.probes, halluscope.prism.datasets, "
            "halluscope.prism.answers, halluscope.prism.perturb, halluscope.cli.prism; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
