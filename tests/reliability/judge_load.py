"""`label --judge llm` against a misbehaving endpoint, with every figure accounted for.

>>> synthetic_captions(2, seed=0)[0]["image_id"]
1

Used by `test_judge_accounting.py` (a small run) and `benchmarks/judge_failures.py` (500
captions). The fake server (`tests/fake_openai_server.py`) answers each request with a valid
reply or, drawn from a seeded mix, garbage, a non-JSON or non-UTF-8 HTTP 200 body, HTTP 500, 429
with Retry-After, or no reply within the client's timeout. Then:

1. run 1 (with a failure gate): every mention is a label or a counted failure; the reply cache
   holds exactly the requests that got a valid reply;
2. run 2 (the endpoint healthy again, same cache): it asks again for exactly what failed (and
   for the later steps of mentions whose first step failed), never for a cached reply;
3. the API key, which the server did receive, is in no output, printed line or cache file.
"""

from __future__ import annotations

import json
import random
import re
import secrets
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/fake_openai_server.py
from fake_openai_server import FakeOpenAI  # noqa: E402

KEY_ENV = "HALLUSCOPE_RELIABILITY_KEY"
# A request's fate: about half of all attempts fail, one way or another.
MIX = {"ok": 0.55, "garbage": 0.09, "500": 0.09, "429": 0.09, "hang": 0.06, "binary": 0.06,
       "html": 0.06}

_SUBJECTS = ["dog", "cat", "person", "bicycle", "car", "pizza", "umbrella", "chair", "bed",
             "bench", "horse", "clock", "laptop", "cup", "bottle", "kite"]
_FRAMES = ["A {a} next to a {b}.", "There is no {a} near the {b}.",
           "A {a} waiting for a {b} on the street.", "A sign says {a} above a {b}.",
           "Possibly a {a}, and a {b} behind it.", "A {a} with a toilet bowl and a {b}.",
           "A plate for a {a} beside a {b}.", "Either a {a} or a {b} in the picture."]


def synthetic_captions(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """`n` captions mixing the fake model's cues (existential, negation, intensional,
    depictive, hedging, compound, purpose, ambiguous), seeded."""
    rng = random.Random(seed)
    return [{"image_id": i, "caption": rng.choice(_FRAMES).format(
        a=rng.choice(_SUBJECTS), b=rng.choice(_SUBJECTS))} for i in range(1, n + 1)]


def _stat(pattern: str, text: str) -> int:
    match = re.search(pattern, text)
    return int(match.group(1)) if match else -1


def _failures(text: str) -> dict[str, int]:
    match = re.search(r"judge: .*?failures=(\{[^}]*\})", text)
    return {k: int(v) for k, v in re.findall(r"'(\w+)': (\d+)", match.group(1))} if match else {}


def run_label(captions: Path, out: Path, server: FakeOpenAI, cache: Path, *,
              timeout: float, max_rate: float | None, env: dict[str, str],
              concurrency: int = 8) -> dict[str, Any]:
    """One in-process `halluscope label --judge llm` run; its exit code, output and figures."""
    from typer.testing import CliRunner

    from halluscope.cli.main import app

    before = len(server.requests)
    argv = ["label", "--captions", str(captions), "--out", str(out), "--judge", "llm",
            "--llm-base-url", server.base_url, "--llm-api-key-env", KEY_ENV,
            "--llm-cache-dir", str(cache), "--llm-timeout", str(timeout),
            "--llm-max-retries", "1", "--llm-concurrency", str(concurrency)]
    if max_rate is not None:
        argv += ["--max-judge-failure-rate", str(max_rate)]
    result = CliRunner().invoke(app, argv, env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    text = result.output
    return {"exit": result.exit_code, "output": text,
            "requests": _stat(r"judge: requests=(\d+)", text),
            "retries": _stat(r"retries=(\d+)", text),
            "cache_hits": _stat(r"cache_hits=(\d+)", text),
            "failures_by_reason": _failures(text),
            "failures_line": _stat(r"judge failures: (\d+)", text),
            "server_requests": server.requests[before:]}


def _rows(path: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pylist()


def _body_key(request: dict[str, Any]) -> str:
    body = request["body"]
    return json.dumps({"model": body["model"], "messages": body["messages"]}, sort_keys=True)


def _cache_entries(cache: Path) -> int:
    import sqlite3

    with sqlite3.connect(cache / "replies.sqlite") as db:
        return int(db.execute("SELECT COUNT(*) FROM replies").fetchone()[0])


def accounting(captions: list[dict[str, Any]], work: Path, *, seed: int = 0,
               timeout: float = 0.3, hang: float = 1.0, max_rate: float = 0.05,
               concurrency: int = 8) -> dict[str, Any]:
    """Both runs over `captions` in `work`; returns every count (see the module docstring)."""
    from halluscope.text.mentions import extract_mentions

    work.mkdir(parents=True, exist_ok=True)
    path = work / "captions.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in captions))
    # Counted here, independently of `label`: the mentions the judge must account for.
    expected = sum(len(extract_mentions(c["caption"])) for c in captions)
    secret = "sk-reliability-" + secrets.token_hex(16)
    env = {KEY_ENV: secret}
    cache = work / "cache"
    with FakeOpenAI(seed=seed, mix=MIX, hang=hang, retry_after=0.05) as server:
        first = run_label(path, work / "run1.parquet", server, cache, timeout=timeout,
                          max_rate=max_rate, env=env, concurrency=concurrency)
        rows1 = _rows(work / "run1.parquet")
        ok1 = {_body_key(r) for r in first["server_requests"] if r["fault"] is None}
        asked1 = {_body_key(r) for r in first["server_requests"]}
        cached1 = _cache_entries(cache)
        server.mix = {}  # the endpoint recovers
        second = run_label(path, work / "run2.parquet", server, cache, timeout=timeout,
                           max_rate=max_rate, env=env, concurrency=concurrency)
        rows2 = _rows(work / "run2.parquet")
        asked2 = {_body_key(r) for r in second["server_requests"]}
        sent_key = all(a == f"Bearer {secret}" for a in server.authorization)
    leaks = [str(p.relative_to(work)) for p in sorted(work.rglob("*"))
             if p.is_file() and secret.encode() in p.read_bytes()]
    leaks += [name for name, run in (("run 1 output", first), ("run 2 output", second))
              if secret in run["output"]]
    faults: dict[str, int] = {}
    for request in first["server_requests"]:
        faults[request["fault"] or "ok"] = faults.get(request["fault"] or "ok", 0) + 1
    return {
        "captions": len(captions), "mentions_expected": expected,
        "run1": {"rows": len(rows1),
                 "labels": sum(1 for r in rows1 if r["usage"] is not None and r["error"] is None),
                 "failures": sum(1 for r in rows1 if r["error"] is not None and r["usage"] is None),
                 "neither_or_both": sum(1 for r in rows1
                                        if (r["usage"] is None) == (r["error"] is None)),
                 "failures_printed": first["failures_line"],
                 "failures_by_reason": first["failures_by_reason"],
                 "requests": first["requests"], "server_requests": len(first["server_requests"]),
                 "server_replies": faults, "retries": first["retries"], "exit": first["exit"],
                 "cache_hits": first["cache_hits"],
                 "gate_message": "more than --max-judge-failure-rate" in first["output"]},
        "cache_entries_after_run1": cached1, "valid_replies_run1": len(ok1),
        "distinct_requests_run1": len(asked1),
        "run2": {"rows": len(rows2),
                 "labels": sum(1 for r in rows2 if r["usage"] is not None and r["error"] is None),
                 "failures": sum(1 for r in rows2 if r["error"] is not None),
                 "requests": second["requests"], "cache_hits": second["cache_hits"],
                 "distinct_requests": len(asked2), "retries": second["retries"],
                 "exit": second["exit"],
                 "asked_again_cached": len(asked2 & ok1),
                 "failed_in_run1_asked_again": len((asked1 - ok1) & asked2),
                 "failed_in_run1": len(asked1 - ok1),
                 "new_requests": len(asked2 - asked1)},
        "server_received_key": sent_key, "key_leaks": leaks,
    }
