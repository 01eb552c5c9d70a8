"""LLaVA-NeXT (LLaVA-1.6) in the llava-hf format (`LlavaNextForConditionalGeneration`).

>>> LlavaNextAdapter.module_map.final_norm
'model.language_model.norm'

Same prompt layout and module paths as LLaVA-1.5 (the template comes with each checkpoint:
vicuna "USER: ... ASSISTANT:", mistral "[INST] ... [/INST]"). The image becomes a base tile plus
anyres tiles, with one newline embedding per tile row: all of them sit at <image> placeholder
positions, so the image span is still one contiguous block, longer and size-dependent.
"""

from __future__ import annotations

from typing import Any

from halluscope.models.base import VLMAdapter
from halluscope.models.llava import LLAVA_MODULES


class LlavaNextAdapter(VLMAdapter):
    """LLaVA-NeXT (llava-hf/llava-v1.6-*-hf).

    >>> from halluscope.models.tiny import encode_example
    >>> adapter, item = encode_example(LlavaNextAdapter)
    >>> adapter.tile_layout, adapter.tile_tokens(), item.image_span[1] - item.image_span[0]
    ('base_first', 576, 1026)
    """

    family = "llava_next"
    module_map = LLAVA_MODULES
    model_class = "transformers:LlavaNextForConditionalGeneration"
    processor_class = "transformers:LlavaNextProcessor"
    tile_layout = "base_first"

    def tile_tokens(self) -> int | None:
        return base_tile_tokens(self.model.config)


def base_tile_tokens(config: Any) -> int:
    """Image features of the base tile: one per vision patch, (image_size / patch_size)^2 (CLIP's
    CLS is dropped by the "default" strategy, SigLIP has none).

    >>> from types import SimpleNamespace as NS
    >>> base_tile_tokens(NS(vision_config=NS(image_size=336, patch_size=14)))
    576
    """
    vision = config.vision_config
    size = vision.image_size if isinstance(vision.image_size, int) else vision.image_size[0]
    patch = vision.patch_size if isinstance(vision.patch_size, int) else vision.patch_size[0]
    return (int(size) // int(patch)) ** 2
