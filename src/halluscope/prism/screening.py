"""Items whose image cannot be probed: outside the image root, or not a decodable image.

>>> import tempfile, pathlib
>>> from halluscope.prism.datasets import Dataset, Item
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "bad.jpg").write_bytes(b"not a JPEG")
>>> ds = Dataset("vsr", "f.jsonl", [Item("bad", "vsr", str(d / "bad.jpg"), "q", "true", "truefalse")])
>>> list(screen_images(ds, d))
['bad']

A probe run reads every image in a worker; one unreadable file there would stop the whole run.
Screening decodes each image once up front (as `caption` and `signals` do per item), so such items
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
    for item in ds.present():
        if images_dir is not None and not allow_outside and outside_root(item.image, images_dir):
            bad[item.item_id] = (f"{item.image}: outside the image root {images_dir} "
                                 f"(pass {ALLOW_OPTION} to read it)")
            continue
        try:
            load_image(item.image)
        except ImageLoadError as exc:
            bad[item.item_id] = str(exc)
    return bad
