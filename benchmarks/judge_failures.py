"""Judge failure accounting under load: `label --judge llm` over 500 captions against a local
fake endpoint answering a seeded mix of valid replies, garbage, non-JSON and non-UTF-8 HTTP 200
bodies, HTTP 500, 429 with Retry-After, and hangs (past the client's timeout).

    .venv/bin/python benchmarks/judge_failures.py [--captions FILE.jsonl] [--seed 0]

Default captions: the first 500 of ../shared/data/captions/opera_llava-1.5_greedy.jsonl when
present, else 500 synthetic ones. Prints every count and a RESULT line; exit status 1 if a check
fails (see tests/reliability/judge_load.py for what is checked).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "reliability"))
from judge_load import accounting, synthetic_captions  # noqa: E402

DEFAULT = REPO.parent / "shared" / "data" / "captions" / "opera_llava-1.5_greedy.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--captions", type=Path, default=DEFAULT if DEFAULT.is_file() else None)
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=1.0)
    parser.add_argument("--max-rate", type=float, default=0.05)
    args = parser.parse_args()
    if args.captions is not None:
        captions = [json.loads(line) for line in args.captions.read_text().splitlines()
                    if line.strip()][:args.n]
        captions = [{"image_id": c["image_id"], "caption": c["caption"]} for c in captions]
        source = str(args.captions)
    else:
        captions, source = synthetic_captions(args.n, args.seed), "synthetic"
    with tempfile.TemporaryDirectory() as work:
        r = accounting(captions, Path(work), seed=args.seed, timeout=args.timeout,
                       hang=2 * args.timeout, max_rate=args.max_rate, concurrency=16)
    run1, run2 = r["run1"], r["run2"]
    print(f"captions: {r['captions']} ({source}); mentions: {r['mentions_expected']}")
    print(f"run 1: server replies {json.dumps(run1['server_replies'], sort_keys=True)}; "
          f"requests {run1['requests']} ({r['distinct_requests_run1']} distinct + "
          f"{run1['retries']} retries), {run1['cache_hits']} answered from the cache just filled")
    print(f"run 1: {run1['labels']} labels + {run1['failures']} failures = {run1['rows']} rows; "
          f"failures by reason {json.dumps(run1['failures_by_reason'], sort_keys=True)}; "
          f"exit {run1['exit']} (gate --max-judge-failure-rate {args.max_rate})")
    print(f"cache after run 1: {r['cache_entries_after_run1']} entries = "
          f"{r['valid_replies_run1']} valid replies")
    print(f"run 2 (endpoint healthy): {run2['distinct_requests']} distinct requests = "
          f"{run2['failed_in_run1']} failed in run 1 + {run2['new_requests']} new (and "
          f"{run2['retries']} retries); {run2['asked_again_cached']} cached "
          f"asked again; {run2['cache_hits']} cache hits; {run2['labels']} labels, "
          f"{run2['failures']} failures, exit {run2['exit']}")
    print(f"API key: sent {r['server_received_key']}, found in {len(r['key_leaks'])} files or "
          "outputs")
    checks = {
        "sum": run1["labels"] + run1["failures"] == run1["rows"] == r["mentions_expected"]
        and run1["requests"] == sum(run1["server_replies"].values())
        and run1["neither_or_both"] == 0 and run1["failures_printed"] == run1["failures"],
        "nothing_failed_cached": r["cache_entries_after_run1"] == r["valid_replies_run1"],
        "rerun_only_failed": run2["asked_again_cached"] == 0
        and run2["failed_in_run1_asked_again"] == run2["failed_in_run1"]
        and run2["distinct_requests"] == run2["failed_in_run1"] + run2["new_requests"]
        and run2["cache_hits"] >= r["valid_replies_run1"] + run1["cache_hits"],
        "gate": (run1["exit"] == 2) == (run1["failures"] / run1["rows"] > args.max_rate),
        "rerun_complete": (run2["exit"], run2["failures"]) == (0, 0),
        "key_not_written": r["server_received_key"] and not r["key_leaks"],
    }
    print("RESULT " + " ".join(f"{k}={'ok' if v else 'FAIL'}" for k, v in checks.items()))
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
