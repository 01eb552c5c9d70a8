"""LLaVA-OneVision in the llava-hf format (`LlavaOnevisionForConditionalGeneration`).

>>> LlavaOnevisionAdapter.module_map.vision_tower
'model.vision_tower'

Prompt layout: "<|im_start|>user <image>\\n{prompt}<|im_end|><|im_start|>assistant\\n" (Qwen2
turns, a space after the role, no newline after <|im_end|>). A single image becomes a base tile
plus anyres tiles chosen from `image_grid_pinpoints` by the image's size; the unpadded tile grid
gets one newline embedding at the end of each of its rows (the base tile gets none). The base
tile, the tile grid and the newline embeddings all sit at <image> placeholder positions, so
`image_span` is one contiguous block covering all three, and its length depends on the image
size. The processor's video part needs torchvision; without it the processor is rebuilt with no
video processor, its token counts read from processor_config.json.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from halluscope.errors import ConfigError
from halluscope.models.base import TRANSFORMERS5_MODULES, VLMAdapter, _import

# transformers 5.x: `model` (LlavaOnevisionModel: vision_tower = SiglipVisionModel,
# multi_modal_projector, image_newline, language_model = Qwen2Model) and `lm_head`.
ONEVISION_MODULES = TRANSFORMERS5_MODULES


def saved_processor_kwargs(path_or_id: str, names: tuple[str, ...]) -> dict[str, Any]:
    """The `names` found at the top level of a checkpoint's processor_config.json ({} if none).

    >>> saved_processor_kwargs("/nonexistent-folder", ("image_seq_length",))
    {}

    When the processor is rebuilt from its parts (no torchvision), these init arguments (e.g.
    OneVision's `num_image_tokens`, InternVL's `image_seq_length`) would otherwise fall back to
    the class defaults, which are the full-size models' and would mis-count image tokens.
    """
    from transformers.utils import cached_file

    try:
        path = cached_file(path_or_id, "processor_config.json",
                           _raise_exceptions_for_missing_entries=False,
                           _raise_exceptions_for_connection_errors=False)
    except (OSError, ValueError):
        return {}
    if path is None:
        return {}
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: not a readable processor config ({exc})") from exc
    return {name: data[name] for name in names if name in data}


class SavedProcessorArgs:
    """Mixin: load the processor with the init arguments named in `processor_kwargs` taken from
    processor_config.json, so the rebuild without a video processor keeps them."""

    processor_kwargs: ClassVar[tuple[str, ...]] = ()
    processor_class: ClassVar[str]
    needs_video: ClassVar[bool]

    @classmethod
    def load_processor(cls, path_or_id: str) -> Any:
        from halluscope.models.processing import load_processor

        try:
            kwargs = saved_processor_kwargs(path_or_id, cls.processor_kwargs)
            return load_processor(path_or_id, _import(cls.processor_class), cls.needs_video,
                                  **kwargs)
        except OSError as exc:
            raise ConfigError(f"cannot load processor from {path_or_id!r}: {exc}") from exc


class LlavaOnevisionAdapter(SavedProcessorArgs, VLMAdapter):
    """LLaVA-OneVision (llava-hf/llava-onevision-qwen2-*-ov-hf and compatible checkpoints).

    >>> from halluscope.models.tiny import encode_example
    >>> adapter, item = encode_example(LlavaOnevisionAdapter)
    >>> adapter.tile_layout, adapter.tile_tokens(), item.image_span[1] - item.image_span[0]
    ('base_first', 16, 44)
    """

    family = "llava_onevision"
    module_map = ONEVISION_MODULES
    model_class = "transformers:LlavaOnevisionForConditionalGeneration"
    processor_class = "transformers:LlavaOnevisionProcessor"
    needs_video = True
    processor_kwargs = ("num_image_tokens", "vision_feature_select_strategy",
                        "vision_aspect_ratio", "image_token", "video_token")
    tile_layout = "base_first"

    def tile_tokens(self) -> int | None:
        from halluscope.models.llava_next import base_tile_tokens

        return base_tile_tokens(self.model.config)
