"""`halluscope prism` sub-app: HalluPrism analyses of released per-example results.

>>> from typer.testing import CliRunner
>>> CliRunner().invoke(app, ["--help"]).exit_code
0

Mount with `root.add_typer(app, name="prism")`. Commands (each thin over `prism.analysis`):
`profile`, `abstain` (decomposition results), `route` (intervention results) and `recompute`.
Bad input prints one line (`file:line: message`) and exits with status 2.
"""

from __future__ import annotations

import contextlib
from enum import Enum
from pathlib import Path
from typing import Iterator

import typer

from halluscope.errors import HalluscopeError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="HalluPrism (V, L, A) signatures: source profile, abstention, routing.")

RESULTS = typer.Option(..., "--results", help="Folder of <model>/<dataset>.jsonl result files.")
OUT = typer.Option(..., "--out", help="Output JSON file.")


class Preset(str, Enum):
    paper = "paper"
    reference = "reference"


@contextlib.contextmanager
def _user_errors() -> Iterator[None]:
    """One line on stderr and exit status 2 for bad input, never a traceback."""
    try:
        yield
    except HalluscopeError as exc:
        typer.echo(f"halluscope: error: {exc}", err=True)
        raise typer.Exit(2)


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _dup_note(row: dict) -> str:
    return f" duplicates={row['n_duplicates']}" if row.get("n_duplicates") else ""


@app.command()
def profile(results: Path = RESULTS, out: Path = OUT) -> None:
    """Source profile per (model, dataset): N, accuracy, mean V/L/A, LP match, raw dominance."""
    from halluscope.io.atomic import write_json_atomic
    from halluscope.prism.analysis import profile as run

    with _user_errors():
        report = run(results)
        write_json_atomic(out, report)
    for r in report["rows"]:
        typer.echo(f"{r['model']}/{r['dataset']}: n={r['n']} acc={_pct(r['accuracy'])} "
                   f"V={_num(r['v_mean'])} L={_num(r['l_mean'])} A={_num(r['a_mean'])} "
                   f"LP={_pct(r['lp_match'])} dom V/L/A={r['dominant_v']}/{r['dominant_l']}/"
                   f"{r['dominant_a']}{_dup_note(r)}")
    typer.echo(f"-> {out}")


@app.command()
def abstain(results: Path = RESULTS, out: Path = OUT) -> None:
    """Abstention: AUROC (mid-ranks), AURC, selective accuracy of scalar vs source-aware scores."""
    from halluscope.io.atomic import write_json_atomic
    from halluscope.prism.analysis import abstain as run

    with _user_errors():
        report = run(results)
        write_json_atomic(out, report)
    for r in report["rows"]:
        typer.echo(f"{r['model']}/{r['dataset']}: n={r['n']} AUROC scalar={_num(r['auroc_scalar'])} "
                   f"penalty={_num(r['auroc_penalty'])} weighted={_num(r['auroc_weighted'])} "
                   f"geometric={_num(r['auroc_geometric'])} "
                   f"sel@60 scalar={_pct(r['sel_acc_60_scalar'])}{_dup_note(r)}")
    typer.echo(f"-> {out}")


@app.command()
def route(results: Path = RESULTS, out: Path = OUT) -> None:
    """Routing: accuracy, fix and break rates of no / generic / matched intervention."""
    from halluscope.io.atomic import write_json_atomic
    from halluscope.prism.analysis import route as run

    with _user_errors():
        report = run(results)
        write_json_atomic(out, report)
    for r in report["rows"]:
        typer.echo(f"{r['model']}/{r['dataset']}: n={r['n']} acc none/generic/matched="
                   f"{_pct(r['acc_none'])}/{_pct(r['acc_generic'])}/{_pct(r['acc_matched'])} "
                   f"fix G/M={_pct(r['fix_generic'])}/{_pct(r['fix_matched'])} "
                   f"break G/M={_pct(r['break_generic'])}/{_pct(r['break_matched'])} "
                   f"unparsed G/M={r['n_unparsed_generic']}/{r['n_unparsed_matched']}"
                   f"{_dup_note(r)}")
    typer.echo(f"-> {out}")


@app.command()
def recompute(results: Path = RESULTS,
              preset: Preset = typer.Option(Preset.reference, "--preset",
                                            help="reference: the released code's formulas; "
                                                 "paper: the paper's equations."),
              out: Path = typer.Option(..., "--out", help="Output folder (<model>/<dataset>.jsonl)."),
              ) -> None:
    """Recompute V, L, A from each row's raw probe fields; compare with the stored scores."""
    from halluscope.prism.analysis import recompute as run

    with _user_errors():
        report = run(results, preset.value, out)
    for f in report["files"]:
        d = f["max_abs_delta"]
        typer.echo(f"{f['model']}/{f['dataset']}: n={f['n']} max|delta| vs stored "
                   f"V={d['v_score']:.3g} L={d['lp_score']:.3g} A={d['a_score']:.3g}"
                   f"{_dup_note(f)}")
    typer.echo(f"-> {out}")
