"""The library functions behind each CLI command: read inputs, run, write outputs atomically.

>>> import inspect; sorted(n for n, f in globals().items() if n.endswith("_job") and inspect.isfunction(f))
['chair_gt_job', 'chair_job', 'label_job', 'usage_report_job']

Each job validates its inputs up front (one-line `InputError`s naming file and line), or records
and counts skips when the caller asked for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from halluscope.data.caption_input import read_caption_input
from halluscope.data.captions import CaptionRecord, read_captions
from halluscope.data.presence import Presence, load_presence
from halluscope.errors import InputError
from halluscope.io.atomic import write_json_atomic
from halluscope.io.jsonl import SkipLog
from halluscope.text.usage.base import UsageJudge
from halluscope.vocab import Vocabulary


def check_images_known(records: Sequence[CaptionRecord], presence: Presence,
                       captions_path: str | Path, skip_bad: bool, skips: SkipLog
                       ) -> list[CaptionRecord]:
    """Every caption's image must be in the annotations: error, or a counted skip."""
    kept = []
    for record in records:
        if record.image_id in presence:
            kept.append(record)
            continue
        reason = f"image id {record.image_id} is not in {presence.source}"
        if not skip_bad:
            raise InputError(reason, path=captions_path, line=record.line)
        skips.add(captions_path, record.line, reason)
    return kept


def chair_job(captions_path: str | Path, gt_path: str | Path, chair_vocab: str | Path | None,
              out_path: str | Path | None = None, skip_bad: bool = False,
              input_format: str = "jsonl") -> dict[str, Any]:
    """CHAIR exactly as the reference computes it; writes `out_path` (JSON) if given.
    `input_format`: the captions file's layout (`io.harness`; `auto` detects it)."""
    from halluscope.metrics.chair import compute_chair
    from halluscope.vocab.chair import load_chair_vocabulary

    vocab = load_chair_vocabulary(chair_vocab)
    skips = SkipLog()
    records = read_caption_input(captions_path, input_format, skip_bad=skip_bad, skips=skips)
    gt = load_presence(gt_path, categories=set(vocab.inverse_synonym_dict.values()))
    records = check_images_known(records, gt, captions_path, skip_bad, skips)
    result = compute_chair([{"image_id": r.image_id, "caption": r.caption} for r in records],
                           {k: set(v) for k, v in gt.objects.items()}, vocab)
    result = dict(result)
    for record, entry in zip(records, result["captions"]):
        entry["caption_index"] = record.index
    result["skipped"] = {"count": skips.count, "lines": skips.entries}
    if out_path is not None:
        write_json_atomic(out_path, result)
    return result


def chair_gt_job(instances: str | Path | Sequence[str | Path],
                 captions: str | Path | Sequence[str | Path], chair_vocab: str | Path | None,
                 out_path: str | Path | None = None, compare: str | Path | None = None
                 ) -> dict[str, Any]:
    """CHAIR's ground truth (COCO instance categories ∪ objects named in the reference captions,
    `metrics.chair.chair_ground_truth`), written to `out_path` as `{image_id: [category, ...]}`
    (sorted) if given. Returns counts: images, image-category pairs, pairs that only the
    captions add, and with `compare` (a ground-truth JSON such as
    chair_gt_objects_coco2014.json) the images on which both agree exactly."""
    from halluscope.metrics.chair import chair_ground_truth, load_gt_objects
    from halluscope.vocab.chair import load_chair_vocabulary

    vocab = load_chair_vocabulary(chair_vocab)
    gt = chair_ground_truth(instances, captions, vocab)
    instances_only = chair_ground_truth(instances, [], vocab)
    summary: dict[str, Any] = {
        "images": len(gt), "objects": sum(len(v) for v in gt.values()),
        "objects_from_instances": sum(len(v) for v in instances_only.values()),
        "objects_from_captions_only": sum(len(v - instances_only.get(k, set()))
                                          for k, v in gt.items())}
    if compare is not None:
        reference = load_gt_objects(compare)
        shared = [k for k in gt if k in reference]
        summary["compare"] = {"path": str(compare), "images_in_both": len(shared),
                              "images_identical": sum(1 for k in shared
                                                      if gt[k] == reference[k]),
                              "images_missing_from_reference": len(gt) - len(shared)}
    if out_path is not None:
        write_json_atomic(out_path, {str(k): sorted(v) for k, v in sorted(gt.items())})
    return summary


def label_job(captions_path: str | Path, judge: UsageJudge, out_path: str | Path | None = None,
              vocabulary: Vocabulary | None = None, skip_bad: bool = False,
              progress: Callable[[int], None] | None = None,
              records: Sequence[CaptionRecord] | None = None, skips: SkipLog | None = None,
              out_format: str | None = None) -> list[dict[str, Any]]:
    """One row per mention with its usage label; written to `out_path` if given, as Parquet,
    CSV or JSON lines (`out_format`, default: from the extension)."""
    from halluscope.io.row_formats import row_format, write_rows
    from halluscope.text.labelling import MENTION_COLUMNS, label_mentions

    if out_path is not None:
        row_format(out_path, out_format)  # an unknown format fails before any labelling
    skips = skips if skips is not None else SkipLog()
    if records is None:
        records = read_captions(captions_path, skip_bad=skip_bad, skips=skips)
    rows = label_mentions(records, judge, vocabulary, progress=progress)
    if out_path is not None:
        write_rows(out_path, rows, list(rows[0]) if rows else MENTION_COLUMNS, out_format)
    return rows


def usage_report_job(captions_path: str | Path, annotations_path: str | Path,
                     out_dir: str | Path, judge: UsageJudge,
                     chair_gt_path: str | Path | None = None,
                     chair_vocab: str | Path | None = None, vocabulary: Vocabulary | None = None,
                     hedges_as_claims: bool = False, skip_bad: bool = False,
                     n_resamples: int = 1000, seed: int = 0,
                     progress: Callable[[int], None] | None = None,
                     chair_captions: str | Path | Sequence[str | Path] | None = None,
                     chair_instances_only: bool = False,
                     input_format: str = "jsonl") -> Mapping[str, Any]:
    """Label, join presence, compute CHAIR (when its vocabulary is given) and write the report.

    CHAIR's ground truth: `chair_gt_path` when given; else, with `chair_captions` (COCO
    captions JSON), CHAIR's own reading, the instances of `annotations_path` ∪ the objects named
    in those reference captions (§4.1), unless `chair_instances_only`; else the annotations."""
    from halluscope.report.usage_report import build_usage_report, write_usage_report

    skips = SkipLog()
    records = read_caption_input(captions_path, input_format, skip_bad=skip_bad, skips=skips)
    known = (vocabulary or Vocabulary.namebench()).categories
    presence = load_presence(annotations_path, categories=known)
    records = check_images_known(records, presence, captions_path, skip_bad, skips)
    chair = None
    if chair_vocab is not None:
        from halluscope.metrics.chair import compute_chair
        from halluscope.vocab.chair import load_chair_vocabulary

        chair_vocabulary = load_chair_vocabulary(chair_vocab)
        if chair_gt_path is not None and (chair_captions or chair_instances_only):
            from halluscope.errors import ConfigError

            raise ConfigError("--chair-gt is a finished ground truth: it takes neither "
                              "--chair-captions nor --chair-instances-only")
        if chair_gt_path is not None:
            chair_gt = load_presence(
                chair_gt_path, categories=set(chair_vocabulary.inverse_synonym_dict.values()))
            chair_gt_source = "file (--chair-gt)"
        elif chair_captions and not chair_instances_only:
            from halluscope.metrics.chair import chair_ground_truth

            built = chair_ground_truth(annotations_path, chair_captions, chair_vocabulary)
            chair_gt = Presence({k: frozenset(v) for k, v in built.items()},
                                f"{annotations_path} + reference captions")
            chair_gt_source = "instances ∪ reference captions"
        else:
            chair_gt = presence
            chair_gt_source = "instances only (--annotations)"
        records = check_images_known(records, chair_gt, captions_path, skip_bad, skips)
        chair = compute_chair([{"image_id": r.image_id, "caption": r.caption} for r in records],
                              {k: set(v) for k, v in chair_gt.objects.items()},
                              chair_vocabulary)
    rows = label_job(captions_path, judge, vocabulary=vocabulary, records=records,
                     progress=progress)
    inputs = {"captions": str(captions_path), "annotations": str(annotations_path),
              "chair_gt": str(chair_gt_path) if chair_gt_path else None,
              "chair_gt_source": chair_gt_source if chair_vocab is not None else None,
              "chair_captions": ([str(p) for p in ([chair_captions] if isinstance(
                  chair_captions, (str, Path)) else chair_captions)] if chair_captions else None),
              "judge": judge.name, "judge_stats": dict(getattr(judge, "stats", {}) or {}),
              "skipped_lines": skips.count,
              "skipped": skips.entries}
    report = build_usage_report(rows, presence, [(r.index, r.image_id) for r in records],
                                chair=chair, hedges_as_claims=hedges_as_claims,
                                n_resamples=n_resamples, seed=seed, inputs=inputs)
    write_usage_report(report, out_dir, {r.index: r.caption for r in records})
    return report.summary
