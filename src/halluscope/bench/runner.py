"""The full detector protocol: per seed, fit trained detectors at each mixing budget, then score.

>>> import numpy as np
>>> from halluscope.bench.protocol import MentionTable
>>> rng = np.random.default_rng(0)
>>> labels = rng.choice(["concrete", "hallucinated", "non_assertive"], 300, p=[.7, .2, .1])
>>> table = MentionTable.from_columns([str(i // 3) for i in range(300)], labels,
...     [("hedged" if l == "non_assertive" else None) for l in labels])
>>> features = {"nll": rng.normal(size=300) + (labels == "hallucinated"),
...             "hidden_mid_w4": rng.normal(size=(300, 4))}
>>> report = run_protocol(table, features, ["nll", "hidden_mid"], seeds=(0,), budgets=("0", "max"))
>>> sorted(report["mean"]), sorted(report["mean"]["max"])
(['0', 'max'], ['hidden_mid'])

Budgets (Table 5): the number of non-assertive mentions added to the fit set as label-0
examples, relative to the fit set's hallucinations -- "0", "10", "30", "100" (percent; capped at
the available non-assertive fit mentions, with a note), "nat" (the natural share: non-assertive
mentions make up `natural_share` of the training mentions, m = round(r (c + h) / (1 - r))), and
"max" (all of them). The mixed-in mentions are the first m of the fit set's non-assertive
mentions in a fixed random order (blake2b of seed and mention key), so budgets are nested.
Training-free detectors, and detectors not in `mixed` (HALP by default), are evaluated at
budget "0" only ("as published"). Rows are put in a canonical order (by mention key) first, so
the results do not depend on the input row order.
"""

from __future__ import annotations

import inspect
import time
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from halluscope.metrics.classes import CLASSES
from halluscope.bench.fitting import budget_count, fit_scores, mix_pool, mixed_count
from halluscope.bench.protocol import (DEFAULT_SEEDS, MentionTable, empty_result, evaluate_seed,
                                       protocol_description, split_codes, split_counts,
                                       split_images, summarize_seeds)
from halluscope.detectors import DETECTOR_COLUMNS, DETECTORS, MIXED, get_detector
from halluscope.errors import ConfigError, InputError

BUDGETS: tuple[str, ...] = ("0", "nat", "10", "30", "100", "max")
# Set by the registry (name) or by the protocol per seed (seed): an option could not take effect.
RESERVED_OPTIONS: frozenset[str] = frozenset({"name", "seed"})
# Constructor annotations (strings, as `from __future__ import annotations` leaves them) whose
# values can be checked here; an int is a fine float, a bool is not a number.
_SCALAR_TYPES: dict[str, tuple[type, ...]] = {"int": (int,), "float": (int, float),
                                              "bool": (bool,), "str": (str,)}


def parse_option_value(text: str) -> Any:
    """A command-line option value: true/false, none, int, float, else the string; a comma
    makes a tuple of such values.

    >>> [parse_option_value(v) for v in ("20", "1e-3", "True", "none", "cuda", "0,1")]
    [20, 0.001, True, None, 'cuda', (0, 1)]
    """
    if "," in text:
        return tuple(parse_option_value(p.strip()) for p in text.split(",") if p.strip())
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def detector_parameters(name: str) -> dict[str, inspect.Parameter]:
    """The keyword parameters of detector `name`'s constructor (imports its module, which is
    light: sklearn and torch are imported on first fit).

    >>> sorted(detector_parameters("hidden_mid"))
    ['C', 'columns', 'max_iter', 'name']
    """
    cls = DETECTORS.load(name)
    return {p.name: p for p in inspect.signature(cls.__init__).parameters.values()
            if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def parse_detector_options(items: Sequence[str]) -> dict[str, dict[str, Any]]:
    """`NAME.KEY=VALUE` strings (the CLI's repeatable --detector-option) as {name: {key: value}},
    each key checked against the detector's constructor.

    >>> parse_detector_options(["dhcp.epochs=20", "dhcp.device=cuda", "svar.layers=0,1"])
    {'dhcp': {'epochs': 20, 'device': 'cuda'}, 'svar': {'layers': (0, 1)}}
    >>> parse_detector_options(["dhcp.hidden=256", "svar.layers=3"])  # sequences get tuples
    {'dhcp': {'hidden': (256,)}, 'svar': {'layers': (3,)}}
    >>> parse_detector_options(["dhcp.epoch=20"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    halluscope.errors.ConfigError: --detector-option dhcp.epoch=20: dhcp takes no option ...
    """
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        head, sep, value = item.partition("=")
        name, dot, key = head.strip().partition(".")
        if not sep or not dot or not name or not key.strip():
            raise ConfigError(f"--detector-option {item!r}: expected NAME.KEY=VALUE, e.g. "
                              "dhcp.epochs=20")
        key = key.strip()
        if name not in DETECTORS:
            raise ConfigError(f"--detector-option {item}: unknown detector {name!r}; choose "
                              f"one of {', '.join(DETECTORS)}")
        parameters = detector_parameters(name)
        allowed = sorted(set(parameters) - RESERVED_OPTIONS)
        if key in RESERVED_OPTIONS:
            raise ConfigError(f"--detector-option {item}: {key!r} is set by the protocol "
                              "(name by the registry, seed per protocol seed), not an option")
        if key not in parameters:
            raise ConfigError(f"--detector-option {item}: {name} takes no option {key!r} (it "
                              f"takes {', '.join(allowed)})")
        parameter = parameters[key]
        # A str parameter keeps the text as typed ("device=0" is not the int 0).
        parsed = (value.strip() if str(parameter.annotation) == "str"
                  else parse_option_value(value.strip()))
        takes_sequence = (isinstance(parameter.default, tuple)
                          or "Sequence" in str(parameter.annotation))
        if takes_sequence and parsed is not None and not isinstance(parsed, tuple):
            parsed = (parsed,)  # "hidden=256" means a one-layer tuple, not an int
        wanted = _SCALAR_TYPES.get(str(parameter.annotation))
        if wanted is not None and not (isinstance(parsed, wanted)
                                       and not (isinstance(parsed, bool) and bool not in wanted)):
            raise ConfigError(f"--detector-option {item}: {name}.{key} takes "
                              f"{parameter.annotation}, got {parsed!r}")
        out.setdefault(name, {})[key] = parsed
    for name, options in out.items():
        try:  # a value the constructor refuses: one line now, not a traceback mid-run
            get_detector(name, **options)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"--detector-option for {name}: {exc}") from None
    return out


def _canonical(table: MentionTable, features: Mapping[str, np.ndarray]
               ) -> tuple[MentionTable, dict[str, np.ndarray]]:
    keys = table.mention_keys()
    order = np.argsort(keys.astype(str), kind="stable")
    if (order == np.arange(len(order))).all():  # already canonical: no copy of big features
        return MentionTable(table.image_id, table.label, table.subtype, table.present,
                            keys), dict(features)
    reordered = MentionTable(
        image_id=table.image_id[order], label=table.label[order], subtype=table.subtype[order],
        present=None if table.present is None else table.present[order], key=keys[order])
    return reordered, {c: np.asarray(v)[order] for c, v in features.items()}


def run_protocol(table: MentionTable, features: Mapping[str, np.ndarray],
                 detectors: Sequence[str] | Mapping[str, Mapping[str, Any]],
                 seeds: Sequence[int] = DEFAULT_SEEDS, budgets: Sequence[str] = ("0",),
                 natural_share: float | None = None, mixed: Sequence[str] = MIXED,
                 progress: Callable[[str], None] | None = None, keep_scores: bool = False
                 ) -> dict[str, Any]:
    """Fit, score and evaluate `detectors` (names, or {name: options}) on every seed and budget.

    Returns {"per_seed": [{seed, splits, split_counts, budgets: {budget: {n_mixed, notes, detectors:
    {name: result}}}}], "mean": {budget: {name: summary}}, "timings": {name: seconds}, ...}.
    A detector that fails on bad features gets a result with every metric None and the reason.

    With `keep_scores`, also "scores": {"keys": mention keys in the canonical row order,
    "per_seed": [{seed, codes, rows, budgets: {budget: {name: scores of `rows` | failure}}}]}:
    the trained detectors' scores of the scored (calibration + held-out) rows only (fit rows are
    never scored), float64 so the metrics recomputed from them are exactly the ones reported:
    about 4 bytes per mention, seed, budget and detector.
    """
    options = dict(detectors) if isinstance(detectors, Mapping) else {d: {} for d in detectors}
    for name in options:
        if name not in DETECTOR_COLUMNS:
            get_detector(name)  # raises the "unknown detector" error
    for budget in budgets:
        if budget not in BUDGETS and budget != "0":
            budget_count(budget, 1, 1, 1, natural_share)  # validates percentages
    for name, values in features.items():
        if len(values) != len(table):
            raise InputError(f"feature column {name!r} has {len(values)} rows, table "
                             f"{len(table)}")
    table, features = _canonical(table, features)
    say = progress or (lambda message: None)
    timings: dict[str, float] = {}
    fixed_scores: dict[str, np.ndarray | str] = {}
    per_seed = []
    kept: list[dict[str, Any]] = []
    for seed in seeds:
        codes = split_codes(table.image_id, seed)
        scored = codes != 0
        if keep_scores:
            kept.append({"seed": int(seed), "codes": codes, "rows": np.flatnonzero(scored),
                         "budgets": {}})
        na_fit = mix_pool(table, codes, seed)
        seed_out: dict[str, Any] = {"seed": int(seed), "splits": split_images(table.image_id, seed),
                                    "split_counts": split_counts(table, codes), "budgets": {}}
        for budget in budgets:
            m, note = mixed_count(budget, table, codes, len(na_fit), natural_share)
            results: dict[str, Any] = {}
            for name, opts in options.items():
                trained = get_detector(name, **opts).trained
                if (not trained or name not in mixed) and budget != "0":
                    continue  # evaluated as published only
                start = time.perf_counter()
                scores = fit_scores(name, opts, table, features, codes, na_fit[:m], seed,
                                    cache=fixed_scores, progress=say)
                timings[name] = timings.get(name, 0.0) + time.perf_counter() - start
                if keep_scores and trained:
                    kept[-1]["budgets"].setdefault(budget, {})[name] = (
                        scores if isinstance(scores, str) else scores[scored])
                results[name] = (empty_result(scores) if isinstance(scores, str)
                                 else evaluate_seed(scores, table, codes))
            seed_out["budgets"][budget] = {"n_mixed": int(m), "notes": [note] if note else [],
                                           "detectors": results}
        per_seed.append(seed_out)
    mean = {}
    for budget in budgets:
        names = [n for n in options if n in per_seed[0]["budgets"][budget]["detectors"]]
        mean[budget] = {n: summarize_seeds([s["budgets"][budget]["detectors"][n]
                                            for s in per_seed]) for n in names}
    out = {"protocol": protocol_description(), "n_mentions": len(table),
           "n_images": len(set(table.image_id.tolist())),
           "class_counts": {c: int((table.label == c).sum()) for c in CLASSES},
           "seeds": [int(s) for s in seeds], "budgets": list(budgets),
           "natural_share": natural_share, "per_seed": per_seed, "mean": mean,
           "timings": timings}
    if keep_scores:
        out["scores"] = {"keys": table.key, "per_seed": kept}
    return out
