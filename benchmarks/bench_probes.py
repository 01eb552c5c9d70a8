"""Batched HalluPrism probing vs. a reference-style loop, tiny Qwen2.5-VL on CPU.

    python benchmarks/bench_probes.py [--items 32] [--batch-size 16]
    python benchmarks/bench_probes.py --text-model smollm2-135m [--items 16] [--ref-items 4]

Workload: 32 items (16 VSR-style true/false captions with relations, 16 POPE-style yes/no
questions) x all probes (clean, 4 perturbations, blank, grounding re-check, relation swap or
negation): 8 probes per item, 256 probe answers.

* reference-style loop: what the released code does, one `generate` of up to 128 new tokens per
  probe at batch size 1 (answer and confidence read from the generated tokens).
* batched (`prism.probes.probe_items`): closed-set probes scored from one forward pass over
  the options, in batches; only the grounding re-check is generated (128 tokens, batched), then
  its label re-scored in one batched forward.

The tiny random model rarely emits EOS, so both sides generate the full 128 tokens: the worst
case for the batched side, whose grounding probe is generated too. Prints `RESULT speedup=<x>`
last. By default the reference loop is timed on 8 of the 32 items and scaled (`--ref-items`).

With `--text-model smollm2-135m` the model is LLaVA-1.5 with the real SmolLM2-135M-Instruct
language tower (30 layers; 56-px random CLIP, 16 image tokens; cached build). A pretrained tower
does emit EOS, so generated answers stop early on both sides, as with a real VLM.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=None, help="default 32 (16 with --text-model)")
    ap.add_argument("--text-model", default=None,
                    help="a real language tower (smollm2-135m) in a LLaVA layout")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--max-new-tokens", type=int, default=128)
    ap.add_argument("--ref-items", type=int, default=None,
                    help="items the slow reference-style loop is timed on; its time is scaled "
                         "to all items (items alternate VSR/POPE, so cost per item is uniform). "
                         "Use --ref-items 32 for the full measurement (~11 min on 2 CPU cores)."
                         " Default 8 (4 with --text-model).")
    args = ap.parse_args()
    if args.items is None:
        args.items = 16 if args.text_model else 32
    if args.ref_items is None:
        args.ref_items = 4 if args.text_model else 8

    import numpy as np
    import torch
    from PIL import Image

    from halluscope.models import load_adapter, make_tiny
    from halluscope.prism.answers import parse_answer
    from halluscope.prism.datasets import Item
    from halluscope.prism.probes import (ProbeConfig, ProbeStats,
                                         build_requests, generation_confidence, probe_items)

    torch.set_num_threads(2)
    tmp = Path(tempfile.mkdtemp(prefix="bench_probes_"))
    if args.text_model:
        from halluscope.demo.model_demo import REAL_TOWER_SIZES

        folder = make_tiny("llava", tmp / "real", text_model=args.text_model, **REAL_TOWER_SIZES)
    else:
        folder = make_tiny("qwen2_5_vl", tmp / "tiny", layers=2, hidden=32, heads=4, seed=0,
                           image_size=56)
    adapter = load_adapter(folder, dtype="float32")
    rels = [("on", "The dog is on the bed."), ("left of", "The cat is left of the car."),
            ("above", "The lamp is above the table."), ("in front of", "The bus is in front of "
                                                        "the tree.")]
    items: list[Item] = []
    for i in range(args.items):
        if i % 2 == 0:
            rel, cap = rels[(i // 2) % len(rels)]
            items.append(Item(f"vsr_dev_{i:06d}", "vsr", "", cap, "true", "truefalse", rel))
        else:
            items.append(Item(f"pope_random_{i:06d}", "pope", "", "Is there a dog in the image?",
                              "yes", "yesno"))
    rng = np.random.default_rng(0)
    images = [Image.fromarray(rng.integers(0, 256, (56, 56 + 28 * (i % 2), 3), dtype=np.uint8))
              for i in range(len(items))]
    config = ProbeConfig(batch_size=args.batch_size, max_new_tokens=args.max_new_tokens)
    eos = adapter.model.generation_config.eos_token_id
    eos_ids = set(eos if isinstance(eos, list) else [eos])

    # Warm-up (first-call overheads) on one item each way.
    list(probe_items(adapter, items[:1], config, images=images[:1]))

    # Reference-style loop: one generate per probe, batch 1.
    t0 = time.perf_counter()
    n_ref = 0
    n_ref_items = min(max(args.ref_items, 2), len(items))
    for i, item in enumerate(items[:n_ref_items]):
        for req in build_requests(item, images[i], config, i, ProbeStats()):
            g = adapter.generate([req.image], [req.prompt], max_new_tokens=args.max_new_tokens,
                                 return_logits=True)[0]
            parse_answer(g.text.split("\n", 1)[0], item.answer_type)
            generation_confidence(g.token_ids, g.logits, eos_ids)
            n_ref += 1
    t_ref = (time.perf_counter() - t0) * len(items) / n_ref_items

    stats = ProbeStats()
    t0 = time.perf_counter()
    rows = list(probe_items(adapter, items, config, "tiny", stats, images=images))
    t_batched = time.perf_counter() - t0
    assert len(rows) == len(items)

    print(f"model={adapter.family}{' + ' + args.text_model if args.text_model else ' tiny'} "
          f"items={len(items)} probes per item=8 max_new_tokens={args.max_new_tokens} "
          f"batch_size={args.batch_size}")
    scaled = "" if n_ref_items == len(items) else f", timed on {n_ref_items} items and scaled"
    print(f"reference-style loop: {t_ref:.2f}s ({n_ref} generate calls{scaled})")
    print(f"batched: {t_batched:.2f}s (forward rows={stats.n_forward_rows}, "
          f"generated={stats.n_generated}, unparsed={stats.unparsed})")
    print(f"RESULT speedup={t_ref / t_batched:.2f}")


if __name__ == "__main__":
    main()
