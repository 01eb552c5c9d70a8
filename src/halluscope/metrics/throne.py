"""THRONE-style object presence judging (Kaul et al., 2024), as NAME-Bench runs it (Appendix F).

>>> aggregate([True] * 9, "unanimous"), aggregate([True] * 8 + [False], "unanimous")
('present', 'disqualified')
>>> aggregate([True] * 5 + [False] * 4, "majority"), aggregate([False] * 9, "unanimous")
('present', 'absent')
>>> throne_messages("A dog on a sofa.", "dog", 0)[0]["content"].splitlines()[-1]
'Question: Is there a dog in the image? Answer yes or no.'

For each (caption, object class) a judge answers yes/no questions "does the caption imply this
object is in the image?"; every answer is one vote. THRONE asks three question formats to each of
three Flan-T5 judges (base, large, XL): nine votes per mention. NAME-Bench (Appendix F) asks only
about the class that was mentioned, with THRONE's instruction, captions truncated to 1,024
characters and greedy decoding, and aggregates the votes two ways (`aggregate`):

* unanimous (THRONE's default): present if all votes are yes, absent if none are, otherwise
  *disqualified* (dropped from THRONE's metric);
* majority (what NAME-Bench reports): present if more than half are yes, absent if more than half
  are no (a tie, possible only with an even number of votes, is disqualified).

A mention counts as hallucinated by THRONE when its verdict is "present" and the object is not
annotated in the image (`bench.table3` does that join).

Question formats (`QUESTION_FORMATS`, with `INSTRUCTION` and the caption block of
`throne_messages`): three phrasings of Appendix F's question, from the most literal ("is there")
to the one THRONE's metric is about ("does the description imply"). THRONE's released prompt
strings were not available to this code's authors offline, so the wording is ours and follows the
structure Appendix F describes (three formats, one instruction, the caption cut at 1,024
characters, one question per mentioned class); swap `QUESTION_FORMATS`/`INSTRUCTION` for the
released strings to reproduce the paper's numbers exactly (and bump `PROMPT_VERSION`).

Judges (both return one `ThroneVotes` per `ThroneQuery`):

* `LLMThroneJudge`: any OpenAI-compatible endpoint, through the LLM usage judge's plumbing
  (`text.usage.llm.LLMJudge`: client, key from the environment only, retries with back-off,
  SQLite reply cache, stats). Votes = formats x `models` x `repeats`; a vote is yes/no when the
  reply begins with "yes"/"no" (the paper's Llama reading) and anything else is retried and then
  a counted failure (`stats["failures"]`), never a vote. At temperature 0 a repeat of the same
  request gives the same answer, so it is sent (or read from the cache) once and counted
  `repeats` times: repeats keep THRONE's nine-vote shape with a single model, distinct `models`
  (like THRONE's three Flan-T5 sizes) are what add information.
* `OfflineThroneJudge`: deterministic, no network. An APPROXIMATION of THRONE, not THRONE: a
  mention counts as claimed present iff halluscope's offline usage judge
  (`text.usage.offline.OfflineJudge`) labels it existential, and every one of its `votes` votes
  then says yes (else every vote says no). It never disqualifies; a mention the offline judge
  cannot place is a failure.

A query with any failed vote gets the verdict "failed" under both rules (a partial vote would
make "unanimous" easier to reach); `bench.table3` reports failures apart from verdicts.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Sequence, runtime_checkable

__all__ = ["CAPTION_LIMIT", "INSTRUCTION", "PROMPT_VERSION", "QUESTION_FORMATS", "RULES",
           "LLMThroneJudge", "OfflineThroneJudge", "ThroneJudge", "ThroneQuery", "ThroneVotes",
           "aggregate", "get_throne_judge", "parse_yes_no", "throne_messages"]

RULES: tuple[str, ...] = ("majority", "unanimous")
VERDICTS: tuple[str, ...] = ("present", "absent", "disqualified", "failed")
CAPTION_LIMIT = 1024
PROMPT_VERSION = "throne-halluscope-v1"
INSTRUCTION = ("Read the description of an image and answer the question about the image with "
               "yes or no.")
QUESTION_FORMATS: tuple[str, ...] = (
    "Is there {article} {object} in the image?",
    "Based on the description, does the image contain {article} {object}?",
    "Does the description imply that there is {article} {object} in the image?",
)


def _article(word: str) -> str:
    """The indefinite article by spelling.

    >>> _article("apple"), _article("dog")
    ('an', 'a')
    """
    return "an" if word[:1].lower() in "aeiou" else "a"


def throne_messages(caption: str, category: str, format_index: int) -> list[dict[str, str]]:
    """The chat messages of one question: a single user turn (instruction, caption cut at
    `CAPTION_LIMIT` characters, question), as the paper sends THRONE's prompt to a chat model.

    >>> len(throne_messages("x" * 5000, "cat", 2)[0]["content"]) < 1300
    True
    """
    question = QUESTION_FORMATS[format_index].format(article=_article(category), object=category)
    content = (f"{INSTRUCTION}\n\nDescription: {caption[:CAPTION_LIMIT]}\n\n"
               f"Question: {question} Answer yes or no.")
    return [{"role": "user", "content": content}]


def parse_yes_no(text: str) -> tuple[dict[None, bool], dict[None, tuple[str, str]]]:
    """A reply's vote: yes/no by its first word (case, quotes and punctuation aside); anything
    else is a problem `("not_yes_no", detail)` (same shape as the LLM judge's parsers).

    >>> parse_yes_no("Yes, the caption says so.")[0], parse_yes_no(" no.")[0]
    ({None: True}, {None: False})
    >>> parse_yes_no("Maybe")[1][None][0]
    'not_yes_no'
    """
    words = text.strip().split()
    first = words[0].strip(".,:;!\"'*()[]").lower() if words else ""
    if first in ("yes", "no"):
        return {None: first == "yes"}, {}
    return {}, {None: ("not_yes_no", f"reply starts {text[:60]!r}")}


def aggregate(votes: Sequence[bool], rule: str = "majority", failed: int = 0) -> str:
    """The verdict of one query's votes under `rule`: present / absent / disqualified, or
    "failed" when any vote failed (or there are none).

    >>> aggregate([True, False, True], "majority"), aggregate([True, False], "majority")
    ('present', 'disqualified')
    >>> aggregate([True] * 8, "unanimous", failed=1), aggregate([], "majority")
    ('failed', 'failed')
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, not {rule!r}")
    if failed or not votes:
        return "failed"
    yes = sum(1 for v in votes if v)
    no = len(votes) - yes
    if rule == "unanimous":
        return "present" if no == 0 else "absent" if yes == 0 else "disqualified"
    return "present" if yes > no else "absent" if no > yes else "disqualified"


@dataclass(frozen=True)
class ThroneQuery:
    """One question target: a caption and the mentioned class. `start`/`end`/`word` locate the
    mention (the offline judge needs them; the LLM judge asks per caption and class).

    >>> ThroneQuery("A dog.", "dog", 2, 5, "dog").category
    'dog'
    """

    caption: str
    category: str
    start: int | None = None
    end: int | None = None
    word: str | None = None


@dataclass
class ThroneVotes:
    """The votes one query received, the errors of the votes that failed, and the verdicts.

    >>> v = ThroneVotes(votes=[True] * 6 + [False] * 3)
    >>> v.n_yes, v.n_no, v.verdict("majority"), v.verdict("unanimous")
    (6, 3, 'present', 'disqualified')
    """

    votes: list[bool]
    errors: list[str] = field(default_factory=list)

    @property
    def n_yes(self) -> int:
        return sum(1 for v in self.votes if v)

    @property
    def n_no(self) -> int:
        return len(self.votes) - self.n_yes

    def verdict(self, rule: str) -> str:
        return aggregate(self.votes, rule, failed=len(self.errors))


@runtime_checkable
class ThroneJudge(Protocol):
    """Judges queries; one `ThroneVotes` per query, in order."""

    name: str
    votes_per_query: int

    def judge(self, queries: Sequence[ThroneQuery]) -> list[ThroneVotes]:
        ...


# ------------------------------------------------------------------------------ offline judge


class OfflineThroneJudge:
    """Offline approximation (see the module docstring): yes x `votes` iff existential.

    >>> OfflineThroneJudge.__new__(OfflineThroneJudge).name
    'offline'

    Mentions are labelled per caption with all of that caption's queried mentions together, as
    the usage judge labels them (its anaphora rule reads earlier mentions).
    """

    name = "offline"

    def __init__(self, votes: int = 9, nlp: Any = None):
        from halluscope.text.usage.offline import OfflineJudge

        if votes < 1:
            raise ValueError("votes must be >= 1")
        self.votes_per_query = votes
        self._usage = OfflineJudge(nlp=nlp)
        self.stats: dict[str, Any] = {"queries": 0, "failures": {}}

    def judge(self, queries: Sequence[ThroneQuery]) -> list[ThroneVotes]:
        from halluscope.text.mentions import Mention
        from halluscope.text.usage.base import JudgeFailure

        by_caption: dict[str, list[int]] = defaultdict(list)
        for k, query in enumerate(queries):
            if query.start is None or query.end is None:
                raise ValueError("the offline THRONE judge needs each mention's start and end")
            by_caption[query.caption].append(k)
        captions = list(by_caption)
        mentions = [[Mention(queries[k].start, queries[k].end,  # type: ignore[arg-type]
                             queries[k].word or queries[k].caption[queries[k].start:queries[k].end],
                             queries[k].category, 0, 0, 0.0) for k in by_caption[c]]
                    for c in captions]
        labels = self._usage.label(captions, mentions)
        out: list[ThroneVotes | None] = [None] * len(queries)
        for caption, row in zip(captions, labels):
            for k, label in zip(by_caption[caption], row):
                if isinstance(label, JudgeFailure):
                    failures = self.stats["failures"]
                    failures["offline_judge"] = failures.get("offline_judge", 0) + 1
                    out[k] = ThroneVotes([], [label.error])
                else:
                    out[k] = ThroneVotes([label.usage == "existential"] * self.votes_per_query)
        self.stats["queries"] += len(queries)
        return [v for v in out if v is not None]

    def close(self) -> None:
        pass


# ---------------------------------------------------------------------------------- LLM judge


def _llm_caller(**options: Any) -> Any:
    """An `LLMJudge` whose cache keys carry THRONE's prompt version and no JSON mode."""
    from halluscope.text.usage.cache import request_key
    from halluscope.text.usage.llm import LLMJudge

    class _ThroneCaller(LLMJudge):
        name = "throne-llm"

        def _key(self, model: str, messages: list[dict[str, str]]) -> str:
            return request_key(model, messages, temperature=0, response_format=None,
                               prompt_version=PROMPT_VERSION)

    return _ThroneCaller(json_mode=False, **options)


class LLMThroneJudge:
    """THRONE's questions against an OpenAI-compatible endpoint (see the module docstring).

    >>> judge = LLMThroneJudge(base_url="http://127.0.0.1:9/v1", api_key_env=None, cache_dir=None)
    >>> judge.votes_per_query, judge.judge([])
    (9, [])
    >>> judge.close()

    Identical questions (same caption, class, format, model) are sent once per call of `judge`,
    and valid replies are cached on disk, so a rerun sends nothing. `stats` is the shared LLM
    judge's: requests, cache hits, retries, failures by reason, tokens.
    """

    name = "llm"

    def __init__(self, base_url: str | None = None, models: Sequence[str] = ("gpt-4o-mini",),
                 repeats: int = 3, api_key_env: str | None = "HALLUSCOPE_LLM_API_KEY",
                 cache_dir: str | Path | None = Path(".halluscope_cache/throne"),
                 max_concurrency: int = 4, max_retries: int = 4, backoff_base: float = 0.5,
                 timeout: float = 60, formats: Sequence[int] = (0, 1, 2)):
        if not models or repeats < 1 or not formats:
            raise ValueError("LLM THRONE judge: need at least one model, format and repeat")
        self.models = tuple(models)
        self.repeats = repeats
        self.formats = tuple(formats)
        self.votes_per_query = len(self.models) * len(self.formats) * repeats
        self._caller = _llm_caller(base_url=base_url, model=self.models[0],
                                   api_key_env=api_key_env, cache_dir=cache_dir,
                                   max_concurrency=max_concurrency, max_retries=max_retries,
                                   backoff_base=backoff_base, timeout=timeout)
        self.max_concurrency = max_concurrency
        self.stats = self._caller.stats
        self._lock = threading.Lock()

    def judge(self, queries: Sequence[ThroneQuery]) -> list[ThroneVotes]:
        # One request per distinct (caption, class, model, format); repeats reuse it.
        keys = sorted({(q.caption, q.category) for q in queries})
        requests = [(caption, category, model, f) for caption, category in keys
                    for model in self.models for f in self.formats]
        if not requests:
            return []
        executor = ThreadPoolExecutor(max_workers=self.max_concurrency,
                                      thread_name_prefix="throne-judge")
        try:
            futures = {request: executor.submit(self._ask, *request) for request in requests}
            answers = {request: future.result() for request, future in futures.items()}
        finally:
            executor.shutdown(wait=True, cancel_futures=True)
        by_key: dict[tuple[str, str], ThroneVotes] = {}
        for caption, category in keys:
            votes = ThroneVotes([])
            for model in self.models:
                for f in self.formats:
                    answer = answers[(caption, category, model, f)]
                    for _ in range(self.repeats):
                        if isinstance(answer, bool):
                            votes.votes.append(answer)
                        else:
                            votes.errors.append(answer)
            by_key[(caption, category)] = votes
        # Each query gets its own copy (two mentions of a class share the answers, not the list).
        return [ThroneVotes(list(by_key[(q.caption, q.category)].votes),
                            list(by_key[(q.caption, q.category)].errors)) for q in queries]

    def _ask(self, caption: str, category: str, model: str, format_index: int) -> bool | str:
        """One vote, or the error text of a failure (counted in stats["failures"])."""
        outcome = self._caller._call(model, throne_messages(caption, category, format_index),
                                     parse_yes_no)
        if outcome.problems:
            reason, detail = outcome.problems[None]
            tries = f"{outcome.attempts} attempt{'s' if outcome.attempts != 1 else ''}"
            with self._caller._lock:
                failures = self.stats["failures"]
                failures[reason] = failures.get(reason, 0) + 1
            return self._caller._redact(f"THRONE question {format_index + 1} about {category!r} "
                                        f"to {model}: failed after {tries}: {reason}: {detail}")
        return bool(outcome.results[None])

    def close(self) -> None:
        self._caller.close()

    def __enter__(self) -> "LLMThroneJudge":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def get_throne_judge(name: str, **options: Any) -> ThroneJudge:
    """Build the THRONE judge `name` ("offline" or "llm") with its options.

    >>> get_throne_judge("llm", api_key_env=None, cache_dir=None, repeats=1).votes_per_query
    3
    """
    from halluscope.errors import ConfigError

    if name == "offline":
        return OfflineThroneJudge(**options)
    if name == "llm":
        return LLMThroneJudge(**options)
    raise ConfigError(f"unknown THRONE judge {name!r}; choose offline or llm")
