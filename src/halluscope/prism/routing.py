"""Intervention routing on normalised dominance (HalluPrism Sec. 5 routing, Tables 5, 35-36).

>>> normalized_dominance([("m", "d", 0.1, 0.99, 0.2), ("m", "d", 0.3, 0.98, 0.2),
...                       ("m", "d", 0.2, 0.97, 0.8)])
[1, 0, 2]

Raw argmax(V, L, A) is almost always L (L is near saturation), so the paper routes on the
*normalised* dominant source: each coordinate is z-scored within its model x dataset on the
full population, and the item goes to the coordinate with the largest z. The matched
intervention is then image enhancement (V), anti-prior prompting (L) or grounding/relation
checking (A). Policies compared on one outcome table: no intervention, generic prompt for all,
matched, permuted (the matched assignments shuffled within each model x dataset, seeded: same
mix of interventions, no signature) and random (uniform over the three, seeded).

A policy can only be scored on items whose assigned intervention was actually run; the
released intervention rows ran one matched intervention per item (the raw-argmax choice,
nearly always anti-prior), so there most normalised choices have no outcome. Every arm
reports `n_evaluable` next to its rates; rates are over evaluable items only.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from halluscope.errors import InputError

SOURCES = ("visual", "language_prior", "alignment")
#: Matched intervention per source index, with the names the released rows log in
#: `matched_intervention_type`: a visually routed row says `visual_enhance`, so any other name
#: for it would file those rows under an arm no policy assigns, and they would drop out.
INTERVENTIONS = ("visual_enhance", "anti_prior_prompt", "cot_grounding")
#: Other spellings of the same three (the paper's prose, earlier halluscope output).
INTERVENTION_ALIASES = {"image_enhancement": "visual_enhance", "visual_enhancement":
                        "visual_enhance", "anti_prior": "anti_prior_prompt",
                        "grounding": "cot_grounding", "grounded": "cot_grounding"}
POLICIES = ("none", "generic", "matched", "permuted", "random")


def intervention_name(name: str, path: str | Path | None = None, line: int | None = None) -> str:
    """The canonical name of a logged intervention type; an unknown one is an error naming
    the file and line (a misspelt type must not silently leave its rows unevaluable).

    >>> intervention_name("image_enhancement"), intervention_name("cot_grounding")
    ('visual_enhance', 'cot_grounding')
    """
    canonical = INTERVENTION_ALIASES.get(name, name)
    if canonical not in INTERVENTIONS:
        raise InputError(f"unknown matched_intervention_type {name!r} (expected one of "
                         f"{', '.join(INTERVENTIONS)})", path=path, line=line)
    return canonical


def zscores(values: Sequence[float]) -> list[float]:
    """Population z-scores; a constant column gives zeros (it cannot prefer any item).

    >>> zscores([1.0, 2.0, 3.0])
    [-1.224744871391589, 0.0, 1.224744871391589]
    >>> zscores([0.5, 0.5])
    [0.0, 0.0]
    """
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in values) / n)
    if sd <= 1e-12:
        return [0.0] * n
    return [(x - mean) / sd for x in values]


def normalized_dominance(rows: Sequence[tuple[str, str, float, float, float]]) -> list[int]:
    """Index (0=V, 1=L, 2=A) of the largest within-(model, dataset) z-score of each row.

    >>> normalized_dominance([("m", "d", 0.0, 1.0, 0.5), ("n", "d", 0.0, 1.0, 0.5)])
    [0, 0]

    Rows are `(model, dataset, v, l, a)`; ties go to the earlier coordinate (as the raw rule).
    """
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (model, dataset, *_rest) in enumerate(rows):
        groups.setdefault((model, dataset), []).append(i)
    z = [[0.0, 0.0, 0.0] for _ in rows]
    for idx in groups.values():
        for k in range(3):
            for i, value in zip(idx, zscores([rows[i][2 + k] for i in idx])):
                z[i][k] = value
    return [max(range(3), key=lambda k: (zi[k], -k)) for zi in z]


@dataclass(frozen=True)
class RouteItem:
    """Outcomes of one model's answer to one item: correct with no intervention, with the
    generic prompt, and with each matched intervention that was run (missing ones absent).

    >>> RouteItem("s", "m", "d", True, False, {"anti_prior_prompt": True}).outcomes["anti_prior_prompt"]
    True
    """

    item_id: str
    model: str
    dataset: str
    original: bool
    generic: bool | None
    outcomes: Mapping[str, bool] = field(default_factory=dict)


def score_policy(items: Sequence[RouteItem], assignment: Sequence[str | None]) -> dict[str, Any]:
    """Accuracy, fix rate, break rate and net gain of one assignment (intervention per item;
    "none" keeps the original answer, "generic" the generic prompt).

    >>> items = [RouteItem("a", "m", "d", False, True, {"x": True}),
    ...          RouteItem("b", "m", "d", True, False, {"x": False}),
    ...          RouteItem("c", "m", "d", True, True, {})]
    >>> r = score_policy(items, ["x", "x", "x"])
    >>> r["n_evaluable"], r["acc"], r["fix_rate"], r["break_rate"], r["net"]
    (2, 0.5, 1.0, 1.0, 0.0)

    fix = originally-wrong items made right / originally wrong; break = originally-right items
    made wrong / originally right; net = (fixed - broken) / evaluable = acc - acc_none on the
    same items. Items whose assigned intervention has no outcome are left out and counted.
    """
    fixed = broke = right = wrong = correct = n = 0
    for item, arm in zip(items, assignment):
        after = _after(item, arm)
        if after is None:
            continue
        n += 1
        correct += after
        if item.original:
            right += 1
            broke += not after
        else:
            wrong += 1
            fixed += after
    rate = lambda a, b: a / b if b else None  # noqa: E731 - a local helper, kept short
    return {"n": len(items), "n_evaluable": n, "acc": rate(correct, n),
            "acc_none_same_items": rate(right, n), "fix_rate": rate(fixed, wrong),
            "break_rate": rate(broke, right), "n_fixed": fixed, "n_broken": broke,
            "net": rate(fixed - broke, n)}


def permuted_assignment(items: Sequence[RouteItem], matched: Sequence[str],
                        seed: int) -> list[str]:
    """The matched assignments shuffled within each (model, dataset), seeded.

    >>> items = [RouteItem(str(i), "m", "d", True, True) for i in range(4)]
    >>> sorted(permuted_assignment(items, ["a", "a", "b", "c"], 0))
    ['a', 'a', 'b', 'c']
    """
    rng = random.Random(seed)
    out = list(matched)
    groups: dict[tuple[str, str], list[int]] = {}
    for i, it in enumerate(items):
        groups.setdefault((it.model, it.dataset), []).append(i)
    for key in sorted(groups):
        idx = groups[key]
        values = [matched[i] for i in idx]
        rng.shuffle(values)
        for i, v in zip(idx, values):
            out[i] = v
    return out


def random_assignment(n: int, seed: int, choices: Sequence[str] = INTERVENTIONS) -> list[str]:
    """Uniformly random interventions, seeded.

    >>> random_assignment(3, 1) == random_assignment(3, 1)
    True
    """
    rng = random.Random(seed)
    return [rng.choice(list(choices)) for _ in range(n)]


def policy_assignments(items: Sequence[RouteItem], dominance: Sequence[int], seed: int = 0,
                       raw: Sequence[int] | None = None) -> dict[str, list[str | None]]:
    """The intervention each policy gives each item: none, generic, matched (on `dominance`,
    the normalised source), permuted, random and, given `raw` (argmax(V, L, A)), raw_matched.

    >>> a = policy_assignments([RouteItem("a", "m", "d", True, True)], [2], raw=[1])
    >>> a["matched"], a["raw_matched"], a["none"]
    (['cot_grounding'], ['anti_prior_prompt'], ['none'])
    """
    matched = [INTERVENTIONS[k] for k in dominance]
    arms: dict[str, list[str | None]] = {
        "none": ["none"] * len(items), "generic": ["generic"] * len(items), "matched": matched,
        "permuted": permuted_assignment(items, matched, seed),
        "random": random_assignment(len(items), seed)}
    if raw is not None:
        arms["raw_matched"] = [INTERVENTIONS[k] for k in raw]
    return arms


def compare_policies(items: Sequence[RouteItem], dominance: Sequence[int],
                     seed: int = 0) -> dict[str, Any]:
    """Score none / generic / matched / permuted / random on one outcome table.

    >>> items = [RouteItem("a", "m", "d", False, False, dict.fromkeys(INTERVENTIONS, True)),
    ...          RouteItem("b", "m", "d", True, True, dict.fromkeys(INTERVENTIONS, True))]
    >>> r = compare_policies(items, [0, 2]); r["matched"]["acc"], r["none"]["acc"]
    (1.0, 0.5)
    """
    arms = policy_assignments(items, dominance, seed)
    out: dict[str, Any] = {name: score_policy(items, a) for name, a in arms.items()}
    out["matched_counts"] = {k: arms["matched"].count(k) for k in INTERVENTIONS}
    out["seed"] = seed
    return out


def _after(item: RouteItem, arm: str | None) -> bool | None:
    if arm == "none":
        return item.original
    if arm == "generic":
        return item.generic
    return item.outcomes.get(arm) if arm is not None else None


def _percentile_ci(values: Any) -> list[float] | None:
    import numpy as np

    values = values[~np.isnan(values)]
    if not len(values):
        return None
    return [float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))]


def bootstrap_policies(items: Sequence[RouteItem], arms: Mapping[str, Sequence[str | None]],
                       baseline: str = "generic", n_resamples: int = 1000,
                       seed: int = 0) -> dict[str, Any]:
    """Percentile-bootstrap 95% CIs of each arm's accuracy, fix and break rate, and paired CIs
    of every arm's difference from `baseline` (accuracy, break rate), items resampled.

    >>> items = [RouteItem(str(i), "m", "d", i % 2 == 0, i % 3 == 0, {"x": True})
    ...          for i in range(30)]
    >>> r = bootstrap_policies(items, {"generic": ["generic"] * 30, "x": ["x"] * 30},
    ...                        n_resamples=200)
    >>> r["x"]["acc_ci"], r["x"]["vs_generic"]["n_paired"]
    ([1.0, 1.0], 30)

    The paper's control (probe-informed policy against generic CoT: +3.54 accuracy points,
    95% CI [2.82, 4.25]; break rate -5.12, [4.12, 6.09]) is `vs_generic` of the matched arm.
    Only items where both arms have an outcome enter a paired difference (`n_paired`); a
    resample with no originally right (wrong) item has no break (fix) rate and is left out.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    n = len(items)
    draws = rng.integers(0, n, size=(n_resamples, n)) if n else np.zeros((0, 0), dtype=int)
    original = np.array([it.original for it in items], dtype=bool)

    def outcome(arm: Sequence[str | None]) -> tuple[Any, Any]:
        after = [_after(it, a) for it, a in zip(items, arm)]
        known = np.array([a is not None for a in after], dtype=bool)
        return np.array([bool(a) for a in after], dtype=bool), known

    def rates(after: Any, known: Any) -> tuple[Any, Any, Any]:
        """acc, fix, break per resample (NaN where undefined)."""
        k, o, a = known[draws], original[draws], after[draws]
        with np.errstate(invalid="ignore", divide="ignore"):
            acc = (a & k).sum(1) / k.sum(1)
            fix = (a & k & ~o).sum(1) / (k & ~o).sum(1)
            brk = (~a & k & o).sum(1) / (k & o).sum(1)
        return acc, fix, brk

    base_after, base_known = outcome(arms[baseline])
    out: dict[str, Any] = {"n_resamples": n_resamples, "seed": seed, "baseline": baseline}
    for name, arm in arms.items():
        after, known = outcome(arm)
        acc, fix, brk = rates(after, known)
        entry: dict[str, Any] = {"acc_ci": _percentile_ci(acc), "fix_rate_ci": _percentile_ci(fix),
                                 "break_rate_ci": _percentile_ci(brk)}
        if name != baseline:
            both = known & base_known
            a_acc, _, a_brk = rates(after, both)
            b_acc, _, b_brk = rates(base_after, both)
            paired = score_policy([it for it, ok in zip(items, both) if ok],
                                  [a for a, ok in zip(arm, both) if ok])
            base = score_policy([it for it, ok in zip(items, both) if ok],
                                [a for a, ok in zip(arms[baseline], both) if ok])
            diff = lambda x, y: None if x is None or y is None else x - y  # noqa: E731
            entry[f"vs_{baseline}"] = {
                "n_paired": int(both.sum()),
                "acc_diff": diff(paired["acc"], base["acc"]),
                "acc_diff_ci": _percentile_ci(a_acc - b_acc),
                "break_rate_diff": diff(paired["break_rate"], base["break_rate"]),
                "break_rate_diff_ci": _percentile_ci(a_brk - b_brk)}
        out[name] = entry
    return out


def load_route_items(results_dir: str | Path) -> tuple[list[RouteItem], list[dict[str, Any]],
                                                       list[tuple[str, str, float, float, float]],
                                                       list[str | None]]:
    """Released intervention rows as `RouteItem`s (the logged matched run filed under its
    `matched_intervention_type`), their load stats, signature tuples for `normalized_dominance`
    and the logged matched type of each item."""
    from halluscope.prism.results import discover, get_flag, get_text, intervention_row, judge
    from halluscope.prism.results import read_rows

    items: list[RouteItem] = []
    sigs: list[tuple[str, str, float, float, float]] = []
    logged: list[str | None] = []
    stats_out = []
    for model, dataset, path in discover(results_dir):
        raw, stats = read_rows(path)
        for line, row in raw:
            r = intervention_row(row, path, line)
            if r.scores is None:
                continue  # no signature: cannot be routed on normalised dominance
            kind = row.get("matched_intervention_type")
            kind = intervention_name(kind, path, line) if isinstance(kind, str) else None
            outcomes = {kind: r.matched.correct} if kind else {}
            # `prism intervene` also writes every correction it ran as `<name>_prediction`:
            # with all three on every item, each policy is evaluable on every item.
            for name in INTERVENTIONS:
                if f"{name}_prediction" in row:
                    outcomes[name] = judge(get_text(row, f"{name}_prediction", path, line,
                                                    nullable=True), row["gold_answer"],
                                           get_flag(row, f"{name}_correct", path, line,
                                                    required=False)).correct
            items.append(RouteItem(r.sample_id, model, dataset, r.original.correct,
                                   r.generic.correct, outcomes))
            sigs.append((model, dataset, *r.scores))
            logged.append(kind)
        stats_out.append({"model": model, "dataset": dataset, **stats.as_dict()})
    return items, stats_out, sigs, logged


def route_dominance(results_dir: str | Path, seed: int = 0,
                    n_resamples: int = 1000) -> dict[str, Any]:
    """Per-(model, dataset) and pooled policy comparison on an intervention folder (released,
    or written by `prism intervene`), with bootstrap CIs and the paired difference of every
    policy from the generic prompt, plus how often the normalised choice equals the logged
    matched intervention."""
    from halluscope.prism.analysis import dominant_index

    items, stats, sigs, logged = load_route_items(results_dir)
    dom = normalized_dominance(sigs)
    rows = []
    pooled_items: list[RouteItem] = []
    pooled_arms: dict[str, list[str | None]] = {}
    for key in sorted({(it.model, it.dataset) for it in items}):
        idx = [i for i, it in enumerate(items) if (it.model, it.dataset) == key]
        sub = [items[i] for i in idx]
        arms = policy_assignments(sub, [dom[i] for i in idx], seed,
                                  raw=[dominant_index(sigs[i][2:]) for i in idx])
        # The logged arm as its own policy: what the run actually routed to.
        arms["logged_matched"] = [logged[i] for i in idx]
        res: dict[str, Any] = {name: score_policy(sub, a) for name, a in arms.items()}
        res["matched_counts"] = {k: arms["matched"].count(k) for k in INTERVENTIONS}
        res["bootstrap"] = bootstrap_policies(sub, arms, n_resamples=n_resamples, seed=seed)
        pooled_items += sub
        for name, a in arms.items():
            pooled_arms.setdefault(name, []).extend(a)
        rows.append({"model": key[0], "dataset": key[1], **res,
                     "normalized_counts": {s: sum(1 for i in idx if dom[i] == k)
                                           for k, s in enumerate(SOURCES)},
                     "raw_counts": {s: arms["raw_matched"].count(INTERVENTIONS[k])
                                    for k, s in enumerate(SOURCES)},
                     "n_normalized_equals_logged": sum(1 for i in idx
                                                       if INTERVENTIONS[dom[i]] == logged[i])})
    pooled = {name: score_policy(pooled_items, a) for name, a in pooled_arms.items()}
    pooled["bootstrap"] = bootstrap_policies(pooled_items, pooled_arms, n_resamples=n_resamples,
                                             seed=seed)
    return {"analysis": "route_dominance", "results_dir": str(results_dir), "seed": seed,
            "interventions": dict(zip(SOURCES, INTERVENTIONS)), "rows": rows,
            "pooled": pooled, "files": stats,
            "note": "rates are over items whose assigned intervention was run (n_evaluable); "
                    "the released rows ran one matched intervention per item, a `prism "
                    "intervene` run with all three interventions makes every policy evaluable"}
