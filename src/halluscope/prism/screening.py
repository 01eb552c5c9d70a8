"""Items whose image cannot be probed: outside the image root, or not a decodable image.

>>> import tempfile, pathlib
>>> from halluscope.prism.datasets import Dataset, Item
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "bad.jpg").write_bytes(b"not a JPEG")
>>> ds = Dataset("vsr", "f.jsonl", [Item("bad", "vsr", str(d / "bad.jpg"), "q", "true", "truefalse")])
>>> list(screen_images(ds, d))
['bad']

A probe run reads every image in a worker; one unreadable file there would stop the whole run.
Screening decodes each image file once up front (as `caption` and `signals` do per item), so such items
are skipped and counted like items whose image is missing, with the reason printed.
"""

from __future__ import annotations

from pathlib import Path

from halluscope.generation.items import ImageLoadError, load_image
from halluscope.io.paths import ALLOW_OPTION, outside_root
from halluscope.prism.datasets import Dataset


def screen_images(ds: Dataset, images_dir: str | Path | None,
                  allow_outside: bool = False) -> dict[str, str]:
    """`{item_id: reason}` for items with an image file that is outside `images_dir` (unless
    `allow_outside`) or cannot be decoded; items already missing are not repeated."""
    bad: dict[str, str] = {}
    verdicts: dict[str, str | None] = {}  # per file: POPE asks six questions of each image
    for item in ds.present():
        if images_dir is not None and not allow_outside and outside_root(item.image, images_dir):
            bad[item.item_id] = (f"{item.image}: outside the image root {images_dir} "
                                 f"(pass {ALLOW_OPTION} to read it)")
            continue
        if item.image not in verdicts:
            verdicts[item.image] = _unreadable(item.image)
        if verdicts[item.image] is not None:
            bad[item.item_id] = verdicts[item.image]
    return bad


def _unreadable(path: str) -> str | None:
    try:
        load_image(path)
    except ImageLoadError as exc:
        return str(exc)
    return None
