"""`halluscope models ...` commands (a typer sub-app the main CLI mounts as "models").

>>> sorted(c.name for c in app.registered_commands)
['make-tiny']
"""

from __future__ import annotations

from pathlib import Path

import typer

from halluscope.models.tiny import TINY_ARCHES

app = typer.Typer(help="VLM adapters and tiny test models.", no_args_is_help=True)


@app.callback()
def _models() -> None:
    """VLM adapters and tiny test models."""  # keeps "models" a group even with one command


@app.command("make-tiny")
def make_tiny_command(
    arch: str = typer.Option(..., "--arch", help="One of: " + ", ".join(sorted(TINY_ARCHES))),
    out: Path = typer.Option(..., "--out", help="folder to write the model to"),
    layers: int = typer.Option(2, "--layers", help="decoder layers of the language model"),
    hidden: int = typer.Option(64, "--hidden", help="hidden size (language and vision)"),
    heads: int = typer.Option(4, "--heads", help="attention heads"),
    seed: int = typer.Option(0, "--seed", help="seed of the random weights"),
    image_size: int | None = typer.Option(None, "--image-size",
                                          help="input image size (default: the family's)"),
) -> None:
    """Build a random-weight model of the real architecture, loadable with from_pretrained."""
    from halluscope.models.tiny import make_tiny

    folder = make_tiny(arch, out, layers=layers, hidden=hidden, heads=heads, seed=seed,
                       image_size=image_size)
    typer.echo(f"wrote tiny {arch} model to {folder}")
