"""The library functions behind the benchmark-scoring commands (`pope`, `hallusionbench`): read
a model's answers in any supported layout, join them to the release by id, score, write.

>>> import json, tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "coco_pope_random.json").write_text("".join(json.dumps(
...     {"question_id": i, "image": "a.jpg", "text": "Is there a dog?", "label": l}) + "\\n"
...     for i, l in [(1, "yes"), (2, "no")]))
>>> _ = (d / "answers.jsonl").write_text('{"question_id": 2, "text": "No."}\\n'
...                                      '{"question_id": 1, "text": " yes"}\\n')
>>> r = pope_job([d / "coco_pope_random.json"], [d / "answers.jsonl"])
>>> r["splits"]["random"]["f1"], r["average"]["accuracy"]
(1.0, 1.0)

Answers never pair with questions by position: POPE joins on `question_id` (a prism probe
row's `sample_id` `pope_<split>_<id>` carries it), HallusionBench on its five id fields.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

from halluscope.errors import InputError
from halluscope.io.atomic import write_json_atomic
from halluscope.io.harness import HarnessRecord, detect_input_format, read_harness
from halluscope.metrics import pope as P
from halluscope.prism.answers import classify_yes_no

ANSWER_TEXT_FIELDS = ("text", "raw_response", "answer_text", "model_prediction", "prediction")
_PROBE_ID = re.compile(r"^pope_(random|popular|adversarial)_0*(\d+)$")
# Split names as files and harness task names spell them (lmms-eval: pope_adv, pope_pop).
_SPLIT_TOKENS = {"random": "random", "rand": "random", "popular": "popular", "pop": "popular",
                 "adversarial": "adversarial", "adv": "adversarial"}


def _split_from_name(path: Path) -> str | None:
    found = {_SPLIT_TOKENS[t] for t in re.split(r"[^a-z0-9]+", path.stem.lower())
             if t in _SPLIT_TOKENS}
    return found.pop() if len(found) == 1 else None


def _record_splits(rec: HarnessRecord) -> list[str] | None:
    """The splits a record says it belongs to (VLMEvalKit's `category` may list several)."""
    value = rec.get("pope_split", "split", "category")
    if value is None:
        return None
    names = [_SPLIT_TOKENS.get(v.strip().lower()) for v in str(value).split(",")]
    return [n for n in names if n] or None


def read_pope_answers(path: str | Path, input_format: str, splits: Sequence[str],
                      questions: dict[str, list[P.PopeQuestion]]
                      ) -> dict[str, list[tuple[str, str | None, str]]]:
    """`{split: [(question_id, text, "file:line")]}` from one answers file.

    A record's split comes from its own fields, else its file's name, else the only split given;
    its id from `question_id` (or a probe row's `sample_id`), else from its image name and
    question text matched in the split file (VLMEvalKit's POPE rows carry no POPE id).
    """
    path = Path(path)
    fmt = detect_input_format(path) if input_format == "auto" else input_format
    records = read_harness(path, fmt, text_fields=ANSWER_TEXT_FIELDS)
    by_name = _split_from_name(path)
    by_text = {s: {(Path(q.image).name, _norm(q.text)): q.question_id for q in questions[s]}
               for s in splits}
    out: dict[str, list[tuple[str, str | None, str]]] = {s: [] for s in splits}
    for rec in records:
        where = f"{path}:{rec.line}"
        if rec.fields.get("skipped"):  # a probe row for an item that was never answered
            continue
        probe = _PROBE_ID.match(str(rec.get("sample_id") or ""))
        rec_splits = [probe.group(1)] if probe else _record_splits(rec)
        if rec_splits is None:
            rec_splits = [by_name] if by_name else (list(splits) if len(splits) == 1 else None)
        if rec_splits is None:
            raise InputError("cannot tell which POPE split this answer belongs to (no split or "
                             "category field, no split name in the file name); give one "
                             "answers file per split, named after it", path=path, line=rec.line)
        for split in rec_splits:
            if split not in out:
                continue
            if probe:
                qid = probe.group(2)
            elif rec.get("question_id") is not None:
                try:
                    qid = P.normalise_question_id(rec.get("question_id"))
                except ValueError as exc:
                    raise InputError(str(exc), path=path, line=rec.line) from None
            else:
                image, question = rec.get("image_path", "image"), rec.get("question", "text")
                qid = by_text[split].get((Path(str(image)).name, _norm(str(question)))) \
                    if image is not None and question is not None else None
                if qid is None:
                    raise InputError(f"no question_id, and no image name and question matching "
                                     f"a {split} question, in this {fmt} record",
                                     path=path, line=rec.line)
            out[split].append((qid, rec.text, where))
    return out


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def pope_job(split_files: Sequence[str | Path], answer_files: Sequence[str | Path],
             input_format: str = "auto", label_files: Sequence[str | Path] = (),
             skip_bad: bool = False, out_path: str | Path | None = None) -> dict[str, Any]:
    """Per split metrics (halluscope's reading and LLaVA's, side by side) and their average."""
    splits: dict[str, Path] = {}
    for f in split_files:
        split = P.split_of(f)
        if split in splits:
            raise InputError(f"two files for the POPE {split} split: {splits[split]} and {f}")
        splits[split] = Path(f)
    questions = {s: P.read_pope_questions(f) for s, f in splits.items()}
    relabelled: dict[str, str] = {}
    for f in label_files:
        split = P.split_of(f)
        if split not in questions:
            raise InputError(f"labels for the {split} split, which no --split file gives", path=f)
        labels = {q.question_id: q.label for q in P.read_pope_questions(f)}
        unknown = sorted(set(labels) - {q.question_id for q in questions[split]})
        if unknown:
            raise InputError(f"labels for question_id {P._ids(unknown)}, not in {splits[split]}",
                             path=f)
        # Corrected label sets (RePOPE) drop ambiguous items: a question without a corrected
        # label leaves the scored set, counted.
        questions[split] = [P.PopeQuestion(q.question_id, q.image, q.text, labels[q.question_id],
                                           q.line)
                            for q in questions[split] if q.question_id in labels]
        relabelled[split] = str(f)
    answers: dict[str, list[tuple[str, str | None, str]]] = {s: [] for s in splits}
    for f in answer_files:
        for split, rows in read_pope_answers(f, input_format, list(splits), questions).items():
            answers[split].extend(rows)
    result: dict[str, Any] = {"splits": {}, "inputs": {
        "splits": {s: str(f) for s, f in splits.items()}, "labels": relabelled,
        "answers": [str(f) for f in answer_files], "input_format": input_format}}
    for split in (s for s in P.POPE_SPLITS if s in splits):
        joined, problems = P.join_answers(questions[split], answers[split], split, skip_bad)
        metrics = P.pope_metrics(questions[split],
                                 {q: classify_yes_no(t) for q, t in joined.items()})
        llava = P.pope_metrics(questions[split],
                               {q: P.llava_reading(t) for q, t in joined.items()})
        metrics["llava_reading"] = {k: v for k, v in llava.items() if k in P.METRICS}
        metrics["n_questions"] = len(questions[split])
        metrics["skipped"] = {k: len(v) for k, v in problems.items()}
        metrics["skipped_ids"] = problems
        result["splits"][split] = metrics
    result["average"] = P.average_over_splits(result["splits"])
    result["average_llava_reading"] = P.average_over_splits(
        {s: m["llava_reading"] for s, m in result["splits"].items()})
    if out_path is not None:
        write_json_atomic(out_path, result)
    return result


_HB_PROBE_ID = re.compile(r"^hallusionbench_0*(\d+)$")


def _hb_record_key(rec: HarnessRecord, by_index: dict[int, tuple]) -> tuple | None:
    """A record's five id fields: its own, a probe row's release index, or VLMEvalKit's index
    `<category>_<subcategory>_<n>_<set_id>_<figure_id>_<question_id>` (the fields its own
    scorer splits out)."""
    from halluscope.metrics.hallusionbench import hb_key

    key = hb_key(rec.fields)
    if key is not None:
        return key
    probe = _HB_PROBE_ID.match(str(rec.get("sample_id") or ""))
    if probe:
        return by_index.get(int(probe.group(1)))
    index = str(rec.get("index") or "")
    parts = index.split("_")
    if rec.format == "vlmevalkit" and len(parts) == 6:
        subcategory = str(rec.get("l2-category") or parts[1])
        return (parts[0], subcategory, parts[3], parts[4], parts[5])
    return None


def hallusionbench_job(release_path: str | Path, answer_files: Sequence[str | Path],
                       input_format: str = "auto", allow_subset: bool = False,
                       skip_bad: bool = False, out_path: str | Path | None = None
                       ) -> dict[str, Any]:
    """aAcc, fAcc, qAcc of a model's answers, checked against the release's question count.

    Answers that cover fewer questions than the release (lmms-eval and VLMEvalKit ship the 951
    questions with an image) are an error unless `allow_subset`, and then the output says so.
    Duplicated or unknown ids are an error, or counted skips with `skip_bad`.
    """
    from halluscope.metrics import hallusionbench as H

    questions = H.read_release(release_path)
    by_index = {q.index: q.key for q in questions}
    known = {q.key for q in questions}
    answers: dict[tuple, str | None] = {}
    duplicated: set[tuple] = set()
    unknown: list[str] = []
    for f in answer_files:
        fmt = detect_input_format(f) if input_format == "auto" else input_format
        for rec in read_harness(f, fmt, text_fields=ANSWER_TEXT_FIELDS):
            if rec.fields.get("skipped"):
                continue
            key = _hb_record_key(rec, by_index)
            if key is None and skip_bad:
                unknown.append(f"{f}:{rec.line}")
                continue
            if key is None:
                raise InputError(f"no HallusionBench id in this {fmt} record (needs "
                                 f"{', '.join(H.KEY_FIELDS)}, a probe sample_id or a "
                                 f"VLMEvalKit index)", path=f, line=rec.line)
            name = "_".join(key)
            if key not in known:
                if not skip_bad:
                    raise InputError(f"{name} is not a question of {release_path}", path=f,
                                     line=rec.line)
                unknown.append(name)
                continue
            if key in answers:
                if not skip_bad:
                    raise InputError(f"second answer to {name}", path=f, line=rec.line)
                duplicated.add(key)
                continue
            answers[key] = rec.text
    for key in duplicated:  # a question answered twice is scored from neither answer
        answers.pop(key, None)
    missing = [q for q in questions if q.key not in answers]
    if len(questions) != H.RELEASE_COUNTS["questions"]:
        raise InputError(f"{len(questions)} questions, the HallusionBench release has "
                         f"{H.RELEASE_COUNTS['questions']}", path=release_path)
    if missing and not allow_subset:
        text_only = sum(q.no_figure for q in missing)
        raise InputError(f"answers cover {len(answers)} of the release's {len(questions)} "
                         f"questions ({len(missing)} missing, {text_only} of them the text-only "
                         f"VS questions, e.g. {'_'.join(missing[0].key)}); --allow-subset "
                         f"scores the covered ones, reported as a subset")
    result = H.hallusionbench_metrics(questions,
                                      {k: classify_yes_no(t) for k, t in answers.items()})
    result.update({"release_questions": len(questions), "subset": bool(missing),
                   "n_missing": len(missing),
                   "skipped": {"duplicated": len(duplicated), "unknown": len(unknown),
                               "ids": {"duplicated": sorted("_".join(k) for k in duplicated),
                                       "unknown": sorted(unknown)}},
                   "inputs": {"release": str(release_path),
                              "answers": [str(f) for f in answer_files],
                              "input_format": input_format}})
    if out_path is not None:
        write_json_atomic(out_path, result)
    return result


# LLaVA-1.5's POPE prompt (also lmms-eval's default post-prompt).
POPE_PROMPT_SUFFIX = "\nAnswer the question using a single word or phrase."


def pope_closed_job(split_files: Sequence[str | Path], model: str | Path,
                    images_dir: str | Path, batch_size: int = 8, max_new_tokens: int = 16,
                    dtype: str = "float32", device: str = "cpu",
                    out_path: str | Path | None = None) -> dict[str, Any]:
    """`--score closed`: per question one forward pass (yes vs no by the probability of all
    their spellings, `generation.closed_yes_no`) and one greedy answer; metrics of both
    readings, and how often the closed answer agrees with the greedy one (a hedged or unparsed
    greedy answer disagrees, counted). Questions whose image is missing are an error."""
    from PIL import Image

    from halluscope.generation.backends import HFBackend
    from halluscope.generation.closed_yes_no import closed_yes_no, spellings
    from halluscope.models.registry import load_adapter

    splits = {P.split_of(f): P.read_pope_questions(f) for f in split_files}
    images_dir = Path(images_dir)
    for split, qs in splits.items():
        missing = [q.question_id for q in qs if not (images_dir / q.image).is_file()]
        if missing:
            raise InputError(f"POPE {split}: no image in {images_dir} for question_id "
                             f"{P._ids(missing)}")
    adapter = load_adapter(str(model), dtype=dtype, device=device)
    backend = HFBackend(adapter)
    forms = spellings(adapter.tokenizer)
    result: dict[str, Any] = {"splits": {}, "inputs": {
        "splits": [str(f) for f in split_files], "model": str(model), "images": str(images_dir),
        "prompt_suffix": POPE_PROMPT_SUFFIX, "yes_forms": len(forms["yes"]),
        "no_forms": len(forms["no"])}}
    for split in (s for s in P.POPE_SPLITS if s in splits):
        qs = splits[split]
        closed: dict[str, str] = {}
        single: dict[str, str] = {}
        greedy: dict[str, str] = {}
        items = []
        for start in range(0, len(qs), batch_size):
            chunk = qs[start:start + batch_size]
            images = [Image.open(images_dir / q.image).convert("RGB") for q in chunk]
            prompts = [q.text + POPE_PROMPT_SUFFIX for q in chunk]
            scores = closed_yes_no(adapter, images, prompts, forms)
            texts = [g.text for g in backend.generate(images, prompts, max_new_tokens)]
            for q, s, text in zip(chunk, scores, texts):
                closed[q.question_id], single[q.question_id] = s.label, s.single_form
                greedy[q.question_id] = classify_yes_no(text)
                items.append({"question_id": q.question_id, "p_yes": s.p_yes, "p_no": s.p_no,
                              "closed": s.label, "single_form": s.single_form,
                              "greedy_text": text, "greedy": greedy[q.question_id]})
        metrics = P.pope_metrics(qs, closed)
        metrics["greedy"] = P.pope_metrics(qs, greedy)
        metrics["single_form"] = P.pope_metrics(qs, single)
        metrics["agreement"] = sum(closed[q] == greedy[q] for q in closed) / len(closed)
        metrics["greedy_not_yes_no"] = sum(g not in ("yes", "no") for g in greedy.values())
        metrics["items"] = items
        result["splits"][split] = metrics
    result["average"] = P.average_over_splits(
        {s: {k: v for k, v in m.items() if k in P.METRICS} for s, m in result["splits"].items()})
    result["average"]["agreement"] = (sum(m["agreement"] for m in result["splits"].values())
                                      / len(result["splits"]))
    if out_path is not None:
        write_json_atomic(out_path, result)
    return result
