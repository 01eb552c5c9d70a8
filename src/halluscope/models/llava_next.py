"""LLaVA-NeXT (LLaVA-1.6) in the llava-hf format (`LlavaNextForConditionalGeneration`).

>>> LlavaNextAdapter.module_map.final_norm
'model.language_model.norm'

Same prompt layout and module paths as LLaVA-1.5 (the template comes with each checkpoint:
vicuna "USER: ... ASSISTANT:", mistral "[INST] ... [/INST]"). The image becomes a base tile plus
anyres tiles, with one newline embedding per tile row: all of them sit at <image> placeholder
positions, so the image span is still one contiguous block, longer and size-dependent.
"""

from __future__ import annotations

from halluscope.models.base import VLMAdapter
from halluscope.models.llava import LLAVA_MODULES


class LlavaNextAdapter(VLMAdapter):
    """LLaVA-NeXT (llava-hf/llava-v1.6-*-hf)."""

    family = "llava_next"
    model_types = ("llava_next",)
    module_map = LLAVA_MODULES
    model_class = "transformers:LlavaNextForConditionalGeneration"
    processor_class = "transformers:LlavaNextProcessor"
