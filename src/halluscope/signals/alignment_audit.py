"""Does every mention land on tokens that spell it? A check of token alignment on a tokenizer.

>>> class Chars:  # a toy tokenizer: one token per character, offsets given
...     def tokenize_caption(self, text):
...         return [ord(c) for c in text], [(i, i + 1) for i in range(len(text))], text
...     def decode(self, ids):
...         return "".join(chr(i) for i in ids)
>>> checks = audit_caption(Chars(), "A hot dog.", prompt_length=5, context=100)
>>> [(c.word, c.status) for c in checks]
[('hot dog', 'aligned')]
>>> audit_caption(Chars(), "A hot dog.", prompt_length=5, context=10)[0].status
'beyond_context'

For each mention of a caption, tokenized the way `signals` teacher-forces text (alone, after the
adapter's caption prefix), the object token and the last token overlapping the mention are found
through character offsets (`halluscope.signals.alignment`), and the ids from the object token to
the last one are *decoded* again: the mention is aligned when that decoded text contains the
mention's characters (whitespace-insensitive). Decoding is independent of the offset mapping, so
an off-by-one in the offsets shows up here. Statuses:
- `aligned`;
- `beyond_context`: prompt + caption are longer than the model's context, so `signals` records the
  caption as `too_long` (an explained, counted skip);
- `no_token`: no token overlaps the mention (an unexplained misalignment);
- `decoded_mismatch`: the decoded tokens do not spell the mention (an unexplained misalignment).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Protocol, Sequence

from halluscope.signals.alignment import align_span

EXPLAINED = ("beyond_context",)
UNEXPLAINED = ("no_token", "decoded_mismatch")
_SPACE = re.compile(r"\s+")


class CaptionTokenizer(Protocol):
    def tokenize_caption(self, caption: str | Sequence[int]
                         ) -> tuple[list[int], list[tuple[int, int]], str]: ...

    def decode(self, ids: Sequence[int]) -> str: ...


@dataclass(frozen=True)
class AlignmentCheck:
    """The outcome for one mention."""

    caption_index: int
    mention_index: int
    word: str
    start: int
    end: int
    status: str
    decoded: str  # the decoded object-token .. last-token span ("" when there is none)
    tokens: int  # tokens in that span


def audit_caption(tokenizer: CaptionTokenizer, caption: str, prompt_length: int,
                  context: int | None, caption_index: int = 0, vocabulary: Any = None,
                  via_ids: bool = False) -> list[AlignmentCheck]:
    """One check per mention of `caption` (see the module docstring).

    `via_ids=True` checks the path a model's own captions take: the caption's token ids are
    given back (as generated ids are) and their offsets recovered by incremental decoding.
    """
    from halluscope.text.mentions import extract_mentions

    ids, offsets, text = tokenizer.tokenize_caption(caption)
    if via_ids:
        ids, offsets, text = tokenizer.tokenize_caption(ids)  # type: ignore[arg-type]
    too_long = context is not None and prompt_length + len(ids) > context
    checks = []
    for k, mention in enumerate(extract_mentions(text, vocabulary)):
        a = align_span(offsets, mention.start, mention.end)
        if too_long:
            status, decoded, tokens = "beyond_context", "", 0
        elif a is None:
            status, decoded, tokens = "no_token", "", 0
        else:
            decoded = tokenizer.decode(ids[a.caption_token:a.last_caption_token + 1])
            tokens = a.last_caption_token - a.caption_token + 1
            spelled = _SPACE.sub("", mention.word) in _SPACE.sub("", decoded)
            status = "aligned" if spelled else "decoded_mismatch"
        checks.append(AlignmentCheck(caption_index, k, mention.word, mention.start, mention.end,
                                     status, decoded, tokens))
    return checks


class AdapterTokenizer:
    """`CaptionTokenizer` over a loaded adapter: its caption tokenization and its decoder."""

    def __init__(self, adapter: Any):
        self.adapter = adapter

    def tokenize_caption(self, caption: str | Sequence[int]
                         ) -> tuple[list[int], list[tuple[int, int]], str]:
        return self.adapter.tokenize_caption(caption)

    def decode(self, ids: Sequence[int]) -> str:
        return self.adapter.tokenizer.decode(list(ids), skip_special_tokens=True,
                                             clean_up_tokenization_spaces=False)


def audit_captions(tokenizer: CaptionTokenizer, captions: Iterable[str], prompt_length: int,
                   context: int | None, vocabulary: Any = None, via_ids: bool = False,
                   examples_per_status: int = 20) -> dict[str, Any]:
    """Counts per status over all captions, plus examples of every status but `aligned` and of
    aligned mentions that span several tokens (the hard cases worth keeping)."""
    counts: dict[str, int] = {}
    examples: dict[str, list[dict[str, Any]]] = {}
    multi_token = 0
    n_captions = 0
    for index, caption in enumerate(captions):
        n_captions += 1
        for check in audit_caption(tokenizer, caption, prompt_length, context, index,
                                   vocabulary, via_ids):
            counts[check.status] = counts.get(check.status, 0) + 1
            kind = check.status if check.status != "aligned" else (
                "aligned_multi_token" if check.tokens > 1 else "")
            multi_token += check.status == "aligned" and check.tokens > 1
            if kind and len(examples.setdefault(kind, [])) < examples_per_status:
                examples[kind].append(asdict(check))
    total = sum(counts.values())
    return {"captions": n_captions, "mentions": total, "counts": counts,
            "aligned": counts.get("aligned", 0), "aligned_multi_token": multi_token,
            "explained_skips": sum(counts.get(s, 0) for s in EXPLAINED),
            "unexplained": sum(counts.get(s, 0) for s in UNEXPLAINED),
            "prompt_length": prompt_length, "context": context, "via_ids": via_ids,
            "examples": examples}
