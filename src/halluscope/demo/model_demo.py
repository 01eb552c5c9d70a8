"""The model side of the demo: a tiny LLaVA captions generated images, then one teacher-forced
pass per caption extracts every mention's detector signals.

>>> callable(run_model_demo)
True

Everything is built here: the random-weight model (real LLaVA-1.5 architecture, loaded back
through `from_pretrained`), the images (drawn shapes) and the captions read by the model (the
embedded demo captions, i.e. captions written by someone else: NAME-Bench's teacher-forced
control). A random model's own captions are noise, so they are shown but not analysed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

# The real-tower model of the demo (and of the tests): a small random CLIP at 56 px (16 image
# tokens) keeps every forward of the 30-layer SmolLM2 tower well under a second.
REAL_TOWER_SIZES = {"hidden": 32, "heads": 4, "image_size": 56}
#: Mentions shown in the printed signals table (the store has all of them; the table says so).
SHOWN_SIGNAL_ROWS = 30


def demo_model_dir(out: str | Path, text_model: str | None = None) -> Path:
    """Where `run_model_demo` puts its model."""
    return Path(out) / ("tiny-llava" if text_model is None else f"llava-{text_model}")


def run_model_demo(out: str | Path, echo: Callable[[str], None] = print, images: int = 6,
                   layers: int = 4, hidden: int = 64, max_new_tokens: int = 24,
                   labels: str | Path | None = None, text_model: str | None = None) -> dict:
    """Caption `images` generated images, extract signals for every embedded demo caption and,
    given the usage report's per-mention table (`labels`), run the NAME-Bench protocol on them.

    With `text_model` ("smollm2-135m") the model's language tower is that real pretrained model
    (`models make-tiny --text-model`, cached build): its captions are real English.
    """
    import json

    import pyarrow.parquet as pq

    from halluscope.demo.data import DEMO_IMAGES
    from halluscope.demo.images import write_demo_images
    from halluscope.generation.captioning import caption_images, export_captions
    from halluscope.models import load_adapter, make_tiny
    from halluscope.report.markdown import fixed, markdown_table
    from halluscope.signals.extract import extract_signals
    from halluscope.text.usage import get_judge
    from halluscope.text.mentions import extract_mentions

    out = Path(out)
    model_dir = demo_model_dir(out, text_model)
    if text_model is not None:
        make_tiny("llava", model_dir, text_model=text_model, **REAL_TOWER_SIZES)
        title = (f"LLaVA-1.5 layout with the real {text_model} language tower (random vision "
                 "tower: the captions are fluent English, not about the images)")
    else:
        if not (model_dir / "config.json").is_file():
            make_tiny("llava", model_dir, layers=layers, hidden=hidden)
        title = (f"Tiny LLaVA-1.5 ({layers} layers, random weights: the captions are noise)")
    paths = write_demo_images(out / "images", len(DEMO_IMAGES) if labels else images)
    adapter = load_adapter(model_dir, attn_implementation="sdpa")

    items = [{"image_id": index, "image": str(path)}
             for index, path in enumerate(paths[:images], 1)]
    caption_summary = caption_images(adapter, items, out / "captioning",
                                     max_new_tokens=max_new_tokens, batch_size=3)
    export_captions(out / "captioning")
    echo(f"## {title} captioned {len(items)} generated images\n\n{caption_summary.line()}; "
         f"captions in {out / 'captioning'}/captions.jsonl\n")
    if text_model is not None:
        exported = (out / "captioning" / "captions.jsonl").read_text(encoding="utf-8").splitlines()
        echo(f"The first {min(3, len(exported))} of {len(exported)} captions. They are noise: "
             "fluent English from the real language tower, but the vision tower is random, so "
             "they say nothing about the images (not analysed below):\n")
        for line in exported[:3]:
            echo(f"> {json.loads(line)['caption'].strip()}\n")

    captions = [{"image_id": DEMO_IMAGES[index - 1][0], "image": path.name,
                 "caption": DEMO_IMAGES[index - 1][2]} for index, path in enumerate(paths, 1)]
    signal_summary = extract_signals(adapter, captions, out / "signals",
                                     images_dir=out / "images")
    rows = []
    for shard in sorted((out / "signals" / "mentions").glob("*.parquet")):
        rows.extend(pq.read_table(shard).to_pylist())
    rows.sort(key=lambda r: (r["caption_index"], r["mention_index"]))
    texts = [c["caption"] for c in captions]
    judged = get_judge("offline").label(texts, [extract_mentions(t) for t in texts])
    usage = {(ci, mi): label.usage for ci, per in enumerate(judged) for mi, label in enumerate(per)}
    table = [[r["caption_index"], r["word"], usage.get((r["caption_index"], r["mention_index"]), ""),
              r["token_index"], f"{sum(r['image_attention'][len(r['image_attention']) // 2]) / len(r['image_attention'][0]):.3f}",
              f"{r['nll']:.2f}", f"{r['entropy']:.2f}", fixed(r["glsim_score"])]
             for r in rows[:SHOWN_SIGNAL_ROWS]]
    shown = (f"first {len(table)} of {len(rows)} mentions; all in {out / 'signals'}"
             if len(table) < len(rows) else f"all {len(rows)} mentions")
    echo("## Signals from one teacher-forced pass per caption\n\n"
         + f"({shown}; the embedded captions, written by people, teacher-forced through the "
           "demo model)\n\n"
         + markdown_table(["caption", "mention", "usage", "token", "image attention (mid layer)",
                           "NLL", "entropy", "GLSim"], table)
         + f"\n\n{signal_summary['mentions_written']} mentions from {signal_summary['processed']} "
           f"captions, errors: {signal_summary['errors']}; store in {out / 'signals'}\n")
    result = {"captioning": caption_summary, "signals": signal_summary,
              "model_dir": str(model_dir)}
    if labels is not None:
        from halluscope.bench.run import run_bench

        # Few mentions: one seed, small budgets; detectors whose classes are missing report notes.
        bench = run_bench(labels, out / "signals", out / "bench", seeds=1, budgets="0,10,max")
        echo("## NAME-Bench protocol on the demo (tiny random model: detector figures are "
             "noise; the point is the pipeline)\n\n"
             + (out / "bench" / "summary.md").read_text(encoding="utf-8")
             + f"\nTables and HTML report in {out / 'bench'}\n")
        result["bench"] = bench
    (out / "model_demo.json").write_text(json.dumps(
        {k: (v.__dict__ if hasattr(v, "__dict__") else v) for k, v in result.items()
         if k != "bench"}, default=str))
    return result
