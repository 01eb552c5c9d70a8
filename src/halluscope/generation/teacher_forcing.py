"""Teacher-force a caption run's generated ids with a transformers model and compare the
log-probabilities the generation backend stored: how a vLLM run is checked against HF.

    from halluscope.generation.teacher_forcing import compare_run
    compare_run(load_adapter("models/tiny", dtype="float32"), "runs/vllm")
    # {'rows': 8, 'tokens': 128, 'max_abs_logprob_diff': 4.8e-07, 'greedy_disagreements': 0}

A token where the transformers model's own greedy choice differs from the stored id is counted
(`greedy_disagreements`): near-ties can flip between engines; the ids are still teacher-forced
exactly, so `signals` reads the same sequence.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from PIL import Image

    from halluscope.models.base import VLMAdapter


def teacher_forced_logprobs(adapter: VLMAdapter, image: Image.Image, prompt: str,
                            token_ids: Sequence[int]) -> tuple[list[float], list[int]]:
    """log_softmax of the model's logits at each of `token_ids` after the prompt, and the
    model's greedy choice at each position."""
    import torch

    ids = [int(t) for t in token_ids]
    batch = adapter.encode([image], [prompt], captions=[ids], padding_side="right")
    start = batch.items[0].prompt_length
    with torch.no_grad():
        logits = adapter.model(**batch.inputs).logits[0].float()
    scores = torch.log_softmax(logits[start - 1:start - 1 + len(ids)], dim=-1)
    chosen = scores.gather(-1, torch.tensor(ids, device=scores.device)[:, None])[:, 0]
    return chosen.cpu().tolist(), scores.argmax(-1).cpu().tolist()


def compare_run(adapter: VLMAdapter, run_dir: str | Path, max_image_side: int | None = None
                ) -> dict[str, Any]:
    """Every captioned row of a caption run, teacher-forced; the largest log-prob difference."""
    from halluscope.generation.captioning import open_run
    from halluscope.generation.items import load_image

    store = open_run(run_dir)
    prompt = store.manifest["config"]["prompt"]
    worst, tokens, rows, flips = 0.0, 0, 0, 0
    for row in store.rows():
        if row["error"] is not None or not row["token_ids"]:
            continue
        image = load_image(row["image"], max_image_side)
        forced, greedy = teacher_forced_logprobs(adapter, image, prompt, row["token_ids"])
        worst = max([worst] + [abs(a - b) for a, b in zip(forced, row["logprobs"])])
        flips += sum(1 for g, t in zip(greedy, row["token_ids"]) if g != t)
        tokens += len(forced)
        rows += 1
    return {"rows": rows, "tokens": tokens, "max_abs_logprob_diff": worst,
            "greedy_disagreements": flips}
