"""`halluscope pope --score closed` on the tiny Qwen2.5-VL: yes/no mass over every spelling from
one forward pass, checked against prism's independent option scorer, and the agreement with
greedy generation."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from halluscope.cli.main import app

pytest.importorskip("torch")

YES_SPELLINGS = ["yes", " yes", "Yes", " Yes", "YES", " YES"]
NO_SPELLINGS = ["no", " no", "No", " No", "NO", " NO"]


def test_mass_equals_the_sum_over_spellings(tiny_qwen_adapter, picture):
    from halluscope.generation.closed_yes_no import closed_yes_no, yes_no_token_ids
    from halluscope.prism.probes import score_options

    adapter = tiny_qwen_adapter
    tok = adapter.tokenizer
    # Preconditions that make the expected value a plain sum over the six spellings of each
    # word: the tiny vocabulary's only one-token spelling is " no" (one of them; the others
    # take several tokens, so both paths run), the template adds no space before the answer,
    # and no spelling's tokens start another's.
    seqs = [tuple(tok(s, add_special_tokens=False)["input_ids"])
            for s in YES_SPELLINGS + NO_SPELLINGS]
    found = yes_no_token_ids(tok)
    assert found["yes"] == [] and [(i,) for i in found["no"]] == [seqs[7]]
    assert adapter.caption_prefix == ""
    assert not any(a != b and b[:len(a)] == a for a in seqs for b in seqs)

    images = [picture(1), picture(2)]
    prompts = ["Is there a dog in the image?", "Is there a car in the image?"]
    got = closed_yes_no(adapter, images, prompts)
    ref = score_options(adapter, images, prompts, [YES_SPELLINGS + NO_SPELLINGS] * 2)
    for g, r in zip(got, ref):
        p_yes = sum(math.exp(lp) for lp in r.logprobs[:6])
        p_no = sum(math.exp(lp) for lp in r.logprobs[6:])
        assert g.p_yes == pytest.approx(p_yes, rel=1e-4)
        assert g.p_no == pytest.approx(p_no, rel=1e-4)
        assert g.label == ("yes" if p_yes >= p_no else "no")


def _split(tmp_path: Path, picture, n: int = 6) -> tuple[Path, Path]:
    images = tmp_path / "images"
    images.mkdir()
    rows = []
    for i in range(n):
        name = f"COCO_val2014_{i:012d}.jpg"
        picture(i).save(images / name)
        rows.append({"question_id": i + 1, "image": name,
                     "text": f"Is there a {['dog', 'cat', 'car'][i % 3]} in the image?",
                     "label": "yes" if i % 2 else "no"})
    split = tmp_path / "coco_pope_random.json"
    split.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return split, images


def test_closed_scoring_command(tiny_qwen, picture, tmp_path):
    split, images = _split(tmp_path, picture)
    out = tmp_path / "closed.json"
    cli = CliRunner().invoke(app, ["pope", "--score", "closed", "--model", str(tiny_qwen),
                                   "--images", str(images), "--split", str(split),
                                   "--batch-size", "4", "--out", str(out)])
    assert cli.exit_code == 0, cli.output
    result = json.loads(out.read_text())
    m = result["splits"]["random"]
    items = m["items"]
    assert len(items) == 6
    # agreement counted by hand from the per-question rows
    assert m["agreement"] == pytest.approx(sum(it["closed"] == it["greedy"] for it in items) / 6)
    assert m["greedy_not_yes_no"] == sum(it["greedy"] not in ("yes", "no") for it in items)
    # the closed metrics are those of the closed labels: yes-ratio by hand
    assert m["yes_ratio"] == pytest.approx(sum(it["closed"] == "yes" for it in items) / 6)
    assert all(0.0 < it["p_yes"] + it["p_no"] <= 1.0 + 1e-9 for it in items)
    assert "closed vs greedy agreement" in cli.output


def test_closed_scoring_needs_every_image(tiny_qwen, picture, tmp_path):
    split, images = _split(tmp_path, picture, n=2)
    (images / "COCO_val2014_000000000001.jpg").unlink()
    cli = CliRunner().invoke(app, ["pope", "--score", "closed", "--model", str(tiny_qwen),
                                   "--images", str(images), "--split", str(split)])
    assert cli.exit_code == 2
    assert "no image" in cli.output and "question_id 2" in cli.output
    cli = CliRunner().invoke(app, ["pope", "--score", "closed", "--split", str(split)])
    assert cli.exit_code == 2 and "--model" in cli.output
