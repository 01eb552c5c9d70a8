"""`halluscope prism` sub-app: HalluPrism analyses of released per-example results.

>>> from typer.testing import CliRunner
>>> CliRunner().invoke(app, ["--help"]).exit_code
0

Mount with `root.add_typer(app, name="prism")`. Commands (each thin over `prism.analysis`):
`profile`, `pooled`, `abstain` (decomposition results), `route` (intervention results),
`recompute`, `families` and `slices` (Tables 20, 27: `prism.slices`), `diagnose`
(`prism.diagnosis`), `robustness` (Appendix 10.3: `prism.robustness`), `probe` (run the probes
on a model: `prism.probes`), `intervene` (run the corrections: `prism.interventions`) and
`entangle` (probe clean and ruined inputs: `prism.entanglement`).
Bad input prints one line (`file:line: message`) and exits with status 2.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from halluscope.cli.common import (BACKEND, DEVICE, EXECUTOR, FORCE_NEW, GPUS_PER_WORKER,
                                   NUM_SHARDS, RAY_ADDRESS, SHARD, WORKERS, executor_options,
                                   announce_device, pick_device, user_errors)

if TYPE_CHECKING:
    from halluscope.prism.probes import ProbeConfig


app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="HalluPrism (V, L, A) signatures: source profile, abstention, routing.")

RESULTS = typer.Option(..., "--results", help="Folder of <model>/<dataset>.jsonl result files.")
OUT = typer.Option(..., "--out", help="Output JSON file.")


class Preset(str, Enum):
    paper = "paper"
    reference = "reference"


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _dup_note(row: dict) -> str:
    return f" duplicates={row['n_duplicates']}" if row.get("n_duplicates") else ""


def _write_and_print(run, results: Path, out: Path, line) -> dict:
    """Run one released-results analysis, write its JSON, print one line per (model, dataset);
    returns the report."""
    from halluscope.io.atomic import write_json_atomic

    with user_errors():
        report = run(results)
        write_json_atomic(out, report)
    for r in report["rows"]:
        typer.echo(f"{r['model']}/{r['dataset']}: n={r['n']} {line(r)}{_dup_note(r)}")
    typer.echo(f"-> {out}")
    return report


@app.command()
def profile(results: Path = RESULTS, out: Path = OUT) -> None:
    """Source profile per (model, dataset): N, accuracy, mean V/L/A, LP match, raw dominance."""
    from halluscope.prism.analysis import profile as run

    _write_and_print(run, results, out, lambda r: (
        f"acc={_pct(r['accuracy'])} V={_num(r['v_mean'])} L={_num(r['l_mean'])} "
        f"A={_num(r['a_mean'])} LP={_pct(r['lp_match'])} "
        f"dom V/L/A={r['dominant_v']}/{r['dominant_l']}/{r['dominant_a']}"))


@app.command()
def pooled(results: Path = RESULTS,
           out: Path = typer.Option(..., "--out", help="Output folder: pooled.json, pooled.md, "
                                    "table14.csv, table32.csv, table34.csv."),
           ) -> None:
    """Per-model and pooled summaries: Table 14 (raw dominance counts), Table 32 (AUROC) and
    Table 34 (pooled risk-coverage at 5-100% coverage)."""
    from halluscope.prism.analysis import pooled_tables, write_pooled

    with user_errors():
        summary = write_pooled(results, out)
    for _key, title, header, rows in pooled_tables(summary):
        typer.echo(f"{title}\n{_md(header, rows)}\n")
    typer.echo("Appendix 10.1: clean/blank answer agreement, chance-adjusted\n" + _md(
        ["Model", "observed", "expected", "kappa"],
        [[r["model"], _pct(r["observed"]), _pct(r["expected"]), _num(r["kappa"])]
         for r in summary["clean_blank_agreement"]]) + "\n")
    typer.echo(f"-> {out / 'pooled.json'} (+ pooled.md, table14/32/34.csv)")


@app.command()
def abstain(results: Path = RESULTS, out: Path = OUT) -> None:
    """Abstention: AUROC (mid-ranks), AURC, selective accuracy of scalar vs source-aware scores."""
    from halluscope.prism.analysis import abstain as run

    _write_and_print(run, results, out, lambda r: (
        f"AUROC scalar={_num(r['auroc_scalar'])} penalty={_num(r['auroc_penalty'])} "
        f"weighted={_num(r['auroc_weighted'])} geometric={_num(r['auroc_geometric'])} "
        f"sel@60 scalar={_pct(r['sel_acc_60_scalar'])}"))


@app.command()
def route(results: Path = RESULTS, out: Path = OUT) -> None:
    """Routing: accuracy, fix and break rates of no / generic / matched intervention (Table 35)
    and the model-level win counts (Table 36)."""
    from halluscope.prism.analysis import route as run

    report = _write_and_print(run, results, out, lambda r: (
        f"acc none/generic/matched={_pct(r['acc_none'])}/{_pct(r['acc_generic'])}/"
        f"{_pct(r['acc_matched'])} fix G/M={_pct(r['fix_generic'])}/{_pct(r['fix_matched'])} "
        f"break G/M={_pct(r['break_generic'])}/{_pct(r['break_matched'])} "
        f"unparsed G/M={r['n_unparsed_generic']}/{r['n_unparsed_matched']}"))
    typer.echo(_md(["model", "matched > generic", "matched > no intervention",
                    "lower break rate"],
                   [[w["model"], *(f"{w[k]}/{w['n_settings']}" for k in
                                   ("matched_gt_generic", "matched_gt_none", "lower_break_rate"))]
                    for w in report["win_counts"]]))


@app.command()
def recompute(results: Path = RESULTS,
              preset: Preset = typer.Option(Preset.paper, "--preset",
                                            help="paper: the paper's equations (what `prism "
                                                 "probe` stores); reference: the released "
                                                 "code's formulas."),
              out: Path = typer.Option(..., "--out", help="Output folder (<model>/<dataset>.jsonl)."),
              ) -> None:
    """Recompute V, L, A from each row's raw probe fields; compare with the stored scores and
    write the full rows, rescored, where every other analysis reads them."""
    from halluscope.prism.analysis import recompute as run

    with user_errors():
        report = run(results, preset.value, out)
    for f in report["files"]:
        d = f["max_abs_delta"]
        typer.echo(f"{f['model']}/{f['dataset']}: n={f['n']} max|delta| vs stored "
                   f"V={d['v_score']:.3g} L={d['lp_score']:.3g} A={d['a_score']:.3g}"
                   f"{_dup_note(f)}")
    typer.echo(f"-> {out}")


class ProbeDataset(str, Enum):
    vsr = "vsr"
    pope = "pope"
    hallusionbench = "hallusionbench"
    vizwiz = "vizwiz"


# Options of the two commands that run probes (`probe`, `entangle`): one declaration each.
MODEL = typer.Option(..., "--model", help="Model folder (or hub id).")
DATASET = typer.Option(..., "--dataset")
DATA = typer.Option(..., "--data", help="The dataset's question file.")
BATCH_SIZE = typer.Option(8, "--batch-size", min=1)
PRESET = typer.Option("default", "--preset", help="weak, default or strong.")
BLANK = typer.Option("same", "--blank", help="same (original size) or reference (fixed 384x384).")
CONFIDENCE = typer.Option("geomean", "--confidence", help="geomean or two_way.")
MAX_NEW_TOKENS = typer.Option(128, "--max-new-tokens", min=1)
CLOSED = typer.Option("score", "--closed", help="Closed answers: score (the options, in one "
                      "pass) or generate (the reference protocol: generated and parsed, c over "
                      "every generated token with the EOS).")
NAME = typer.Option(None, "--name", help="Model name in the output path (default: the model "
                                         "folder's name).")
DTYPE = typer.Option("auto", "--dtype")


def _probe_config(preset: str, blank: str, confidence: str, max_new_tokens: int,
                  batch_size: int, closed: str = "score") -> ProbeConfig:
    """The probes' settings, checked; a bad value is a usage error naming its option."""
    from halluscope.prism.perturb import get_preset
    from halluscope.prism.probes import ProbeConfig

    try:
        get_preset(preset)
        if blank not in ("same", "reference"):
            raise ValueError(f"--blank must be same or reference, not {blank!r}")
        return ProbeConfig(preset=preset, blank=blank, confidence=confidence,
                           max_new_tokens=max_new_tokens, batch_size=batch_size, closed=closed)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


@app.command()
def probe(model: Path = MODEL, dataset: ProbeDataset = DATASET, data: Path = DATA,
          images: Path = typer.Option(None, "--images", help="Folder the image names resolve in."),
          out: Path = typer.Option(..., "--out", help="Output folder (<model>/<dataset>.jsonl)."),
          limit: int = typer.Option(None, "--limit", min=1, help="First N items only."),
          batch_size: int = BATCH_SIZE, preset: str = PRESET, blank: str = BLANK,
          confidence: str = CONFIDENCE, max_new_tokens: int = MAX_NEW_TOKENS, name: str = NAME,
          device: str = DEVICE, dtype: str = DTYPE, executor: str = EXECUTOR,
          workers: int = WORKERS, gpus_per_worker: float = GPUS_PER_WORKER,
          ray_address: str = RAY_ADDRESS, num_shards: int = NUM_SHARDS,
          shard: int = SHARD, backend: str = BACKEND, closed: str = CLOSED,
          force_new: bool = FORCE_NEW, allow_outside_images: bool = typer.Option(
              False, "--allow-outside-images",
              help="Read images outside --images ('..', absolute paths elsewhere, symlinks out).")) -> None:
    """Run the HalluPrism probes on a dataset; rows appended to <out>/<model>/<dataset>.jsonl
    (resumable: items already written are skipped; shards of a job array write under
    <model>/.shards/, gathered by the same command without --num-shards). With --backend vllm
    the generated answers (open questions, the grounding re-check) come from vLLM; the
    closed options are still scored by transformers."""
    from halluscope.models.spec import ModelSpec
    from halluscope.prism.datasets import load_dataset
    from halluscope.prism.probe_store import probe_into
    from halluscope.prism.probes import skipped_row

    with user_errors():
        config = _probe_config(preset, blank, confidence, max_new_tokens, batch_size, closed)
        run_on, part = executor_options(executor, workers, gpus_per_worker, ray_address,
                                        num_shards, shard)
        ds = load_dataset(dataset.value, data, images)
        items = ds.items[:limit] if limit else ds.items
        unusable = _screen(ds, items, images, allow_outside_images)
        model_name = name or Path(str(model).rstrip("/")).name
        target = out / model_name / f"{dataset.value}.jsonl"
        device, requested = pick_device(device, gpus_per_worker), device
        spec = ModelSpec(str(model), dtype=dtype, device=device)
        spec.check()
        from halluscope.runs.run_dir import FileRun, open_run_dir

        run = _run_fingerprint("prism probe", model, config, dtype, device, ds.items,
                               dataset=dataset.value, name=model_name, backend=backend)
        with open_run_dir(FileRun(target), run, force_new=force_new, writer=part.writer):
            announce_device(device, requested, run_on.kind)
            result = probe_into(target, spec, items, config, model_name, run_on, part,
                                skipped_row=skipped_row,
                                missing=set(ds.missing_images) | set(unusable),
                                generator=_generator(backend, model, device, dtype))
    stats = result["stats"]
    typer.echo(f"{model_name}/{dataset.value}: items={len(items)} probed={result['probed']} "
               f"already_done={result['already_done']} "
               f"missing_images={result['missing_images']} "
               f"(unreadable or outside --images: {len(unusable)}) "
               f"no_relation_swap={stats.n_no_relation_swap} unparsed={stats.unparsed or 0}"
               + (f" shard={shard}/{num_shards} ({result['shard_items']} items)"
                  if num_shards > 1 else "")
               + (f" gathered={result['gathered_from_shards']}"
                  if result["gathered_from_shards"] else ""))
    typer.echo(f"-> {result['path']}")


def _screen(ds, items, images: Path | None, allow_outside: bool) -> dict[str, str]:
    """Items of `items` whose image is outside --images or undecodable: printed, then skipped
    and counted like missing ones (`prism.screening`)."""
    from dataclasses import replace

    from halluscope.prism.screening import screen_images

    unusable = screen_images(replace(ds, items=list(items)), images, allow_outside)
    for item_id, reason in unusable.items():
        typer.echo(f"skipped item {item_id}: {reason}", err=True)
    return unusable


def _run_fingerprint(command: str, model: Path, config: ProbeConfig, dtype: str, device: str,
                     items: list, **settings: object) -> dict:
    """What makes a probe or entanglement run (`runs.run_dir`): the probe settings, the model,
    each item as loaded and its image's name and size."""
    from dataclasses import asdict

    from halluscope.generation.backends import dtype_name
    from halluscope.runs.run_dir import digest_rows, fingerprint, image_entry

    settings = {**asdict(config), **settings, "dtype": dtype_name(dtype),
                "device": device.split(":")[0]}
    settings.pop("batch_size", None)  # the rows do not depend on it
    return fingerprint(command, model, settings, {
        "items": digest_rows(asdict(it) for it in items),
        "images": digest_rows(image_entry(it.image) for it in items)})


def _generator(backend: str, model: Path, device: str, dtype: str):
    """The `--backend` engine for generated answers (None: transformers)."""
    from halluscope.generation.backends import BackendSpec

    if backend == "hf":
        return None
    generator = BackendSpec(backend, str(model), device=device,
                            dtype=None if dtype == "auto" else dtype)
    generator.check()
    return generator


@app.command()
def intervene(model: Path = MODEL, dataset: ProbeDataset = DATASET, data: Path = DATA,
              images: Path = typer.Option(None, "--images", help="Folder the image names "
                                          "resolve in."),
              probes: Path = typer.Option(..., "--probes", help="The `prism probe` run of "
                                          "this model: its --out folder or the .jsonl file."),
              out: Path = typer.Option(..., "--out", help="Output folder "
                                       "(<model>/<dataset>.jsonl, read by `prism route`)."),
              policy: str = typer.Option("normalised", "--policy", help="normalised (the "
                                         "paper: largest within-setting z-score) or raw "
                                         "(argmax(V, L, A), the released code)."),
              interventions: str = typer.Option("all", "--interventions", help="Corrections "
                                                "run on every item besides the generic prompt "
                                                "and the routed one: all, none, or a list of "
                                                "visual_enhance, anti_prior_prompt, "
                                                "cot_grounding."),
              limit: int = typer.Option(None, "--limit", min=1, help="First N items only."),
              batch_size: int = BATCH_SIZE, confidence: str = CONFIDENCE,
              max_new_tokens: int = MAX_NEW_TOKENS, closed: str = CLOSED, name: str = NAME,
              device: str = DEVICE, dtype: str = DTYPE, executor: str = EXECUTOR,
              workers: int = WORKERS, gpus_per_worker: float = GPUS_PER_WORKER,
              ray_address: str = RAY_ADDRESS, num_shards: int = NUM_SHARDS, shard: int = SHARD,
              backend: str = BACKEND) -> None:
    """Route each probed item to its matched correction (Appendix 9.4) and run it beside the
    generic prompt; rows appended to <out>/<model>/<dataset>.jsonl (resumable), the layout
    `prism route` (Tables 35, 36) and `prism route-dominance` (policies, CIs) read."""
    from halluscope.models.spec import ModelSpec
    from halluscope.prism.datasets import load_dataset
    from halluscope.prism.interventions import (InterventionConfig, intervene_into,
                                                parse_interventions, route_population)
    from halluscope.prism.routing import INTERVENTIONS

    with user_errors():
        try:
            config = InterventionConfig(parse_interventions(interventions), policy,
                                        _probe_config("default", "same", confidence,
                                                      max_new_tokens, batch_size, closed))
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        run_on, part = executor_options(executor, workers, gpus_per_worker, ray_address,
                                        num_shards, shard)
        ds = load_dataset(dataset.value, data, images)
        model_name = name or Path(str(model).rstrip("/")).name
        probe_file = probes if probes.suffix == ".jsonl" else \
            probes / model_name / f"{dataset.value}.jsonl"
        missing = set(ds.missing_images)
        present = [it for it in ds.items if it.item_id not in missing]
        routed, left_out = route_population(present[:limit] if limit else present,
                                            probe_file, policy)
        device, requested = pick_device(device, gpus_per_worker), device
        spec = ModelSpec(str(model), dtype=dtype, device=device)
        spec.check()
        announce_device(device, requested, run_on.kind)
        result = intervene_into(out / model_name / f"{dataset.value}.jsonl", spec, routed,
                                config, model_name, run_on, part,
                                _generator(backend, model, device, dtype))
    counts = {k: sum(1 for r in routed if r.routed == k) for k in INTERVENTIONS}
    typer.echo(f"{model_name}/{dataset.value}: items={len(ds.items)} routed={len(routed)} "
               f"ran={result['done_now']} already_done={result['already_done']} "
               f"missing_images={len(ds.missing_images)} not_probed={left_out['n_not_probed']} "
               f"no_signature={left_out['n_no_signature']} policy={policy} "
               f"routed_to={counts} unparsed={result['stats'].unparsed or 0}")
    typer.echo(f"-> {result['path']}")


@app.command()
def entangle(model: Path = MODEL, dataset: ProbeDataset = DATASET, data: Path = DATA,
             images: Path = typer.Option(..., "--images", help="Folder the image names "
                                         "resolve in."),
             out: Path = typer.Option(..., "--out", help="Output folder: clean/, ruined/, "
                                      "entanglement.json, entanglement.md."),
             limit: int = typer.Option(None, "--limit", min=1,
                                       help="First N items with an image only."),
             seed: int = typer.Option(0, "--seed", help="Picks each item's decoy question."),
             conditions: str = typer.Option("visual,language,alignment", "--conditions",
                                            help="Comma-separated ruined conditions."),
             batch_size: int = BATCH_SIZE, preset: str = PRESET, blank: str = BLANK,
             confidence: str = CONFIDENCE, max_new_tokens: int = MAX_NEW_TOKENS,
             name: str = NAME, device: str = DEVICE, dtype: str = DTYPE,
             executor: str = EXECUTOR, workers: int = WORKERS,
             gpus_per_worker: float = GPUS_PER_WORKER,
             ray_address: str = RAY_ADDRESS, force_new: bool = FORCE_NEW,
             allow_outside_images: bool = typer.Option(
                 False, "--allow-outside-images",
                 help="Read images outside --images ('..', absolute paths elsewhere, symlinks out).")) -> None:
    """Interventional entanglement on real inputs: probe items clean and visual-, language- and
    alignment-ruined, then the signed (dV, dL, dA) and diagonal-dominance checks (Tables 15-19)."""
    from halluscope.errors import InputError
    from halluscope.prism.datasets import load_dataset
    from halluscope.prism.entanglement import (CONDITIONS, entanglement_markdown,
                                               probe_entanglement, write_entanglement)
    from halluscope.prism.probes import load_image

    wanted = [c.strip() for c in conditions.split(",") if c.strip()]
    with user_errors():
        config = _probe_config(preset, blank, confidence, max_new_tokens, batch_size)
        if not wanted or any(c not in CONDITIONS for c in wanted):
            raise typer.BadParameter(f"--conditions must come from {', '.join(CONDITIONS)}, "
                                     f"got {conditions!r}")
        ds = load_dataset(dataset.value, data, images)
        unusable = _screen(ds, ds.present(), images, allow_outside_images)
        present = [it for it in ds.present() if it.item_id not in unusable]
        items = present[:limit] if limit else present
        if not items:
            raise InputError(f"no item has its image under {images}", path=data)
        model_name = name or Path(str(model).rstrip("/")).name
        from halluscope.models.spec import ModelSpec

        run_on, _ = executor_options(executor, workers, gpus_per_worker, ray_address, 1, 0)
        device, requested = pick_device(device, gpus_per_worker), device
        spec = ModelSpec(str(model), dtype=dtype, device=device)
        spec.check()
        from halluscope.runs.run_dir import DirectoryRun, open_run_dir

        # The output is rewritten whole, for exactly these items: they (after --limit) are
        # the input. Another model name or dataset would add files beside this run's.
        run = _run_fingerprint("prism entangle", model, config, dtype, device, items,
                               dataset=dataset.value, name=model_name, seed=seed,
                               conditions=wanted)
        with open_run_dir(DirectoryRun(out), run, force_new=force_new):
            announce_device(device, requested, run_on.kind)
            result = probe_entanglement(spec, items, [load_image(it.image) for it in items],
                                        config, model_name, seed, wanted, run_on)
            paths = write_entanglement(out, result)
    methods: dict[str, int] = {}
    for rows in result["ruined"].values():
        for row in rows:
            methods[row["ruin_method"]] = methods.get(row["ruin_method"], 0) + 1
    typer.echo(f"{model_name}/{dataset.value}: items={len(items)} "
               f"missing_images={ds.n_missing_images} ruin methods: "
               + ", ".join(f"{k}={v}" for k, v in sorted(methods.items())))
    typer.echo(entanglement_markdown(result["table"]))
    typer.echo(f"-> {paths['json']} (rows: {paths['clean']}, {paths['ruined']})")


# ---------------------------------------------------------------------------------------------
# Diagnosis, normalised-dominance routing and the human-audit kit (prism.diagnosis / routing /
# audit). Each writes JSON atomically and prints a Markdown table.
# ---------------------------------------------------------------------------------------------

def _md(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table.

    >>> print(_md(["a", "b"], [["1", "2"]]))
    | a | b |
    | --- | --- |
    | 1 | 2 |
    """
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


@app.command()
def diagnose(results: Path = RESULTS, out: Path = OUT,
             classifiers: str = typer.Option("lr,xgboost,lightgbm", "--classifiers",
                                             help="Comma-separated: lr, xgboost, lightgbm."),
             folds: int = typer.Option(5, "--folds", min=2),
             seed: int = typer.Option(0, "--seed"),
             group_by_item: bool = typer.Option(True, "--group-by-item/--no-group-by-item",
                                                help="Keep each item's rows in one fold "
                                                     "(off: the paper's stratified CV)."),
             target: str = typer.Option("outcome", "--target",
                                        help="outcome (correct -> none, wrong -> its family) "
                                             "or raw (every item its benchmark family)."),
             ) -> None:
    """Failure-family diagnosis: CV AUROC / macro-F1 of [c], [V,L,A], [V,L,A,c] and ID
    baselines, and the paper's controls (Tables 10, 11, 23-26)."""
    from halluscope.io.atomic import write_json_atomic
    from halluscope.prism.diagnosis import CLASSIFIERS, TARGETS, diagnose_results

    names = [c.strip() for c in classifiers.split(",") if c.strip()]
    bad = [c for c in names if c not in CLASSIFIERS]
    if bad or not names:
        raise typer.BadParameter(f"unknown classifier(s) {bad} (known: {', '.join(CLASSIFIERS)})")
    if target not in TARGETS:
        raise typer.BadParameter(f"--target must be one of {', '.join(TARGETS)}, not {target!r}")
    with user_errors():
        report = diagnose_results(results, names, folds, seed, group_by_item, target)
        write_json_atomic(out, report)
    typer.echo(_md(["classifier", "features", "AUROC", "macro-F1", "weighted F1"],
                   [[e["classifier"], e["features"], f"{_num(e['auroc'])} ± {_num(e['auroc_sd'])}",
                     f"{_num(e['macro_f1'])} ± {_num(e['macro_f1_sd'])}", _num(e["weighted_f1"])]
                    for e in report["pooled"]]))
    tables = [
        ("controls", "Tables 23-24: identity controls",
         ["target", "protocol", "features"], ("target", "protocol", "features")),
        ("l_variants", "Table 10: image-removal variants (LR)", ["variant", "L dominant"],
         ("variant", "l_dominant_share")),
        ("alignment_control", "Table 11: alignment availability (LR)", ["scope", "features"],
         ("scope", "features")),
        ("within_dataset", "Table 25: within-dataset, model ID in every set",
         ["dataset", "target", "N", "classifier", "features"],
         ("dataset", "target", "n", "classifier", "features")),
    ]
    for key, title, head, fields in tables:
        if report.get(key):
            typer.echo(f"\n{title}\n" + _md(head + ["AUROC", "macro-F1", "weighted F1"], [
                [_num(e[f]) if isinstance(e[f], float) else str(e[f]) for f in fields]
                + [_num(e["auroc"]), _num(e["macro_f1"]), _num(e["weighted_f1"])]
                for e in report[key]]))
    for key, entries in report.get("failure_detection", {}).items():
        typer.echo(f"\nTable 26: failure detection (wrong vs right), {key.replace('_', ' ')}\n"
                   + _md(["held out", "classifier", "features", "AUROC", "macro-F1"],
                         [[e["held_out"], e["classifier"], e["features"], _num(e["auroc"]),
                           _num(e["macro_f1"])] for e in entries]))
    for note in report.get("notes", []):
        typer.echo(f"note: {note}")
    typer.echo(f"-> {out}")


@app.command()
def robustness(results: Path = RESULTS, out: Path = OUT,
               presets: str = typer.Option(None, "--presets", help="Severity stability: "
                                           "NAME=FOLDER,... of probe runs of the same items "
                                           "with other --preset values (e.g. "
                                           "weak=probes_weak,strong=probes_strong); RESULTS is "
                                           "added as 'default'."),
               preset: Preset = typer.Option(Preset.paper, "--preset", help="Signature "
                                             "formulas V is recomputed with."),
               folds: int = typer.Option(5, "--folds", min=2),
               seed: int = typer.Option(0, "--seed"),
               group_by_item: bool = typer.Option(True, "--group-by-item/--no-group-by-item"),
               bootstrap: int = typer.Option(1000, "--bootstrap", min=10)) -> None:
    """Appendix 10.3: leave-one-perturbation-out diagnosis AUROC (paired bootstrap CI) and
    normalised-source agreement; with --presets, Spearman stability across severities."""
    from halluscope.io.atomic import write_json_atomic
    from halluscope.prism.robustness import leave_one_perturbation_out, severity_stability

    with user_errors():
        report = leave_one_perturbation_out(results, preset.value, folds, seed, group_by_item,
                                            bootstrap)
        if presets:
            folders: dict[str, str | Path] = {"default": results}
            for part in presets.split(","):
                name, sep, folder = part.partition("=")
                if not sep or not name.strip() or not folder.strip():
                    raise typer.BadParameter(f"--presets wants NAME=FOLDER, got {part!r}")
                folders[name.strip()] = Path(folder.strip())
            report["severity"] = severity_stability(folders, preset.value)
        write_json_atomic(out, report)
    typer.echo(f"full four-probe V: AUROC {_num(report['full']['auroc'])} (n={report['n']})")
    typer.echo(_md(["left out", "AUROC", "diff vs full", "95% CI", "normalised source agrees"],
                   [[v["left_out"], _num(v["auroc"]), f"{v['auroc_diff_vs_full']:+.3f}",
                     "n/a" if v["auroc_diff_ci"] is None else
                     f"[{v['auroc_diff_ci'][0]:+.3f}, {v['auroc_diff_ci'][1]:+.3f}]",
                     _pct(v["normalized_source_agreement"])] for v in report["variants"]]))
    if "severity" in report:
        typer.echo(_md(["presets", "setting", "n", "rho V", "rho c", "normalised source agrees"],
                       [[" vs ".join(p["presets"]), f"{p['model']}/{p['dataset']}", str(p["n"]),
                         _num(p["spearman_v"]), _num(p["spearman_c"]),
                         _pct(p["normalized_source_agreement"])]
                        for p in report["severity"]["pairs"]]))
    typer.echo(f"-> {out}")


def _ci(ci: list[float] | None) -> str:
    return "n/a" if ci is None else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


ROUTE_ARMS = ("none", "generic", "logged_matched", "raw_matched", "matched", "permuted", "random")


@app.command("route-dominance")
def route_dominance(results: Path = RESULTS, out: Path = OUT,
                    seed: int = typer.Option(0, "--seed"),
                    bootstrap: int = typer.Option(1000, "--bootstrap", min=10,
                                                  help="Bootstrap resamples for the 95% CIs.")
                    ) -> None:
    """Routing policies: none / generic / logged / raw and normalised matched / permuted /
    random, per setting and pooled, with bootstrap 95% CIs and the paired difference from
    the generic prompt."""
    from halluscope.io.atomic import write_json_atomic
    from halluscope.prism.routing import route_dominance as run

    with user_errors():
        report = run(results, seed, bootstrap)
        write_json_atomic(out, report)
    rows = []
    settings = [(f"{r['model']}/{r['dataset']}", r) for r in report["rows"]]
    for name, r in settings + [("pooled", report["pooled"])]:
        for arm in ROUTE_ARMS:
            a, b = r[arm], r["bootstrap"][arm]
            vs = b.get("vs_generic")
            rows.append([name, arm, f"{a['n_evaluable']}/{a['n']}", _pct(a["acc"]),
                         _ci(b["acc_ci"]), _pct(a["fix_rate"]), _pct(a["break_rate"]),
                         _ci(b["break_rate_ci"]),
                         "" if vs is None or vs["acc_diff"] is None else
                         f"{100 * vs['acc_diff']:+.1f} {_ci(vs['acc_diff_ci'])}",
                         "" if vs is None or vs["break_rate_diff"] is None else
                         f"{100 * vs['break_rate_diff']:+.1f} {_ci(vs['break_rate_diff_ci'])}"])
    typer.echo(_md(["setting", "policy", "evaluable", "acc", "acc 95% CI", "fix", "break",
                    "break 95% CI", "acc - generic (pp)", "break - generic (pp)"], rows))
    typer.echo(f"note: {report['note']}")
    typer.echo(f"-> {out}")


def _slice_cells(r: dict) -> list[str]:
    return [str(r["n"]), _pct(r["accuracy"]), _num(r["v_mean"]), _num(r["l_mean"]),
            _num(r["a_mean"])]


@app.command()
def families(results: Path = RESULTS, out: Path = OUT) -> None:
    """Table 20: pooled source means (V, L, A, scalar confidence) and accuracy by failure family."""
    from halluscope.io.atomic import write_json_atomic
    from halluscope.prism.slices import family_means

    with user_errors():
        report = family_means(results)
        write_json_atomic(out, report)
    typer.echo(_md(["failure family", "N", "Acc", "V", "L", "A", "scalar"],
                   [[str(r["failure_family"]), *_slice_cells(r), _num(r["scalar_mean"])]
                    for r in report["rows"]]))
    typer.echo(f"-> {out}")


@app.command()
def slices(results: Path = RESULTS, out: Path = OUT,
           top_relations: int = typer.Option(8, "--top-relations", min=1,
                                             help="VSR: the most frequent relations listed.")
           ) -> None:
    """Table 27: matched source-stress slices (POPE split, VizWiz answerability, HallusionBench
    visual-required, VSR relation)."""
    from halluscope.io.atomic import write_json_atomic
    from halluscope.prism.slices import stress_slices

    with user_errors():
        report = stress_slices(results, top_relations)
        write_json_atomic(out, report)
    typer.echo(_md(["dataset", "slice", "expected", "N", "Acc", "V", "L", "A", "LP match"],
                   [[r["dataset"], r["slice"], r["expected_source"], *_slice_cells(r),
                     _pct(r["lp_match"])] for r in report["rows"]]))
    for dataset, n in report["n_without_slice_field"].items():
        if n:
            typer.echo(f"note: {n} {dataset} rows have no slice field")
    typer.echo(f"-> {out}")


@app.command("audit-sheet")
def audit_sheet(results: Path = RESULTS,
                out: Path = typer.Option(..., "--out", help="Blind sheet CSV (the key is written "
                                         "next to it as <name>.key.csv, a summary as .json)."),
                per_group: int = typer.Option(50, "--per-group", min=1),
                group: str = typer.Option("dataset", "--group", help="dataset (the paper) or "
                                          "model."),
                incorrect_share: float = typer.Option(0.7, "--incorrect-share", min=0.0,
                                                      max=1.0, help="Share of originally "
                                                      "incorrect answers per group (the "
                                                      "paper: 140 of 200)."),
                normalised_on: str = typer.Option("population", "--normalised-on",
                                                  help="z-scores of the key within model x "
                                                       "dataset over the population or the "
                                                       "drawn sample."),
                seed: int = typer.Option(0, "--seed")) -> None:
    """Stratified (group x normalised dominant source) blind sample sheet for a human audit,
    with the paper's mix of incorrect and correct answers."""
    from halluscope.io.atomic import write_json_atomic, write_text_atomic
    from halluscope.prism.audit import (KEY_FIELDS, NORMALISATIONS, SHEET_FIELDS, audit_tables,
                                        load_audit_records, to_csv)

    if group not in ("model", "dataset"):
        raise typer.BadParameter("--group must be model or dataset")
    if normalised_on not in NORMALISATIONS:
        raise typer.BadParameter(f"--normalised-on must be one of {', '.join(NORMALISATIONS)}")
    with user_errors():
        recs = load_audit_records(results)
        sheet, key = audit_tables(recs, per_group, seed, group, incorrect_share, normalised_on)
        key_path = out.with_suffix(".key.csv")
        write_text_atomic(out, to_csv(sheet, SHEET_FIELDS))
        write_text_atomic(key_path, to_csv(key, KEY_FIELDS))
        counts: dict[str, dict[str, int]] = {}
        for k in key:
            counts.setdefault(k[group], {}).setdefault(k["dominant"], 0)
            counts[k[group]][k["dominant"]] += 1
        write_json_atomic(out.with_suffix(".json"), {
            "analysis": "audit_sheet", "seed": seed, "per_group": per_group, "group": group,
            "incorrect_share": incorrect_share, "normalised_on": normalised_on, "n": len(sheet),
            "n_incorrect": sum(1 for k in key if not k["correct"]), "sheet": str(out),
            "key": str(key_path), "counts": counts})
    sources = ("visual", "language_prior", "alignment")
    typer.echo(_md([group, *sources, "total", "incorrect"],
                   [[g, *(str(c.get(s, 0)) for s in sources), str(sum(c.values())),
                     str(sum(1 for k in key if k[group] == g and not k["correct"]))]
                    for g, c in sorted(counts.items())]))
    typer.echo(f"-> {out} (key: {key_path})")


def _read_csv(path: Path) -> list[dict[str, str]]:
    import csv

    from halluscope.errors import InputError

    if not path.is_file():
        raise InputError("file not found", path=path)
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@app.command()
def kappa(ratings: Path = typer.Option(..., "--ratings", help="Filled audit sheet CSV with "
                                       "rater_* columns (labels: visual, language_prior, "
                                       "alignment, mixed, unclear, no_failure)."),
          key: Path = typer.Option(None, "--key", help="Audit key CSV: adds Tables 28, 30, 31 "
                                   "(per dataset, labels vs dominance, audit-side classifier)."),
          adjudicated: Path = typer.Option(None, "--adjudicated", help="CSV audit_id,label: "
                                           "the manual decision for items without a 2-rater "
                                           "majority."),
          out: Path = OUT) -> None:
    """Fleiss' kappa (full and source vs non-source), adjudicated labels, and Tables 28-31."""
    from halluscope.errors import InputError
    from halluscope.io.atomic import write_json_atomic
    from halluscope.prism.audit import AUDIT_LABELS, audit_report

    with user_errors():
        table = _read_csv(ratings)
        cols = sorted(c for c in (table[0].keys() if table else []) if c.startswith("rater_"))
        labelled = []
        for n, row in enumerate(table, 2):
            labels = [row[c].strip().lower() for c in cols if row[c].strip()]
            if not labels:
                continue
            if len(labels) != len(cols) or any(x not in AUDIT_LABELS for x in labels):
                raise InputError(f"need {len(cols)} labels from {', '.join(AUDIT_LABELS)}, "
                                 f"got {labels}", path=ratings, line=n)
            labelled.append((row.get("audit_id", str(n)), labels))
        if len(cols) < 2 or not labelled:
            raise InputError("need >= 2 rater_* columns and at least one labelled row",
                             path=ratings)
        decided = {}
        for n, row in enumerate(_read_csv(adjudicated) if adjudicated else [], 2):
            label = (row.get("label") or "").strip().lower()
            if not row.get("audit_id") or label not in AUDIT_LABELS:
                raise InputError(f"need audit_id and a label from {', '.join(AUDIT_LABELS)}",
                                 path=adjudicated, line=n)
            decided[row["audit_id"]] = label
        key_rows = {r["audit_id"]: r for r in _read_csv(key)} if key else None
        try:
            report = {"analysis": "kappa", "ratings": str(ratings),
                      **audit_report(labelled, key_rows, decided)}
        except ValueError as exc:
            raise InputError(str(exc), path=key) from None
        write_json_atomic(out, report)
    typer.echo(_md(["n", "raters", "Fleiss κ", "κ source/non-source", "all agree", ">=2 agree",
                    "adjudicated", "unadjudicated"],
                   [[str(report["n"]), str(report["n_raters"]), _num(report["kappa"]),
                     _num(report["kappa_collapsed"]), _pct(report["raw_agreement"]),
                     _pct(report["majority_agreement"]), str(report["n_adjudicated"]),
                     str(report["n_unadjudicated"])]]))
    if "table28" in report:
        typer.echo("\nTable 28\n" + _md(
            ["dataset", "N", "raw agreement", "Fleiss κ", "model-human agreement"],
            [[t["dataset"], str(t["n"]), _pct(t["raw_agreement"]), _num(t["fleiss_kappa"]),
              _pct(t["model_human_agreement"])] for t in report["table28"]]))
        for which, c in report["table30"].items():
            typer.echo(f"\nTable 30 ({which} dominant source)\n" + _md(
                ["human \\ dominant", *c["labels"]],
                [[h, *map(str, row)] for h, row in zip(c["labels"], c["matrix"])]))
    if report.get("table31"):
        typer.echo("\nTable 31\n" + _md(
            ["features", "N", "macro-F1", "balanced acc.", "weighted AUROC"],
            [[t["features"], str(t["n"]), _num(t["macro_f1"]), _num(t["balanced_accuracy"]),
              _num(t["auroc"])] for t in report["table31"]]))
    typer.echo(f"-> {out}")


@app.command()
def report(results: Path = RESULTS,
           interventions: Path = typer.Option(None, "--interventions",
                                              help="Intervention results folder "
                                                   "(<model>/<dataset>.jsonl): adds routing."),
           ruined: Path = typer.Option(None, "--ruined",
                                       help="Ruined-input signatures, <condition>/<model>/"
                                            "<dataset>.jsonl with condition visual, language or "
                                            "alignment: adds the entanglement matrix."),
           out: Path = typer.Option(..., "--out", help="Output folder (report.html, report.md)."),
           ) -> None:
    """One self-contained HTML page (+ Markdown): risk-coverage, (V, L, A) distributions,
    routing fix/break, source profile and entanglement."""
    from halluscope.prism.report import write_prism_report

    with user_errors():
        paths = write_prism_report(results, out, interventions, ruined)
    typer.echo(f"-> {paths['html']} (markdown: {paths['markdown']})")
