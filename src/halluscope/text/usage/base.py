"""The judge interface every usage labeller implements, and the registry that builds them by name.

>>> label = UsageLabel(usage="non_assertive", subtype="hedged", trigger="possibly a cat",
...                    judge="offline")
>>> label.usage in USAGES and label.subtype in SUBTYPES
True

A judge reads captions with their mentions and returns, per caption and per mention, either a
`UsageLabel` or a `JudgeFailure`. Failures are recorded and counted by the caller; they are never
turned into labels.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol, Sequence, runtime_checkable

from halluscope.registry import Registry
from halluscope.text.mentions import Mention

USAGES: tuple[str, ...] = ("existential", "non_assertive", "ambiguous", "not_object")
SUBTYPES: tuple[str, ...] = ("hedged", "depictive", "purpose", "negation", "generic")


@dataclass(frozen=True)
class UsageLabel:
    """How a caption uses one mention. `subtype` is set iff usage is non_assertive; `trigger` is an
    exact substring of the caption (the words that make the mention non-assertive, or the mention
    itself), or None when the judge gives none."""

    usage: str
    subtype: str | None
    trigger: str | None
    judge: str
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.usage not in USAGES:
            raise ValueError(f"unknown usage {self.usage!r}")
        if (self.usage == "non_assertive") != (self.subtype is not None):
            raise ValueError("subtype must be set exactly for non_assertive mentions")
        if self.subtype is not None and self.subtype not in SUBTYPES:
            raise ValueError(f"unknown subtype {self.subtype!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class JudgeFailure:
    """A mention the judge could not label, and why (kept in outputs, never made into a label)."""

    judge: str
    error: str


@runtime_checkable
class UsageJudge(Protocol):
    """Labels the mentions of many captions at once (judges batch internally as they see fit)."""

    name: str

    def label(self, captions: Sequence[str], mentions: Sequence[Sequence[Mention]]
              ) -> list[list[UsageLabel | JudgeFailure]]:
        """One list per caption, one entry per mention, in the order given."""
        ...


# Imported only when asked for, so `import halluscope` stays light. `reads`: what the judge
# labels from: the caption text, or the captioning model's signal store of the captions (so
# `halluscope report`, which has captions only, offers the first kind; `label` both).
JUDGES = Registry("judge")
JUDGES.add("offline", "halluscope.text.usage.offline:OfflineJudge", reads="captions")
JUDGES.add("llm", "halluscope.text.usage.llm:LLMJudge", reads="captions")
JUDGES.add("text_filter", "halluscope.text.usage.text_filter:TextFilterJudge", reads="signals")


def get_judge(name: str, **options: Any) -> UsageJudge:
    """Build the judge registered as `name` with its options."""
    return JUDGES.load(name)(**options)
