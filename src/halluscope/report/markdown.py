"""Markdown rendering of summaries (printed by the CLI and written beside the JSON).

>>> print(markdown_table(["a", "b"], [[1, "x"]]))
| a | b |
|---|---|
| 1 | x |
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence


def fixed(value: float, digits: int = 3) -> str:
    """`value` with `digits` decimals, never "-0.000": what rounds to zero has no sign.

    >>> fixed(-0.0004), fixed(-0.0006), fixed(2.5, 1)
    ('0.000', '-0.001', '2.5')
    """
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _ratio(estimate: Mapping[str, Any] | None) -> str:
    if not estimate or estimate.get("value") is None:
        return "n/a"
    text = f"{100 * estimate['value']:.1f}%"
    if estimate.get("low") is not None:
        text += f" [{100 * estimate['low']:.1f}, {100 * estimate['high']:.1f}]"
    return text + f" ({estimate['numerator']}/{estimate['denominator']})"


def usage_summary_markdown(summary: Mapping[str, Any]) -> str:
    """The usage-aware report as Markdown: headline rates, CHAIR, counts, failures."""
    counts = summary["counts"]
    parts = [
        "# Usage-aware hallucination report",
        "",
        f"{summary['n_captions']} captions of {summary['n_images']} images, "
        f"{summary['n_mentions']} object mentions; judge failures: "
        f"{summary['n_judge_failures']}; skipped input lines: "
        f"{summary['inputs'].get('skipped_lines', 0)}.",
        "",
        "## Hallucination rates (95% image-bootstrap CI)",
        "",
        markdown_table(["metric", "usage-agnostic (CHAIR-style)", "usage-aware (claims only)"], [
            ["mention-level hallucination rate",
             _ratio(summary["usage_agnostic"]["hallucination_rate"]),
             _ratio(summary["usage_aware"]["hallucination_rate"])],
            ["captions with a hallucination",
             _ratio(summary["usage_agnostic"]["caption_hallucination_rate"]),
             _ratio(summary["usage_aware"]["caption_hallucination_rate"])],
        ]),
        "",
        "Absent-object mentions that are non-assertive (counted as hallucinations by a "
        f"usage-agnostic metric): {_ratio(summary['usage_agnostic']['absent_mentions_non_assertive_share'])}.",
        "",
        "## Natural rates (NAME-Bench Table 1)",
        "",
        markdown_table(["non-assertive share", "hallucination rate"], [[
            _ratio(summary["natural_rates"]["non_assertive_share"]),
            _ratio(summary["natural_rates"]["hallucination_rate"])]]),
    ]
    chair = summary.get("chair")
    if chair:
        parts += [
            "",
            "## CHAIR (reference implementation)",
            "",
            markdown_table(["CHAIRs", "CHAIRi", "Recall", "hallucinated words",
                            "of which non-assertive"], [[
                f"{100 * chair['CHAIRs']:.1f}", f"{100 * chair['CHAIRi']:.1f}",
                f"{100 * chair['Recall']:.1f}", chair["hallucinated_words"],
                _ratio(chair["non_assertive_share_of_hallucinated"])]]),
            "",
            f"CHAIR hallucinated words aligned to mentions: {chair['aligned_to_mentions']}; "
            f"outside the mention vocabulary: {chair['not_in_mention_vocabulary']}. "
            f"By subtype: {chair['hallucinated_by_subtype'] or 'none'}.",
        ]
    parts += [
        "",
        "## Counts",
        "",
        markdown_table(["class", *counts["class"]], [["mentions", *counts["class"].values()]]),
        "",
        markdown_table(["usage", *counts["usage"]], [["mentions", *counts["usage"].values()]]),
        "",
        markdown_table(["subtype", *counts["subtype"]],
                       [["mentions", *counts["subtype"].values()]]),
        "",
        f"Non-assertive mentions of present objects: "
        f"{counts['non_assertive_by_presence']['present']}, of absent objects: "
        f"{counts['non_assertive_by_presence']['absent']}. Mentions of excluded categories: "
        f"{counts['excluded_category']}.",
    ]
    if summary.get("judge_failures_by_error"):
        parts += ["", "## Judge failures", "",
                  markdown_table(["error", "mentions"],
                                 list(summary["judge_failures_by_error"].items()))]
    return "\n".join(parts) + "\n"
