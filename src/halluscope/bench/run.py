"""`halluscope bench run`: labels + signals -> every detector through the protocol -> tables + HTML.

>>> parse_budgets("nat,10,max")
['0', 'nat', '10', 'max']
>>> parse_budgets("0,30,0")
['0', '30']

Output directory (every file written atomically; `results.json` and the CSV / Markdown tables
are identical across reruns of the same inputs, timings go to `timings.json`, in seconds):
- results.json: run summary, Tables 1, 2, 4, 5, 7, 13, per-seed metrics, figure data;
- table{1,2,4,5,7,13}.csv, tables.md (all tables), summary.md (the run-level summary);
- scores.parquet: budget-0 scores, one row per (seed, mention), null where not scored;
- scores_mixing.parquet: the trained detectors' scores at every budget (0 included), one row
  per (seed, budget, scored mention) -- columns seed, budget, key, split (calibration or
  heldout; fit mentions are never scored), one column per trained detector (null where it
  failed); `protocol.evaluate_seed` on these gives the per-seed metrics of results.json;
- report.html (self-contained, plots embedded) and report.md.

Budget 0 is always run (Table 4 needs it). Trained detectors are mixed at the other budgets by
`bench.runner.run_protocol`. The natural share (budget "nat") is `natural_share` when given,
else the paper's Table 1 figure for the model when the paper gives one, else, with
`estimate_natural_share`, the non-assertive share of the labelled mentions (only right when they
come from captions of random images, hence a printed warning); otherwise a run with budget nat
is refused (`bench.tables.common.resolve_natural_share`).

Generic non-assertive mentions (subtype "generic") are not in NAME-Bench and are dropped before
any table unless `keep_generic` (`bench.dataset.drop_generic`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from halluscope.errors import ConfigError, InputError

DEFAULT_BUDGETS = "0,nat,10,30,100,max"
RESULTS_VERSION = 1


def parse_budgets(text: str) -> list[str]:
    """Budgets from "0,nat,10,...": "0" first (always run), duplicates dropped, values checked."""
    from halluscope.bench.runner import budget_count

    budgets = ["0"]
    for part in (p.strip() for p in text.split(",")):
        if not part or part in budgets:
            continue
        if part not in ("nat", "max"):
            budget_count(part, 1, 1, 1, None)  # raises ConfigError on a bad percentage
        budgets.append(part)
    return budgets


def resolve_detectors(requested: Sequence[str] | None, available: set[str]
                      ) -> tuple[list[str], list[str]]:
    """(detectors to run, notes on those skipped): by default every registered detector whose
    feature columns the store has; an explicitly requested one lacking a column is an error.

    >>> resolve_detectors(None, {"nll", "entropy"})[0]
    ['nll', 'entropy']
    """
    from halluscope.detectors import DETECTOR_COLUMNS

    if requested:
        unknown = [d for d in requested if d not in DETECTOR_COLUMNS]
        if unknown:
            raise ConfigError(f"unknown detector(s) {', '.join(unknown)}; choose from "
                              f"{', '.join(DETECTOR_COLUMNS)}")
        lacking = {d: [c for c in DETECTOR_COLUMNS[d] if c not in available] for d in requested}
        lacking = {d: cols for d, cols in lacking.items() if cols}
        if lacking:
            raise InputError("the signal store lacks " + "; ".join(
                f"{', '.join(cols)} (for {d})" for d, cols in lacking.items()))
        return list(dict.fromkeys(requested)), []
    run, notes = [], []
    for name, columns in DETECTOR_COLUMNS.items():
        missing = [c for c in columns if c not in available]
        if missing:
            shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more"
                                              if len(missing) > 3 else "")
            notes.append(f"{name} skipped: the signals have no {shown}")
        else:
            run.append(name)
    return run, notes


def _captions_have_halp(signals: Path) -> bool:
    from halluscope.runs.signal_store import SignalStore

    store = SignalStore(signals)
    return bool(store.shards("captions")) and "halp_hidden" in store.columns("captions")


def _strip_splits(per_seed: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    # The image -> split maps are recomputable from the seed and make the JSON huge.
    return [{k: v for k, v in s.items() if k != "splits"} for s in per_seed]


def _roc_points(positive: np.ndarray, negative: np.ndarray, limit: int = 101
                ) -> dict[str, list[float]] | None:
    from halluscope.bench.published import roc_curve

    if not len(positive) or not len(negative):
        return None
    fpr, tpr = roc_curve(positive, negative)
    if len(fpr) > limit:  # keep the curve's shape, bound the JSON size
        pick = np.unique(np.linspace(0, len(fpr) - 1, limit).round().astype(int))
        fpr, tpr = [fpr[i] for i in pick], [tpr[i] for i in pick]
    return {"fpr": [round(v, 6) for v in fpr], "tpr": [round(v, 6) for v in tpr]}


def run_bench(labels: str | Path, signals: str | Path, out: str | Path, seeds: int = 3,
              budgets: Sequence[str] | str = DEFAULT_BUDGETS,
              detectors: Sequence[str] | None = None, model: str | None = None,
              annotations: str | Path | None = None, natural_share: float | None = None,
              allow_unmatched: bool = False, figure_detector: str | None = None,
              detector_options: Mapping[str, Mapping[str, Any]] | None = None,
              progress: Callable[[str], None] | None = None, keep_generic: bool = False,
              estimate_natural_share: bool = False) -> dict[str, Any]:
    """The whole run; returns the results written to `out/results.json`."""
    import time

    from halluscope.bench.published import figure_examples, score_as_published
    from halluscope.bench.tables.common import subtypes_of
    from halluscope.bench.tables.table1 import table1
    from halluscope.bench.tables.table2 import table2
    from halluscope.bench.tables.table4 import table4
    from halluscope.bench.tables.table5 import table5
    from halluscope.bench.tables.table7 import table7
    from halluscope.bench.tables.table13 import table13
    from halluscope.bench.dataset import (POSITION_COLUMN, class_counts, drop_generic,
                                          load_bench, natural_rates)
    from halluscope.bench.tables.common import resolve_natural_share
    from halluscope.bench.protocol import protocol_description, split_counts, summarize_seeds
    from halluscope.detectors import DETECTOR_COLUMNS, MIXED
    from halluscope.runs.signal_store import SignalStore

    signals, out = Path(signals), Path(out)
    if seeds < 1:
        raise ConfigError("--seeds must be at least 1")
    budget_list = parse_budgets(budgets) if isinstance(budgets, str) else parse_budgets(
        ",".join(budgets))
    available = set(SignalStore(signals).columns("mentions"))
    if _captions_have_halp(signals):
        available.add("halp_hidden")
    names, notes = resolve_detectors(detectors, available)
    if not names:
        raise InputError("no detector can run: the signal store has none of their columns",
                         path=Path(signals) / "mentions")
    if figure_detector is not None and figure_detector not in names:
        raise ConfigError(f"--figure-detector {figure_detector!r} is not among the detectors run")
    columns = sorted({c for n in names for c in DETECTOR_COLUMNS[n]})
    data = load_bench(labels, signals, columns, annotations, model, allow_unmatched)
    if not keep_generic:
        data = drop_generic(data)
    notes = data.notes + notes
    table, features = data.table, data.features
    seed_list = tuple(range(seeds))
    options = {n: dict((detector_options or {}).get(n, {})) for n in names}

    mixes = "nat" in budget_list and any(n in MIXED for n in names)
    share = resolve_natural_share(table, natural_share, model or data.model,
                                  estimate_natural_share, required=mixes)
    natural_share, natural_source = share.value, share.source
    if share.warning:
        if progress is not None:
            progress(f"warning: {share.warning}")
        notes.append(share.warning)
    if natural_share is None and "nat" in budget_list:
        budget_list.remove("nat")

    timings: dict[str, float] = {}
    started = time.perf_counter()
    seeds_scored = score_as_published(table, features, options, seed_list, progress, timings)
    trained_run = [n for n in names if n in MIXED]  # HALP is reported at budget 0 only
    mixing_budgets = [b for b in budget_list if b != "0"]
    mixing: dict[str, Any] = {"mean": {}, "per_seed": []}
    if trained_run and mixing_budgets:
        from halluscope.bench.runner import run_protocol

        mixing = run_protocol(table, features, {n: options[n] for n in trained_run}, seed_list,
                              mixing_budgets, natural_share, progress=progress,
                              keep_scores=True)
        for name, seconds in mixing["timings"].items():
            timings[name] = timings.get(name, 0.0) + seconds
    elif mixing_budgets:
        notes.append("no trained detector ran: the mixing budgets were not run")
    timings["total"] = time.perf_counter() - started

    mean0 = {n: summarize_seeds([s.results[n] for s in seeds_scored]) for n in names}
    mean = {"0": mean0, **mixing["mean"]}
    per_seed_budgets = []
    for i, s in enumerate(seeds_scored):
        entry = {"0": {"n_mixed": 0, "notes": [], "detectors": s.results}}
        if mixing["per_seed"]:
            entry.update(mixing["per_seed"][i]["budgets"])
        per_seed_budgets.append(entry)

    subtypes = subtypes_of(table)
    if not (table.label == "non_assertive").any():
        notes.append("this model has no non-assertive mentions: non-assertive FPRs are undefined "
                     "and every mixing budget equals budget 0")
    positions = features.get(POSITION_COLUMN)
    model_name = data.model or model or _signals_model(signals) or "model"
    rows_for_tables = [{**r, "model": model_name} for r in data.rows]
    rates = natural_rates(rows_for_tables)
    counts = class_counts(rows_for_tables)
    tables = {
        "table1": table1(rates),
        "table2": table2(counts, subtypes),
        "table4": table4(mean0, subtypes),
        "table5": table5(mean, per_seed_budgets, budget_list, trained_run),
        "table7": table7(seeds_scored, table, names, subtypes),
        "table13": table13(seeds_scored, table,
                           None if positions is None else np.asarray(positions), names),
    }
    first = seeds_scored[0]
    held = first.codes == 2
    roc = {}
    for name in names:
        score = first.scores[name]
        if isinstance(score, str):
            continue
        points = _roc_points(score[held & (table.label == "hallucinated")],
                             score[held & (table.label == "concrete")])
        if points is not None:
            roc[name] = {**points, "auc": first.results[name]["auc_concrete_vs_halluc"]}
    figures = {"scores": figure_examples(first, table, data.rows, figure_detector),
               "roc": roc, "roc_seed": first.seed}

    summary = {
        "model": model_name, "labels": str(labels), "signals": str(signals),
        "n_mentions": len(table), "n_images": len(set(table.image_id.tolist())),
        "class_counts": counts[model_name], "join": data.join,
        "seeds": list(seed_list), "budgets": budget_list,
        "natural_share": natural_share, "natural_share_source": natural_source,
        "keep_generic": keep_generic,
        "detectors": names, "split_counts": {str(s.seed): split_counts(table, s.codes)
                                             for s in seeds_scored},
        "headline": {n: {"na_fpr": mean0[n]["na_fpr"]["mean"],
                         "halluc_tpr": mean0[n]["halluc_tpr"]["mean"]} for n in names},
        "notes": notes,
    }
    results = {"version": RESULTS_VERSION, "summary": summary,
               "protocol": protocol_description(), "tables": tables,
               "per_seed": [{"seed": s.seed, "budgets": per_seed_budgets[i]}
                            for i, s in enumerate(seeds_scored)],
               "mixing_per_seed": _strip_splits(mixing["per_seed"]),
               "mean": mean, "figures": figures}
    write_outputs(results, out, timings)
    _write_scores(out / "scores.parquet", seeds_scored, data.rows, table, positions)
    if trained_run:
        _write_mixing_scores(out / "scores_mixing.parquet", seeds_scored, mixing.get("scores"),
                             table, trained_run)
    return results


def _signals_model(signals: Path) -> str | None:
    """The model the signals were extracted with (the store's manifest): a hub id as is, a
    local folder by its name; None when the manifest does not say.

    >>> import json, tempfile
    >>> d = Path(tempfile.mkdtemp()); (d / "mentions").mkdir()
    >>> _ = (d / "mentions" / "manifest.json").write_text(json.dumps(
    ...     {"config": {"model": "/runs/models/llava-1.5-7b-hf/"}}))
    >>> _signals_model(d), _signals_model(d / "absent")
    ('llava-1.5-7b-hf', None)
    """
    import json

    try:
        manifest = json.loads((Path(signals) / "mentions" / "manifest.json").read_text("utf-8"))
        name = str(manifest["config"]["model"]).rstrip("/")
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not name:
        return None
    return Path(name).name if Path(name).is_absolute() or Path(name).exists() else name


def write_outputs(results: Mapping[str, Any], out: Path, timings: Mapping[str, float]) -> None:
    """Every text output and the HTML page, each atomically."""
    from halluscope.io.atomic import write_json_atomic, write_text_atomic
    from halluscope.report.html import write_run_report
    from halluscope.report.tables import summary_markdown, table_csv, tables_markdown

    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / "results.json", results)
    write_json_atomic(out / "timings.json", {"unit": "seconds (wall clock)", "seconds": {
        k: round(v, 3) for k, v in timings.items()}})
    for name, table in results["tables"].items():
        write_text_atomic(out / f"{name}.csv", table_csv(table))
    write_text_atomic(out / "tables.md", tables_markdown(results) + "\n")
    write_text_atomic(out / "summary.md", summary_markdown(results) + "\n")
    write_run_report(results, out)


def _write_scores(path: Path, seeds: Sequence[Any], rows: Sequence[Mapping[str, Any]],
                  table: Any, positions: np.ndarray | None) -> None:
    import pyarrow as pa

    from halluscope.bench.protocol import SPLITS
    from halluscope.io.atomic import atomic_path

    import pyarrow.parquet as pq

    n = len(rows)
    columns: dict[str, list[Any]] = {k: [] for k in ("seed", "key", "image_id", "label",
                                                     "subtype", "present", "split")}
    names = list(seeds[0].scores) if seeds else []
    score_columns: dict[str, list[Any]] = {name: [] for name in names}
    for s in seeds:
        columns["seed"] += [s.seed] * n
        columns["key"] += [r["key"] for r in rows]
        columns["image_id"] += [r["image_id"] for r in rows]
        columns["label"] += [r["label"] for r in rows]
        columns["subtype"] += [r["subtype"] for r in rows]
        columns["present"] += [r["present"] for r in rows]
        columns["split"] += [SPLITS[c] for c in s.codes]
        for name in names:
            score = s.scores[name]
            if isinstance(score, str):
                score_columns[name] += [None] * n
                continue
            from halluscope.detectors import get_detector

            trained = get_detector(name).trained
            score_columns[name] += [None if (trained and c == 0) else float(v)
                                    for v, c in zip(score, s.codes)]
    data = dict(columns)
    if positions is not None:
        data["caption_token_index"] = np.tile(np.asarray(positions), len(seeds)).tolist()
    data.update(score_columns)
    with atomic_path(path) as tmp:
        pq.write_table(pa.table(data), tmp)


def _write_mixing_scores(path: Path, seeds: Sequence[Any], mixing: Mapping[str, Any] | None,
                         table: Any, detectors: Sequence[str]) -> None:
    """scores_mixing.parquet: budget 0 from `seeds` (the as-published fit), the other budgets
    from the runner's kept scores; only calibration and held-out mentions (the scored ones)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from halluscope.bench.protocol import SPLITS
    from halluscope.io.atomic import atomic_path

    data: dict[str, list[Any]] = {"seed": [], "budget": [], "key": [], "split": []}
    data.update({name: [] for name in detectors})

    def add(seed: int, budget: str, keys: np.ndarray, codes: np.ndarray,
            scores: Mapping[str, np.ndarray | str]) -> None:
        n = len(keys)
        data["seed"] += [seed] * n
        data["budget"] += [budget] * n
        data["key"] += [str(k) for k in keys]
        data["split"] += [SPLITS[c] for c in codes]
        for name in detectors:
            values = scores.get(name)
            data[name] += ([None] * n if values is None or isinstance(values, str)
                           else np.asarray(values, dtype=np.float64).tolist())

    keys = table.mention_keys()
    kept = {s["seed"]: s for s in (mixing or {}).get("per_seed", [])}
    for s in seeds:
        rows = np.flatnonzero(s.codes != 0)
        add(s.seed, "0", keys[rows], s.codes[rows],
            {n: v if isinstance(v, str) else v[rows] for n, v in s.scores.items()
             if n in detectors})
        entry = kept.get(s.seed)
        if entry is None:
            continue
        for budget, scores in entry["budgets"].items():
            add(s.seed, budget, mixing["keys"][entry["rows"]], entry["codes"][entry["rows"]],
                scores)
    schema = pa.schema([("seed", pa.int64()), ("budget", pa.string()), ("key", pa.string()),
                        ("split", pa.string()), *[(n, pa.float64()) for n in detectors]])
    with atomic_path(path) as tmp:
        pq.write_table(pa.table(data, schema=schema), tmp)
