"""What `signals` reads: captions as JSON lines, or a `halluscope caption` run directory.

>>> import json, tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "caps.jsonl"
>>> _ = p.write_text(json.dumps({"image_id": 7, "caption": "A cat."}) + "\\n")
>>> d = p.parent / "images"; d.mkdir(); _ = (d / "COCO_val2014_000000000007.jpg").write_bytes(b"")
>>> read_items(p, images_dir=d)
[{'image_id': 7, 'caption': 'A cat.', 'image': 'COCO_val2014_000000000007.jpg'}]

Without an `image` field a line's image is found the way `halluscope caption` reads a folder:
the file in `--images` whose name gives that id (`7.jpg`, `000000000007.jpg`,
`COCO_val2014_000000000007.jpg`); no such file, or no `--images`, is an error naming the line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def read_items(path: Path, images_dir: Path | None = None) -> list[dict[str, Any]]:
    """JSON lines `{"image_id", "image", "caption"[, "token_ids", "prompt"]}`; blank lines
    skipped; without `image`, the file in `images_dir` named by the image id (module docstring).
    A `halluscope caption` run directory gives its captioned rows with their generated
    `token_ids` (teacher-forced exactly) and its prompt."""
    from halluscope.data.captions import normalise_image_id
    from halluscope.errors import InputError
    from halluscope.io.jsonl import read_jsonl

    if path.is_dir():
        from halluscope.generation.captioning import open_run

        store = open_run(path)
        prompt = store.manifest["config"].get("prompt")
        return [{"image_id": r["image_id"], "image": r["image"], "caption": r["caption"],
                 "token_ids": r["token_ids"], "prompt": prompt}
                for r in store.rows() if r["error"] is None and r["token_ids"]]

    items = []
    by_id: dict[str, str] | None = None
    for line, record in read_jsonl(path):
        if "image" not in record and "image_id" in record:
            if images_dir is None:
                raise InputError("no 'image' field: give each line an image path, or --images "
                                 "DIR holding files named by image id", path=path, line=line)
            if by_id is None:
                by_id = _images_by_id(Path(images_dir))
            try:
                key = str(normalise_image_id(record["image_id"]))
            except ValueError as exc:
                raise InputError(str(exc), path=path, line=line) from None
            if key not in by_id:
                raise InputError(f"no image for image_id {record['image_id']!r} in {images_dir} "
                                 f"(looked for a file whose name gives that id, e.g. {key}.jpg "
                                 "or a COCO name); or give the line an 'image' field",
                                 path=path, line=line)
            record["image"] = by_id[key]
        items.append(record)
    return items


def _images_by_id(folder: Path) -> dict[str, str]:
    """File name (relative to `folder`) by image id, as `caption --images` names them."""
    from halluscope.generation.items import items_from_folder

    return {str(item.image_id): Path(item.image).name for item in items_from_folder(folder)}
