"""The usage-aware report: CHAIR beside a hallucination rate that only counts claims.

>>> rows = [{"caption_index": 0, "image_id": 1, "category": "dog", "usage": "existential",
...          "subtype": None, "excluded": False, "error": None},
...         {"caption_index": 0, "image_id": 1, "category": "cat", "usage": "non_assertive",
...          "subtype": "hedged", "excluded": False, "error": None}]
>>> from halluscope.data.presence import Presence
>>> report = build_usage_report(rows, Presence({1: frozenset({"dog"})}, "demo"), [(0, 1)])
>>> report.summary["counts"]["class"]
{'concrete': 1, 'hallucinated': 0, 'non_assertive': 1}
>>> report.summary["usage_aware"]["hallucination_rate"]["value"], report.summary["usage_agnostic"]["hallucination_rate"]["value"]
(0.0, 0.5)

Three tables: per mention (input rows + `present` + `namebench_class` + `chair_hallucinated`),
per caption, and a summary (JSON + Markdown). The usage-agnostic rate counts every absent mention
as a hallucination, as CHAIR does; the usage-aware rate counts only existential mentions.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from halluscope.metrics.classes import CLASSES, with_class
from halluscope.data.presence import Presence
from halluscope.io.atomic import (atomic_dir, uniform_image_ids, write_json_atomic, write_parquet_atomic,
                                  write_text_atomic)
from halluscope.metrics.rates import RatioEstimate, bootstrap_ratio
from halluscope.text.usage.base import SUBTYPES, USAGES


@dataclass
class UsageReport:
    mentions: list[dict[str, Any]]
    captions: list[dict[str, Any]]
    summary: dict[str, Any]


def build_usage_report(rows: Sequence[Mapping[str, Any]], presence: Presence,
                       caption_keys: Sequence[tuple[int, Any]],
                       chair: Mapping[str, Any] | None = None, hedges_as_claims: bool = False,
                       n_resamples: int = 1000, seed: int = 0,
                       inputs: Mapping[str, Any] | None = None) -> UsageReport:
    """Join labelled mentions with presence (and optionally a CHAIR result) into the report.

    `caption_keys` lists `(caption_index, image_id)` of every caption, mentions or not. `chair` is
    the output of `halluscope.metrics.chair.compute_chair` over the same captions, in the same
    order; its hallucinated words are aligned to mentions per caption and category in
    order of occurrence (CHAIR's tokens and ours differ, so unmatched words are counted apart).
    """
    mentions = [{**with_class(dict(row), presence, hedges_as_claims), "chair_hallucinated": None}
                for row in rows]
    caption_indices = [index for index, _ in caption_keys]
    if chair is not None and len(chair["captions"]) != len(caption_keys):
        raise ValueError("the CHAIR result must cover the same captions, in the same order")
    chair_alignment = (_align_chair(mentions, chair, caption_indices)
                       if chair is not None else None)
    captions = _caption_table(mentions, caption_keys, chair)
    summary = _summary(mentions, captions, chair, chair_alignment, hedges_as_claims, n_resamples,
                       seed, inputs or {})
    return UsageReport(mentions, captions, summary)


def _align_chair(mentions: list[dict[str, Any]], chair: Mapping[str, Any],
                 caption_indices: Sequence[int]) -> dict[str, int]:
    by_caption: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for mention in mentions:
        by_caption[mention["caption_index"]].append(mention)
        mention["chair_hallucinated"] = False
    stats: Counter = Counter()
    for caption_index, entry in zip(caption_indices, chair["captions"]):
        hallucinated = Counter(_node_word(w) for w in entry.get("hallucinated_words", []))
        for category, count in hallucinated.items():
            candidates = [m for m in by_caption.get(caption_index, []) if m["category"] == category]
            for mention in candidates[:count]:
                mention["chair_hallucinated"] = True
            stats["aligned"] += min(count, len(candidates))
            stats["unaligned"] += max(0, count - len(candidates))
    return dict(stats)


def _node_word(word: Any) -> str:
    # The reference reports [surface word, node word] pairs; accept bare node words too.
    return word[1] if isinstance(word, (list, tuple)) else str(word)


def _caption_table(mentions: list[dict[str, Any]], caption_keys: Sequence[tuple[int, Any]],
                   chair: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    by_caption: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for mention in mentions:
        by_caption[mention["caption_index"]].append(mention)
    chair_entries = list(chair["captions"]) if chair is not None else []
    table = []
    for position, (caption_index, image_id) in enumerate(caption_keys):
        group = by_caption.get(caption_index, [])
        classes = Counter(m["namebench_class"] for m in group)
        usages = Counter(m["usage"] for m in group)
        row = {"caption_index": caption_index, "image_id": image_id, "n_mentions": len(group),
               **{f"n_{u}": usages.get(u, 0) for u in USAGES},
               **{f"n_{c}": classes.get(c, 0) for c in CLASSES},
               "n_failed": sum(1 for m in group if m.get("error") is not None),
               "usage_aware_hallucinated": classes.get("hallucinated", 0) > 0,
               "usage_agnostic_hallucinated": any(not m["present"] and not m.get("excluded")
                                                  and m.get("error") is None for m in group)}
        if chair is not None:
            row["chair_hallucinated_words"] = len(chair_entries[position]
                                                  .get("hallucinated_words", []))
        table.append(row)
    return table


def _per_image(mentions: list[dict[str, Any]], numerator, denominator):
    num: dict[Any, int] = defaultdict(int)
    den: dict[Any, int] = defaultdict(int)
    for mention in mentions:
        den[mention["image_id"]] += int(denominator(mention))
        num[mention["image_id"]] += int(numerator(mention))
    images = sorted(den, key=str)
    return np.array([num[i] for i in images]), np.array([den[i] for i in images])


def _summary(mentions, captions, chair, chair_alignment, hedges_as_claims, n_resamples, seed,
             inputs) -> dict[str, Any]:
    usable = [m for m in mentions if m.get("error") is None]
    scored = [m for m in usable if not m.get("excluded")]
    in_bench = [m for m in scored if m["namebench_class"] is not None]

    def estimate(pool, numerator, denominator) -> RatioEstimate:
        num, den = _per_image(pool, numerator, denominator)
        return bootstrap_ratio(num, den, n_resamples=n_resamples, seed=seed)

    def is_existential(m):
        return m["namebench_class"] in ("concrete", "hallucinated")

    usage_aware = {
        "hallucination_rate": estimate(in_bench, lambda m: m["namebench_class"] == "hallucinated",
                                       is_existential).to_dict(),
        "caption_hallucination_rate": _share([c["usage_aware_hallucinated"] for c in captions]),
    }
    usage_agnostic = {
        "hallucination_rate": estimate(scored, lambda m: not m["present"], lambda m: True
                                       ).to_dict(),
        "caption_hallucination_rate": _share([c["usage_agnostic_hallucinated"]
                                              for c in captions]),
        "absent_mentions_non_assertive_share": estimate(
            [m for m in scored if not m["present"]],
            lambda m: m["usage"] == "non_assertive", lambda m: True).to_dict(),
    }
    natural_rates = {
        "non_assertive_share": estimate(in_bench,
                                        lambda m: m["namebench_class"] == "non_assertive",
                                        lambda m: True).to_dict(),
        "hallucination_rate": usage_aware["hallucination_rate"],
    }
    summary: dict[str, Any] = {
        "inputs": dict(inputs),
        "settings": {"hedges_as_claims": hedges_as_claims, "bootstrap_resamples": n_resamples,
                     "seed": seed, "confidence": 0.95},
        "n_captions": len(captions),
        "n_images": len({c["image_id"] for c in captions}),
        "n_mentions": len(mentions),
        "n_judge_failures": len(mentions) - len(usable),
        "judge_failures_by_error": dict(Counter(m["error"] for m in mentions
                                                if m.get("error") is not None)),
        "counts": {
            "usage": {u: sum(1 for m in scored if m["usage"] == u) for u in USAGES},
            "subtype": {s: sum(1 for m in scored if m["subtype"] == s) for s in SUBTYPES},
            "class": {c: sum(1 for m in in_bench if m["namebench_class"] == c) for c in CLASSES},
            "non_assertive_by_presence": {
                "present": sum(1 for m in in_bench
                               if m["namebench_class"] == "non_assertive" and m["present"]),
                "absent": sum(1 for m in in_bench
                              if m["namebench_class"] == "non_assertive" and not m["present"])},
            "excluded_category": sum(1 for m in usable if m.get("excluded")),
        },
        "natural_rates": natural_rates,
        "usage_aware": usage_aware,
        "usage_agnostic": usage_agnostic,
    }
    if chair is not None:
        flagged = [m for m in usable if m["chair_hallucinated"]]
        summary["chair"] = {
            **{k: chair["overall"][k] for k in ("CHAIRs", "CHAIRi", "Recall")},
            "hallucinated_words": sum(len(c.get("hallucinated_words", []))
                                      for c in chair["captions"]),
            "aligned_to_mentions": chair_alignment.get("aligned", 0),
            "not_in_mention_vocabulary": chair_alignment.get("unaligned", 0),
            "non_assertive_share_of_hallucinated": _share(
                [m["usage"] == "non_assertive" for m in flagged]),
            "hallucinated_by_usage": dict(Counter(str(m["usage"]) for m in flagged)),
            "hallucinated_by_subtype": dict(Counter(m["subtype"] for m in flagged
                                                    if m["subtype"] is not None)),
        }
    return summary


def _share(flags: Sequence[bool]) -> dict[str, Any]:
    n = len(flags)
    k = int(sum(bool(f) for f in flags))
    return {"value": (k / n) if n else None, "numerator": k, "denominator": n}


def write_usage_report(report: UsageReport, out_dir: str | Path,
                       caption_texts: Mapping[int, str] | None = None) -> dict[str, Path]:
    """Write mentions.parquet, captions.parquet, summary.json, summary.md and report.html (each
    atomically). `caption_texts` (caption index -> text) gives the page its caption context."""
    from halluscope.report.markdown import usage_summary_markdown
    from halluscope.report.usage_html import render_usage_html

    out = Path(out_dir)
    # Every file or none: a full disk (or an --out that is a file) leaves `out` untouched.
    with atomic_dir(out) as staging:
        paths = {"mentions": staging / "mentions.parquet",
                 "captions": staging / "captions.parquet",
                 "summary_json": staging / "summary.json", "summary_md": staging / "summary.md",
                 "html": staging / "report.html"}
        write_parquet_atomic(paths["mentions"], uniform_image_ids(report.mentions))
        write_parquet_atomic(paths["captions"], uniform_image_ids(report.captions))
        write_json_atomic(paths["summary_json"], report.summary)
        write_text_atomic(paths["summary_md"], usage_summary_markdown(report.summary))
        write_text_atomic(paths["html"], render_usage_html(report.summary, report.mentions,
                                                           caption_texts or {}))
    return {key: out / path.name for key, path in paths.items()}
