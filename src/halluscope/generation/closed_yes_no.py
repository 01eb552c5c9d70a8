"""Closed yes/no answers from one forward pass: the probability of every spelling of "yes"
against every spelling of "no".

>>> import tempfile; from PIL import Image; from halluscope.models.tiny import make_tiny
>>> from halluscope.models.registry import load_adapter
>>> with tempfile.TemporaryDirectory() as folder:
...     adapter = load_adapter(make_tiny("llava", folder, image_size=32), dtype="float32")
...     score, = closed_yes_no(adapter, [Image.new("RGB", (32, 32))], ["Is there a dog?"])
>>> 0.0 < score.p_yes + score.p_no <= 1.0, score.label in ("yes", "no")
(True, True)

A model answering "Is there a dog?" may start with `Yes`, ` yes`, `yes`, ` Yes`, `YES`, `Yes.`
or `yes,`; reading one of them (the common `Yes` vs `No` logit comparison, kept as
`single_form`) misses the mass the model puts on the others. The spellings counted
(`spellings`): every vocabulary entry whose text, without whitespace, word-start marks and
punctuation and lowercased, is the word (one token each: the next-token distribution after the
prompt scores them all), and the token sequences of yes/Yes/YES (no/No/NO), with and without a
leading space, where the tokenizer splits them (teacher-forced as extra rows of the same forward
pass). A sequence that extends another counted one is dropped (its probability is already
inside the shorter one's), so no mass is counted twice. Punctuation after a multi-token
spelling is inside that spelling's probability already.
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass
from typing import Any, Sequence

from PIL import Image

# Byte-level BPE (Ġ space, Ċ newline, ĉ tab) and SentencePiece (▁) word-start marks.
_MARKS = "ĠĊĉ▁ \t\n\r"
_STRIP = _MARKS + string.punctuation


@dataclass(frozen=True)
class ClosedScore:
    """One question: total probability of the yes and the no spellings, their argmax, and the
    common single-spelling reading."""

    p_yes: float
    p_no: float
    label: str
    single_form: str


def yes_no_token_ids(tokenizer: Any) -> dict[str, list[int]]:
    """`{"yes": [ids], "no": [ids]}`: every vocabulary entry spelling the word as one token.

    >>> class Vocab:
    ...     tokens = ["Yes", "\u0120yes", "\u2581YES", "yes.", "Yesterday", "No", "\u0120no,",
    ...               "not"]
    ...     def __len__(self): return len(self.tokens)
    ...     def convert_ids_to_tokens(self, ids): return [self.tokens[i] for i in ids]
    >>> yes_no_token_ids(Vocab())
    {'yes': [0, 1, 2, 3], 'no': [5, 6]}
    """
    tokens = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
    found: dict[str, list[int]] = {"yes": [], "no": []}
    for token_id, token in enumerate(tokens):
        if isinstance(token, str) and token.strip(_STRIP).lower() in found:
            found[token.strip(_STRIP).lower()].append(token_id)
    return found


def spellings(tokenizer: Any, first: dict[str, list[int]] | None = None
              ) -> dict[str, list[tuple[int, ...]]]:
    """Every counted spelling of yes and no as a token sequence (see the module docstring)."""
    first = first if first is not None else yes_no_token_ids(tokenizer)
    out: dict[str, list[tuple[int, ...]]] = {w: [(i,) for i in ids] for w, ids in first.items()}
    for word in ("yes", "no"):
        for surface in (word, word.capitalize(), word.upper()):
            for text in (surface, " " + surface):
                ids = tuple(tokenizer(text, add_special_tokens=False)["input_ids"])
                if ids and ids not in out[word]:
                    out[word].append(ids)
    every = [seq for seqs in out.values() for seq in seqs]
    return {w: [seq for seq in seqs
                if not any(len(o) < len(seq) and seq[:len(o)] == o for o in every)]
            for w, seqs in out.items()}


def _first_id(tokenizer: Any, text: str) -> int:
    return tokenizer(text, add_special_tokens=False)["input_ids"][0]


def closed_yes_no(adapter: Any, images: Sequence[Image.Image], prompts: Sequence[str],
                  forms: dict[str, list[tuple[int, ...]]] | None = None) -> list[ClosedScore]:
    """Yes/no probabilities after each (image, prompt), in one forward pass of the batch."""
    import torch

    forms = forms or spellings(adapter.tokenizer)
    multi = [(w, seq) for w in ("yes", "no") for seq in forms[w] if len(seq) > 1]
    n = len(prompts)
    if multi:
        # one row per (item, multi-token spelling); the first-token distribution is read from
        # each item's first row
        rows_img = [images[i] for i in range(n) for _ in multi]
        rows_prompt = [prompts[i] for i in range(n) for _ in multi]
        rows_cap: list[list[int]] | None = [list(seq) for _ in range(n) for _, seq in multi]
        keep = max(len(seq) for _, seq in multi) + 1
    else:
        rows_img, rows_prompt, rows_cap, keep = list(images), list(prompts), None, 1
    batch = adapter.encode(rows_img, rows_prompt, rows_cap, padding_side="left")
    with torch.no_grad():
        out = adapter.model(**batch.inputs, logits_to_keep=keep)
    logp = torch.log_softmax(out.logits[:, -keep:].float(), dim=-1).cpu()
    per_item = max(len(multi), 1)
    prefix = adapter.caption_prefix
    one_yes = _first_id(adapter.tokenizer, prefix + "Yes")
    one_no = _first_id(adapter.tokenizer, prefix + "No")
    scores = []
    for i in range(n):
        base = i * per_item
        # position predicting the token right after the prompt, in the item's first row
        m0 = len(multi[0][1]) if multi else 0
        first = logp[base, keep - m0 - 1]
        mass = {}
        for word in ("yes", "no"):
            singles = [seq[0] for seq in forms[word] if len(seq) == 1]
            terms = [float(torch.logsumexp(first[singles], dim=0))] if singles else []
            for k, (w, seq) in enumerate(multi):
                if w == word:
                    m = len(seq)
                    terms.append(float(sum(logp[base + k, keep - m - 1 + j, t]
                                           for j, t in enumerate(seq))))
            mass[word] = sum(math.exp(t) for t in terms)
        single = "yes" if first[one_yes] >= first[one_no] else "no"
        scores.append(ClosedScore(mass["yes"], mass["no"],
                                  "yes" if mass["yes"] >= mass["no"] else "no", single))
    return scores
