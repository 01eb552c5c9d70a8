"""Images the project draws itself for the model-side demo (no downloads, deterministic).

>>> images = draw_demo_images(2, size=64)
>>> [im.size for im in images], images[0].tobytes() == draw_demo_images(1, size=64)[0].tobytes()
([(64, 64), (64, 64)], True)

Simple scenes: a sky/ground split with a few coloured shapes. They carry no meaning for a random
tiny model; they exist so captioning, signal extraction and the HalluPrism probes run end to end
on real image files. `demo_scene` gives what an image shows (each shape's kind, colour and box),
so the prism demo can write questions whose gold answers are true of the pixels.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

_PALETTE = [(200, 60, 50), (60, 140, 60), (50, 90, 190), (230, 190, 40), (120, 70, 150),
            (240, 240, 240), (30, 30, 30)]
#: The palette's colours by name, in palette order.
COLOUR_NAMES = ("red", "green", "blue", "yellow", "purple", "white", "black")
SHAPE_KINDS = ("ellipse", "rectangle")
_SKY, _GROUND = (135, 190, 235), (110, 160, 80)


@dataclass(frozen=True)
class Shape:
    """One drawn shape: `kind` (ellipse or rectangle), colour name and box (x0, y0, x1, y1).

    >>> Shape("ellipse", "red", (0, 0, 10, 10)).name
    'red ellipse'
    """

    kind: str
    colour: str
    box: tuple[int, int, int, int]

    @property
    def name(self) -> str:
        return f"{self.colour} {self.kind}"


@dataclass(frozen=True)
class Scene:
    """What one demo image shows: the horizon row and the shapes in drawing order (later shapes
    are drawn over earlier ones)."""

    size: int
    horizon: int
    shapes: tuple[Shape, ...]


def demo_scene(index: int, size: int = 336, seed: int = 0) -> Scene:
    """The layout of demo image `index` (0-based; the file is `{index + 1:012d}.png`).

    >>> s = demo_scene(0, size=64); s.size, len(s.shapes) >= 2, s.shapes[0].kind in SHAPE_KINDS
    (64, True, True)
    """
    rng = random.Random(seed * 100_003 + index)  # one stream per image: order-independent
    horizon = rng.randint(size // 2, 3 * size // 4)
    shapes = []
    # The draw order of the random calls is the images' definition: do not reorder.
    for _ in range(rng.randint(2, 5)):
        x0, y0 = rng.randint(0, size - size // 4), rng.randint(0, size - size // 4)
        x1, y1 = x0 + rng.randint(size // 10, size // 4), y0 + rng.randint(size // 10, size // 4)
        colour = rng.choice(range(len(_PALETTE)))
        kind = SHAPE_KINDS[0] if rng.random() < 0.5 else SHAPE_KINDS[1]
        shapes.append(Shape(kind, COLOUR_NAMES[colour], (x0, y0, x1, y1)))
    return Scene(size, horizon, tuple(shapes))


def draw_scene(scene: Scene):
    """The RGB PIL image of a scene."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (scene.size, scene.size), _SKY)
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, scene.horizon, scene.size, scene.size], fill=_GROUND)
    for shape in scene.shapes:
        fill = _PALETTE[COLOUR_NAMES.index(shape.colour)]
        (draw.ellipse if shape.kind == "ellipse" else draw.rectangle)(list(shape.box), fill=fill)
    return image


def draw_demo_images(count: int, size: int = 336, seed: int = 0) -> list:
    return [draw_scene(demo_scene(index, size, seed)) for index in range(count)]


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
