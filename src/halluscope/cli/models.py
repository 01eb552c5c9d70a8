"""`halluscope models ...` commands (a typer sub-app the main CLI mounts as "models").

>>> sorted(c.name for c in app.registered_commands)
['check-alignment', 'make-tiny', 'memory']
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from halluscope.cli.common import user_errors
from halluscope.errors import ConfigError
from halluscope.models.text_towers import TEXT_MODELS
from halluscope.models.tiny import TINY_ARCHES

app = typer.Typer(help="VLM adapters and tiny test models.", no_args_is_help=True)


@app.callback()
def _models() -> None:
    """VLM adapters and tiny test models."""  # keeps "models" a group even with one command


@app.command("make-tiny")
def make_tiny_command(
    arch: str = typer.Option(..., "--arch", help="One of: " + ", ".join(sorted(TINY_ARCHES))),
    out: Path = typer.Option(..., "--out", help="folder to write the model to"),
    layers: Optional[int] = typer.Option(None, "--layers",
                                         help="decoder layers of the language model [default: 2]"),
    hidden: int = typer.Option(64, "--hidden", help="hidden size (language and vision; with "
                                                   "--text-model: vision only)"),
    heads: int = typer.Option(4, "--heads", help="attention heads (with --text-model: vision "
                                                 "only)"),
    seed: int = typer.Option(0, "--seed", help="seed of the random weights"),
    image_size: int | None = typer.Option(None, "--image-size",
                                          help="input image size (default: the family's)"),
    text_model: Optional[str] = typer.Option(
        None, "--text-model", help="a real pretrained language model as the text tower: "
                                   + ", ".join(sorted(TEXT_MODELS)) + " (cached build)"),
    gguf: Optional[Path] = typer.Option(None, "--gguf", help="the text model's GGUF file "
                                        "(default: the one its package ships)"),
) -> None:
    """Build a random-weight model of the real architecture, loadable with from_pretrained.

    With --text-model the language model, tokenizer and chat template are a real pretrained
    model's; the vision tower and projector stay small and random.
    """
    from halluscope.models.tiny import make_tiny

    with user_errors():
        if text_model is not None and layers is not None:
            raise ConfigError("--layers does not apply with --text-model (the text model has "
                              "its own)")
        if gguf is not None and text_model is None:
            raise ConfigError("--gguf needs --text-model")
        folder = make_tiny(arch, out, layers=2 if layers is None else layers, hidden=hidden,
                           heads=heads, seed=seed, image_size=image_size, text_model=text_model,
                           gguf_path=gguf)
    tower = f" with the {text_model} language tower" if text_model else ""
    typer.echo(f"wrote tiny {arch} model{tower} to {folder}")


@app.command("check-alignment")
def check_alignment_command(
    model: Path = typer.Option(..., "--model", help="Model folder or hub id (its tokenizer and "
                                                    "chat template are what is checked)."),
    captions: list[Path] = typer.Option(..., "--captions", help="JSON lines {image_id, caption}; "
                                                                "repeat for several files."),
    out: Optional[Path] = typer.Option(None, "--out", help="JSON report (counts + examples)."),
    prompt: Optional[str] = typer.Option(None, "--prompt", help="Prompt the captions answered "
                                                                "(default: NAME-Bench's)."),
    image_size: int = typer.Option(336, "--image-size", help="Side of the image the prompt "
                                                             "length is measured with."),
) -> None:
    """Check that every mention maps to tokens whose decoded text spells it (text and token-id
    paths), and count the explained skips (captions longer than the context)."""
    with user_errors():
        from PIL import Image

        from halluscope.data.captions import read_captions
        from halluscope.generation.captioning import DEFAULT_PROMPT
        from halluscope.io.atomic import write_json_atomic
        from halluscope.models import load_adapter
        from halluscope.signals.alignment_audit import AdapterTokenizer, audit_captions

        adapter = load_adapter(model, dtype="float32")
        item = adapter.encode([Image.new("RGB", (image_size, image_size))],
                              [prompt or DEFAULT_PROMPT]).items[0]
        context = getattr(adapter.model.config.get_text_config(), "max_position_embeddings",
                          None)
        report: dict = {"model": str(model), "files": {}}
        for path in captions:
            texts = [r.caption for r in read_captions(path)]
            report["files"][str(path)] = {
                path_kind: audit_captions(AdapterTokenizer(adapter), texts, item.prompt_length,
                                          context, via_ids=path_kind == "token_ids")
                for path_kind in ("text", "token_ids")}
        if out is not None:
            write_json_atomic(out, report)
    for path, kinds in report["files"].items():
        for kind, r in kinds.items():
            typer.echo(f"{path} [{kind}]: {r['mentions']} mentions in {r['captions']} captions: "
                       f"{r['aligned']} aligned ({r['aligned_multi_token']} over several tokens), "
                       f"{r['explained_skips']} explained skips, {r['unexplained']} unexplained")
    if any(r["unexplained"] for kinds in report["files"].values() for r in kinds.values()):
        raise typer.Exit(1)


@app.command("memory")
def memory_command(
    model: str = typer.Option(..., "--model", help="Model folder or hub id (only its config.json "
                                                   "is read; no weights are loaded)."),
    dtype: str = typer.Option("bfloat16", "--dtype", help="bfloat16, float16 or float32"),
    batch_size: int = typer.Option(8, "--batch-size", help="sequences per forward"),
    image_tokens: int = typer.Option(576, "--image-tokens",
                                     help="image tokens per sequence (LLaVA-1.5: 576; Qwen2.5-VL "
                                          "on a 640x480 COCO image: 391; Gemma 3: 256)"),
    prompt_tokens: int = typer.Option(64, "--prompt-tokens", help="prompt and template tokens"),
    new_tokens: int = typer.Option(512, "--new-tokens",
                                   help="caption tokens (generated, or teacher-forced by signals)"),
    probe_new_tokens: int = typer.Option(128, "--probe-new-tokens",
                                         help="prism probe's answer cap (the paper's: 128)"),
) -> None:
    """Estimate the GPU memory of caption, signals and prism probe for a model, from its config
    (parameters counted exactly on the meta device; the rest is arithmetic, an estimate)."""
    with user_errors():
        from transformers import AutoConfig

        from halluscope.models.memory import GIB, count_parameters, estimate_memory

        try:
            config = AutoConfig.from_pretrained(model)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read the config of {model!r}: {exc}") from None
        parameters = count_parameters(config)
        try:
            rows = [estimate_memory(config, command=command, dtype=dtype, batch_size=batch_size,
                                    image_tokens=image_tokens, prompt_tokens=prompt_tokens,
                                    new_tokens=probe_new_tokens if command == "probe"
                                    else new_tokens, parameters=parameters)
                    for command in ("caption", "signals", "probe")]
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    typer.echo(f"{model}: {parameters / 1e9:.2f} B parameters, {dtype}, batch {batch_size}, "
               f"{rows[0].sequence_tokens} tokens per caption sequence (estimates, GiB)")
    typer.echo("command   weights  kv_cache  logits  activations  logit_lens  total")
    for r in rows:
        typer.echo(f"{r.command:<9} {r.weights / GIB:>7.2f}  {r.kv_cache / GIB:>8.2f}  "
                   f"{r.logits / GIB:>6.2f}  {r.activations / GIB:>11.2f}  "
                   f"{r.logit_lens / GIB:>10.2f}  {r.total / GIB:>5.2f}")
