"""`halluscope bench tables` and `bench fit-text-filter`: the appendix tables over the loaded bench.

>>> parse_tables("17,6"), parse_tables(None)[:2]
(['6', '17'], ['6', '11'])

The bench is loaded once (`bench.dataset.load_bench`) into a `TableInputs`, and every table
asked for is built from it by its module's `build` (`bench.tables.TABLES`, the ones whose
command is "tables"); `extra_results.json`, `extra_tables.md` and one CSV per table are written
atomically. Every metric cell is {"mean", "std", "n_seeds"} over seeds; reruns are identical.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from halluscope.bench.protocol import split_codes
from halluscope.bench.tables import TABLES
from halluscope.bench.tables.common import (Progress, TableInputs, quiet, resolve_natural_share,
                                            subtypes_of)
from halluscope.bench.tables.table11 import text_filter_rates, text_filter_rows


def parse_tables(text: str | None) -> list[str]:
    """Table numbers from "6,11,...", in the canonical order; all when empty.

    >>> parse_tables("17,6"), parse_tables(None)[:2]
    (['6', '17'], ['6', '11'])
    """
    from halluscope.errors import ConfigError

    made_here = TABLES.select(command="tables")
    if not text:
        return made_here
    wanted = {p.strip() for p in text.split(",") if p.strip()}
    unknown = sorted(wanted - set(made_here))
    if unknown:
        elsewhere = [f"{t} (bench {TABLES.meta(t)['command']})" for t in unknown if t in TABLES]
        raise ConfigError(f"unknown table(s) {', '.join(unknown)}; choose from "
                          f"{', '.join(made_here)}" + (f"; made by other commands: "
                                                       f"{', '.join(elsewhere)}" if elsewhere
                                                       else ""))
    return [t for t in made_here if t in wanted]


def fit_bench_text_filter(labels: str | Path, signals: str | Path, out: str | Path,
                          seed: int = 0, model: str | None = None,
                          annotations: str | Path | None = None,
                          natural_share: float | None = None, allow_unmatched: bool = False,
                          keep_generic: bool = False, estimate_natural_share: bool = False,
                          progress: Progress | None = None) -> dict[str, Any]:
    """Fit the text filter as Appendix E (and Table 11, seed `seed`) does, save it to `out` (JSON,
    or .npz; never pickle) and return {"path", "n_train", "n_mixed", "natural_share", "rates":
    held-out `text_filter_rates`, "notes"}. Generic non-assertive mentions are dropped unless
    `keep_generic`; the natural share is resolved by `resolve_natural_share`."""
    from dataclasses import replace

    from halluscope.bench.dataset import drop_generic, load_bench
    from halluscope.errors import InputError
    from halluscope.text.usage.text_filter import FEATURE_COLUMN, fit_text_filter

    data = load_bench(labels, signals, [FEATURE_COLUMN], annotations, model, allow_unmatched)
    if not keep_generic:
        data = drop_generic(data)
    if FEATURE_COLUMN not in data.features:
        raise InputError(f"the signal store has no {FEATURE_COLUMN} column (the text-only "
                         "probe's features), which the text filter reads",
                         path=Path(signals) / "mentions")
    table = data.table
    share = resolve_natural_share(table, natural_share, model or data.model,
                                  estimate_natural_share)
    if share.warning and progress is not None:
        progress(f"warning: {share.warning}")
    natural_share, note = share.value, share.warning
    codes = split_codes(table.image_id, seed)
    rows, m = text_filter_rows(table, codes, seed, natural_share)
    x = np.asarray(data.features[FEATURE_COLUMN])
    fitted = fit_text_filter(x[rows], table.label[rows] == "non_assertive")
    rates = text_filter_rates(fitted.is_non_assertive(x), table, codes, subtypes_of(table))
    info = {"labels": str(labels), "signals": str(signals), "model": data.model or model,
            "seed": int(seed), "natural_share": natural_share,
            "natural_share_source": share.source, "n_mixed": m,
            "heldout": rates}
    fitted = replace(fitted, info=info)
    fitted.save(out)
    return {"path": str(out), "n_train": dict(fitted.n_train or {}), "n_mixed": m,
            "natural_share": natural_share, "natural_share_source": share.source,
            "rates": rates, "notes": data.notes + ([note] if note else [])}


def run_appendix_tables(labels: str | Path, signals: str | Path, out: str | Path,
                        tables: Sequence[str] | str | None = None, seeds: int = 3,
                        detectors: Sequence[str] | None = None, model: str | None = None,
                        annotations: str | Path | None = None, natural_share: float | None = None,
                        budgets: str = "0,nat,10,30,100,max", allow_unmatched: bool = False,
                        detector_options: Mapping[str, Mapping[str, Any]] | None = None,
                        progress: Progress | None = None, keep_generic: bool = False,
                        estimate_natural_share: bool = False) -> dict[str, Any]:
    """Load the bench, compute the requested tables, write `extra_results.json`,
    `extra_tables.md` and one CSV per table under `out` (atomically); return the results.
    `detector_options` ({name: {option: value}}) are passed to the detectors' constructors.
    Generic non-assertive mentions are dropped from every table but 16 unless `keep_generic`.
    The natural share (`resolve_natural_share`) is required by Table 11, and by 14 and 15 when
    budget nat is asked for."""
    from halluscope.bench.dataset import drop_generic, load_bench
    from halluscope.bench.run import _captions_have_halp, parse_budgets, resolve_detectors
    from halluscope.detectors import DETECTOR_COLUMNS
    from halluscope.report.tables import table_csv, table_markdown
    from halluscope.runs.signal_store import SignalStore
    from halluscope.errors import ConfigError, InputError
    from halluscope.io.atomic import write_json_atomic, write_text_atomic
    from halluscope.text.usage.text_filter import FEATURE_COLUMN

    say = progress or quiet
    wanted = parse_tables(tables) if not isinstance(tables, (list, tuple)) else parse_tables(
        ",".join(tables))
    if seeds < 1:
        raise ConfigError("--seeds must be at least 1")
    signals, out = Path(signals), Path(out)
    available = set(SignalStore(signals).columns("mentions"))
    if _captions_have_halp(signals):
        available.add("halp_hidden")
    names, notes = resolve_detectors(detectors, available)
    names = [n for n in names if n not in ("halp", "position")]  # reference rows: not here
    if not names:
        raise InputError("no detector can run: the signal store has none of their columns",
                         path=Path(signals) / "mentions")
    # + the relative position of the "relpos" analysis (loaded only when the store has it).
    columns = sorted({c for n in names for c in DETECTOR_COLUMNS[n]}
                     | {FEATURE_COLUMN, "relative_token_position"})
    full = load_bench(labels, signals, columns, annotations, model, allow_unmatched)
    data = full if keep_generic else drop_generic(full)
    table = data.table
    notes = data.notes + notes
    budget_list = parse_budgets(budgets)
    required = "11" in wanted or ("nat" in budget_list and bool({"14", "15"} & set(wanted)))
    share = resolve_natural_share(table, natural_share, model or data.model,
                                  estimate_natural_share, required)
    if share.warning:
        say(f"warning: {share.warning}")
        notes.append(share.warning)
    natural_share = share.value
    inputs = TableInputs(
        data=data, labels=Path(labels), signals=signals, columns=columns, model=model,
        detectors={n: dict((detector_options or {}).get(n, {})) for n in names},
        seeds=tuple(range(seeds)), natural_share=natural_share,
        natural_share_estimated=share.estimated, budgets=budget_list, progress=say,
        with_generic=None if full is data else full)
    results: dict[str, Any] = {}
    for name in wanted:
        results.update(TABLES.load(name)(inputs))
    payload = {"model": data.model or model or "model", "n_mentions": len(table),
               "seeds": list(inputs.seeds), "detectors": names, "natural_share": natural_share,
               "natural_share_source": share.source, "keep_generic": keep_generic,
               "tables_requested": wanted, "notes": notes, "tables": results}
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / "extra_results.json", payload)
    for name, t in results.items():
        write_text_atomic(out / f"{name}.csv", table_csv(t))
    text = "\n\n".join(table_markdown(t) for t in results.values())
    write_text_atomic(out / "extra_tables.md", text + "\n")
    return payload
