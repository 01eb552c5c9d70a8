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
