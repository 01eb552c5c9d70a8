"""The LLM usage judge: NAME-Bench's three labelling steps (Appendix C) against any
OpenAI-compatible endpoint (OpenAI, vLLM, SGLang, Ollama).

>>> judge = LLMJudge(base_url="http://127.0.0.1:8000/v1", api_key_env=None, cache_dir=None)
>>> judge.name, judge.captions_per_call, judge.stats["requests"], judge.stats["cost_usd"]
('llm', 6, 0, None)

Per mention:

1. `model` reads `captions_per_call` captions per call (Figure 2) and says whether each target
   concept is mentioned and, if so, EXISTENTIAL, FUNCTIONAL or AMBIGUOUS. Not mentioned ->
   usage "not_object"; EXISTENTIAL -> "existential"; AMBIGUOUS -> "ambiguous".
2. FUNCTIONAL mentions go to `model` with the caption and the step-1 trigger (Figure 3, top) for a
   mechanism, mapped to a subtype by `rules.subtype_from_mechanism` (a negation cue in the
   step-1 trigger overrides every mechanism but depictive).
3. ... and to `compound_model` (Figure 3, bottom): a compound ("hot dog", "toilet bowl") is
   usage "not_object" (Table 9 removes compounds).

The paper lists concepts per caption; labels here are per mention, so a category mentioned more
than once in a caption is listed once per occurrence, with its occurrence number and surface word
(`prompts.target_concepts`). Steps 2 and 3 receive the step-1 trigger phrase as the paper's do (the
mention's own word when the model gave none), and the negation rule reads that same phrase. A
label's `trigger` is that phrase only when it is an exact substring of the caption; otherwise it is
None and `stats["invalid_trigger"]` counts it. `reason` is the step-1 reasoning.

Every reply is parsed and validated (JSON, the prompt's schema, every index and concept present).
An invalid reply, a 429/5xx, a timeout or a connection error is retried with exponential back-off
up to `max_retries` times; what still fails becomes a `JudgeFailure` naming the caption and the
reason, never a label. Valid replies are cached on disk (`cache.ReplyCache`), so a rerun of the
same inputs sends no request. `stats` counts requests, cache hits, retries, failures by reason,
tokens and cost; it accumulates over the judge's lifetime.

The API key is read from the environment only, handed to the client and nothing else: it is never
logged, hashed into cache keys or written anywhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import jsonschema
import openai

from halluscope.errors import ConfigError
from halluscope.text.mentions import Mention
from halluscope.text.usage import prompts
from halluscope.text.usage.base import JudgeFailure, UsageLabel
from halluscope.text.usage.cache import ReplyCache, request_key
from halluscope.text.usage.rules import subtype_from_mechanism

FALLBACK_KEY_ENV = "OPENAI_API_KEY"
# Statuses worth retrying: rate limits, timeouts, conflicts and server errors. Anything else
# (400, 422, ...) would fail the same way again.
_RETRY_STATUSES = frozenset({408, 409, 429})

# A problem with a reply: (reason, detail). Reasons are the keys of stats["failures"].
Problem = tuple[str, str]
_STEP1_VALIDATOR = jsonschema.Draft202012Validator(prompts.STEP1_SCHEMA)
_STEP2_VALIDATOR = jsonschema.Draft202012Validator(prompts.STEP2_SCHEMA)
_STEP3_VALIDATOR = jsonschema.Draft202012Validator(prompts.STEP3_SCHEMA)


@dataclass
class _Outcome:
    """What one logical call produced: parsed results by key, and problems for the keys it could
    not fill (empty when the reply was fully valid)."""

    results: dict[Any, Any]
    problems: dict[Any, Problem]
    attempts: int


@dataclass
class _Transient(Exception):
    """A request error worth retrying (rate limit, server error, timeout, connection)."""

    reason: str
    detail: str
    retry_after: float | None = None


@dataclass
class _Permanent(Exception):
    """A request error that a retry would repeat (a 400 for this one request)."""

    reason: str
    detail: str


@dataclass
class _Step1Item:
    """One caption of a step-1 call: its global index, its text and its target concepts."""

    caption_index: int
    caption: str
    concepts: list[str]
    categories: list[str] = field(default_factory=list)


class LLMJudge:
    """Labels mentions with an LLM through the `openai` client; see the module docstring.

    >>> LLMJudge(api_key_env=None, cache_dir=None, captions_per_call=2).captions_per_call
    2
    """

    name = "llm"

    def __init__(self, base_url: str | None = None, model: str = "gpt-4o",
                 compound_model: str = "gpt-4o-mini",
                 api_key_env: str | None = "HALLUSCOPE_LLM_API_KEY", captions_per_call: int = 6,
                 max_concurrency: int = 4, max_retries: int = 4, backoff_base: float = 0.5,
                 timeout: float = 60, cache_dir: str | Path | None = Path(".halluscope_cache/llm"),
                 price_per_million_input: float | None = None,
                 price_per_million_output: float | None = None, json_mode: bool = True,
                 max_backoff: float = 30.0, max_tokens: int | None = None):
        if max_tokens is not None and max_tokens < 1:
            raise ConfigError("LLM judge: max_tokens must be at least 1")
        if captions_per_call < 1 or max_concurrency < 1 or max_retries < 0:
            raise ConfigError("LLM judge: captions_per_call and max_concurrency must be >= 1 "
                              "and max_retries >= 0")
        self.base_url = base_url
        self.model = model
        self.compound_model = compound_model
        self.captions_per_call = captions_per_call
        self.max_concurrency = max_concurrency
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.max_backoff = max_backoff
        self.timeout = timeout
        self.price_per_million_input = price_per_million_input
        self.price_per_million_output = price_per_million_output
        self.json_mode = json_mode
        # A cap on each reply: a small local model may otherwise ramble to its context limit.
        # A reply cut short is invalid JSON, hence a counted failure, never a label.
        self.max_tokens = max_tokens
        api_key = _api_key(api_key_env)
        # Kept only to scrub it from error texts; never logged, hashed or stored.
        self._secret = api_key if api_key != "EMPTY" else None
        # max_retries=0: this class retries, so that every attempt is counted and backed off.
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout,
                                     max_retries=0)
        self._cache = ReplyCache(cache_dir) if cache_dir is not None else None
        self._lock = threading.Lock()
        priced = price_per_million_input is not None or price_per_million_output is not None
        self.stats: dict[str, Any] = {
            "requests": 0, "cache_hits": 0, "deduplicated": 0, "retries": 0, "failures": {},
            "attempt_errors": {}, "prompt_tokens": 0, "completion_tokens": 0,
            "cost_usd": 0.0 if priced else None, "invalid_trigger": 0}

    # ----------------------------------------------------------------------------- public API

    def label(self, captions: Sequence[str], mentions: Sequence[Sequence[Mention]]
              ) -> list[list[UsageLabel | JudgeFailure]]:
        """One list per caption, one label or failure per mention, in the order given.

        >>> LLMJudge(api_key_env=None, cache_dir=None).label(["no mentions here"], [[]])
        [[]]
        """
        if len(captions) != len(mentions):
            raise ValueError(f"{len(captions)} captions but {len(mentions)} mention lists")
        out: list[list[UsageLabel | JudgeFailure | None]] = [[None] * len(m) for m in mentions]
        items = [_Step1Item(i, captions[i], prompts.target_concepts(
                     [m.category for m in mentions[i]], [m.word for m in mentions[i]]),
                     [m.category for m in mentions[i]])
                 for i in range(len(captions)) if mentions[i]]
        batches = [items[s:s + self.captions_per_call]
                   for s in range(0, len(items), self.captions_per_call)]
        executor = ThreadPoolExecutor(max_workers=self.max_concurrency,
                                      thread_name_prefix="llm-judge")
        try:
            step1 = [executor.submit(self._step1, batch) for batch in batches]
            functional: list[tuple[int, int, dict[str, Any]]] = []
            for batch, future in zip(batches, step1):
                self._collect_step1(batch, future.result(), mentions, out, functional)
            self._run_steps23(executor, captions, mentions, functional, out)
        finally:
            # On an error (a rejected key), drop the queued requests instead of sending them.
            executor.shutdown(wait=True, cancel_futures=True)
        return [[entry for entry in row if entry is not None] for row in out]

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()
        self._client.close()

    def __enter__(self) -> "LLMJudge":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -------------------------------------------------------------------------------- steps

    def _step1(self, batch: list[_Step1Item]) -> _Outcome:
        messages = prompts.step1_messages([(item.caption, item.concepts) for item in batch])
        return self._call(self.model, messages, lambda text: _parse_step1(text, batch))

    def _collect_step1(self, batch: list[_Step1Item], outcome: _Outcome,
                       mentions: Sequence[Sequence[Mention]],
                       out: list[list[Any]], functional: list[tuple[int, int, dict[str, Any]]]
                       ) -> None:
        """Turn one step-1 outcome into labels, failures and the list of FUNCTIONAL mentions."""
        for local, item in enumerate(batch):
            for j in range(len(item.concepts)):
                i = item.caption_index
                if (local, j) in outcome.problems:
                    out[i][j] = self._failure(i, "step 1 (usage)", outcome.attempts,
                                              outcome.problems[(local, j)])
                    continue
                result = outcome.results[(local, j)]
                if result["concept_mentioned"] and result["mention_type"] == "FUNCTIONAL":
                    functional.append((i, j, result))
                    continue
                usage = ("not_object" if not result["concept_mentioned"] else
                         "existential" if result["mention_type"] == "EXISTENTIAL" else
                         "ambiguous")
                out[i][j] = self._make_label(usage, None, item.caption, result)

    def _run_steps23(self, executor: ThreadPoolExecutor, captions: Sequence[str],
                     mentions: Sequence[Sequence[Mention]],
                     functional: list[tuple[int, int, dict[str, Any]]], out: list[list[Any]]
                     ) -> None:
        """Steps 2 and 3 for every FUNCTIONAL mention, all submitted at once; identical requests
        (the same caption, trigger and concept) are sent once."""
        pending: dict[str, Future[_Outcome]] = {}
        jobs = []
        for i, j, result in functional:
            mention = mentions[i][j]
            # The paper fills both prompts with the step-1 trigger phrase; without one, the
            # mention's own words are the best available span.
            span = _raw_trigger(result) or mention.word
            step2 = self._submit_once(executor, pending, self.model, prompts.step2_messages(
                captions[i], span, mention.category), _parse_step2)
            step3 = self._submit_once(executor, pending, self.compound_model,
                                      prompts.step3_messages(span, mention.category),
                                      _parse_step3)
            jobs.append((i, j, result, span, step2, step3))
        for i, j, result, span, step2, step3 in jobs:
            compound, mechanism = step3.result(), step2.result()
            if not compound.problems and compound.results[None]["is_compound"]:
                phrase = compound.results[None].get("compound_phrase")
                out[i][j] = self._make_label("not_object", None, captions[i], result,
                                             note=f"compound {phrase!r}" if phrase else "compound")
            elif compound.problems:
                out[i][j] = self._failure(i, "step 3 (compound)", compound.attempts,
                                          compound.problems[None])
            elif mechanism.problems:
                out[i][j] = self._failure(i, "step 2 (mechanism)", mechanism.attempts,
                                          mechanism.problems[None])
            else:
                subtype = subtype_from_mechanism(mechanism.results[None]["subtype"], span)
                out[i][j] = self._make_label("non_assertive", subtype, captions[i], result)

    def _submit_once(self, executor: ThreadPoolExecutor, pending: dict[str, Future[_Outcome]],
                     model: str, messages: list[dict[str, str]],
                     parse: Callable[[str], tuple[dict[Any, Any], dict[Any, Problem]]]
                     ) -> Future[_Outcome]:
        key = self._key(model, messages)
        if key in pending:
            self._count("deduplicated")
            return pending[key]
        pending[key] = executor.submit(self._call, model, messages, parse)
        return pending[key]

    # ------------------------------------------------------------------------- labels, errors

    def _make_label(self, usage: str, subtype: str | None, caption: str,
                    result: dict[str, Any], note: str | None = None) -> UsageLabel:
        trigger = _raw_trigger(result)
        if trigger is not None and trigger not in caption:
            # Keep the verdict, drop the span: outputs promise an exact substring or nothing.
            self._count("invalid_trigger")
            trigger = None
        reason = result.get("reasoning") or None
        if note:
            reason = f"{reason}; {note}" if reason else note
        return UsageLabel(usage=usage, subtype=subtype, trigger=trigger, judge=self.name,
                          reason=reason)

    def _failure(self, caption_index: int, step: str, attempts: int, problem: Problem
                 ) -> JudgeFailure:
        reason, detail = problem
        with self._lock:
            failures = self.stats["failures"]
            failures[reason] = failures.get(reason, 0) + 1
        tries = f"after {attempts} attempt{'s' if attempts != 1 else ''}"
        return JudgeFailure(judge=self.name, error=self._redact(
            f"caption {caption_index}: {step} failed {tries}: {reason}: {detail}"))

    def _redact(self, text: str) -> str:
        # Very short placeholder keys ("x", "EMPTY") would mangle ordinary words if replaced.
        if not self._secret or len(self._secret) < 8:
            return text
        return text.replace(self._secret, "[redacted]")

    def _count(self, name: str, amount: int = 1) -> None:
        with self._lock:
            self.stats[name] += amount

    # ------------------------------------------------------------------- requests and retries

    def _response_format(self) -> dict[str, str] | None:
        return {"type": "json_object"} if self.json_mode else None

    def _key(self, model: str, messages: list[dict[str, str]]) -> str:
        return request_key(model, messages, temperature=0, response_format=self._response_format(),
                           prompt_version=prompts.PROMPT_VERSION)

    def _call(self, model: str, messages: list[dict[str, str]],
              parse: Callable[[str], tuple[dict[Any, Any], dict[Any, Problem]]]) -> _Outcome:
        """One logical call: the cache, else up to 1 + max_retries attempts. Returns the first
        fully valid reply, or the most complete invalid one with its problems."""
        key = self._key(model, messages)
        if self._cache is not None:
            hit = self._cache.get(key)
            if hit is not None:
                results, problems = parse(hit.text)
                if not problems:  # a stale entry that no longer validates is simply re-asked
                    self._count("cache_hits")
                    return _Outcome(results, {}, 0)
        best: tuple[dict[Any, Any], dict[Any, Problem]] | None = None
        last_error: Problem = ("no_attempt", "")
        attempt = 0
        for attempt in range(1, self.max_retries + 2):
            if attempt > 1:
                self._count("retries")
            try:
                text, prompt_tokens, completion_tokens = self._request(model, messages)
            except _Transient as error:
                last_error = (error.reason, self._redact(error.detail))
                self._count_attempt_error(error.reason)
                if attempt <= self.max_retries:
                    time.sleep(self._backoff(key, attempt, error.retry_after))
                continue
            except _Permanent as error:
                self._count_attempt_error(error.reason)
                return _Outcome({}, _all_problems(parse, (error.reason,
                                                          self._redact(error.detail))), attempt)
            results, problems = parse(text)
            if not problems:
                if self._cache is not None:
                    self._cache.put(key, model, text, prompt_tokens, completion_tokens)
                return _Outcome(results, {}, attempt)
            last_error = next(iter(problems.values()))
            self._count_attempt_error(last_error[0])
            if best is None or len(problems) < len(best[1]):
                best = (results, problems)
            # An invalid reply is retried at once: waiting does not change a model's answer.
        if best is None:
            return _Outcome({}, _all_problems(parse, last_error), attempt)
        return _Outcome(best[0], best[1], attempt)

    def _count_attempt_error(self, reason: str) -> None:
        with self._lock:
            errors = self.stats["attempt_errors"]
            errors[reason] = errors.get(reason, 0) + 1

    def _backoff(self, key: str, attempt: int, retry_after: float | None) -> float:
        """Exponential back-off with jitter in [0.5, 1) derived from the request and attempt,
        so reruns wait the same while concurrent requests spread out.

        >>> judge = LLMJudge(api_key_env=None, cache_dir=None, backoff_base=1.0)
        >>> 2.0 <= judge._backoff("k", 3, None) < 4.0, judge._backoff("k", 1, 7.5)
        (True, 7.5)
        """
        digest = hashlib.sha256(f"{key}:{attempt}".encode()).digest()
        jitter = 0.5 + 0.5 * int.from_bytes(digest[:4], "big") / 2**32
        delay = self.backoff_base * 2 ** (attempt - 1) * jitter
        if retry_after is not None:  # the server knows best when it will take requests again
            delay = max(delay, retry_after)
        return min(delay, self.max_backoff)

    def _request(self, model: str, messages: list[dict[str, str]]) -> tuple[str, int, int]:
        """Send one chat request; returns (reply text, prompt tokens, completion tokens)."""
        kwargs: dict[str, Any] = {"model": model, "messages": messages, "temperature": 0}
        if self.max_tokens is not None:
            kwargs["max_tokens"] = self.max_tokens
        if self.json_mode:
            kwargs["response_format"] = self._response_format()
        self._count("requests")
        try:
            response = self._client.chat.completions.create(**kwargs)
        except openai.APITimeoutError as error:
            raise _Transient("timeout", f"no reply within {self.timeout}s") from error
        except openai.APIConnectionError as error:
            raise _Transient("connection", str(error)) from error
        except openai.APIStatusError as error:
            raise self._status_error(model, error) from error
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        self._add_tokens(prompt_tokens, completion_tokens)
        choices = getattr(response, "choices", None) or []
        text = choices[0].message.content if choices and choices[0].message else None
        return text or "", prompt_tokens, completion_tokens

    def _status_error(self, model: str, error: openai.APIStatusError) -> Exception:
        status = error.status_code
        if status in (401, 403):
            # The server's message may quote part of the key: leave it out.
            return ConfigError(f"LLM judge: the endpoint rejected the API key (HTTP {status})")
        if status == 404:
            return ConfigError(f"LLM judge: model {model!r} or its endpoint not found (HTTP 404)"
                               f" at {self.base_url or 'the default OpenAI URL'}")
        detail = _short(str(error.message))
        if status in _RETRY_STATUSES or status >= 500:
            return _Transient(f"http_{status}", detail, _retry_after(error))
        if status == 400 and self.json_mode and "response_format" in detail:
            detail += " (the server may not support JSON mode: try json_mode=False)"
        return _Permanent(f"http_{status}", detail)

    def _add_tokens(self, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock:
            self.stats["prompt_tokens"] += prompt_tokens
            self.stats["completion_tokens"] += completion_tokens
            if self.stats["cost_usd"] is not None:
                self.stats["cost_usd"] = (
                    self.stats["prompt_tokens"] * (self.price_per_million_input or 0.0)
                    + self.stats["completion_tokens"] * (self.price_per_million_output or 0.0)
                ) / 1e6


# ------------------------------------------------------------------------------- helpers


def _api_key(api_key_env: str | None) -> str:
    """The key from `api_key_env` (else OPENAI_API_KEY); "EMPTY" when no key is wanted.

    >>> _api_key(None)
    'EMPTY'
    """
    if api_key_env is None:  # a local server (vLLM, Ollama) that takes no key
        return "EMPTY"
    for name in (api_key_env, FALLBACK_KEY_ENV):
        value = os.environ.get(name, "").strip()
        if value:
            return value
    raise ConfigError(f"LLM judge: no API key: set {api_key_env} (or {FALLBACK_KEY_ENV}), or "
                      f"pass --llm-api-key-env none (api_key_env=None) for a local endpoint that needs none")


def _retry_after(error: openai.APIStatusError) -> float | None:
    try:
        return float(error.response.headers.get("retry-after"))
    except (TypeError, ValueError, AttributeError):
        return None


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _raw_trigger(result: dict[str, Any]) -> str | None:
    """The model's trigger phrase, or None when it gave none ("null" written as text counts)."""
    trigger = result.get("trigger_phrase")
    if not isinstance(trigger, str) or trigger.strip().lower() in ("", "null", "none"):
        return None
    return trigger.strip()


def _all_problems(parse: Callable[[str], tuple[dict[Any, Any], dict[Any, Problem]]],
                  problem: Problem) -> dict[Any, Problem]:
    """`problem` for every key the call should have filled (found by parsing an empty reply)."""
    _, problems = parse("")
    return {key: problem for key in problems}


def _load_json(text: str) -> tuple[Any, Problem | None]:
    """Parse a reply; a ```json fence (some local servers add one) is tolerated.

    >>> _load_json('```json\\n{"a": 1}\\n```')
    ({'a': 1}, None)
    >>> _load_json("not json")[1][0]
    'invalid_json'
    """
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.rsplit("```", 1)[0]
    try:
        return json.loads(stripped), None
    except ValueError as error:
        return None, ("invalid_json", _short(f"{error}; reply starts {text[:60]!r}"))


def _norm(concept: str) -> str:
    """Compare concepts the way a model copies them: case, quotes and spacing aside."""
    return " ".join(concept.replace("’", "'").strip().strip("\"'").casefold().split())


def _parse_step1(text: str, batch: list[_Step1Item]
                 ) -> tuple[dict[tuple[int, int], dict[str, Any]], dict[tuple[int, int], Problem]]:
    """Parse a step-1 reply into results by (caption position in the call, concept position),
    and a problem for every (caption, concept) it does not validly answer.

    >>> batch = [_Step1Item(7, "a dog", ["dog"], ["dog"])]
    >>> reply = ('{"captions": [{"index": 0, "results": [{"concept": "Dog", '
    ...          '"concept_mentioned": true, "mention_type": "existential"}]}]}')
    >>> _parse_step1(reply, batch)[0][(0, 0)]["mention_type"], _parse_step1(reply, batch)[1]
    ('EXISTENTIAL', {})
    >>> _parse_step1('{"captions": []}', batch)[1]
    {(0, 0): ('missing_index', 'reply has no entry for caption index 0')}
    """
    every = [(local, j) for local, item in enumerate(batch) for j in range(len(item.concepts))]
    data, problem = _load_json(text)
    if problem is not None:
        return {}, {key: problem for key in every}
    _normalise_step1(data)
    errors = list(_STEP1_VALIDATOR.iter_errors(data))
    # Errors inside one caption's entry spoil that caption only; others spoil the whole reply.
    bad_entries: dict[int, str] = {}
    for error in errors:
        path = list(error.absolute_path)
        if len(path) >= 2 and path[0] == "captions" and isinstance(path[1], int):
            bad_entries.setdefault(path[1], _schema_detail(error))
        else:
            return {}, {key: ("schema", _schema_detail(error)) for key in every}
    entries: dict[int, tuple[int, dict[str, Any]]] = {}
    for position, entry in enumerate(data["captions"]):
        index = entry.get("index") if isinstance(entry, dict) else None
        if isinstance(index, int) and 0 <= index < len(batch) and index not in entries:
            entries[index] = (position, entry)
    results: dict[tuple[int, int], dict[str, Any]] = {}
    problems: dict[tuple[int, int], Problem] = {}
    for local, item in enumerate(batch):
        if local not in entries:
            # An entry whose index itself broke the schema is the likelier story than a skip.
            problem = (("schema", next(iter(bad_entries.values()))) if bad_entries else
                       ("missing_index", f"reply has no entry for caption index {local}"))
            problems.update({(local, j): problem for j in range(len(item.concepts))})
            continue
        position, entry = entries[local]
        if position in bad_entries:
            problems.update({(local, j): ("schema", bad_entries[position])
                             for j in range(len(item.concepts))})
            continue
        matched = _match_concepts(item, entry["results"])
        for j, concept in enumerate(item.concepts):
            if j in matched:
                results[(local, j)] = matched[j]
            else:
                problems[(local, j)] = ("missing_concept",
                                        f"reply has no result for concept {concept!r}")
    return results, problems


def _normalise_step1(data: Any) -> None:
    """Upper-case mention types in place ("existential" is an answer, not an error)."""
    if not isinstance(data, dict) or not isinstance(data.get("captions"), list):
        return
    for entry in data["captions"]:
        for result in (entry.get("results") if isinstance(entry, dict) else None) or []:
            if isinstance(result, dict) and isinstance(result.get("mention_type"), str):
                result["mention_type"] = result["mention_type"].strip().upper()


def _match_concepts(item: _Step1Item, results: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Results by concept position: exact (normalised) names first; then a bare category name
    answers that category's remaining occurrences in order (models sometimes drop the
    "(occurrence k of n, ...)" part)."""
    wanted = {_norm(concept): j for j, concept in enumerate(item.concepts)}
    matched: dict[int, dict[str, Any]] = {}
    leftovers = []
    for result in results:
        j = wanted.get(_norm(result["concept"]))
        if j is not None and j not in matched:
            matched[j] = result
        else:
            leftovers.append(result)
    for result in leftovers:
        for j, category in enumerate(item.categories):
            if j not in matched and _norm(result["concept"]) == _norm(category):
                matched[j] = result
                break
    return matched


def _parse_single(text: str, validator: jsonschema.Draft202012Validator
                  ) -> tuple[dict[None, dict[str, Any]], dict[None, Problem]]:
    data, problem = _load_json(text)
    if problem is not None:
        return {}, {None: problem}
    errors = list(validator.iter_errors(data))
    if errors:
        return {}, {None: ("schema", _schema_detail(errors[0]))}
    return {None: data}, {}


def _parse_step2(text: str) -> tuple[dict[None, dict[str, Any]], dict[None, Problem]]:
    """Parse a step-2 reply; the mechanism is compared case-insensitively.

    >>> _parse_step2('{"subtype": "Depictive", "confidence": "high", "reason": "sign"}')[0]
    {None: {'subtype': 'depictive', 'confidence': 'high', 'reason': 'sign'}}
    """
    data, problem = _load_json(text)
    if problem is None and isinstance(data, dict) and isinstance(data.get("subtype"), str):
        text = json.dumps({**data, "subtype": data["subtype"].strip().lower()})
    return _parse_single(text, _STEP2_VALIDATOR)


def _parse_step3(text: str) -> tuple[dict[None, dict[str, Any]], dict[None, Problem]]:
    """Parse a step-3 reply.

    >>> _parse_step3('{"is_compound": "yes"}')[1][None][0]
    'schema'
    """
    return _parse_single(text, _STEP3_VALIDATOR)


def _schema_detail(error: jsonschema.ValidationError) -> str:
    where = "/".join(str(part) for part in error.absolute_path) or "reply"
    return _short(f"{where}: {error.message}")
