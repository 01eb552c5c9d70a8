"""Table 10, the teacher-forced control: the mixing experiment with every model reading one
model's captions.

>>> parse_readers(["qwen=sig/qwen", "llava=sig/llava"])
{'qwen': PosixPath('sig/qwen'), 'llava': PosixPath('sig/llava')}

NAME-Bench (Appendix D) repeats Table 5 with every model teacher-forced on LLaVA-1.5's captions
instead of its own, to separate the detector from the caption distribution. Here that is: one
labels file (the usage labels of the reference captions) and one signal store per reading model,
each made by `halluscope signals --model READER --captions REFERENCE_CAPTIONS`. Each reader goes
through `bench run` (its full report lands in `OUT/<reader>/`) and Table 10 puts the readers'
Table 5 side by side: rows = trained detector x (NA FPR, hallucination TPR), columns = reader x
budget. Since every reader shares the captions, the labels, the image splits, the natural
share and the `max` budget are the same for all of them, and the reference model's own columns
equal its Table 5.

A store made from other captions is refused by the join (image ids, categories and spans must
agree), so a reader cannot silently be scored on its own captions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from halluscope.errors import ConfigError, InputError


def parse_readers(specs: Sequence[str]) -> dict[str, Path]:
    """`NAME=DIR` pairs (one per reading model) in the given order; names must be unique."""
    readers: dict[str, Path] = {}
    for spec in specs:
        name, sep, directory = spec.partition("=")
        name, directory = name.strip(), directory.strip()
        if not sep or not name or not directory:
            raise ConfigError(f"--signals {spec!r}: expected NAME=DIR (the reading model's name "
                              "and its `halluscope signals` directory)")
        if name in readers:
            raise ConfigError(f"--signals: reader {name!r} given twice")
        if "/" in name or name in (".", ".."):
            raise ConfigError(f"--signals {spec!r}: the name is used as a folder; no '/' in it")
        readers[name] = Path(directory)
    if not readers:
        raise ConfigError("give at least one --signals NAME=DIR")
    return readers


def trained_detectors(signals: Path) -> list[str]:
    """The trained detectors (the ones Table 10 mixes) whose features the store has."""
    from halluscope.runs.signal_store import SignalStore
    from halluscope.bench.run import resolve_detectors
    from halluscope.detectors import TRAINED

    if not (signals / "mentions").is_dir():
        raise InputError("not a `halluscope signals` directory (no mentions/)", path=signals)
    names, _ = resolve_detectors(None, set(SignalStore(signals).columns("mentions")))
    found = [n for n in names if n in TRAINED]
    if not found:
        raise InputError("the store has the features of no trained detector "
                         f"({', '.join(TRAINED)})", path=signals)
    return found


def combine(tables5: Mapping[str, Mapping[str, Any]], budgets: Sequence[str],
            captions_of: str | None) -> dict[str, Any]:
    """Table 10 from each reader's Table 5 (as `bench run` writes it), readers in order.

    >>> t5 = {"rows": [{"detector": "(all)", "metric": "n mixed (mean over seeds)", "0": "0"},
    ...                {"detector": "dhcp", "metric": "NA FPR %", "0": {"mean": 0.4}}]}
    >>> t = combine({"a": t5, "b": t5}, ["0"], "a")
    >>> t["columns"], t["rows"][1]["b 0"]
    (['detector', 'metric', 'a 0', 'b 0'], {'mean': 0.4})
    """
    from halluscope.bench.tables.common import make_table

    columns = ["detector", "metric"] + [f"{r} {b}" for r in tables5 for b in budgets]
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    notes: list[str] = []
    for reader, table in tables5.items():
        for row in table["rows"]:
            out = rows.setdefault((row["detector"], row["metric"]),
                                  {"detector": row["detector"], "metric": row["metric"]})
            for b in budgets:
                out[f"{reader} {b}"] = row.get(b)
            if row.get("notes"):
                out.setdefault("notes", []).extend(f"{reader}: {n}" for n in row["notes"])
        notes += [f"{reader}: {n}" for n in table.get("notes", [])]
    source = f"{captions_of}'s captions" if captions_of else "the same captions"
    return make_table(
        "table10", f"Table 10: teacher-forced control (every model reads {source})", columns,
        list(rows.values()), notes=notes,
        percent=[c for c in columns if c not in ("detector", "metric")], description=(
            "Non-assertive FPR and hallucination TPR of the trained detectors at each mixing "
            "budget, per reading model; the budgets, splits and labels are shared since every "
            "model reads the same captions."))


def run_table10(labels: str | Path, readers: Mapping[str, Path], out: str | Path,
                seeds: int = 3, budgets: str = "0,nat,10,30,100,max",
                detectors: Sequence[str] | None = None, captions_of: str | None = None,
                label_model: str | None = None, annotations: str | Path | None = None,
                natural_share: float | None = None, allow_unmatched: bool = False,
                detector_options: Mapping[str, Mapping[str, Any]] | None = None,
                progress: Callable[[str], None] | None = None, keep_generic: bool = False,
                estimate_natural_share: bool = False) -> dict[str, Any]:
    """Run `bench run` for each reader on the shared labels, then write Table 10 to `out`
    (table10.json, table10.csv, table10.md); returns the table10.json document. The natural
    share is the captioning model's: `natural_share`, else the paper's Table 1 figure for
    `captions_of` (then for the labels' model)."""
    from halluscope.bench.tables.common import paper_natural_share

    from halluscope.report.tables import table_csv, table_markdown
    from halluscope.bench.run import parse_budgets, run_bench
    from halluscope.io.atomic import write_json_atomic, write_text_atomic

    out = Path(out)
    budget_list = parse_budgets(budgets)
    if natural_share is None and (paper := paper_natural_share(captions_of)) is not None:
        natural_share = paper[1]
    per_reader = {name: (list(detectors) if detectors else trained_detectors(path))
                  for name, path in readers.items()}
    tables5: dict[str, Any] = {}
    summaries: dict[str, Any] = {}
    for name, path in readers.items():
        if progress is not None:
            progress(f"table 10: {name} reads the captions ({path})")
        results = run_bench(labels, path, out / name, seeds=seeds, budgets=",".join(budget_list),
                            detectors=per_reader[name], model=label_model,
                            annotations=annotations, natural_share=natural_share,
                            allow_unmatched=allow_unmatched, detector_options=detector_options,
                            progress=progress, keep_generic=keep_generic,
                            estimate_natural_share=estimate_natural_share)
        tables5[name] = results["tables"]["table5"]
        summary = results["summary"]
        summaries[name] = {"signals": str(path), "n_mentions": summary["n_mentions"],
                           "detectors": summary["detectors"],
                           "natural_share": summary["natural_share"],
                           "notes": summary["notes"]}
    counts = {n: s["n_mentions"] for n, s in summaries.items()}
    if len(set(counts.values())) > 1:
        # Only possible with --allow-unmatched: the readers then see different mentions.
        for name, n in counts.items():
            summaries[name]["notes"].append(f"{n} mentions after the join; readers differ")
    budgets_run = [b for b in budget_list if any(b in t["columns"] for t in tables5.values())]
    table = combine(tables5, budgets_run, captions_of)
    document = {"labels": str(labels), "captions_of": captions_of, "readers": summaries,
                "seeds": list(range(seeds)), "budgets": budgets_run, "table": table}
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / "table10.json", document)
    write_text_atomic(out / "table10.csv", table_csv(table))
    write_text_atomic(out / "table10.md", table_markdown(table) + "\n")
    return document
