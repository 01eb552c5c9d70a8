"""The CLI as a user runs it: one-line errors, the documented output schemas, atomic outputs."""

import json
import pathlib
import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

HALLUSCOPE = [sys.executable, "-m", "halluscope.cli.main"]
sys.path.insert(0, str(pathlib.Path(__file__).parent))  # the fake OpenAI server module


def run(*args, env=None):
    return subprocess.run([*HALLUSCOPE, *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def write_captions(path, lines):
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.mark.parametrize("content, message", [
    (b'{"image_id": 1, "caption": "A dog."}\n{"image_id": 2\n', ":2: malformed JSON"),
    (b'{"image_id": 1, "caption": ""}\n', ":1: caption is empty"),
    (b'{"image_id": 1, "text": "A dog."}\n', ":1: missing field 'caption'"),
    (b'{"image_id": 1, "caption": "\xff\xfe dog"}\n', ":1: not valid UTF-8"),
])
def test_bad_captions_give_one_line_and_no_output(tmp_path, content, message):
    captions = tmp_path / "caps.jsonl"
    captions.write_bytes(content)
    out = tmp_path / "m.parquet"
    result = run("label", "--captions", captions, "--out", out)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr
    assert str(captions) in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()


def test_label_schema_and_skip_bad(tmp_path):
    captions = tmp_path / "caps.jsonl"
    captions.write_text('{"image_id": 5, "caption": "A hot dog next to a dog."}\n'
                        '{broken\n'
                        '{"image_id": 6, "caption": "No people are visible."}\n')
    out = tmp_path / "m.parquet"
    result = run("label", "--captions", captions, "--out", out, "--skip-bad")
    assert result.returncode == 0, result.stderr
    assert "skipped lines: 1" in result.stdout and ":2:" in result.stderr
    rows = pq.read_table(out).to_pylist()
    assert [(r["caption_index"], r["image_id"], r["word"], r["category"]) for r in rows] == [
        (0, 5, "hot dog", "hot dog"), (0, 5, "dog", "dog"), (2, 6, "people", "person")]
    text = captions.read_text().splitlines()
    for row in rows:
        caption = json.loads(text[row["caption_index"]])["caption"]
        assert caption[row["start"]:row["end"]] == row["word"]
        assert row["judge"] == "offline" and row["usage"] is not None
    assert rows[2]["usage"] == "non_assertive" and rows[2]["subtype"] == "negation"
    assert rows[2]["trigger"] in text[2]


def test_report_on_unknown_image(tmp_path):
    captions = write_captions(tmp_path / "caps.jsonl", [{"image_id": 9, "caption": "A dog."}])
    annotations = tmp_path / "gt.json"
    annotations.write_text('{"1": ["dog"]}')
    result = run("report", "--captions", captions, "--annotations", annotations,
                 "--out", tmp_path / "r")
    assert result.returncode == 2
    assert f"{captions}:1: image id 9 is not in {annotations}" in result.stderr


def test_report_wrong_annotation_format(tmp_path):
    captions = write_captions(tmp_path / "caps.jsonl", [{"image_id": 1, "caption": "A dog."}])
    annotations = tmp_path / "gt.json"
    annotations.write_text('{"annotations": [], "images": 3}')
    result = run("report", "--captions", captions, "--annotations", annotations,
                 "--out", tmp_path / "r")
    assert result.returncode == 2 and "not a COCO instances file" in result.stderr


def test_chair_cli_matches_reference_example(shared_data, tmp_path):
    ref = shared_data / "chair_reference"
    out = tmp_path / "chair.json"
    result = run("chair", "--captions", ref / "example_inputs.jsonl",
                 "--gt-objects", shared_data / "coco" / "chair_gt_objects_coco2014.json",
                 "--chair-vocab", ref / "chair_vocabulary.json", "--out", out)
    assert result.returncode == 0, result.stderr
    ours = json.loads(out.read_text())
    expected = json.loads((ref / "example_outputs.json").read_text())
    assert ours["overall"] == {k: expected["overall_metrics"][k]
                               for k in ("CHAIRs", "CHAIRi", "Recall")}
    for mine, theirs in zip(ours["captions"], expected["sentences"]):
        assert mine["image_id"] == theirs["image_id"]
        assert mine["generated_words"] == theirs["mscoco_generated_words"]
        assert sorted(mine["gt_words"]) == sorted(theirs["mscoco_gt_words"])
        assert mine["hallucinated_words"] == theirs["mscoco_hallucinated_words"]


def test_chair_without_vocabulary_is_a_config_error(tmp_path):
    captions = write_captions(tmp_path / "caps.jsonl", [{"image_id": 1, "caption": "A dog."}])
    gt = tmp_path / "gt.json"
    gt.write_text('{"1": ["dog"]}')
    env = {k: v for k, v in os.environ.items() if k != "HALLUSCOPE_CHAIR_VOCAB"}
    result = subprocess.run([*HALLUSCOPE, "chair", "--captions", str(captions), "--gt-objects",
                             str(gt), "--out", str(tmp_path / "o.json")], capture_output=True,
                            text=True, env=env, timeout=120)
    assert result.returncode == 2 and "HALLUSCOPE_CHAIR_VOCAB" in result.stderr


def test_label_with_llm_judge_against_a_local_server(tmp_path):
    from fake_openai_server import FakeOpenAI

    captions = write_captions(tmp_path / "caps.jsonl", [
        {"image_id": 1, "caption": "A dog sleeps. There is possibly a cat."},
        {"image_id": 2, "caption": "A bench @garbage with a man."}])
    out = tmp_path / "m.parquet"
    secret = "sk-test-secret-1234"
    with FakeOpenAI() as server:
        result = run("label", "--captions", captions, "--out", out, "--judge", "llm",
                     "--llm-base-url", server.base_url, "--llm-cache-dir", tmp_path / "cache",
                     "--llm-captions-per-call", 1,
                     env={"HALLUSCOPE_LLM_API_KEY": secret})
        requests = server.count()
    assert result.returncode == 0, result.stderr
    rows = pq.read_table(out).to_pylist()
    assert [(r["word"], r["usage"], r["subtype"]) for r in rows[:2]] == [
        ("dog", "existential", None), ("cat", "non_assertive", "hedged")]
    # the garbage caption's mentions are recorded failures, not labels
    assert [r["usage"] for r in rows[2:]] == [None, None]
    assert all(r["error"] and r["judge"] == "llm" for r in rows[2:])
    assert "judge failures: 2" in result.stdout and requests > 0
    assert secret not in result.stdout + result.stderr
    assert all(secret not in p.read_bytes().decode("latin-1")
               for p in tmp_path.rglob("*") if p.is_file())
