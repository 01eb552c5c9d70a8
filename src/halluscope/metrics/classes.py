"""NAME-Bench classes from usage and presence (§3.1 and Appendix C of the paper).

>>> namebench_class("existential", None, present=True)
'concrete'
>>> namebench_class("existential", None, present=False)
'hallucinated'
>>> namebench_class("non_assertive", "hedged", present=False)
'non_assertive'
>>> namebench_class("non_assertive", "hedged", present=False, hedges_as_claims=True)
'hallucinated'
>>> namebench_class("not_object", None, present=True) is None
True
"""

from __future__ import annotations

CLASSES: tuple[str, ...] = ("concrete", "hallucinated", "non_assertive")


def namebench_class(usage: str, subtype: str | None, present: bool,
                    hedges_as_claims: bool = False, excluded: bool = False) -> str | None:
    """The class of one mention, or None when NAME-Bench drops it.

    Existential mentions are concrete or hallucinated by presence; non-assertive mentions are
    non-assertive whatever the presence; ambiguous and not_object mentions, and mentions of
    excluded categories ("orange"), are dropped. `hedges_as_claims` is the paper's alternative
    convention (Appendix I): hedged mentions are judged like existential ones.
    """
    if excluded:
        return None
    if usage == "non_assertive" and hedges_as_claims and subtype == "hedged":
        usage = "existential"
    if usage == "existential":
        return "concrete" if present else "hallucinated"
    if usage == "non_assertive":
        return "non_assertive"
    return None


def with_class(row: dict, presence, hedges_as_claims: bool = False) -> dict:
    """`row` plus `present` (from `presence`) and `namebench_class` (None for judge failures).

    >>> from halluscope.data.presence import Presence
    >>> row = {"image_id": 1, "category": "dog", "usage": "existential", "subtype": None}
    >>> with_class(row, Presence({1: frozenset()}, "demo"))["namebench_class"]
    'hallucinated'
    """
    present = presence.is_present(row["image_id"], row["category"])
    cls = None
    if row.get("error") is None and row.get("usage") is not None:
        cls = namebench_class(row["usage"], row["subtype"], present, hedges_as_claims,
                              excluded=bool(row.get("excluded")))
    return {**row, "present": present, "namebench_class": cls}
