"""Judge failure accounting under a misbehaving endpoint (`judge_load`): a small, fast run.

`benchmarks/judge_failures.py` runs the same over 500 captions and prints the counts.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from judge_load import accounting, synthetic_captions  # noqa: E402


def test_every_mention_is_a_label_or_a_counted_failure(tmp_path: Path) -> None:
    r = accounting(synthetic_captions(60, seed=0), tmp_path, seed=0, timeout=0.3, hang=1.0,
                   max_rate=0.05)
    run1, run2 = r["run1"], r["run2"]
    # The mix made the judge fail on some mentions (else nothing here is tested) ...
    assert run1["failures"] > 0 and run1["labels"] > 0
    assert set(run1["server_replies"]) >= {"ok", "garbage", "500", "429", "hang", "binary"}
    # ... and every mention the extractor finds is a label or a failure, never both or neither.
    assert run1["rows"] == r["mentions_expected"]
    assert run1["neither_or_both"] == 0
    assert run1["labels"] + run1["failures"] == run1["rows"]
    assert run1["failures_printed"] == run1["failures"] == sum(run1["failures_by_reason"].values())
    # Every request the client counted reached the server: first attempts plus retries.
    assert run1["requests"] == run1["server_requests"]
    assert run1["server_requests"] == r["distinct_requests_run1"] + run1["retries"]
    # The failure gate: 5% allowed, more failed -> exit 2 (after writing the accounted rows).
    assert run1["failures"] / run1["rows"] > 0.05
    assert run1["exit"] == 2 and run1["gate_message"]
    # Nothing failed is cached: the cache holds exactly the requests that got a valid reply.
    assert r["cache_entries_after_run1"] == r["valid_replies_run1"]
    # The rerun asks only for what failed (and later steps of mentions it could not reach).
    assert run2["asked_again_cached"] == 0
    assert run2["failed_in_run1_asked_again"] == run2["failed_in_run1"]
    assert run2["distinct_requests"] == run2["failed_in_run1"] + run2["new_requests"]
    # Every call answered in run 1 (from the server, or from the cache it had just filled)
    # is answered from the cache in run 2 (so are later steps of newly reached mentions whose
    # request another mention already made).
    assert run2["cache_hits"] >= r["valid_replies_run1"] + run1["cache_hits"]
    assert (run2["exit"], run2["failures"], run2["labels"]) == (0, 0, r["mentions_expected"])
    # The key was sent, and written nowhere.
    assert r["server_received_key"] and r["key_leaks"] == []
