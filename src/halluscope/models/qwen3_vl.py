"""Qwen3-VL (`Qwen3VLForConditionalGeneration`, dense checkpoints; the MoE ones are not wired).

>>> Qwen3VLAdapter.module_map.vision_tower
'model.visual'

Prompt layout: the Qwen2.5-VL one without a default system turn ("<|im_start|>user\\n
<|vision_start|><|image_pad|><|vision_end|>{prompt}<|im_end|>\\n<|im_start|>assistant\\n"). The
processor expands <|image_pad|> to one token per 2x2 group of 16-px patches (size-dependent) and
returns `image_grid_thw`. DeepStack adds features of early vision layers to the hidden states of
the first decoder layers at the image positions, so residual-stream readings there mix in
vision features beyond the input embeddings. The processor's video part needs torchvision;
without it the processor is rebuilt with no video processor.
"""

from __future__ import annotations

from halluscope.models.base import VLMAdapter
from halluscope.models.qwen2_vl import QWEN_VL_MODULES


class Qwen3VLAdapter(VLMAdapter):
    """Qwen3-VL (Qwen/Qwen3-VL-*-Instruct, -Thinking).

    >>> from halluscope.models.tiny import encode_example
    >>> adapter, item = encode_example(Qwen3VLAdapter)
    >>> adapter.pixel_budget, item.image_span[1] - item.image_span[0]  # 16-px patches merged 2x2
    (True, 4)
    """

    family = "qwen3_vl"
    module_map = QWEN_VL_MODULES
    model_class = "transformers:Qwen3VLForConditionalGeneration"
    processor_class = "transformers:Qwen3VLProcessor"
    pixel_budget = True
    needs_video = True
