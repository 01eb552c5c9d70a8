"""HalluPrism's four benchmarks from local files, as uniform items.

>>> import json, tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "coco_pope_random.json").write_text(json.dumps(
...     {"question_id": 1, "image": "a.jpg", "text": "Is there a dog in the image?", "label": "yes"}) + "\\n")
>>> ds = load_dataset("pope", d / "coco_pope_random.json", images_dir=d)
>>> ds.items[0].item_id, ds.items[0].answer, ds.n_missing_images
('pope_random_000001', 'yes', 1)

Every loader returns a `Dataset`: all items of the file (in file order), and the ids of those
whose image is not under `images_dir` (counted per dataset, never dropped silently: the probe
command writes them as skipped rows). Item fields: `item_id` (stable; the VSR ids are the
released rows' `sample_id`s), `dataset`, `image` (resolved path), `question` (the question, or
the VSR caption), `answer` (gold: yes/no, true/false, or the VizWiz majority answer),
`answer_type` (`yesno`, `truefalse`, `open`), `relation` (VSR), `failure_family_hint` (the
paper's Table 7 / 8 family of an incorrect prediction), and per-dataset extras (`answers` and
`answerable` for VizWiz, `split` for POPE, `category`/`subcategory` for HallusionBench).

Bad input raises an `InputError` naming `file:line` and the field.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from halluscope.errors import InputError
from halluscope.io.jsonl import read_jsonl

DATASETS = ("pope", "vsr", "hallusionbench", "vizwiz")
POPE_SPLITS = ("random", "popular", "adversarial")
#: `task_type` of the released rows per dataset (the reference wrote "spatial" for VSR, which
#: is why VSR rows carry no negation probe; results.py relies on this).
TASK_TYPES = {"pope": "yes_no", "hallusionbench": "yes_no", "vsr": "spatial",
              "vizwiz": "open_ended"}
#: `dataset_name` of the released rows.
DATASET_NAMES = {"pope": "POPE", "vsr": "VSR", "hallusionbench": "HallusionBench",
                 "vizwiz": "VizWiz"}


@dataclass(frozen=True)
class Item:
    """One benchmark question with its gold answer.

    >>> Item("vsr_dev_000000", "vsr", "img.jpg", "The dog is on the bed.", "true", "truefalse", "on").closed
    True
    """

    item_id: str
    dataset: str
    image: str
    question: str
    answer: str
    answer_type: str
    relation: str | None = None
    failure_family_hint: str | None = None
    answers: tuple[str, ...] = ()
    answerable: bool | None = None
    split: str | None = None
    category: str | None = None
    subcategory: str | None = None
    #: Replaces the dataset's base prompt: a template with one `{question}` field (the
    #: entanglement test's ruined inputs use it; `probes.item_prompt` fills it).
    prompt_template: str | None = None

    @property
    def closed(self) -> bool:
        return self.answer_type in ("yesno", "truefalse")

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["answers"] = list(self.answers)
        return d


@dataclass
class Dataset:
    """Items of one file plus what could not be used.

    >>> Dataset("vsr", "f.jsonl").present()
    []
    """

    name: str
    path: str
    items: list[Item] = field(default_factory=list)
    missing_images: list[str] = field(default_factory=list)
    n_excluded: int = 0  # rows outside the evaluated subset (HallusionBench text-only)

    @property
    def n_missing_images(self) -> int:
        return len(self.missing_images)

    def present(self) -> list[Item]:
        """Items whose image file exists."""
        missing = set(self.missing_images)
        return [it for it in self.items if it.item_id not in missing]

    def summary(self) -> dict[str, Any]:
        return {"dataset": self.name, "file": self.path, "n_items": len(self.items),
                "n_missing_images": self.n_missing_images, "n_excluded": self.n_excluded}


def _json_array(path: Path) -> list[Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc.msg})", path=path, line=exc.lineno) from None
    if not isinstance(data, list):
        raise InputError("expected a JSON array of questions", path=path)
    return data


def _field(obj: dict[str, Any], key: str, path: Path, line: int | None,
           kinds: tuple[type, ...] = (str,), item: str | None = None) -> Any:
    if key not in obj:
        raise InputError(f"missing field {key!r}", path=path, line=line, item=item)
    value = obj[key]
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise InputError(f"field {key!r} has the wrong type: {value!r}", path=path, line=line,
                         item=item)
    if isinstance(value, str) and not value.strip():
        raise InputError(f"field {key!r} is empty", path=path, line=line, item=item)
    return value


def _resolve(images_dir: Path | None, name: str) -> Path:
    rel = name[2:] if name.startswith("./") else name
    return (images_dir / rel) if images_dir is not None else Path(rel)


def _finish(ds: Dataset, images_dir: Path | None) -> Dataset:
    """Record items whose image file is absent (all of them when no images folder is given)."""
    ds.missing_images = [it.item_id for it in ds.items if not Path(it.image).is_file()]
    return ds


def load_pope(path: str | Path, images_dir: str | Path | None = None,
              split: str | None = None) -> Dataset:
    """POPE JSON lines (`question_id, image, text, label`); split from the file name.

    >>> # see the module example
    """
    p = Path(path)
    if split is None:
        split = next((s for s in POPE_SPLITS if s in p.stem), None)
        if split is None:
            raise InputError(f"cannot tell the POPE split from the file name; name it "
                             f"coco_pope_<{'|'.join(POPE_SPLITS)}>.json", path=p)
    img_dir = Path(images_dir) if images_dir is not None else None
    ds = Dataset("pope", str(p))
    seen: set[str] = set()
    for line, obj in read_jsonl(p):
        qid = _field(obj, "question_id", p, line, (int, str))
        label = _field(obj, "label", p, line).strip().lower()
        if label not in ("yes", "no"):
            raise InputError(f"field 'label' must be yes or no, got {obj['label']!r}",
                             path=p, line=line)
        item_id = f"pope_{split}_{int(qid):06d}" if str(qid).isdigit() else f"pope_{split}_{qid}"
        if item_id in seen:
            raise InputError(f"duplicate question_id {qid!r}", path=p, line=line)
        seen.add(item_id)
        ds.items.append(Item(item_id, "pope", str(_resolve(img_dir, _field(obj, "image", p, line))),
                             _field(obj, "text", p, line).strip(), label, "yesno",
                             failure_family_hint="object_hallucination", split=split))
    return _finish(ds, img_dir)


def load_vsr(path: str | Path, images_dir: str | Path | None = None) -> Dataset:
    """VSR JSON lines (`image, caption, label, relation`); ids `vsr_dev_<line index>` as released.

    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "zeroshot_dev.jsonl"
    >>> _ = p.write_text(json.dumps({"image": "1.jpg", "caption": "The cat is under the table.",
    ...                              "label": 0, "relation": "under"}) + "\\n")
    >>> it = load_vsr(p).items[0]; it.item_id, it.answer, it.relation
    ('vsr_dev_000000', 'false', 'under')
    """
    p = Path(path)
    img_dir = Path(images_dir) if images_dir is not None else None
    ds = Dataset("vsr", str(p))
    for index, (line, obj) in enumerate(read_jsonl(p)):
        label = _field(obj, "label", p, line, (int, bool, str))
        if str(label).lower() in ("1", "true"):
            answer = "true"
        elif str(label).lower() in ("0", "false"):
            answer = "false"
        else:
            raise InputError(f"field 'label' must be 0 or 1, got {label!r}", path=p, line=line)
        ds.items.append(Item(f"vsr_dev_{index:06d}", "vsr",
                             str(_resolve(img_dir, _field(obj, "image", p, line))),
                             _field(obj, "caption", p, line).strip(), answer, "truefalse",
                             relation=_field(obj, "relation", p, line).strip(),
                             failure_family_hint="spatial"))
    return _finish(ds, img_dir)


#: HallusionBench category -> failure family. Visual Supplement (VS) questions become
#: "attribute" and Visual Dependent (VD) "object_hallucination": on the image-paired subset this
#: gives exactly the paper's Table 8 counts (attribute 360, object hallucination 591).
HALLUSIONBENCH_FAMILIES = {"VS": "attribute", "VD": "object_hallucination"}


def load_hallusionbench(path: str | Path, images_dir: str | Path | None = None) -> Dataset:
    """HallusionBench JSON array; only image-paired questions (`visual_input` != "0") are items.

    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "HallusionBench.json"
    >>> q = {"category": "VD", "subcategory": "illusion", "visual_input": "1", "question": "Is it?",
    ...      "gt_answer": "1", "filename": "./VD/illusion/0_0.png"}
    >>> _ = p.write_text(json.dumps([q, dict(q, visual_input="0", filename=None)]))
    >>> ds = load_hallusionbench(p); ds.items[0].item_id, ds.items[0].answer, ds.n_excluded
    ('hallusionbench_00000', 'yes', 1)

    Ids are `hallusionbench_<index in the file>` (the reference's numbering); the 178
    text-only questions are excluded (counted in `n_excluded`), as in the paper.
    """
    p = Path(path)
    img_dir = Path(images_dir) if images_dir is not None else None
    ds = Dataset("hallusionbench", str(p))
    for index, obj in enumerate(_json_array(p)):
        where = f"question {index}"
        if not isinstance(obj, dict):
            raise InputError("expected a JSON object", path=p, item=where)
        if str(obj.get("visual_input", "")) == "0":
            ds.n_excluded += 1
            continue
        gt = str(_field(obj, "gt_answer", p, None, (str, int), item=where)).strip()
        if gt not in ("0", "1"):
            raise InputError(f"field 'gt_answer' must be '0' or '1', got {gt!r}", path=p,
                             item=where)
        category = _field(obj, "category", p, None, item=where)
        ds.items.append(Item(
            f"hallusionbench_{index:05d}", "hallusionbench",
            str(_resolve(img_dir, _field(obj, "filename", p, None, item=where))),
            _field(obj, "question", p, None, item=where).strip(), "yes" if gt == "1" else "no",
            "yesno", failure_family_hint=HALLUSIONBENCH_FAMILIES.get(category,
                                                                     "object_hallucination"),
            category=category, subcategory=obj.get("subcategory")))
    return _finish(ds, img_dir)


def load_vizwiz(path: str | Path, images_dir: str | Path | None = None) -> Dataset:
    """VizWiz-VQA annotations (`image, question, answers[10], answerable`); gold = majority answer.

    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "val.json"
    >>> q = {"image": "VizWiz_val_00000001.jpg", "question": "What is this?", "answerable": 1,
    ...      "answers": [{"answer": "Soup"}] * 6 + [{"answer": "can"}] * 4}
    >>> it = load_vizwiz(p.write_text(json.dumps([q])) and p).items[0]
    >>> it.item_id, it.answer, len(it.answers), it.answerable
    ('vizwiz_val_00000001', 'soup', 10, True)
    """
    from halluscope.prism.answers import majority_answer

    p = Path(path)
    img_dir = Path(images_dir) if images_dir is not None else None
    ds = Dataset("vizwiz", str(p))
    seen: set[str] = set()
    for index, obj in enumerate(_json_array(p)):
        where = f"question {index}"
        if not isinstance(obj, dict):
            raise InputError("expected a JSON object", path=p, item=where)
        image = _field(obj, "image", p, None, item=where)
        answers = _vizwiz_answers(_field(obj, "answers", p, None, (list,), item=where), p, where)
        gold = majority_answer(answers)
        if not gold:
            raise InputError("no annotator gave a non-empty answer", path=p, item=where)
        item_id = Path(image).stem.lower()
        if item_id in seen:
            raise InputError(f"duplicate image {image!r}", path=p, item=where)
        seen.add(item_id)
        ds.items.append(Item(
            item_id, "vizwiz", str(_resolve(img_dir, image)),
            _field(obj, "question", p, None, item=where).strip(), gold,
            "open", failure_family_hint="answerability", answers=answers,
            answerable=_answerable(obj, p, where)))
    return _finish(ds, img_dir)


def _vizwiz_answers(raw: list[Any], path: Path, where: str) -> tuple[str, ...]:
    """The annotators' answer strings: `{"answer": str, ...}` objects (official) or strings.

    >>> _vizwiz_answers([{"answer": "Soup", "answer_confidence": "yes"}, "can"], Path("v.json"), "q")
    ('Soup', 'can')

    A null or missing answer is an error, never a string: str(None) would normalise to "none",
    which VQA normalisation turns into the answer "0".
    """
    if not raw:
        raise InputError("field 'answers' is empty", path=path, item=where)
    out = []
    for k, entry in enumerate(raw):
        value = entry.get("answer") if isinstance(entry, dict) else entry
        if not isinstance(value, str):
            raise InputError(f"answer {k} must be a string or an object with a string "
                             f"'answer', got {entry!r}", path=path, item=where)
        out.append(value)
    return tuple(out)


def _answerable(obj: dict[str, Any], path: Path, where: str) -> bool | None:
    """The `answerable` flag (0/1, as in the official files); None when the file has none.

    >>> _answerable({"answerable": 0}, Path("v.json"), "q"), _answerable({}, Path("v.json"), "q")
    (False, None)
    """
    value = obj.get("answerable")
    if value is None:
        return None
    # bool("0") is True: only the official 0/1 (or true/false; bool is an int) are read.
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise InputError(f"field 'answerable' must be 0 or 1, got {value!r}", path=path, item=where)


LOADERS: dict[str, Callable[..., Dataset]] = {
    "pope": load_pope, "vsr": load_vsr, "hallusionbench": load_hallusionbench,
    "vizwiz": load_vizwiz,
}


def load_dataset(name: str, path: str | Path, images_dir: str | Path | None = None) -> Dataset:
    """Load one benchmark file by dataset name (`pope`, `vsr`, `hallusionbench`, `vizwiz`)."""
    if name not in LOADERS:
        raise InputError(f"unknown dataset {name!r} (known: {', '.join(DATASETS)})")
    p = Path(path)
    if not p.is_file():
        raise InputError("data file not found", path=p)
    if images_dir is not None and not Path(images_dir).is_dir():
        raise InputError("images folder not found", path=images_dir)
    return LOADERS[name](p, images_dir)


def relation_counts(ds: Dataset) -> Counter[str]:
    """How often each relation occurs (VSR).

    >>> relation_counts(Dataset("vsr", "f"))
    Counter()
    """
    return Counter(it.relation for it in ds.items if it.relation)
