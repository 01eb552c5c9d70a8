"""The library functions behind each CLI command: read inputs, run, write outputs atomically.

>>> import inspect; sorted(n for n, f in globals().items() if n.endswith("_job") and inspect.isfunction(f))
['chair_job', 'label_job', 'usage_report_job']

Each job validates its inputs up front (one-line `InputError`s naming file and line), or records
and counts skips when the caller asked for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from halluscope.data.captions import CaptionRecord, read_captions
from halluscope.data.presence import Presence, load_presence
from halluscope.errors import InputError
from halluscope.io.atomic import uniform_image_ids, write_json_atomic, write_parquet_atomic
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
              out_path: str | Path | None = None, skip_bad: bool = False) -> dict[str, Any]:
    """CHAIR exactly as the reference computes it; writes `out_path` (JSON) if given."""
    from halluscope.metrics.chair import compute_chair
    from halluscope.vocab.chair import load_chair_vocabulary

    vocab = load_chair_vocabulary(chair_vocab)
    skips = SkipLog()
    records = read_captions(captions_path, skip_bad=skip_bad, skips=skips)
    gt = load_presence(gt_path)
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


def label_job(captions_path: str | Path, judge: UsageJudge, out_path: str | Path | None = None,
              vocabulary: Vocabulary | None = None, skip_bad: bool = False,
              progress: Callable[[int], None] | None = None,
              records: Sequence[CaptionRecord] | None = None, skips: SkipLog | None = None
              ) -> list[dict[str, Any]]:
    """One row per mention with its usage label; writes Parquet to `out_path` if given."""
    from halluscope.text.labelling import label_mentions

    skips = skips if skips is not None else SkipLog()
    if records is None:
        records = read_captions(captions_path, skip_bad=skip_bad, skips=skips)
    rows = label_mentions(records, judge, vocabulary, progress=progress)
    if out_path is not None:
        import pyarrow as pa

        from halluscope.text.labelling import MENTION_COLUMNS

        if rows:
            write_parquet_atomic(out_path, uniform_image_ids(rows))
        else:  # still write a valid, empty table with the documented columns
            schema = pa.schema([(c, pa.string()) for c in MENTION_COLUMNS])
            write_parquet_atomic(out_path, [], schema=schema)
    return rows


def usage_report_job(captions_path: str | Path, annotations_path: str | Path,
                     out_dir: str | Path, judge: UsageJudge,
                     chair_gt_path: str | Path | None = None,
                     chair_vocab: str | Path | None = None, vocabulary: Vocabulary | None = None,
                     hedges_as_claims: bool = False, skip_bad: bool = False,
                     n_resamples: int = 1000, seed: int = 0,
                     progress: Callable[[int], None] | None = None) -> Mapping[str, Any]:
    """Label, join presence, compute CHAIR (when its vocabulary is given) and write the report."""
    from halluscope.report.usage_report import build_usage_report, write_usage_report

    skips = SkipLog()
    records = read_captions(captions_path, skip_bad=skip_bad, skips=skips)
    presence = load_presence(annotations_path)
    records = check_images_known(records, presence, captions_path, skip_bad, skips)
    chair = None
    if chair_vocab is not None:
        from halluscope.metrics.chair import compute_chair
        from halluscope.vocab.chair import load_chair_vocabulary

        chair_gt = load_presence(chair_gt_path) if chair_gt_path is not None else presence
        records = check_images_known(records, chair_gt, captions_path, skip_bad, skips)
        chair = compute_chair([{"image_id": r.image_id, "caption": r.caption} for r in records],
                              {k: set(v) for k, v in chair_gt.objects.items()},
                              load_chair_vocabulary(chair_vocab))
    rows = label_job(captions_path, judge, vocabulary=vocabulary, records=records,
                     progress=progress)
    inputs = {"captions": str(captions_path), "annotations": str(annotations_path),
              "chair_gt": str(chair_gt_path) if chair_gt_path else None,
              "judge": judge.name, "judge_stats": dict(getattr(judge, "stats", {}) or {}),
              "skipped_lines": skips.count,
              "skipped": skips.entries}
    report = build_usage_report(rows, presence, [(r.index, r.image_id) for r in records],
                                chair=chair, hedges_as_claims=hedges_as_claims,
                                n_resamples=n_resamples, seed=seed, inputs=inputs)
    write_usage_report(report, out_dir)
    return report.summary
