"""`halluscope` CLI. Every command is a few lines over a library function in `halluscope.jobs`.

Errors in user input print one line (`file:line: message`) and exit with status 2.

>>> from typer.testing import CliRunner
>>> CliRunner().invoke(app, ["--help"]).exit_code
0
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from halluscope.cli.benchmarks import INPUT_FORMAT, InputFormat
from halluscope.cli.common import progress_bar, user_errors
from halluscope.text.usage.base import JUDGES

# Plain (click) help, not rich panels: readable when piped or logged (no option name cut to
# the panel's width), boolean flags shown as bare flags, and "[c]" in help text printed as is
# (rich would read it as markup). Every mounted sub-app inherits this.
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  rich_markup_mode=None,
                  help="What a VLM caption claims vs. merely mentions, and which claims are "
                       "hallucinated.")


def _print_version(value: bool) -> None:
    if value:
        from halluscope import __version__

        typer.echo(f"halluscope {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", is_eager=True,
                                       callback=_print_version,
                                       help="Print the version and exit.")) -> None:
    """What a VLM caption claims vs. merely mentions, and which claims are hallucinated."""


# The CLI's judge choices come from the registry: `report` takes the judges that read caption
# text, `label` also those that read the signal store of the captions (the text filter).
JudgeName = Enum("JudgeName", [(n, n) for n in JUDGES.select(reads="captions")], type=str)
LabelJudgeName = Enum("LabelJudgeName", [(n, n) for n in JUDGES], type=str)


def _make_judge(judge: str, llm: dict):
    from halluscope.text.usage import get_judge

    name = getattr(judge, "value", judge)
    return get_judge("llm", **llm) if name == "llm" else get_judge(name)


def _check_judge_failures(failures: int, mentions: int, max_rate: float | None) -> None:
    """The failure gate: a run whose judge failed on every mention (or on more than
    `max_rate` of them) is an error, not a result. Failures are already in the outputs as
    rows with an error, so a rerun asks again for those only."""
    from halluscope.errors import ConfigError

    if not mentions or not failures:
        return
    rate = failures / mentions
    # Without a rate only a run that failed everywhere is an error; with one, only a share
    # above it (so --max-judge-failure-rate 1 never fails the run).
    if (failures == mentions) if max_rate is None else rate > max_rate:
        limit = ("every judgement failed" if max_rate is None else
                 f"more than --max-judge-failure-rate {max_rate:.1%}")
        raise ConfigError(f"judge failures: {failures} of {mentions} mentions ({rate:.1%}): "
                          f"{limit}; rerun to retry only the failed ones")


def _echo_judge_stats(judge) -> None:
    stats = getattr(judge, "stats", None)
    if stats:
        typer.echo("judge: " + ", ".join(f"{k}={v}" for k, v in stats.items()), err=True)


def _llm_config(base_url, model, compound_model, api_key_env, concurrency, per_call, cache_dir,
                no_json_mode, price_input, price_output, max_tokens=None,
                timeout: float = 60.0, max_retries: int = 4) -> dict:
    return {"base_url": base_url, "model": model, "compound_model": compound_model,
            # '' or 'none' (as in `bench table3 --api-key-env none`): a keyless local server.
            "api_key_env": None if (api_key_env or "").lower() in ("", "none") else api_key_env,
            "max_concurrency": concurrency,
            "captions_per_call": per_call,
            "cache_dir": cache_dir, "json_mode": not no_json_mode,
            "price_per_million_input": price_input, "price_per_million_output": price_output,
            "max_tokens": max_tokens, "timeout": timeout, "max_retries": max_retries}


def _load_vocabulary(vocab_file: Optional[Path], replace: bool):
    from halluscope.vocab import Vocabulary, load_vocabulary

    if vocab_file is None:
        return Vocabulary.namebench()
    return load_vocabulary(vocab_file, mode="replace" if replace else "extend")


CAPTIONS = typer.Option(..., "--captions", help="JSON lines {image_id, caption}.")
SKIP_BAD = typer.Option(False, "--skip-bad",
                        help="Record and count bad input lines instead of stopping at the first.")
JUDGE = typer.Option(JudgeName("offline"), "--judge", help="Usage judge.")
LLM_URL = typer.Option(None, "--llm-base-url", help="OpenAI-compatible endpoint (default: OpenAI).")
LLM_MODEL = typer.Option("gpt-4o", "--llm-model", help="LLM judge model for steps 1 and 2.")
LLM_COMPOUND = typer.Option("gpt-4o-mini", "--llm-compound-model",
                            help="LLM judge model for step 3 (compound check).")
LLM_KEY = typer.Option("HALLUSCOPE_LLM_API_KEY", "--llm-api-key-env",
                       help="Environment variable holding the API key ('none' for a keyless local "
                            "server such as vLLM).")
LLM_CONC = typer.Option(4, "--llm-concurrency", min=1)
LLM_PER_CALL = typer.Option(6, "--llm-captions-per-call", min=1,
                            help="Captions per step-1 request (the paper uses 6).")
LLM_CACHE = typer.Option(Path(".halluscope_cache/llm"), "--llm-cache-dir")
LLM_NO_JSON = typer.Option(False, "--llm-no-json-mode", help="For servers without response_format.")
LLM_PRICE_IN = typer.Option(None, "--llm-price-input", help="USD per million input tokens.")
LLM_PRICE_OUT = typer.Option(None, "--llm-price-output", help="USD per million output tokens.")
LLM_MAX_TOKENS = typer.Option(None, "--llm-max-tokens", min=1,
                              help="Cap on each reply's tokens (a reply cut short is a counted "
                                   "judge failure). Default: the server's.")
LLM_TIMEOUT = typer.Option(60.0, "--llm-timeout", min=0.001,
                           help="Seconds to wait for each reply before retrying it (a timeout is "
                                "retried like a server error, then a counted judge failure).")
LLM_RETRIES = typer.Option(4, "--llm-max-retries", min=0,
                           help="Retries of a request that timed out, failed (429, 5xx, "
                                "connection) or gave an invalid reply.")
MAX_FAILURE_RATE = typer.Option(
    None, "--max-judge-failure-rate", min=0.0, max=1.0,
    help="Exit with an error (after writing the outputs) when more than this share of the "
         "mentions ended as judge failures. Default: only when every judgement failed.")
VOCAB = typer.Option(None, "--vocab", help="Extra vocabulary file (JSON or synonyms.txt layout).")
VOCAB_REPLACE = typer.Option(False, "--replace-vocab",
                             help="Replace NAME-Bench's vocabulary instead of extending it.")
CHAIR_VOCAB_HELP = "CHAIR's synonym table (JSON or synonyms.txt); env HALLUSCOPE_CHAIR_VOCAB."


@app.command()
def chair(captions: Path = CAPTIONS,
          gt_objects: Path = typer.Option(..., "--gt-objects",
                                          help="JSON mapping image_id to a list of categories, or COCO instances."),
          chair_vocab: Optional[Path] = typer.Option(None, "--chair-vocab",
                                                     help=CHAIR_VOCAB_HELP),
          out: Path = typer.Option(..., "--out"), skip_bad: bool = SKIP_BAD,
          input_format: InputFormat = INPUT_FORMAT) -> None:
    """CHAIRs, CHAIRi and Recall exactly as the reference CHAIR computes them."""
    from halluscope.jobs import chair_job

    with user_errors():
        result = chair_job(captions, gt_objects, chair_vocab, out, skip_bad=skip_bad,
                           input_format=input_format.value)
    overall, captions = result["overall"], result["captions"]
    # The reference reports 0.0 where a ratio has no denominator; say "undefined" instead.
    denominators = {"CHAIRs": len(captions),
                    "CHAIRi": sum(len(c["generated_words"]) for c in captions),
                    "Recall": sum(len(c["gt_words"]) for c in captions)}
    figures = " ".join(f"{name}={overall[name]:.4f}" if denominators[name] else
                       f"{name}=undefined" for name in ("CHAIRs", "CHAIRi", "Recall"))
    undefined = [name for name, n in denominators.items() if not n]
    note = (f" (undefined: {', '.join(undefined)}: no captions, object mentions or "
            "ground-truth objects to divide by)" if undefined else "")
    typer.echo(f"{figures} captions={len(captions)} skipped={result['skipped']['count']}"
               f"{note} -> {out}")


@app.command("chair-gt")
def chair_gt(instances: list[Path] = typer.Option(
                 ..., "--instances", help="COCO instances JSON (repeat for train and val)."),
             captions: list[Path] = typer.Option(
                 ..., "--captions", help="COCO captions JSON of the same images (repeatable)."),
             out: Path = typer.Option(..., "--out", help="Ground truth JSON {image_id: "
                                                         "[category, ...]}, written atomically."),
             chair_vocab: Optional[Path] = typer.Option(None, "--chair-vocab",
                                                        help=CHAIR_VOCAB_HELP),
             compare: Optional[Path] = typer.Option(
                 None, "--compare", help="Another ground-truth JSON to count agreement with "
                                         "(e.g. chair_gt_objects_coco2014.json).")) -> None:
    """CHAIR's ground truth: COCO instance categories ∪ the objects named in the reference
    captions, as the reference CHAIR builds it (use with `chair --gt-objects`, `report
    --chair-gt`)."""
    from halluscope.jobs import chair_gt_job

    chair_vocab = chair_vocab or (Path(os.environ["HALLUSCOPE_CHAIR_VOCAB"])
                                  if os.environ.get("HALLUSCOPE_CHAIR_VOCAB") else None)
    with user_errors():
        summary = chair_gt_job(instances, captions, chair_vocab, out, compare)
    typer.echo(f"{summary['images']} images, {summary['objects']} image-object pairs "
               f"({summary['objects_from_captions_only']} named only in the captions) -> {out}")
    if "compare" in summary:
        c = summary["compare"]
        typer.echo(f"agreement with {c['path']}: {c['images_identical']} of "
                   f"{c['images_in_both']} images identical ({c['images_missing_from_reference']}"
                   " not in it)")


def _label_judge(judge: LabelJudgeName, text_filter: Optional[Path], signals: Optional[Path],
                 llm: dict):
    from halluscope.errors import ConfigError
    from halluscope.text.usage import get_judge

    if judge.value != "text_filter":
        if text_filter is not None or signals is not None:
            raise ConfigError("--text-filter and --signals are options of --judge text_filter")
        return _make_judge(judge, llm)
    if text_filter is None or signals is None:
        raise ConfigError("--judge text_filter needs --text-filter FILTER.json (from `halluscope "
                          "bench fit-text-filter`) and --signals DIR (the `halluscope signals` "
                          "output of these captions: the filter reads their text-only states)")
    return get_judge("text_filter", path=text_filter, signals=signals)


RowFormat = Enum("RowFormat", [(n, n) for n in ("parquet", "csv", "jsonl")], type=str)
#: Mentions shown after `label` (the file holds all of them).
PREVIEW_ROWS = 5


def _label_preview(rows: list, n: int = PREVIEW_ROWS) -> str:
    """The first `n` labelled mentions as a Markdown table, saying when it is cut short.

    >>> print(_label_preview([{"caption_index": 0, "word": "cat", "usage": "non_assertive",
    ...                        "subtype": "hedged", "trigger": "may be", "error": None}] * 2, 1))
    | caption | mention | usage | subtype | trigger |
    |---|---|---|---|---|
    | 0 | cat | non_assertive | hedged | may be |
    (first 1 of 2 mentions)
    """
    from halluscope.report.markdown import markdown_table

    if not rows:
        return "(no mentions)"
    table = markdown_table(["caption", "mention", "usage", "subtype", "trigger"], [
        [r["caption_index"], r["word"], r["usage"] if r.get("error") is None else
         f"failed: {r['error']}", r.get("subtype") or "", (r.get("trigger") or "").replace("|", "/")]
        for r in rows[:n]])
    return table + (f"\n(first {n} of {len(rows)} mentions)" if len(rows) > n else "")


@app.command()
def label(captions: Path = CAPTIONS,
          out: Path = typer.Option(..., "--out", help="Output file (.parquet, .csv or .jsonl)."),
          out_format: Optional[RowFormat] = typer.Option(
              None, "--format", help="Output format (default: from the --out extension; `bench` "
                                     "reads Parquet)."),
          judge: LabelJudgeName = typer.Option(LabelJudgeName("offline"), "--judge",
                                               help="Usage judge."),
          text_filter: Optional[Path] = typer.Option(
              None, "--text-filter", help="--judge text_filter: the fitted filter (JSON of "
                                          "`halluscope bench fit-text-filter`)."),
          signals: Optional[Path] = typer.Option(
              None, "--signals", help="--judge text_filter: `halluscope signals` output of "
                                      "these captions (mentions/ and captions/)."),
          vocab: Optional[Path] = VOCAB,
          replace_vocab: bool = VOCAB_REPLACE, skip_bad: bool = SKIP_BAD,
          input_format: InputFormat = INPUT_FORMAT,
          llm_base_url: Optional[str] = LLM_URL, llm_model: str = LLM_MODEL,
          llm_compound_model: str = LLM_COMPOUND, llm_api_key_env: str = LLM_KEY,
          llm_concurrency: int = LLM_CONC,
          llm_captions_per_call: int = LLM_PER_CALL, llm_cache_dir: Path = LLM_CACHE,
          llm_no_json_mode: bool = LLM_NO_JSON, llm_price_input: Optional[float] = LLM_PRICE_IN,
          llm_price_output: Optional[float] = LLM_PRICE_OUT,
          llm_max_tokens: Optional[int] = LLM_MAX_TOKENS, llm_timeout: float = LLM_TIMEOUT,
          llm_max_retries: int = LLM_RETRIES,
          max_judge_failure_rate: Optional[float] = MAX_FAILURE_RATE) -> None:
    """Label every object mention: usage, subtype, trigger (one row per mention: Parquet,
    CSV or JSON lines); prints the first rows."""
    from halluscope.data.caption_input import read_caption_input
    from halluscope.io.jsonl import SkipLog
    from halluscope.jobs import label_job

    with user_errors():
        skips = SkipLog()
        records = read_caption_input(captions, input_format.value, skip_bad=skip_bad,
                                     skips=skips)
        judge_obj = _label_judge(judge, text_filter, signals,
                                 _llm_config(llm_base_url, llm_model, llm_compound_model,
                                             llm_api_key_env, llm_concurrency,
                                             llm_captions_per_call, llm_cache_dir,
                                             llm_no_json_mode, llm_price_input,
                                             llm_price_output, llm_max_tokens, llm_timeout,
                                             llm_max_retries))
        with progress_bar(len(records), "labelling", unit="captions") as advance:
            rows = label_job(captions, judge_obj, out, _load_vocabulary(vocab, replace_vocab),
                             records=records, skips=skips, progress=advance,
                             out_format=getattr(out_format, "value", None))
    _echo_judge_stats(judge_obj)
    failures = sum(1 for r in rows if r["error"] is not None)
    typer.echo(_label_preview(rows))
    typer.echo(f"{len(rows)} mentions in {len(records)} captions; judge failures: {failures}; "
               f"skipped lines: {skips.count} -> {out}")
    for entry in skips.entries:
        typer.echo(f"skipped {entry['file']}:{entry['line']}: {entry['reason']}", err=True)
    with user_errors():
        _check_judge_failures(failures, len(rows), max_judge_failure_rate)


@app.command()
def report(captions: Path = CAPTIONS,
           annotations: Path = typer.Option(..., "--annotations",
                                            help="COCO instances JSON, or JSON mapping image_id to a list of categories."),
           out: Path = typer.Option(..., "--out", help="Output directory."),
           chair_gt: Optional[Path] = typer.Option(
               None, "--chair-gt", help="CHAIR ground truth JSON (e.g. from `chair-gt`). "
                                        "Default: --annotations ∪ --chair-captions."),
           chair_captions: Optional[list[Path]] = typer.Option(
               None, "--chair-captions", help="COCO captions JSON: CHAIR's ground truth is then "
                                              "the --annotations instances ∪ the objects these "
                                              "reference captions name, as CHAIR's own."),
           chair_instances_only: bool = typer.Option(
               False, "--chair-instances-only", help="CHAIR against the --annotations instances "
                                                     "alone, even with --chair-captions."),
           chair_vocab: Optional[Path] = typer.Option(None, "--chair-vocab", help=CHAIR_VOCAB_HELP),
           judge: JudgeName = JUDGE, vocab: Optional[Path] = VOCAB,
           replace_vocab: bool = VOCAB_REPLACE,
           hedges_as_claims: bool = typer.Option(False, "--hedges-as-claims"),
           skip_bad: bool = SKIP_BAD, input_format: InputFormat = INPUT_FORMAT,
           seed: int = typer.Option(0, "--seed"),
           bootstrap: int = typer.Option(1000, "--bootstrap", min=10),
          llm_base_url: Optional[str] = LLM_URL, llm_model: str = LLM_MODEL,
           llm_compound_model: str = LLM_COMPOUND, llm_api_key_env: str = LLM_KEY,
           llm_concurrency: int = LLM_CONC,
          llm_captions_per_call: int = LLM_PER_CALL, llm_cache_dir: Path = LLM_CACHE,
           llm_no_json_mode: bool = LLM_NO_JSON, llm_price_input: Optional[float] = LLM_PRICE_IN,
           llm_price_output: Optional[float] = LLM_PRICE_OUT,
          llm_max_tokens: Optional[int] = LLM_MAX_TOKENS, llm_timeout: float = LLM_TIMEOUT,
           llm_max_retries: int = LLM_RETRIES,
           max_judge_failure_rate: Optional[float] = MAX_FAILURE_RATE) -> None:
    """Usage-aware report: CHAIR beside the claims-only hallucination rate, counts, natural rates."""
    from halluscope.jobs import usage_report_job
    from halluscope.report.markdown import usage_summary_markdown

    chair_vocab = chair_vocab or (Path(os.environ["HALLUSCOPE_CHAIR_VOCAB"])
                                  if os.environ.get("HALLUSCOPE_CHAIR_VOCAB") else None)
    with user_errors():
        judge_obj = _make_judge(judge, _llm_config(llm_base_url, llm_model, llm_compound_model,
                                               llm_api_key_env, llm_concurrency,
                                               llm_captions_per_call, llm_cache_dir,
                                               llm_no_json_mode, llm_price_input,
                                               llm_price_output, llm_max_tokens, llm_timeout,
                                               llm_max_retries))
        summary = usage_report_job(captions, annotations, out, judge_obj, chair_gt, chair_vocab,
                                   _load_vocabulary(vocab, replace_vocab), hedges_as_claims,
                                   skip_bad, bootstrap, seed, chair_captions=chair_captions,
                                   chair_instances_only=chair_instances_only,
                                   input_format=input_format.value)
    _echo_judge_stats(judge_obj)
    typer.echo(usage_summary_markdown(summary))
    typer.echo(f"written to {out}/ (report.html, summary.md, summary.json, mentions.parquet, "
               "captions.parquet)")
    with user_errors():
        _check_judge_failures(summary["n_judge_failures"], summary["n_mentions"],
                              max_judge_failure_rate)


@app.command()
def demo(out: Path = typer.Option(Path("demo_out"), "--out", help="Output directory."),
         data_root: Optional[Path] = typer.Option(
             None, "--data-root",
             help="Run on the real caption sets under DATA_ROOT/captions instead of the "
                  "embedded default (e.g. ../shared/data)."),
         model: bool = typer.Option(True, "--model/--no-model",
                                    help="Also caption, extract signals and run the HalluPrism "
                                         "probes with a tiny model."),
         text_model: Optional[str] = typer.Option(
             None, "--text-model", help="Give the demo's model a real pretrained language tower "
                                        "(smollm2-135m): real English captions.")
         ) -> None:
    """Run the main job end to end: embedded default data, or the real caption sets."""
    from halluscope.demo.run import run_demo

    with user_errors():
        if text_model is not None:
            from halluscope.models.text_towers import text_model_spec

            text_model_spec(text_model)  # an unknown name fails before any work
        run_demo(out, data_root, echo=typer.echo, model=model, text_model=text_model)


def _mount_subcommands() -> None:
    """One module per command group under `cli/`; each imports torch only when a command runs."""
    from halluscope.cli.bench import app as bench_app
    from halluscope.cli.caption import app as caption_app
    from halluscope.cli.models import app as models_app
    from halluscope.cli.prism import app as prism_app
    from halluscope.cli.signals import app as signals_app

    app.add_typer(models_app, name="models", help="Tiny random-weight VLMs for tests and demos.")
    app.add_typer(caption_app)  # single-command sub-apps: `halluscope caption`, `... signals`
    app.add_typer(signals_app)
    from halluscope.cli.benchmarks import app as benchmarks_app

    app.add_typer(benchmarks_app)  # `halluscope pope`, `halluscope hallusionbench`
    from halluscope.cli.amber import app as amber_app

    app.add_typer(amber_app)  # `halluscope amber`
    app.add_typer(bench_app, name="bench",
                  help="NAME-Bench protocol: calibrated FPR/TPR and AUCs of detector scores.")
    app.add_typer(prism_app, name="prism",
                  help="HalluPrism: signatures, profiles, abstention and routing.")


_mount_subcommands()


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("halluscope: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
