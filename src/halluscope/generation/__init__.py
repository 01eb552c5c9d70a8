"""Generating captions with a VLM: batched greedy decoding into a resumable run directory.

>>> from halluscope.generation import BACKENDS
>>> sorted(BACKENDS)
['hf', 'vllm']

`caption_images(adapter, items, out_dir)` writes one row per image (caption, token ids, per-token
log-probabilities, finish reason, or an error) into a `RunStore`; `export_captions(out_dir)`
writes the `captions.jsonl` that `halluscope label` and `halluscope signals` read. torch is
imported only when a batch is generated.
"""

from halluscope.generation.backends import (BACKENDS, GeneratedText, GenerationBackend,
                                            HFBackend, load_backend)
from halluscope.generation.captioning import (DEFAULT_MAX_NEW_TOKENS, DEFAULT_PROMPT,
                                              CaptionSummary, caption_images, export_captions)
from halluscope.generation.items import (CaptionItem, as_items, items_from_folder,
                                         items_from_jsonl)

__all__ = ["BACKENDS", "CaptionItem", "as_items", "CaptionSummary", "DEFAULT_MAX_NEW_TOKENS",
           "DEFAULT_PROMPT", "GeneratedText", "GenerationBackend", "HFBackend",
           "caption_images", "export_captions", "items_from_folder", "items_from_jsonl",
           "load_backend"]
