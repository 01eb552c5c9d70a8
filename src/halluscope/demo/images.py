"""Images the project draws itself for the model-side demo (no downloads, deterministic).

>>> images = draw_demo_images(2, size=64)
>>> [im.size for im in images], images[0].tobytes() == draw_demo_images(1, size=64)[0].tobytes()
([(64, 64), (64, 64)], True)

Simple scenes: a sky/ground split with a few coloured shapes. They carry no meaning for a random
tiny model; they exist so captioning and signal extraction run end to end on real image files.
"""

from __future__ import annotations

import random
from pathlib import Path

_PALETTE = [(200, 60, 50), (60, 140, 60), (50, 90, 190), (230, 190, 40), (120, 70, 150),
            (240, 240, 240), (30, 30, 30)]


def draw_demo_images(count: int, size: int = 336, seed: int = 0) -> list:
    from PIL import Image, ImageDraw

    images = []
    for index in range(count):
        rng = random.Random(seed * 100_003 + index)  # one stream per image: order-independent
        image = Image.new("RGB", (size, size), (135, 190, 235))
        draw = ImageDraw.Draw(image)
        horizon = rng.randint(size // 2, 3 * size // 4)
        draw.rectangle([0, horizon, size, size], fill=(110, 160, 80))
        for _ in range(rng.randint(2, 5)):
            x0, y0 = rng.randint(0, size - size // 4), rng.randint(0, size - size // 4)
            x1, y1 = x0 + rng.randint(size // 10, size // 4), y0 + rng.randint(size // 10, size // 4)
            colour = rng.choice(_PALETTE)
            (draw.ellipse if rng.random() < 0.5 else draw.rectangle)([x0, y0, x1, y1], fill=colour)
        images.append(image)
    return images


def write_demo_images(folder: str | Path, count: int, size: int = 336, seed: int = 0
                      ) -> list[Path]:
    """Save the images as PNG files named by a COCO-style integer id; returns the paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, image in enumerate(draw_demo_images(count, size, seed), start=1):
        path = folder / f"{index:012d}.png"
        image.save(path)
        paths.append(path)
    return paths
