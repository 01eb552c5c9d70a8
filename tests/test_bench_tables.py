"""`halluscope bench tables` (Tables 6, 11, 14, 15, 16, 17) and the text-filter judge on a
synthetic labels file + signal store with planted structure:

- hallucinated and non-assertive mentions share an "ungrounded" direction (the upper half of
  the multimodal features), and every non-assertive subtype k has its own cue (dimension k of
  the lower half), so a probe corrects a subtype only when that subtype is in its training mix
  (seen) -> Table 6's unseen FPR is higher;
- the text-only features separate non-assertive from existential mentions (last dimension), so
  the text filter's recall is high and it removes few hallucinations (Table 11);
- categories depend on the subtype (Table 17); a few compounds and generic mentions (Table 16).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from halluscope.cli.bench import app
from halluscope.bench.tables.table15 import hedges_as_claims
from halluscope.bench.tables.table17 import table17
from halluscope.errors import ConfigError

SUBTYPES = ("hedged", "depictive", "purpose", "negation")
CATEGORY = {"hedged": "bird", "depictive": "cat", "purpose": "cup", "negation": "person",
            "generic": "car"}
L, H, D = 2, 4, 8
DETECTORS = "nll,vade,lookback_lens,hidden_mid,text_only"


def write_store(root: Path, n_images: int = 160, seed: int = 0, generic: bool = False
                ) -> tuple[Path, Path]:
    """Labels Parquet + signals directory (the shapes `bench run` reads)."""
    rng = np.random.default_rng(seed)
    labels, signals = [], []
    subtypes = SUBTYPES + (("generic",) if generic else ())
    for image in range(n_images):
        for m in range(6):
            kind = str(rng.choice(["concrete", "hallucinated", "non_assertive", "compound"],
                                  p=[.5, .2, .27, .03]))
            sub = str(rng.choice(subtypes)) if kind == "non_assertive" else None
            present = bool(kind == "concrete" or (kind != "hallucinated" and rng.random() < .5))
            usage = {"non_assertive": "non_assertive", "compound": "not_object"}.get(
                kind, "existential")
            cls = None if kind == "compound" else kind
            category = CATEGORY[sub] if sub else str(rng.choice(["dog", "car", "cup"]))
            labels.append({"caption_index": image, "image_id": 1000 + image, "mention_index": m,
                           "start": 10 * m, "end": 10 * m + 4, "word": category,
                           "category": category, "excluded": False, "usage": usage,
                           "subtype": sub, "error": None, "present": present,
                           "namebench_class": cls,
                           "reason": "compound 'hot dog'" if kind == "compound" else None})
            bad = float(kind in ("hallucinated", "non_assertive"))
            shift = np.zeros(D)
            shift[D // 2:] = 1.5 * bad
            if sub in SUBTYPES:
                shift[SUBTYPES.index(sub)] = -5.0
            text = rng.normal(size=D)
            text[-1] += 3.0 * (kind == "non_assertive")
            signals.append({
                "key": f"{image}:{m}", "caption_index": image, "mention_index": m,
                "image_id": str(1000 + image), "start": 10 * m, "end": 10 * m + 4,
                "word": category, "category": category,
                "caption_token_index": int(rng.integers(0, 60)),
                "nll": float(rng.normal() + 1.5 * bad),
                "image_attention_w4": (rng.normal(size=(L, H)) - bad).tolist(),
                "lookback_ratio_w4": (rng.normal(size=(L, H)) + shift.reshape(L, H)).tolist(),
                "hidden_mid_w4": (rng.normal(size=D) + shift).tolist(),
                "text_hidden_mid_w4": text.tolist(),
            })
    labels_path = root / "mentions.parquet"
    pq.write_table(pa.Table.from_pylist(labels), labels_path)
    sig = root / "signals"
    (sig / "mentions").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(signals), sig / "mentions" / "shard-000000.parquet")
    return labels_path, sig


def _tables(args: list[str]):
    # The synthetic labels are a random sample: their own share is the natural one.
    return CliRunner().invoke(app, ["tables", "--estimate-natural-share", *args])


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("extra")
    labels, signals = write_store(root)
    out = root / "out"
    result = _tables(["--labels", str(labels), "--signals", str(signals), "--out", str(out),
                      "--seeds", "2", "--detectors", DETECTORS, "--budgets", "0,nat,30,max"])
    assert result.exit_code == 0, result.output
    return labels, signals, out, json.loads((out / "extra_results.json").read_text())


def _rows(results, name):
    return results["tables"][name]["rows"]


def test_every_table_is_written_without_nan(run):
    _, _, out, results = run
    names = {"table6", "table11_filter", "table11", "table14", "table15", "table16", "table17",
             "position3", "relpos", "figure1", "figure1_examples"}
    assert set(results["tables"]) == names
    for name in names:
        assert (out / f"{name}.csv").is_file(), name
    assert "NaN" not in (out / "extra_results.json").read_text()
    assert "Table 6" in (out / "extra_tables.md").read_text()


def test_table6_unseen_subtypes_are_flagged_more(run):
    rows = _rows(run[3], "table6")
    assert [r["subtype"] for r in rows[:4]] == list(SUBTYPES)
    assert rows[0]["detector"] == "mean (trained probes)"
    for r in rows:  # planted: each subtype's cue is learnt only from its own examples
        if r["detector"] in ("mean (trained probes)", "hidden_mid", "lookback_lens"):
            assert r["unseen %"]["mean"] > r["seen %"]["mean"] + 0.1, r


def test_table11_filter_recall_and_effect(run):
    results = run[3]
    f = _rows(results, "table11_filter")[0]
    assert f["all recall %"]["mean"] > 0.8 and f["halluc removed %"]["mean"] < 0.2
    d = {r["detector"]: r for r in _rows(results, "table11")}
    for name in ("nll", "vade"):  # training-free detectors profit most
        assert d[name]["NA FPR filter %"]["mean"] < d[name]["NA FPR %"]["mean"] - 0.2
    assert d["nll"]["group"] == "training-free" and d["hidden_mid"]["group"].startswith("trained")
    assert any("training-free: NA FPR" in n for n in results["tables"]["table11"]["notes"])


def test_table14_mixing_lowers_fpr_per_subtype(run):
    rows = _rows(run[3], "table14")
    assert {r["detector"] for r in rows} == {"lookback_lens", "hidden_mid"}
    for r in rows:
        if r["detector"] == "hidden_mid":
            assert r["max"]["mean"] < r["0"]["mean"], r


def test_table15_hedges_as_claims(run):
    rows = _rows(run[3], "table15")
    assert {r["budget"] for r in rows} == {"0", "nat"}
    for r in rows:
        assert r["FPR claim %"]["mean"] is not None and r["TPR claim %"]["mean"] is not None


def test_table16_and_17(run):
    results = run[3]
    t16 = results["tables"]["table16"]
    assert any("compound matches" in n for n in t16["notes"])
    rows16 = {r["detector"]: r for r in t16["rows"]}
    assert all(r["Other %"]["mean"] is None for r in rows16.values())  # no generic mentions
    # Planted: compounds carry no "ungrounded" shift, so they are flagged like concrete ones.
    assert rows16["hidden_mid"]["Comp. %"]["mean"] < rows16["hidden_mid"]["4 cat. %"]["mean"]
    t17 = {r["subtype"]: r for r in _rows(results, "table17")}
    assert t17["hedged"]["concepts"] == 1
    assert t17["hedged"]["top 5 (% of subtype)"] == "bird (100.0)"
    assert t17["all"]["n"] == sum(t17[s]["n"] for s in SUBTYPES)


def test_table16_reports_generic_mentions(tmp_path):
    labels, signals = write_store(tmp_path, n_images=60, generic=True)
    out = tmp_path / "o"
    result = _tables(["--labels", str(labels), "--signals", str(signals), "--out", str(out),
                      "--seeds", "1", "--detectors", "nll,hidden_mid", "--tables", "16"])
    assert result.exit_code == 0, result.output
    t16 = json.loads((out / "extra_results.json").read_text())["tables"]["table16"]
    assert {r["detector"] for r in t16["rows"]} == {"nll", "hidden_mid"}
    assert all(r["Other %"]["mean"] is not None for r in t16["rows"])


def test_reruns_are_identical(run, tmp_path):
    labels, signals, out, _ = run
    again = tmp_path / "again"
    result = _tables(["--labels", str(labels), "--signals", str(signals), "--out", str(again),
                      "--seeds", "2", "--detectors", DETECTORS, "--budgets", "0,nat,30,max"])
    assert result.exit_code == 0, result.output
    for name in ("extra_results.json", "extra_tables.md", "table6.csv", "table11.csv"):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name


def test_bad_table_number_is_an_error(run, tmp_path):
    labels, signals, _, _ = run
    result = _tables(["--labels", str(labels), "--signals", str(signals), "--out",
                      str(tmp_path / "o"), "--tables", "6,99"])
    assert result.exit_code == 2 and "unknown table(s) 99" in result.output


def test_hedges_as_claims_relabels_by_presence():
    from halluscope.bench.protocol import MentionTable

    t = MentionTable.from_columns(list("abc"), ["non_assertive", "non_assertive", "concrete"],
                                  ["hedged", "hedged", None], [True, False, True])
    assert hedges_as_claims(t).label.tolist() == ["concrete", "hallucinated", "concrete"]
    assert table17([])["notes"] == ["no non-assertive mentions"]


def test_text_filter_judge_round_trip(tmp_path):
    from halluscope.text.usage import get_judge
    from halluscope.text.usage.text_filter import (TextFilterJudge, TextFilterModel,
                                                   fit_text_filter)

    rng = np.random.default_rng(1)
    y = rng.random(300) < 0.2
    x = rng.normal(size=(300, D))
    x[:, -1] += 3.0 * y
    model = fit_text_filter(x, y)
    for suffix in ("json", "npz"):
        path = tmp_path / f"filter.{suffix}"
        model.save(path)
        loaded = TextFilterModel.load(path)
        assert np.allclose(loaded.probability(x), model.probability(x))
    judge = get_judge("text_filter", path=tmp_path / "filter.json")
    labels = judge.label_features(x)
    marked = np.array([l.usage == "non_assertive" for l in labels])
    assert marked[y].mean() > 0.8 and marked[~y].mean() < 0.2
    assert all(l.judge == "text_filter" for l in labels)
    with pytest.raises(ConfigError, match="label_features"):
        judge.label(["a dog"], [[]])
    with pytest.raises(ConfigError, match="fitted filter file"):
        TextFilterJudge()
    assert TextFilterJudge.from_file(tmp_path / "filter.npz").model.n_train == model.n_train


def test_imports_stay_light():
    import subprocess
    import sys

    code = ("import sys, halluscope.bench, halluscope.text.usage, "
            "halluscope.bench.appendix, halluscope.bench.tables.table6, "
            "halluscope.text.usage.text_filter; "
            "print(any(m in sys.modules for m in ('torch', 'sklearn')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
