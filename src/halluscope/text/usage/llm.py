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
Requests go through `llm.client.LLMClient` (retries with back-off, the on-disk reply cache, cost,
the API key from the environment only and scrubbed from errors); what still fails becomes a
`JudgeFailure` naming the caption and the reason, never a label. `stats` is the client's
(requests, cache hits, retries, failures by reason, tokens, cost) plus `invalid_trigger`; it
accumulates over the judge's lifetime.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import jsonschema

from halluscope.errors import ConfigError
from halluscope.llm.client import LLMClient, Outcome, Problem, short_text
from halluscope.text.mentions import Mention
from halluscope.text.usage import prompts
from halluscope.text.usage.base import JudgeFailure, UsageLabel
from halluscope.text.usage.rules import subtype_from_mechanism
_STEP1_VALIDATOR = jsonschema.Draft202012Validator(prompts.STEP1_SCHEMA)
_STEP2_VALIDATOR = jsonschema.Draft202012Validator(prompts.STEP2_SCHEMA)
_STEP3_VALIDATOR = jsonschema.Draft202012Validator(prompts.STEP3_SCHEMA)


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
        if captions_per_call < 1 or max_concurrency < 1 or max_retries < 0:
            raise ConfigError("LLM judge: captions_per_call and max_concurrency must be >= 1 "
                              "and max_retries >= 0")
        self.model = model
        self.compound_model = compound_model
        self.captions_per_call = captions_per_call
        self.max_concurrency = max_concurrency
        self.client = LLMClient(base_url=base_url, api_key_env=api_key_env,
                                max_retries=max_retries, backoff_base=backoff_base,
                                max_backoff=max_backoff, timeout=timeout, cache_dir=cache_dir,
                                price_per_million_input=price_per_million_input,
                                price_per_million_output=price_per_million_output,
                                json_mode=json_mode, max_tokens=max_tokens,
                                prompt_version=prompts.PROMPT_VERSION)
        self.stats = self.client.stats
        self.stats["invalid_trigger"] = 0  # triggers that are not substrings of the caption

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
        self.client.close()

    def __enter__(self) -> "LLMJudge":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -------------------------------------------------------------------------------- steps

    def _step1(self, batch: list[_Step1Item]) -> Outcome:
        messages = prompts.step1_messages([(item.caption, item.concepts) for item in batch])
        return self.client.call(self.model, messages, lambda text: _parse_step1(text, batch))

    def _collect_step1(self, batch: list[_Step1Item], outcome: Outcome,
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
        pending: dict[str, Future[Outcome]] = {}
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

    def _submit_once(self, executor: ThreadPoolExecutor, pending: dict[str, Future[Outcome]],
                     model: str, messages: list[dict[str, str]],
                     parse: Callable[[str], tuple[dict[Any, Any], dict[Any, Problem]]]
                     ) -> Future[Outcome]:
        key = self.client.key(model, messages)
        if key in pending:
            self.client.count("deduplicated")
            return pending[key]
        pending[key] = executor.submit(self.client.call, model, messages, parse)
        return pending[key]

    # ------------------------------------------------------------------------- labels, errors

    def _make_label(self, usage: str, subtype: str | None, caption: str,
                    result: dict[str, Any], note: str | None = None) -> UsageLabel:
        trigger = _raw_trigger(result)
        if trigger is not None and trigger not in caption:
            # Keep the verdict, drop the span: outputs promise an exact substring or nothing.
            self.client.count("invalid_trigger")
            trigger = None
        reason = result.get("reasoning") or None
        if note:
            reason = f"{reason}; {note}" if reason else note
        return UsageLabel(usage=usage, subtype=subtype, trigger=trigger, judge=self.name,
                          reason=reason)

    def _failure(self, caption_index: int, step: str, attempts: int, problem: Problem
                 ) -> JudgeFailure:
        reason, detail = problem
        self.client.count_failure(reason)
        tries = f"after {attempts} attempt{'s' if attempts != 1 else ''}"
        return JudgeFailure(judge=self.name, error=self.client.redact(
            f"caption {caption_index}: {step} failed {tries}: {reason}: {detail}"))

# ------------------------------------------------------------------------------- helpers


def _raw_trigger(result: dict[str, Any]) -> str | None:
    """The model's trigger phrase, or None when it gave none ("null" written as text counts)."""
    trigger = result.get("trigger_phrase")
    if not isinstance(trigger, str) or trigger.strip().lower() in ("", "null", "none"):
        return None
    return trigger.strip()


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
        return None, ("invalid_json", short_text(f"{error}; reply starts {text[:60]!r}"))


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
    return short_text(f"{where}: {error.message}")
