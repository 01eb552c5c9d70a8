"""VLM runtime: one adapter per model family behind a lazy registry, and tiny test models.

>>> from halluscope.models import FAMILIES
>>> FAMILIES.entry("llava").target
'halluscope.models.llava:LlavaAdapter'

Importing this package does not import torch or transformers; `load_adapter` and `make_tiny`
import them when called.
"""

from halluscope.models.base import EncodedBatch, EncodedItem, Generation, ModuleMap, VLMAdapter
from halluscope.models.registry import FAMILIES, adapter_class, load_adapter
from halluscope.models.tiny import TINY_ARCHES, make_tiny


__all__ = ["FAMILIES", "EncodedBatch", "EncodedItem", "Generation", "ModuleMap",
           "TINY_ARCHES", "VLMAdapter", "adapter_class", "load_adapter", "make_tiny"]
