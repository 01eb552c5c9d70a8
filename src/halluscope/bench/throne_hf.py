"""THRONE's judges as the paper runs them: local Hugging Face seq2seq models (Flan-T5 base, large
and XL), every question format asked to every model, greedy decoding, one vote per answer.

>>> judge = HFThroneJudge.__new__(HFThroneJudge); judge.name
'hf'

`HFThroneJudge(models=[PATH, ...])` loads each folder (or hub id the local cache holds) with
`transformers.AutoTokenizer` and `AutoModelForSeq2SeqLM`, asks the prompt set's questions
(`metrics.throne.ThronePrompts`: halluscope's default wording, or THRONE's released prompts from a
file) and reads each answer as a vote by its first word (`metrics.throne.parse_yes_no`); an answer
that is neither yes nor no is a counted failure (`stats["failures"]["not_yes_no"]`), never a vote.
Votes per query = models x formats: THRONE's nine with three judges and three formats.
Deterministic: greedy decoding, no sampling; one distinct (caption, class) is asked once.

It lives in `bench/` because `metrics/` never imports torch or transformers; `bench table3
--throne-judge hf --throne-model PATH` (repeatable) builds it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from halluscope.errors import ConfigError
from halluscope.metrics.throne import (DEFAULT_PROMPTS, ThronePrompts, ThroneQuery, ThroneVotes,
                                       load_throne_prompts, parse_yes_no)


class HFThroneJudge:
    """THRONE's questions answered by local seq2seq models (see the module docstring)."""

    name = "hf"

    def __init__(self, models: Sequence[str | Path], prompts: ThronePrompts | str | Path | None
                 = None, formats: Sequence[int] | None = None, device: str = "cpu",
                 batch_size: int = 16, max_new_tokens: int = 4, max_input_tokens: int = 1024):
        self.prompts = (DEFAULT_PROMPTS if prompts is None else prompts
                        if isinstance(prompts, ThronePrompts) else load_throne_prompts(prompts))
        n = len(self.prompts.questions)
        self.formats = tuple(range(n)) if formats is None else tuple(formats)
        if not models or not self.formats:
            raise ConfigError("the hf THRONE judge needs at least one --throne-model (a local "
                              "seq2seq model folder, e.g. Flan-T5) and one question format")
        if any(not 0 <= f < n for f in self.formats):
            raise ConfigError(f"THRONE formats {self.formats} out of range for a prompt set of "
                              f"{n} question(s)")
        if batch_size < 1 or max_new_tokens < 1:
            raise ConfigError("the hf THRONE judge needs batch_size and max_new_tokens >= 1")
        self.model_names = tuple(str(m) for m in models)
        self.device = device
        self.batch_size = batch_size
        self.max_new_tokens = max_new_tokens
        self.max_input_tokens = max_input_tokens
        self._loaded = [self._load(m) for m in self.model_names]
        self.votes_per_query = len(self.model_names) * len(self.formats)
        self.prompt_set = {**self.prompts.describe(), "formats": list(self.formats),
                           "models": list(self.model_names)}
        self.stats: dict[str, Any] = {"queries": 0, "answers": 0, "failures": {}}

    def _load(self, path: str) -> tuple[Any, Any]:
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        try:
            tokenizer = AutoTokenizer.from_pretrained(path)
            model = AutoModelForSeq2SeqLM.from_pretrained(path)
        except (OSError, ValueError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ConfigError(f"--throne-model {path}: cannot load a seq2seq model and its "
                              f"tokenizer: {first}") from None
        model.to(self.device).eval()
        return tokenizer, model

    def _answer(self, tokenizer: Any, model: Any, texts: list[str]) -> list[str]:
        import torch

        answers: list[str] = []
        for start in range(0, len(texts), self.batch_size):
            batch = tokenizer(texts[start:start + self.batch_size], return_tensors="pt",
                              padding=True, truncation=True, max_length=self.max_input_tokens)
            with torch.no_grad():
                out = model.generate(**{k: v.to(self.device) for k, v in batch.items()},
                                     max_new_tokens=self.max_new_tokens, do_sample=False,
                                     num_beams=1)
            answers += tokenizer.batch_decode(out, skip_special_tokens=True)
        return answers

    def judge(self, queries: Sequence[ThroneQuery]) -> list[ThroneVotes]:
        keys = sorted({(q.caption, q.category) for q in queries})
        votes = {key: ThroneVotes([]) for key in keys}
        for name, (tokenizer, model) in zip(self.model_names, self._loaded):
            for f in self.formats:
                texts = [self.prompts.messages(caption, category, f)[0]["content"]
                         for caption, category in keys]
                for key, answer in zip(keys, self._answer(tokenizer, model, texts)):
                    self.stats["answers"] += 1
                    parsed, problems = parse_yes_no(answer)
                    if problems:
                        reason, detail = problems[None]
                        failures = self.stats["failures"]
                        failures[reason] = failures.get(reason, 0) + 1
                        votes[key].errors.append(f"THRONE question {f + 1} about {key[1]!r} to "
                                                 f"{name}: {reason}: {detail}")
                    else:
                        votes[key].votes.append(parsed[None])
        self.stats["queries"] += len(queries)
        # Each query its own copy: two mentions of a class share the answers, not the list.
        return [ThroneVotes(list(votes[(q.caption, q.category)].votes),
                            list(votes[(q.caption, q.category)].errors)) for q in queries]

    def close(self) -> None:
        self._loaded = []
