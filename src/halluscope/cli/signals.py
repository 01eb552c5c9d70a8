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

from halluscope.cli.common import (DEVICE, EXECUTOR, FORCE_NEW, GPUS_PER_WORKER, NUM_SHARDS,
                                   RAY_ADDRESS, SHARD, WORKERS, announce_device,
                                   executor_options, pick_device, user_errors)

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Per-mention signals (attention, hidden states, logit lens) of captions.")


@app.command("signals")
def signals(model: Path = typer.Option(..., "--model", help="Model folder or hub id."),
            captions: Path = typer.Option(
                ..., "--captions", help="JSON lines {image_id, image, caption[, token_ids]}, "
                                        "or a `caption` run directory (its generated ids)."),
            images: Optional[Path] = typer.Option(
                None, "--images", help="Folder that relative image paths are in; lines "
                                       "without 'image' take the file named by their image_id "
                                       "(139.jpg, COCO_val2014_000000000139.jpg), as `caption` "
                                       "reads a folder."),
            out: Path = typer.Option(..., "--out", help="Run directory (resumable)."),
            batch_size: int = typer.Option(4, "--batch-size", min=1),
            dtype: str = typer.Option("float32", "--dtype",
                                      help="auto, float32, bfloat16, float16."),
            device: str = DEVICE,
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
            perturbations: Optional[str] = typer.Option(
                None, "--perturbations",
                help="Also teacher-force each caption under these images, comma-separated from "
                     "blank, blur, crop, dark, noise (HalluPrism's probes; one batched forward "
                     "each) and write every mention's perturbation signature (mention_logprob_*, "
                     "mention_rank_*, mention_v*, mention_l*)."),
            severity: int = typer.Option(
                2, "--severity", min=1, max=3,
                help="Strength of blur, crop, dark and noise: HalluPrism's Table 12 presets "
                     "1 weak, 2 default, 3 strong."),
            executor: str = EXECUTOR, workers: int = WORKERS,
            gpus_per_worker: float = GPUS_PER_WORKER, ray_address: Optional[str] = RAY_ADDRESS,
            num_shards: int = NUM_SHARDS, shard: int = SHARD,
            force_new: bool = FORCE_NEW,
            allow_outside_images: bool = typer.Option(
                False, "--allow-outside-images",
                help="Read images outside --images ('..', absolute paths elsewhere, symlinks "
                     "out).")) -> None:
    """One teacher-forced pass per caption; one Parquet row per object mention."""

    with user_errors():
        from halluscope.models.spec import ModelSpec
        from halluscope.signals.extract import DEFAULT_PROMPT, extract_signals
        from halluscope.signals.features import SignalConfig
        from halluscope.signals.perturbations import PerturbationConfig

        perturbation = (PerturbationConfig.parse(perturbations, severity)
                        if perturbations is not None else None)

        run_on, part = executor_options(executor, workers, gpus_per_worker, ray_address,
                                        num_shards, shard)
        from halluscope.signals.inputs import read_items

        items = read_items(captions, images)
        if images is not None and not captions.is_dir():
            from halluscope.io.paths import check_items_inside_root

            check_items_inside_root(items, images, captions, allow_outside=allow_outside_images)
        device, requested = pick_device(device, gpus_per_worker), device
        spec = ModelSpec(str(model), dtype=dtype, device=device, attn_implementation="sdpa")
        spec.check()
        from halluscope.runs.run_dir import DirectoryRun, open_run_dir

        run = _fingerprint(model, dtype, device, prompt or DEFAULT_PROMPT, logit_lens, items,
                           images, perturbations=perturbation.manifest() if perturbation
                           else None)
        done = [0]

        def advance(n: int) -> None:
            done[0] += n
            typer.echo(f"\r{done[0]}/{min(len(items), limit or len(items))} captions", err=True,
                       nl=False)

        # Checked and locked before the model loads: a refused run costs no load.
        with open_run_dir(DirectoryRun(out), run, force_new=force_new, writer=part.writer):
            announce_device(device, requested, run_on.kind)
            adapter = spec if run_on.kind == "ray" else spec.load()
            summary = extract_signals(adapter, items, out, prompt=prompt or DEFAULT_PROMPT,
                                      batch_size=batch_size, limit=limit, images_dir=images,
                                      config=SignalConfig(logit_lens=logit_lens),
                                      progress=advance, executor=run_on, shard=part,
                                      perturbations=perturbation)
    typer.echo("", err=True)
    for error in summary["error_items"]:
        typer.echo(f"caption {error['caption_index']} ({error['image_id']}): {error['kind']}: "
                   f"{error['message']}", err=True)
    typer.echo(f"{summary['processed']} captions, {summary['mentions_written']} mention rows "
               f"written ({summary['skipped_done']} captions already done, "
               f"{summary['no_mentions']} without mentions, {summary['errors']} errors) -> {out}")
    if summary["errors"] and not summary["caption_rows_total"]:
        with user_errors():
            from halluscope.errors import InputError

            raise InputError(f"every caption failed ({summary['errors']} errors, listed above): "
                             "no signals written", path=captions)


def _fingerprint(model: Path, dtype: str, device: str, prompt: str, logit_lens: bool,
                 items: list, images: Optional[Path], **options: object) -> dict:
    """What makes a signals run (`runs.run_dir`): the options that change its rows, every
    caption (all of them: a run with --limit resumes without it) and each image's name and
    size. Progress is kept by caption index, so other captions must not resume a run."""
    from halluscope.generation.backends import dtype_name
    from halluscope.runs.run_dir import digest_rows, fingerprint, image_entry

    def image_path(item: dict) -> Path:
        path = Path(str(item.get("image", "")))
        return images / path if images is not None and not path.is_absolute() else path

    config = {"dtype": dtype_name(dtype), "device": device.split(":")[0], "prompt": prompt,
              "logit_lens": logit_lens, **options}
    return fingerprint("signals", model, config, {
        "captions": digest_rows(items),
        "images": digest_rows(image_entry(image_path(item)) for item in items)})
