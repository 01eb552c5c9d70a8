"""One client for every LLM endpoint halluscope talks to: retries, cache, cost, redaction.

>>> client = LLMClient(api_key_env=None, cache_dir=None)
>>> client.stats["requests"], client.redact("nothing secret")
(0, 'nothing secret')
>>> client.close()

The usage judge (`text.usage.llm`), THRONE's judge (`metrics.throne`) and anything that follows
send requests through `LLMClient.call(model, messages, parse)`: the on-disk reply cache first
(`cache.ReplyCache`; a rerun of the same inputs sends nothing), else up to 1 + `max_retries`
attempts. Transport errors worth retrying (timeouts, connection errors, 408/409/429, 5xx) are
backed off exponentially with a jitter derived from the request, so reruns wait the same; a
reply that `parse` rejects is retried at once. `parse(text)` returns (results by key, problems by
key); the first fully valid reply is cached and returned, else the most complete invalid one with
its problems, which callers turn into counted failures, never into labels.

The API key is read from the environment only (`api_key_env`, else OPENAI_API_KEY; None for a
local server that takes none), handed to the `openai` client and nothing else: never logged,
hashed into cache keys or written anywhere, and scrubbed from error texts (`redact`).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai

from halluscope.errors import ConfigError
from halluscope.llm.cache import ReplyCache, request_key

FALLBACK_KEY_ENV = "OPENAI_API_KEY"
# Statuses worth retrying: rate limits, timeouts, conflicts and server errors. Anything else
# (400, 422, ...) would fail the same way again.
_RETRY_STATUSES = frozenset({408, 409, 429})

# A problem with a reply: (reason, detail). Reasons are the keys of stats["failures"].
Problem = tuple[str, str]


@dataclass
@dataclass
class Outcome:
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


class LLMClient:
    """Chat requests at temperature 0 through the `openai` client; see the module docstring.

    `prompt_version` goes into every cache key (a new prompt set never reads old replies);
    `json_mode` asks for a JSON object reply (servers without it: False).
    """

    def __init__(self, base_url: str | None = None,
                 api_key_env: str | None = "HALLUSCOPE_LLM_API_KEY", max_retries: int = 4,
                 backoff_base: float = 0.5, max_backoff: float = 30.0, timeout: float = 60,
                 cache_dir: str | Path | None = None,
                 price_per_million_input: float | None = None,
                 price_per_million_output: float | None = None, json_mode: bool = True,
                 max_tokens: int | None = None, prompt_version: str = ""):
        if max_tokens is not None and max_tokens < 1:
            raise ConfigError("LLM judge: max_tokens must be at least 1")
        if not timeout or timeout <= 0:
            raise ConfigError(f"LLM judge: the request timeout must be positive, not {timeout}")
        check_base_url(base_url)
        self.base_url = base_url
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
        self.prompt_version = prompt_version
        api_key = api_key_from_env(api_key_env)
        # Kept only to scrub it from error texts; never logged, hashed or stored.
        self._secret = api_key if api_key != "EMPTY" else None
        # max_retries=0: this class retries, so that every attempt is counted and backed off.
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout,
                                     max_retries=0)
        self.cache = ReplyCache(cache_dir) if cache_dir is not None else None
        self.lock = threading.Lock()
        priced = price_per_million_input is not None or price_per_million_output is not None
        self.stats: dict[str, Any] = {
            "requests": 0, "cache_hits": 0, "deduplicated": 0, "retries": 0, "failures": {},
            "attempt_errors": {}, "prompt_tokens": 0, "completion_tokens": 0,
            "cost_usd": 0.0 if priced else None}

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
        self._client.close()

    def __enter__(self) -> "LLMClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def redact(self, text: str) -> str:
        """`text` with the API key replaced by "[redacted]"."""
        # Very short placeholder keys ("x", "EMPTY") would mangle ordinary words if replaced.
        if not self._secret or len(self._secret) < 8:
            return text
        return text.replace(self._secret, "[redacted]")

    def count(self, name: str, amount: int = 1) -> None:
        """Add to a counter of `stats` (thread-safe)."""
        with self.lock:
            self.stats[name] += amount

    def count_failure(self, reason: str) -> None:
        """A logical call that ended without a valid reply, by reason (`stats["failures"]`)."""
        with self.lock:
            failures = self.stats["failures"]
            failures[reason] = failures.get(reason, 0) + 1

    def _response_format(self) -> dict[str, str] | None:
        return {"type": "json_object"} if self.json_mode else None

    def key(self, model: str, messages: list[dict[str, str]]) -> str:
        """The cache key of a request (model, messages, settings, prompt version; never the key)."""
        return request_key(model, messages, temperature=0, response_format=self._response_format(),
                           prompt_version=self.prompt_version)

    def call(self, model: str, messages: list[dict[str, str]],
             parse: Callable[[str], tuple[dict[Any, Any], dict[Any, Problem]]]) -> Outcome:
        """One logical call: the cache, else up to 1 + max_retries attempts. Returns the first
        fully valid reply, or the most complete invalid one with its problems."""
        key = self.key(model, messages)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                results, problems = parse(hit.text)
                if not problems:  # a stale entry that no longer validates is simply re-asked
                    self.count("cache_hits")
                    return Outcome(results, {}, 0)
        best: tuple[dict[Any, Any], dict[Any, Problem]] | None = None
        last_error: Problem = ("no_attempt", "")
        attempt = 0
        for attempt in range(1, self.max_retries + 2):
            if attempt > 1:
                self.count("retries")
            try:
                text, prompt_tokens, completion_tokens = self._request(model, messages)
            except _Transient as error:
                last_error = (error.reason, self.redact(error.detail))
                self._count_attempt_error(error.reason)
                if attempt <= self.max_retries:
                    time.sleep(self._backoff(key, attempt, error.retry_after))
                continue
            except _Permanent as error:
                self._count_attempt_error(error.reason)
                return Outcome({}, _all_problems(parse, (error.reason,
                                                          self.redact(error.detail))), attempt)
            results, problems = parse(text)
            if not problems:
                if self.cache is not None:
                    self.cache.put(key, model, text, prompt_tokens, completion_tokens)
                return Outcome(results, {}, attempt)
            last_error = next(iter(problems.values()))
            self._count_attempt_error(last_error[0])
            if best is None or len(problems) < len(best[1]):
                best = (results, problems)
            # An invalid reply is retried at once: waiting does not change a model's answer.
        if best is None:
            return Outcome({}, _all_problems(parse, last_error), attempt)
        return Outcome(best[0], best[1], attempt)

    def _count_attempt_error(self, reason: str) -> None:
        with self.lock:
            errors = self.stats["attempt_errors"]
            errors[reason] = errors.get(reason, 0) + 1

    def _backoff(self, key: str, attempt: int, retry_after: float | None) -> float:
        """Exponential back-off with jitter in [0.5, 1) derived from the request and attempt,
        so reruns wait the same while concurrent requests spread out.

        >>> client = LLMClient(api_key_env=None, cache_dir=None, backoff_base=1.0)
        >>> 2.0 <= client._backoff("k", 3, None) < 4.0, client._backoff("k", 1, 7.5)
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
        self.count("requests")
        try:
            response = self._client.chat.completions.create(**kwargs)
        except openai.APITimeoutError as error:
            raise _Transient("timeout", f"no reply within {self.timeout}s") from error
        except openai.APIConnectionError as error:
            raise _Transient("connection", str(error)) from error
        except openai.APIStatusError as error:
            raise self._status_error(model, error) from error
        except (ValueError, openai.APIResponseValidationError) as error:
            # HTTP 200 whose body is not JSON (or not UTF-8): a proxy's error page, a cut reply.
            raise _Transient("invalid_response", "the HTTP 200 body is not a JSON chat "
                             f"completion ({type(error).__name__})") from error
        if not hasattr(response, "choices"):  # a non-JSON content type comes back as text
            raise _Transient("invalid_response", "the HTTP 200 body is not a JSON chat "
                             f"completion: starts {short_text(str(response), 60)!r}")
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
        detail = short_text(str(error.message))
        if status in _RETRY_STATUSES or status >= 500:
            return _Transient(f"http_{status}", detail, _retry_after(error))
        if status == 400 and self.json_mode and "response_format" in detail:
            detail += " (the server may not support JSON mode: try json_mode=False)"
        return _Permanent(f"http_{status}", detail)

    def _add_tokens(self, prompt_tokens: int, completion_tokens: int) -> None:
        with self.lock:
            self.stats["prompt_tokens"] += prompt_tokens
            self.stats["completion_tokens"] += completion_tokens
            if self.stats["cost_usd"] is not None:
                self.stats["cost_usd"] = (
                    self.stats["prompt_tokens"] * (self.price_per_million_input or 0.0)
                    + self.stats["completion_tokens"] * (self.price_per_million_output or 0.0)
                ) / 1e6


def api_key_from_env(api_key_env: str | None) -> str:
    """The key from `api_key_env` (else OPENAI_API_KEY); "EMPTY" when no key is wanted.

    >>> api_key_from_env(None)
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


def check_base_url(base_url: str | None) -> None:
    """A configuration error, at once, for an endpoint that is not an http(s) URL (rather than
    retrying it as a network error).

    >>> check_base_url("http://127.0.0.1:8000/v1")
    >>> check_base_url("not a url")
    Traceback (most recent call last):
    ...
    halluscope.errors.ConfigError: LLM judge: --llm-base-url 'not a url' is not an http(s) URL (e.g. http://127.0.0.1:8000/v1)
    """
    if base_url is None:
        return
    parsed = urllib.parse.urlsplit(base_url.strip())
    try:
        parsed.port  # noqa: B018 (raises on a port that is not a number)
        valid = parsed.scheme in ("http", "https") and bool(parsed.hostname)
    except ValueError:
        valid = False
    if not valid or any(c.isspace() for c in base_url.strip()):
        raise ConfigError(f"LLM judge: --llm-base-url {base_url!r} is not an http(s) URL "
                          "(e.g. http://127.0.0.1:8000/v1)")


def _retry_after(error: openai.APIStatusError) -> float | None:
    try:
        return float(error.response.headers.get("retry-after"))
    except (TypeError, ValueError, AttributeError):
        return None


def short_text(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _all_problems(parse: Callable[[str], tuple[dict[Any, Any], dict[Any, Problem]]],
                  problem: Problem) -> dict[Any, Problem]:
    """`problem` for every key the call should have filled (found by parsing an empty reply)."""
    _, problems = parse("")
    return {key: problem for key in problems}
