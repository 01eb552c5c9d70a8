"""Mention-level perturbation signatures (`signals --perturbations`) on tiny LLaVA-1.5 and
Qwen2.5-VL, their coordinates, the mention detectors and `bench run` over them.

Expected values come from outside the code under test: log-probabilities from a plain forward
(full logits, no capture) on an image perturbed by `prism.perturb` directly, ranks counted from
those logits, coordinates from the answer-level formulas of `prism.signature` and by hand.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from halluscope.detectors import MENTION, MENTION_VECTOR, get_detector  # noqa: E402
from halluscope.errors import ConfigError  # noqa: E402
from halluscope.models import load_adapter, make_tiny  # noqa: E402
from halluscope.prism import perturb as prism  # noqa: E402
from halluscope.prism.signature import (paper_l_conf, paper_l_match, paper_l_persist,  # noqa: E402
                                        paper_l_stable, paper_v)
from halluscope.runs.signal_store import SignalStore  # noqa: E402
from halluscope.signals.alignment import align_mentions  # noqa: E402
from halluscope.signals.extract import extract_signals  # noqa: E402
from halluscope.signals.perturbations import (CONDITIONS, PerturbationConfig,  # noqa: E402
                                              WindowStats, coordinate_columns,
                                              mention_coordinates, perturbed_image)
from halluscope.text.mentions import extract_mentions  # noqa: E402

FAMILIES = {"llava": 112, "qwen2_5_vl": 56}
CAPTIONS = ["A dog and a giraffe near two hot dogs on a bench.",
            "Two cats sit on a couch with a dog; a cat sleeps on a chair."]
ALL = PerturbationConfig.parse("blank,blur,crop,dark,noise")
# prism's own names, mapped here by hand (not through the module under test)
PRISM_NAMES = {"blur": "blur_heavy", "crop": "crop_aggressive", "dark": "brightness_low",
               "noise": "noise"}


@pytest.fixture(scope="module")
def setup(tmp_path_factory, picture):
    root = tmp_path_factory.mktemp("perturb")
    adapters = {arch: load_adapter(make_tiny(arch, root / arch, layers=2, hidden=32, heads=4,
                                             seed=0, image_size=size), dtype="float32",
                                   attn_implementation="sdpa")
                for arch, size in FAMILIES.items()}
    items = []
    for i, caption in enumerate(CAPTIONS):
        path = root / f"img{i}.png"
        picture(seed=i, size=(64, 48)).save(path)
        items.append({"image_id": f"im{i}", "image": str(path), "caption": caption})
    return root, adapters, items


def _rows(out) -> dict[str, dict]:
    return {r["key"]: r for r in SignalStore(out).read("mentions").to_pylist()}


def _reference_image(image, condition: str, item_id: str):
    if condition == "clean":
        return image
    if condition == "blank":
        return prism.blank_image(image)
    return prism.perturb(image, PRISM_NAMES[condition], item_id, "default")


def _plain_window(adapter, image, caption: str):
    """Per mention: [(log p, rank)] of each W4 token from a plain forward's full logits."""
    batch = adapter.encode([image], ["Provide a detailed description of this image."],
                           [caption])
    item = batch.items[0]
    with torch.no_grad():
        logits = adapter.model(**batch.inputs, use_cache=False).logits[0].double()
    logp = torch.log_softmax(logits, dim=-1)
    found = extract_mentions(caption)
    out = []
    for a in align_mentions(item.caption_offsets, [(m.start, m.end) for m in found],
                            item.prompt_length):
        window = []
        for k in a.window:
            row, target = logp[item.prompt_length + k - 1], item.caption_token_ids[k]
            window.append((float(row[target]), int((row > row[target]).sum()) + 1))
        out.append(window)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_condition_matches_a_plain_forward_on_the_perturbed_image(setup, family):
    root, adapters, items = setup
    adapter = adapters[family]
    out = root / f"run_{family}"
    summary = extract_signals(adapter, items, out, batch_size=2, perturbations=ALL)
    assert summary["errors"] == 0
    rows = _rows(out)
    from PIL import Image

    checked = 0
    for index, item in enumerate(items):
        image = Image.open(item["image"]).convert("RGB")
        reference = {c: _plain_window(adapter, _reference_image(image, c, item["image_id"]),
                                      item["caption"]) for c in ("clean", *CONDITIONS)}
        for m, clean in enumerate(reference["clean"]):
            row = rows[f"{index}:{m}"]
            assert abs(row["mention_logprob_clean"] + row["nll"]) <= 1e-4  # the clean pass reused
            for c, windows in reference.items():
                lp, rank = windows[m][-1]
                assert abs(row[f"mention_logprob_{c}"] - lp) <= 1e-4, (c, m)
                assert row[f"mention_rank_{c}"] == rank, (c, m)
            # W4: the mean over the window of the per-token differences
            blank = [lp for lp, _ in reference["blank"][m]]
            base = [lp for lp, _ in clean]
            assert abs(row["mention_l_logratio_w4"] - np.mean(np.subtract(blank, base))) <= 1e-4
            visual = [[lp for lp, _ in reference[c][m]] for c in PRISM_NAMES]
            dlogp = np.mean(np.abs(np.subtract(visual, base)))
            assert abs(row["mention_v_dlogp_w4"] - dlogp) <= 1e-4
            checked += 1
    assert checked == len(rows) >= 6


@pytest.mark.slow
def test_results_do_not_depend_on_batch_size_or_order(setup):
    root, adapters, items = setup
    adapter = adapters["qwen2_5_vl"]
    one, two = root / "bs1", root / "bs2_reversed"
    extract_signals(adapter, items, one, batch_size=1, perturbations=ALL)
    extract_signals(adapter, items[::-1], two, batch_size=2, perturbations=ALL)
    a, b = _rows(one), _rows(two)
    n = len(items)
    b = {f"{n - 1 - int(k.split(':')[0])}:{k.split(':')[1]}": r for k, r in b.items()}
    assert a.keys() == b.keys()
    columns = coordinate_columns(ALL.conditions)
    for key, row in a.items():
        for column in columns:
            if "_rank_" in column:
                assert row[column] == b[key][column], (key, column)
            else:
                assert abs(row[column] - b[key][column]) <= 1e-4, (key, column)


def test_noise_is_seeded_per_item(picture):
    image = picture(seed=3)
    first = perturbed_image(image, "noise", "im0", ALL)
    assert first.tobytes() == perturbed_image(image, "noise", "im0", ALL).tobytes()
    assert first.tobytes() != perturbed_image(image, "noise", "im1", ALL).tobytes()
    # sigma 25 (default preset) with numpy's generator seeded by the item's sha256
    pixels = np.asarray(image, dtype=np.float64)
    seed = int.from_bytes(hashlib.sha256(b"noise\x00im0").digest()[:8], "little")
    noise = np.random.default_rng(seed).normal(0.0, 25.0, size=pixels.shape)
    expected = np.clip(np.rint(pixels + noise), 0, 255).astype(np.uint8)
    assert np.array_equal(np.asarray(first), expected)
    strong = PerturbationConfig(("noise",), severity=3)
    diff = np.asarray(perturbed_image(image, "noise", "im0", strong), dtype=float) - pixels
    assert 40 < diff.std() < 55  # sigma 50 before clipping


def test_coordinates_follow_the_answer_level_formulas():
    clean = WindowStats(np.log([0.5, 0.02, 0.8]), np.array([1, 9, 1]), np.array([11, 12, 13]))
    visual = {"blur": WindowStats(np.log([0.4, 0.02, 0.1]), np.array([1, 3, 4]),
                                  np.array([11, 7, 2])),
              "dark": WindowStats(np.log([0.5, 0.05, 0.7]), np.array([1, 9, 1]),
                                  np.array([11, 12, 13]))}
    blank = WindowStats(np.log([0.6, 0.01, 0.2]), np.array([1, 9, 2]), np.array([11, 12, 5]))
    out = mention_coordinates(clean, {**visual, "blank": blank})
    per_token = []
    for t in range(3):
        answer, p = str(clean.top1[t]), float(np.exp(clean.logprob[t]))
        pb, blank_answer = float(np.exp(blank.logprob[t])), str(blank.top1[t])
        per_token.append({
            "mention_v": paper_v(answer, p, [(str(s.top1[t]), float(np.exp(s.logprob[t])))
                                             for s in visual.values()]),
            "mention_l_conf": paper_l_conf(p, pb), "mention_l_match": paper_l_match(answer,
                                                                                   blank_answer),
            "mention_l_persist": paper_l_persist(answer, blank_answer, p, pb),
            "mention_l_stable": paper_l_stable(answer, blank_answer, p, pb)})
    for name in per_token[0]:
        assert out[name] == pytest.approx(per_token[-1][name], abs=1e-9), name
        assert out[f"{name}_w4"] == pytest.approx(np.mean([t[name] for t in per_token]),
                                                  abs=1e-9), name
    # by hand, object token: |dlog p| = (log 8, log 8/7) / 2, one of two perturbations flips
    assert out["mention_v_dlogp"] == pytest.approx((np.log(8) + np.log(8 / 7)) / 2)
    # blur changes the top-1 of the last two window tokens, dark none: (0 + 1/2 + 1/2) / 3
    assert out["mention_v_flip"] == 0.5 and out["mention_v_flip_w4"] == pytest.approx(1 / 3)
    assert out["mention_l_logratio"] == pytest.approx(np.log(0.25))
    assert out["mention_rank_blur"] == 4 and out["mention_logprob_dark"] == pytest.approx(
        np.log(0.7))
    assert sorted(out) == sorted(coordinate_columns(("blur", "dark", "blank")))


def test_only_requested_parts_are_written():
    assert not any(c.startswith("mention_l_") for c in coordinate_columns(("blur",)))
    assert not any(c.startswith("mention_v") for c in coordinate_columns(("blank",)))
    assert sorted(coordinate_columns(CONDITIONS)) == sorted(MENTION_VECTOR)
    with pytest.raises(ConfigError, match="unknown condition"):
        PerturbationConfig.parse("blank,fog")
    with pytest.raises(ConfigError, match="severity"):
        PerturbationConfig(("blank",), severity=4)


@pytest.mark.slow
def test_resume_keeps_rows_and_refuses_other_perturbations(setup):
    root, adapters, items = setup
    adapter = adapters["llava"]
    blank = PerturbationConfig.parse("blank")
    whole, part = root / "whole", root / "part"
    extract_signals(adapter, items, whole, batch_size=2, perturbations=blank)
    first = extract_signals(adapter, items, part, batch_size=2, limit=1, perturbations=blank)
    again = extract_signals(adapter, items, part, batch_size=2, perturbations=blank)
    assert first["processed"] == 1 and again["skipped_done"] == 1 and again["processed"] == 1
    a, b = _rows(whole), _rows(part)
    assert a.keys() == b.keys()
    for key in a:
        assert a[key]["mention_l_conf"] == pytest.approx(b[key]["mention_l_conf"], abs=1e-5)
    with pytest.raises(ConfigError, match="other settings"):
        extract_signals(adapter, items, part, perturbations=ALL)
    # a store made without perturbations keeps its manifest (older stores still resume)
    plain = root / "plain"
    extract_signals(adapter, items[:1], plain)
    manifest = json.loads((plain / "mentions" / "manifest.json").read_text())
    assert "perturbations" not in manifest["config"]
    assert not any(c.startswith("mention_") and c != "mention_index"
                   for c in SignalStore(plain).columns())
    assert extract_signals(adapter, items, plain)["skipped_done"] == 1


def test_detectors_read_the_signature(tmp_path):
    from synthetic_bench import write_synthetic

    labels, signals = write_synthetic(tmp_path)
    rng = np.random.default_rng(1)
    names = pq.read_table(labels).to_pylist()
    label = {(r["caption_index"], r["mention_index"]): r["namebench_class"] for r in names}
    for shard in sorted((signals / "mentions").glob("shard-*.parquet")):
        table = pq.read_table(shard)
        bad = np.array([label[(c, m)] == "hallucinated" for c, m in zip(
            table.column("caption_index").to_pylist(), table.column("mention_index").to_pylist())])
        for column in MENTION_VECTOR:  # planted: hallucinations keep p without the image
            values = rng.normal(size=len(bad))
            if column.startswith("mention_rank"):
                values = rng.integers(1, 1000, size=len(bad)).astype(float)
            elif column == "mention_l_logratio":
                values = -1.0 + 1.5 * bad + 0.5 * rng.normal(size=len(bad))
            elif column == "mention_v_dlogp":
                values = np.abs(1.5 - 1.0 * bad + 0.4 * rng.normal(size=len(bad)))
            table = table.append_column(column, pa.array(values))
        pq.write_table(table, shard)
    from typer.testing import CliRunner

    from halluscope.cli.bench import app

    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", "--labels", str(labels), "--signals", str(signals),
                                      "--out", str(out), "--seeds", "2", "--budgets", "0,max",
                                      "--detectors", "nll," + ",".join(MENTION)])
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    t4 = {r["detector"]: r for r in results["tables"]["table4"]["rows"]}
    assert set(MENTION) <= set(t4)
    for name in ("mention_v", "mention_l", "mention_vl"):
        assert results["mean"]["0"][name]["auc_concrete_vs_halluc"]["mean"] > 0.7, name
    t5 = {r["detector"] for r in results["tables"]["table5"]["rows"]}
    assert "mention_probe" in t5 and "mention_probe" in results["mean"]["max"]
    assert get_detector("mention_probe").trained and not get_detector("mention_l").trained


def test_cli_refuses_an_unknown_condition_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from halluscope.cli.main import app

    captions = tmp_path / "c.jsonl"
    captions.write_text(json.dumps({"image_id": 1, "caption": "A dog."}) + "\n")
    result = CliRunner().invoke(app, ["signals", "--model", str(tmp_path / "none"), "--captions",
                                      str(captions), "--out", str(tmp_path / "o"),
                                      "--perturbations", "blank,fog"])
    assert result.exit_code == 2
    assert "unknown condition(s) fog" in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_cli_resumes_whatever_the_order_of_conditions(setup, tmp_path):
    """The run's fingerprint holds the parsed conditions, not the option's spelling."""
    from typer.testing import CliRunner

    from halluscope.cli.main import app

    root, _, items = setup
    captions = tmp_path / "c.jsonl"
    captions.write_text("".join(json.dumps(item) + "\n" for item in items))
    base = ["signals", "--model", str(root / "llava"), "--captions", str(captions),
            "--out", str(tmp_path / "o"), "--device", "cpu", "--allow-outside-images"]
    first = CliRunner().invoke(app, base + ["--perturbations", "blank,noise", "--limit", "1"])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(app, base + ["--perturbations", "noise, blank"])
    assert again.exit_code == 0, again.output
    assert "1 captions already done" in again.output
    other = CliRunner().invoke(app, base + ["--perturbations", "blank"])
    assert other.exit_code == 2 and "differs" in other.output
