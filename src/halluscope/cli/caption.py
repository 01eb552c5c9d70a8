"""`halluscope caption`: caption images with a VLM into a resumable run directory.

>>> [c.name for c in app.registered_commands]
['caption']

Mount with `app.add_typer(caption_app)` (no name: `caption` becomes a top-level command), or run
this module alone: `python -m halluscope.cli.caption --model DIR --images DIR --out DIR`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from halluscope.cli.common import (BACKEND, DEVICE, EXECUTOR, FORCE_NEW, GPUS_PER_WORKER,
                                   NUM_SHARDS, RAY_ADDRESS, SHARD, WORKERS, announce_device,
                                   executor_options, pick_device, progress_bar, user_errors)
from halluscope.errors import ConfigError

app = typer.Typer(add_completion=False, pretty_exceptions_show_locals=False,
                  help="Caption images with a VLM.")


@app.command("caption")
def caption_command(
    model: str = typer.Option(..., "--model", help="Model folder or hub id."),
    images: Optional[Path] = typer.Option(
        None, "--images", help="Images folder: every image file, image_id from the file name "
                               "(or the base of relative paths in --items)."),
    items: Optional[Path] = typer.Option(
        None, "--items", help='JSON lines {"image_id", "image": path} (instead of all images).'),
    out: Path = typer.Option(..., "--out", help="Run directory (rerun the same command to "
                                                "resume)."),
    prompt: str = typer.Option("Provide a detailed description of this image.", "--prompt"),
    max_new_tokens: int = typer.Option(128, "--max-new-tokens", min=1),
    batch_size: int = typer.Option(8, "--batch-size", min=1,
                                   help="Halved automatically on out-of-memory."),
    dtype: Optional[str] = typer.Option(
        None, "--dtype", help="float32, bfloat16, float16 or auto (default: float32 on CPU, "
                              "bfloat16 on GPU)."),
    device: str = DEVICE,
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Only the first N items."),
    max_image_side: Optional[int] = typer.Option(
        None, "--max-image-side", min=1,
        help="Shrink images whose longer side is larger (Qwen: also max_pixels = side²)."),
    allow_outside_images: bool = typer.Option(
        False, "--allow-outside-images",
        help="Read item images outside the image root (--images, else the items file's folder): "
             "'..', absolute paths elsewhere, symlinks out."),
    backend: str = BACKEND,
    executor: str = EXECUTOR, workers: int = WORKERS, gpus_per_worker: float = GPUS_PER_WORKER,
    ray_address: Optional[str] = RAY_ADDRESS, num_shards: int = NUM_SHARDS, shard: int = SHARD,
    force_new: bool = FORCE_NEW,
) -> None:
    """Caption images (greedy, NAME-Bench prompt) into OUT, then export OUT/captions.jsonl."""
    from halluscope.generation.backends import BackendSpec
    from halluscope.generation.captioning import caption_images, export_captions
    from halluscope.generation.items import items_from_folder, items_from_jsonl
    from halluscope.runs.run_dir import DirectoryRun, open_run_dir

    with user_errors():
        if items is not None:
            todo = items_from_jsonl(items, images, allow_outside=allow_outside_images)
        elif images is not None:
            todo = items_from_folder(images, allow_outside=allow_outside_images)
        else:
            raise ConfigError("give --images DIR, --items FILE.jsonl, or both")
        run_on, part = executor_options(executor, workers, gpus_per_worker, ray_address,
                                        num_shards, shard)
        device, requested = pick_device(device, gpus_per_worker), device
        spec = BackendSpec(backend, model, dtype=dtype, device=device,
                           max_pixels=max_image_side ** 2 if max_image_side else None)
        spec.check()
        run = _fingerprint(model, backend, dtype, device, prompt, max_new_tokens,
                           max_image_side, todo)
        # Checked and locked before the model loads: a refused run costs no load.
        with open_run_dir(DirectoryRun(out), run, force_new=force_new, writer=part.writer):
            announce_device(device, requested, run_on.kind)
            generator = spec if run_on.kind == "ray" else spec.load()
            with progress_bar(None, "captioning", unit="images") as advance:
                summary = caption_images(generator, todo, out, prompt=prompt,
                                         max_new_tokens=max_new_tokens, batch_size=batch_size,
                                         progress=advance, limit=limit,
                                         max_image_side=max_image_side,
                                         on_start=lambda pending, _: advance.set_total(pending),
                                         executor=run_on, shard=part)
            counts = export_captions(out)
    backoff = (f"; out of memory {summary.oom_backoffs}x, batch size now {summary.batch_size}"
               if summary.oom_backoffs else "")
    empty = f", {counts.empty} empty left out" if counts.empty else ""
    for image_id, error in counts.failed:  # the summary's errors, by item
        typer.echo(f"error: image_id {image_id}: {error}", err=True)
    typer.echo(f"{summary.line()}{backoff}; {counts.captions} captions in "
               f"{Path(out) / 'captions.jsonl'}{empty}")
    _fail_if_nothing_captioned(counts)


def _fingerprint(model: str, backend: str, dtype: Optional[str], device: Optional[str],
                 prompt: str, max_new_tokens: int, max_image_side: Optional[int],
                 items: list) -> dict:
    """What makes a caption run (`runs.run_dir`): the options that change its rows, and every
    item (all of them: a run with --limit resumes without it) with its image's name and size."""
    from halluscope.generation.backends import dtype_name
    from halluscope.runs.run_dir import digest_rows, fingerprint, image_entry

    config = {"backend": backend, "dtype": dtype_name(dtype) if dtype else None,
              "device": (device or "auto").split(":")[0], "prompt": prompt,
              "max_new_tokens": max_new_tokens, "max_image_side": max_image_side}
    return fingerprint("caption", model, config, {
        "items": digest_rows([item.key, *image_entry(item.image)] for item in items)})


def _fail_if_nothing_captioned(counts) -> None:
    """Every item of the run directory failed: an error (exit 2), not an empty result."""
    if counts.failed and not counts.captions and not counts.empty:
        with user_errors():
            raise ConfigError(f"every item failed ({len(counts.failed)}): no captions written; "
                              "see the errors above")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
