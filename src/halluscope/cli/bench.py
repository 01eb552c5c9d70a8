"""`halluscope bench`: the NAME-Bench protocol on detector scores that are already computed.

>>> [c.name for c in app.registered_commands]
['evaluate', 'run', 'tables', 'fit-text-filter', 'table3', 'table10', 'table12']

Mount with `app.add_typer(bench_app, name="bench")`, or run this module alone:
`python -m halluscope.cli.bench evaluate --scores FILE.parquet --out OUT.json`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from halluscope.cli.common import DEVICE, pick_device, user_errors

DETECTOR_OPTION_HELP = ("Detector constructor option NAME.KEY=VALUE (repeatable), e.g. "
                        "dhcp.epochs=20, dhcp.device=cuda, halp.batch_size=64, svar.layers=0,1; "
                        "values are read as bool, int, float, else text (a comma makes a tuple).")


# Options several commands share: one declaration each.
SEEDS = typer.Option(3, "--seeds", min=1, help="Seeds 0..N-1.")
ANNOTATIONS = typer.Option(None, "--annotations", help="COCO instances JSON (presence), for "
                                                      "`halluscope label` output.")
NATURAL_SHARE = typer.Option(None, "--natural-share", help="Non-assertive share on random "
                             "images (Table 1) for budget nat (default: the paper's Table 1 "
                             "figure for the model when it gives one, else required).")
ESTIMATE_NATURAL_SHARE = typer.Option(
    False, "--estimate-natural-share", help="Without --natural-share or a paper figure, use the "
    "labels' own non-assertive share (wrong on a set that oversamples them; prints a warning).")
KEEP_GENERIC = typer.Option(False, "--keep-generic", help="Keep generic non-assertive mentions "
                            "(outside the four subtypes), which NAME-Bench drops (Table 16 "
                            "shows them either way).")
ALLOW_UNMATCHED = typer.Option(False, "--allow-unmatched", help="Drop, and report, mentions "
                               "found in only one of labels and signals instead of failing.")
DETECTOR_OPTION = typer.Option(None, "--detector-option", help=DETECTOR_OPTION_HELP)


def _names(detectors: Optional[str]) -> Optional[list[str]]:
    """The comma-separated --detectors value as a list (None: the command's default)."""
    return [d.strip() for d in detectors.split(",") if d.strip()] if detectors else None


def _detector_options(items: Optional[list[str]]) -> dict[str, dict[str, Any]]:
    from halluscope.bench.runner import parse_detector_options

    return parse_detector_options(items or [])


def _unused_options(options: dict[str, dict[str, Any]], ran: list[str]) -> None:
    # Options of a detector that did not run (not requested, or its features are missing)
    # had no effect: say so rather than let the user believe they did.
    for name in sorted(set(options) - set(ran)):
        typer.echo(f"note: --detector-option for {name} unused: {name} did not run", err=True)


app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="NAME-Bench detector protocol.")


@app.callback()
def _bench() -> None:
    """NAME-Bench detector protocol (splits, calibrated thresholds, FPR/TPR/AUC over seeds)."""


@app.command("evaluate")
def evaluate_command(
    scores: Path = typer.Option(
        ..., "--scores", help="Parquet, one row per mention: image_id, label (concrete / "
                              "hallucinated / non_assertive), subtype, optional present, key "
                              "and model, and one numeric column per detector (higher = more "
                              "likely hallucinated)."),
    out: Path = typer.Option(..., "--out", help="JSON report (written atomically)."),
    seeds: int = SEEDS,
    detectors: Optional[str] = typer.Option(
        None, "--detectors", help="Comma-separated score columns (default: every numeric one)."),
    model: Optional[str] = typer.Option(
        None, "--model", help="Keep rows of this model (needed when the file holds several)."),
    markdown: Optional[Path] = typer.Option(None, "--markdown",
                                            help="Also write the printed table here."),
) -> None:
    """Split by image, calibrate each detector at 10% concrete FPR, report held-out metrics."""
    from halluscope.bench.protocol import evaluate_scores, load_scores, markdown_summary
    from halluscope.io.atomic import write_json_atomic, write_text_atomic

    with user_errors():
        names = _names(detectors)
        table, columns = load_scores(scores, names, model)
        report = evaluate_scores(table, columns, seeds=tuple(range(seeds)))
        report["scores_file"] = str(scores)
        if model is not None:
            report["model"] = model
        write_json_atomic(out, report)
        text = markdown_summary(report)
        if markdown is not None:
            write_text_atomic(markdown, text + "\n")
    typer.echo(text)
    typer.echo(f"wrote {out}", err=True)


@app.command("run")
def run_command(
    labels: Path = typer.Option(
        ..., "--labels", help="Per-mention Parquet of `halluscope report` (mentions.parquet), or "
                              "of `halluscope label` together with --annotations."),
    signals: Path = typer.Option(..., "--signals", help="Output directory of `halluscope "
                                                        "signals` (mentions/ and captions/)."),
    out: Path = typer.Option(..., "--out", help="Output directory (tables, results.json, "
                                                "report.html)."),
    seeds: int = SEEDS,
    budgets: str = typer.Option("0,nat,10,30,100,max", "--budgets",
                                help="Mixing budgets: % of the fit hallucinations, nat, max "
                                     "(0 always runs)."),
    detectors: Optional[str] = typer.Option(
        None, "--detectors", help="Comma-separated detectors (default: every one whose "
                                  "features the signals have)."),
    model: Optional[str] = typer.Option(None, "--model", help="Model name (selects its rows "
                                                              "when the labels have a model "
                                                              "column)."),
    annotations: Optional[Path] = ANNOTATIONS,
    natural_share: Optional[float] = NATURAL_SHARE,
    allow_unmatched: bool = ALLOW_UNMATCHED,
    figure_detector: Optional[str] = typer.Option(
        None, "--figure-detector", help="Detector of the per-mention score plot."),
    detector_option: Optional[list[str]] = DETECTOR_OPTION,
    keep_generic: bool = KEEP_GENERIC,
    estimate_natural_share: bool = ESTIMATE_NATURAL_SHARE,
) -> None:
    """Join labels and signals, run every detector through the protocol, write Tables 1, 2, 4,
    5, 7, 13 (JSON, CSV, Markdown), per-mention scores and an HTML report."""
    from halluscope.bench.run import run_bench
    from halluscope.report.tables import summary_markdown

    with user_errors():
        options = _detector_options(detector_option)
        names = _names(detectors)
        results = run_bench(labels, signals, out, seeds=seeds, budgets=budgets,
                            detectors=names, model=model, annotations=annotations,
                            natural_share=natural_share, allow_unmatched=allow_unmatched,
                            figure_detector=figure_detector, detector_options=options,
                            progress=lambda message: typer.echo(message, err=True),
                            keep_generic=keep_generic,
                            estimate_natural_share=estimate_natural_share)
    _unused_options(options, results["summary"]["detectors"])
    typer.echo(summary_markdown(results))
    typer.echo(f"wrote {out}/ (results.json, tables.md, table*.csv, scores.parquet, "
               "scores_mixing.parquet, report.html)", err=True)


@app.command("tables")
def tables_command(
    labels: Path = typer.Option(..., "--labels", help="Labels Parquet (as for `bench run`)."),
    signals: Path = typer.Option(..., "--signals", help="`halluscope signals` output directory."),
    out: Path = typer.Option(..., "--out", help="Output directory (extra_results.json, "
                                                "extra_tables.md, one CSV per table)."),
    tables: Optional[str] = typer.Option(None, "--tables", help="Comma-separated tables of "
                                         "6, 11, 14, 15, 16, 17, position3, relpos, figure1 "
                                         "(default: all)."),
    seeds: int = SEEDS,
    detectors: Optional[str] = typer.Option(None, "--detectors", help="Comma-separated "
                                            "detectors (default: every one the signals allow)."),
    budgets: str = typer.Option("0,nat,10,30,100,max", "--budgets",
                                help="Mixing budgets of Table 14."),
    model: Optional[str] = typer.Option(None, "--model", help="Model name (as for `bench run`)."),
    annotations: Optional[Path] = ANNOTATIONS,
    natural_share: Optional[float] = NATURAL_SHARE,
    allow_unmatched: bool = ALLOW_UNMATCHED,
    detector_option: Optional[list[str]] = DETECTOR_OPTION,
    keep_generic: bool = KEEP_GENERIC,
    estimate_natural_share: bool = ESTIMATE_NATURAL_SHARE,
) -> None:
    """Appendix tables: 6 (seen -> unseen subtype), 11 (text filter), 14 (mixing by subtype),
    15 (hedges as claims), 16 (excluded mentions), 17 (concepts); and the analyses without a
    table: position3 (three-class position match, §4.1), relpos (median relative position per
    class), figure1 (before / after 20 non-assertive examples)."""
    from halluscope.report.tables import table_markdown
    from halluscope.bench.appendix import run_appendix_tables

    with user_errors():
        options = _detector_options(detector_option)
        names = _names(detectors)
        results = run_appendix_tables(labels, signals, out, tables=tables, seeds=seeds,
                                   detectors=names, model=model, annotations=annotations,
                                   natural_share=natural_share, budgets=budgets,
                                   allow_unmatched=allow_unmatched, detector_options=options,
                                   progress=lambda message: typer.echo(message, err=True),
                                   keep_generic=keep_generic,
                                   estimate_natural_share=estimate_natural_share)
    _unused_options(options, results["detectors"])
    typer.echo("\n\n".join(table_markdown(t) for t in results["tables"].values()))
    typer.echo(f"wrote {out}/ (extra_results.json, extra_tables.md, table*.csv)", err=True)


@app.command("fit-text-filter")
def fit_text_filter_command(
    labels: Path = typer.Option(..., "--labels", help="Labels Parquet (as for `bench run`)."),
    signals: Path = typer.Option(..., "--signals", help="`halluscope signals` output directory "
                                                        "(needs text_hidden_mid_w4)."),
    out: Path = typer.Option(..., "--out", help="The fitted filter: JSON (or .npz), written "
                                                "atomically; never a pickle."),
    model: Optional[str] = typer.Option(None, "--model", help="Model name (as for `bench run`)."),
    annotations: Optional[Path] = ANNOTATIONS,
    natural_share: Optional[float] = NATURAL_SHARE,
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the image-level split (the "
                                                      "filter trains on its fit split)."),
    allow_unmatched: bool = ALLOW_UNMATCHED,
    keep_generic: bool = KEEP_GENERIC,
    estimate_natural_share: bool = ESTIMATE_NATURAL_SHARE,
) -> None:
    """Fit the text filter of Appendix E (class-balanced logistic regression on the text-only
    mid-layer states over W4; non-assertive vs concrete + hallucinated; threshold 0.5) on the
    seed's fit split with the natural share of non-assertive mentions, save it, and print its
    held-out recall per subtype. Use it with `halluscope label --judge text_filter`."""
    from halluscope.bench.appendix import fit_bench_text_filter
    from halluscope.report.markdown import markdown_table

    with user_errors():
        report = fit_bench_text_filter(labels, signals, out, seed=seed, model=model,
                                       annotations=annotations, natural_share=natural_share,
                                       allow_unmatched=allow_unmatched,
                                       keep_generic=keep_generic,
                                       estimate_natural_share=estimate_natural_share,
                                       progress=lambda message: typer.echo(message, err=True))
    for note in report["notes"]:
        typer.echo(f"note: {note}", err=True)
    typer.echo(f"text filter: trained on {report['n_train'].get('existential', 0)} concrete + "
               f"hallucinated and {report['n_mixed']} non-assertive mentions (natural share "
               f"{report['natural_share']:.3f}, seed {seed}); held-out shares marked "
               "non-assertive:")
    typer.echo(markdown_table(["held-out group", "%"], [
        [name.removesuffix(" %"), "–" if value is None else f"{100 * value:.1f}"]
        for name, value in report["rates"].items()]))
    typer.echo(f"wrote {out}", err=True)


@app.command("table3")
def table3_command(
    mentions: Path = typer.Option(..., "--mentions", help="Per-mention Parquet of `halluscope "
                                                          "report` (REPORT/mentions.parquet)."),
    captions: Path = typer.Option(..., "--captions", help="The captions JSONL the report was "
                                                          "built from (caption_index = line)."),
    out: Path = typer.Option(..., "--out", help="Output directory (table3.json, table3.csv, "
                                                "table3.md, throne_votes.parquet)."),
    throne_judge: str = typer.Option(
        ..., "--throne-judge", help="hf (local seq2seq judges such as THRONE's Flan-T5 base, "
                                    "large, XL: --throne-model PATH, repeated), llm (an "
                                    "OpenAI-compatible endpoint), or offline (a stand-in, not "
                                    "THRONE: votes from the offline usage judge)."),
    base_url: Optional[str] = typer.Option(None, "--base-url",
                                           help="LLM judge: OpenAI-compatible endpoint."),
    throne_model: Optional[list[str]] = typer.Option(
        None, "--throne-model", help="hf: a local seq2seq model folder (repeat: base, large, "
                                     "XL; votes = questions x models). llm: a model name "
                                     "(repeatable; votes = questions x models x repeats; "
                                     "default gpt-4o-mini)."),
    device: str = DEVICE,
    keep_generic: bool = KEEP_GENERIC,
    repeats: int = typer.Option(3, "--repeats", min=1, help="LLM judge: times each answer is "
                                                            "counted (offline: votes = 3 x this)."),
    api_key_env: str = typer.Option("HALLUSCOPE_LLM_API_KEY", "--api-key-env",
                                    help="Environment variable holding the key ('none' for a "
                                         "local server that needs none)."),
    cache_dir: Path = typer.Option(Path(".halluscope_cache/throne"), "--cache-dir",
                                   help="LLM judge reply cache."),
    max_concurrency: int = typer.Option(4, "--max-concurrency", min=1),
    max_retries: int = typer.Option(4, "--max-retries", min=0),
    max_tokens: Optional[int] = typer.Option(
        None, "--max-tokens", min=1, help="LLM judge: cap on each answer's tokens (an answer "
                                          "cut short is a counted failure)."),
    throne_prompts: Optional[Path] = typer.Option(
        None, "--throne-prompts", help="LLM judge: JSON prompt file replacing halluscope's "
                                       "default THRONE wording (e.g. THRONE's released prompts; "
                                       "schema in halluscope.metrics.throne). Results record "
                                       "its sha256."),
) -> None:
    """Table 3: % of hallucinated, non-assertive (per subtype) and concrete mentions counted as
    hallucinations by CHAIR and THRONE (majority, unanimous), and THRONE's disqualification rate."""
    from halluscope.bench.tables.table3 import run_table3, table3_markdown
    from halluscope.metrics.throne import get_throne_judge

    with user_errors():
        if throne_judge == "hf":
            from halluscope.bench.throne_hf import HFThroneJudge

            judge = HFThroneJudge(throne_model or (), prompts=throne_prompts,
                                  device=pick_device(device))
        else:
            if throne_judge == "llm":
                options = dict(base_url=base_url, models=tuple(throne_model or ("gpt-4o-mini",)),
                               repeats=repeats, cache_dir=cache_dir, max_retries=max_retries,
                               max_concurrency=max_concurrency, max_tokens=max_tokens,
                               api_key_env=None if api_key_env.lower() == "none"
                               else api_key_env)
            elif throne_judge == "offline":
                options = dict(votes=3 * repeats)
            else:
                from halluscope.errors import ConfigError

                raise ConfigError(f"unknown THRONE judge {throne_judge!r}; choose hf, llm or "
                                  "offline")
            judge = get_throne_judge(throne_judge, prompts=throne_prompts, **options)
        if getattr(judge, "warning", None):
            typer.echo(f"warning: {judge.warning}", err=True)
        try:
            document = run_table3(mentions, captions, out, judge,
                                  progress=lambda message: typer.echo(message, err=True),
                                  keep_generic=keep_generic)
        finally:
            judge.close()
    typer.echo(table3_markdown(document))
    typer.echo(f"wrote {out}/ (table3.json, table3.csv, table3.md, throne_votes.parquet)",
               err=True)


@app.command("table10")
def table10_command(
    labels: Path = typer.Option(..., "--labels", help="Labels Parquet of the reference captions "
                                                      "(as for `bench run`)."),
    signals: list[str] = typer.Option(
        ..., "--signals", help="NAME=DIR, repeated: each reading model's `halluscope signals` "
                               "directory, extracted on the reference captions."),
    out: Path = typer.Option(..., "--out", help="Output directory (table10.json/.csv/.md and "
                                                "one `bench run` report per reader)."),
    captions_of: Optional[str] = typer.Option(None, "--captions-of",
                                              help="Name of the model that wrote the captions."),
    seeds: int = SEEDS,
    budgets: str = typer.Option("0,nat,10,30,100,max", "--budgets", help="Mixing budgets."),
    detectors: Optional[str] = typer.Option(None, "--detectors", help="Comma-separated trained "
                                            "detectors (default: every one the store allows)."),
    label_model: Optional[str] = typer.Option(None, "--model", help="Rows of this model in the "
                                              "labels (when they hold several)."),
    annotations: Optional[Path] = ANNOTATIONS,
    natural_share: Optional[float] = NATURAL_SHARE,
    allow_unmatched: bool = ALLOW_UNMATCHED,
    detector_option: Optional[list[str]] = DETECTOR_OPTION,
    keep_generic: bool = KEEP_GENERIC,
    estimate_natural_share: bool = ESTIMATE_NATURAL_SHARE,
) -> None:
    """Table 10: the mixing experiment (Table 5) with every model reading the same captions."""
    from halluscope.report.tables import table_markdown
    from halluscope.bench.tables.table10 import parse_readers, run_table10

    with user_errors():
        options = _detector_options(detector_option)
        names = _names(detectors)
        document = run_table10(labels, parse_readers(signals), out, seeds=seeds,
                               budgets=budgets, detectors=names, captions_of=captions_of,
                               label_model=label_model, annotations=annotations,
                               natural_share=natural_share, allow_unmatched=allow_unmatched,
                               detector_options=options,
                               progress=lambda message: typer.echo(message, err=True),
                               keep_generic=keep_generic,
                               estimate_natural_share=estimate_natural_share)
    typer.echo(table_markdown(document["table"]))
    typer.echo(f"wrote {out}/ (table10.json, table10.csv, table10.md, one report per reader)",
               err=True)


@app.command("table12")
def table12_command(
    votes: list[str] = typer.Option(
        ..., "--votes", help="JUDGE=DIR, repeated: a `bench table3` output folder (its "
                             "throne_votes.parquet) judged by JUDGE; folders of one JUDGE "
                             "(one per model) are pooled."),
    out: Path = typer.Option(..., "--out", help="Output directory (table12.json/.csv/.md)."),
    keep_generic: bool = KEEP_GENERIC,
) -> None:
    """Table 12: THRONE under majority and unanimous voting per judge (e.g. Flan-T5 vs an LLM),
    on the mentions of several models pooled."""
    from halluscope.bench.tables.table12 import table12, votes_from_table3
    from halluscope.errors import ConfigError
    from halluscope.io.atomic import write_json_atomic, write_text_atomic
    from halluscope.report.tables import table_csv, table_markdown

    with user_errors():
        judges: dict[str, list] = {}
        for item in votes:
            judge, sep, folder = item.partition("=")
            if not sep or not judge.strip() or not folder.strip():
                raise ConfigError(f"--votes {item!r}: expected JUDGE=DIR")
            judges.setdefault(judge.strip(), []).append(votes_from_table3(folder.strip()))
        table = table12(judges, keep_generic)
        out.mkdir(parents=True, exist_ok=True)
        write_json_atomic(out / "table12.json", {"votes": list(votes), "table": table})
        write_text_atomic(out / "table12.csv", table_csv(table))
        write_text_atomic(out / "table12.md", table_markdown(table) + "\n")
    typer.echo(table_markdown(table))
    typer.echo(f"wrote {out}/ (table12.json, table12.csv, table12.md)", err=True)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
