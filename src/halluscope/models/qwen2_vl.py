"""Qwen2-VL and Qwen2.5-VL (one module: same prompt layout, processor and module paths).

>>> Qwen2_5_VLAdapter.module_map == Qwen2VLAdapter.module_map
True

Prompt layout: the Qwen chat template ("<|im_start|>user\\n<|vision_start|><|image_pad|>
<|vision_end|>{prompt}<|im_end|>\\n<|im_start|>assistant\\n"); the processor expands
<|image_pad|> to one token per 2x2 group of 14-px patches, a number that depends on the image
size, and returns `image_grid_thw`, which the model needs. The processor's video part needs
torchvision; without it the processor is rebuilt with no video processor.
"""

from __future__ import annotations

from dataclasses import replace

from halluscope.models.base import TRANSFORMERS5_MODULES, VLMAdapter

# transformers 5.x: `model` (…VLModel: visual, language_model = …TextModel) and `lm_head`.
QWEN_VL_MODULES = replace(TRANSFORMERS5_MODULES, vision_tower="model.visual")


class Qwen2_5_VLAdapter(VLMAdapter):
    """Qwen2.5-VL (Qwen/Qwen2.5-VL-*-Instruct).

    >>> from halluscope.models.tiny import encode_example
    >>> adapter, item = encode_example(Qwen2_5_VLAdapter)
    >>> adapter.pixel_budget, item.image_span[1] - item.image_span[0]  # 14-px patches merged 2x2
    (True, 4)
    """

    family = "qwen2_5_vl"
    module_map = QWEN_VL_MODULES
    model_class = "transformers:Qwen2_5_VLForConditionalGeneration"
    processor_class = "transformers:Qwen2_5_VLProcessor"
    pixel_budget = True
    needs_video = True


class Qwen2VLAdapter(VLMAdapter):
    """Qwen2-VL (Qwen/Qwen2-VL-*-Instruct).

    >>> from halluscope.models.tiny import encode_example
    >>> adapter, item = encode_example(Qwen2VLAdapter)
    >>> adapter.pixel_budget, item.image_span[1] - item.image_span[0]  # 14-px patches merged 2x2
    (True, 4)
    """

    family = "qwen2_vl"
    module_map = QWEN_VL_MODULES
    model_class = "transformers:Qwen2VLForConditionalGeneration"
    processor_class = "transformers:Qwen2VLProcessor"
    pixel_budget = True
    needs_video = True
