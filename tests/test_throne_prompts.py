"""THRONE prompt files (`--throne-prompts`): messages, singular/plural, truncation, validation
and the prompt set named in results (loopback only, made-up wording)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the fake server helper

from fake_openai_server import FakeOpenAI  # noqa: E402

from halluscope.errors import ConfigError  # noqa: E402
from halluscope.io.atomic import write_parquet_atomic  # noqa: E402
from halluscope.metrics.throne import (DEFAULT_PROMPTS, INSTRUCTION,  # noqa: E402
                                       PROMPT_VERSION, LLMThroneJudge, ThroneQuery,
                                       get_throne_judge, load_throne_prompts, throne_messages)

# Made-up wording (deliberately unlike any real prompt set).
PROMPTS = {
    "instruction": "Consult the passage, then reply.",
    "template": "PASSAGE<<{context}>>\n{instruction}\nQ: {question}",
    "questions": [{"singular": "Zorp {article} {object}?", "plural": "Zorps of {object}?"},
                  {"singular": "Blip {object}?", "plural": "Blips {object}?"}],
    "caption_limit": 12,
    "object_names": {"tie": "necktie"},
}


class RecordingFake(FakeOpenAI):
    """Records each user turn; answers "Yes." unless the turn contains NOPE."""

    def _respond(self, handler, fault, wait):
        body = json.loads(handler.rfile.read(int(handler.headers.get("Content-Length", 0))))
        user = body["messages"][-1]["content"]
        with self._lock:
            self.requests.append({"kind": "throne", "body": body, "user": user})
            self.authorization.append(handler.headers.get("Authorization"))
        self._send(handler, 200, {
            "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": "No." if "NOPE" in user else "Yes."}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}})


@pytest.fixture()
def server():
    with RecordingFake() as fake:
        yield fake


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("HALLUSCOPE_LLM_API_KEY", "sk-test-prompts")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def write_prompts(tmp_path, data, name="prompts.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def test_prompt_file_changes_the_messages_sent(server, tmp_path):
    path = write_prompts(tmp_path, PROMPTS)
    queries = [ThroneQuery("An apple on a long table.", "apple"),
               ThroneQuery("Scissors NOPE.", "scissors"),
               ThroneQuery("A man in a tie.", "tie")]
    with LLMThroneJudge(base_url=server.base_url, cache_dir=None, repeats=1,
                        prompts=path) as judge:
        assert judge.votes_per_query == 2  # two questions in the file
        votes = judge.judge(queries)
    sent = sorted(r["user"] for r in server.requests)
    assert sent == sorted([
        "PASSAGE<<An apple on >>\nConsult the passage, then reply.\nQ: Zorp an apple?",
        "PASSAGE<<An apple on >>\nConsult the passage, then reply.\nQ: Blip apple?",
        "PASSAGE<<Scissors NOP>>\nConsult the passage, then reply.\nQ: Zorps of scissors?",
        "PASSAGE<<Scissors NOP>>\nConsult the passage, then reply.\nQ: Blips scissors?",
        "PASSAGE<<A man in a t>>\nConsult the passage, then reply.\nQ: Zorp a necktie?",
        "PASSAGE<<A man in a t>>\nConsult the passage, then reply.\nQ: Blip necktie?"])
    assert all(INSTRUCTION not in u and "Description:" not in u for u in sent)
    # "NOPE" was cut off by caption_limit=12 in the scissors caption, so every answer is yes.
    assert [v.n_yes for v in votes] == [2, 2, 2]
    assert [m["role"] for m in server.requests[0]["body"]["messages"]] == ["user"]


def test_singular_plural_and_articles(tmp_path):
    prompts = load_throne_prompts(write_prompts(tmp_path, PROMPTS))
    assert prompts.question("skis", 0) == "Zorps of skis?"        # default plural classes
    assert prompts.question("scissors", 1) == "Blips scissors?"
    assert prompts.question("umbrella", 0) == "Zorp an umbrella?"
    assert prompts.question("dog", 0) == "Zorp a dog?"
    assert prompts.question("tie", 0) == "Zorp a necktie?"        # article of the asked name
    own = load_throne_prompts(write_prompts(tmp_path, {**PROMPTS, "plural_classes": ["dog"]},
                                            "own.json"))
    assert own.question("dog", 0) == "Zorps of dog?" and own.question("skis", 0) == "Zorp a skis?"
    # The default set has plural forms too.
    assert DEFAULT_PROMPTS.question("skis", 0) == "Are there skis in the image?"
    assert DEFAULT_PROMPTS.question("elephant", 0) == "Is there an elephant in the image?"


def test_caption_truncation(tmp_path):
    prompts = load_throne_prompts(write_prompts(tmp_path, {**PROMPTS, "caption_limit": 5}))
    content = prompts.messages("abcdefghij", "dog", 0)[0]["content"]
    assert content.startswith("PASSAGE<<abcde>>\n")
    unlimited = load_throne_prompts(write_prompts(tmp_path, {k: v for k, v in PROMPTS.items()
                                                             if k != "caption_limit"}, "b.json"))
    assert unlimited.caption_limit == 1024
    content = unlimited.messages("x" * 5000, "dog", 0)[0]["content"]
    assert "x" * 1024 in content and "x" * 1025 not in content
    default = throne_messages("y" * 5000, "dog", 0)[0]["content"]
    assert "y" * 1024 in default and "y" * 1025 not in default


def _without(key):
    return {k: v for k, v in PROMPTS.items() if k != key}


@pytest.mark.parametrize("data, expected", [
    (_without("instruction"), "missing key 'instruction'"),
    (_without("template"), "missing key 'template'"),
    (_without("questions"), "missing key 'questions'"),
    ({**PROMPTS, "questions": []}, "'questions' must be a non-empty list"),
    ({**PROMPTS, "instruction": ""}, "'instruction' must be a non-empty string"),
    ({**PROMPTS, "extra": 1}, "unknown key(s) 'extra'"),
    ({**PROMPTS, "template": "{context} {instruction} {question} {caption}"},
     "unknown placeholder(s) {caption}"),
    ({**PROMPTS, "template": "{context} {question}"}, "missing placeholder(s) {instruction}"),
    ({**PROMPTS, "template": "{context} {instruction} {0}"}, "unknown placeholder(s) {0}"),
    ({**PROMPTS, "template": "{context} {instruction} {question!r}"},
     "unknown placeholder(s) {question!r}"),
    ({**PROMPTS, "template": "{context} {instruction} {question} }"}, "literal brace"),
    ({**PROMPTS, "questions": [{"singular": "Is there {a} {object}?", "plural": "{object}?"}]},
     "question 1 singular: unknown placeholder(s) {a}"),
    ({**PROMPTS, "questions": [{"singular": "{object}?", "plural": "{article} {object}?"}]},
     "question 1 plural: unknown placeholder(s) {article}"),
    ({**PROMPTS, "questions": [PROMPTS["questions"][0], {"singular": "Is it there?",
                                                         "plural": "{object}?"}]},
     "question 2 singular: missing placeholder(s) {object}"),
    ({**PROMPTS, "questions": [{"singular": "{object}?"}]}, "question 1: expected an object"),
    ({**PROMPTS, "questions": ["{object}?"]}, "question 1: expected an object"),
    ({**PROMPTS, "caption_limit": 0}, "'caption_limit' must be a positive integer"),
    ({**PROMPTS, "caption_limit": True}, "'caption_limit' must be a positive integer"),
    ({**PROMPTS, "plural_classes": "skis"}, "'plural_classes' must be a list"),
    ({**PROMPTS, "object_names": {"tie": ""}}, "'object_names' must map"),
    ([PROMPTS], "expected a JSON object"),
    ("{not json", "not valid UTF-8 JSON"),
])
def test_validation_errors_are_one_line_and_name_the_file(tmp_path, data, expected):
    path = write_prompts(tmp_path, data)
    with pytest.raises(ConfigError) as info:
        load_throne_prompts(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and expected in message and "\n" not in message


def test_missing_file_and_offline_judge(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_throne_prompts(tmp_path / "absent.json")
    with pytest.raises(ConfigError, match="needs the llm judge"):
        get_throne_judge("offline", prompts=write_prompts(tmp_path, PROMPTS))
    with pytest.raises(ValueError, match="out of range"):
        LLMThroneJudge(base_url="http://127.0.0.1:9/v1", cache_dir=None, formats=(0, 2),
                       prompts=write_prompts(tmp_path, PROMPTS))


def _inputs(tmp_path):
    row = {"caption_index": 0, "mention_index": 0, "image_id": 0, "start": 2, "end": 5,
           "word": "dog", "category": "dog", "usage": "non_assertive", "subtype": "hedged",
           "excluded": False, "error": None, "present": False, "namebench_class": "non_assertive",
           "chair_hallucinated": True}
    mentions = tmp_path / "report" / "mentions.parquet"
    write_parquet_atomic(mentions, [row])
    captions = tmp_path / "captions.jsonl"
    captions.write_text(json.dumps({"image_id": 0, "caption": "A dog, maybe."}) + "\n")
    return mentions, captions


def test_results_name_the_prompt_set(server, tmp_path):
    from typer.testing import CliRunner

    from halluscope.cli.bench import app

    mentions, captions = _inputs(tmp_path)
    path = write_prompts(tmp_path, PROMPTS, "secret-name-prompts.json")
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    common = ["table3", "--mentions", str(mentions), "--captions", str(captions),
              "--throne-judge", "llm", "--base-url", server.base_url, "--api-key-env", "none",
              "--repeats", "1", "--cache-dir", str(tmp_path / "cache")]
    runner = CliRunner()
    result = runner.invoke(app, [*common, "--out", str(tmp_path / "file"),
                                 "--throne-prompts", str(path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "file" / "table3.json").read_text()
    throne = json.loads(text)["throne"]
    assert throne["votes_per_query"] == 2
    assert throne["prompts"] == {"source": "file", "id": f"sha256:{sha}", "sha256": sha,
                                 "questions": 2, "caption_limit": 12, "formats": [0, 1]}
    assert "secret-name" not in text and "Zorp" not in text and "Consult" not in text
    assert f"prompts: file sha256:{sha[:12]}." in (tmp_path / "file" / "table3.md").read_text()
    assert all(r["user"].startswith("PASSAGE<<") for r in server.requests)

    # The default set, same cache directory: its own id, and nothing is read from the file's
    # cached answers (different prompts, different cache keys).
    server.reset()
    result = runner.invoke(app, [*common, "--out", str(tmp_path / "default")])
    assert result.exit_code == 0, result.output
    throne = json.loads((tmp_path / "default" / "table3.json").read_text())["throne"]
    assert throne["prompts"]["source"] == "default"
    assert throne["prompts"]["id"] == PROMPT_VERSION and "sha256" not in throne["prompts"]
    assert server.count() == 3 and throne["stats"]["cache_hits"] == 0

    # A bad file or an offline judge with a file: exit 2, one line naming the file.
    bad = write_prompts(tmp_path, {**PROMPTS, "questions": []}, "bad.json")
    result = runner.invoke(app, [*common, "--out", str(tmp_path / "bad"),
                                 "--throne-prompts", str(bad)])
    assert result.exit_code == 2 and f"{bad}: THRONE prompt file" in result.output
    result = runner.invoke(app, ["table3", "--mentions", str(mentions), "--captions",
                                 str(captions), "--out", str(tmp_path / "off"),
                                 "--throne-judge", "offline", "--throne-prompts", str(path)])
    assert result.exit_code == 2 and "needs the llm judge" in result.output
