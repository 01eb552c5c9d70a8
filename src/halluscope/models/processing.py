"""Building processors whose video processor cannot be built here (it needs torchvision).

>>> _ERRORS_MEANING_NO_VIDEO[0].__name__
'ImportError'

Qwen2-VL, Qwen2.5-VL, LLaVA-OneVision and InternVL processors refuse to build without a video
processor, and theirs needs torchvision, which does not import beside torch 2.13. halluscope only
feeds images, so `load_processor` first tries the normal `from_pretrained`, and when that fails
rebuilds the processor from the folder's tokenizer and image processor with `video_processor=None`
through a subclass that accepts None.
"""

from __future__ import annotations

import functools
from typing import Any

_ERRORS_MEANING_NO_VIDEO: tuple[type[Exception], ...] = (
    ImportError, ValueError, TypeError, OSError, AttributeError, KeyError)


@functools.cache
def without_video(processor_cls: type) -> type:
    """A subclass of `processor_cls` that accepts `video_processor=None` (cached per class)."""

    def check_argument_for_proper_class(self: Any, name: str, arg: Any) -> Any:
        if arg is None and name == "video_processor":
            return None
        return super(cls, self).check_argument_for_proper_class(name, arg)

    cls = type(f"{processor_cls.__name__}NoVideo", (processor_cls,),
               {"check_argument_for_proper_class": check_argument_for_proper_class})
    return cls


def build_without_video(processor_cls: type, image_processor: Any, tokenizer: Any,
                        **kwargs: Any) -> Any:
    """The processor built from its parts, with no video processor, the chat template taken
    from the tokenizer unless given."""
    kwargs.setdefault("chat_template", getattr(tokenizer, "chat_template", None))
    return without_video(processor_cls)(image_processor=image_processor, tokenizer=tokenizer,
                                        video_processor=None, **kwargs)


def load_processor(path_or_id: str, processor_cls: type, needs_video: bool,
                   **kwargs: Any) -> Any:
    """`processor_cls.from_pretrained`, or (for processors with a video part) the processor
    rebuilt from the saved tokenizer and image processor when the video part cannot be loaded."""
    try:
        return processor_cls.from_pretrained(path_or_id, **kwargs)
    except _ERRORS_MEANING_NO_VIDEO:
        if not needs_video:
            raise
    from transformers import AutoImageProcessor, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path_or_id)
    image_processor = AutoImageProcessor.from_pretrained(path_or_id)
    return build_without_video(processor_cls, image_processor, tokenizer, **kwargs)
