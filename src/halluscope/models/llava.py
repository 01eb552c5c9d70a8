"""LLaVA-1.5 in the llava-hf format (`LlavaForConditionalGeneration`).

>>> LlavaAdapter.module_map.layers
'model.language_model.layers'

Prompt layout: "USER: <image>\\n{prompt} ASSISTANT:" with <s> first; the processor expands
<image> to one token per vision patch (576 at 336 px, patch 14, CLS dropped).
"""

from __future__ import annotations

from halluscope.models.base import TRANSFORMERS5_MODULES, VLMAdapter

# transformers 5.x layout: the top model holds `model` (LlavaModel: vision_tower,
# multi_modal_projector, language_model = LlamaModel) and `lm_head`.
LLAVA_MODULES = TRANSFORMERS5_MODULES


class LlavaAdapter(VLMAdapter):
    """LLaVA-1.5 (llava-hf/llava-1.5-7b-hf and compatible checkpoints).

    >>> from halluscope.models.tiny import encode_example
    >>> adapter, item = encode_example(LlavaAdapter)
    >>> item.image_span[1] - item.image_span[0]  # (336 px / 14 px)^2 patches, CLS dropped
    576
    """

    family = "llava"
    module_map = LLAVA_MODULES
    model_class = "transformers:LlavaForConditionalGeneration"
    processor_class = "transformers:LlavaProcessor"
