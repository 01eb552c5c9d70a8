"""The usage-aware report as one self-contained page (`report.html` beside `summary.md`).

>>> summary = {"inputs": {"captions": "caps.jsonl"}, "n_captions": 1, "n_images": 1,
...            "n_mentions": 1, "n_judge_failures": 0,
...            "counts": {"class": {"concrete": 0, "hallucinated": 0, "non_assertive": 1},
...                       "usage": {"non_assertive": 1}, "subtype": {"hedged": 1}},
...            "usage_aware": {"hallucination_rate": {"value": None},
...                            "caption_hallucination_rate": {"value": None}},
...            "usage_agnostic": {"hallucination_rate": {"value": 1.0, "numerator": 1,
...                                                      "denominator": 1},
...                               "caption_hallucination_rate": {"value": 1.0, "numerator": 1,
...                                                              "denominator": 1}}}
>>> mention = {"caption_index": 0, "image_id": 7, "word": "cat", "start": 15, "end": 18,
...            "usage": "non_assertive", "subtype": "hedged", "trigger": "may be",
...            "namebench_class": "non_assertive", "present": False, "error": None}
>>> page = render_usage_html(summary, [mention], {0: "There may be a cat."})
>>> "<mark>cat</mark>" in page and "data-class='non_assertive'" in page
True

Sections: the rates (usage-agnostic, CHAIR-style, beside claims-only, 95% image-bootstrap CIs,
and the reference CHAIR when it was computed), counts per class, usage and subtype, then every
mention with its caption context (the mention highlighted), usage, subtype, trigger and class;
buttons filter the mention table by class (a few lines of inline JavaScript). No external
resource is referenced: the page works offline and from a file.
"""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path
from typing import Any, Mapping, Sequence

#: Mentions shown in the page's table; the rest are in mentions.parquet (the page says so).
MAX_MENTION_ROWS = 20000
#: Characters of caption shown on each side of a mention.
CONTEXT_CHARS = 60
#: The filter value of mentions outside NAME-Bench's three classes (not an object, ambiguous,
#: an excluded category, or a judge failure).
OTHER = "other"

PAGE_STYLE = """mark{background:#ffe08a;padding:0 1px}.ctx{text-align:left;max-width:520px}
.filters button{margin:0 4px 4px 0;padding:3px 9px;border:1px solid #999;background:#fff;
border-radius:3px;cursor:pointer}.filters button.on{background:#30638e;color:#fff}
td.l,th.l{text-align:left}"""

FILTER_SCRIPT = """(function(){
var buttons=document.querySelectorAll('.filters button');
var rows=document.querySelectorAll('#mentions tbody tr');
var shown=document.getElementById('shown');
function apply(value){var n=0;
 rows.forEach(function(r){var on=value==='all'||r.dataset.class===value;
  r.style.display=on?'':'none';if(on){n++;}});
 buttons.forEach(function(b){b.classList.toggle('on',b.dataset.filter===value);});
 shown.textContent=String(n);}
buttons.forEach(function(b){b.addEventListener('click',function(){apply(b.dataset.filter);});});
apply('all');})();"""


def _pct_ratio(estimate: Mapping[str, Any] | None) -> str:
    """A rate as a percentage with its CI and counts (the Markdown summary's format)."""
    from halluscope.report.markdown import _ratio

    return _ratio(estimate)


def mention_context(caption: str, start: int, end: int, width: int = CONTEXT_CHARS) -> str:
    """Escaped HTML of the caption around [start, end), the mention in <mark>.

    >>> mention_context("a cat & a <dog>", 10, 15, width=4)
    '…&amp; a <mark>&lt;dog&gt;</mark>'
    """
    lo, hi = max(0, start - width), min(len(caption), end + width)
    return ("…" if lo > 0 else "") + html.escape(caption[lo:start]) + "<mark>" + html.escape(
        caption[start:end]) + "</mark>" + html.escape(caption[end:hi]) + (
        "…" if hi < len(caption) else "")


def _class_of(mention: Mapping[str, Any]) -> str:
    return mention.get("namebench_class") or OTHER


def _rates_table(summary: Mapping[str, Any]) -> str:
    from halluscope.report.html import html_table

    agnostic, aware = summary["usage_agnostic"], summary["usage_aware"]
    rows = [["mention-level hallucination rate", _pct_ratio(agnostic["hallucination_rate"]),
             _pct_ratio(aware["hallucination_rate"])],
            ["captions with a hallucination", _pct_ratio(agnostic["caption_hallucination_rate"]),
             _pct_ratio(aware["caption_hallucination_rate"])]]
    parts = ["<h2 id='rates'>Hallucination rates</h2>",
             "<p class='notes'>Percentages; 95% image-bootstrap confidence interval in brackets; "
             "(hallucinated / counted). The usage-agnostic rate counts every mention of an absent "
             "object, as CHAIR does; the usage-aware rate counts existential claims only.</p>",
             html_table(["metric", "usage-agnostic (CHAIR-style)", "usage-aware (claims only)"],
                        rows)]
    chair = summary.get("chair")
    if chair:
        parts += ["<h3>CHAIR (reference implementation)</h3>", html_table(
            ["CHAIRs %", "CHAIRi %", "Recall %", "hallucinated words", "of which non-assertive"],
            [[f"{100 * chair['CHAIRs']:.1f}", f"{100 * chair['CHAIRi']:.1f}",
              f"{100 * chair['Recall']:.1f}", str(chair["hallucinated_words"]),
              _pct_ratio(chair["non_assertive_share_of_hallucinated"])]])]
    else:
        parts.append("<p class='notes'>CHAIR was not computed (no CHAIR synonym table given: "
                     "--chair-vocab or HALLUSCOPE_CHAIR_VOCAB).</p>")
    return "\n".join(parts)


def _counts_tables(summary: Mapping[str, Any]) -> str:
    from halluscope.report.html import html_table

    counts = summary["counts"]
    parts = ["<h2 id='counts'>Counts</h2>"]
    for key in ("class", "usage", "subtype"):
        values = counts.get(key) or {}
        parts.append(html_table([key, *values], [["mentions", *(str(int(v))
                                                               for v in values.values())]]))
    return "\n".join(parts)


def _mention_rows(mentions: Sequence[Mapping[str, Any]],
                  captions: Mapping[int, str]) -> list[str]:
    rows = []
    for m in mentions:
        caption = captions.get(m["caption_index"])
        context = (mention_context(caption, int(m["start"]), int(m["end"]))
                   if caption is not None and m.get("start") is not None
                   else html.escape(str(m.get("word", ""))))
        present = m.get("present")
        cells = [html.escape(str(m["caption_index"])), html.escape(str(m.get("image_id"))),
                 f"<span class='ctx'>{context}</span>", html.escape(str(m.get("usage") or "")),
                 html.escape(str(m.get("subtype") or "")),
                 html.escape(str(m.get("trigger") or "")),
                 html.escape("" if present is None else ("yes" if present else "no")),
                 html.escape(_class_of(m)), html.escape(str(m.get("error") or ""))]
        aligned = ["", "", " class='l ctx'", " class='l'", " class='l'", " class='l'", "",
                   " class='l'", " class='l'"]
        rows.append(f"<tr data-class='{html.escape(_class_of(m))}'>" + "".join(
            f"<td{a}>{c}</td>" for a, c in zip(aligned, cells)) + "</tr>")
    return rows


def _mentions_section(mentions: Sequence[Mapping[str, Any]],
                      captions: Mapping[int, str]) -> str:
    shown = list(mentions[:MAX_MENTION_ROWS])
    per_class = Counter(_class_of(m) for m in shown)
    order = [c for c in ("concrete", "hallucinated", "non_assertive", OTHER) if per_class.get(c)]
    buttons = [f"<button type='button' data-filter='all'>all ({len(shown)})</button>"] + [
        f"<button type='button' data-filter='{c}'>{c} ({per_class[c]})</button>" for c in order]
    header = ["caption", "image", "context", "usage", "subtype", "trigger", "present", "class",
              "error"]
    left = " class='l'"
    head = "".join(f"<th{'' if i < 2 or h == 'present' else left}>{h}</th>"
                   for i, h in enumerate(header))
    truncated = (f"<p class='notes'>Truncated: the first {len(shown)} of {len(mentions)} "
                 "mentions are shown; every mention is in mentions.parquet.</p>"
                 if len(shown) < len(mentions) else "")
    return "\n".join([
        "<h2 id='mentions'>Mentions</h2>",
        "<p class='notes'>Every object mention, its caption context (mention highlighted), the "
        f"judge's usage, subtype and trigger, and its NAME-Bench class ('{OTHER}': not an "
        "object, ambiguous, an excluded category or a judge failure).</p>", truncated,
        "<div class='filters'>Filter by class: " + "".join(buttons)
        + " <span class='notes'>shown: <span id='shown'>" + str(len(shown)) + "</span></span></div>",
        f"<table id='mentions'><thead><tr>{head}</tr></thead><tbody>"
        + "".join(_mention_rows(shown, captions)) + "</tbody></table>"])


def render_usage_html(summary: Mapping[str, Any], mentions: Sequence[Mapping[str, Any]],
                      captions: Mapping[int, str]) -> str:
    """The page as one string: `summary` and `mentions` of a `UsageReport`, `captions` the
    caption text by caption index (example in the module docstring)."""
    from halluscope.report.html import STYLE

    source = (summary.get("inputs") or {}).get("captions")
    title = "Usage-aware hallucination report" + (f": {Path(source).name}" if source else "")
    judge = (summary.get("inputs") or {}).get("judge")
    intro = (f"{source}: " if source else "") + (
             f"{summary['n_captions']} captions of {summary['n_images']} images, "
             f"{summary['n_mentions']} object mentions; judge "
             f"{judge or 'n/a'}, judge failures: {summary['n_judge_failures']}; skipped input "
             f"lines: {(summary.get('inputs') or {}).get('skipped_lines', 0)}.")
    parts = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
             f"<title>{html.escape(title)}</title><style>{STYLE}\n{PAGE_STYLE}</style></head>"
             "<body>", f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(intro)}</p>",
             _rates_table(summary), _counts_tables(summary),
             _mentions_section(mentions, captions),
             f"<script>{FILTER_SCRIPT}</script>", "</body></html>"]
    return "\n".join(parts) + "\n"

