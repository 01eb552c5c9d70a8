"""Single-pass signal extraction vs. the reference style (one eager pass per detector family).

    python benchmarks/bench_signals.py [--captions 64] [--layers 32] [--hidden 256] [--threads 1]
    python benchmarks/bench_signals.py --text-model smollm2-135m [--captions 6] [--threads 2]

Model: tiny random LLaVA-1.5 (CLIP 336 px -> 576 image tokens), 32 text layers, hidden 256,
4 heads; 64 captions of ~100 tokens built from COCO object words (deterministic).
With `--text-model smollm2-135m` the language model is the real SmolLM2-135M-Instruct (30 layers,
hidden 576, 9 query heads over 3 KV heads, 49,152-token vocabulary; `models make-tiny
--text-model`, cached) behind the same 336-px random CLIP; default 6 captions on 2 threads, which
keeps the three methods under 20 minutes here.
Methods, each in a fresh subprocess (so peak memory is its own):
- `ours`: `batch_signals` — every feature of `halluscope.signals.features` from one sdpa pass with
  the capture, plus the text-only probe's (text-only) pass;
- `baseline`: the published detectors' way — per detector family one eager forward with full
  `output_attentions` + `output_hidden_states`, features computed from those tensors
  (`halluscope.signals.reference`): SVAR/VADE, Lookback Lens, PAS, DHCP, hidden probes (+ NLL /
  entropy / HALP from the same outputs), logit lens, GLSim, and the text-only probe's pass;
- `sdpa`: a plain sdpa forward over the same inputs, nothing captured;
- `ours_no_lens`: `ours` with `SignalConfig(logit_lens=False)` (`signals --no-logit-lens`): no
  Internal Confidence logit lens, which projects every image token through lm_head at every
  layer (576 x vocab x hidden per layer: with SmolLM2's 49,152-token vocabulary and hidden 576
  that is ~5x the FLOPs of the whole forward).
Inputs are encoded before timing; time = wall time of the model work over all captions.

Peak memory: torch's CPU tensors are invisible to tracemalloc, so each worker measures resident
memory from the kernel. After loading the model and one warm-up caption it resets the peak
(`echo 5 > /proc/self/clear_refs`, Linux >= 4.0), notes the current RSS, runs, then reads the
peak (VmHWM). Reported peak = VmHWM - RSS before the run: the memory the method itself needed
on top of the loaded model and inputs. (Without clear_refs, `resource.getrusage` maxrss minus the
RSS before the run is used, which can only under-report when loading peaked higher.) One untimed
warm-up caption runs first (it also makes the memory-mapped weights resident), then
`malloc_trim(0)` returns what it freed, so the window starts from live memory only.

Last line: `RESULT speedup=<baseline/ours time> memory_ratio=<baseline/ours peak>
forward_ratio=<ours/sdpa time> forward_ratio_no_lens=<ours_no_lens/sdpa time>`.

    python benchmarks/bench_signals.py --perturbation-cost [--captions 16] [--batch-size 4]

measures instead what `signals --perturbations blank` adds, in one subprocess that runs, batch
by batch in rotating order (so a busy machine slows all three alike), `sdpa`, `ours` and
`ours_blank` (`ours` plus the mention signatures' blank pass: the blank images made and encoded,
one teacher-forced forward, the W4 log-probabilities). Last line: `RESULT
perturbation_cost=<(ours_blank - ours) / sdpa time>`: the extra time per condition in units of
one plain forward over the same captions (target <= 1.2).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OBJECTS = ["dog", "cat", "giraffe", "bench", "car", "person", "horse", "cup", "table", "chair",
           "pizza", "umbrella", "bus", "train", "bird", "boat", "laptop", "book", "clock", "vase"]
WORDS = ["a", "the", "small", "large", "red", "white", "near", "on", "next", "to", "with", "is",
         "sitting", "standing", "there", "and", "in", "front", "of", "old", "wooden"]


def make_captions(tokenizer, n: int, target_tokens: int = 100, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    captions = []
    for _ in range(n):
        sentences: list[str] = []
        while len(tokenizer(" ".join(sentences))["input_ids"]) < target_tokens:
            words = [rng.choice(WORDS) for _ in range(rng.randint(3, 6))]
            words.insert(rng.randint(0, len(words)), rng.choice(OBJECTS))
            words.append(rng.choice(OBJECTS))
            sentence = " ".join(words)
            sentences.append(sentence[0].upper() + sentence[1:] + ".")
        captions.append(" ".join(sentences))
    return captions


# ------------------------------------------------------------------------------ worker side
def _rss_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _trim() -> None:
    """Give freed heap memory back to the kernel (glibc), so RSS shows live memory."""
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def worker(method: str, model_dir: str, data: str, batch_size: int) -> dict:
    import resource

    import torch
    from PIL import Image

    from halluscope.models import load_adapter
    from halluscope.signals import reference as ref
    from halluscope.signals.extract import _layouts, batch_signals
    from halluscope.signals.features import (MentionSlot, RowLayout, SignalConfig,
                                             encode_text_only)
    from halluscope.text.mentions import extract_mentions

    spec = json.loads(Path(data).read_text())
    adapter = load_adapter(model_dir, dtype="float32",
                           attn_implementation="eager" if method == "baseline" else "sdpa")
    image = Image.open(spec["image"]).convert("RGB")
    captions, prompt = spec["captions"], spec["prompt"]
    chunks = [captions[i:i + batch_size] for i in range(0, len(captions), batch_size)]
    encoded = [(adapter.encode([image] * len(c), [prompt] * len(c), c),
                [extract_mentions(t) for t in c], [prompt] * len(c)) for c in chunks]
    config = SignalConfig(logit_lens=method != "ours_no_lens")
    modules = adapter.modules
    blank = None
    if method in ("ours_blank", "interleaved"):
        from halluscope.signals.perturbations import PerturbationConfig, PerturbationRequest

        blank = {id(batch): PerturbationRequest(PerturbationConfig(("blank",)), [image] * len(c),
                                                c, [str(i) for i in range(len(c))])
                 for c, (batch, _, _) in zip(chunks, encoded)}

    def baseline(batch, mentions, prompts) -> int:
        layouts, _ = _layouts(adapter, batch, mentions, config.window)
        n = 0
        groups = [("svar_vade",), ("lookback",), ("pas",), ("dhcp",),
                  ("hidden", "uncertainty"), ("logit_lens",), ("glsim",)]
        for families in groups:
            out = ref.eager_forward(adapter.model, batch.inputs)
            feats = ref.reference_features(out, layouts, config, modules.final_norm,
                                           modules.lm_head, families)
            if "hidden" in families:
                ref.reference_caption_features(out, layouts)
            n = n or sum(len(v) for v in feats.values())
            del out
        inputs, paddings, lengths = encode_text_only(adapter, prompts,
                                                     [it.caption_token_ids for it in batch.items])
        text_layouts = [RowLayout(lay.row, paddings[lay.row], lengths[lay.row], (0, 0), (1, 1),
                                  [MentionSlot(type(m.alignment)(
                                      m.alignment.caption_token,
                                      m.alignment.token_index - lay.prompt_length
                                      + lengths[lay.row], m.alignment.last_caption_token,
                                      m.alignment.window), m.token_id) for m in lay.mentions])
                        for lay in layouts]
        out = ref.eager_forward(adapter.model, inputs)  # the published probe reads all states
        ref.reference_text_features(out, text_layouts, config)
        return n

    def interleaved(encoded, run_one_as) -> dict:
        parts = list(run_one_as)
        seconds = dict.fromkeys(parts, 0.0)
        for part in parts:  # warm-up, untimed
            run_one(*encoded[0], part=part)
        for i, e in enumerate(encoded):
            for part in parts[i % 3:] + parts[:i % 3]:
                start = time.perf_counter()
                run_one(*e, part=part)
                seconds[part] += time.perf_counter() - start
        return {"method": method, "seconds": seconds, "captions": len(captions)}

    def run_one(batch, mentions, prompts, part=None) -> int:
        kind = part or method
        if kind in ("ours", "ours_no_lens", "ours_blank"):
            request = blank[id(batch)] if kind == "ours_blank" else None
            return sum(len(m) for _, m in batch_signals(adapter, batch, mentions, prompts, config,
                                                        request))
        if kind == "baseline":
            return baseline(batch, mentions, prompts)
        with torch.no_grad():
            adapter.model(**batch.inputs, use_cache=False)
        return 0

    # Warm-up (lazy imports, and the first touch of memory-mapped weights, which makes them
    # resident) before the window opens; malloc_trim then hands the warm-up's freed memory back,
    # so "before" is the live model + inputs and the peak is the method's own.
    if method == "interleaved":
        return interleaved(encoded, run_one_as={"sdpa": None, "ours": None, "ours_blank": blank})

    run_one(*encoded[0])
    _trim()
    cleared = _reset_peak()
    rss_before = _rss_kib("VmRSS")
    start = time.perf_counter()
    mentions = sum(run_one(*e) for e in encoded)
    seconds = time.perf_counter() - start
    peak = _rss_kib("VmHWM") if cleared else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"method": method, "seconds": seconds, "peak_mib": max(0, peak - rss_before) / 1024,
            "rss_before_mib": rss_before / 1024, "mentions": mentions,
            "peak_reset": cleared, "captions": len(captions)}


# ------------------------------------------------------------------------------ driver
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--captions", type=int, default=None,
                        help="default 64 (tiny model), 6 (--text-model)")
    parser.add_argument("--text-model", default=None,
                        help="a real language tower (smollm2-135m) instead of random weights")
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None,
                        help="default 1 (tiny model), 2 (--text-model)")
    parser.add_argument("--perturbation-cost", action="store_true",
                        help="time what --perturbations blank adds, in plain forwards")
    parser.add_argument("--worker", choices=["ours", "ours_no_lens", "baseline", "sdpa",
                                             "ours_blank", "interleaved"])
    parser.add_argument("--model")
    parser.add_argument("--data")
    args = parser.parse_args()
    if args.captions is None:
        args.captions = 6 if args.text_model else 64
    if args.threads is None:
        args.threads = 2 if args.text_model else 1
    if args.worker:
        import torch

        torch.set_num_threads(args.threads)
        print(json.dumps(worker(args.worker, args.model, args.data, args.batch_size)))
        return

    from PIL import Image
    from transformers import AutoTokenizer

    from halluscope.models import make_tiny

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if args.text_model:
            model_dir = make_tiny("llava", root / "model", hidden=64, heads=4, seed=0,
                                  text_model=args.text_model)
            described = f"LLaVA-1.5 layout with the real {args.text_model} language tower"
        else:
            model_dir = make_tiny("llava", root / "model", layers=args.layers,
                                  hidden=args.hidden, heads=args.heads, seed=0)
            described = (f"LLaVA-1.5 tiny, {args.layers} layers, hidden {args.hidden}, "
                         f"{args.heads} heads")
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        Image.new("RGB", (480, 360), (120, 140, 90)).save(root / "image.png")
        captions = make_captions(tokenizer, args.captions)
        data = root / "data.json"
        data.write_text(json.dumps({"image": str(root / "image.png"), "captions": captions,
                                    "prompt": "Describe this image in detail."}))
        tokens = sum(len(tokenizer(c)["input_ids"]) for c in captions) / len(captions)
        print(f"model: {described}, 576 image tokens; {len(captions)} captions, "
              f"{tokens:.0f} tokens each on average; {args.threads} thread(s), "
              f"batch size {args.batch_size}", flush=True)
        env = dict(os.environ, OMP_NUM_THREADS=str(args.threads),
                   MKL_NUM_THREADS=str(args.threads))
        results = {}
        methods = (("interleaved",) if args.perturbation_cost
                   else ("sdpa", "ours", "ours_no_lens", "baseline"))
        for method in methods:
            out = subprocess.run([sys.executable, __file__, "--worker", method, "--model",
                                  str(model_dir), "--data", str(data), "--batch-size",
                                  str(args.batch_size), "--threads", str(args.threads)],
                                 capture_output=True, text=True, env=env, check=False)
            if out.returncode != 0:
                sys.exit(f"{method} worker failed:\n{out.stderr[-3000:]}")
            results[method] = json.loads(out.stdout.strip().splitlines()[-1])
            r = results[method]
            if method == "interleaved":
                results.update({k: {"seconds": v} for k, v in r["seconds"].items()})
                for part, seconds in r["seconds"].items():
                    print(f"{part:12s} {seconds:8.2f} s  {seconds / r['captions']:6.3f} s/caption",
                          flush=True)
                continue
            print(f"{method:12s} {r['seconds']:8.2f} s  {r['seconds'] / r['captions']:6.3f} s/caption"
                  f"  peak +{r['peak_mib']:7.1f} MiB (over {r['rss_before_mib']:.0f} MiB loaded)"
                  f"  mentions {r['mentions']}", flush=True)
    if args.perturbation_cost:
        extra = results["ours_blank"]["seconds"] - results["ours"]["seconds"]
        print(f"one blank condition adds {extra:.2f} s = "
              f"{extra / results['sdpa']['seconds']:.2f} plain forwards (target <= 1.2)")
        print(f"RESULT perturbation_cost={extra / results['sdpa']['seconds']:.2f}")
        return
    ours, base, sdpa = results["ours"], results["baseline"], results["sdpa"]
    assert ours["mentions"] == base["mentions"], "both methods must cover the same mentions"
    speedup = base["seconds"] / ours["seconds"]
    memory = base["peak_mib"] / max(ours["peak_mib"], 1e-3)
    forward = ours["seconds"] / sdpa["seconds"]
    no_lens = results["ours_no_lens"]["seconds"] / sdpa["seconds"]
    print(f"RESULT speedup={speedup:.2f} memory_ratio={memory:.2f} forward_ratio={forward:.2f} "
          f"forward_ratio_no_lens={no_lens:.2f}")


if __name__ == "__main__":
    main()
