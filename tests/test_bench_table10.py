"""Table 10 (teacher-forced control): every reader of one caption set side by side."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from halluscope.cli.bench import app
from halluscope.bench.tables.table10 import parse_readers
from halluscope.errors import ConfigError

from synthetic_bench import write_synthetic

DETECTORS = "lookback_lens,hidden_mid"


def _second_reader(signals: Path, root: Path) -> Path:
    """Another model's signals on the same captions: same mentions, the planted hidden-state
    signal of the non-assertive mentions removed (this reader does not confuse them)."""
    reader = root / "reader_b"
    for part in ("mentions", "captions"):
        (reader / part).mkdir(parents=True)
        for shard in sorted((signals / part).glob("*.parquet")):
            table = pq.read_table(shard)
            if part == "mentions":
                rows = table.to_pylist()
                rng = np.random.default_rng(7)
                for r in rows:
                    r["hidden_mid_w4"] = (np.asarray(r["hidden_mid_w4"])
                                          + rng.normal(size=len(r["hidden_mid_w4"]))).tolist()
                table = pa.Table.from_pylist(rows)
            pq.write_table(table, reader / part / shard.name)
    return reader


@pytest.fixture(scope="module")
def control(tmp_path_factory):
    root = tmp_path_factory.mktemp("t10")
    labels, signals = write_synthetic(root, n_images=80)
    reader_b = _second_reader(signals, root)
    out = root / "out"
    result = CliRunner().invoke(app, [
        "table10", "--estimate-natural-share", "--labels", str(labels),
        "--signals", f"llava={signals}",
        "--signals", f"other={reader_b}", "--out", str(out), "--captions-of", "llava",
        "--seeds", "2", "--budgets", "0,nat,30,max", "--detectors", DETECTORS])
    assert result.exit_code == 0, result.output
    return labels, signals, reader_b, out


def test_table10_puts_each_readers_table5_side_by_side(control):
    labels, signals, _, out = control
    document = json.loads((out / "table10.json").read_text())
    table = document["table"]
    assert table["columns"] == ["detector", "metric"] + [
        f"{r} {b}" for r in ("llava", "other") for b in ("0", "nat", "30", "max")]
    for name in ("table10.csv", "table10.md", "llava/results.json", "other/results.json"):
        assert (out / name).is_file(), name
    # The reference model's columns are its own Table 5 (the paper's LLaVA-1.5 columns).
    own = json.loads((out / "llava" / "results.json").read_text())["tables"]["table5"]
    for row in own["rows"]:
        match = next(r for r in table["rows"]
                     if (r["detector"], r["metric"]) == (row["detector"], row["metric"]))
        for b in ("0", "nat", "30", "max"):
            assert match[f"llava {b}"] == row[b]
    # Same captions: the mixed counts (hence nat and max) are equal for every reader.
    mixed = table["rows"][0]
    assert [mixed[f"llava {b}"] for b in ("nat", "30", "max")] == [
        mixed[f"other {b}"] for b in ("nat", "30", "max")]
    assert float(mixed["llava max"]) > float(mixed["llava 30"]) > 0
    assert len({r["natural_share"] for r in document["readers"].values()}) == 1
    assert "NaN" not in (out / "table10.json").read_text()


def test_table10_differs_where_the_reader_differs(control):
    _, _, _, out = control
    rows = json.loads((out / "table10.json").read_text())["table"]["rows"]
    fpr = next(r for r in rows if r["detector"] == "hidden_mid" and r["metric"] == "NA FPR %")
    # Reader "other" lost the planted non-assertive cue in hidden_mid, reader llava kept it.
    assert fpr["llava 0"] != fpr["other 0"]
    lookback = next(r for r in rows
                    if r["detector"] == "lookback_lens" and r["metric"] == "NA FPR %")
    assert lookback["llava 0"] == lookback["other 0"]  # untouched features, same splits


def test_a_reader_of_other_captions_is_refused(tmp_path, control):
    labels, _, _, _ = control
    _, foreign = write_synthetic(tmp_path, n_images=30, seed=3)
    result = CliRunner().invoke(app, [
        "table10", "--estimate-natural-share", "--labels", str(labels), "--signals", f"x={foreign}",
        "--out", str(tmp_path / "o"), "--detectors", DETECTORS, "--seeds", "1"])
    assert result.exit_code == 2
    assert "error:" in result.output and "signals" in result.output.lower()


def test_reader_specs_are_checked():
    assert list(parse_readers(["a=x", "b=y"])) == ["a", "b"]
    for bad, message in ((["a"], "expected NAME=DIR"), (["a=x", "a=y"], "given twice"),
                         (["a/b=x"], "no '/'"), ([], "at least one")):
        with pytest.raises(ConfigError, match=message):
            parse_readers(bad)


def test_detector_options_reach_every_reader(tmp_path, control):
    labels, signals, _, _ = control
    result = CliRunner().invoke(app, [
        "table10", "--estimate-natural-share", "--labels", str(labels),
        "--signals", f"a={signals}", "--out",
        str(tmp_path / "o"), "--detectors", DETECTORS, "--detector-option", "hidden_mid.nope=1"])
    assert result.exit_code == 2 and "nope" in result.output
