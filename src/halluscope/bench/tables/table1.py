"""Table 1 of NAME-Bench: each model's natural non-assertive share and hallucination rate.

>>> t = table1({"m": {"n_images": 2, "n_mentions": 5,
...     "non_assertive_share": {"value": 0.2, "low": 0.1, "high": 0.3},
...     "hallucination_rate": {"value": 0.25, "low": None, "high": None}}})
>>> r = t["rows"][0]; r["NA share 95% CI"], r["halluc rate 95% CI"]
('[10.0, 30.0]', '–')

Rates come from `bench.dataset.natural_rates` (image-bootstrap 95% intervals); they are natural
only on captions of random images. Made by `bench run`.
"""

from __future__ import annotations

from typing import Any, Mapping

from halluscope.bench.tables.common import make_table


def _pct(estimate: Mapping[str, Any]) -> dict[str, Any]:
    return {"mean": estimate["value"], "std": None, "n_seeds": 1}


def _ci(estimate: Mapping[str, Any]) -> str:
    if estimate.get("low") is None:
        return "–"
    return f"[{100 * estimate['low']:.1f}, {100 * estimate['high']:.1f}]"


def table1(rates: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    rows = []
    for model, r in rates.items():
        na, hal = r["non_assertive_share"], r["hallucination_rate"]
        rows.append({"model": model, "images": r["n_images"], "mentions": r["n_mentions"],
                     "NA share %": _pct(na), "NA share 95% CI": _ci(na),
                     "halluc rate %": _pct(hal), "halluc rate 95% CI": _ci(hal),
                     "notes": [] if hal["value"] is not None else ["no existential mentions"]})
    return make_table("table1", "Table 1: natural rates (95% image-bootstrap CI)",
                      ["model", "images", "mentions", "NA share %", "NA share 95% CI",
                       "halluc rate %", "halluc rate 95% CI"], rows,
                      percent=["NA share %", "halluc rate %"], description=(
                          "Natural only on captions of random images; on a set that oversamples "
                          "non-assertive mentions these are the set's own shares."))
