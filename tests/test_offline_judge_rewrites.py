"""The offline judge on the tuning half's captions, rewritten in other layouts and without articles.

Chat VLMs put the same description under a heading, as a markdown list, one sentence per line,
with curly quotes, and some pipelines drop the articles (HalluPrism's parser stores "image shows
dog on couch"). The tuning half's labelled captions are rewritten in each style, character offsets
mapped, and judged again: a layout style must not change a label; without articles, agreement
with the gold labels may drop only a little (a "the" that told a reference back is gone).
The check half is never read here.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from halluscope.text.mentions import extract_mentions
from halluscope.text.usage.offline import OfflineJudge
from test_offline_judge_checkset import caption_texts, labelled_rows

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[ ]+(?=[A-Z])")
_ARTICLE = re.compile(r"\b(?:[Aa]n?|[Tt]he) (?=\w)")
_IMAGE_OPENER = re.compile(r"\b(?:[Tt]he|[Tt]his) image (?:features|shows|depicts|captures)\b")


def _edits(text: str, style: str) -> list[tuple[int, int, str]]:
    """(start, end, replacement) edits of `text`, none inside a word.

    >>> _edits("A dog. A cat.", "bullets")
    [(0, 0, '- '), (6, 7, '\\n- ')]
    """
    breaks = list(_SENTENCE_BREAK.finditer(text))
    if style == "bullets":
        return [(0, 0, "- ")] + [(m.start(), m.end(), "\n- ") for m in breaks]
    if style == "numbered":
        return [(0, 0, "1. ")] + [(m.start(), m.end(), f"\n{k + 2}. ")
                                  for k, m in enumerate(breaks)]
    if style == "paragraphs":
        return [(m.start(), m.end(), "\n\n") for m in breaks]
    if style == "heading":
        return [(0, 0, "**Description:** ")]
    if style == "photo_opener":  # "The image shows" -> "This photograph shows"
        return [(m.start(), m.end(), "This photograph shows") for m in _IMAGE_OPENER.finditer(text)]
    if style == "chat_preamble":
        return [(0, 0, "Sure! Here is a detailed description of the image:\n\n")]
    if style == "curly_quotes":
        quotes = [i for i, ch in enumerate(text) if ch == '"']
        return [(i, i + 1, "“" if k % 2 == 0 else "”") for k, i in enumerate(quotes)] + [
            (i, i + 1, "’") for i, ch in enumerate(text)
            if ch == "'" and 0 < i < len(text) - 1 and text[i - 1].isalpha()]
    if style == "no_articles":
        return [(m.start(), m.end(), "") for m in _ARTICLE.finditer(text)]
    raise ValueError(f"unknown style {style!r}")


def _rewrite(text: str, edits: list[tuple[int, int, str]]) -> tuple[str, list[int]]:
    """The edited text and, for every old character offset, its new offset.

    >>> _rewrite("A dog. A cat.", [(0, 0, "- "), (6, 7, "\\n- ")])
    ('- A dog.\\n- A cat.', [2, 3, 4, 5, 6, 7, 11, 11, 12, 13, 14, 15, 16, 17])
    """
    pieces, mapping, done, length = [], [0] * (len(text) + 1), 0, 0
    for start, end, replacement in sorted(edits):
        for i in range(done, start):
            mapping[i] = length + i - done
        pieces += [text[done:start], replacement]
        length += start - done + len(replacement)
        for i in range(start, end):
            mapping[i] = length
        done = end
    for i in range(done, len(text) + 1):
        mapping[i] = length + i - done
    pieces.append(text[done:])
    return "".join(pieces), mapping


@pytest.fixture(scope="module")
def tuning_captions(shared_data):
    """Every fourth tuning-half caption, its scored gold rows (about 4,000), the judge and its
    labels of the captions as written."""
    rows = [r for r in labelled_rows() if r["split"] == "tune" and r["usage"] != "ambiguous"]
    texts = caption_texts(shared_data, rows)
    keys = sorted(texts)[::4]
    chosen = set(keys)
    rows = [r for r in rows if (r["source"], r["line"], r["variant"]) in chosen]
    judge = OfflineJudge()
    return keys, texts, rows, judge, _labels(judge, keys, texts, rows)


def _labels(judge, keys, texts, rows, style=None):
    """{row id: label} with each caption rewritten in `style` (None: as written)."""
    rewritten, mappings = {}, {}
    for key in keys:
        if style is None:
            rewritten[key], mappings[key] = texts[key], list(range(len(texts[key]) + 1))
        else:
            rewritten[key], mappings[key] = _rewrite(texts[key], _edits(texts[key], style))
    mentions = [extract_mentions(rewritten[k]) for k in keys]
    labels = judge.label([rewritten[k] for k in keys], mentions)
    by_start = {(k, m.start): label
                for k, ms, ls in zip(keys, mentions, labels) for m, label in zip(ms, ls)}
    out = {}
    for row in rows:
        key = (row["source"], row["line"], row["variant"])
        out[row["id"]] = by_start[(key, mappings[key][row["start"]])]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("style", ["bullets", "numbered", "paragraphs", "heading",
                                   "chat_preamble", "photo_opener", "curly_quotes"])
def test_layout_styles_leave_every_label_alone(shared_data, tuning_captions, style):
    keys, texts, rows, judge, before = tuning_captions
    after = _labels(judge, keys, texts, rows, style)
    changed = [(row["id"], before[row["id"]], after[row["id"]]) for row in rows
               if (before[row["id"]].usage, before[row["id"]].subtype)
               != (after[row["id"]].usage, after[row["id"]].subtype)]
    print(f"{style}: {len(changed)} of {len(rows)} labels changed")
    # Measured on all 15,728 tuning-half mentions: none changes in any of these styles but the
    # chat preamble (2: its articles hide that the caption after it has none).
    assert len(changed) <= (len(rows) // 1000 if style == "chat_preamble" else 0), changed[:5]


@pytest.mark.slow
def test_captions_without_articles_keep_most_labels(shared_data, tuning_captions):
    keys, texts, rows, judge, before = tuning_captions
    after = _labels(judge, keys, texts, rows, "no_articles")
    agree = Counter()
    for row in rows:
        agree["as written"] += before[row["id"]].usage == row["usage"]
        agree["no articles"] += after[row["id"]].usage == row["usage"]
    print("usage agreement with the gold labels:", dict(agree), "of", len(rows))
    # Measured on all 15,728 tuning-half mentions: 99.1% as written, 98.6% without articles
    # (96.7% before article-less captions were read for references back).
    assert agree["no articles"] >= agree["as written"] - len(rows) * 0.01
