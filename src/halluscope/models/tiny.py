"""Tiny random-weight VLMs of the real architectures, saved so `from_pretrained` reads them back.

>>> sorted(TINY_ARCHES)  # doctest: +NORMALIZE_WHITESPACE
['gemma3', 'internvl', 'llava', 'llava_next', 'llava_onevision', 'qwen2_5_vl', 'qwen2_vl',
 'qwen3_vl']

`make_tiny("llava", out_dir, layers=2, hidden=64)` builds the model from its config with seeded
random weights, trains a byte-level BPE tokenizer on a small built-in English corpus (COCO words
and caption phrasing), adds the family's special tokens and chat template, and saves model,
tokenizer and image processor to `out_dir`. `load_adapter(out_dir)` then loads it through the same
path a hub checkpoint takes. Nothing here needs the network.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from halluscope.errors import ConfigError

if TYPE_CHECKING:
    from halluscope.models.text_towers import TextTower

# Close to the real templates (llava-hf/llava-1.5-7b-hf, Qwen/Qwen2.5-VL-7B-Instruct), without
# the video branches. LLaVA: "USER: <image>\n{prompt} ASSISTANT:".
LLAVA_CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{% if message['role'] != 'system' %}{{ message['role'].upper() + ': ' }}{% endif %}"
    "{% if message['content'] is string %}{{ message['content'] + ' ' }}{% else %}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'image') %}"
    "{{ '<image>\n' }}{% endfor %}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'text') %}"
    "{{ content['text'] + ' ' }}{% endfor %}{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ 'ASSISTANT:' }}{% endif %}"
)
QWEN_CHAT_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}"
    "{% for message in messages %}"
    "{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n{% else %}"
    "{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}"
    "{% if add_vision_id %}Picture {{ image_count.value }}: {% endif %}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}"
    "{% endfor %}<|im_end|>\n{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
# Qwen3-VL (Qwen/Qwen3-VL-2B-Instruct): the Qwen2.5-VL layout without the default system turn.
QWEN3_VL_CHAT_TEMPLATE = QWEN_CHAT_TEMPLATE.replace(
    "{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}", "")
# Gemma 3 (google/gemma-3-4b-it), without system-turn folding. BOS comes from the template.
GEMMA3_CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{% set role = 'model' if message['role'] == 'assistant' else message['role'] %}"
    "<start_of_turn>{{ role }}\n"
    "{% if message['content'] is string %}{{ message['content'] | trim }}{% else %}"
    "{% for item in message['content'] %}"
    "{% if item['type'] == 'image' %}<start_of_image>"
    "{% elif item['type'] == 'text' %}{{ item['text'] | trim }}{% endif %}"
    "{% endfor %}{% endif %}<end_of_turn>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)

# LLaVA-OneVision (llava-hf/llava-onevision-qwen2-0.5b-ov-hf): "<|im_start|>user <image>\n{prompt}
# <|im_end|><|im_start|>assistant\n" (a space after the role, no newline after <|im_end|>).
ONEVISION_CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + ' ' }}"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'image') %}"
    "{{ '<image>' }}{% endfor %}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'text') %}"
    "{{ '\n' + content['text'] }}{% endfor %}{% endif %}"
    "{{ '<|im_end|>' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
# InternVL3 in the HF format (OpenGVLab/InternVL3-1B-hf): Qwen turns, the image as
# "<IMG_CONTEXT>\n" before the text; the processor expands <IMG_CONTEXT> to <img>...</img>.
INTERNVL_CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for content in message['content'] %}"
    "{% if content['type'] == 'image' %}{{ '<IMG_CONTEXT>\n' }}"
    "{% elif content['type'] == 'text' %}{{ content['text'] }}{% endif %}"
    "{% endfor %}{% endif %}"
    "{{ '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


@dataclass(frozen=True)
class TokenizerSpec:
    """The special tokens of a family's tokenizer (first ones get the lowest ids)."""

    special_tokens: tuple[str, ...]
    eos: str
    pad: str
    chat_template: str
    bos: str | None = None
    unk: str | None = None
    prepend_bos: bool = False  # Llama-style tokenizers add <s> when add_special_tokens=True
    extra: dict[str, str] = field(default_factory=dict)  # e.g. {"image_token": "<image>"}


LLAVA_TOKENS = TokenizerSpec(
    special_tokens=("<unk>", "<s>", "</s>", "<pad>", "<image>"), bos="<s>", eos="</s>",
    pad="<pad>", unk="<unk>", prepend_bos=True, chat_template=LLAVA_CHAT_TEMPLATE,
    extra={"image_token": "<image>"})
QWEN_TOKENS = TokenizerSpec(
    special_tokens=("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>",
                    "<|vision_end|>", "<|image_pad|>", "<|video_pad|>"),
    eos="<|im_end|>", pad="<|endoftext|>", chat_template=QWEN_CHAT_TEMPLATE)
QWEN3_VL_TOKENS = TokenizerSpec(
    special_tokens=QWEN_TOKENS.special_tokens, eos="<|im_end|>", pad="<|endoftext|>",
    chat_template=QWEN3_VL_CHAT_TEMPLATE)
GEMMA3_TOKENS = TokenizerSpec(
    special_tokens=("<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>",
                    "<start_of_image>", "<end_of_image>", "<image_soft_token>"),
    bos="<bos>", eos="<eos>", pad="<pad>", unk="<unk>", chat_template=GEMMA3_CHAT_TEMPLATE,
    extra={"image_token": "<image_soft_token>", "boi_token": "<start_of_image>",
           "eoi_token": "<end_of_image>"})

ONEVISION_TOKENS = TokenizerSpec(
    special_tokens=("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<image>", "<video>"),
    eos="<|im_end|>", pad="<|endoftext|>", chat_template=ONEVISION_CHAT_TEMPLATE,
    extra={"image_token": "<image>", "video_token": "<video>"})
# InternVLProcessor reads these four attributes (and their *_id) from the tokenizer.
INTERNVL_TOKENS = TokenizerSpec(
    special_tokens=("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<img>", "</img>",
                    "<IMG_CONTEXT>", "<video>"),
    eos="<|im_end|>", pad="<|endoftext|>", chat_template=INTERNVL_CHAT_TEMPLATE,
    extra={"start_image_token": "<img>", "end_image_token": "</img>",
           "context_image_token": "<IMG_CONTEXT>", "video_token": "<video>"})


def build_tokenizer(spec: TokenizerSpec, vocab_size: int = 800) -> Any:
    """A byte-level BPE tokenizer trained on the built-in corpus, wrapped for transformers.

    Offsets are trimmed of the leading space (like GPT-2/Qwen tokenizers), so a token's offsets
    point at its word. Training is deterministic for a fixed corpus and vocab size.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    from halluscope.models.corpus import corpus_lines

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(spec.special_tokens),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(corpus_lines(), trainer=trainer)
    steps: list[Any] = [processors.ByteLevel(trim_offsets=True)]
    if spec.prepend_bos and spec.bos is not None:
        bos_id = tok.token_to_id(spec.bos)
        steps.append(processors.TemplateProcessing(single=f"{spec.bos} $A",
                                                   pair=f"{spec.bos} $A {spec.bos} $B",
                                                   special_tokens=[(spec.bos, bos_id)]))
    tok.post_processor = processors.Sequence(steps)
    named = {"eos_token": spec.eos, "pad_token": spec.pad}
    if spec.bos is not None:
        named["bos_token"] = spec.bos
    if spec.unk is not None:
        named["unk_token"] = spec.unk
    wrapped = PreTrainedTokenizerFast(tokenizer_object=tok, **named,
                                      extra_special_tokens=dict(spec.extra) or None)
    wrapped.chat_template = spec.chat_template
    return wrapped


@dataclass(frozen=True)
class TinySpec:
    """Sizes of a tiny model (recorded in `halluscope_tiny.json` beside the weights)."""

    arch: str
    layers: int = 2
    hidden: int = 64
    heads: int = 4
    seed: int = 0
    image_size: int | None = None
    vision_layers: int = 2
    vocab_size: int = 800
    text_model: str | None = None  # a real language tower (`halluscope.models.text_towers`)


def _ids(tok: Any, *tokens: str) -> list[int]:
    return [tok.convert_tokens_to_ids(t) for t in tokens]


def _set_generation_ids(model: Any, tok: Any, eos: list[int]) -> None:
    gen = model.generation_config
    gen.eos_token_id = eos if len(eos) > 1 else eos[0]
    gen.pad_token_id = tok.pad_token_id
    gen.bos_token_id = tok.bos_token_id


def _llava_classes(variant: str) -> tuple[Any, Any, Any, Any]:
    """(config, model, image processor, processor) classes of LLaVA-1.5 or LLaVA-NeXT."""
    if variant == "next":
        from transformers import (LlavaNextConfig, LlavaNextForConditionalGeneration,
                                  LlavaNextImageProcessorPil, LlavaNextProcessor)
        return (LlavaNextConfig, LlavaNextForConditionalGeneration, LlavaNextImageProcessorPil,
                LlavaNextProcessor)
    from transformers import (CLIPImageProcessorPil, LlavaConfig, LlavaForConditionalGeneration,
                              LlavaProcessor)
    return LlavaConfig, LlavaForConditionalGeneration, CLIPImageProcessorPil, LlavaProcessor


def _build_llava(spec: TinySpec, out: Path, variant: str = "1.5",
                 tower: TextTower | None = None) -> None:
    """LLaVA-1.5, or LLaVA-NeXT (variant "next": anyres tiles on a 2x2 grid of pinpoints).

    With a real text `tower` the language model, tokenizer and chat template are the tower's
    (plus `<image>`); the CLIP tower and projector stay small and random.
    """
    import torch
    from transformers import CLIPVisionConfig, LlamaConfig

    Config, Model, ImageProcessor, Processor = _llava_classes(variant)
    size = spec.image_size or 336
    if tower is None:
        tok = build_tokenizer(LLAVA_TOKENS, spec.vocab_size)
        bos, eos, pad, image = _ids(tok, "<s>", "</s>", "<pad>", "<image>")
        text_config: Any = LlamaConfig(
            vocab_size=len(tok), hidden_size=spec.hidden, intermediate_size=2 * spec.hidden,
            num_hidden_layers=spec.layers, num_attention_heads=spec.heads,
            num_key_value_heads=spec.heads, max_position_embeddings=4096, bos_token_id=bos,
            eos_token_id=eos, pad_token_id=pad)
        chat_template, tied = LLAVA_CHAT_TEMPLATE, False
    else:
        tok, text_config, image, eos = _tower_tokenizer_and_config(tower)
        chat_template, tied = tower.spec.chat_template, bool(text_config.tie_word_embeddings)
    extra: dict[str, Any] = {}
    image_extra: dict[str, Any] = {}
    if variant == "next":
        pinpoints = [[size, size], [size, 2 * size], [2 * size, size], [2 * size, 2 * size]]
        extra = {"image_grid_pinpoints": pinpoints, "image_seq_length": (size // 14) ** 2}
        image_extra = {"image_grid_pinpoints": pinpoints}
    cfg = Config(
        vision_config=CLIPVisionConfig(hidden_size=spec.hidden, intermediate_size=2 * spec.hidden,
                                       num_hidden_layers=spec.vision_layers,
                                       num_attention_heads=spec.heads, image_size=size,
                                       patch_size=14, projection_dim=spec.hidden),
        text_config=text_config, image_token_index=image, vision_feature_layer=-2,
        vision_feature_select_strategy="default", tie_word_embeddings=tied, **extra)
    torch.manual_seed(spec.seed)
    model = Model._from_config(cfg, dtype=torch.float32).eval()
    if tower is not None:
        _load_tower_weights(model, tower, len(tok))
    _set_generation_ids(model, tok, [eos])
    processor = Processor(
        image_processor=ImageProcessor(size={"shortest_edge": size},
                                       crop_size={"height": size, "width": size}, **image_extra),
        tokenizer=tok, patch_size=14, vision_feature_select_strategy="default",
        num_additional_image_tokens=1, chat_template=chat_template)
    model.save_pretrained(out)
    processor.save_pretrained(out)


def _tower_tokenizer_and_config(tower: TextTower) -> tuple[Any, Any, int, int]:
    """The tower's tokenizer with `<image>` added, its config sized to it, and the ids of
    `<image>` and EOS."""
    import copy

    from tokenizers import AddedToken

    tok = copy.deepcopy(tower.tokenizer)
    tok.add_tokens([AddedToken("<image>", special=True, normalized=False)],
                   special_tokens=True)
    tok.chat_template = tower.spec.chat_template
    config = copy.deepcopy(tower.config)
    config.vocab_size = len(tok)
    eos = tok.convert_tokens_to_ids(tower.spec.eos)
    config.eos_token_id = eos
    config.pad_token_id = tok.pad_token_id if tok.pad_token_id is not None else eos
    return tok, config, tok.convert_tokens_to_ids("<image>"), eos


def _load_tower_weights(model: Any, tower: TextTower, vocab_size: int) -> None:
    """Copy the tower's weights into the VLM's language model; rows of added tokens
    (`<image>`: never predicted, its embedding replaced by image features) get the mean
    embedding, deterministically."""
    import torch

    state = {k.removeprefix("model."): v for k, v in tower.state_dict.items()
             if k.startswith("model.")}
    embed = state["embed_tokens.weight"]
    if embed.shape[0] < vocab_size:
        extra = embed.mean(0, keepdim=True).expand(vocab_size - embed.shape[0], -1)
        state["embed_tokens.weight"] = torch.cat([embed, extra])
    language_model = model.model.language_model
    result = language_model.load_state_dict(state, strict=False)
    if result.missing_keys or result.unexpected_keys:
        raise ConfigError(f"{tower.gguf_path}: its weights do not fit the language model "
                          f"(missing {result.missing_keys[:3]}, unexpected "
                          f"{result.unexpected_keys[:3]})")
    if model.lm_head.weight.data_ptr() != language_model.embed_tokens.weight.data_ptr():
        head = tower.state_dict.get("lm_head.weight", embed)
        if head.shape[0] < vocab_size:
            head = torch.cat([head, head.mean(0, keepdim=True).expand(
                vocab_size - head.shape[0], -1)])
        with torch.no_grad():
            model.lm_head.weight.copy_(head)


def _mrope_section(head_dim: int) -> list[int]:
    """Sections (temporal, height, width) of the rotary half-dimension; they must sum to
    head_dim / 2 (Qwen2-VL uses [16, 24, 24] for head_dim 128)."""
    half = head_dim // 2
    spatial = max(1, half * 3 // 8)
    return [half - 2 * spatial, spatial, spatial]


def _build_qwen(spec: TinySpec, out: Path, version: str) -> None:
    import torch
    from transformers import Qwen2VLImageProcessorPil

    if version == "2.5":
        from transformers import (Qwen2_5_VLConfig as Config,
                                  Qwen2_5_VLForConditionalGeneration as Model)
        vision = dict(depth=spec.vision_layers, hidden_size=spec.hidden,
                      intermediate_size=2 * spec.hidden, num_heads=spec.heads,
                      out_hidden_size=spec.hidden, window_size=56,
                      fullatt_block_indexes=[spec.vision_layers - 1])
    else:
        from transformers import Qwen2VLConfig as Config
        from transformers import Qwen2VLForConditionalGeneration as Model
        vision = dict(depth=spec.vision_layers, embed_dim=spec.hidden, hidden_size=spec.hidden,
                      mlp_ratio=2, num_heads=spec.heads)
    size = spec.image_size or 112
    tok = build_tokenizer(QWEN_TOKENS, spec.vocab_size)
    endoftext, im_end, v_start, v_end, image, video = _ids(
        tok, "<|endoftext|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
        "<|image_pad|>", "<|video_pad|>")
    head_dim = spec.hidden // spec.heads
    text = dict(vocab_size=len(tok), hidden_size=spec.hidden, intermediate_size=2 * spec.hidden,
                num_hidden_layers=spec.layers, num_attention_heads=spec.heads,
                # Grouped-query attention as in the real models (two query heads per KV head).
                num_key_value_heads=max(1, spec.heads // 2), max_position_embeddings=4096,
                rope_parameters={"rope_type": "default", "rope_theta": 1_000_000.0,
                                 "mrope_section": _mrope_section(head_dim)},
                bos_token_id=endoftext, eos_token_id=im_end, pad_token_id=endoftext)
    cfg = Config(text_config=text, vision_config=vision, image_token_id=image,
                 video_token_id=video, vision_start_token_id=v_start, vision_end_token_id=v_end)
    torch.manual_seed(spec.seed)
    model = Model._from_config(cfg, dtype=torch.float32).eval()
    _set_generation_ids(model, tok, [im_end, endoftext])
    # min/max pixels: a size x size image becomes (size/14)^2 patches, (size/28)^2 image tokens.
    image_processor = Qwen2VLImageProcessorPil(min_pixels=28 * 28, max_pixels=size * size)
    model.save_pretrained(out)
    # The processor cannot be saved without a video processor (torchvision): save its parts;
    # the adapter rebuilds it on load (halluscope.models.processing.load_processor).
    tok.save_pretrained(out)
    image_processor.save_pretrained(out)


def _build_qwen3_vl(spec: TinySpec, out: Path) -> None:
    """Qwen3-VL: 16-px patches merged 2x2 (one image token per 32x32 pixels), interleaved
    M-RoPE, DeepStack (features of early vision layers added to the first decoder layers)."""
    import torch
    from transformers import (Qwen2VLImageProcessorPil, Qwen3VLConfig,
                              Qwen3VLForConditionalGeneration)

    size = spec.image_size or 64
    if size % 32:
        raise ConfigError(f"qwen3_vl image_size must be a multiple of 32, not {size}")
    tok = build_tokenizer(QWEN3_VL_TOKENS, spec.vocab_size)
    endoftext, im_end, v_start, v_end, image, video = _ids(
        tok, "<|endoftext|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
        "<|image_pad|>", "<|video_pad|>")
    head_dim = spec.hidden // spec.heads
    text = dict(vocab_size=len(tok), hidden_size=spec.hidden, intermediate_size=2 * spec.hidden,
                num_hidden_layers=spec.layers, num_attention_heads=spec.heads,
                num_key_value_heads=max(1, spec.heads // 2), head_dim=head_dim,
                max_position_embeddings=4096,
                rope_parameters={"rope_type": "default", "rope_theta": 5_000_000.0,
                                 "mrope_section": _mrope_section(head_dim),
                                 "mrope_interleaved": True},
                bos_token_id=endoftext, eos_token_id=im_end, pad_token_id=endoftext)
    # The learned position grid is interpolated to each image's patch grid; the real models
    # use 48x48 (768 px); the tiny one a grid of the tiny image size.
    vision = dict(depth=spec.vision_layers, hidden_size=spec.hidden,
                  intermediate_size=2 * spec.hidden, num_heads=spec.heads,
                  out_hidden_size=spec.hidden, patch_size=16, spatial_merge_size=2,
                  temporal_patch_size=2, num_position_embeddings=(size // 16) ** 2,
                  deepstack_visual_indexes=[0])
    cfg = Qwen3VLConfig(text_config=text, vision_config=vision, image_token_id=image,
                        video_token_id=video, vision_start_token_id=v_start,
                        vision_end_token_id=v_end)
    torch.manual_seed(spec.seed)
    model = Qwen3VLForConditionalGeneration._from_config(cfg, dtype=torch.float32).eval()
    _set_generation_ids(model, tok, [im_end, endoftext])
    image_processor = Qwen2VLImageProcessorPil(patch_size=16, merge_size=2, temporal_patch_size=2,
                                               image_mean=[0.5, 0.5, 0.5],
                                               image_std=[0.5, 0.5, 0.5],
                                               min_pixels=32 * 32, max_pixels=size * size)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    image_processor.save_pretrained(out)


def _build_gemma3(spec: TinySpec, out: Path) -> None:
    import torch
    from transformers import (Gemma3Config, Gemma3ForConditionalGeneration,
                              Gemma3ImageProcessorPil, Gemma3Processor, Gemma3TextConfig,
                              SiglipVisionConfig)

    size = spec.image_size or 56
    patches = size // 14
    # The projector average-pools the patch grid down to mm_tokens_per_image tokens.
    per_side = patches // 2 if patches % 2 == 0 else patches
    tok = build_tokenizer(GEMMA3_TOKENS, spec.vocab_size)
    pad, eos, bos, eot, boi, eoi, image = _ids(tok, "<pad>", "<eos>", "<bos>", "<end_of_turn>",
                                               "<start_of_image>", "<end_of_image>",
                                               "<image_soft_token>")
    text = Gemma3TextConfig(vocab_size=len(tok), hidden_size=spec.hidden,
                            intermediate_size=2 * spec.hidden, num_hidden_layers=spec.layers,
                            num_attention_heads=spec.heads,
                            num_key_value_heads=max(1, spec.heads // 2),
                            head_dim=spec.hidden // spec.heads, sliding_window=512,
                            max_position_embeddings=4096, pad_token_id=pad, eos_token_id=eos,
                            bos_token_id=bos)
    vision = SiglipVisionConfig(hidden_size=spec.hidden, intermediate_size=2 * spec.hidden,
                                num_hidden_layers=spec.vision_layers,
                                num_attention_heads=spec.heads, image_size=size, patch_size=14)
    cfg = Gemma3Config(text_config=text, vision_config=vision, mm_tokens_per_image=per_side ** 2,
                       boi_token_index=boi, eoi_token_index=eoi, image_token_index=image)
    torch.manual_seed(spec.seed)
    model = Gemma3ForConditionalGeneration._from_config(cfg, dtype=torch.float32).eval()
    _set_generation_ids(model, tok, [eos, eot])
    processor = Gemma3Processor(
        image_processor=Gemma3ImageProcessorPil(size={"height": size, "width": size}),
        tokenizer=tok, chat_template=GEMMA3_CHAT_TEMPLATE, image_seq_length=per_side ** 2)
    model.save_pretrained(out)
    processor.save_pretrained(out)


def _qwen2_text(spec: TinySpec, tok: Any, bos: int, eos: int, pad: int) -> dict[str, Any]:
    """A tiny Qwen2 language model config (the LM of LLaVA-OneVision and InternVL3)."""
    return dict(model_type="qwen2", vocab_size=len(tok), hidden_size=spec.hidden,
                intermediate_size=2 * spec.hidden, num_hidden_layers=spec.layers,
                num_attention_heads=spec.heads, num_key_value_heads=max(1, spec.heads // 2),
                max_position_embeddings=4096, rope_parameters={"rope_type": "default",
                                                               "rope_theta": 1_000_000.0},
                bos_token_id=bos, eos_token_id=eos, pad_token_id=pad)


def _save_processor_config(out: Path, processor_class: str, **kwargs: Any) -> None:
    """processor_config.json as the hub checkpoints ship it: the processor cannot save itself
    without a video processor, and its init arguments (token counts) must survive the rebuild."""
    data = {"processor_class": processor_class, **kwargs}
    (out / "processor_config.json").write_text(json.dumps(data, indent=2) + "\n")


def _build_onevision(spec: TinySpec, out: Path) -> None:
    """LLaVA-OneVision: SigLIP (no CLS, all patches kept) + Qwen2, anyres tiles on the real 6x6
    grid of pinpoints scaled to the tiny tile size, one newline embedding per tile-grid row."""
    import torch
    from transformers import (LlavaOnevisionConfig, LlavaOnevisionForConditionalGeneration,
                              LlavaOnevisionImageProcessorPil, SiglipVisionConfig)

    size = spec.image_size or 56
    tok = build_tokenizer(ONEVISION_TOKENS, spec.vocab_size)
    endoftext, im_end, image, video = _ids(tok, "<|endoftext|>", "<|im_end|>", "<image>",
                                           "<video>")
    pinpoints = [[size * i, size * j] for i in range(1, 7) for j in range(1, 7)]
    vision = SiglipVisionConfig(hidden_size=spec.hidden, intermediate_size=2 * spec.hidden,
                                num_hidden_layers=spec.vision_layers,
                                num_attention_heads=spec.heads, image_size=size, patch_size=14,
                                vision_use_head=False)
    cfg = LlavaOnevisionConfig(
        vision_config=vision, text_config=_qwen2_text(spec, tok, endoftext, im_end, endoftext),
        image_token_index=image, video_token_index=video, vision_feature_layer=-1,
        vision_feature_select_strategy="full", image_grid_pinpoints=pinpoints,
        vision_aspect_ratio="anyres_max_9")
    torch.manual_seed(spec.seed)
    model = LlavaOnevisionForConditionalGeneration._from_config(cfg, dtype=torch.float32).eval()
    _set_generation_ids(model, tok, [im_end, endoftext])
    image_processor = LlavaOnevisionImageProcessorPil(size={"height": size, "width": size},
                                                      image_grid_pinpoints=pinpoints)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    image_processor.save_pretrained(out)
    _save_processor_config(out, "LlavaOnevisionProcessor", num_image_tokens=(size // 14) ** 2,
                           vision_feature_select_strategy="full",
                           vision_aspect_ratio="anyres_max_9")


def _build_internvl(spec: TinySpec, out: Path) -> None:
    """InternVL3 (HF format): InternViT + pixel shuffle (0.5) + Qwen2; dynamic tiling into
    1-12 tiles plus a thumbnail, (size/14 / 2)^2 image tokens per tile."""
    import torch
    from transformers import (GotOcr2ImageProcessorPil, InternVLConfig,
                              InternVLForConditionalGeneration, InternVLVisionConfig)

    size = spec.image_size or 56
    if size % 28:
        raise ConfigError(f"internvl image_size must be a multiple of 28, not {size}")
    tok = build_tokenizer(INTERNVL_TOKENS, spec.vocab_size)
    endoftext, im_end, context = _ids(tok, "<|endoftext|>", "<|im_end|>", "<IMG_CONTEXT>")
    per_tile = (size // 28) ** 2  # 14-px patches, then 2x2 pixel shuffle
    vision = InternVLVisionConfig(hidden_size=spec.hidden, intermediate_size=2 * spec.hidden,
                                  num_hidden_layers=spec.vision_layers,
                                  num_attention_heads=spec.heads, image_size=[size, size],
                                  patch_size=[14, 14])
    cfg = InternVLConfig(vision_config=vision,
                         text_config=_qwen2_text(spec, tok, endoftext, im_end, endoftext),
                         image_token_id=context, image_seq_length=per_tile, downsample_ratio=0.5,
                         vision_feature_layer=-1, vision_feature_select_strategy="default")
    torch.manual_seed(spec.seed)
    model = InternVLForConditionalGeneration._from_config(cfg, dtype=torch.float32).eval()
    _set_generation_ids(model, tok, [im_end, endoftext])
    image_processor = GotOcr2ImageProcessorPil(size={"height": size, "width": size},
                                               crop_to_patches=True, min_patches=1,
                                               max_patches=12)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    image_processor.save_pretrained(out)
    _save_processor_config(out, "InternVLProcessor", image_seq_length=per_tile)


_BUILDERS: dict[str, Callable[[TinySpec, Path], None]] = {
    "llava": _build_llava,
    "llava_next": lambda spec, out: _build_llava(spec, out, "next"),
    "qwen2_5_vl": lambda spec, out: _build_qwen(spec, out, "2.5"),
    "qwen2_vl": lambda spec, out: _build_qwen(spec, out, "2"),
    "gemma3": _build_gemma3,
    "llava_onevision": _build_onevision,
    "internvl": _build_internvl,
    "qwen3_vl": _build_qwen3_vl,
}
TINY_ARCHES: tuple[str, ...] = tuple(_BUILDERS)


def make_tiny(arch: str, out_dir: str | Path, layers: int = 2, hidden: int = 64, heads: int = 4,
              seed: int = 0, image_size: int | None = None, vision_layers: int = 2,
              vocab_size: int = 800, text_model: str | None = None,
              gguf_path: str | Path | None = None, cache_dir: str | Path | None = None) -> Path:
    """Build and save a tiny random `arch` model with tokenizer and processor; return the folder.

    The same arguments give byte-identical weights (seeded initialisation). `image_size`
    defaults to the family's real input size where that stays cheap (LLaVA: 336 px, 576 image
    tokens); smaller sizes make faster tests.

    With `text_model` (e.g. "smollm2-135m") the language model is that real pretrained model
    (its tokenizer and chat template too); `hidden`/`heads` then size only the random vision
    tower and `layers`/`vocab_size` are the text model's. That build is cached
    (`halluscope.models.build_cache`): a second call copies the cached folder.
    """
    if arch not in _BUILDERS:
        raise ConfigError(f"unknown tiny architecture {arch!r}; choose one of "
                          f"{', '.join(TINY_ARCHES)}")
    if layers < 1 or hidden < 1 or heads < 1:
        raise ConfigError(f"layers ({layers}), hidden ({hidden}) and heads ({heads}) must be "
                          "positive")
    if hidden % heads or (hidden // heads) % 4:
        raise ConfigError(f"hidden ({hidden}) must be a multiple of 4 * heads ({heads})")
    if vision_layers < 2:
        raise ConfigError("vision_layers must be at least 2 (features are read at layer -2)")
    if text_model is not None:
        return _make_with_text_model(arch, Path(out_dir), text_model, gguf_path, cache_dir,
                                     hidden=hidden, heads=heads, seed=seed,
                                     image_size=image_size, vision_layers=vision_layers)
    spec = TinySpec(arch=arch, layers=layers, hidden=hidden, heads=heads, seed=seed,
                    image_size=image_size, vision_layers=vision_layers, vocab_size=vocab_size)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _BUILDERS[arch](spec, out)
    (out / "halluscope_tiny.json").write_text(json.dumps(asdict(spec), indent=2) + "\n")
    return out


def encode_example(adapter_class: type, size: tuple[int, int] = (64, 48),
                   **options: Any) -> tuple[Any, Any]:
    """The adapter of a tiny model of `adapter_class`'s family and its encoding of one image
    (`size`, plain grey), prompt "Describe." and caption "A dog." (the adapters' examples).

    >>> from halluscope.models.llava import LlavaAdapter
    >>> adapter, item = encode_example(LlavaAdapter, image_size=28)  # 2 x 2 patches of 14 px
    >>> adapter.family, item.image_span[1] - item.image_span[0], item.caption_text
    ('llava', 4, 'A dog.')
    """
    import tempfile

    from PIL import Image

    with tempfile.TemporaryDirectory() as folder:
        adapter = adapter_class.load(str(make_tiny(adapter_class.family, folder, **options)))
        item = adapter.encode([Image.new("RGB", size, "grey")], ["Describe."], ["A dog."])
    return adapter, item.items[0]


# Bumped whenever the real-tower build changes its output, so cached folders are rebuilt.
TEXT_TOWER_BUILD_VERSION = 1


def _make_with_text_model(arch: str, out: Path, text_model: str, gguf_path: str | Path | None,
                          cache_dir: str | Path | None, **sizes: Any) -> Path:
    from halluscope.models import build_cache, text_towers
    from halluscope.models.text_towers import (check_arch, check_gguf, default_gguf_path,
                                               text_model_spec)

    text_spec = text_model_spec(text_model)
    check_arch(text_spec, arch)
    gguf = Path(gguf_path) if gguf_path is not None else default_gguf_path(text_spec)
    check_gguf(gguf)
    recipe = {"arch": arch, "text_model": text_model, **sizes,
              "gguf_sha256": build_cache.file_sha256(gguf),
              "build_version": TEXT_TOWER_BUILD_VERSION}

    def build(folder: Path) -> None:
        tower = text_towers.load_text_tower(text_model, gguf)
        spec = TinySpec(arch=arch, layers=int(tower.config.num_hidden_layers),
                        vocab_size=len(tower.tokenizer) + 1, text_model=text_model, **sizes)
        variant = "next" if arch == "llava_next" else "1.5"
        _build_llava(spec, folder, variant, tower=tower)
        record = {**asdict(spec), "gguf_file": gguf.name, "gguf_sha256": recipe["gguf_sha256"],
                  "text_model_licence": text_spec.licence}
        (folder / "halluscope_tiny.json").write_text(json.dumps(record, indent=2) + "\n")

    return build_cache.materialise(recipe, build, out, cache_dir)
