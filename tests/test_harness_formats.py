"""Answers and captions from lmms-eval and VLMEvalKit, in files laid out as their writers write
them, score exactly as the same outputs in halluscope's own JSON lines.

Layouts, from the writers' source:
- lmms-eval >= 0.4 `--log_samples` (`loggers/evaluation_tracker.py: save_results_samples`): one
  `json.dumps(sample, ensure_ascii=False)` line per doc, keys in the order the evaluator builds
  them (`doc_id`, `target`, `filtered_resps` flattened to a string, `token_counts`, `doc_hash`,
  one entry per metric with what `process_results` returned, then `input`); `doc`, `arguments`
  and (when equal to `filtered_resps`) `resps` popped. The metric entries are those of
  `tasks/pope/utils.py`, `tasks/hallusion_bench/evaluate_hb.py` and `tasks/coco_cap/utils.py`.
- VLMEvalKit (`smp/file.py: dump`): TSV through `DataFrame.to_csv(sep="\\t", index=False,
  quoting=csv.QUOTE_ALL)`, JSON through `json.dump(df.to_dict("records"), indent=4,
  ensure_ascii=False)`; the dataset's columns with `image` removed, plus `prediction`.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from halluscope.benchmark_jobs import hallusionbench_job, pope_job
from halluscope.cli.main import app
from halluscope.data.caption_input import read_caption_input
from halluscope.errors import InputError
from halluscope.io.harness import detect_input_format, read_harness
from halluscope.jobs import chair_job

POPE_POST_PROMPT = "\nAnswer the question using a single word or phrase."


def lmms_line(doc_id: int, target: str, text: str, metrics: dict, prompt: str) -> str:
    sample = {"doc_id": doc_id, "target": target, "filtered_resps": text,
              "token_counts": [None], "doc_hash": f"{doc_id:064x}"}
    sample.update(metrics)
    sample["input"] = prompt
    return json.dumps(sample, ensure_ascii=False) + "\n"


def write_tsv_like_pandas(path: Path, rows: list[dict]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter="\t", quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerow(list(rows[0]))
        for r in rows:
            writer.writerow(["" if v is None else v for v in r.values()])
    return path


def write_xlsx_like_pandas(path: Path, rows: list[dict]) -> Path:
    """`DataFrame.to_excel(f, index=False)`: one sheet, a header row, then the rows; numbers stay
    numbers, missing values are empty cells."""
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(list(rows[0]))
    for r in rows:
        sheet.append([None if v is None else v for v in r.values()])
    book.save(path)
    return path


def write_json_like_vlmevalkit(path: Path, rows: list[dict]) -> Path:
    with path.open("w") as f:
        json.dump(rows, f, indent=4, ensure_ascii=False)
    return path


# ---------------------------------------------------------------------------------------------
# POPE
# ---------------------------------------------------------------------------------------------

def _pope_rows(shared_data: Path, split: str) -> list[dict]:
    path = shared_data / "pope" / f"coco_pope_{split}.json"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _pope_answer(i: int, label: str) -> str:
    right = "Yes" if label == "yes" else "No"
    wrong = "No" if label == "yes" else " yes"
    return ["There might be one.", wrong, right, right.lower(), right + "."][i % 5] \
        if i % 7 == 0 else right


def test_lmms_eval_pope_log_samples(shared_data, tmp_path):
    rows = _pope_rows(shared_data, "adversarial")
    log = tmp_path / "20250601_120000_samples_pope_adv.jsonl"
    own = tmp_path / "own_adversarial.jsonl"
    with log.open("w") as f, own.open("w") as g:
        # lmms-eval iterates its own dataset order; write it reversed to prove the join
        for doc_id, r in enumerate(reversed(rows)):
            text = _pope_answer(r["question_id"], r["label"])
            entry = {"question_id": str(r["question_id"]), "score": 0.0,
                     "prediction": text.lower().strip(), "ground_truth": r["label"]}
            f.write(lmms_line(doc_id, r["label"], text,
                              {f"pope_{m}": entry for m in ("accuracy", "precision", "recall",
                                                            "f1_score", "yes_ratio")},
                              r["text"] + POPE_POST_PROMPT))
            g.write(json.dumps({"question_id": r["question_id"], "text": text}) + "\n")
    assert detect_input_format(log) == "lmms-eval"
    split = shared_data / "pope" / "coco_pope_adversarial.json"
    theirs = pope_job([split], [log])["splits"]["adversarial"]
    ours = pope_job([split], [own])["splits"]["adversarial"]
    assert theirs == ours
    assert theirs["n"] == 3000 and theirs["n_hedged"] > 0


def test_vlmevalkit_pope_tsv_joined_by_image_and_question(shared_data, tmp_path):
    rows = _pope_rows(shared_data, "popular")
    table = [{"index": k, "question": r["text"], "answer": r["label"].capitalize(),
              "category": "popular", "image_path": r["image"],
              "prediction": _pope_answer(r["question_id"], r["label"])}
             for k, r in enumerate(rows)]
    tsv = write_tsv_like_pandas(tmp_path / "LLaVA_POPE.tsv", table)
    own = tmp_path / "own_popular.jsonl"
    own.write_text("".join(json.dumps({"question_id": r["question_id"],
                                       "text": _pope_answer(r["question_id"], r["label"])})
                           + "\n" for r in rows))
    split = shared_data / "pope" / "coco_pope_popular.json"
    assert pope_job([split], [tsv])["splits"] == pope_job([split], [own])["splits"]


def test_vlmevalkit_pope_rows_shared_by_two_splits(shared_data, tmp_path):
    # A question asked in both splits is one row whose category names both ("popular,random");
    # it is scored in each.
    by_split = {s: _pope_rows(shared_data, s) for s in ("random", "popular")}
    merged: dict[tuple, dict] = {}
    for split, rows in by_split.items():
        for r in rows:
            key = (r["image"], r["text"])
            answer = _pope_answer(len(key[1]) + int(key[0][-10:-4]), r["label"])
            row = merged.setdefault(key, {"index": len(merged), "question": r["text"],
                                          "answer": r["label"].capitalize(), "category": [],
                                          "image_path": r["image"], "prediction": answer})
            row["category"].append(split)
    table = [{**row, "category": ",".join(sorted(row["category"]))} for row in merged.values()]
    assert sum("," in row["category"] for row in table) == 1563
    tsv = write_tsv_like_pandas(tmp_path / "LLaVA_POPE.tsv", table)
    own = []
    for split, rows in by_split.items():
        path = tmp_path / f"own_{split}.jsonl"
        path.write_text("".join(json.dumps({"question_id": r["question_id"], "text": merged[
            (r["image"], r["text"])]["prediction"]}) + "\n" for r in rows))
        own.append(path)
    splits = [shared_data / "pope" / f"coco_pope_{s}.json" for s in by_split]
    assert pope_job(splits, [tsv])["splits"] == pope_job(splits, own)["splits"]


# ---------------------------------------------------------------------------------------------
# HallusionBench
# ---------------------------------------------------------------------------------------------

def _hb(shared_data: Path) -> tuple[Path, list[dict]]:
    path = shared_data / "hallusionbench" / "HallusionBench.json"
    return path, json.loads(path.read_text())


def _hb_answer(i: int, gt: str) -> str:
    if i % 11 == 0:
        return "It is not clear from the image."
    return ("Yes" if gt == "1" else "No") if i % 4 else ("No" if gt == "1" else "Yes")


def _own_hb(path: Path, release: list[dict], keep) -> Path:
    path.write_text("".join(json.dumps({**{k: q[k] for k in ("category", "subcategory", "set_id",
                                                             "figure_id", "question_id")},
                                        "text": _hb_answer(i, q["gt_answer"])}) + "\n"
                            for i, q in enumerate(release) if keep(q)))
    return path


def test_lmms_eval_hallusionbench_image_split(shared_data, tmp_path):
    path, release = _hb(shared_data)
    log = tmp_path / "20250601_120000_samples_hallusion_bench_image.jsonl"
    with log.open("w") as f:
        doc_id = 0
        for i, q in enumerate(release):
            if q["visual_input"] == "0":  # lmms-lab/HallusionBench "image" split: 951 rows
                continue
            sample = {k: v for k, v in q.items() if k != "filename"}
            sample["model_prediction"] = _hb_answer(i, q["gt_answer"])
            f.write(lmms_line(doc_id, q["gt_answer_details"], sample["model_prediction"],
                              {m: sample for m in ("aAcc", "qAcc", "fAcc")}, q["question"]))
            doc_id += 1
    with pytest.raises(InputError, match="cover 951 of the release's 1129"):
        hallusionbench_job(path, [log])
    theirs = hallusionbench_job(path, [log], allow_subset=True)
    ours = hallusionbench_job(path, [_own_hb(tmp_path / "own.jsonl", release,
                                             lambda q: q["visual_input"] != "0")],
                              allow_subset=True)
    for key in ("aAcc", "fAcc", "qAcc", "n_questions", "n_figures", "n_pairs", "n_hedged"):
        assert theirs[key] == ours[key]
    assert theirs["subset"] and theirs["n_questions"] == 951


@pytest.mark.parametrize("suffix", ["tsv", "json", "xlsx"])
def test_vlmevalkit_hallusionbench_predictions(shared_data, tmp_path, suffix):
    path, release = _hb(shared_data)
    table = [{"index": "_".join([q["category"], q["subcategory"], q["visual_input"], q["set_id"],
                                 q["figure_id"], q["question_id"]]),
              "question": q["question"], "answer": "Yes" if q["gt_answer"] == "1" else "No",
              "category": q["category"], "l2-category": q["subcategory"],
              "prediction": _hb_answer(i, q["gt_answer"])}
             for i, q in enumerate(release) if q["visual_input"] != "0"]
    writer = {"tsv": write_tsv_like_pandas, "json": write_json_like_vlmevalkit,
              "xlsx": write_xlsx_like_pandas}[suffix]
    pred = writer(tmp_path / f"LLaVA_HallusionBench.{suffix}", table)
    assert detect_input_format(pred) == "vlmevalkit"
    theirs = hallusionbench_job(path, [pred], allow_subset=True)
    ours = hallusionbench_job(path, [_own_hb(tmp_path / "own.jsonl", release,
                                             lambda q: q["visual_input"] != "0")],
                              allow_subset=True)
    assert (theirs["aAcc"], theirs["fAcc"], theirs["qAcc"]) == \
        (ours["aAcc"], ours["fAcc"], ours["qAcc"])


# ---------------------------------------------------------------------------------------------
# Captions: chair, label, report
# ---------------------------------------------------------------------------------------------

@pytest.fixture()
def caption_files(shared_data, tmp_path):
    src = shared_data / "captions" / "opera_llava-1.5_greedy.jsonl"
    caps = [json.loads(line) for line in src.read_text().splitlines()[:12]]
    own = tmp_path / "own.jsonl"
    own.write_text("".join(json.dumps(c) + "\n" for c in caps))
    log = tmp_path / "20250601_120000_samples_coco2014_cap_val.jsonl"
    with log.open("w") as f:
        for k, c in enumerate(caps):
            entry = {"answer": ["a reference caption"], "pred": c["caption"],
                     "image_id": c["image_id"], "id": k}
            f.write(lmms_line(k, "['a reference caption']", c["caption"],
                              {f"coco_{m}": entry for m in ("Bleu_4", "CIDEr")},
                              "Provide a one-sentence caption for the provided image."))
    tsv = write_tsv_like_pandas(tmp_path / "LLaVA_COCO_VAL.tsv", [
        {"index": k, "question": "Describe.", "answer": "['a ref']", "image_id": c["image_id"],
         "prediction": c["caption"]} for k, c in enumerate(caps)])
    gt_all = json.loads((shared_data / "coco" / "chair_gt_objects_coco2014.json").read_text())
    gt = tmp_path / "gt.json"
    gt.write_text(json.dumps({str(c["image_id"]): gt_all[str(c["image_id"])] for c in caps}))
    return own, log, tsv, gt


def test_captions_read_the_same_from_every_layout(caption_files):
    own, log, tsv, _ = caption_files
    base = [(r.image_id, r.caption) for r in read_caption_input(own)]
    assert [(r.image_id, r.caption) for r in read_caption_input(log)] == base
    assert [(r.image_id, r.caption) for r in read_caption_input(tsv, "vlmevalkit")] == base


def test_chair_from_harness_files(shared_data, caption_files, tmp_path):
    own, log, tsv, gt = caption_files
    vocab = shared_data / "chair_reference" / "chair_vocabulary.json"
    ours = chair_job(own, gt, vocab)["overall"]
    assert chair_job(log, gt, vocab, input_format="auto")["overall"] == ours
    assert chair_job(tsv, gt, vocab, input_format="vlmevalkit")["overall"] == ours
    cli = CliRunner().invoke(app, ["chair", "--captions", str(log), "--gt-objects", str(gt),
                                   "--chair-vocab", str(vocab), "--out", str(tmp_path / "c.json"),
                                   "--input-format", "lmms-eval"])
    assert cli.exit_code == 0, cli.output
    assert f"CHAIRs={ours['CHAIRs']:.4f}" in cli.output or f"{ours['CHAIRs']:.4f}" in cli.output


@pytest.mark.slow
def test_label_from_an_lmms_eval_file(caption_files, tmp_path):
    own, log, _, _ = caption_files
    for name, path in (("own", own), ("log", log)):
        cli = CliRunner().invoke(app, ["label", "--captions", str(path), "--out",
                                       str(tmp_path / f"{name}.jsonl")])
        assert cli.exit_code == 0, cli.output
    assert (tmp_path / "own.jsonl").read_text() == (tmp_path / "log.jsonl").read_text()


def test_caption_record_without_image_id_names_its_line(tmp_path):
    log = tmp_path / "samples_nocaps.jsonl"
    log.write_text(lmms_line(0, "x", "A dog.", {"nocaps_CIDEr": {"image_id": 5}}, "Describe.")
                   + lmms_line(1, "x", "A cat.", {"nocaps_CIDEr": {"pred": "A cat."}}, "Describe."))
    with pytest.raises(InputError, match=r"samples_nocaps\.jsonl:2: no image_id"):
        read_caption_input(log)


def test_harness_captions_get_the_checks_of_our_own(tmp_path):
    """One caption per image and the NUL check hold for a harness file as for halluscope's."""
    log = tmp_path / "samples_coco.jsonl"
    log.write_text(lmms_line(0, "x", "A dog.", {"coco_CIDEr": {"image_id": 5}}, "Describe.")
                   + lmms_line(1, "x", "A cat.", {"coco_CIDEr": {"image_id": 5}}, "Describe."))
    with pytest.raises(InputError, match=r"samples_coco\.jsonl:2: duplicate image_id 5"):
        read_caption_input(log)
    log.write_text(lmms_line(0, "x", "A dog\x00.", {"coco_CIDEr": {"image_id": 5}}, "D."))
    with pytest.raises(InputError, match="NUL"):
        read_caption_input(log)


# ---------------------------------------------------------------------------------------------
# Detection and refusals
# ---------------------------------------------------------------------------------------------

def test_detection(tmp_path):
    own = tmp_path / "answers.jsonl"
    own.write_text('{"question_id": 1, "text": "Yes"}\n')
    jsonl_named_json = tmp_path / "coco_pope_random.json"
    jsonl_named_json.write_text('{"question_id": 1, "text": "Yes"}\n{"question_id": 2, '
                                '"text": "No"}\n')
    old_lmms = tmp_path / "samples.jsonl"  # before 0.4: the doc kept, resps nested
    old_lmms.write_text(json.dumps({"doc_id": 0, "doc": {"question_id": "9", "answer": "yes"},
                                    "target": "yes", "resps": [["Yes"]],
                                    "filtered_resps": ["Yes"]}) + "\n")
    assert detect_input_format(own) == "jsonl"
    assert detect_input_format(jsonl_named_json) == "jsonl"
    assert detect_input_format(old_lmms) == "lmms-eval"
    rec = read_harness(old_lmms)[0]
    assert (rec.text, rec.get("question_id")) == ("Yes", "9")


def test_pickles_are_refused(tmp_path):
    pkl = tmp_path / "LLaVA_POPE.pkl"
    pkl.write_bytes(b"\x80\x04N.")
    with pytest.raises(InputError, match="pickle files are never read"):
        read_harness(pkl)


def test_a_corrupt_or_empty_xlsx_is_one_line(tmp_path):
    from openpyxl import Workbook

    xlsx = tmp_path / "LLaVA_POPE.xlsx"
    xlsx.write_bytes(b"PK\x03\x04")
    with pytest.raises(InputError, match=r"LLaVA_POPE\.xlsx: not a readable \.xlsx file") as err:
        read_harness(xlsx)
    assert "\n" not in str(err.value)
    Workbook().save(xlsx)
    with pytest.raises(InputError, match="empty file"):
        read_harness(xlsx)


def test_xlsx_row_without_prediction_names_its_row(tmp_path):
    xlsx = write_xlsx_like_pandas(tmp_path / "m_POPE.xlsx", [{"index": 1, "question": "q"},
                                                              {"index": 2, "question": "r"}])
    with pytest.raises(InputError, match=r"m_POPE\.xlsx:2: missing column 'prediction'"):
        read_harness(xlsx)


def test_vlmevalkit_row_without_prediction_names_its_line(tmp_path):
    tsv = write_tsv_like_pandas(tmp_path / "m_POPE.tsv", [{"index": 1, "question": "q"}])
    with pytest.raises(InputError, match=r"m_POPE\.tsv:2: missing column 'prediction'"):
        read_harness(tsv)


@pytest.mark.slow
def test_report_from_an_lmms_eval_file(caption_files, tmp_path):
    own, log, _, gt = caption_files
    summaries = []
    for name, path in (("own", own), ("log", log)):
        cli = CliRunner().invoke(app, ["report", "--captions", str(path), "--annotations",
                                       str(gt), "--out", str(tmp_path / name),
                                       "--bootstrap", "10"])
        assert cli.exit_code == 0, cli.output
        summary = json.loads((tmp_path / name / "summary.json").read_text())
        summary.pop("inputs", None)
        summaries.append(summary)
    assert summaries[0] == summaries[1]
