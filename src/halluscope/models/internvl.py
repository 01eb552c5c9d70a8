"""InternVL (2.5 / 3 / 3.5) in the Hugging Face format (`InternVLForConditionalGeneration`).

>>> InternVLAdapter.processor_kwargs
('image_seq_length',)

Only the "-hf" checkpoints (OpenGVLab/InternVL3-1B-hf, ...) load here; the original
trust_remote_code ones (model_type "internvl_chat") do not. Prompt layout: "<|im_start|>user\\n
<IMG_CONTEXT>\\n{prompt}<|im_end|>\\n<|im_start|>assistant\\n"; the processor expands the
placeholder to "<img>" + image_seq_length * tiles "<IMG_CONTEXT>" + "</img>", the image being cut
into 1-12 tiles by its aspect ratio plus a thumbnail tile when there is more than one. The model
config's image_token_id is <IMG_CONTEXT>, so `image_span` covers the context tokens of all tiles
(one contiguous block, size-dependent) and not the <img> / </img> markers either side of it. The
tokenizer must carry `start_image_token`, `end_image_token`, `context_image_token` and
`video_token`; the processor's video part needs torchvision, so without it the processor is
rebuilt (image_seq_length read from processor_config.json).
"""

from __future__ import annotations

from halluscope.models.base import TRANSFORMERS5_MODULES, VLMAdapter
from halluscope.models.llava_onevision import SavedProcessorArgs

# transformers 5.x: `model` (InternVLModel: vision_tower = InternVLVisionModel,
# multi_modal_projector, language_model = Qwen2Model or Qwen3Model) and `lm_head`.
INTERNVL_MODULES = TRANSFORMERS5_MODULES


class InternVLAdapter(SavedProcessorArgs, VLMAdapter):
    """InternVL HF-format checkpoints (OpenGVLab/InternVL3-*-hf, InternVL3_5-*-HF).

    >>> from halluscope.models.tiny import encode_example
    >>> adapter, item = encode_example(InternVLAdapter)
    >>> adapter.tile_layout, adapter.tile_tokens(), item.image_span[1] - item.image_span[0]
    ('thumbnail_last', 4, 52)
    """

    family = "internvl"
    module_map = INTERNVL_MODULES
    model_class = "transformers:InternVLForConditionalGeneration"
    processor_class = "transformers:InternVLProcessor"
    needs_video = True
    processor_kwargs = ("image_seq_length",)
    tile_layout = "thumbnail_last"

    def tile_tokens(self) -> int | None:
        return int(self.model.config.image_seq_length)  # patches after the pixel shuffle
