"""Visual perturbations of the HalluPrism V probe, the blank image of the L probe: pure PIL/numpy.

>>> from PIL import Image
>>> img = Image.new("RGB", (40, 30), (200, 120, 40))
>>> [(name, im.size) for name, im in visual_perturbations(img, "vsr_dev_000000")]
[('blur_heavy', (40, 30)), ('crop_aggressive', (40, 30)), ('brightness_low', (40, 30)), ('noise', (40, 30))]

Strengths follow the paper's Table 12 (`PRESETS`: weak / default / strong); the default is
Appendix 9.2.1 (blur sigma 15, centre crop keeping 50% of each side resized back, brightness to
30%, Gaussian noise sigma 25 on the 0-255 scale). The perturbation names are the released
rows' `v_per_perturbation` keys (`blur_heavy`, `crop_aggressive`, `brightness_low`, `noise`)
whatever the preset, so rows compare key by key; the preset is recorded beside them.

Noise is drawn from a generator seeded by a hash of the item id (`stable_seed`), never from a
global or per-batch generator, so an item's noisy image is the same however items are batched,
ordered or resumed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

#: Grey of the blank canvas (the reference code's fill).
BLANK_FILL = (128, 128, 128)
#: The reference code's fixed blank canvas size (Appendix 9.2.2 says "the same input size").
REFERENCE_BLANK_SIZE = (384, 384)
#: Names of the four visual probes, in the released rows' order.
PERTURBATION_NAMES = ("blur_heavy", "crop_aggressive", "brightness_low", "noise")


@dataclass(frozen=True)
class Preset:
    """Strengths of the four visual perturbations.

    >>> PRESETS["strong"].crop_fraction
    0.25

    `blur_sigma`: Gaussian blur standard deviation in pixels; `crop_fraction`: fraction of each
    side kept by the centre crop; `brightness`: multiplicative brightness factor;
    `noise_sigma`: Gaussian noise standard deviation on the 0-255 scale.
    """

    blur_sigma: float
    crop_fraction: float
    brightness: float
    noise_sigma: float


#: Table 12 of the paper.
PRESETS: dict[str, Preset] = {
    "weak": Preset(blur_sigma=8.0, crop_fraction=0.75, brightness=0.5, noise_sigma=10.0),
    "default": Preset(blur_sigma=15.0, crop_fraction=0.5, brightness=0.3, noise_sigma=25.0),
    "strong": Preset(blur_sigma=22.0, crop_fraction=0.25, brightness=0.15, noise_sigma=50.0),
}


def get_preset(name: str) -> Preset:
    """A preset by name, or a ValueError listing the known ones.

    >>> get_preset("weak").blur_sigma
    8.0
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown perturbation preset {name!r} "
                         f"(known: {', '.join(PRESETS)})") from None


def stable_seed(item_id: str, salt: str = "noise") -> int:
    """A 64-bit seed from the item id (sha256, so it is the same on every machine and run).

    >>> stable_seed("a") == stable_seed("a"), stable_seed("a") == stable_seed("b")
    (True, False)

    Python's `hash()` is salted per process, hence a cryptographic hash.
    """
    digest = hashlib.sha256(f"{salt}\x00{item_id}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "little")


def _rgb(image: Image.Image) -> Image.Image:
    return image if image.mode == "RGB" else image.convert("RGB")


def gaussian_blur(image: Image.Image, sigma: float) -> Image.Image:
    """Gaussian blur with standard deviation `sigma` pixels.

    >>> from PIL import Image
    >>> gaussian_blur(Image.new("RGB", (8, 8), (10, 20, 30)), 15).getpixel((4, 4))
    (10, 20, 30)

    PIL's `GaussianBlur(radius)` takes the standard deviation (it is not a kernel radius).
    """
    from PIL import ImageFilter

    return _rgb(image).filter(ImageFilter.GaussianBlur(radius=float(sigma)))


def center_crop(image: Image.Image, fraction: float) -> Image.Image:
    """Keep the central `fraction` of each side, resized back to the original size (bicubic).

    >>> from PIL import Image
    >>> img = Image.new("RGB", (100, 60), (0, 0, 0)); img.putpixel((50, 30), (255, 255, 255))
    >>> out = center_crop(img, 0.5); out.size, out.getpixel((50, 30))[0] > 0
    ((100, 60), True)
    """
    from PIL import Image as PILImage

    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"crop fraction must be in (0, 1], got {fraction!r}")
    img = _rgb(image)
    w, h = img.size
    cw, ch = max(1, round(w * fraction)), max(1, round(h * fraction))
    left, top = (w - cw) // 2, (h - ch) // 2
    return img.crop((left, top, left + cw, top + ch)).resize((w, h), PILImage.Resampling.BICUBIC)


def darken(image: Image.Image, factor: float) -> Image.Image:
    """Brightness scaled by `factor` (1 unchanged, 0 black).

    >>> from PIL import Image
    >>> darken(Image.new("RGB", (2, 2), (200, 100, 50)), 0.3).getpixel((0, 0))
    (60, 30, 15)
    """
    from PIL import ImageEnhance

    return ImageEnhance.Brightness(_rgb(image)).enhance(float(factor))


def gaussian_noise(image: Image.Image, sigma: float, seed: int) -> Image.Image:
    """Add N(0, sigma^2) noise per pixel and channel (0-255 scale), clip, round to uint8.

    >>> from PIL import Image
    >>> img = Image.new("RGB", (4, 4), (128, 128, 128))
    >>> gaussian_noise(img, 25, seed=1).tobytes() == gaussian_noise(img, 25, seed=1).tobytes()
    True
    """
    import numpy as np
    from PIL import Image as PILImage

    arr = np.asarray(_rgb(image), dtype=np.float64)
    noise = np.random.default_rng(seed).normal(0.0, float(sigma), size=arr.shape)
    return PILImage.fromarray(np.clip(np.rint(arr + noise), 0, 255).astype(np.uint8), "RGB")


def blank_image(image: Image.Image | None = None, mode: str = "same") -> Image.Image:
    """A uniform grey canvas: the original's size (`mode="same"`, Appendix 9.2.2) or the
    reference code's fixed 384x384 (`mode="reference"`).

    >>> from PIL import Image
    >>> blank_image(Image.new("RGB", (50, 20))).size, blank_image(None, "reference").size
    ((50, 20), (384, 384))

    The size matters: most VLMs turn a different input size into a different number of image
    tokens, so a fixed canvas changes the sequence as well as removing the content.
    """
    from PIL import Image as PILImage

    if mode == "same":
        if image is None:
            raise ValueError("blank mode 'same' needs the original image for its size")
        size = image.size
    elif mode == "reference":
        size = REFERENCE_BLANK_SIZE
    else:
        raise ValueError(f"unknown blank mode {mode!r} (known: same, reference)")
    return PILImage.new("RGB", size, BLANK_FILL)


def perturb(image: Image.Image, name: str, item_id: str,
            preset: Preset | str = "default") -> Image.Image:
    """One named visual perturbation of one item's image.

    >>> from PIL import Image
    >>> perturb(Image.new("RGB", (4, 4), (100, 100, 100)), "brightness_low", "x").getpixel((0, 0))
    (30, 30, 30)
    """
    p = get_preset(preset) if isinstance(preset, str) else preset
    if name == "blur_heavy":
        return gaussian_blur(image, p.blur_sigma)
    if name == "crop_aggressive":
        return center_crop(image, p.crop_fraction)
    if name == "brightness_low":
        return darken(image, p.brightness)
    if name == "noise":
        return gaussian_noise(image, p.noise_sigma, stable_seed(item_id))
    raise ValueError(f"unknown perturbation {name!r} (known: {', '.join(PERTURBATION_NAMES)})")


def visual_perturbations(image: Image.Image, item_id: str, preset: Preset | str = "default"
                         ) -> list[tuple[str, Image.Image]]:
    """The four V-probe images of one item, `(name, image)` in `PERTURBATION_NAMES` order.

    >>> from PIL import Image
    >>> [n for n, _ in visual_perturbations(Image.new("RGB", (8, 8)), "i", "weak")]
    ['blur_heavy', 'crop_aggressive', 'brightness_low', 'noise']
    """
    return [(name, perturb(image, name, item_id, preset)) for name in PERTURBATION_NAMES]
