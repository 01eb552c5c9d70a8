"""GPU memory estimates for common VLMs (the README's table), from their published configs.

    python benchmarks/gpu_memory.py [--batch-size 8] [--new-tokens 512]

No weights are downloaded: each model is built on PyTorch's meta device from the hyperparameters
of its config.json on the hub (copied below as numbers), parameters are counted exactly and the
rest is `halluscope.models.memory`'s arithmetic. The parameter count is printed beside the one
the model card states, as a check that the config was copied right.
"""

from __future__ import annotations

import argparse


def _configs() -> dict[str, tuple[object, float, int]]:
    """name -> (config, parameters the model card states in billions, image tokens per image)."""
    from transformers import (CLIPVisionConfig, Gemma3Config, LlamaConfig, LlavaConfig,
                              Qwen2_5_VLConfig, SiglipVisionConfig)

    clip_l336 = dict(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24,
                     num_attention_heads=16, image_size=336, patch_size=14, projection_dim=768)

    def llava(hidden, layers, heads, intermediate):
        return LlavaConfig(vision_config=CLIPVisionConfig(**clip_l336),
                           text_config=LlamaConfig(vocab_size=32064, hidden_size=hidden,
                                                   num_hidden_layers=layers,
                                                   num_attention_heads=heads,
                                                   intermediate_size=intermediate),
                           image_token_id=32000, vision_feature_layer=-2,
                           vision_feature_select_strategy="default")

    def qwen(hidden, layers, heads, kv_heads, intermediate, tie):
        return Qwen2_5_VLConfig(
            text_config=dict(vocab_size=151936 if tie else 152064, hidden_size=hidden,
                             num_hidden_layers=layers, num_attention_heads=heads,
                             num_key_value_heads=kv_heads, intermediate_size=intermediate,
                             tie_word_embeddings=tie),
            vision_config=dict(depth=32, hidden_size=1280, intermediate_size=3420, num_heads=16,
                               out_hidden_size=hidden, fullatt_block_indexes=[7, 15, 23, 31]),
            tie_word_embeddings=tie)

    gemma = Gemma3Config(
        text_config=dict(vocab_size=262208, hidden_size=2560, num_hidden_layers=34,
                         num_attention_heads=8, num_key_value_heads=4, head_dim=256,
                         intermediate_size=10240, sliding_window=1024),
        vision_config=SiglipVisionConfig(hidden_size=1152, intermediate_size=4304,
                                         num_hidden_layers=27, num_attention_heads=16,
                                         image_size=896, patch_size=14,
                                         vision_use_head=False),
        mm_tokens_per_image=256)
    # Qwen2.5-VL: 391 image tokens for a 640x480 COCO image (28-px merged patches, 23 x 17).
    return {
        "llava-hf/llava-1.5-7b-hf": (llava(4096, 32, 32, 11008), 7.06, 576),
        "llava-hf/llava-1.5-13b-hf": (llava(5120, 40, 40, 13824), 13.35, 576),
        "Qwen/Qwen2.5-VL-3B-Instruct": (qwen(2048, 36, 16, 2, 11008, True), 3.75, 391),
        "Qwen/Qwen2.5-VL-7B-Instruct": (qwen(3584, 28, 28, 4, 18944, False), 8.29, 391),
        "google/gemma-3-4b-it": (gemma, 4.30, 256),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--new-tokens", type=int, default=512)
    parser.add_argument("--prompt-tokens", type=int, default=64)
    args = parser.parse_args()
    from halluscope.models.memory import GIB, count_parameters, estimate_memory

    print(f"bf16, batch {args.batch_size}, {args.prompt_tokens} prompt + {args.new_tokens} "
          "caption tokens (probe: 128 answer tokens); GiB (estimates)")
    print("| model | parameters (card) | image tokens | weights | caption | signals | probe |")
    print("|---|---|---|---|---|---|---|")
    for name, (config, card, image_tokens) in _configs().items():
        params = count_parameters(config)
        est = {c: estimate_memory(config, command=c, batch_size=args.batch_size,
                                  image_tokens=image_tokens, prompt_tokens=args.prompt_tokens,
                                  new_tokens=128 if c == "probe" else args.new_tokens,
                                  parameters=params)
               for c in ("caption", "signals", "probe")}
        print(f"| {name} | {params / 1e9:.2f} B ({card:.2f} B) | {image_tokens} | "
              f"{est['caption'].weights / GIB:.1f} | {est['caption'].total / GIB:.1f} | "
              f"{est['signals'].total / GIB:.1f} | {est['probe'].total / GIB:.1f} |")


if __name__ == "__main__":
    main()
