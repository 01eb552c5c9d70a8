"""Interventional entanglement (HalluPrism Sec. 7.2, Definition 7.1, Tables 15-19).

>>> r = diagonal_check("visual", (-0.085, 0.011, -0.009)); r["passed"], r["largest"]
(True, 'v')
>>> diagonal_check("language", (-0.047, -0.086, 0.175))["passed"]
False

For a ruined condition R (visual-, language- or alignment-ruined input) the signed delta of
coordinate S is mean over items of S(T_R(x)) - S(x). The check passes when the intended
coordinate has strictly the largest |delta| (a tie fails: Proposition 2 needs |D_RS| < |D_RR|
for all S != R, which is why an all-zero row, e.g. POPE alignment-ruined, is a FAIL).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

COORDS = ("v", "l", "a")
#: Ruined condition -> the coordinate it targets.
TARGET = {"visual": "v", "language": "l", "alignment": "a"}


def mean_deltas(clean: Sequence[Sequence[float]],
                ruined: Sequence[Sequence[float]]) -> tuple[float, float, float]:
    """Mean signed (dV, dL, dA) over paired items (the same item clean and ruined).

    >>> mean_deltas([(0.1, 0.9, 0.2), (0.3, 1.0, 0.4)], [(0.2, 0.9, 0.2), (0.4, 0.8, 0.4)])
    (0.1, -0.1, 0.0)
    """
    if len(clean) != len(ruined) or not clean:
        raise ValueError("clean and ruined signatures must be non-empty and paired")
    n = len(clean)
    return tuple(round(sum(r[k] - c[k] for c, r in zip(clean, ruined)) / n, 15)
                 for k in range(3))  # type: ignore[return-value]


def diagonal_check(condition: str, deltas: Sequence[float]) -> dict[str, Any]:
    """Magnitude-based diagonal dominance of one ruined condition's (dV, dL, dA).

    >>> diagonal_check("alignment", (0.0, 0.0, 0.0))["passed"]
    False
    """
    target = COORDS.index(TARGET[condition])
    mags = [abs(d) for d in deltas]
    passed = all(mags[target] > mags[k] for k in range(3) if k != target)
    return {"condition": condition, "target": COORDS[target],
            "delta": dict(zip(COORDS, map(float, deltas))), "passed": passed,
            "largest": COORDS[max(range(3), key=lambda k: (mags[k], -k))]}


def entanglement_table(settings: Mapping[tuple[str, str], Mapping[str, Sequence[float]]]
                       ) -> dict[str, Any]:
    """Checks and pass counts over settings `{(model, dataset): {condition: (dV, dL, dA)}}`.

    >>> t = entanglement_table({("q", "vsr"): {"visual": (-0.1, 0, 0.05), "language": (0.08, -0.1, 0)},
    ...                         ("q", "pope"): {"visual": (-0.05, 0, 0.02)}})
    >>> t["pass_counts"]["visual"], t["pass_counts"]["language"], t["total"]
    ('2/2', '1/1', '3/3')
    """
    checks = []
    for (model, dataset) in sorted(settings):
        for cond in TARGET:
            if cond in settings[(model, dataset)]:
                checks.append({"model": model, "dataset": dataset,
                               **diagonal_check(cond, settings[(model, dataset)][cond])})
    counts = {}
    for cond in TARGET:
        sub = [c for c in checks if c["condition"] == cond]
        if sub:
            counts[cond] = f"{sum(c['passed'] for c in sub)}/{len(sub)}"
    per_model = {}
    for m in sorted({c["model"] for c in checks}):
        sub = [c for c in checks if c["model"] == m]
        per_model[m] = f"{sum(c['passed'] for c in sub)}/{len(sub)}"
    return {"checks": checks, "pass_counts": counts, "per_model": per_model,
            "total": f"{sum(c['passed'] for c in checks)}/{len(checks)}"}
