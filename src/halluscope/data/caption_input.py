"""Captions from halluscope's own JSON lines or from another harness's output file.

>>> import json, tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "20250101_samples_coco2014_cap_val.jsonl"
>>> line = {"doc_id": 3, "target": "['A cat.']", "filtered_resps": "A cat on a mat.",
...         "coco_Bleu_4": {"answer": ["A cat."], "pred": "A cat on a mat.", "image_id": 42}}
>>> _ = p.write_text(json.dumps(line) + "\\n")
>>> r = read_caption_input(p)[0]; r.image_id, r.caption, r.line, r.extra
(42, 'A cat on a mat.', 1, {'format': 'lmms-eval'})

The image id is the record's `image_id` (lmms-eval's COCO/NoCaps/Flickr tasks put it in every
metric entry); a record without one is an error naming its line, never a guess from its
position. `jsonl` input goes through `read_captions` unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator

from halluscope.data.captions import CaptionRecord, read_captions, validate_captions
from halluscope.errors import InputError
from halluscope.io.harness import HarnessRecord, detect_input_format, read_harness
from halluscope.io.jsonl import SkipLog

IMAGE_ID_FIELDS = ("image_id",)


def read_caption_input(path: str | Path, input_format: str = "auto", skip_bad: bool = False,
                       skips: SkipLog | None = None) -> list[CaptionRecord]:
    """Captions as `CaptionRecord`s whatever wrote the file (`jsonl`, `lmms-eval`,
    `vlmevalkit`, or `auto`: detected from the file)."""
    fmt = detect_input_format(path) if input_format == "auto" else input_format
    if fmt == "jsonl":
        return read_captions(path, skip_bad=skip_bad, skips=skips)
    return validate_captions(_caption_rows(read_harness(path, fmt), fmt, path, skip_bad, skips),
                             path, skip_bad, skips)


def _caption_rows(records: Iterable[HarnessRecord], fmt: str, path: str | Path, skip_bad: bool,
                  skips: SkipLog | None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Harness records as caption objects for `validate_captions`; a record without an image id
    is an error naming its line (never a guess from its position)."""
    for rec in records:
        raw_id = rec.get(*IMAGE_ID_FIELDS)
        if raw_id is None:
            error = InputError(f"no image_id in this {fmt} record (fields: "
                               f"{', '.join(sorted(rec.fields)) or 'none'})",
                               path=path, line=rec.line)
            if not skip_bad:
                raise error
            if skips is not None:
                skips.add(path, rec.line, error.message)
            continue
        yield rec.line, {"image_id": raw_id, "caption": rec.text or "", "format": fmt}
