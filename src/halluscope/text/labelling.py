"""Label every mention of every caption with a usage judge: one row per mention.

>>> from halluscope.data.captions import CaptionRecord
>>> class Always:
...     name = "always"
...     def label(self, captions, mentions):
...         return [[UsageLabel("existential", None, None, "always") for _ in ms] for ms in mentions]
>>> rows = label_mentions([CaptionRecord(0, 1, 7, "A dog and a cat.")], Always())
>>> [(r["word"], r["usage"]) for r in rows]
[('dog', 'existential'), ('cat', 'existential')]

A judge failure becomes a row with `usage=None` and the error in `error`: recorded and counted,
never turned into a label.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from halluscope.data.captions import CaptionRecord
from halluscope.text.mentions import Mention, MentionExtractor
from halluscope.text.usage.base import JudgeFailure, UsageJudge, UsageLabel
from halluscope.vocab import Vocabulary

MENTION_COLUMNS: tuple[str, ...] = (
    "caption_index", "image_id", "mention_index", "start", "end", "word", "category",
    "sentence_index", "word_index", "relative_position", "excluded", "usage", "subtype", "trigger",
    "judge", "reason", "error")


def label_mentions(records: Sequence[CaptionRecord], judge: UsageJudge,
                   vocabulary: Vocabulary | None = None, chunk_size: int = 256,
                   progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Extract mentions and label them, `chunk_size` captions per judge call.

    Results do not depend on `chunk_size`: judges label each caption independently.
    """
    extractor = MentionExtractor(vocabulary or Vocabulary.namebench())
    rows: list[dict[str, Any]] = []
    for offset in range(0, len(records), chunk_size):
        chunk = records[offset:offset + chunk_size]
        mentions = [extractor(r.caption) for r in chunk]
        labels = judge.label([r.caption for r in chunk], mentions)
        if len(labels) != len(chunk) or any(len(a) != len(b) for a, b in zip(labels, mentions)):
            raise RuntimeError(f"judge {judge.name!r} returned labels that do not match its input")
        for record, caption_mentions, caption_labels in zip(chunk, mentions, labels):
            for index, (mention, label) in enumerate(zip(caption_mentions, caption_labels)):
                rows.append(mention_row(record, index, mention, label))
        if progress is not None:
            progress(len(chunk))
    return rows


def mention_row(record: CaptionRecord, index: int, mention: Mention,
                label: UsageLabel | JudgeFailure) -> dict[str, Any]:
    row: dict[str, Any] = {"caption_index": record.index, "image_id": record.image_id,
                           "mention_index": index, **mention.to_dict()}
    if isinstance(label, UsageLabel):
        row.update(usage=label.usage, subtype=label.subtype, trigger=label.trigger,
                   judge=label.judge, reason=label.reason, error=None)
    else:
        row.update(usage=None, subtype=None, trigger=None, judge=label.judge, reason=None,
                   error=label.error)
    return {column: row[column] for column in MENTION_COLUMNS}
