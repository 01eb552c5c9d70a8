"""A noun singulariser that gives the same answers as `pattern.en.singularize` (pattern 3.6).

>>> [singularize(w) for w in ("dogs", "people", "knives", "mice", "buses", "skis")]
['dog', 'person', 'knife', 'mouse', 'bus', 'ski']

CHAIR runs every token through pattern's `singularize`, and its tables were written against those
outputs ("wine glas" is one of its double words because "glass" becomes "glas"). pattern itself
no longer installs on current Python, so this module re-implements its algorithm, quirks
included, because matching the reference figures means matching its mistakes too:

>>> [singularize(w) for w in ("has", "glass", "tennis", "ties", "bus", "'", "cookies")]
['ha', 'glas', 'tenni', 'ty', 'bu', "'s", 'cookies']

The decision order is pattern's: custom table, "x-in-y" compounds, a trailing apostrophe, words
that never inflect, "-ie" nouns, irregular plurals, then ordered suffix rules (first match wins).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Mapping

__all__ = ["singularize"]

# "mothers-in-law" -> "mother-in-law": only the head is singularised when the second part of a
# hyphenated word is one of these.
_COMPOUND_PREPOSITIONS = frozenset(
    "about above across after among around at athwart before behind below beneath beside "
    "besides between betwixt beyond but by during except for from in into near of off on onto "
    "out over since till to under until unto upon with".split()
)

# Nouns that are their own plural, and mass nouns. pattern tests `noun.endswith(token)`, the wrong
# way round, so every *suffix* of these words is also returned unchanged ("s", "is", "ears",
# "a"...); the set of suffixes below reproduces that.
_INVARIANT_NOUNS = (
    "bison bream breeches britches carp chassis christmas clippers cod contretemps corps debris "
    "diabetes djinn eland elk flounder gallows georgia graffiti headquarters herpes high-jinks "
    "homework innings jackanapes mackerel measles mews mumps news pincers pliers proceedings "
    "rabies salmon scissors series shears species swine swiss trout tuna whiting wildebeest "
    # uncountable
    "advice bread butter cheese electricity equipment fruit furniture garbage gravel happiness "
    "information ketchup knowledge love luggage mathematics mayonnaise meat mustard progress "
    "research rice sand software understanding water"
).split()
_UNCHANGED = frozenset(noun[i:] for noun in _INVARIANT_NOUNS for i in range(len(noun) + 1))

# "-ie" nouns, listed so that their plurals escape the "-ies" -> "-y" rule. pattern then returns
# the lower-cased word *unchanged* ("cookies" stays "cookies", not "cookie"). Two entries were
# written as regex anchors ("^pie", "^tie") but are compared with `endswith`, so they never match
# a real word: "pies" and "ties" fall through to the "-ies" -> "-y" rule ("py", "ty").
_IE_PLURALS = tuple(f"{noun}s" for noun in (
    "alergie auntie beanie birdie bogie bombie collie cookie cutie doggie eyrie freebie goonie "
    "groupie hankie hippie hoagie hottie indie junkie laddie laramie lingerie meanie newbie "
    "nightie oldie pixie quickie reverie rookie softie sortie stoolie sweetie techie toughie "
    "valkyrie veggie weenie yuppie zombie ^pie ^tie"
).split())

# Irregular plural -> singular, matched as a suffix of the lower-cased word ("women" -> "woman").
# No key is a suffix of another, so the order of this table does not matter.
_IRREGULAR: dict[str, str] = {
    "atlantes": "atlas", "atlases": "atlas", "axes": "axe", "beeves": "beef",
    "brethren": "brother", "children": "child", "corpora": "corpus", "corpuses": "corpus",
    "ephemerides": "ephemeris", "feet": "foot", "ganglia": "ganglion", "geese": "goose",
    "genera": "genus", "genii": "genie", "graffiti": "graffito", "helves": "helve",
    "kine": "cow", "leaves": "leaf", "loaves": "loaf", "men": "man", "mongooses": "mongoose",
    "monies": "money", "moves": "move", "mythoi": "mythos", "numena": "numen",
    "occipita": "occiput", "octopodes": "octopus", "opera": "opus", "opuses": "opus",
    "our": "my", "oxen": "ox", "penes": "penis", "penises": "penis", "people": "person",
    "sexes": "sex", "soliloquies": "soliloquy", "teeth": "tooth", "testes": "testis",
    "trilbys": "trilby", "turves": "turf", "zoa": "zoon",
}
# pattern substitutes with a case-insensitive "plural$" on the original word, keeping its prefix.
_IRREGULAR_RES = tuple((plural, re.compile(f"(?i){plural}$"), singular)
                       for plural, singular in _IRREGULAR.items())

# Ordered suffix rules: (regex, replacement); the first that matches is applied with `re.sub`.
# Only some carry (?i), exactly as in pattern; CHAIR lower-cases first, so that rarely matters.
_RULE_SOURCE: tuple[tuple[str, str], ...] = (
    (r"(?i)(.)ae$", r"\1a"),
    (r"(?i)(.)itis$", r"\1itis"),
    (r"(?i)(.)eaux$", r"\1eau"),
    (r"(?i)(quiz)zes$", r"\1"),
    (r"(?i)(matr)ices$", r"\1ix"),
    (r"(?i)(ap|vert|ind)ices$", r"\1ex"),
    (r"(?i)^(ox)en", r"\1"),                  # not anchored at the end: "oxenfoo" -> "oxfoo"
    (r"(?i)(alias|status)es$", r"\1"),
    (r"(?i)([octop|vir])i$", r"\1us"),        # a character class, so "-ti" -> "-tus" etc.
    (r"(?i)(cris|ax|test)es$", r"\1is"),
    (r"(?i)(shoe)s$", r"\1"),
    (r"(?i)(o)es$", r"\1"),
    (r"(?i)(bus)es$", r"\1"),
    (r"(?i)([m|l])ice$", r"\1ouse"),
    (r"(?i)(x|ch|ss|sh)es$", r"\1"),
    (r"(?i)(m)ovies$", r"\1ovie"),
    (r"(?i)(.)ombies$", r"\1ombie"),
    (r"(?i)(s)eries$", r"\1eries"),
    (r"(?i)([^aeiouy]|qu)ies$", r"\1y"),
    # -f / -fe words that take -ves (wolves, lives); case-sensitive in pattern.
    (r"([aeo]l)ves$", r"\1f"),
    (r"([^d]ea)ves$", r"\1f"),
    (r"arves$", "arf"),
    (r"erves$", "erve"),
    (r"([nlw]i)ves$", r"\1fe"),
    (r"(?i)([lr])ves$", r"\1f"),
    (r"([aeo])ves$", r"\1ve"),
    (r"(?i)(sive)s$", r"\1"),
    (r"(?i)(tive)s$", r"\1"),
    (r"(?i)(hive)s$", r"\1"),
    (r"(?i)([^f])ves$", r"\1fe"),
    # -ses: analyses, bases, theses, synopses, ...
    (r"(?i)(^analy)ses$", r"\1sis"),
    (r"(?i)((a)naly|(b)a|(d)iagno|(p)arenthe|(p)rogno|(s)ynop|(t)he)ses$", r"\1\2sis"),
    (r"(?i)(.)opses$", r"\1opsis"),
    (r"(?i)(.)yses$", r"\1ysis"),
    (r"(?i)(h|d|r|o|n|b|cl|p)oses$", r"\1ose"),
    (r"(?i)(fruct|gluc|galact|lact|ket|malt|rib|sacchar|cellul)ose$", r"\1ose"),
    (r"(?i)(.)oses$", r"\1osis"),
    # -a: data -> datum, criteria -> criterium
    (r"(?i)([ti])a$", r"\1um"),
    (r"(?i)(n)ews$", r"\1ews"),
    (r"(?i)s$", ""),
)
# Python 3's re.sub turns unmatched groups into "", which is what pattern did by hand.
_RULES = tuple((re.compile(rx), repl) for rx, repl in _RULE_SOURCE)


def singularize(word: str, custom: Mapping[str, str] | None = None) -> str:
    """Singular of `word` as `pattern.en.singularize(word)` returns it.

    >>> singularize("mothers-in-law"), singularize("dogs'"), singularize("Women")
    ('mother-in-law', "dog's", 'Woman')
    >>> singularize("geese", custom={"geese": "goose!"})
    'goose!'
    """
    if custom and word in custom:
        return custom[word]
    if custom:
        return _singularize_uncached(word, custom)
    return _singularize_cached(word)


@lru_cache(maxsize=65536)
def _singularize_cached(word: str) -> str:
    # Captions repeat the same few thousand tokens; caching makes CHAIR over 500 captions cheap.
    return _singularize_uncached(word, None)


def _singularize_uncached(word: str, custom: Mapping[str, str] | None) -> str:
    if "-" in word:
        parts = word.split("-")
        if len(parts) > 1 and parts[1] in _COMPOUND_PREPOSITIONS:
            return singularize(parts[0], custom) + "-" + "-".join(parts[1:])
    if word.endswith("'"):
        # pattern drops `custom` on this recursion; so do we.
        return singularize(word[:-1]) + "'s"
    lower = word.lower()
    if lower in _UNCHANGED:
        return word
    if lower.endswith(_IE_PLURALS):
        return lower  # lower-cased plural, not the singular: pattern's behaviour
    for plural, regex, singular in _IRREGULAR_RES:
        if lower.endswith(plural):
            return regex.sub(singular, word)
    for regex, replacement in _RULES:
        if regex.search(word):
            return regex.sub(replacement, word)
    return word
