"""THRONE votes, the LLM and offline THRONE judges, and Table 3 (loopback only, < 30 s)."""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the fake server helper

from fake_openai_server import FakeOpenAI  # noqa: E402

from halluscope.bench.tables.table3 import run_table3, table3_rows  # noqa: E402
from halluscope.errors import ConfigError  # noqa: E402
from halluscope.io.atomic import write_parquet_atomic  # noqa: E402
from halluscope.metrics.throne import (QUESTION_FORMATS, LLMThroneJudge,  # noqa: E402
                                       OfflineThroneJudge, ThroneQuery, ThroneVotes, aggregate,
                                       get_throne_judge)

KEY = "sk-test-THRONE-DO-NOT-LEAK-77"


# ------------------------------------------------------------------------ vote aggregation


@pytest.mark.parametrize("yes, no, majority, unanimous", [
    (9, 0, "present", "present"),
    (0, 9, "absent", "absent"),
    (8, 1, "present", "disqualified"),
    (1, 8, "absent", "disqualified"),
    (5, 4, "present", "disqualified"),
    (4, 5, "absent", "disqualified"),
    (2, 1, "present", "disqualified"),   # the paper's three-vote Llama judge: two make a majority
    (1, 1, "disqualified", "disqualified"),  # a tie (even vote counts only)
    (3, 0, "present", "present"),
])
def test_aggregate_hand_cases(yes, no, majority, unanimous):
    votes = [True] * yes + [False] * no
    assert aggregate(votes, "majority") == majority
    assert aggregate(votes, "unanimous") == unanimous
    assert ThroneVotes(votes).verdict("majority") == majority


def test_failed_votes_never_become_verdicts():
    assert aggregate([True] * 8, "unanimous", failed=1) == "failed"
    assert aggregate([True] * 8, "majority", failed=1) == "failed"
    assert aggregate([], "majority") == "failed"
    assert ThroneVotes([True] * 6, ["boom"] * 3).verdict("unanimous") == "failed"
    with pytest.raises(ValueError):
        aggregate([True], "plurality")


# --------------------------------------------------------------------- LLM judge, fake server


class FakeThrone(FakeOpenAI):
    """Answers THRONE's yes/no questions by rule: "@garbage" in the caption -> a reply that is
    neither yes nor no; "@split" -> yes to question format 1 only; otherwise yes iff the object's
    name is in the caption and not right after "no"."""

    def _respond(self, handler, fault, wait):
        length = int(handler.headers.get("Content-Length", 0))
        body = json.loads(handler.rfile.read(length))
        user = body["messages"][-1]["content"]
        with self._lock:
            self.requests.append({"kind": "throne", "body": body})
            self.authorization.append(handler.headers.get("Authorization"))
        if fault in ("500", "401"):
            return self._send(handler, int(fault), {"error": {"message": "nope"}})
        caption = re.search(r"^Description: (.*)$", user, re.MULTILINE).group(1)
        question = re.search(r"^Question: (.*)$", user, re.MULTILINE).group(1)
        obj = re.search(r"\ban? (.+?)(?: in the image)?\?", question).group(1)
        if "@garbage" in caption:
            text = "I am not able to tell from the description."
        elif "@split" in caption:
            text = "Yes." if question.startswith("Is there") else "No."
        elif re.search(rf"\b{obj}", caption) and not re.search(rf"\bno {obj}", caption):
            text = "Yes, it does."
        else:
            text = "no"
        self._send(handler, 200, {
            "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}})


@pytest.fixture()
def server():
    with FakeThrone() as fake:
        yield fake


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("HALLUSCOPE_LLM_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def make_judge(server, cache_dir=None, **options) -> LLMThroneJudge:
    options.setdefault("backoff_base", 0.001)
    options.setdefault("max_retries", 1)
    options.setdefault("timeout", 10)
    return LLMThroneJudge(base_url=server.base_url, cache_dir=cache_dir, **options)


QUERIES = [ThroneQuery("A dog on a sofa.", "dog"),
           ThroneQuery("A sign that says no cats. @split", "cat"),
           ThroneQuery("A sofa with no dog on it.", "dog"),
           ThroneQuery("@garbage A bird on a wire.", "bird"),
           ThroneQuery("A dog on a sofa.", "dog")]  # a second mention: asked once


def test_llm_judge_votes_failures_and_cache(server, tmp_path):
    with make_judge(server, cache_dir=tmp_path / "cache") as judge:
        assert judge.votes_per_query == 9
        votes = judge.judge(QUERIES)
        # 4 distinct (caption, class) x 3 formats, plus one retry for each garbage question.
        assert server.count() == 4 * 3 + 3
        assert judge.stats["failures"] == {"not_yes_no": 3}
        assert judge.stats["retries"] == 3
    assert [(v.n_yes, v.n_no, len(v.errors)) for v in votes] == [
        (9, 0, 0), (3, 6, 0), (0, 9, 0), (0, 0, 9), (9, 0, 0)]
    assert [v.verdict("majority") for v in votes] == [
        "present", "absent", "absent", "failed", "present"]
    assert [v.verdict("unanimous") for v in votes] == [
        "present", "disqualified", "absent", "failed", "present"]
    assert "not_yes_no" in votes[3].errors[0] and "bird" in votes[3].errors[0]
    # The request is THRONE's: one user turn, greedy, the question formats, the key in the header.
    body = server.requests[0]["body"]
    assert body["temperature"] == 0 and "response_format" not in body
    assert [m["role"] for m in body["messages"]] == ["user"]
    asked = {r["body"]["messages"][0]["content"].split("Question: ")[1] for r in server.requests}
    assert any(q.startswith(QUESTION_FORMATS[1].split("{")[0]) for q in asked)
    assert server.authorization[0] == f"Bearer {KEY}"
    assert all(KEY not in e for v in votes for e in v.errors)

    # A rerun reads valid answers from the cache; only the failed (uncached) ones are re-asked.
    server.reset()
    with make_judge(server, cache_dir=tmp_path / "cache", max_retries=0) as judge:
        again = judge.judge(QUERIES)
        assert server.count() == 3
        assert judge.stats["cache_hits"] == 9
    assert [(v.n_yes, v.n_no, len(v.errors)) for v in again] == [
        (9, 0, 0), (3, 6, 0), (0, 9, 0), (0, 0, 9), (9, 0, 0)]


def test_llm_judge_models_repeats_and_errors(server):
    with make_judge(server, models=("m1", "m2"), repeats=1) as judge:
        votes = judge.judge(QUERIES[:1])
        assert judge.votes_per_query == 6 and votes[0].n_yes == 6
        assert sorted({r["body"]["model"] for r in server.requests}) == ["m1", "m2"]
    server.faults = ["500"]  # a transient error is retried, then answered
    with make_judge(server, repeats=1, max_concurrency=1) as judge:
        assert judge.judge(QUERIES[:1])[0].n_yes == 3
        assert judge.stats["attempt_errors"] == {"http_500": 1}
    server.faults = ["401"]
    with make_judge(server, repeats=1, max_concurrency=1) as judge:
        with pytest.raises(ConfigError, match="rejected the API key"):
            judge.judge(QUERIES[:1])
    with pytest.raises(ConfigError, match="unknown THRONE judge"):
        get_throne_judge("flan")


# ------------------------------------------------------------------------------- Table 3


def _row(index, category, cls, subtype, present, chair, start=0):
    return {"caption_index": index, "mention_index": 0, "image_id": index, "start": start,
            "end": start + len(category), "word": category, "category": category,
            "usage": {"non_assertive": "non_assertive", None: "ambiguous"}.get(cls, "existential"),
            "subtype": subtype, "excluded": False, "error": None, "present": present,
            "namebench_class": cls, "chair_hallucinated": chair}


# Eight mentions, one per caption: (row, votes the stub judge gives).
HAND = [
    (_row(0, "dog", "hallucinated", None, False, True), ThroneVotes([True] * 9)),
    (_row(1, "cat", "hallucinated", None, False, False), ThroneVotes([True] * 6 + [False] * 3)),
    (_row(2, "cup", "non_assertive", "hedged", False, True), ThroneVotes([True] * 5 + [False] * 4)),
    (_row(3, "car", "non_assertive", "hedged", True, False), ThroneVotes([True] * 9)),
    (_row(4, "bus", "non_assertive", "negation", False, True), ThroneVotes([False] * 9)),
    (_row(5, "tv", "non_assertive", "depictive", False, None), ThroneVotes([], ["boom"] * 9)),
    (_row(6, "bed", "concrete", None, True, False), ThroneVotes([True] * 9)),
    (_row(7, "kite", None, None, False, True), ThroneVotes([True] * 9)),  # ambiguous: not in it
]
EXPECTED = {  # group: (n, chair %, majority %, unanimous %, disqualified %, failed)
    "hallucinated": (2, 50.0, 100.0, 50.0, 50.0, 0),
    "non_assertive": (4, 66.6667, 33.3333, 0.0, 33.3333, 1),
    "hedged": (2, 50.0, 50.0, 0.0, 50.0, 0),
    "depictive": (1, None, None, None, None, 1),
    "purpose": (0, None, None, None, None, 0),
    "negation": (1, 100.0, 0.0, 0.0, 0.0, 0),
    "concrete": (1, 0.0, 0.0, 0.0, 0.0, 0),  # no "generic" row: NAME-Bench drops them
}


def _summary(rows):
    return {r["group"]: (r["n"], r["chair_pct"], r["throne_majority_pct"],
                         r["throne_unanimous_pct"], r["throne_disqualified_pct"],
                         r["throne_failed"]) for r in rows}


def test_table3_arithmetic():
    classed = [(row, v) for row, v in HAND if row["namebench_class"] is not None]
    rows = table3_rows([r for r, _ in classed], [v for _, v in classed])
    assert _summary(rows) == EXPECTED
    hallucinated = rows[0]
    assert (hallucinated["throne_unanimous_verdicts"], hallucinated["throne_disqualified"]) == (1, 1)
    with pytest.raises(ValueError):
        table3_rows([HAND[0][0]], [])


class StubJudge:
    name = "stub"
    votes_per_query = 9

    def __init__(self, answers: dict[tuple[str, str], ThroneVotes]):
        self.answers = answers
        self.stats: dict[str, Any] = {"queries": 0}

    def judge(self, queries):
        self.stats["queries"] += len(queries)
        return [self.answers[(q.caption, q.category)] for q in queries]

    def close(self):
        pass


def _write_inputs(tmp_path, rows, captions):
    mentions = tmp_path / "report" / "mentions.parquet"
    write_parquet_atomic(mentions, rows)
    captions_file = tmp_path / "captions.jsonl"
    captions_file.write_text("".join(json.dumps({"image_id": i, "caption": c}) + "\n"
                                     for i, c in enumerate(captions)))
    return mentions, captions_file


def test_run_table3_writes_json_csv_markdown(tmp_path):
    captions = [f"caption {i} about a {row['category']}" for i, (row, _) in enumerate(HAND)]
    mentions, captions_file = _write_inputs(tmp_path, [r for r, _ in HAND], captions)
    judge = StubJudge({(captions[i], row["category"]): v for i, (row, v) in enumerate(HAND)})
    document = run_table3(mentions, captions_file, tmp_path / "out", judge)
    assert judge.stats["queries"] == 8  # ambiguous mentions are judged too, but not tabled
    assert _summary(document["rows"]) == EXPECTED
    assert document["counts"] == {"mentions": 8, "usage_failures": 0, "classed": 7,
                                  "generic_dropped": 0}
    out = tmp_path / "out"
    assert json.loads((out / "table3.json").read_text())["rows"] == document["rows"]
    with open(out / "table3.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [r["group"] for r in table][:3] == ["hallucinated", "non_assertive", "hedged"]
    assert table[1]["throne_majority_pct"] == "33.3333" and table[3]["chair_pct"] == ""
    markdown = (out / "table3.md").read_text()
    assert "| non_assertive | 4 | 66.7 | 33.3 | 0.0 | 33.3 | 1 |" in markdown
    assert not list(out.glob(".*.tmp"))
    import pyarrow.parquet as pq

    votes = pq.read_table(out / "throne_votes.parquet").to_pylist()
    assert [v["unanimous"] for v in votes][:3] == ["present", "disqualified", "disqualified"]


def test_cli_table3_llm_and_offline(server, tmp_path):
    from typer.testing import CliRunner

    from halluscope.cli.bench import app
    from halluscope.text.mentions import extract_mentions

    caption = "A bench for people to sit on. There is possibly a remote control but no cars."
    found = extract_mentions(caption)
    usage = [("existential", None), ("non_assertive", "purpose"), ("non_assertive", "hedged"),
             ("non_assertive", "negation")]
    assert len(found) == len(usage)
    rows = []
    for k, (m, (u, s)) in enumerate(zip(found, usage)):
        present = k == 0
        rows.append({**_row(0, m.category, "concrete" if present else
                            ("non_assertive" if u == "non_assertive" else "hallucinated"),
                            s, present, not present, m.start),
                     "end": m.end, "word": m.word, "mention_index": k, "usage": u})
    mentions, captions_file = _write_inputs(tmp_path, rows, [caption])
    runner = CliRunner()

    result = runner.invoke(app, ["table3", "--mentions", str(mentions), "--captions",
                                 str(captions_file), "--out", str(tmp_path / "offline"),
                                 "--throne-judge", "offline"])
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "offline" / "table3.json").read_text())
    assert doc["throne"]["judge"] == "offline" and doc["throne"]["votes_per_query"] == 9
    by_group = {r["group"]: r for r in doc["rows"]}
    # Offline approximation: only existential mentions are "claimed present", so none of the
    # non-assertive ones count, nothing is disqualified, and CHAIR counts all three.
    assert by_group["non_assertive"]["throne_majority_pct"] == 0.0
    assert by_group["non_assertive"]["throne_disqualified_pct"] == 0.0
    assert by_group["non_assertive"]["chair_pct"] == 100.0
    assert by_group["concrete"]["n"] == 1 and by_group["concrete"]["throne_majority_pct"] == 0.0

    result = runner.invoke(app, ["table3", "--mentions", str(mentions), "--captions",
                                 str(captions_file), "--out", str(tmp_path / "llm"),
                                 "--throne-judge", "llm", "--base-url", server.base_url,
                                 "--api-key-env", "none", "--repeats", "1",
                                 "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "llm" / "table3.json").read_text())
    assert doc["throne"]["votes_per_query"] == 3 and doc["throne"]["stats"]["requests"] == 12
    by_group = {r["group"]: r for r in doc["rows"]}
    # The fake "model" says yes whenever the word is in the caption and not after "no":
    # the hedged mention counts, the negated one does not, and "people" is not the class name
    # "person" it is asked about.
    assert by_group["hedged"]["throne_majority_pct"] == 100.0
    assert by_group["purpose"]["throne_majority_pct"] == 0.0
    assert by_group["negation"]["throne_majority_pct"] == 0.0


def test_offline_judge_requires_spans():
    judge = OfflineThroneJudge(votes=3)
    assert [v.votes for v in judge.judge([ThroneQuery("A dog and no cat.", "dog", 2, 5, "dog"),
                                          ThroneQuery("A dog and no cat.", "cat", 13, 16, "cat")])
            ] == [[True] * 3, [False] * 3]
    with pytest.raises(ValueError):
        judge.judge([ThroneQuery("A dog.", "dog")])
