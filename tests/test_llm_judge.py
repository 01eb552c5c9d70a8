"""The LLM usage judge against a scripted local OpenAI-compatible server (loopback only)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the fake server helper

from fake_openai_server import FakeOpenAI  # noqa: E402

from halluscope.errors import ConfigError  # noqa: E402
from halluscope.text.mentions import extract_mentions  # noqa: E402
from halluscope.text.usage import JudgeFailure, UsageJudge, UsageLabel, get_judge  # noqa: E402
from halluscope.text.usage import prompts  # noqa: E402
from halluscope.text.usage.llm import LLMJudge  # noqa: E402

KEY = "sk-test-DO-NOT-LEAK-4242"

CAPTIONS = [
    "No people are visible on the street, but a dog waits.",
    "A sign that says no dogs hangs near a bench.",
    "A sink beside a toilet bowl and a cup for toothbrushes, possibly a cat.",
    "Two dogs and a puppy play.",
    "A man waiting for the bus.",
    "Either a cat or a dog sleeps.",
    "An orange cat on a couch.",
]
# (usage, subtype) per mention, as the fake model's rules and NAME-Bench's mapping give them.
EXPECTED = [
    [("non_assertive", "negation"), ("existential", None)],
    [("non_assertive", "depictive"), ("existential", None)],
    [("existential", None), ("existential", None), ("not_object", None), ("existential", None),
     ("non_assertive", "purpose"), ("non_assertive", "hedged")],
    [("existential", None), ("existential", None)],
    [("existential", None), ("non_assertive", "purpose")],
    [("ambiguous", None), ("existential", None)],
    [("not_object", None), ("existential", None), ("existential", None)],
]


@pytest.fixture()
def server():
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("HALLUSCOPE_LLM_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def make_judge(server: FakeOpenAI, tmp_path: Path | None = None, **options) -> LLMJudge:
    options.setdefault("backoff_base", 0.001)
    options.setdefault("timeout", 10)
    cache_dir = tmp_path / "cache" if tmp_path is not None else None
    return LLMJudge(base_url=server.base_url, cache_dir=options.pop("cache_dir", cache_dir),
                    **options)


def mentions_of(captions: list[str]):
    return [extract_mentions(caption) for caption in captions]


def usages(rows):
    return [[(x.usage, x.subtype) if isinstance(x, UsageLabel) else "FAIL" for x in row]
            for row in rows]


# ----------------------------------------------------------------------------------- labels


def test_labels_subtypes_negation_depictive_and_compounds(server, tmp_path):
    judge = make_judge(server, tmp_path)
    mentions = mentions_of(CAPTIONS)
    out = judge.label(CAPTIONS, mentions)
    assert usages(out) == EXPECTED
    assert [len(row) for row in out] == [len(m) for m in mentions]
    for caption, row in zip(CAPTIONS, out):
        for label in row:
            assert label.judge == "llm" and label.reason
            assert label.trigger is None or label.trigger in caption
    # Negation: step 2 said "generic" for "No people", the cue rule made it negation.
    assert out[0][0].trigger == "No people"
    # Depictive exception: "says no dogs" has a negation cue but stays depictive.
    assert out[1][0].trigger == "says no dogs"
    assert "compound 'toilet bowl'" in out[2][2].reason
    # 7 captions -> 2 step-1 calls; steps 2 and 3 only for the 6 FUNCTIONAL mentions.
    assert server.count("step1") == 2
    assert server.count("step2") == server.count("step3") == 6
    assert judge.stats["failures"] == {} and judge.stats["invalid_trigger"] == 0


def test_repeated_category_listed_once_per_occurrence(server):
    judge = make_judge(server)
    out = judge.label(["Two dogs and a puppy play."], mentions_of(["Two dogs and a puppy play."]))
    assert [x.trigger for x in out[0]] == ["dogs", "puppy"]
    user = server.requests[0]["body"]["messages"][1]["content"]
    assert "- \"dog (occurrence 1 of 2, word 'dogs')\"\n" in user
    assert "- \"dog (occurrence 2 of 2, word 'puppy')\"" in user


def test_requests_follow_the_paper(server):
    judge = make_judge(server, model="big", compound_model="small")
    judge.label(CAPTIONS[:3], mentions_of(CAPTIONS[:3]))
    bodies = {r["kind"]: r["body"] for r in server.requests}
    assert {r["body"]["temperature"] for r in server.requests} == {0}
    assert all(r["body"]["response_format"] == {"type": "json_object"} for r in server.requests)
    assert bodies["step1"]["model"] == bodies["step2"]["model"] == "big"
    assert bodies["step3"]["model"] == "small"
    system, user = (m["content"] for m in bodies["step1"]["messages"])
    assert system == ("You are a precise linguistic analyst. Output ONLY valid JSON--no markdown, "
                      "no text outside the JSON.")
    assert user.startswith("You will analyze 3 SEPARATE captions below. Each has its own caption "
                           "index and its own list of target concepts--treat each one completely "
                           "independently; do not let one caption's content influence another's "
                           "classification.\n")
    assert '--- Caption index 2 ---\nCaption: "A sink beside' in user
    assert bodies["step2"]["messages"][0]["content"] == ("You are a precise linguistic "
                                                         "annotator. Output ONLY valid JSON.")


SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "000_91845f0ece9e6713.txt"


@pytest.mark.skipif(not SEED.is_file(), reason="the NAME-Bench paper text is not here")
def test_prompts_match_the_paper_up_to_spacing():
    # The paper's extracted text lost spaces after punctuation; compare without whitespace.
    paper = "".join(SEED.read_text(encoding="utf-8").split())
    block = prompts.caption_block(0, "{caption}", ["{concept}"])
    for text in (prompts.STEP1_SYSTEM, prompts.STEP1_HEADER, block, prompts.STEP1_FOOTER,
                 prompts.STEP23_SYSTEM, prompts.STEP2_USER, prompts.STEP3_USER):
        assert "".join(text.split()) in paper


def test_identical_step2_and_step3_requests_are_sent_once(server):
    captions = ["A bench for people.", "A bench for people."]
    judge = make_judge(server)
    out = judge.label(captions, mentions_of(captions))
    assert out[0] == out[1] and out[0][1].subtype == "purpose"
    assert server.count("step2") == server.count("step3") == 1
    assert judge.stats["deduplicated"] == 2


def test_json_mode_can_be_disabled(server):
    make_judge(server, json_mode=False).label(CAPTIONS[:1], mentions_of(CAPTIONS[:1]))
    assert all("response_format" not in r["body"] for r in server.requests)


def test_six_captions_per_call(server):
    captions = [f"A dog number {i} sits." for i in range(13)]
    out = make_judge(server).label(captions, mentions_of(captions))
    assert usages(out) == [[("existential", None)]] * 13
    calls = [r["body"]["messages"][1]["content"] for r in server.requests]
    assert len(calls) == 3
    assert sorted(c.count("--- Caption index") for c in calls) == [1, 6, 6]


def test_captions_without_mentions_cost_nothing(server):
    out = make_judge(server).label(["nothing here", "a cat"], [[], extract_mentions("a cat")])
    assert out[0] == [] and out[1][0].usage == "existential"
    assert "nothing here" not in server.requests[0]["body"]["messages"][1]["content"]


def test_invalid_trigger_kept_without_span(server):
    caption = "A dog sits. @badtrigger"
    judge = make_judge(server)
    out = judge.label([caption], mentions_of([caption]))
    assert out[0][0].usage == "existential" and out[0][0].trigger is None
    assert judge.stats["invalid_trigger"] == 1


# ---------------------------------------------------------------------------------- retries


@pytest.mark.parametrize("faults", [["500", "429", "garbage", "schema"], ["slow", "500"]])
def test_retry_then_success(server, faults):
    server.faults = list(faults)
    judge = make_judge(server, max_retries=4, timeout=0.5)
    out = judge.label(CAPTIONS[3:4], mentions_of(CAPTIONS[3:4]))
    assert usages(out) == [EXPECTED[3]]
    assert judge.stats["requests"] == len(faults) + 1 == server.count()
    assert judge.stats["retries"] == len(faults)
    assert judge.stats["failures"] == {}
    reasons = {"500": "http_500", "429": "http_429", "garbage": "invalid_json",
               "schema": "schema", "slow": "timeout"}
    assert judge.stats["attempt_errors"] == {reasons[f]: 1 for f in faults}


def test_persistent_garbage_is_a_failure_not_a_label(server):
    captions = ["A dog sits. @garbage", "A cat sleeps."]
    judge = make_judge(server, max_retries=2)
    out = judge.label(captions, mentions_of(captions))
    assert server.count() == 3  # one call, three attempts, then give up
    assert all(isinstance(x, JudgeFailure) for row in out for x in row)
    assert out[0][0].error.startswith("caption 0: step 1 (usage) failed after 3 attempts: "
                                      "invalid_json")
    assert out[1][0].error.startswith("caption 1: ")
    assert judge.stats["failures"] == {"invalid_json": 2}
    assert judge.stats["retries"] == 2


def test_missing_index_fails_only_that_caption(server):
    captions = ["A cat sleeps.", "A dog sits. @skip", "A bus stops."]
    judge = make_judge(server, max_retries=1)
    out = judge.label(captions, mentions_of(captions))
    assert usages(out) == [[("existential", None)], ["FAIL"], [("existential", None)]]
    assert "caption 1: step 1 (usage) failed after 2 attempts: missing_index" in out[1][0].error
    assert judge.stats["failures"] == {"missing_index": 1}


def test_step2_garbage_fails_that_mention(server):
    caption = "A bench for people. @step2garbage"
    judge = make_judge(server, max_retries=1)
    out = judge.label([caption], mentions_of([caption]))
    person = out[0][1]
    assert isinstance(out[0][0], UsageLabel) and isinstance(person, JudgeFailure)
    assert person.error.startswith("caption 0: step 2 (mechanism) failed after 2 attempts")
    assert judge.stats["failures"] == {"invalid_json": 1}


def test_bad_request_is_not_retried(server):
    server.faults = ["400"]
    judge = make_judge(server)
    out = judge.label(CAPTIONS[3:4], mentions_of(CAPTIONS[3:4]))
    assert server.count() == 1 and usages(out) == [["FAIL", "FAIL"]]
    assert "failed after 1 attempt: http_400: " in out[0][0].error
    assert "bad request" in out[0][0].error
    assert judge.stats["failures"] == {"http_400": 2}


def test_unreachable_endpoint_fails_after_retries(tmp_path):
    with FakeOpenAI() as server:
        base_url = server.base_url  # a port that is closed once the server stops
    judge = LLMJudge(base_url=base_url, cache_dir=tmp_path, max_retries=2, backoff_base=0.001)
    out = judge.label(CAPTIONS[:1], mentions_of(CAPTIONS[:1]))
    assert usages(out) == [["FAIL", "FAIL"]]
    assert judge.stats["requests"] == 3 and judge.stats["retries"] == 2
    assert judge.stats["failures"] == {"connection": 2}
    assert not any(tmp_path.iterdir()) or len(judge.client.cache) == 0


def test_rejected_key_is_a_config_error_without_the_key(server):
    server.faults = ["401"]
    with pytest.raises(ConfigError) as error:
        make_judge(server).label(CAPTIONS[:1], mentions_of(CAPTIONS[:1]))
    assert "401" in str(error.value) and KEY not in str(error.value)
    assert server.count() == 1  # not retried


# ------------------------------------------------------------------------------------ cache


def test_second_run_makes_no_request(server, tmp_path):
    first = make_judge(server, tmp_path).label(CAPTIONS, mentions_of(CAPTIONS))
    sent = server.count()
    again = make_judge(server, tmp_path)
    second = again.label(CAPTIONS, mentions_of(CAPTIONS))
    assert server.count() == sent and again.stats["requests"] == 0
    assert again.stats["cache_hits"] == sent and second == first
    assert again.stats["prompt_tokens"] == 0


def test_failures_are_not_cached(server, tmp_path):
    captions = ["A cat sleeps.", "A dog sits. @skip", "A bench for people."]
    make_judge(server, tmp_path, max_retries=1).label(captions, mentions_of(captions))
    server.reset()
    judge = make_judge(server, tmp_path, max_retries=1)
    out = judge.label(captions, mentions_of(captions))
    # The step-1 call was never valid, so it is asked again (twice); steps 2 and 3 for
    # "people" were valid and come from the cache.
    assert server.count() == server.count("step1") == 2
    assert judge.stats["cache_hits"] == 2
    assert usages(out)[1] == ["FAIL"] and usages(out)[2][1] == ("non_assertive", "purpose")


def test_cache_is_independent_of_endpoint(tmp_path):
    with FakeOpenAI() as one, FakeOpenAI() as two:
        make_judge(one, tmp_path).label(CAPTIONS[:2], mentions_of(CAPTIONS[:2]))
        make_judge(two, tmp_path).label(CAPTIONS[:2], mentions_of(CAPTIONS[:2]))
        assert one.count() > 0 and two.count() == 0


def test_prompt_version_is_part_of_the_key(server, tmp_path, monkeypatch):
    make_judge(server, tmp_path).label(CAPTIONS[:1], mentions_of(CAPTIONS[:1]))
    sent = server.count()
    monkeypatch.setattr(prompts, "PROMPT_VERSION", "test-bumped")
    make_judge(server, tmp_path).label(CAPTIONS[:1], mentions_of(CAPTIONS[:1]))
    assert server.count() == 2 * sent


# ------------------------------------------------------------------------------ concurrency


def test_concurrency_never_exceeds_the_bound(tmp_path):
    captions = [f"A cat number {i} sleeps." for i in range(12)]
    with FakeOpenAI(delay=0.05) as server:
        judge = make_judge(server, captions_per_call=1, max_concurrency=3)
        judge.label(captions, mentions_of(captions))
        assert server.count() == 12
        assert 1 < server.max_in_flight <= 3


def test_output_order_is_deterministic():
    captions = CAPTIONS * 3
    results = []
    for concurrency in (1, 8):
        with FakeOpenAI(jitter=0.03, seed=concurrency) as server:
            judge = make_judge(server, captions_per_call=2, max_concurrency=concurrency)
            results.append(judge.label(captions, mentions_of(captions)))
    assert results[0] == results[1]
    assert usages(results[1]) == EXPECTED * 3


# ------------------------------------------------------------------------ tokens, cost, keys


def test_tokens_and_cost_are_counted(server):
    judge = make_judge(server, price_per_million_input=2.5, price_per_million_output=10.0)
    judge.label(CAPTIONS, mentions_of(CAPTIONS))
    stats = judge.stats
    assert stats["prompt_tokens"] == server.prompt_tokens > 0
    assert stats["completion_tokens"] == server.completion_tokens > 0
    expected = (server.prompt_tokens * 2.5 + server.completion_tokens * 10.0) / 1e6
    assert stats["cost_usd"] == pytest.approx(expected)
    assert make_judge(server).stats["cost_usd"] is None


def test_api_key_from_env_and_never_in_cache(server, tmp_path):
    judge = make_judge(server, tmp_path)
    judge.label(CAPTIONS, mentions_of(CAPTIONS))
    judge.close()
    assert set(server.authorization) == {f"Bearer {KEY}"}
    files = list((tmp_path / "cache").iterdir())
    assert files
    for path in files:
        assert KEY.encode() not in path.read_bytes()


def test_fallback_key_and_keyless_local_endpoint(server, monkeypatch):
    monkeypatch.delenv("HALLUSCOPE_LLM_API_KEY")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fallback")
    make_judge(server).label(CAPTIONS[:1], mentions_of(CAPTIONS[:1]))
    monkeypatch.delenv("OPENAI_API_KEY")
    make_judge(server, api_key_env=None).label(CAPTIONS[:1], mentions_of(CAPTIONS[:1]))
    assert set(server.authorization) == {"Bearer sk-fallback", "Bearer EMPTY"}


def test_missing_key_is_a_config_error(monkeypatch):
    monkeypatch.delenv("HALLUSCOPE_LLM_API_KEY")
    with pytest.raises(ConfigError, match="HALLUSCOPE_LLM_API_KEY"):
        LLMJudge(cache_dir=None)


def test_registry_builds_the_judge(server):
    judge = get_judge("llm", base_url=server.base_url, cache_dir=None)
    assert isinstance(judge, LLMJudge) and isinstance(judge, UsageJudge)


def test_import_stays_light():
    code = ("import sys, halluscope.text.usage.llm; "
            "print('torch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, check=True)
    assert result.stdout.strip() == "False"
