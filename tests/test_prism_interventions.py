"""The intervention runner (`prism intervene`, HalluPrism Appendix 9.4): the paper's templates and
enhancement, routing policies, bootstrap CIs, and a real run on a tiny random Qwen2.5-VL whose
rows `prism route` and `prism route-dominance` read."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from halluscope.prism.datasets import Item
from halluscope.prism.interventions import (ANTI_PRIOR_TEMPLATE, GENERIC_TEMPLATE,
                                            GROUNDED_TEMPLATE, INTERVENTION_REGISTRY,
                                            VSR_RELATION_CHECK_TEMPLATE, assign, enhance_image,
                                            parse_interventions)
from halluscope.prism.routing import INTERVENTIONS, RouteItem, bootstrap_policies, score_policy

PAPER = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "001_efd3e10740728acd.txt"



# ------------------------------------------------------------------ templates, no model

def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u2018", "'").replace("\u2019", "'")
                  .replace("\u201c", '"').replace("\u201d", '"')).strip()


@pytest.mark.parametrize("template,field", [(GENERIC_TEMPLATE, "{original_prompt}"),
                                            (ANTI_PRIOR_TEMPLATE, "{original_prompt}"),
                                            (GROUNDED_TEMPLATE, "{original_prompt}"),
                                            (VSR_RELATION_CHECK_TEMPLATE, None)])
def test_templates_are_the_papers_wording(template: str, field: str | None) -> None:
    """Each prompt, with the paper's placeholder, is printed in Appendix 9.4."""
    if not PAPER.is_file():
        pytest.skip("the HalluPrism paper is not beside the checkout")
    paper = _flat(PAPER.read_text(encoding="utf-8"))
    want = template.replace("{prompt}", field) if field else template
    assert _flat(want) in paper


def test_enhancement_upscales_and_strengthens_colour_and_edges() -> None:
    import numpy as np

    from PIL import Image

    grey = enhance_image(Image.new("RGB", (20, 10), (100, 100, 100)))
    assert grey.size == (30, 15)
    assert np.abs(np.asarray(grey, dtype=int) - 100).max() <= 1  # uniform stays uniform
    # A smooth colour image: saturation x1.1 widens the gap between channels.
    ramp = np.zeros((40, 40, 3), dtype=np.uint8)
    ramp[..., 0] = np.linspace(80, 200, 40, dtype=np.uint8)[None, :]
    ramp[..., 1] = 120
    ramp[..., 2] = np.linspace(160, 60, 40, dtype=np.uint8)[:, None]
    out = np.asarray(enhance_image(Image.fromarray(ramp)), dtype=float)
    src = np.asarray(Image.fromarray(ramp).resize((60, 60), Image.Resampling.LANCZOS), dtype=float)
    spread = lambda a: (a.max(-1) - a.min(-1)).mean()  # noqa: E731
    assert spread(out) > spread(src)


def test_registry_covers_the_three_routed_corrections_and_generic() -> None:
    assert list(INTERVENTION_REGISTRY) == ["generic", *INTERVENTIONS]
    assert [INTERVENTION_REGISTRY.meta(n)["source"] for n in INTERVENTIONS] == \
        ["visual", "language_prior", "alignment"]


def test_policies_route_by_hand_computed_zscores() -> None:
    # V: 0.2, 0.4, 0.9 -> z = -1.01, -0.36, 1.37; L constant -> z 0; A: 0.5, 0.1, 0.3 -> 1.22, -1.22, 0
    sigs = [("m", "d", 0.2, 1.0, 0.5), ("m", "d", 0.4, 1.0, 0.1), ("m", "d", 0.9, 1.0, 0.3)]
    assert assign(sigs, "normalised") == ["cot_grounding", "anti_prior_prompt", "visual_enhance"]
    assert assign(sigs, "raw") == ["anti_prior_prompt"] * 3
    with pytest.raises(ValueError):
        assign(sigs, "argmax")
    assert parse_interventions("visual_enhance,grounded") == ("visual_enhance", "cot_grounding")
    with pytest.raises(ValueError, match="unknown intervention 'blur'"):
        parse_interventions("blur")


def test_bootstrap_intervals_bracket_the_estimates_and_pair_the_arms() -> None:
    items = [RouteItem(str(i), "m", "d", original=i % 3 != 0, generic=i % 4 != 0,
                       outcomes={"anti_prior_prompt": i % 5 != 0}) for i in range(60)]
    arms = {"generic": ["generic"] * 60, "matched": ["anti_prior_prompt"] * 60,
            "same": ["generic"] * 60}
    boot = bootstrap_policies(items, arms, n_resamples=500, seed=3)
    for name, arm in arms.items():
        point = score_policy(items, arm)
        for key in ("acc", "fix_rate", "break_rate"):
            lo, hi = boot[name][f"{key}_ci"]
            assert lo <= point[key] <= hi, (name, key)
    vs = boot["matched"]["vs_generic"]
    # By hand: generic right on 45/60, matched on 48/60 -> +5 points.
    assert vs["n_paired"] == 60 and vs["acc_diff"] == pytest.approx(3 / 60)
    assert vs["acc_diff_ci"][0] <= vs["acc_diff"] <= vs["acc_diff_ci"][1]
    assert boot["same"]["vs_generic"]["acc_diff_ci"] == [0.0, 0.0]
    # Same seed, same intervals.
    assert bootstrap_policies(items, arms, n_resamples=500, seed=3) == boot


# ------------------------------------------------------------------ a real run on a tiny model

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")


@pytest.fixture(scope="session")
def qwen(tiny_qwen_adapter):
    return tiny_qwen_adapter


def _items() -> list[Item]:
    caps = [("The dog is on the surfboard.", "on", "true"),
            ("The cat is left of the car.", "left of", "false"),
            ("The cup is under the table.", "under", "true"),
            ("The bus is behind the car.", "behind", "false"),
            ("The man is in front of the bike.", "in front of", "true")]
    return [Item(f"vsr_dev_{i:06d}", "vsr", "", c, g, "truefalse", r, "spatial")
            for i, (c, r, g) in enumerate(caps)] + \
        [Item("pope_random_000001", "pope", "", "Is there a car in the image?", "no", "yesno",
              failure_family_hint="object_hallucination", split="random")]


@pytest.fixture(scope="module")
def probed(qwen, tmp_path_factory, picture):
    """A probe file of the tiny model, as `prism probe` writes it."""
    from halluscope.prism.probes import ProbeConfig, probe_items

    items = _items()
    images = [picture(i, (56, 56)) for i in range(len(items))]
    rows = list(probe_items(qwen, items, ProbeConfig(batch_size=3, max_new_tokens=6), "tiny",
                            images=images))
    path = tmp_path_factory.mktemp("probed") / "tiny" / "vsr.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return items, images, path


def _run(qwen, routed, images, batch_size: int, **kw):
    from halluscope.prism.interventions import InterventionConfig, intervene_all
    from halluscope.prism.probes import ProbeConfig

    config = InterventionConfig(probe=ProbeConfig(batch_size=batch_size, max_new_tokens=6), **kw)
    return intervene_all(qwen, routed, config, "tiny", images=images)


def test_intervention_rows_answer_the_papers_prompts(qwen, probed) -> None:
    from halluscope.prism.answers import labels_for
    from halluscope.prism.interventions import route_population
    from halluscope.prism.probes import SURFACES, item_prompt, score_options

    items, images, path = probed
    routed, left_out = route_population(items, path, "normalised")
    assert len(routed) == len(items) and left_out == {"n_not_probed": 0, "n_no_signature": 0}
    rows = _run(qwen, routed, images, batch_size=4)
    probe_rows = [json.loads(x) for x in path.read_text().splitlines()]
    for item, image, row, probe_row in zip(items, images, rows, probe_rows):
        # The original answer is the probe run's clean answer.
        assert row["original_prediction"] == probe_row["model_prediction"]
        assert row["original_correct"] == probe_row["is_correct"]
        assert row["v_score"] == probe_row["v_score"]
        for name in INTERVENTIONS + ("generic",):
            assert f"{name}_prediction" in row and f"{name}_correct" in row
        routed_to = row["matched_intervention_type"]
        assert row["matched_prediction"] == row[f"{routed_to}_prediction"]
        assert row["matched_fixed"] == (not row["original_correct"] and row["matched_correct"])
        assert row["generic_broke"] == (row["original_correct"] and not row["generic_correct"])
        # Scored corrections, recomputed by hand: the anti-prior prompt on the image, and the
        # enhanced image (1.5x) on the original prompt.
        labels = [SURFACES[x] for x in labels_for(item.answer_type)]
        prompt = item_prompt(item)
        for name, (im, p) in {"anti_prior_prompt": (image, ANTI_PRIOR_TEMPLATE.format(prompt=prompt)),
                              "visual_enhance": (enhance_image(image), prompt)}.items():
            s = score_options(qwen, [im], [p], [labels])[0]
            k = s.best()
            assert row[f"{name}_prediction"] == labels[k].lower()
            assert row[f"{name}_confidence"] == pytest.approx(
                math.exp(s.logprobs[k] / s.n_tokens[k]), rel=1e-4)
            assert row[f"{name}_correct"] == (labels[k].lower() == item.answer)
    # Batching does not change a row.
    alone = _run(qwen, routed[4:5], images[4:5], batch_size=1)[0]
    for key in ("matched_prediction", "generic_prediction", "visual_enhance_prediction",
                "cot_grounding_prediction"):
        assert alone[key] == rows[4][key]
    assert alone["anti_prior_prompt_confidence"] == pytest.approx(
        rows[4]["anti_prior_prompt_confidence"], rel=1e-4)
    # The raw policy routes everything to the anti-prior prompt when L is the largest.
    raw_routed, _ = route_population(items, path, "raw")
    assert {r.routed for r in raw_routed} <= set(INTERVENTIONS)
    assert all(r.routed == r.raw_choice for r in raw_routed)


def test_closed_generate_mode_generates_every_answer(qwen, picture) -> None:
    from halluscope.prism.probes import ProbeConfig, ProbeStats, probe_items

    items = _items()[:2]
    stats = ProbeStats()
    rows = list(probe_items(qwen, items, ProbeConfig(batch_size=2, max_new_tokens=4,
                                                     closed="generate"), "tiny", stats,
                            images=[picture(i, (56, 56)) for i in range(2)]))
    # Clean, 4 perturbations, blank, grounding and relation swap: 8 requests each, all generated.
    assert stats.n_generated == 16 and all(r["closed_mode"] == "generate" for r in rows)
    with pytest.raises(ValueError, match="closed"):
        ProbeConfig(closed="guess")


def test_intervene_command_routes_resumes_and_feeds_route(tiny_qwen: Path, tmp_path: Path,
                                                          picture) -> None:
    from typer.testing import CliRunner

    from halluscope.cli.prism import app

    images = tmp_path / "images"
    images.mkdir()
    data = tmp_path / "zeroshot_dev.jsonl"
    lines = []
    for i, (cap, rel) in enumerate([("The dog is on the bed.", "on"),
                                    ("The cat is left of the car.", "left of"),
                                    ("The cup is under the plate.", "under")]):
        picture(i, (56, 56)).save(images / f"{i}.jpg")
        lines.append(json.dumps({"image": f"{i}.jpg", "caption": cap, "label": i % 2,
                                 "relation": rel}))
    data.write_text("\n".join(lines) + "\n")
    common = ["--model", str(tiny_qwen), "--dataset", "vsr", "--data", str(data), "--images",
              str(images), "--batch-size", "2", "--max-new-tokens", "6"]
    runner = CliRunner()
    res = runner.invoke(app, ["probe", *common, "--out", str(tmp_path / "probes")])
    assert res.exit_code == 0, res.output
    args = ["intervene", *common, "--probes", str(tmp_path / "probes"), "--out",
            str(tmp_path / "iv")]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "routed=3" in res.output and "ran=3" in res.output
    target = tmp_path / "iv" / "tiny_qwen" / "vsr.jsonl"
    assert len(target.read_text().splitlines()) == 3
    res = runner.invoke(app, args)
    assert res.exit_code == 0 and "ran=0" in res.output and "already_done=3" in res.output
    # Another policy into the same file is refused, naming the file and line.
    res = runner.invoke(app, args + ["--policy", "raw"])
    assert res.exit_code == 2 and "vsr.jsonl:1: this file was written with routing_policy" \
        in res.output
    # Tables 35/36 and the policy comparison read the rows; every policy is evaluable.
    res = runner.invoke(app, ["route", "--results", str(tmp_path / "iv"), "--out",
                              str(tmp_path / "route.json")])
    assert res.exit_code == 0 and "tiny_qwen/vsr: n=3" in res.output, res.output
    res = runner.invoke(app, ["route-dominance", "--results", str(tmp_path / "iv"), "--out",
                              str(tmp_path / "dom.json"), "--bootstrap", "50"])
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "dom.json").read_text())
    for arm in ("matched", "raw_matched", "permuted", "random", "generic", "logged_matched"):
        assert report["rows"][0][arm]["n_evaluable"] == 3, arm
    assert report["pooled"]["matched"]["n_evaluable"] == 3
    # No probe run: a one-line error naming the file.
    res = runner.invoke(app, ["intervene", *common, "--probes", str(tmp_path / "nothing"),
                              "--out", str(tmp_path / "iv2")])
    assert res.exit_code == 2 and "nothing/tiny_qwen/vsr.jsonl: probe results not found" \
        in res.output
