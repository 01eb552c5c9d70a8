"""`signals` command: per-mention detector signals of a caption file (thin over `extract_signals`).

>>> from typer.testing import CliRunner
>>> CliRunner().invoke(app, ["--help"]).exit_code
0

Mounting: `root.add_typer(app)` (no name) puts the command at the top level, `halluscope
signals --model DIR ...`. torch is imported only when the command runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from halluscope.cli.common import (EXECUTOR, GPUS_PER_WORKER, NUM_SHARDS, RAY_ADDRESS, SHARD,
                                   WORKERS, executor_options, user_errors)

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Per-mention signals (attention, hidden states, logit lens) of captions.")


@app.command("signals")
def signals(model: Path = typer.Option(..., "--model", help="Model folder or hub id."),
            captions: Path = typer.Option(
                ..., "--captions", help="JSON lines {image_id, image, caption[, token_ids]}, "
                                        "or a `caption` run directory (its generated ids)."),
            images: Optional[Path] = typer.Option(
                None, "--images", help="Folder that relative image paths are in."),
            out: Path = typer.Option(..., "--out", help="Run directory (resumable)."),
            batch_size: int = typer.Option(4, "--batch-size", min=1),
            dtype: str = typer.Option("float32", "--dtype",
                                      help="auto, float32, bfloat16, float16."),
            device: str = typer.Option("cpu", "--device"),
            limit: Optional[int] = typer.Option(None, "--limit", min=1,
                                                help="Only the first N captions."),
            prompt: Optional[str] = typer.Option(None, "--prompt",
                                                 help="Prompt the captions answered (default: "
                                                      "NAME-Bench's 'Provide a detailed description of this image.')."),
            logit_lens: bool = typer.Option(
                True, "--logit-lens/--no-logit-lens",
                help="Internal Confidence's logit lens over every image token at every layer "
                     "(the costliest feature on models with a small hidden size and a large "
                     "vocabulary; --no-logit-lens drops logit_lens_max and "
                     "internal_confidence)."),
            executor: str = EXECUTOR, workers: int = WORKERS,
            gpus_per_worker: float = GPUS_PER_WORKER, ray_address: Optional[str] = RAY_ADDRESS,
            num_shards: int = NUM_SHARDS, shard: int = SHARD) -> None:
    """One teacher-forced pass per caption; one Parquet row per object mention."""

    with user_errors():
        from halluscope.models.spec import ModelSpec
        from halluscope.signals.extract import DEFAULT_PROMPT, extract_signals
        from halluscope.signals.features import SignalConfig

        run_on, part = executor_options(executor, workers, gpus_per_worker, ray_address,
                                        num_shards, shard)
        from halluscope.signals.inputs import read_items

        items = read_items(captions)
        spec = ModelSpec(str(model), dtype=dtype, device=device, attn_implementation="sdpa")
        spec.check()
        adapter = spec if run_on.kind == "ray" else spec.load()
        done = [0]

        def advance(n: int) -> None:
            done[0] += n
            typer.echo(f"\r{done[0]}/{min(len(items), limit or len(items))} captions", err=True,
                       nl=False)

        summary = extract_signals(adapter, items, out, prompt=prompt or DEFAULT_PROMPT,
                                  batch_size=batch_size, limit=limit, images_dir=images,
                                  config=SignalConfig(logit_lens=logit_lens), progress=advance,
                                  executor=run_on, shard=part)
    typer.echo("", err=True)
    for error in summary["error_items"]:
        typer.echo(f"caption {error['caption_index']} ({error['image_id']}): {error['kind']}: "
                   f"{error['message']}", err=True)
    typer.echo(f"{summary['processed']} captions, {summary['mentions_written']} mention rows "
               f"written ({summary['skipped_done']} captions already done, "
               f"{summary['no_mentions']} without mentions, {summary['errors']} errors) -> {out}")
