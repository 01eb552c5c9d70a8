"""`halluscope pope` and `halluscope hallusionbench`: score a model's answers, from halluscope or
another harness, against the released questions.

>>> [c.name for c in app.registered_commands]
['pope', 'hallusionbench']

Mounted with `app.add_typer(benchmarks_app)` (no name: both become top-level commands).
`INPUT_FORMAT` is the one declaration of `--input-format`, shared by `label`, `report`, `chair`.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any, List, Optional

import typer

from halluscope.cli.common import DEVICE, pick_device, user_errors

app = typer.Typer(add_completion=False, pretty_exceptions_show_locals=False,
                  help="Benchmark scoring: POPE, HallusionBench.")


class InputFormat(str, Enum):
    auto = "auto"
    jsonl = "jsonl"
    lmms_eval = "lmms-eval"
    vlmevalkit = "vlmevalkit"


INPUT_FORMAT = typer.Option(
    InputFormat.auto, "--input-format",
    help="Layout of the input: halluscope's JSON lines, an lmms-eval --log_samples file, a "
         "VLMEvalKit prediction file (.xlsx/.tsv/.json). auto: from the file.")
SKIP_BAD = typer.Option(False, "--skip-bad",
                        help="Leave out (and count) missing, duplicated or unknown ids instead "
                             "of stopping.")


def _fmt(value: Any) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}"


class ScoreMode(str, Enum):
    open = "open"
    closed = "closed"


@app.command("pope")
def pope_command(
    split: List[Path] = typer.Option(..., "--split",
                                      help="POPE split file(s) (coco_pope_<split>.json; "
                                           "JSON lines question_id, image, text, label)."),
    answers: List[Path] = typer.Option(
        [], "--answers", help="The model's answers: JSON lines {question_id, text}, a `prism "
                              "probe` output (<model>/pope.jsonl), an lmms-eval or VLMEvalKit "
                              "file. A file's split: its records' split/category field, else "
                              "its name, else the only --split."),
    labels: List[Path] = typer.Option(
        [], "--labels", help="Corrected labels in the split files' layout (e.g. RePOPE), one "
                             "per split, named after it; questions they omit are left out."),
    input_format: InputFormat = INPUT_FORMAT,
    score: ScoreMode = typer.Option(
        ScoreMode.open, "--score",
        help="open: parse the answers' text. closed: one forward pass of --model per question, "
             "yes vs no by the probability of all their surface forms, and agreement with its "
             "greedy answer."),
    model: Optional[str] = typer.Option(None, "--model", help="--score closed: model folder."),
    images: Optional[Path] = typer.Option(None, "--images",
                                          help="--score closed: folder of the POPE images."),
    batch_size: int = typer.Option(8, "--batch-size", min=1),
    device: str = DEVICE,
    dtype: str = typer.Option("float32", "--dtype",
                              help="--score closed: float32, bfloat16 or float16."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the full result (JSON)."),
    skip_bad: bool = SKIP_BAD) -> None:
    """POPE accuracy, precision, recall, F1, yes-ratio per split and their average, answers
    joined on question_id; hedged and unparsed answers counted apart."""
    from halluscope.errors import ConfigError

    with user_errors():
        if score is ScoreMode.closed:
            if model is None or images is None:
                raise ConfigError("--score closed needs --model DIR and --images DIR")
            from halluscope.benchmark_jobs import pope_closed_job

            result = pope_closed_job(split, model, images, batch_size=batch_size, dtype=dtype,
                                     device=pick_device(device), out_path=out)
        else:
            if not answers:
                raise ConfigError("--answers FILE is required (or --score closed with --model)")
            if model is not None or images is not None:
                raise ConfigError("--model and --images are options of --score closed")
            from halluscope.benchmark_jobs import pope_job

            result = pope_job(split, answers, input_format.value, labels, skip_bad, out)
    typer.echo("split        acc     prec    recall  F1      yes%    hedged unparsed skipped")
    rows = list(result["splits"].items()) + [("average", result["average"])]
    for name, m in rows:
        skipped = sum(m.get("skipped", {}).values()) if "skipped" in m else ""
        typer.echo(f"{name:<12} {_fmt(m['accuracy']):<7} {_fmt(m['precision']):<7} "
                   f"{_fmt(m['recall']):<7} {_fmt(m['f1']):<7} {_fmt(m['yes_ratio']):<7} "
                   f"{m.get('n_hedged', ''):<6} {m.get('n_unparsed', ''):<8} {skipped}")
    if "average_llava_reading" in result:
        typer.echo(f"F1 with LLaVA's parser (hedges read as yes): "
                   f"{_fmt(result['average_llava_reading']['f1'])} (average)")
    if "agreement" in result.get("average", {}):
        typer.echo(f"closed vs greedy agreement: {_fmt(result['average']['agreement'])}")
    if out is not None:
        typer.echo(f"-> {out}")


@app.command("hallusionbench")
def hallusionbench_command(
    answers: List[Path] = typer.Option(
        ..., "--answers", help="The model's answers: JSON lines or the official result JSON "
                               "(category, subcategory, set_id, figure_id, question_id and "
                               "text/model_prediction), a `prism probe` output, an lmms-eval "
                               "or VLMEvalKit file."),
    release: Path = typer.Option(..., "--release", help="The released HallusionBench.json."),
    input_format: InputFormat = INPUT_FORMAT,
    allow_subset: bool = typer.Option(
        False, "--allow-subset", help="Score answers covering part of the release (lmms-eval "
                                      "and VLMEvalKit ship the 951 image questions); the "
                                      "output says it is a subset."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the full result (JSON)."),
    skip_bad: bool = SKIP_BAD) -> None:
    """HallusionBench aAcc, fAcc, qAcc as the benchmark groups them, count checked against the
    release; hedged and unparsed answers counted."""
    from halluscope.benchmark_jobs import hallusionbench_job

    with user_errors():
        r = hallusionbench_job(release, answers, input_format.value, allow_subset, skip_bad, out)
    subset = (f" SUBSET: {r['n_questions']} of {r['release_questions']} questions"
              if r["subset"] else "")
    typer.echo(f"aAcc={_fmt(r['aAcc'])} fAcc={_fmt(r['fAcc'])} qAcc={_fmt(r['qAcc'])} "
               f"questions={r['n_questions']} figures={r['n_figures']} pairs={r['n_pairs']} "
               f"hedged={r['n_hedged']} unparsed={r['n_unparsed']}{subset}")
    for cat, m in r["by_category"].items():
        typer.echo(f"  {cat}: aAcc={_fmt(m['aAcc'])} fAcc={_fmt(m['fAcc'])} "
                   f"qAcc={_fmt(m['qAcc'])}")
    if out is not None:
        typer.echo(f"-> {out}")
