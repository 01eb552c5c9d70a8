"""Gemma 3 (`Gemma3ForConditionalGeneration`, SigLIP vision tower).

>>> Gemma3Adapter.module_map.vision_tower
'model.vision_tower'

Prompt layout: "<bos><start_of_turn>user\\n<start_of_image>{prompt}<end_of_turn>\\n<start_of_turn>
model\\n"; the processor expands <start_of_image> to "\\n\\n<start_of_image>" + mm_tokens_per_image
<image_soft_token> + "<end_of_image>\\n\\n" and returns `token_type_ids` (1 at image tokens),
which the model needs for its bidirectional image attention; `encode` carries them through
re-padding (0 for caption and padding).
"""

from __future__ import annotations

from typing import Any, Sequence

from halluscope.models.base import TRANSFORMERS5_MODULES, VLMAdapter

GEMMA3_MODULES = TRANSFORMERS5_MODULES


class Gemma3Adapter(VLMAdapter):
    """Gemma 3 image-text checkpoints (google/gemma-3-*-it, 4B and larger).

    >>> from halluscope.models.tiny import encode_example
    >>> adapter, item = encode_example(Gemma3Adapter)
    >>> item.image_span[1] - item.image_span[0]  # mm_tokens_per_image: 4 here, 256 in the real ones
    4
    """

    family = "gemma3"
    module_map = GEMMA3_MODULES
    model_class = "transformers:Gemma3ForConditionalGeneration"
    processor_class = "transformers:Gemma3Processor"

    def processor_images(self, images: Sequence[Any]) -> Any:
        """Gemma3Processor wants one list of images per sample."""
        return [[image] for image in images]
