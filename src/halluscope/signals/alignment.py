"""Map a mention's character span in the caption to token positions, through caption offsets.

>>> offsets = [(0, 1), (2, 5), (5, 7), (8, 11)]        # "A gir|affe ran": "A", "gir", "affe", "ran"
>>> a = align_span(offsets, 2, 7, prompt_length=10)    # the mention "giraffe" = [2, 7)
>>> a.caption_token, a.token_index, a.query_index, a.window
(1, 11, 10, (0, 1))

Conventions (also summarised in README.md, "The model runtime", the paragraph "Conventions"):
- object token: the FIRST caption token whose character span overlaps the mention (a word split
  into sub-tokens is represented by its first piece; a plural "dogs" by the piece that starts it);
- `token_index = prompt_length + j`, its index in the full input sequence;
- generation-time signals (attention, logits) are read at `query_index = token_index - 1`, the
  query that predicts the object token, as they would be during decoding;
- W4: the `window` (4) caption tokens ending at the object token, `j-3 .. j`. Near the start of
  the caption it holds fewer tokens (only caption tokens, never prompt tokens): a mention in the
  first word has a window of one token. `window_size` says how many.

Tokens are never searched by id (a word tokenizes differently with and without a leading space,
and repeated words would match the wrong occurrence): only character offsets are used. Offsets
are spans in the caption text with leading whitespace trimmed (`EncodedItem.caption_offsets`);
empty spans (special tokens such as EOS) overlap nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

WINDOW = 4


@dataclass(frozen=True)
class TokenAlignment:
    """Where one mention sits among the tokens of its (unpadded or padded) input row."""

    caption_token: int  # j: index of the object token among the caption tokens
    token_index: int  # prompt_length + j
    last_caption_token: int  # last sub-token overlapping the mention (j for one-piece words)
    window: tuple[int, ...]  # caption-token indices of W4, ascending, ending at j

    @property
    def query_index(self) -> int:
        """Position whose attention / logits generate the object token (`token_index - 1`)."""
        return self.token_index - 1

    @property
    def window_size(self) -> int:
        return len(self.window)

    def window_positions(self, prompt_length: int) -> list[int]:
        """Sequence positions of the W4 tokens.

        >>> TokenAlignment(2, 12, 2, (0, 1, 2)).window_positions(10)
        [10, 11, 12]
        """
        return [prompt_length + k for k in self.window]

    def window_queries(self, prompt_length: int) -> list[int]:
        """Positions that generate each W4 token (one earlier each).

        >>> TokenAlignment(0, 10, 0, (0,)).window_queries(10)
        [9]
        """
        return [prompt_length + k - 1 for k in self.window]


def overlapping_tokens(offsets: Sequence[tuple[int, int]], start: int, end: int) -> list[int]:
    """Indices of the tokens whose non-empty character span overlaps [start, end).

    >>> overlapping_tokens([(0, 3), (3, 3), (4, 7), (7, 8)], 4, 8)
    [2, 3]
    >>> overlapping_tokens([(0, 3)], 5, 9)
    []
    """
    return [k for k, (s, e) in enumerate(offsets) if e > s and s < end and e > start]


def align_span(offsets: Sequence[tuple[int, int]], start: int, end: int,
               prompt_length: int = 0, window: int = WINDOW) -> TokenAlignment | None:
    """The alignment of the character span [start, end), or None when no token covers it.

    None happens when the caption tokens do not reach the mention (a caption cut by the
    generation length, or a span outside the text).

    >>> align_span([(0, 3), (4, 7)], 0, 3, prompt_length=5)      # mention at the caption start
    TokenAlignment(caption_token=0, token_index=5, last_caption_token=0, window=(0,))
    >>> align_span([(0, 3), (4, 7)], 8, 12) is None
    True
    """
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    covering = overlapping_tokens(offsets, start, end)
    if not covering:
        return None
    j = covering[0]
    return TokenAlignment(caption_token=j, token_index=prompt_length + j,
                          last_caption_token=covering[-1],
                          window=tuple(range(max(0, j - window + 1), j + 1)))


def align_mentions(offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]],
                   prompt_length: int = 0, window: int = WINDOW) -> list[TokenAlignment | None]:
    """`align_span` for each (start, end) span; repeated words get their own occurrences.

    >>> offsets = [(0, 3), (4, 7), (8, 11), (12, 15)]           # "dog and cat dog"
    >>> [a.caption_token for a in align_mentions(offsets, [(0, 3), (12, 15)])]
    [0, 3]
    """
    return [align_span(offsets, s, e, prompt_length, window) for s, e in spans]
