"""A synthetic labels file and signal store with planted structure, shared by the bench tests
(importable: `tests` is on pytest's pythonpath)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

SUBTYPES = ("hedged", "depictive", "purpose", "negation")
L, H, D = 2, 2, 8


def _mention_plan(n_images: int, rng: np.random.Generator) -> list[dict]:
    """One caption per image, five mentions each; classes with the paper's rough proportions."""
    plan = []
    for image in range(n_images):
        for m in range(5):
            label = rng.choice(["concrete", "hallucinated", "non_assertive"], p=[.62, .2, .18])
            plan.append({"caption_index": image, "mention_index": m, "image_id": 1000 + image,
                         "start": 10 * m, "end": 10 * m + 4, "category": "dog",
                         "label": str(label),
                         "subtype": str(rng.choice(SUBTYPES)) if label == "non_assertive"
                         else None, "present": bool(label == "concrete"
                                                    or (label == "non_assertive"
                                                        and rng.random() < .5))})
    return plan


def write_synthetic(root: Path, n_images: int = 90, seed: int = 0) -> tuple[Path, Path]:
    """A labels Parquet (as `halluscope report` writes) and a signals directory with planted
    signal: hallucinated (and, like in the paper, non-assertive) mentions look "ungrounded"."""
    rng = np.random.default_rng(seed)
    plan = _mention_plan(n_images, rng)
    labels, signals = [], []
    for p in plan:
        usage = "non_assertive" if p["label"] == "non_assertive" else "existential"
        labels.append({"caption_index": p["caption_index"], "image_id": p["image_id"],
                       "mention_index": p["mention_index"], "start": p["start"], "end": p["end"],
                       "word": "dog", "category": p["category"], "excluded": False,
                       "usage": usage, "subtype": p["subtype"], "error": None,
                       "present": p["present"], "namebench_class": p["label"]})
        bad = float(p["label"] != "concrete")
        position = int(rng.integers(0, 40) + 25 * (p["label"] == "hallucinated"))
        signals.append({
            "key": f"{p['caption_index']}:{p['mention_index']}",
            "caption_index": p["caption_index"], "mention_index": p["mention_index"],
            "image_id": str(p["image_id"]), "start": p["start"], "end": p["end"], "word": "dog",
            "category": p["category"], "caption_token_index": position,
            "nll": float(rng.normal() + 1.5 * (p["label"] == "hallucinated")),
            "entropy": float(rng.normal()),
            "internal_confidence": float(rng.normal()),
            "glsim_global": float(rng.normal()), "glsim_local": float(rng.normal()),
            "image_attention": (rng.normal(size=(L, H)) - bad).tolist(),
            "image_attention_w4": (rng.normal(size=(L, H)) - bad).tolist(),
            "lookback_ratio_w4": (rng.normal(size=(L, H)) + bad).tolist(),
            "pas_attention": rng.normal(size=H).tolist(),
            # Non-assertive mentions share the hallucination direction but also carry a cue of
            # their own (last dimension), which mixing can teach a probe to use.
            "hidden_mid_w4": (rng.normal(size=D) + bad
                              + 3.0 * (p["label"] == "non_assertive") * (np.arange(D) == D - 1)
                              ).tolist(),
            "hidden_last_w4": (rng.normal(size=D) + bad).tolist(),
            "text_hidden_mid_w4": rng.normal(size=D).tolist(),
        })
    labels_path = root / "mentions.parquet"
    pq.write_table(pa.Table.from_pylist(labels), labels_path)
    sig = root / "signals"
    (sig / "mentions").mkdir(parents=True)
    (sig / "captions").mkdir(parents=True)
    half = len(signals) // 2  # two shards, as a resumed extraction leaves them
    pq.write_table(pa.Table.from_pylist(signals[half:]), sig / "mentions" / "shard-000000.parquet")
    pq.write_table(pa.Table.from_pylist(signals[:half]), sig / "mentions" / "shard-000001.parquet")
    captions = [{"key": str(i), "caption_index": i, "image_id": str(1000 + i),
                 "halp_hidden": rng.normal(size=D).tolist()} for i in range(n_images)]
    pq.write_table(pa.Table.from_pylist(captions), sig / "captions" / "shard-000000.parquet")
    return labels_path, sig
