"""Run the usage-aware report on the embedded default, or on real caption sets.

>>> callable(run_demo)
True

On the embedded default (`make demo`) the demo writes, under its output folder: `inputs/` and
`report/` (the usage-aware report on the embedded captions), `model/` (a tiny random-weight
LLaVA-1.5 captions generated images, signals are extracted and the NAME-Bench protocol runs:
`demo.model_demo`) and `prism/` (HalluPrism on the same model and images: VSR- and POPE-style
items the project writes from what the images show, the probes, profile, abstention,
interventions routed on normalised dominance, entanglement and the HTML/Markdown report:
`demo.prism_demo`), then `README.md` (what each output is, `demo.outputs`) and a last line
naming the file to open first. With `--data-root`, one report per caption set and
`comparison.md` (the printed comparison table). Nothing there reads the network or ../shared.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from halluscope.errors import InputError
from halluscope.io.atomic import write_json_atomic, write_jsonl_atomic, write_text_atomic


def run_demo(out: str | Path, data_root: str | Path | None = None,
             echo: Callable[[str], None] = print, model: bool = True,
             text_model: str | None = None) -> dict:
    """Embedded default (no network, nothing from ../shared) unless `data_root` is given.

    With `model` (default), the embedded demo also runs the model side on a tiny random LLaVA:
    captioning generated images, then signal extraction (`halluscope.demo.model_demo`), then
    the HalluPrism probes and analyses on that same model and those images
    (`halluscope.demo.prism_demo`). `text_model` ("smollm2-135m") gives that model a real
    pretrained language tower.
    """
    from halluscope.jobs import usage_report_job
    from halluscope.report.markdown import markdown_table, usage_summary_markdown
    from halluscope.text.usage import get_judge

    out = Path(out)
    judge = get_judge("offline")
    if data_root is None:
        from halluscope.demo.data import demo_captions, demo_instances

        captions, annotations = out / "inputs" / "captions.jsonl", out / "inputs" / "instances.json"
        write_jsonl_atomic(captions, demo_captions())
        write_json_atomic(annotations, demo_instances())
        summary = usage_report_job(captions, annotations, out / "report", judge)
        echo(usage_summary_markdown(summary))
        echo(_mentions_not_claimed(out / "report" / "mentions.parquet", captions))
        echo(f"inputs in {out / 'inputs'}, report in {out / 'report'} (open "
             f"{out / 'report' / 'report.html'})")
        result = {"demo": summary}
        if model:
            from halluscope.demo.model_demo import run_model_demo

            result["model"] = run_model_demo(out / "model", echo=echo,
                                             labels=out / "report" / "mentions.parquet",
                                             text_model=text_model)
            from halluscope.demo.prism_demo import run_prism_demo

            # The model folder and images model_demo just wrote: nothing is built twice.
            result["prism"] = run_prism_demo(out / "prism", echo, result["model"]["model_dir"],
                                             out / "model" / "images")
        from halluscope.demo.outputs import OPEN_FIRST, readme_text

        write_text_atomic(out / "README.md", readme_text(model))
        echo(f"What each output is: {out / 'README.md'}\nOpen first: {out / OPEN_FIRST}")
        return result

    root = Path(data_root)
    caption_files = sorted((root / "captions").glob("*.jsonl"))
    gt = root / "coco" / "chair_gt_objects_coco2014.json"
    if not caption_files:
        raise InputError("no caption files (*.jsonl) found", path=root / "captions")
    chair_vocab = root / "chair_reference" / "chair_vocabulary.json"
    if not chair_vocab.is_file():
        chair_vocab = os.environ.get("HALLUSCOPE_CHAIR_VOCAB")
    summaries = {}
    rows = []
    for path in caption_files:
        # COCO-2014 instance annotations are not in the data root: presence is CHAIR's ground
        # truth (instances ∪ reference captions), said so in each summary's inputs.
        summary = usage_report_job(path, gt, out / path.stem, judge, chair_vocab=chair_vocab)
        summaries[path.stem] = summary
        chair = summary.get("chair", {})
        rows.append([path.stem, summary["n_captions"], summary["n_mentions"],
                     _pct(chair.get("CHAIRi")), _pct(chair.get("CHAIRs")),
                     _pct(summary["usage_agnostic"]["hallucination_rate"]["value"]),
                     _pct(summary["usage_aware"]["hallucination_rate"]["value"]),
                     _pct(summary["natural_rates"]["non_assertive_share"]["value"]),
                     _pct((chair.get("non_assertive_share_of_hallucinated") or {}).get("value"))])
    comparison = markdown_table(["captions", "n", "mentions", "CHAIRi", "CHAIRs",
                                 "usage-agnostic rate", "usage-aware rate", "non-assertive share",
                                 "CHAIR-hallucinated that are non-assertive"], rows)
    echo(comparison)
    write_text_atomic(out / "comparison.md", "# Caption sets compared\n\n"
                      f"Data root: {root}; judge: offline; presence: CHAIR's ground truth.\n\n"
                      + comparison + "\n")
    echo(f"comparison saved to {out / 'comparison.md'}; per-set reports (open "
         f"<set>/report.html) in {out}/<set>/")
    return summaries


def _mentions_not_claimed(mentions_path: Path, captions_path: Path) -> str:
    """The mentions a usage-agnostic metric gets wrong, with the words that show why."""
    import json

    import pyarrow.parquet as pq

    from halluscope.report.markdown import markdown_table

    captions = [json.loads(line)["caption"] for line in captions_path.read_text().splitlines()]
    rows = [r for r in pq.read_table(mentions_path).to_pylist()
            if r["usage"] in ("non_assertive", "not_object")]
    table = [[r["caption_index"], r["word"], r["usage"], r["subtype"] or "",
              "yes" if r["present"] else "no",
              (r["trigger"] or captions[r["caption_index"]][max(0, r["start"] - 20):r["end"] + 5]
               ).replace("\n", " ").replace("|", "/")]
             for r in rows]
    return "## Mentions that are not claims\n\n" + markdown_table(
        ["caption", "word", "usage", "subtype", "present", "trigger / context"], table) + "\n"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"
