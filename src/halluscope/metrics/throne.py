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
annotated in the image (`bench.tables.table3` does that join).

Prompt sets (`ThronePrompts`). The default set (`DEFAULT_PROMPTS`: `INSTRUCTION`, `TEMPLATE`,
`QUESTION_FORMATS` with their plural forms `QUESTION_FORMATS_PLURAL`, version id `PROMPT_VERSION`)
is halluscope's own wording: three phrasings of Appendix F's question, from the most literal ("is
there") to the one THRONE's metric is about ("does the description imply"), following the
structure Appendix F describes (three formats, one instruction, the caption cut at 1,024
characters, one question per mentioned class). It is NOT THRONE's released wording, which is
under a non-commercial licence and is not shipped here. To run the released prompts, as the
paper does, write them into a prompt file (`load_throne_prompts`; `--throne-prompts FILE` of
`halluscope bench table3`, `prompts=` of `LLMThroneJudge`/`get_throne_judge`), a JSON object:

* "instruction": the instruction, a string;
* "template": the whole user turn, with the placeholders {context} (the caption, cut at
  "caption_limit" characters), {instruction} and {question}, each at least once; write a literal
  brace as {{ or }};
* "questions": a non-empty list of {"singular": ..., "plural": ...}; a singular question may use
  {article} ("a"/"an", by the first letter of the object's name) and must use {object}; a plural
  question must use {object} and nothing else. Every listed question is asked (one vote each per
  model and repeat);
* optional "caption_limit" (characters, default 1024), "plural_classes" (class names asked with
  the plural question; default `PLURAL_CLASSES`, the COCO classes whose names are plural nouns,
  which is also the released code's choice) and "object_names" (class name -> the name the
  question uses; default none).

Any other key, a missing or empty one, or an unknown placeholder is a one-line `ConfigError`
naming the file. Results record which set was used (`ThronePrompts.describe`): the default's
version id, or "file" with the file's sha256 (never its path or text); the sha256 also keys the
reply cache.

Writing the file from THRONE's released repository (amazon-science/THRONE, read it yourself;
do not commit its strings to this repository): throne/throne_constants.py defines a list of
instructions and a list of eight question formats, each a (singular, plural) pair of format
strings with positional placeholders. throne/throne_aqa_evaluation.py uses the first instruction
of that list and the first three pairs of the question list (its default number of formats is
three), so copy the first instruction into "instruction" and the first three pairs, in order,
into "questions", rewriting the placeholders: in a singular string the first positional
placeholder is the article ({article}) and the second the class name ({object}); in a plural
string the only one is the class name ({object}). "template" is the script's prompt format: the
caption after the script's one-word label and a colon, a blank line, the instruction, a blank
line, the question, i.e. its context/instruction/question layout with our three placeholder
names. Its caption truncation is 1,024 characters (the default "caption_limit"). The script
asks the plural question for exactly two COCO classes whose names are plural nouns (our
`PLURAL_CLASSES`, the default) and the singular one, with "an" before a vowel and "a" otherwise,
for every other class; it also asks about one class under a longer name (the neckwear class, by
its full word), which "object_names" reproduces. Our category vocabulary has no plural flag, so
the rule is by class name as in the released code.

Judges (both return one `ThroneVotes` per `ThroneQuery`):

* `LLMThroneJudge`: any OpenAI-compatible endpoint, through the LLM usage judge's plumbing
  (`text.usage.llm.LLMJudge`: client, key from the environment only, retries with back-off,
  SQLite reply cache, stats). Votes = formats x `models` x `repeats`; a vote is yes/no when the
  reply begins with "yes"/"no" (the paper's Llama reading) and anything else is retried and then
  a counted failure (`stats["failures"]`), never a vote. At temperature 0 a repeat of the same
  request gives the same answer, so it is sent (or read from the cache) once and counted
  `repeats` times: repeats keep THRONE's nine-vote shape with a single model, distinct `models`
  (like THRONE's three Flan-T5 sizes) are what add information.
* `OfflineThroneJudge`: deterministic, no network. A STAND-IN, not THRONE: a mention counts as
  claimed present iff halluscope's offline usage judge (`text.usage.offline.OfflineJudge`)
  labels it existential, and every one of its `votes` votes then says yes (else every vote says
  no). Its votes come from the usage judge itself, so it measures nothing about THRONE; it is
  never a default, and its `warning` goes into Table 3's output. It never disqualifies; a
  mention the offline judge cannot place is a failure.
* `bench.throne_hf.HFThroneJudge` (outside `metrics/`, which never imports transformers): local
  seq2seq models such as THRONE's Flan-T5 judges, as the paper runs THRONE.

A query with any failed vote gets the verdict "failed" under both rules (a partial vote would
make "unanimous" easier to reach); `bench.tables.table3` reports failures apart from verdicts.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Sequence, runtime_checkable

__all__ = ["CAPTION_LIMIT", "DEFAULT_PROMPTS", "INSTRUCTION", "PLURAL_CLASSES", "PROMPT_VERSION",
           "QUESTION_FORMATS", "QUESTION_FORMATS_PLURAL", "RULES", "TEMPLATE", "LLMThroneJudge",
           "OfflineThroneJudge", "ThroneJudge", "ThronePrompts", "ThroneQuery", "ThroneVotes",
           "aggregate", "get_throne_judge", "load_throne_prompts", "parse_yes_no",
           "throne_messages"]

RULES: tuple[str, ...] = ("majority", "unanimous")
VERDICTS: tuple[str, ...] = ("present", "absent", "disqualified", "failed")
CAPTION_LIMIT = 1024
# v2: plural questions for `PLURAL_CLASSES` (v1 asked every class in the singular).
PROMPT_VERSION = "throne-halluscope-v2"
INSTRUCTION = ("Read the description of an image and answer the question about the image with "
               "yes or no.")
TEMPLATE = "{instruction}\n\nDescription: {context}\n\nQuestion: {question} Answer yes or no."
QUESTION_FORMATS: tuple[str, ...] = (
    "Is there {article} {object} in the image?",
    "Based on the description, does the image contain {article} {object}?",
    "Does the description imply that there is {article} {object} in the image?",
)
QUESTION_FORMATS_PLURAL: tuple[str, ...] = (
    "Are there {object} in the image?",
    "Based on the description, does the image contain {object}?",
    "Does the description imply that there are {object} in the image?",
)
# COCO classes whose names are plural nouns: asked with the plural question.
PLURAL_CLASSES: frozenset[str] = frozenset({"scissors", "skis"})

_TEMPLATE_FIELDS = ("context", "instruction", "question")
_SINGULAR_FIELDS = ("article", "object")
_PLURAL_FIELDS = ("object",)
_FILE_KEYS = ("instruction", "template", "questions", "caption_limit", "plural_classes",
              "object_names")


def _article(word: str) -> str:
    """The indefinite article by spelling.

    >>> _article("apple"), _article("dog")
    ('an', 'a')
    """
    return "an" if word[:1].lower() in "aeiou" else "a"


@dataclass(frozen=True)
class ThronePrompts:
    """A THRONE prompt set: instruction, user-turn template, (singular, plural) questions,
    caption limit, plural classes and object names; `version` is its id (the default's
    `PROMPT_VERSION`, or "sha256:..." of a prompt file) and `source` "default" or "file".

    >>> DEFAULT_PROMPTS.question("apple", 0)
    'Is there an apple in the image?'
    >>> DEFAULT_PROMPTS.question("skis", 2)
    'Does the description imply that there are skis in the image?'
    >>> DEFAULT_PROMPTS.describe()["id"]
    'throne-halluscope-v2'
    """

    instruction: str
    template: str
    questions: tuple[tuple[str, str], ...]
    caption_limit: int = CAPTION_LIMIT
    plural_classes: frozenset[str] = PLURAL_CLASSES
    object_names: tuple[tuple[str, str], ...] = ()
    version: str = PROMPT_VERSION
    source: str = "default"

    def question(self, category: str, format_index: int) -> str:
        """Question `format_index` about `category`: the plural form for a plural class, else the
        singular one with its article (both after renaming by `object_names`)."""
        name = dict(self.object_names).get(category, category)
        singular, plural = self.questions[format_index]
        if category in self.plural_classes:
            return plural.format(object=name)
        return singular.format(article=_article(name), object=name)

    def messages(self, caption: str, category: str, format_index: int) -> list[dict[str, str]]:
        """One user turn: the template with the caption cut at `caption_limit` characters."""
        content = self.template.format(context=caption[:self.caption_limit],
                                       instruction=self.instruction,
                                       question=self.question(category, format_index))
        return [{"role": "user", "content": content}]

    def describe(self) -> dict[str, Any]:
        """What results record about this set: its source and id (never a file's path or text)."""
        out: dict[str, Any] = {"source": self.source, "id": self.version}
        if self.source == "file":
            out["sha256"] = self.version.split(":", 1)[1]
        out.update(questions=len(self.questions), caption_limit=self.caption_limit)
        return out


DEFAULT_PROMPTS = ThronePrompts(INSTRUCTION, TEMPLATE,
                                tuple(zip(QUESTION_FORMATS, QUESTION_FORMATS_PLURAL)))


def _check_placeholders(text: str, allowed: Sequence[str], required: Sequence[str],
                        what: str) -> str | None:
    """The problem with `text`'s placeholders, or None.

    >>> _check_placeholders("{a} {b}", ("a", "b"), ("a",), "t") is None
    True
    >>> _check_placeholders("{a} {0} {c!r}", ("a",), ("a",), "t")
    't: unknown placeholder(s) {0}, {c!r} (allowed: {a})'
    """
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        return f"{what}: {exc} (write a literal brace as {{{{ or }}}})"
    unknown, seen = [], set()
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if name not in allowed or spec or conversion:
            shown = name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
            unknown.append("{" + shown + "}")
        else:
            seen.add(name)
    if unknown:
        return (f"{what}: unknown placeholder(s) {', '.join(unknown)} (allowed: "
                f"{', '.join('{' + a + '}' for a in allowed)})")
    missing = [name for name in required if name not in seen]
    if missing:
        return f"{what}: missing placeholder(s) {', '.join('{' + m + '}' for m in missing)}"
    return None


def _prompt_problem(data: Any) -> str | None:
    """The first problem of a parsed prompt file, or None."""
    if not isinstance(data, dict):
        return "expected a JSON object"
    extra = sorted(set(data) - set(_FILE_KEYS))
    if extra:
        return f"unknown key(s) {', '.join(map(repr, extra))} (allowed: {', '.join(_FILE_KEYS)})"
    for key in ("instruction", "template"):
        if key not in data:
            return f"missing key {key!r}"
        if not isinstance(data[key], str) or not data[key].strip():
            return f"{key!r} must be a non-empty string"
    problem = _check_placeholders(data["template"], _TEMPLATE_FIELDS, _TEMPLATE_FIELDS,
                                  "'template'")
    if problem:
        return problem
    questions = data.get("questions")
    if "questions" not in data:
        return "missing key 'questions'"
    if not isinstance(questions, list) or not questions:
        return "'questions' must be a non-empty list"
    for number, question in enumerate(questions, start=1):
        if not isinstance(question, dict) or set(question) != {"singular", "plural"}:
            return f"question {number}: expected an object with exactly 'singular' and 'plural'"
        for form, allowed in (("singular", _SINGULAR_FIELDS), ("plural", _PLURAL_FIELDS)):
            text = question[form]
            if not isinstance(text, str) or not text.strip():
                return f"question {number} {form}: must be a non-empty string"
            problem = _check_placeholders(text, allowed, ("object",), f"question {number} {form}")
            if problem:
                return problem
    limit = data.get("caption_limit", CAPTION_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        return "'caption_limit' must be a positive integer"
    plural = data.get("plural_classes", sorted(PLURAL_CLASSES))
    if not isinstance(plural, list) or not all(isinstance(c, str) and c for c in plural):
        return "'plural_classes' must be a list of class names"
    names = data.get("object_names", {})
    if not isinstance(names, dict) or not all(isinstance(v, str) and v.strip()
                                              for v in names.values()):
        return "'object_names' must map class names to non-empty strings"
    return None


def load_throne_prompts(path: str | Path) -> ThronePrompts:
    """The prompt set of a prompt file (schema: module docstring); a `ConfigError` naming the
    file on any problem. Its id is the sha256 of the file's bytes."""
    from halluscope.errors import ConfigError

    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the THRONE prompt file: "
                          f"{exc.strerror or exc}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: THRONE prompt file is not valid UTF-8 JSON: {exc}") from None
    problem = _prompt_problem(data)
    if problem:
        raise ConfigError(f"{path}: THRONE prompt file: {problem}")
    return ThronePrompts(
        instruction=data["instruction"], template=data["template"],
        questions=tuple((q["singular"], q["plural"]) for q in data["questions"]),
        caption_limit=data.get("caption_limit", CAPTION_LIMIT),
        plural_classes=frozenset(data.get("plural_classes", PLURAL_CLASSES)),
        object_names=tuple(sorted(data.get("object_names", {}).items())),
        version="sha256:" + hashlib.sha256(raw).hexdigest(), source="file")


def _resolve_prompts(prompts: ThronePrompts | str | Path | None) -> ThronePrompts:
    if prompts is None:
        return DEFAULT_PROMPTS
    if isinstance(prompts, ThronePrompts):
        return prompts
    return load_throne_prompts(prompts)


def throne_messages(caption: str, category: str, format_index: int,
                    prompts: ThronePrompts | None = None) -> list[dict[str, str]]:
    """The chat messages of one question: a single user turn (instruction, caption cut at the
    set's caption limit, question), as the paper sends THRONE's prompt to a chat model; `prompts`
    defaults to `DEFAULT_PROMPTS`.

    >>> len(throne_messages("x" * 5000, "cat", 2)[0]["content"]) < 1300
    True
    """
    return (prompts or DEFAULT_PROMPTS).messages(caption, category, format_index)

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
    prompt_set = None  # asks no questions
    warning = ("offline THRONE stand-in: its votes are halluscope's offline usage judge "
               "(existential = present), not THRONE's judges, so its THRONE columns measure "
               "nothing about THRONE; use --throne-judge hf (Flan-T5) or llm for THRONE")

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


class LLMThroneJudge:
    """THRONE's questions against an OpenAI-compatible endpoint (see the module docstring).

    >>> judge = LLMThroneJudge(base_url="http://127.0.0.1:9/v1", api_key_env=None, cache_dir=None)
    >>> judge.votes_per_query, judge.judge([]), judge.prompt_set["id"]
    (9, [], 'throne-halluscope-v2')
    >>> judge.close()

    `prompts` is a `ThronePrompts` or a prompt file's path (default `DEFAULT_PROMPTS`);
    `formats` the indices of its questions to ask (default: all of them).

    Identical questions (same caption, class, format, model) are sent once per call of `judge`,
    and valid replies are cached on disk, so a rerun sends nothing. `stats` is the shared LLM
    judge's: requests, cache hits, retries, failures by reason, tokens.
    """

    name = "llm"

    def __init__(self, base_url: str | None = None, models: Sequence[str] = ("gpt-4o-mini",),
                 repeats: int = 3, api_key_env: str | None = "HALLUSCOPE_LLM_API_KEY",
                 cache_dir: str | Path | None = Path(".halluscope_cache/throne"),
                 max_concurrency: int = 4, max_retries: int = 4, backoff_base: float = 0.5,
                 timeout: float = 60, formats: Sequence[int] | None = None,
                 prompts: ThronePrompts | str | Path | None = None,
                 max_tokens: int | None = None):
        self.prompts = _resolve_prompts(prompts)
        n = len(self.prompts.questions)
        formats = tuple(range(n)) if formats is None else tuple(formats)
        if not models or repeats < 1 or not formats:
            raise ValueError("LLM THRONE judge: need at least one model, format and repeat")
        if any(not 0 <= f < n for f in formats):
            raise ValueError(f"LLM THRONE judge: formats {formats} out of range for a prompt set "
                             f"of {n} question(s)")
        self.models = tuple(models)
        self.repeats = repeats
        self.formats = formats
        self.votes_per_query = len(self.models) * len(self.formats) * repeats
        self.prompt_set = {**self.prompts.describe(), "formats": list(self.formats)}
        from halluscope.errors import ConfigError
        from halluscope.llm.client import LLMClient

        if max_concurrency < 1 or max_retries < 0:
            raise ConfigError("LLM THRONE judge: max_concurrency must be >= 1 and max_retries "
                              ">= 0")
        # Plain-text yes/no replies (no JSON mode); the cache keys carry the prompt set's id.
        self.client = LLMClient(base_url=base_url, api_key_env=api_key_env,
                                max_retries=max_retries, backoff_base=backoff_base,
                                timeout=timeout, cache_dir=cache_dir, json_mode=False,
                                max_tokens=max_tokens, prompt_version=self.prompts.version)
        self.max_concurrency = max_concurrency
        self.stats = self.client.stats

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
        outcome = self.client.call(model, self.prompts.messages(caption, category, format_index),
                                   parse_yes_no)
        if outcome.problems:
            reason, detail = outcome.problems[None]
            tries = f"{outcome.attempts} attempt{'s' if outcome.attempts != 1 else ''}"
            self.client.count_failure(reason)
            return self.client.redact(f"THRONE question {format_index + 1} about {category!r} "
                                      f"to {model}: failed after {tries}: {reason}: {detail}")
        return bool(outcome.results[None])

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> "LLMThroneJudge":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def get_throne_judge(name: str, prompts: ThronePrompts | str | Path | None = None,
                     **options: Any) -> ThroneJudge:
    """Build the THRONE judge `name` ("offline" or "llm") with its options; `prompts` (a
    `ThronePrompts` or a prompt file's path) is the LLM judge's prompt set.

    >>> get_throne_judge("llm", api_key_env=None, cache_dir=None, repeats=1).votes_per_query
    3
    """
    from halluscope.errors import ConfigError

    if name == "offline":
        if prompts is not None:
            raise ConfigError("a THRONE prompt set needs the llm judge (the offline judge asks "
                              "no questions)")
        return OfflineThroneJudge(**options)
    if name == "llm":
        return LLMThroneJudge(prompts=prompts, **options)
    raise ConfigError(f"unknown THRONE judge {name!r}; choose offline or llm")
