"""`halluscope bench run` end to end on a synthetic signal store and labels (no model), the join
errors, rerun determinism, and the tiny-model demo outputs."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from halluscope.cli.bench import app
from halluscope.bench.dataset import load_bench
from halluscope.errors import InputError

from synthetic_bench import write_synthetic

FAST = "nll,entropy,position,svar,vade,pas,glsim,lookback_lens,hidden_mid,text_only"


def _run(args: list[str]):
    # The synthetic labels are a random sample: their own share is the natural one.
    return CliRunner().invoke(app, ["run", "--estimate-natural-share", *args])


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    root = tmp_path_factory.mktemp("bench")
    labels, signals = write_synthetic(root)
    out = root / "out"
    result = _run(["--labels", str(labels), "--signals", str(signals), "--out", str(out),
                   "--seeds", "2", "--budgets", "0,nat,10,30,max", "--detectors", FAST])
    assert result.exit_code == 0, result.output
    return labels, signals, out


def test_run_writes_every_table_and_the_html(synthetic):
    _, _, out = synthetic
    for name in ("results.json", "tables.md", "summary.md", "report.html", "report.md",
                 "scores.parquet", *(f"table{n}.csv" for n in (1, 2, 4, 5, 7, 13))):
        assert (out / name).is_file(), name
    results = json.loads((out / "results.json").read_text())
    assert set(results["tables"]) == {f"table{n}" for n in (1, 2, 4, 5, 7, 13)}
    t4 = {r["detector"]: r for r in results["tables"]["table4"]["rows"]}
    # Planted: non-assertive mentions look like hallucinations to the hidden-state probe.
    assert t4["hidden_mid"]["NA FPR %"]["mean"] > 0.5
    assert t4["nll"]["halluc TPR %"]["mean"] > 0.3
    t5 = results["tables"]["table5"]
    assert t5["columns"][2:] == ["0", "nat", "10", "30", "max"]
    fpr = next(r for r in t5["rows"] if r["detector"] == "hidden_mid" and r["metric"] == "NA FPR %")
    assert fpr["max"]["mean"] < fpr["0"]["mean"]  # mixing lowers the FPR
    t13 = {r["detector"]: r for r in results["tables"]["table13"]["rows"]}
    assert t13["position"]["AUC all"]["mean"] > 0.7
    assert abs(t13["position"]["AUC pos-matched"]["mean"] - 0.5) < 0.15
    assert "NaN" not in (out / "results.json").read_text()
    page = (out / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 4 and "<script" not in page
    scores = pq.read_table(out / "scores.parquet")
    assert scores.num_rows == 2 * results["summary"]["n_mentions"]


def test_budget_zero_matches_the_runner(synthetic):
    from halluscope.bench.published import score_as_published
    from halluscope.bench.runner import run_protocol
    from halluscope.detectors import DETECTOR_COLUMNS

    labels, signals, _ = synthetic
    names = ["nll", "hidden_mid", "lookback_lens"]
    data = load_bench(labels, signals, sorted({c for n in names for c in DETECTOR_COLUMNS[n]}))
    ours = score_as_published(data.table, data.features, {n: {} for n in names}, (0, 1))
    theirs = run_protocol(data.table, data.features, names, seeds=(0, 1), budgets=("0",))
    for i, seed in enumerate(ours):
        for n in names:
            a, b = seed.results[n], theirs["per_seed"][i]["budgets"]["0"]["detectors"][n]
            assert a["na_fpr"] == b["na_fpr"] and a["threshold"] == b["threshold"], n


def test_reruns_are_identical(synthetic, tmp_path):
    labels, signals, out = synthetic
    again = tmp_path / "again"
    result = _run(["--labels", str(labels), "--signals", str(signals), "--out", str(again),
                   "--seeds", "2", "--budgets", "0,nat,10,30,max", "--detectors", FAST])
    assert result.exit_code == 0, result.output
    first = json.loads((out / "results.json").read_text())
    second = json.loads((again / "results.json").read_text())
    for r in (first, second):
        r["summary"].pop("labels"), r["summary"].pop("signals")
    assert first == second
    for name in ("tables.md", "table4.csv", "table5.csv", "table13.csv", "report.html"):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name


def test_join_errors_are_clear(tmp_path):
    labels, signals = write_synthetic(tmp_path, n_images=20)
    rows = pq.read_table(labels).to_pylist()
    pq.write_table(pa.Table.from_pylist(rows[:-3]), labels)  # 3 signal mentions lose their label
    result = _run(["--labels", str(labels), "--signals", str(signals), "--out",
                   str(tmp_path / "o"), "--detectors", "nll"])
    assert result.exit_code == 2
    message = result.output.strip().splitlines()[-1]
    assert "3 signal mentions have no label" in message and "--allow-unmatched" in message
    result = _run(["--labels", str(labels), "--signals", str(signals), "--out",
                   str(tmp_path / "o"), "--detectors", "nll", "--allow-unmatched", "--seeds", "1",
                   "--budgets", "0"])
    assert result.exit_code == 0, result.output
    notes = json.loads((tmp_path / "o" / "results.json").read_text())["summary"]["notes"]
    assert any("dropped 3 signal mentions without a label" in n for n in notes)


def test_mismatched_caption_files_are_refused(tmp_path):
    labels, signals = write_synthetic(tmp_path, n_images=10)
    rows = pq.read_table(labels).to_pylist()
    for r in rows:
        r["image_id"] += 1
    pq.write_table(pa.Table.from_pylist(rows), labels)
    with pytest.raises(InputError, match="disagree on 50 image ids"):
        load_bench(labels, signals, ["nll"])


def test_missing_feature_for_a_requested_detector(tmp_path):
    labels, signals = write_synthetic(tmp_path, n_images=10)
    result = _run(["--labels", str(labels), "--signals", str(signals), "--out",
                   str(tmp_path / "o"), "--detectors", "dhcp"])
    assert result.exit_code == 2 and "dhcp_attention (for dhcp)" in result.output


def test_no_non_assertive_mentions_gives_notes_not_nan(tmp_path):
    labels, signals = write_synthetic(tmp_path, n_images=30)
    rows = pq.read_table(labels).to_pylist()
    for r in rows:
        if r["namebench_class"] == "non_assertive":
            r.update(namebench_class="concrete", usage="existential", subtype=None, present=True)
    pq.write_table(pa.Table.from_pylist(rows), labels)
    out = tmp_path / "o"
    result = _run(["--labels", str(labels), "--signals", str(signals), "--out", str(out),
                   "--seeds", "1", "--detectors", "nll,hidden_mid"])
    assert result.exit_code == 0, result.output
    text = (out / "results.json").read_text()
    assert "NaN" not in text
    results = json.loads(text)
    assert any("no non-assertive mentions" in n for n in results["summary"]["notes"])
    t5 = results["tables"]["table5"]
    assert any("every budget trains on the same data" in n for n in t5["notes"])


def test_tiny_model_demo_outputs(tmp_path):
    """The real pipeline on the tiny random model: ~20 mentions, too few for the protocol, so
    the run must finish with notes (no crash, no NaN)."""
    from halluscope.demo.data import demo_captions, demo_instances
    from halluscope.demo.model_demo import run_model_demo
    from halluscope.io.atomic import write_json_atomic, write_jsonl_atomic
    from halluscope.jobs import usage_report_job
    from halluscope.text.usage import get_judge

    run_model_demo(tmp_path / "model", echo=lambda text: None, images=6, layers=2, hidden=32)
    captions, instances = tmp_path / "captions.jsonl", tmp_path / "instances.json"
    write_jsonl_atomic(captions, demo_captions())
    write_json_atomic(instances, demo_instances())
    usage_report_job(captions, instances, tmp_path / "report", get_judge("offline"))
    labels, signals = tmp_path / "report" / "mentions.parquet", tmp_path / "model" / "signals"
    out = tmp_path / "bench"
    # The labels cover every demo caption, the signals only the six the model read.
    strict = _run(["--labels", str(labels), "--signals", str(signals), "--out", str(out)])
    assert strict.exit_code == 2 and "not in the signal store" in strict.output
    result = _run(["--labels", str(labels), "--signals", str(signals), "--out", str(out),
                   "--allow-unmatched", "--seeds", "2", "--model", "tiny-llava"])
    assert result.exit_code == 0, result.output
    text = (out / "results.json").read_text()
    assert "NaN" not in text
    results = json.loads(text)
    summary = results["summary"]
    assert summary["model"] == "tiny-llava" and summary["n_mentions"] >= 10
    assert any("not in NAME-Bench (dropped)" in n for n in summary["notes"])
    assert (out / "report.html").is_file() and (out / "tables.md").is_file()
    rows = results["tables"]["table4"]["rows"]
    assert all(r["notes"] or r["NA FPR %"]["mean"] is not None for r in rows)
