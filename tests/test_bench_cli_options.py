"""NAME-Bench CLI options: `bench fit-text-filter` and `label --judge
text_filter`, `--detector-option` on `bench run` / `bench tables`, and the per-mention scores at
every mixing budget (`scores_mixing.parquet`).

The text-filter store has real caption text (so `halluscope label` can find the mentions): one
sentence per mention, its wording set by the mention's class, and text-only features whose last
dimension is shifted for non-assertive mentions (the planted signal the filter must learn).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from halluscope.cli.bench import app as bench_app
from halluscope.cli.main import app as main_app
from halluscope.errors import ConfigError
from halluscope.text.mentions import extract_mentions

D = 8
WORDS = ("dog", "cat", "bird", "horse", "sheep", "cow")
SENTENCE = {"concrete": "There is a {} here.", "hallucinated": "There is a {} here.",
            "hedged": "There might be a {} here.", "negation": "There is no {} here.",
            "depictive": "A drawing of a {} here."}


def write_text_store(root: Path, n_images: int = 150, seed: int = 0
                     ) -> tuple[Path, Path, Path, list[list[bool]]]:
    """(labels Parquet, signals directory, captions JSONL, per caption: is each mention
    non-assertive)."""
    rng = np.random.default_rng(seed)
    labels, mentions, captions, lines, truth = [], [], [], [], []
    for image in range(n_images):
        kinds = [str(rng.choice(["concrete", "hallucinated", "hedged", "negation", "depictive"],
                                p=[.45, .2, .15, .1, .1])) for _ in range(4)]
        words = rng.choice(WORDS, size=4, replace=False)
        # "Photo N." makes every caption text unique (the judge looks mentions up by text).
        text = " ".join([f"Photo {image}."] + [SENTENCE[k].format(w) for k, w in zip(kinds, words)])
        found = extract_mentions(text)
        assert [m.word for m in found] == list(words)
        truth.append([k not in ("concrete", "hallucinated") for k in kinds])
        for j, (kind, m) in enumerate(zip(kinds, found)):
            na = kind not in ("concrete", "hallucinated")
            labels.append({"caption_index": image, "image_id": 1000 + image, "mention_index": j,
                           "start": m.start, "end": m.end, "word": m.word,
                           "category": m.category, "excluded": False,
                           "usage": "non_assertive" if na else "existential",
                           "subtype": kind if na else None, "error": None,
                           "present": kind == "concrete",
                           "namebench_class": "non_assertive" if na else kind, "reason": None})
            x = rng.normal(size=D)
            x[-1] += 4.0 * na
            mentions.append({"key": f"{image}:{j}", "caption_index": image, "mention_index": j,
                             "image_id": str(1000 + image), "start": m.start, "end": m.end,
                             "word": m.word, "category": m.category,
                             "caption_token_index": int(rng.integers(0, 40)),
                             "nll": float(rng.normal() + (kind == "hallucinated")),
                             "text_hidden_mid_w4": x.tolist()})
        captions.append({"key": str(image), "caption_index": image,
                         "image_id": str(1000 + image), "caption_text": text})
        lines.append(json.dumps({"image_id": 1000 + image, "caption": text}))
    labels_path = root / "labels.parquet"
    pq.write_table(pa.Table.from_pylist(labels), labels_path)
    signals = root / "signals"
    for name, rows in (("mentions", mentions), ("captions", captions)):
        (signals / name).mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist(rows), signals / name / "shard-000000.parquet")
    captions_path = root / "captions.jsonl"
    captions_path.write_text("\n".join(lines) + "\n")
    return labels_path, signals, captions_path, truth


@pytest.fixture(scope="module")
def text_store(tmp_path_factory):
    root = tmp_path_factory.mktemp("text_filter")
    return (root, *write_text_store(root))


def _fit(labels: Path, signals: Path, out: Path, *extra: str):
    return CliRunner().invoke(bench_app, ["fit-text-filter", "--estimate-natural-share",
                                          "--labels", str(labels),
                                          "--signals", str(signals), "--out", str(out), *extra])


def _one_line_error(result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert "\n" not in text and "Traceback" not in text, text
    for needle in needles:
        assert needle in text, text


# --- 1. the text filter from the CLI -------------------------------------------------------------

def test_fit_text_filter_trains_as_appendix_e_and_reloads(text_store):
    from halluscope.bench.protocol import split_codes
    from halluscope.bench.appendix import fit_bench_text_filter
    from halluscope.text.usage.text_filter import TextFilterModel

    root, labels, signals, _, _ = text_store
    result = _fit(labels, signals, root / "filter.json", "--natural-share", "0.1", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "hedged recall" in result.output and "halluc removed" in result.output
    model = TextFilterModel.load(root / "filter.json")
    # Training set: the fit split's concrete + hallucinated mentions, plus the natural-share
    # budget of non-assertive ones, m = round(r n / (1 - r)).
    rows = pq.read_table(labels).to_pylist()
    codes = split_codes(np.array([str(r["image_id"]) for r in rows], dtype=object), 1)
    n_existential = sum(1 for r, c in zip(rows, codes)
                        if c == 0 and r["namebench_class"] != "non_assertive")
    assert model.n_train == {"existential": n_existential,
                             "non_assertive": round(0.1 * n_existential / 0.9)}
    assert model.info["seed"] == 1 and model.info["natural_share"] == 0.1
    # The held-out rates it printed are in the file; the planted cue is learnt.
    held = model.info["heldout"]
    for sub in ("hedged", "negation", "depictive"):
        assert held[f"{sub} recall %"] > 0.8, held
    assert held["halluc removed %"] < 0.1 and held["concrete removed %"] < 0.1
    # The same fit in-process, saved as .npz: the same probabilities after reloading.
    fit_bench_text_filter(labels, signals, root / "filter.npz", seed=1, natural_share=0.1)
    x = np.random.default_rng(5).normal(size=(50, D))
    x[:25, -1] += 4.0
    again = TextFilterModel.load(root / "filter.npz")
    assert np.array_equal(model.probability(x), again.probability(x))
    assert model.is_non_assertive(x)[:25].mean() > 0.8


def test_fit_text_filter_needs_the_text_only_column(tmp_path, text_store):
    _, labels, signals, _, _ = text_store
    table = pq.read_table(signals / "mentions" / "shard-000000.parquet")
    bare = tmp_path / "signals"
    (bare / "mentions").mkdir(parents=True)
    pq.write_table(table.drop(["text_hidden_mid_w4"]), bare / "mentions" / "shard-000000.parquet")
    _one_line_error(_fit(labels, bare, tmp_path / "f.json"), "text_hidden_mid_w4",
                    str(bare / "mentions"))
    assert not (tmp_path / "f.json").exists()


def _label(captions: Path, out: Path, *extra: str):
    return CliRunner().invoke(main_app, ["label", "--captions", str(captions), "--out", str(out),
                                         *extra])


def test_label_with_the_fitted_filter(text_store, tmp_path):
    root, labels, signals, captions, truth = text_store
    assert _fit(labels, signals, tmp_path / "filter.json").exit_code == 0
    # One caption the signal store does not have: its mentions become judge failures.
    extra = json.dumps({"image_id": 1, "caption": "Photo x. There is a dog here."})
    with_extra = tmp_path / "captions.jsonl"
    with_extra.write_text(captions.read_text() + extra + "\n")
    out = tmp_path / "labels.parquet"
    result = _label(with_extra, out, "--judge", "text_filter", "--text-filter",
                    str(tmp_path / "filter.json"), "--signals", str(signals))
    assert result.exit_code == 0, result.output
    rows = pq.read_table(out).to_pylist()
    missing = [r for r in rows if r["caption_index"] == len(truth)]
    assert len(missing) == 1 and "no text_hidden_mid_w4" in missing[0]["error"]
    labelled = [r for r in rows if r["caption_index"] < len(truth)]
    assert all(r["error"] is None and r["judge"] == "text_filter" for r in labelled)
    predicted = np.array([r["usage"] == "non_assertive" for r in labelled])
    expected = np.array([truth[r["caption_index"]][r["mention_index"]] for r in labelled])
    assert (predicted == expected).mean() > 0.95
    assert {r["subtype"] for r in labelled if r["usage"] == "non_assertive"} == {"generic"}


def test_label_flags_conflicting_feature_rows(text_store, tmp_path):
    from halluscope.text.usage import get_judge

    root, labels, signals, captions, _ = text_store
    assert _fit(labels, signals, tmp_path / "filter.json").exit_code == 0
    # A second caption with the text of caption 0 but other features: no row can be trusted.
    store = tmp_path / "signals"
    for part in ("mentions", "captions"):
        table = pq.read_table(signals / part / "shard-000000.parquet").to_pylist()
        first = [dict(r) for r in table if r["caption_index"] == 0]
        for r in first:
            r["caption_index"] = 999
            r["key"] = r["key"].replace("0", "999", 1)
            if "text_hidden_mid_w4" in r:
                r["text_hidden_mid_w4"] = [v + 1.0 for v in r["text_hidden_mid_w4"]]
        (store / part).mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist(table + first), store / part / "shard-000000.parquet")
    judge = get_judge("text_filter", path=tmp_path / "filter.json", signals=store)
    text = json.loads(captions.read_text().splitlines()[0])["caption"]
    out = judge.label([text], [extract_mentions(text)])[0]
    assert all("different text_hidden_mid_w4" in f.error for f in out)
    assert judge.stats["conflicting"] == 4


@pytest.mark.parametrize("name, content", [
    ("absent.json", None), ("broken.json", "{not json"), ("list.json", "[1, 2]"),
    ("partial.json", json.dumps({"format": "halluscope-text-filter/1", "coef": [1.0]})),
    ("values.json", json.dumps({"format": "halluscope-text-filter/1", "coef": ["a"],
                                "intercept": 0, "mean": [0], "std": [1]})),
    ("garbage.npz", "PK not a zip"),
])
def test_missing_or_corrupt_filter_file_is_one_line(text_store, tmp_path, name, content):
    _, _, signals, captions, _ = text_store
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    result = _label(captions, tmp_path / "o.parquet", "--judge", "text_filter",
                    "--text-filter", str(path), "--signals", str(signals))
    _one_line_error(result, str(path))
    assert not (tmp_path / "o.parquet").exists()


def test_label_text_filter_options_are_checked(text_store, tmp_path):
    _, _, signals, captions, _ = text_store
    out = tmp_path / "o.parquet"
    _one_line_error(_label(captions, out, "--judge", "text_filter", "--signals", str(signals)),
                    "--text-filter")
    _one_line_error(_label(captions, out, "--signals", str(signals)), "--judge text_filter")


# --- 2. detector options ------------------------------------------------------------------------

def test_detector_options_are_parsed_and_checked():
    from halluscope.bench.runner import parse_detector_options

    assert parse_detector_options(["dhcp.epochs=20", "dhcp.device=cuda", "dhcp.lr=0.01",
                                   "halp.batch_size=64", "svar.layers=0,2"]) == {
        "dhcp": {"epochs": 20, "device": "cuda", "lr": 0.01}, "halp": {"batch_size": 64},
        "svar": {"layers": (0, 2)}}
    assert parse_detector_options(["dhcp.device=0"]) == {"dhcp": {"device": "0"}}  # str kept
    for item, message in [("nope.epochs=1", "unknown detector 'nope'"),
                          ("dhcp.epoch=1", "dhcp takes no option 'epoch'"),
                          ("dhcp.seed=1", "set by the protocol"),
                          ("dhcp.epochs=many", "takes int"),
                          ("dhcp.epochs=true", "takes int"),
                          ("hidden_mid.C=x", "takes float"),
                          ("dhcp.precision=fp8", "precision must be one of"),
                          ("dhcp", "expected NAME.KEY=VALUE"), ("dhcp.=3", "NAME.KEY=VALUE")]:
        with pytest.raises(ConfigError, match=message):
            parse_detector_options([item])


def test_bad_detector_option_on_the_cli_is_one_line(tmp_path):
    for command in ("run", "tables"):
        result = CliRunner().invoke(bench_app, [command, "--labels", "l", "--signals", "s",
                                                "--out", str(tmp_path / "o"),
                                                "--detector-option", "hidden_mid.epochs=3"])
        _one_line_error(result, "hidden_mid takes no option 'epochs'", "C, columns, max_iter")


@pytest.fixture(scope="module")
def bench_run(tmp_path_factory):
    from synthetic_bench import write_synthetic

    root = tmp_path_factory.mktemp("gaps_run")
    labels, signals = write_synthetic(root, n_images=75)
    out = root / "out"
    result = CliRunner().invoke(bench_app, [
        "run", "--estimate-natural-share", "--labels", str(labels), "--signals", str(signals),
        "--out", str(out), "--seeds", "2", "--budgets", "0,nat,30,max", "--detectors",
        "svar,lookback_lens,hidden_mid", "--detector-option", "svar.layers=1",
        "--detector-option", "dhcp.epochs=1"])
    assert result.exit_code == 0, result.output
    assert "--detector-option for dhcp unused" in result.output
    return labels, signals, out, json.loads((out / "results.json").read_text())


def test_run_passes_detector_options(bench_run):
    _, signals, out, _ = bench_run
    store = pq.read_table(signals / "mentions").to_pylist()
    # SVAR with layers=(1,): minus the head-mean of layer 1's image attention (read as float32).
    expected = {r["key"]: -float(np.asarray(r["image_attention"], dtype=np.float32)[1].mean(
        dtype=np.float64)) for r in store}
    scores = pq.read_table(out / "scores.parquet").to_pylist()
    assert all(abs(r["svar"] - expected[r["key"]]) < 1e-6 for r in scores)


def test_tables_pass_detector_options(monkeypatch, tmp_path):
    import halluscope.detectors as registry
    import halluscope.bench.runner as runner
    from synthetic_bench import write_synthetic

    built: list[tuple[str, dict]] = []
    real = registry.get_detector

    def recording(name, **options):
        built.append((name, dict(options)))
        return real(name, **options)

    monkeypatch.setattr(registry, "get_detector", recording)
    monkeypatch.setattr(runner, "get_detector", recording)
    labels, signals = write_synthetic(tmp_path, n_images=45)
    result = CliRunner().invoke(bench_app, [
        "tables", "--estimate-natural-share", "--labels", str(labels), "--signals", str(signals),
        "--out", str(tmp_path / "o"), "--tables", "6,11,14,15,16", "--seeds", "1",
        "--budgets", "0,max",
        "--detectors", "lookback_lens,hidden_mid", "--detector-option", "hidden_mid.C=0.25",
        "--detector-option", "lookback_lens.max_iter=500"])
    assert result.exit_code == 0, result.output
    assert {n for n, _ in built} == {"lookback_lens", "hidden_mid"}
    assert len(built) > 10  # every table builds its own detectors
    for name, options in built:
        assert options == ({"C": 0.25} if name == "hidden_mid" else {"max_iter": 500}), name


# --- 3. per-mention scores at every mixing budget -----------------------------------------------

def test_mixing_scores_reproduce_the_reported_metrics(bench_run):
    from halluscope.bench.protocol import SPLITS, MentionTable, evaluate_seed, split_codes

    _, _, out, results = bench_run
    meta = [r for r in pq.read_table(out / "scores.parquet").to_pylist() if r["seed"] == 0]
    table = MentionTable.from_columns([r["image_id"] for r in meta], [r["label"] for r in meta],
                                      [r["subtype"] for r in meta], [r["present"] for r in meta],
                                      [r["key"] for r in meta])
    index = {r["key"]: i for i, r in enumerate(meta)}
    mixing = pq.read_table(out / "scores_mixing.parquet")
    assert mixing.column_names == ["seed", "budget", "key", "split", "lookback_lens",
                                   "hidden_mid"]  # trained detectors only
    rows = mixing.to_pylist()
    budgets = results["summary"]["budgets"]
    assert budgets == ["0", "nat", "30", "max"]
    checked = 0
    for i, seed in enumerate(results["summary"]["seeds"]):
        truth_codes = split_codes(table.image_id, seed)
        for budget in budgets:
            part = [r for r in rows if r["seed"] == seed and r["budget"] == budget]
            assert len(part) == int((truth_codes != 0).sum())  # every scored mention, once
            codes = np.zeros(len(table), dtype=np.int8)  # fit rows: absent, never scored
            at = np.array([index[r["key"]] for r in part])
            codes[at] = [SPLITS.index(r["split"]) for r in part]
            assert np.array_equal(codes, truth_codes)
            for name in ("lookback_lens", "hidden_mid"):
                scores = np.zeros(len(table))
                scores[at] = [r[name] for r in part]
                ours = evaluate_seed(scores, table, codes)
                reported = results["per_seed"][i]["budgets"][budget]["detectors"][name]
                for metric in ("threshold", "na_fpr", "halluc_tpr", "concrete_fpr",
                               "auc_concrete_vs_halluc", "auc_na_absent_vs_present",
                               "na_fpr_by_subtype"):
                    assert ours[metric] == reported[metric], (seed, budget, name, metric)
                checked += 1
    assert checked == 2 * 4 * 2
    # Mixing changes the scores (budget max differs from 0), so the budgets are not copies.
    zero = [r["hidden_mid"] for r in rows if r["seed"] == 0 and r["budget"] == "0"]
    top = [r["hidden_mid"] for r in rows if r["seed"] == 0 and r["budget"] == "max"]
    assert zero != top


def test_run_protocol_keeps_scores_only_when_asked():
    from halluscope.bench.protocol import MentionTable
    from halluscope.bench.runner import run_protocol

    rng = np.random.default_rng(0)
    labels = rng.choice(["concrete", "hallucinated", "non_assertive"], 240, p=[.6, .25, .15])
    table = MentionTable.from_columns([str(i // 3) for i in range(240)], labels,
                                      [("hedged" if l == "non_assertive" else None)
                                       for l in labels])
    features = {"nll": rng.normal(size=240), "hidden_mid_w4": rng.normal(size=(240, 4))}
    plain = run_protocol(table, features, ["nll", "hidden_mid"], seeds=(0,), budgets=("0", "max"))
    assert "scores" not in plain
    kept = run_protocol(table, features, ["nll", "hidden_mid"], seeds=(0,), budgets=("0", "max"),
                        keep_scores=True)
    seed = kept["scores"]["per_seed"][0]
    assert set(seed["budgets"]) == {"0", "max"}
    assert all(set(b) == {"hidden_mid"} for b in seed["budgets"].values())  # trained only
    assert len(seed["budgets"]["max"]["hidden_mid"]) == len(seed["rows"]) == int(
        (seed["codes"] != 0).sum())
    assert plain["mean"] == kept["mean"]
