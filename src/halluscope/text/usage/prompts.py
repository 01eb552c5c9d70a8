"""NAME-Bench's three labelling prompts (Appendix C, Figures 2 and 3), and the JSON schemas of
their replies.

>>> messages = step1_messages([("A dog waits for the bus.", ["dog", "bus"])])
>>> [m["role"] for m in messages]
['system', 'user']
>>> messages[0]["content"]
'You are a precise linguistic analyst. Output ONLY valid JSON--no markdown, no text outside the JSON.'
>>> print(caption_block(0, "A dog waits.", ["dog"]))
--- Caption index 0 ---
Caption: "A dog waits."
Target concepts for this caption:
- "dog"

The wording is the paper's, verbatim; only the spaces that the paper's text extraction dropped
after punctuation are restored ("analyst. Output", "SEPARATE captions below. Each"), and "--"
is kept as written. Placeholders are filled with `str.replace`, never `str.format`, because the
prompts contain literal JSON braces and captions may contain anything.

One deviation, forced by labelling per mention where the paper lists concepts per caption: when a
caption mentions the same category more than once, each occurrence is listed as its own target
concept, named by category, occurrence number and surface word (see `target_concepts`). A
category mentioned once is listed by its bare name, exactly as in the paper.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

# Part of every cache key: bump it whenever a prompt, a schema or the concept naming changes, so
# that replies to an older wording are never reused.
PROMPT_VERSION = "namebench-appendix-c/1"

STEP1_SYSTEM = ("You are a precise linguistic analyst. Output ONLY valid JSON--no markdown, "
                "no text outside the JSON.")

STEP1_HEADER = """\
You will analyze {N} SEPARATE captions below. Each has its own caption index and its own list of \
target concepts--treat each one completely independently; do not let one caption's content \
influence another's classification.

For EACH target concept in EACH caption, analyze how that concept is used in ITS OWN caption.

For each concept:

STEP 1--Mention check: does the caption actually refer to this concept (including synonyms)? If \
not, concept_mentioned=false.

STEP 2--If mentioned, classify the mention TYPE (based on wording only, NOT on whether the object \
is really in any image):

EXISTENTIAL--the caption asserts this concept EXISTS as a physical object/entity in the depicted \
scene.
e.g. "a person is standing", "there are two cars parked", "a cat sits on the mat".

FUNCTIONAL--the concept appears ONLY in a functional, purposive, relational, or hypothetical \
role, WITHOUT asserting it is physically present in this scene.
e.g. "a bridge built for PEOPLE to cross" (people=purpose)
"a stool used for SITTING" (no person asserted)
"a road where CARS usually drive" (no specific car asserted)
"a rack designed to hold BOTTLES" (no bottle asserted)
"large enough to fit a TRUCK" (hypothetical capacity)
"no PEOPLE are visible" (asserted absence)

AMBIGUOUS--genuinely unclear, or used both ways.

Captions to analyze:
"""

STEP1_CAPTION = """\
--- Caption index {index} ---
Caption: "{caption}"
Target concepts for this caption:
"""

STEP1_FOOTER = """\
Return ONLY this JSON object, with one entry in "captions" per caption index above (do not skip \
any index, even if a concept is not mentioned):
{
  "captions": [
    {
      "index": <caption index integer>,
      "results": [
        {
          "concept": "<one of that caption's target concepts>",
          "concept_mentioned": true|false,
          "trigger_phrase": "exact substring from caption, or null",
          "mention_type": "EXISTENTIAL"|"FUNCTIONAL"|"AMBIGUOUS"|null,
          "reasoning": "3-6 words max, e.g. 'purpose clause, no object asserted'",
          "confidence": "HIGH"|"MEDIUM"|"LOW"
        }
      ]
    }
  ]
}"""

STEP23_SYSTEM = "You are a precise linguistic annotator. Output ONLY valid JSON."

STEP2_USER = """\
Classify the linguistic mechanism by which the following object mention avoids asserting the \
object's existence in an image.

Full caption: "{caption}"
Trigger span: "{trigger_phrase}"
Concept word: {concept}

Categories:
- purpose: The object is mentioned as the intended user/beneficiary of a purpose clause (e.g. \
'a cup for holding toothbrushes', 'a bench for people to sit on'). The construction explains \
what an anchor object is FOR.
- intensional: The object appears inside a non-veridical/intensional context governed by a verb \
like want, wait for, hope, look for, expect (e.g. 'waiting for the train', 'looking for a \
taxi'). The mention does not entail the object's presence.
- hedging: The mention is marked with epistemic uncertainty (possibly, likely, maybe, seems, \
appears) about whether the object is present (e.g. 'possibly a bird', 'what appears to be a \
dog').
- depictive: The object is mentioned as depicted content (a sign, picture, logo, text, or \
symbol) rather than a real physical instance (e.g. 'a sign that says no dogs', 'a picture of a \
cat').
- generic: The object is referred to as a kind or in a generic/habitual statement rather than a \
specific instance in the scene (e.g. 'a road where cars usually drive', 'a place popular with \
tourists', 'no people are visible').

If the span could fit multiple categories, pick the SINGLE best/primary one. If none fit well, \
use "other".

Output JSON: {"subtype": "purpose|intensional|hedging|depictive|generic|other", "confidence": \
"high|medium|low", "reason": "one short phrase"}"""

STEP3_USER = """\
In the phrase below, a word or phrase matching the concept "{concept}" was matched. Determine \
whether this match is actually part of a LARGER compound expression whose overall meaning is \
different from "{concept}" alone (e.g., "hot dog" means a food item, not "dog"; "toilet bowl" \
means a fixture, not a "bowl"; "orange juice" is a drink, not the fruit "orange").

Phrase: "{trigger_phrase}"
Matched concept: {concept}

If the match is part of such a compound (the combined phrase has a distinct, different meaning \
from the bare concept), identify the FULL compound expression.

If the match is NOT part of a compound (concept is used in its ordinary/standalone sense, \
possibly with an ordinary adjective like "large orange cat" where orange is a colour, or "red \
car"), say so.

Output JSON: {"is_compound": true/false, "compound_phrase": "the full compound or null", \
"compound_meaning": "brief gloss of what the compound refers to, or null"}"""

MECHANISMS: tuple[str, ...] = ("purpose", "intensional", "hedging", "depictive", "generic",
                               "other")
MENTION_TYPES: tuple[str, ...] = ("EXISTENTIAL", "FUNCTIONAL", "AMBIGUOUS")

# The schemas of the JSON each prompt asks for. Only what the labels depend on is required;
# the rest (confidence, glosses) is checked for type when present, because models drop it often
# and a retry for a missing "confidence" would only cost money.
_NULLABLE_STRING = {"type": ["string", "null"]}

STEP1_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["captions"],
    "properties": {"captions": {"type": "array", "items": {
        "type": "object",
        "required": ["index", "results"],
        "properties": {
            "index": {"type": "integer"},
            "results": {"type": "array", "items": {
                "type": "object",
                "required": ["concept", "concept_mentioned"],
                "properties": {
                    "concept": {"type": "string"},
                    "concept_mentioned": {"type": "boolean"},
                    "trigger_phrase": _NULLABLE_STRING,
                    "mention_type": {"enum": [*MENTION_TYPES, None]},
                    "reasoning": _NULLABLE_STRING,
                    "confidence": _NULLABLE_STRING,
                },
                # A mentioned concept must say how it is used.
                "if": {"properties": {"concept_mentioned": {"const": True}}},
                "then": {"required": ["mention_type"],
                         "properties": {"mention_type": {"enum": list(MENTION_TYPES)}}},
            }},
        },
    }}},
}

STEP2_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["subtype"],
    "properties": {
        "subtype": {"enum": list(MECHANISMS)},
        "confidence": _NULLABLE_STRING,
        "reason": _NULLABLE_STRING,
    },
}

STEP3_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["is_compound"],
    "properties": {
        "is_compound": {"type": "boolean"},
        "compound_phrase": _NULLABLE_STRING,
        "compound_meaning": _NULLABLE_STRING,
    },
}


_PLACEHOLDER = re.compile(r"\{(N|index|caption|concept|trigger_phrase)\}")


def _fill(template: str, **values: str) -> str:
    """Fill the named placeholders in one pass, so a caption that happens to contain
    "{concept}" is inserted as written rather than filled in turn.

    >>> _fill('Caption: "{caption}" ({concept})', caption="{concept}", concept="dog")
    'Caption: "{concept}" (dog)'
    """
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def target_concepts(categories: Sequence[str], words: Sequence[str]) -> list[str]:
    """The step-1 target concept of each mention of one caption, in mention order.

    >>> target_concepts(["dog", "cat", "dog"], ["dogs", "cat", "puppy"])
    ["dog (occurrence 1 of 2, word 'dogs')", 'cat', "dog (occurrence 2 of 2, word 'puppy')"]

    A category mentioned once keeps its bare name (the paper's form); repeated categories get one
    entry per occurrence so that every mention receives its own verdict. Single quotes around the
    word keep the entry inside the prompt's double-quoted `- "{concept}"` line and free of JSON
    escapes when the model copies it back.
    """
    totals: dict[str, int] = {}
    for category in categories:
        totals[category] = totals.get(category, 0) + 1
    seen: dict[str, int] = {}
    names = []
    for category, word in zip(categories, words):
        if totals[category] == 1:
            names.append(category)
            continue
        seen[category] = seen.get(category, 0) + 1
        word = word.replace("'", "’")  # keep the quoting unambiguous
        names.append(f"{category} (occurrence {seen[category]} of {totals[category]}, "
                     f"word '{word}')")
    return names


def caption_block(index: int, caption: str, concepts: Sequence[str]) -> str:
    """One caption's block of the step-1 prompt (the `--- Caption index 0 ---` part)."""
    head = _fill(STEP1_CAPTION, index=str(index), caption=caption)
    return head + "".join(f'- "{concept}"\n' for concept in concepts).rstrip("\n")


def step1_messages(items: Sequence[tuple[str, Sequence[str]]]) -> list[dict[str, str]]:
    """The step-1 request for `(caption, target concepts)` items, indexed 0.. in order.

    >>> user = step1_messages([("a cat", ["cat"]), ("a dog", ["dog"])])[1]["content"]
    >>> user.startswith("You will analyze 2 SEPARATE captions below. Each has its own")
    True
    >>> "--- Caption index 1 ---" in user
    True
    """
    blocks = "\n\n".join(caption_block(i, caption, concepts)
                         for i, (caption, concepts) in enumerate(items))
    user = _fill(STEP1_HEADER, N=str(len(items))) + "\n" + blocks + "\n\n" + STEP1_FOOTER
    return [{"role": "system", "content": STEP1_SYSTEM}, {"role": "user", "content": user}]


def step2_messages(caption: str, trigger_phrase: str, concept: str) -> list[dict[str, str]]:
    """The step-2 (mechanism) request for one non-assertive mention.

    >>> user = step2_messages("a bench for people", "for people", "person")[1]["content"]
    >>> print(user.split("\\n\\n")[1])
    Full caption: "a bench for people"
    Trigger span: "for people"
    Concept word: person
    """
    user = _fill(STEP2_USER, caption=caption, trigger_phrase=trigger_phrase, concept=concept)
    return [{"role": "system", "content": STEP23_SYSTEM}, {"role": "user", "content": user}]


def step3_messages(trigger_phrase: str, concept: str) -> list[dict[str, str]]:
    """The step-3 (compound) request for one non-assertive mention.

    >>> step3_messages("a toilet bowl", "bowl")[1]["content"].split("\\n")[2]
    'Phrase: "a toilet bowl"'
    """
    user = _fill(STEP3_USER, trigger_phrase=trigger_phrase, concept=concept)
    return [{"role": "system", "content": STEP23_SYSTEM}, {"role": "user", "content": user}]
