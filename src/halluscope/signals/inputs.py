"""What `signals` reads: captions as JSON lines, or a `halluscope caption` run directory.

>>> import json, tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "caps.jsonl"
>>> _ = p.write_text(json.dumps({"image_id": 7, "caption": "A cat."}) + "\\n")
>>> read_items(p)
[{'image_id': 7, 'caption': 'A cat.', 'image': '7'}]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def read_items(path: Path) -> list[dict[str, Any]]:
    """JSON lines `{"image_id", "image", "caption"[, "token_ids", "prompt"]}`; blank lines
    skipped; `image` defaults to the image_id. A `halluscope caption` run directory gives its
    captioned rows with their generated `token_ids` (teacher-forced exactly) and its prompt."""
    from halluscope.io.jsonl import read_jsonl

    if path.is_dir():
        from halluscope.generation.captioning import open_run

        store = open_run(path)
        prompt = store.manifest["config"].get("prompt")
        return [{"image_id": r["image_id"], "image": r["image"], "caption": r["caption"],
                 "token_ids": r["token_ids"], "prompt": prompt}
                for r in store.rows() if r["error"] is None and r["token_ids"]]

    items = []
    for _, record in read_jsonl(path):
        if "image" not in record and "image_id" in record:
            record["image"] = str(record["image_id"])
        items.append(record)
    return items
