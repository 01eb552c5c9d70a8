"""NAME-Bench as the paper computes it: generic mentions dropped (Appendix C), the natural share
from the paper's Table 1 or given, and Table 3 without generic mentions. Expected figures are
counted by hand from the small tables written here."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from halluscope.bench.tables.common import resolve_natural_share
from halluscope.bench.protocol import MentionTable
from halluscope.cli.bench import app
from halluscope.errors import ConfigError

# Per image: 3 concrete, 1 hallucinated, 1 hedged, 1 negation, 1 generic.
KINDS = [("concrete", None)] * 3 + [("hallucinated", None), ("non_assertive", "hedged"),
                                    ("non_assertive", "negation"), ("non_assertive", "generic")]
N_IMAGES = 30


def _write(root: Path) -> tuple[Path, Path]:
    root.mkdir(parents=True, exist_ok=True)
    labels, signals = [], []
    for image in range(N_IMAGES):
        for m, (cls, sub) in enumerate(KINDS):
            span = {"caption_index": image, "start": 10 * m, "end": 10 * m + 3}
            labels.append({**span, "image_id": 500 + image, "mention_index": m, "word": "dog",
                           "category": "dog", "excluded": False,
                           "usage": "non_assertive" if sub else "existential", "subtype": sub,
                           "error": None, "present": cls == "concrete", "namebench_class": cls})
            signals.append({**span, "key": f"{image:03d}:{m}", "mention_index": m,
                            "image_id": str(500 + image), "word": "dog", "category": "dog",
                            "caption_token_index": 5 * m,
                            "nll": float(m + (image % 7) / 10 + 3 * (cls != "concrete"))})
    labels_path = root / "labels.parquet"
    pq.write_table(pa.Table.from_pylist(labels), labels_path)
    (root / "signals" / "mentions").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(signals),
                   root / "signals" / "mentions" / "shard-000000.parquet")
    return labels_path, root / "signals"


def _run(root: Path, *extra: str):
    labels, signals = _write(root)
    out = root / "out"
    result = CliRunner().invoke(app, ["run", "--labels", str(labels), "--signals", str(signals),
                                      "--out", str(out), "--detectors", "nll", "--seeds", "1",
                                      *extra])
    return result, out


def test_generic_mentions_are_dropped_by_default(tmp_path):
    result, out = _run(tmp_path, "--natural-share", "0.05")
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    row = results["tables"]["table2"]["rows"][0]
    # 30 images x (3 concrete, 1 hallucinated, 2 non-assertive in the four subtypes).
    assert (row["concrete"], row["hallucinated"], row["non-assertive"], row["total"]) == (
        90, 30, 60, 180)
    assert row["hedged"] == "30 (50.0%)" and "generic" not in row
    assert results["summary"]["n_mentions"] == 180
    assert any("30 generic non-assertive mentions dropped" in n
               for n in results["summary"]["notes"])
    # Table 1's non-assertive share is over NAME-Bench's mentions: 60 / 180.
    share = results["tables"]["table1"]["rows"][0]
    assert "33.3" in json.dumps(share)


def test_keep_generic_keeps_them(tmp_path):
    result, out = _run(tmp_path, "--natural-share", "0.05", "--keep-generic")
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    row = results["tables"]["table2"]["rows"][0]
    assert (row["non-assertive"], row["total"], row["generic"]) == (90, 210, "30 (33.3%)")
    assert results["summary"]["keep_generic"] is True


def test_table16_still_sees_generic_mentions(tmp_path):
    labels, signals = _write(tmp_path)
    out = tmp_path / "t"
    result = CliRunner().invoke(app, ["tables", "--labels", str(labels), "--signals",
                                      str(signals), "--out", str(out), "--detectors", "nll",
                                      "--seeds", "1", "--tables", "6,16"])
    assert result.exit_code == 0, result.output
    tables = json.loads((out / "extra_results.json").read_text())["tables"]
    assert all(r["Other %"]["mean"] is not None for r in tables["table16"]["rows"])
    # Table 6 (seen vs unseen subtype) lists only the four subtypes' mentions.
    assert {r["subtype"] for r in tables["table6"]["rows"]} <= {"hedged", "negation"}


def test_table3_drops_generic_from_the_non_assertive_row():
    from halluscope.bench.tables.table3 import table3_rows
    from halluscope.metrics.throne import ThroneVotes

    rows = [{"namebench_class": "non_assertive", "subtype": s, "present": False,
             "chair_hallucinated": True} for s in ("hedged", "generic", "generic")]
    rows.append({"namebench_class": "non_assertive", "subtype": "negation", "present": False,
                 "chair_hallucinated": False})
    votes = [ThroneVotes([True] * 9)] * 4
    default = {r["group"]: r for r in table3_rows(rows, votes)}
    # By hand: hedged (CHAIR yes) and negation (CHAIR no) -> 2 mentions, CHAIR 50%.
    assert default["non_assertive"]["n"] == 2 and default["non_assertive"]["chair_pct"] == 50.0
    assert "generic" not in default
    kept = {r["group"]: r for r in table3_rows(rows, votes, keep_generic=True)}
    assert kept["non_assertive"]["n"] == 4 and kept["non_assertive"]["chair_pct"] == 75.0
    assert kept["generic"]["n"] == 2


# --- the natural share ---------------------------------------------------------------------

def _table(n_na: int, n: int) -> MentionTable:
    labels = ["non_assertive"] * n_na + ["concrete"] * (n - n_na)
    return MentionTable.from_columns([str(i) for i in range(n)], labels,
                                     ["hedged"] * n_na + [None] * (n - n_na))


def test_natural_share_defaults_to_the_papers_table1_figure():
    # §3.3: non-assertive mentions are 1.3% of LLaVA-1.5's object mentions.
    share = resolve_natural_share(_table(25, 100), None, "llava-hf/llava-1.5-7b-hf")
    assert share.value == pytest.approx(0.013) and share.warning is None
    assert "Table 1" in share.source


def test_natural_share_is_required_for_an_unknown_model():
    with pytest.raises(ConfigError, match="--natural-share"):
        resolve_natural_share(_table(25, 100), None, "Qwen2.5-VL-7B")
    estimated = resolve_natural_share(_table(25, 100), None, "Qwen2.5-VL-7B", estimate=True)
    assert estimated.value == 0.25 and "oversamples" in estimated.warning


def test_bench_run_refuses_nat_without_a_share_and_warns_when_estimating(tmp_path):
    # Only training-free detectors: nothing is mixed, so budget nat needs no share.
    untrained, _ = _run(tmp_path / "a", "--budgets", "0,nat")
    assert untrained.exit_code == 0, untrained.output
    labels, signals = _write(tmp_path / "c")
    base = ["run", "--labels", str(labels), "--signals", str(signals), "--seeds", "1",
            "--detectors", "lookback_lens"]
    # A trained probe mixes at budget nat: give the store its feature (W4 lookback ratios).
    table = pq.read_table(signals / "mentions").to_pylist()
    for r in table:
        r["lookback_ratio_w4"] = [[float(r["nll"]), 0.0], [0.0, 1.0]]
    pq.write_table(pa.Table.from_pylist(table), signals / "mentions" / "shard-000000.parquet")
    refused = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "o1")])
    assert refused.exit_code == 2 and "no natural share" in refused.output
    warned = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "o2"),
                                      "--estimate-natural-share"])
    assert warned.exit_code == 0, warned.output
    assert "warning: natural share 0.333 estimated" in warned.output
    paper = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "o3"), "--model",
                                     "llava-1.5-7b"])
    assert paper.exit_code == 0, paper.output
    summary = json.loads((tmp_path / "o3" / "results.json").read_text())["summary"]
    assert summary["natural_share"] == 0.013 and "Table 1" in summary["natural_share_source"]
