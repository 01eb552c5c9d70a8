"""Caption files: JSON lines `{"image_id", "caption", ...}`, validated line by line.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "c.jsonl"
>>> _ = p.write_text('{"image_id": "42", "caption": "A cat."}\\n')
>>> read_captions(p)[0]
CaptionRecord(index=0, line=1, image_id=42, caption='A cat.', extra={})

`index` is the 0-based line number in the file (the `caption_index` of every output row); `line`
the 1-based one, for error messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from halluscope.errors import InputError
from halluscope.io.jsonl import SkipLog, read_jsonl


# Longer "captions" are documents: the mention extractor's parser needs memory and time in
# proportion, and no captioning model writes one.
MAX_CAPTION_CHARS = 20_000


@dataclass(frozen=True)
class CaptionRecord:
    index: int
    line: int
    image_id: int | str
    caption: str
    extra: dict[str, Any] = field(default_factory=dict)


def normalise_image_id(value: Any) -> int | str:
    """COCO ids are integers but often arrive as strings ("000000000139" or "139")."""
    if isinstance(value, bool):
        raise ValueError("image_id must be an integer or a string")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip():
        text = value.strip()
        return int(text) if text.isdigit() else text
    raise ValueError("image_id must be an integer or a non-empty string")


def read_captions(path: str | Path, skip_bad: bool = False, skips: SkipLog | None = None,
                  caption_field: str = "caption", allow_empty: bool = False) -> list[CaptionRecord]:
    """Read and validate a captions file.

    Every malformed line raises `InputError` naming file and line, unless `skip_bad` is set, in
    which case it is recorded in `skips` (and so counted in reports). `index` is the 0-based line
    number in the file, so it identifies the caption whatever was skipped.
    """
    return validate_captions(read_jsonl(path, skip_bad=skip_bad, skips=skips), path, skip_bad,
                             skips, caption_field, allow_empty)


def validate_captions(rows: Iterable[tuple[int, dict[str, Any]]], path: str | Path,
                      skip_bad: bool = False, skips: SkipLog | None = None,
                      caption_field: str = "caption", allow_empty: bool = False
                      ) -> list[CaptionRecord]:
    """`read_captions`' checks on `(line, object)` rows from any reader (halluscope's JSON lines,
    another harness's file): fields, ids, empty, overlong and NUL captions, one caption per
    image."""
    records: list[CaptionRecord] = []
    first_line: dict[str, int] = {}
    lines = 0
    for line, obj in rows:
        lines += 1
        try:
            record = _validate(obj, path, line, caption_field, allow_empty)
            # One caption per image: a second one would be counted twice in every rate, and
            # `image_id` is the key outputs are joined on.
            seen = first_line.setdefault(str(record.image_id), line)
            if seen != line:
                raise InputError(f"duplicate image_id {record.image_id!r} (first on line {seen})",
                                 path=path, line=line)
            records.append(record)
        except InputError as exc:
            if not skip_bad:
                raise
            if skips is not None:
                skips.add(path, line, exc.message)
    if not records and not lines and (skips is None or not skips.count):
        raise InputError("no captions in the file (it is empty)", path=path)
    return records


def _validate(obj: dict[str, Any], path: str | Path, line: int, caption_field: str,
              allow_empty: bool) -> CaptionRecord:
    for key in ("image_id", caption_field):
        if key not in obj:
            raise InputError(f"missing field {key!r}", path=path, line=line)
    try:
        image_id = normalise_image_id(obj["image_id"])
    except ValueError as exc:
        raise InputError(str(exc), path=path, line=line) from None
    caption = obj[caption_field]
    if not isinstance(caption, str):
        raise InputError(f"field {caption_field!r} must be a string", path=path, line=line)
    if not caption.strip() and not allow_empty:
        raise InputError("caption is empty", path=path, line=line)
    if len(caption) > MAX_CAPTION_CHARS:
        raise InputError(f"caption is {len(caption):,} characters long; the limit is "
                         f"{MAX_CAPTION_CHARS:,} (an image caption is a few hundred)",
                         path=path, line=line)
    if "\x00" in caption:
        raise InputError("caption contains a NUL character", path=path, line=line)
    extra = {k: v for k, v in obj.items() if k not in ("image_id", caption_field)}
    return CaptionRecord(line - 1, line, image_id, caption, extra)
