"""`halluscope prism report`: one HTML page + Markdown of the released HalluPrism rows."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from halluscope.cli.prism import app
from halluscope.prism.report import build_report, write_prism_report

SECTIONS = ("id='risk-coverage'", "id='profile'", "id='abstain'", "Source profile (Table 13)",
            "id='notes'")


def _ref(shared_data: Path) -> Path:
    return shared_data / "halluprism_reference"


def _images(page: str) -> dict[str, bytes]:
    import base64

    return {m.group(1): base64.b64decode(m.group(2)) for m in re.finditer(
        r"<figure id='([^']+)'><img alt='[^']*' src='data:image/png;base64,([^']+)'", page)}


def test_report_decomposition_and_interventions(shared_data: Path, tmp_path: Path) -> None:
    ref = _ref(shared_data)
    runner = CliRunner()
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        result = runner.invoke(app, ["report", "--results", str(ref / "decomposition"),
                                     "--interventions", str(ref / "intervention"),
                                     "--out", str(out)])
        assert result.exit_code == 0, result.output
        outs.append(out)
    page = (outs[0] / "report.html").read_text(encoding="utf-8")
    md = (outs[0] / "report.md").read_text(encoding="utf-8")
    # Byte-identical across reruns (PNG metadata fixed, no timestamps).
    assert (outs[1] / "report.html").read_bytes() == page.encode("utf-8")
    assert (outs[1] / "report.md").read_bytes() == md.encode("utf-8")
    assert not list(outs[0].glob(".*tmp"))  # atomic writes leave no temporaries
    for section in SECTIONS + ("id='routing'", "id='route'"):
        assert section in page, section
    images = _images(page)
    models = ("gemma_vl", "llava_mistral", "llava_vicuna", "qwen_vl")
    assert set(images) == {"risk-coverage", "routing", *(f"dist-{m}-vsr" for m in models)}
    assert all(png.startswith(b"\x89PNG\r\n\x1a\n") for png in images.values())
    assert "http://" not in page and "https://" not in page  # self-contained
    # Entanglement: not available from these rows, said so.
    assert "no per-condition (ruined-input) signatures" in page.lower()
    # Markdown twin: the same tables; Table 13 figures of the released rows.
    for heading in ("## Source profile (Table 13)", "## Abstention", "## Routing (Table 35)",
                    "## Interventional entanglement", "## Notes"):
        assert heading in md, heading
    assert "| qwen_vl | vsr | 340 | 87.4 |" in md
    assert "| llava_mistral | vsr | 340 | 70.3 | 68.8 | 70.6 |" in md


def test_report_without_interventions(shared_data: Path, tmp_path: Path) -> None:
    paths = write_prism_report(_ref(shared_data) / "decomposition", tmp_path)
    page = paths["html"].read_text(encoding="utf-8")
    assert "id='routing'" not in page and "No intervention results given" in page
    assert "## Routing" not in paths["markdown"].read_text(encoding="utf-8")
    assert len(_images(page)) == 5


def test_report_entanglement_from_ruined_signatures(shared_data: Path, tmp_path: Path) -> None:
    """Synthetic ruined rows: visual ruin lowers V (PASS), language ruin moves A most (FAIL)."""
    src = _ref(shared_data) / "decomposition" / "qwen_vl" / "vsr.jsonl"
    rows = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines()][:60]
    clean = tmp_path / "clean" / "qwen_vl"
    clean.mkdir(parents=True)
    (clean / "vsr.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    shift = {"visual": ("v_score", -0.1), "language": ("a_score", 0.2)}
    for cond, (key, delta) in shift.items():
        folder = tmp_path / "ruined" / cond / "qwen_vl"
        folder.mkdir(parents=True)
        ruined = [{**r, key: min(1.0, max(0.0, r[key] + delta))} for r in rows]
        (folder / "vsr.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ruined))
    data = build_report(tmp_path / "clean", ruined_dir=tmp_path / "ruined")
    checks = {c["condition"]: c for c in data["entanglement"]["checks"]}
    assert checks["visual"]["passed"] and checks["visual"]["delta"]["v"] < 0
    assert not checks["language"]["passed"] and checks["language"]["largest"] == "a"
    assert any("alignment-ruined" in n for n in data["notes"])  # missing condition noted
    paths = write_prism_report(tmp_path / "clean", tmp_path / "out", ruined_dir=tmp_path / "ruined")
    page = paths["html"].read_text(encoding="utf-8")
    assert "entanglement" in _images(page)
    assert "1/2 checks pass" in page
    assert "| qwen_vl | vsr | language-ruined |" in paths["markdown"].read_text(encoding="utf-8")


def test_report_bad_input_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["report", "--results", str(tmp_path / "missing"),
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert not (tmp_path / "out" / "report.html").exists()
