"""The adapter interface every VLM family implements, and the data-only module map hooks use.

>>> from types import SimpleNamespace as NS
>>> layer = NS(self_attn="attn")
>>> lm = NS(layers=[layer, layer], norm="norm", embed_tokens="emb")
>>> model = NS(model=NS(language_model=lm), lm_head="head")
>>> mm = ModuleMap(language_model="model.language_model", layers="model.language_model.layers",
...                attention="self_attn", final_norm="model.language_model.norm",
...                lm_head="lm_head", embed_tokens="model.language_model.embed_tokens")
>>> resolved = mm.resolve(model)
>>> len(resolved.layers), resolved.attentions, resolved.lm_head
(2, ['attn', 'attn'], 'head')

An adapter loads a checkpoint (hub id or local folder), applies the model's chat template, and
encodes images + prompts (+ captions) into one batch whose per-item layout says where the image
tokens are and where the caption starts, exactly as the model sees the sequence.

Teacher forcing: the sequence is prompt ids + caption ids.
- For the model's own captions pass the generated token ids: the sequence is then identical to
  the one the model produced (teacher-forced logits equal the generation logits).
- For text written by another model or a person, the caption is tokenized on its own without
  special tokens and appended. Leading space: when the generation prompt ends in a non-space
  character (LLaVA's "ASSISTANT:") and the tokenizer does not mark word starts itself (byte-level
  BPE; SentencePiece/Llama tokenizers do, with their "▁"), one space is put before a caption that
  does not start with whitespace, so the model reads "ASSISTANT: A cat", as it would have
  written it; the space belongs to no caption character. Qwen's prompt ends with a newline, so nothing is added.
Caption offsets are character spans in `EncodedItem.caption_text`, with leading whitespace
trimmed, so a token's span starts at its first visible character.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

from halluscope.errors import ConfigError, InputError

if TYPE_CHECKING:  # torch and transformers are imported only when a model is loaded
    import torch
    from PIL import Image

DTYPES: tuple[str, ...] = ("auto", "float32", "bfloat16", "float16")
PADDING_SIDES: tuple[str, ...] = ("left", "right")


def get_path(root: Any, dotted: str, what: str) -> Any:
    """`root.a.b.c` for `dotted="a.b.c"`, or a ConfigError naming the missing part.

    >>> from types import SimpleNamespace as NS
    >>> get_path(NS(a=NS(b=1)), "a.b", "final_norm")
    1
    >>> get_path(NS(a=NS(b=1)), "a.c", "final_norm")
    Traceback (most recent call last):
    ...
    halluscope.errors.ConfigError: module map: final_norm path 'a.c' not found in SimpleNamespace (no attribute 'c' under 'a')
    """
    obj = root
    walked: list[str] = []
    for part in dotted.split("."):
        if not hasattr(obj, part):
            under = ".".join(walked) or "<model>"
            raise ConfigError(f"module map: {what} path {dotted!r} not found in "
                              f"{type(root).__name__} (no attribute {part!r} under {under!r})")
        obj = getattr(obj, part)
        walked.append(part)
    return obj


@dataclass(frozen=True)
class ResolvedModules:
    """The modules a `ModuleMap` names, looked up on one model."""

    language_model: Any
    layers: Any
    attentions: list[Any]
    final_norm: Any
    lm_head: Any
    embed_tokens: Any
    vision_tower: Any = None


@dataclass(frozen=True)
class ModuleMap:
    """Dotted paths (data, no code) from a family's model object to the modules hooks need.

    `attention` is the attribute name of the self-attention inside one decoder layer; the other
    fields are paths from the top-level model. `vision_tower` is optional.
    """

    language_model: str
    layers: str
    attention: str
    final_norm: str
    lm_head: str
    embed_tokens: str
    vision_tower: str | None = None

    def resolve(self, model: Any) -> ResolvedModules:
        """Look every path up on `model`; a ConfigError names the first one missing."""
        layers = get_path(model, self.layers, "layers")
        if not (hasattr(layers, "__len__") and hasattr(layers, "__getitem__")) or not len(layers):
            raise ConfigError(f"module map: layers path {self.layers!r} is not a non-empty "
                              f"list of decoder layers in {type(model).__name__}")
        attentions = [get_path(layer, self.attention, f"attention (layer {i})")
                      for i, layer in enumerate(layers)]
        return ResolvedModules(
            language_model=get_path(model, self.language_model, "language_model"),
            layers=layers, attentions=attentions,
            final_norm=get_path(model, self.final_norm, "final_norm"),
            lm_head=get_path(model, self.lm_head, "lm_head"),
            embed_tokens=get_path(model, self.embed_tokens, "embed_tokens"),
            vision_tower=(get_path(model, self.vision_tower, "vision_tower")
                          if self.vision_tower else None))


@dataclass(frozen=True)
class EncodedItem:
    """Where things are in one row of an encoded batch (positions index the padded row).

    `image_span` is the [start, end) of the contiguous image-token block; the caption occupies
    [prompt_length, prompt_length + len(caption_token_ids)); the logits that predict caption
    token j sit at position prompt_length + j - 1. `caption_offsets[j]` is the character span of
    caption token j in `caption_text` (empty spans for special tokens such as EOS).
    """

    image_span: tuple[int, int]
    prompt_length: int
    caption_token_ids: list[int]
    caption_offsets: list[tuple[int, int]]
    caption_text: str
    padding: int  # pad tokens before the item (left padding), else 0
    length: int  # tokens of the item without padding

    @property
    def caption_span(self) -> tuple[int, int]:
        """[start, end) of the caption tokens in the padded row.

        >>> EncodedItem((1, 3), 5, [7, 8], [(0, 1), (2, 4)], "A cat", 0, 7).caption_span
        (5, 7)
        """
        return self.prompt_length, self.prompt_length + len(self.caption_token_ids)


@dataclass
class EncodedBatch:
    """Model keyword arguments (`model(**batch.inputs)`) and the per-item layout."""

    inputs: dict[str, Any]
    items: list[EncodedItem]
    padding_side: str = "left"

    @property
    def input_ids(self) -> torch.Tensor:
        return self.inputs["input_ids"]

    @property
    def attention_mask(self) -> torch.Tensor:
        return self.inputs["attention_mask"]

    def __len__(self) -> int:
        return len(self.items)

    def to(self, device: Any, dtype: Any = None) -> EncodedBatch:
        """Move tensors to `device`; floating tensors (pixels) also to `dtype` when given."""
        moved: dict[str, Any] = {}
        for key, value in self.inputs.items():
            if hasattr(value, "to"):
                value = value.to(device)
                if dtype is not None and value.is_floating_point():
                    value = value.to(dtype)
            moved[key] = value
        return EncodedBatch(moved, self.items, self.padding_side)


@dataclass(frozen=True)
class Generation:
    """One generated answer: token ids as produced (EOS kept if emitted) and decoded text."""

    token_ids: list[int]
    text: str
    logits: Any = field(default=None, repr=False)  # (steps, vocab) raw logits when asked for


def _torch_dtype(dtype: str) -> Any:
    import torch

    if dtype not in DTYPES:
        raise ConfigError(f"unknown dtype {dtype!r}; choose one of {', '.join(DTYPES)}")
    return "auto" if dtype == "auto" else getattr(torch, dtype)


def _import(qualified: str) -> Any:
    """`"module:Name"` -> the object (transformers classes are imported only when needed)."""
    import importlib

    module_name, name = qualified.split(":")
    return getattr(importlib.import_module(module_name), name)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop leading whitespace from a span (a token "Ġcat" covers "cat", not " cat").

    >>> _trim("a cat", 1, 5)
    (2, 5)
    >>> _trim("a  ", 1, 3)
    (3, 3)
    """
    while start < end and text[start].isspace():
        start += 1
    return start, end


def incremental_offsets(tokenizer: Any, token_ids: Sequence[int]) -> tuple[str, list[tuple[int, int]]]:
    """The decoded caption and each token's character span in it, by decoding growing prefixes.

    Token k covers the characters that decoding ids[:k+1] adds to decoding ids[:k]. Tokens that
    end inside a multi-byte character decode to U+FFFD until the character completes; they
    share the completed character's span. Special tokens are skipped in the text and get an empty
    span where they occur.
    """
    def decode(ids: Sequence[int]) -> str:
        return tokenizer.decode(list(ids), skip_special_tokens=True,
                                clean_up_tokenization_spaces=False)

    text = decode(token_ids)
    offsets: list[tuple[int, int]] = []
    pending: list[int] = []  # tokens waiting for their character to complete
    stable = 0  # length of the decoded prefix that later tokens no longer change
    for k in range(len(token_ids)):
        prefix = decode(token_ids[:k + 1])
        if prefix.endswith("\ufffd") and k + 1 < len(token_ids):
            pending.append(k)
            offsets.append((stable, stable))
            continue
        # Decoders may rewrite the end of the previous prefix; start where they still agree.
        start = stable if text.startswith(prefix[:stable]) else _common_prefix(prefix, text)
        end = max(start, min(len(prefix), len(text)))
        for p in pending:
            offsets[p] = (start, end)
        pending.clear()
        offsets.append((start, end))
        stable = end
    return text, [_trim(text, s, e) for s, e in offsets]


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


# transformers 5.x lays out every supported family alike: the top model holds `model` (vision
# tower, projector, `language_model`) and `lm_head`. Families differ at most in the vision tower.
TRANSFORMERS5_MODULES = ModuleMap(
    language_model="model.language_model",
    layers="model.language_model.layers",
    attention="self_attn",
    final_norm="model.language_model.norm",
    lm_head="lm_head",
    embed_tokens="model.language_model.embed_tokens",
    vision_tower="model.vision_tower",
)


class VLMAdapter:
    """A loaded VLM of one family: model, processor, tokenizer and the family's module map.

    Subclasses set the class attributes below; most families need nothing else.
    """

    family: ClassVar[str]
    module_map: ClassVar[ModuleMap]
    model_class: ClassVar[str]  # "transformers:LlavaForConditionalGeneration"
    processor_class: ClassVar[str]
    needs_video: ClassVar[bool] = False  # processor has a video part (needs torchvision)
    # The processor takes a pixel budget (`max_pixels`, Qwen-VL's dynamic resolution).
    pixel_budget: ClassVar[bool] = False
    # Where the tile that shows the whole image at base resolution sits in a tiled image block
    # ("base_first", "thumbnail_last"; `signals.features.dhcp_grid`); "" for one grid per block.
    tile_layout: ClassVar[str] = ""

    def __init__(self, model: Any, processor: Any):
        self.model = model
        self.processor = processor
        self.tokenizer = processor.tokenizer
        image_token_id = getattr(model.config, "image_token_id", None)
        if image_token_id is None:
            image_token_id = getattr(model.config, "image_token_index", None)
        if image_token_id is None:
            raise ConfigError(f"{type(model).__name__} config has no image_token_id")
        self.image_token_id: int = int(image_token_id)
        # Checked here, at load time, so a wrong path fails before any hook is attached.
        self.modules: ResolvedModules = self.module_map.resolve(model)
        self._caption_prefix: str | None = None

    def tile_tokens(self) -> int | None:
        """Image tokens of one tile of a tiled family (None for one grid per image block)."""
        return None

    # ---------------------------------------------------------------- loading
    @classmethod
    def load(cls, path_or_id: str, dtype: str = "auto", device: str = "cpu",
             device_map: Any = None, attn_implementation: str = "sdpa",
             **kwargs: Any) -> VLMAdapter:
        """Load model and processor from a hub id or a local folder.

        `device_map` (e.g. "auto") places the model with accelerate and overrides `device`.
        Use `attn_implementation="eager"` wherever attention weights are read: with sdpa,
        `output_attentions=True` returns nothing.
        """
        model_cls = _import(cls.model_class)
        try:
            model = model_cls.from_pretrained(str(path_or_id), dtype=_torch_dtype(dtype),
                                              attn_implementation=attn_implementation,
                                              device_map=device_map, **kwargs)
        except OSError as exc:
            raise ConfigError(f"cannot load {cls.family} model from {path_or_id!r}: {exc}") from exc
        if device_map is None:
            model = model.to(device)
        model.eval()
        return cls(model, cls.load_processor(str(path_or_id)))

    @classmethod
    def load_processor(cls, path_or_id: str) -> Any:
        """The family's processor (rebuilt without video where torchvision is missing)."""
        from halluscope.models.processing import load_processor

        try:
            return load_processor(path_or_id, _import(cls.processor_class), cls.needs_video)
        except OSError as exc:
            raise ConfigError(f"cannot load processor from {path_or_id!r}: {exc}") from exc

    @property
    def device(self) -> Any:
        return self.model.device

    # ---------------------------------------------------------------- prompts
    def messages(self, prompt: str) -> list[dict[str, Any]]:
        """One user turn: the image, then the prompt text (the families' documented order)."""
        return image_turn(prompt)

    def prompt_text(self, prompt: str) -> str:
        """The chat-templated prompt with one image placeholder and the generation prompt."""
        return chat_prompt(self.processor, self.messages(prompt), self.family)

    @property
    def caption_prefix(self) -> str:
        """What is put before a text caption (see the module docstring): "" or " "."""
        if self._caption_prefix is None:
            generation_prompt = self.prompt_text("x")
            first = self.tokenizer.convert_ids_to_tokens(
                self.tokenizer("A", add_special_tokens=False)["input_ids"][:1])
            marks_word_start = bool(first) and first[0].startswith(("▁", "Ġ"))
            needs_space = bool(generation_prompt) and not generation_prompt[-1].isspace()
            self._caption_prefix = " " if needs_space and not marks_word_start else ""
        return self._caption_prefix

    # ---------------------------------------------------------------- encoding
    def tokenize_caption(self, caption: str | Sequence[int]
                         ) -> tuple[list[int], list[tuple[int, int]], str]:
        """Caption ids, their character offsets in the caption text, and that text.

        Text is tokenized alone, without special tokens (after `caption_prefix`); token ids are
        kept as given and their offsets recovered by incremental decoding.
        """
        if isinstance(caption, str):
            # No second space when the caption brings its own.
            prefix = "" if caption[:1].isspace() else self.caption_prefix
            enc = self.tokenizer(prefix + caption, add_special_tokens=False,
                                 return_offsets_mapping=True)
            shift = len(prefix)
            offsets = [_trim(caption, max(0, s - shift), max(0, e - shift))
                       for s, e in enc["offset_mapping"]]
            return list(enc["input_ids"]), offsets, caption
        ids = [int(i) for i in (caption.tolist() if hasattr(caption, "tolist") else caption)]
        text, offsets = incremental_offsets(self.tokenizer, ids)
        return ids, offsets, text

    def encode(self, images: Sequence[Image.Image], prompts: Sequence[str],
               captions: Sequence[str] | Sequence[Sequence[int]] | None = None,
               padding_side: str = "left") -> EncodedBatch:
        """Encode a batch: one image and one prompt per item, optionally a caption to append.

        Left padding (the default) is what batched generation uses; per-item positions in the
        result account for it.
        """
        import torch

        if padding_side not in PADDING_SIDES:
            raise ConfigError(f"padding_side must be 'left' or 'right', not {padding_side!r}")
        if len(images) != len(prompts) or (captions is not None and len(captions) != len(prompts)):
            raise InputError(f"got {len(images)} images, {len(prompts)} prompts and "
                             f"{'no' if captions is None else len(captions)} captions; "
                             "they must match one to one")
        if not prompts:
            raise InputError("nothing to encode: no images and prompts")
        texts = [self.prompt_text(p) for p in prompts]
        processed = self.processor(images=self.processor_images(images), text=texts,
                                   return_tensors="pt",
                                   padding=True)
        ids, mask = processed["input_ids"], processed["attention_mask"].bool()
        # Tensors with one value per token (e.g. mm_token_type_ids, token_type_ids) follow the
        # tokens through re-padding; everything else (pixels, grids) is per image, kept as is.
        per_token = [k for k, v in processed.items() if k not in ("input_ids", "attention_mask")
                     and hasattr(v, "shape") and tuple(v.shape) == tuple(ids.shape)]

        rows: list[tuple[list[int], dict[str, list[int]], int, list[int],
                         list[tuple[int, int]], str]] = []
        for i in range(len(prompts)):
            prompt_ids = ids[i][mask[i]].tolist()
            extras = {k: processed[k][i][mask[i]].tolist() for k in per_token}
            if captions is None:
                cap_ids, cap_offsets, cap_text = [], [], ""
            else:
                cap_ids, cap_offsets, cap_text = self.tokenize_caption(captions[i])
            rows.append((prompt_ids + cap_ids,
                         {k: v + [0] * len(cap_ids) for k, v in extras.items()},
                         len(prompt_ids), cap_ids, cap_offsets, cap_text))

        width = max(len(r[0]) for r in rows)
        pad_id = self.tokenizer.pad_token_id
        if pad_id is None:
            pad_id = self.tokenizer.eos_token_id
        input_ids = torch.full((len(rows), width), int(pad_id), dtype=torch.long)
        attention = torch.zeros((len(rows), width), dtype=torch.long)
        extra_tensors = {k: torch.zeros((len(rows), width), dtype=processed[k].dtype)
                         for k in per_token}
        items: list[EncodedItem] = []
        for i, (seq, extras, prompt_len, cap_ids, cap_offsets, cap_text) in enumerate(rows):
            pad = width - len(seq) if padding_side == "left" else 0
            cols = slice(pad, pad + len(seq))
            input_ids[i, cols] = torch.tensor(seq, dtype=torch.long)
            attention[i, cols] = 1
            for k, v in extras.items():
                extra_tensors[k][i, cols] = torch.tensor(v, dtype=extra_tensors[k].dtype)
            start, end = self._image_span(seq[:prompt_len], item=i)
            items.append(EncodedItem(image_span=(start + pad, end + pad),
                                     prompt_length=pad + prompt_len, caption_token_ids=cap_ids,
                                     caption_offsets=cap_offsets, caption_text=cap_text,
                                     padding=pad, length=len(seq)))
        inputs: dict[str, Any] = {"input_ids": input_ids, "attention_mask": attention}
        inputs.update(extra_tensors)
        inputs.update({k: v for k, v in processed.items()
                       if k not in inputs and k not in ("input_ids", "attention_mask")})
        return EncodedBatch(inputs, items, padding_side).to(self.device, self.model.dtype)

    def processor_images(self, images: Sequence[Image.Image]) -> Any:
        """Images in the form the family's processor takes for a batch (flat list by default)."""
        return list(images)

    def _image_span(self, prompt_ids: list[int], item: int) -> tuple[int, int]:
        """[start, end) of the one contiguous block of image tokens in an unpadded prompt."""
        positions = [j for j, t in enumerate(prompt_ids) if t == self.image_token_id]
        if not positions:
            raise InputError("the prompt holds no image token after processing",
                             item=str(item))
        start, end = positions[0], positions[-1] + 1
        if end - start != len(positions):
            raise InputError("image tokens are not one contiguous block (one image per item)",
                             item=str(item))
        return start, end

    # ---------------------------------------------------------------- generation
    def generate(self, images: Sequence[Image.Image], prompts: Sequence[str],
                 max_new_tokens: int = 64, return_logits: bool = False,
                 **generate_kwargs: Any) -> list[Generation]:
        """Greedy (unless told otherwise) answers, as token ids exactly as generated.

        Pass `Generation.token_ids` back to `encode` as captions to teacher-force the identical
        sequence. Padding after EOS is removed; EOS itself is kept when emitted.
        """
        import torch

        batch = self.encode(images, prompts, padding_side="left")
        generate_kwargs.setdefault("do_sample", False)
        with torch.no_grad():
            out = self.model.generate(**batch.inputs, max_new_tokens=max_new_tokens,
                                      return_dict_in_generate=True,
                                      output_logits=return_logits, **generate_kwargs)
        width = batch.input_ids.shape[1]
        new = out.sequences[:, width:]
        eos = self.model.generation_config.eos_token_id
        eos_ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
        results: list[Generation] = []
        for i in range(new.shape[0]):
            ids: list[int] = []
            for t in new[i].tolist():
                ids.append(t)
                if t in eos_ids:
                    break
            logits = (torch.stack([step[i] for step in out.logits[:len(ids)]])
                      if return_logits else None)
            text = self.tokenizer.decode(ids, skip_special_tokens=True,
                                         clean_up_tokenization_spaces=False)
            results.append(Generation(ids, text, logits))
        return results


def image_turn(prompt: str) -> list[dict[str, Any]]:
    """One user turn, the image then the prompt text.

    >>> image_turn("Describe it.")[0]["content"][0]
    {'type': 'image'}
    """
    return [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": prompt}]}]


def chat_prompt(processor: Any, messages: list[dict[str, Any]], family: str = "") -> str:
    """`messages` through the processor's chat template (else its tokenizer's), ending with the
    generation prompt: the text a VLM answers, shared by every generation backend."""
    tokenizer = getattr(processor, "tokenizer", None)
    template_owner = processor if getattr(processor, "chat_template", None) else tokenizer
    if not getattr(template_owner, "chat_template", None):
        raise ConfigError(f"{family}: neither processor nor tokenizer has a chat template")
    return template_owner.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
