"""What the demo leaves in its output folder: one line per output, and which file to open first.

>>> print(readme_text(model=False).splitlines()[0])
# What is in this folder
>>> [path for path, _ in demo_outputs(model=False)][:2]
['report/report.html', 'report/summary.md']

`run_demo` writes `README.md` from `demo_outputs` into the folder and ends by printing
`OPEN_FIRST`, so a new user knows where to look; a test checks that every listed path exists
after a demo run, so the list cannot drift from what is written.
"""

from __future__ import annotations

#: The page a new user should open first (relative to the demo's output folder).
OPEN_FIRST = "report/report.html"

_REPORT = [
    (OPEN_FIRST, "Open this first. The usage-aware report as a page: CHAIR-style rate beside the "
                 "claims-only rate (95% CIs), counts per class and subtype, every mention in its "
                 "caption context with usage, subtype and trigger (filter by class)."),
    ("report/summary.md", "The same summary as Markdown (what the demo printed first)."),
    ("report/summary.json", "The summary as JSON (every rate with its numerator, denominator "
                            "and CI)."),
    ("report/mentions.parquet", "One row per object mention: usage, subtype, trigger, presence, "
                                "NAME-Bench class."),
    ("report/captions.parquet", "One row per caption: mention counts, hallucinated or not."),
    ("inputs/captions.jsonl", "The embedded demo captions ({image_id, caption})."),
    ("inputs/instances.json", "The embedded ground truth (COCO instances layout)."),
]

_MODEL = [
    ("model/bench/report.html", "NAME-Bench detector run on the demo model's signals: scores "
                                "against the calibrated threshold, FPR per subtype, mixing and "
                                "ROC curves, every table. A tiny model with a random vision "
                                "tower: the figures are noise; the point is the pipeline."),
    ("model/bench/summary.md", "The detector run's summary (headline FPR / TPR per detector)."),
    ("model/bench/tables.md", "Every NAME-Bench table of the run (also as table*.csv, "
                              "percent columns in %)."),
    ("model/bench/timings.json", "Wall-clock seconds per detector (not in results.json, so "
                                 "reruns give identical results)."),
    ("model/captioning/captions.jsonl", "Captions the demo model wrote of the drawn images: "
                                        "noise (random vision tower), shown, not analysed."),
    ("model/signals", "Per-mention signals (attention, hidden states, logit lens) of one "
                      "teacher-forced pass over the embedded captions; Parquet run stores."),
    ("model/images", "The drawn demo images."),
    ("prism/report/report.html", "HalluPrism (V, L, A) report of the same model on VSR- and "
                                 "POPE-style items written from the drawn images: "
                                 "risk-coverage, distributions, routing, entanglement."),
    ("prism/summary.json", "The HalluPrism demo's probe settings, profile, abstention, routing "
                           "and entanglement as JSON."),
]


def demo_outputs(model: bool = True) -> list[tuple[str, str]]:
    """(relative path, what it is) of every output the demo writes, the first to open first."""
    return list(_REPORT) + (list(_MODEL) if model else [])


def readme_text(model: bool = True) -> str:
    """`README.md` of the demo's output folder."""
    lines = ["# What is in this folder", "",
             f"Written by `halluscope demo`. Open `{OPEN_FIRST}` first (a self-contained page: "
             "no network needed).", ""]
    lines += [f"- `{path}`: {what}" for path, what in demo_outputs(model)]
    return "\n".join(lines) + "\n"
