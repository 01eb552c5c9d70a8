"""`halluscope bench`: the NAME-Bench protocol on detector scores that are already computed.

>>> [c.name for c in app.registered_commands]
['evaluate', 'run', 'tables', 'table3']

Mount with `app.add_typer(bench_app, name="bench")`, or run this module alone:
`python -m halluscope.bench.cli evaluate --scores FILE.parquet --out OUT.json`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from halluscope.cli.common import user_errors


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
    seeds: int = typer.Option(3, "--seeds", min=1, help="Seeds 0..N-1."),
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
        names = [d.strip() for d in detectors.split(",") if d.strip()] if detectors else None
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
    seeds: int = typer.Option(3, "--seeds", min=1, help="Seeds 0..N-1."),
    budgets: str = typer.Option("0,nat,10,30,100,max", "--budgets",
                                help="Mixing budgets: % of the fit hallucinations, nat, max "
                                     "(0 always runs)."),
    detectors: Optional[str] = typer.Option(
        None, "--detectors", help="Comma-separated detectors (default: every one whose "
                                  "features the signals have)."),
    model: Optional[str] = typer.Option(None, "--model", help="Model name (selects its rows "
                                                              "when the labels have a model "
                                                              "column)."),
    annotations: Optional[Path] = typer.Option(
        None, "--annotations", help="COCO instances JSON (presence) for `halluscope label` "
                                    "output."),
    natural_share: Optional[float] = typer.Option(
        None, "--natural-share", help="Non-assertive share on random images (Table 1) for "
                                      "budget nat (default: the labels' own share)."),
    allow_unmatched: bool = typer.Option(
        False, "--allow-unmatched", help="Drop, and report, mentions found in only one of "
                                         "labels and signals instead of failing."),
    figure_detector: Optional[str] = typer.Option(
        None, "--figure-detector", help="Detector of the per-mention score plot."),
) -> None:
    """Join labels and signals, run every detector through the protocol, write Tables 1, 2, 4,
    5, 7, 13 (JSON, CSV, Markdown) and an HTML report."""
    from halluscope.bench.run import run_bench, summary_markdown

    with user_errors():
        names = [d.strip() for d in detectors.split(",") if d.strip()] if detectors else None
        results = run_bench(labels, signals, out, seeds=seeds, budgets=budgets,
                            detectors=names, model=model, annotations=annotations,
                            natural_share=natural_share, allow_unmatched=allow_unmatched,
                            figure_detector=figure_detector,
                            progress=lambda message: typer.echo(message, err=True))
    typer.echo(summary_markdown(results))
    typer.echo(f"wrote {out}/ (results.json, tables.md, table*.csv, report.html)", err=True)


@app.command("tables")
def tables_command(
    labels: Path = typer.Option(..., "--labels", help="Labels Parquet (as for `bench run`)."),
    signals: Path = typer.Option(..., "--signals", help="`halluscope signals` output directory."),
    out: Path = typer.Option(..., "--out", help="Output directory (extra_results.json, "
                                                "extra_tables.md, one CSV per table)."),
    tables: Optional[str] = typer.Option(None, "--tables", help="Comma-separated tables of "
                                         "6, 11, 14, 15, 16, 17 (default: all)."),
    seeds: int = typer.Option(3, "--seeds", min=1, help="Seeds 0..N-1."),
    detectors: Optional[str] = typer.Option(None, "--detectors", help="Comma-separated "
                                            "detectors (default: every one the signals allow)."),
    budgets: str = typer.Option("0,nat,10,30,100,max", "--budgets",
                                help="Mixing budgets of Table 14."),
    model: Optional[str] = typer.Option(None, "--model", help="Model name (as for `bench run`)."),
    annotations: Optional[Path] = typer.Option(None, "--annotations",
                                               help="COCO instances JSON (presence)."),
    natural_share: Optional[float] = typer.Option(
        None, "--natural-share", help="Non-assertive share on random images (default: the "
                                      "labels' own share)."),
    allow_unmatched: bool = typer.Option(False, "--allow-unmatched",
                                         help="Drop mentions found on one side only."),
) -> None:
    """Appendix tables: 6 (seen -> unseen subtype), 11 (text filter), 14 (mixing by subtype),
    15 (hedges as claims), 16 (excluded mentions), 17 (concepts)."""
    from halluscope.bench.experiments import table_markdown
    from halluscope.bench.tables_extra import run_tables_extra

    with user_errors():
        names = [d.strip() for d in detectors.split(",") if d.strip()] if detectors else None
        results = run_tables_extra(labels, signals, out, tables=tables, seeds=seeds,
                                   detectors=names, model=model, annotations=annotations,
                                   natural_share=natural_share, budgets=budgets,
                                   allow_unmatched=allow_unmatched,
                                   progress=lambda message: typer.echo(message, err=True))
    typer.echo("\n\n".join(table_markdown(t) for t in results["tables"].values()))
    typer.echo(f"wrote {out}/ (extra_results.json, extra_tables.md, table*.csv)", err=True)


@app.command("table3")
def table3_command(
    mentions: Path = typer.Option(..., "--mentions", help="Per-mention Parquet of `halluscope "
                                                          "report` (REPORT/mentions.parquet)."),
    captions: Path = typer.Option(..., "--captions", help="The captions JSONL the report was "
                                                          "built from (caption_index = line)."),
    out: Path = typer.Option(..., "--out", help="Output directory (table3.json, table3.csv, "
                                                "table3.md, throne_votes.parquet)."),
    throne_judge: str = typer.Option("offline", "--throne-judge",
                                     help="offline (deterministic approximation: claimed "
                                          "present iff existential) or llm."),
    base_url: Optional[str] = typer.Option(None, "--base-url",
                                           help="LLM judge: OpenAI-compatible endpoint."),
    throne_model: Optional[list[str]] = typer.Option(
        None, "--throne-model", help="LLM judge model; repeat for several judges (votes = 3 "
                                     "formats x models x repeats). Default gpt-4o-mini."),
    repeats: int = typer.Option(3, "--repeats", min=1, help="LLM judge: times each answer is "
                                                            "counted (offline: votes = 3 x this)."),
    api_key_env: str = typer.Option("HALLUSCOPE_LLM_API_KEY", "--api-key-env",
                                    help="Environment variable holding the key ('none' for a "
                                         "local server that needs none)."),
    cache_dir: Path = typer.Option(Path(".halluscope_cache/throne"), "--cache-dir",
                                   help="LLM judge reply cache."),
    max_concurrency: int = typer.Option(4, "--max-concurrency", min=1),
    max_retries: int = typer.Option(4, "--max-retries", min=0),
) -> None:
    """Table 3: % of hallucinated, non-assertive (per subtype) and concrete mentions counted as
    hallucinations by CHAIR and THRONE (majority, unanimous), and THRONE's disqualification rate."""
    from halluscope.bench.table3 import run_table3, table3_markdown
    from halluscope.metrics.throne import get_throne_judge

    with user_errors():
        if throne_judge == "llm":
            options = dict(base_url=base_url, models=tuple(throne_model or ("gpt-4o-mini",)),
                           repeats=repeats, cache_dir=cache_dir, max_retries=max_retries,
                           max_concurrency=max_concurrency,
                           api_key_env=None if api_key_env.lower() == "none" else api_key_env)
        else:
            options = dict(votes=3 * repeats)
        judge = get_throne_judge(throne_judge, **options)
        try:
            document = run_table3(mentions, captions, out, judge,
                                  progress=lambda message: typer.echo(message, err=True))
        finally:
            judge.close()
    typer.echo(table3_markdown(document))
    typer.echo(f"wrote {out}/ (table3.json, table3.csv, table3.md, throne_votes.parquet)",
               err=True)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
