"""NAME-Bench's deterministic rules (Appendix C, Table 9), shared by every judge.

>>> has_negation_cue("no dogs are visible"), has_negation_cue("a notebook")
(True, False)
>>> subtype_from_mechanism("generic", trigger="no people are visible")
'negation'
>>> subtype_from_mechanism("depictive", trigger="a sign that says no dogs")
'depictive'
"""

from __future__ import annotations

import re

# The paper's cue words; "n't" also matches the typographic apostrophe.
NEGATION_CUES: tuple[str, ...] = ("no", "not", "none", "without", "absent", "absence", "lack",
                                  "lacks", "lacking", "nor", "neither", "devoid", "n't")
_NEGATION = re.compile(r"\b(?:no|not|none|without|absent|absence|lack|lacks|lacking|nor|neither|"
                       r"devoid)\b|n['’]t\b", re.IGNORECASE)

# The step-2 prompt's five mechanisms (+ "other") mapped to NAME-Bench subtypes: purpose and
# intensional merge into purpose; generic stays generic unless a negation cue makes it negation.
MECHANISM_TO_SUBTYPE: dict[str, str] = {
    "purpose": "purpose",
    "intensional": "purpose",
    "hedging": "hedged",
    "depictive": "depictive",
    "generic": "generic",
    "other": "generic",
}


def has_negation_cue(text: str | None) -> bool:
    return bool(text) and _NEGATION.search(text) is not None


def subtype_from_mechanism(mechanism: str, trigger: str | None) -> str:
    """Table 9: a negation cue in the trigger overrides every mechanism except depictive."""
    subtype = MECHANISM_TO_SUBTYPE.get(mechanism.lower().strip(), "generic")
    if subtype != "depictive" and has_negation_cue(trigger):
        return "negation"
    return subtype
