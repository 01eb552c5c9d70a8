"""Answer parsing and scoring that survive real model output.

>>> parse_closed("Yes, there is a dog."), parse_closed("**No**"), parse_closed("I think so.")
('yes', 'no', None)
>>> parse_closed("The dog stands on a surfboard in the sea.\\nTrue.", TRUE_FALSE)
'true'
>>> vqa_accuracy("Two", ["2", "2", "two", "3", "2", "2", "2", "2", "2", "2"])
1.0

Closed answer sets (yes/no, true/false): `parse_closed` reads the label a model gave, wherever
the prompt made it put it: first (base prompts: "Yes, there is a dog.") or last (the grounding
re-check and chain-of-thought prompts ask for a description first, so the label is on the last
line: "A dog on a board.\\nAnswer: **True**"). The reference code read only the first line and
mis-parsed such answers; here a description that never states a label is unparsed (None), and
an unparsed prediction is never correct.

Open answers (VizWiz): `normalize_open` applies the standard VQA normalisation (lowercase,
punctuation, number words to digits, articles, common contractions) and maps "unanswerable"
variants to one label; `vqa_accuracy` is min(#annotators agreeing / 3, 1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

YES_NO = ("yes", "no")
TRUE_FALSE = ("true", "false")
UNANSWERABLE = "unanswerable"

# Markdown emphasis, headings and code marks models wrap answers in ("**Yes**", "`True`").
_MARKUP = re.compile(r"[*_`#>]+")
# Explicit answer statements, e.g. "Answer: true", "the final answer is no", "answer - yes".
_ANSWER_IS = r"(?:final\s+)?answer\s*(?:is|:|-|=)?\s*"
# Sentence breaks; the last sentence that starts with a label is taken when the text does not.
_SENTENCE = re.compile(r"[\n.!?;]+")

# VizWiz/VQA answer normalisation tables (the official VQA evaluation's, abridged).
_NUMBERS = {"none": "0", "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4",
            "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10"}
_ARTICLES = {"a", "an", "the"}
_CONTRACTIONS = {"dont": "don't", "doesnt": "doesn't", "isnt": "isn't", "arent": "aren't",
                 "cant": "can't", "wont": "won't", "im": "i'm", "ive": "i've",
                 "thats": "that's", "whats": "what's", "youre": "you're"}
_UNANSWERABLE = re.compile(
    r"^(?:unanswerable|not answerable|unsuitable(?: image)?|unanswerable question|"
    r"(?:the )?question (?:is )?(?:cannot|can ?not|can't) be answered.*|"
    r"(?:i )?(?:cannot|can ?not|can't|am unable to|unable to) (?:answer|tell|determine|see).*|"
    r"(?:the )?image is (?:too )?(?:unclear|blurry).*|not enough information.*)$")
# Punctuation becomes a space, except a decimal point ("2.99" stays one number, as in the
# official VQA normalisation's period rule).
_PUNCT = re.compile(r"(?!(?<=\d)\.(?=\d))[^\w\s']")


def _clean(text: str) -> str:
    return " ".join(_MARKUP.sub(" ", text).lower().split())


def _lines(text: str) -> list[str]:
    return [ln for ln in (_clean(raw) for raw in text.splitlines()) if ln]


def _leading(text: str, labels: Sequence[str]) -> str | None:
    """The label a piece of text starts with ("yes, it is" -> "yes"), else None."""
    m = re.match(r"^[\s\"'(\[]*(" + "|".join(map(re.escape, labels)) + r")\b", text)
    return m.group(1) if m else None


def parse_closed(text: str | None, labels: Sequence[str] = YES_NO) -> str | None:
    """The closed-set label a response gives, or None when it gives none (unparsed).

    >>> parse_closed("True."), parse_closed("True.", TRUE_FALSE), parse_closed("  'No' ")
    (None, 'true', 'no')
    >>> parse_closed("I see a cat on a mat. Answer: **yes**")
    'yes'
    >>> parse_closed("There is a red car.\\n\\nThe statement is false.", TRUE_FALSE)
    'false'
    >>> parse_closed(""), parse_closed(None), parse_closed("yesterday it rained")
    (None, None, None)

    Order: (1) the response starts with a label (base prompts); (2) the last explicit
    "answer is/:" statement; (3) the last line or sentence that starts with a label; (4) the
    last line ends with a label ("The statement is false."). A label word inside a
    description ("there is no dog in it") is not read as the answer.
    """
    if not text:
        return None
    lines = _lines(text)
    if not lines:
        return None
    alt = "|".join(map(re.escape, labels))
    first = _leading(lines[0], labels)
    if first:
        return first
    flat = " ".join(lines)
    stated = re.findall(_ANSWER_IS + r"[\"'(\[]*(" + alt + r")\b", flat)
    if stated:
        return stated[-1]
    for line in reversed(lines):
        for sentence in reversed([s for s in _SENTENCE.split(line) if s.strip()]):
            found = _leading(sentence.strip(), labels)
            if found:
                return found
    ending = re.search(r"\b(" + alt + r")[\s\W]*$", lines[-1])
    return ending.group(1) if ending else None


def normalize_open(text: str | None) -> str:
    """VQA-style normalisation of a short open answer; '' when nothing usable was said.

    >>> normalize_open("Two dogs."), normalize_open("**The** Coca-Cola can"), normalize_open("None")
    ('2 dogs', 'coca cola can', '0')
    >>> normalize_open("Unanswerable."), normalize_open("I cannot tell from this image."), normalize_open("")
    ('unanswerable', 'unanswerable', '')
    >>> normalize_open("$2.99."), normalize_open("Version 2. Red")
    ('2.99', 'version 2 red')

    A multi-line response (grounding/CoT prompts) is read from its last line, with an
    "Answer:" prefix dropped.
    """
    if not text:
        return ""
    lines = _lines(text)
    if not lines:
        return ""
    last = re.sub(r"^" + _ANSWER_IS, "", lines[-1]) if len(lines) > 1 or \
        re.match(_ANSWER_IS, lines[-1]) else lines[-1]
    words = []
    for word in _PUNCT.sub(" ", last.replace("-", " ")).split():
        word = _CONTRACTIONS.get(word, word)
        word = _NUMBERS.get(word, word)
        if word not in _ARTICLES:
            words.append(word)
    out = " ".join(words).strip("'").strip()
    if _UNANSWERABLE.match(out) or _UNANSWERABLE.match(" ".join(last.split()).rstrip(".")):
        return UNANSWERABLE
    return out


def vqa_accuracy(prediction: str | None, answers: Sequence[str], exact: bool = False) -> float:
    """VizWiz/VQA accuracy min(#matching annotator answers / 3, 1); `exact`: 1.0 or 0.0 against
    the majority answer.

    >>> vqa_accuracy("red", ["red", "red", "dark red"] + ["maroon"] * 7)
    0.6666666666666666
    >>> vqa_accuracy("", ["unanswerable"] * 10), vqa_accuracy("unanswerable", ["unanswerable"] * 10)
    (0.0, 1.0)
    >>> vqa_accuracy("red", ["red"] + ["blue"] * 9, exact=True)
    0.0

    The official evaluation averages this over the ten leave-one-annotator-out subsets; the
    simple form is what the HalluPrism brief specifies and differs by at most 1/30 of a point
    per item. An empty prediction scores 0 even when annotators left blanks.
    """
    pred = normalize_open(prediction)
    if not pred or not answers:
        return 0.0
    gold = [normalize_open(a) for a in answers]
    if exact:
        return 1.0 if pred == majority_answer(answers) else 0.0
    return min(sum(1 for g in gold if g == pred) / 3.0, 1.0)


def majority_answer(answers: Sequence[str]) -> str:
    """The most frequent normalised answer (ties: the first seen).

    >>> majority_answer(["Two", "2", "three"])
    '2'
    """
    counts: dict[str, int] = {}
    for a in answers:
        n = normalize_open(a)
        if n:
            counts[n] = counts.get(n, 0) + 1
    return max(counts, key=lambda k: counts[k]) if counts else ""


@dataclass(frozen=True)
class Scored:
    """One prediction judged against its item: the parsed label, correctness, accuracy.

    >>> Scored("", False, False, 0.0).parsed
    False
    """

    prediction: str
    parsed: bool
    correct: bool
    accuracy: float


def labels_for(answer_type: str) -> tuple[str, str]:
    """The closed label set of an answer type.

    >>> labels_for("truefalse")
    ('true', 'false')
    """
    if answer_type == "yesno":
        return YES_NO
    if answer_type == "truefalse":
        return TRUE_FALSE
    raise ValueError(f"answer type {answer_type!r} has no closed label set")


def parse_answer(text: str | None, answer_type: str) -> str:
    """The normalised answer for comparisons: a closed label, an open answer, or '' (unparsed).

    >>> parse_answer("**False**", "truefalse"), parse_answer("Two.", "open"), parse_answer("hmm", "yesno")
    ('false', '2', '')
    """
    if answer_type == "open":
        return normalize_open(text)
    return parse_closed(text, labels_for(answer_type)) or ""


def score(text: str | None, answer_type: str, gold: str,
          answers: Sequence[str] = (), exact: bool = False) -> Scored:
    """Parse and judge one response; unparsed responses are never correct.

    >>> score("Yes, there is.", "yesno", "yes")
    Scored(prediction='yes', parsed=True, correct=True, accuracy=1.0)
    >>> score("Let me look.", "yesno", "yes").correct
    False
    >>> score("2", "open", "2", ["2", "2", "3"] + ["4"] * 7).accuracy
    0.6666666666666666

    An open answer counts as correct when its VQA accuracy is 1 (three or more annotators
    agree); the fractional `accuracy` is kept for the VQA mean. Without annotator answers the
    single gold answer is matched exactly.
    """
    pred = parse_answer(text, answer_type)
    if not pred:
        return Scored("", False, False, 0.0)
    if answer_type == "open":
        acc = (vqa_accuracy(pred, answers, exact) if answers
               else float(pred == normalize_open(gold)))
        return Scored(pred, True, acc >= 1.0, acc)
    ok = pred == gold.strip().lower()
    return Scored(pred, True, ok, 1.0 if ok else 0.0)


# An answer that commits to neither label but says the model is unsure. Checked only when the
# parser found no label, so "Yes, possibly a dog" stays a yes.
_HEDGE = re.compile(
    r"\b(?:might|may|maybe|perhaps|possibly|possible|probably|likely|unlikely|could|"
    r"appears?|seems?|unsure|uncertain|unclear|not (?:sure|certain|clear)|"
    r"(?:cannot|can ?not|can't|unable to) (?:be )?(?:sure|certain|tell|determine|say|confirm|"
    r"answer|see)|hard to (?:tell|say)|difficult to (?:tell|say|determine))\b")
YES_NO_CLASSES = ("yes", "no", "hedged", "unparsed")


def classify_yes_no(text: str | None) -> str:
    """`yes`, `no`, `hedged` (no label, but the model says it is unsure) or `unparsed`.

    >>> [classify_yes_no(t) for t in ["Yes", " yes", "YES.", "**No**", "no, there is not"]]
    ['yes', 'yes', 'yes', 'no', 'no']
    >>> [classify_yes_no(t) for t in ["There might be a dog.", "", "A dog on grass."]]
    ['hedged', 'unparsed', 'unparsed']

    POPE and HallusionBench count hedges apart instead of reading them as yes (POPE's common
    parser) or leaving them to an LLM judge (HallusionBench's reference).
    """
    label = parse_closed(text)
    if label is not None:
        return label
    if text and _HEDGE.search(" ".join(text.lower().split())):
        return "hedged"
    return "unparsed"
