"""Interventional entanglement (HalluPrism Sec. 7.2, Definition 7.1, Tables 15-19).

>>> r = diagonal_check("visual", (-0.085, 0.011, -0.009)); r["passed"], r["largest"]
(True, 'v')
>>> diagonal_check("language", (-0.047, -0.086, 0.175))["passed"]
False

For a ruined condition R (visual-, language- or alignment-ruined input) the signed delta of
coordinate S is mean over items of S(T_R(x)) - S(x). The check passes when the intended
coordinate has strictly the largest |delta| (a tie fails: Proposition 2 needs |D_RS| < |D_RR|
for all S != R, which is why an all-zero row, e.g. POPE alignment-ruined, is a FAIL).

Ruined inputs (`ruin`, `probe_entanglement`, the `prism entangle` command). Each item is probed
clean and under each ruined condition with the full probe family (`probes.probe_items`: the
V perturbations, the blank image and the A probes are applied to the ruined input), and
(V, L, A) of both give the paired deltas. The conditions, as the paper defines them (Sec. 7.2,
Appendix 9.3) and where it is silent as the released code built them:

* visual-ruined: the image is downsampled to 10x10 pixels and scaled back to its size (nearest
  neighbour), so it keeps its size and colours but loses its content. The paper does not print
  this transform; it is the released code's (`run_identifiability.py`). A blank or noisy image
  is not used: the blank image is L's own probe and noise is one of V's.
* language-ruined: the question is replaced by an unrelated decoy question and only the
  answer constraint is kept, "{decoy_question} {constraint}" (Appendix 9.3's template and its
  example decoy "What is the capital city of France?"). The ten decoys (`DECOY_QUESTIONS`) are
  general-knowledge questions with no spatial-relation phrase, so a decoy never gets a VSR
  relation-swap probe. Deviations from the released code: the decoy is picked by a hash of
  (seed, item id) instead of `random.Random(seed + position)`, so it does not depend on the
  item's position in the run; the VizWiz prompt keeps its instruction as the constraint (the
  released code looked for an "answer with" line, found none in its VizWiz prompt and sent the
  bare decoy).
* alignment-ruined: deterministic relation inversion for VSR (the caption's relation swapped,
  `probes.swap_relation`), polarity inversion for yes/no existence questions ("Is there a X"
  <-> "Is there no X", `probes.invert_polarity`), and otherwise Appendix 9.3's fallback
  "Answer the OPPOSITE of what you would normally answer to the following question.
  {original_prompt}". The released code only swapped four spatial word pairs wherever they
  occurred and had no fallback, which left POPE and VizWiz prompts unchanged (their all-zero
  alignment rows in Tables 16-19). The image is not replaced by another item's image: the paper
  ruins alignment through the text.

The ruined rows keep the clean item's `sample_id` (pairing) and gold answer: their correctness
fields are against the clean gold and are not used here. Deltas are paired means over items
(the released analysis took a difference of means over rows, the same number when every item
is present in both).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from halluscope.prism.datasets import DATASET_NAMES

if TYPE_CHECKING:
    from PIL import Image

    from halluscope.models.base import VLMAdapter
    from halluscope.models.spec import ModelSpec
    from halluscope.prism.datasets import Item
    from halluscope.prism.probes import ProbeConfig
    from halluscope.runs.executor import ExecutorConfig

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


# ---------------------------------------------------------------------------------------------
# Ruined inputs (Appendix 9.3) and the test on a model
# ---------------------------------------------------------------------------------------------

#: Ruined conditions in the paper's row order.
CONDITIONS = tuple(TARGET)
#: Side of the visual-ruined thumbnail (the released code's 10x10).
VISUAL_RUIN_SIZE = 10
#: Language-ruined decoys: unrelated general-knowledge questions (the first is the paper's
#: example), none with a spatial-relation phrase.
DECOY_QUESTIONS = (
    "What is the capital city of France?",
    "How many days does a leap year have?",
    "What is the boiling point of water?",
    "Who wrote the play Romeo and Juliet?",
    "What is the chemical symbol for gold?",
    "How many continents does Earth have?",
    "What is the speed of light?",
    "Which year did World War II end?",
    "What is the largest planet of the solar system?",
    "What is the official language of Brazil?",
)
#: Appendix 9.3's fallback alignment-ruined prompt, put before the original prompt.
OPPOSITE_PREFIX = ("Answer the OPPOSITE of what you would normally answer to the following "
                   "question.")
#: How an item was ruined (`Ruined.method`).
RUIN_METHODS = ("pixelated", "decoy_question", "relation_inversion", "polarity_inversion",
                "opposite_prompt")


@dataclass(frozen=True)
class Ruined:
    """One item under one ruined condition: the item to probe, its image, how it was ruined."""

    condition: str
    method: str
    item: Item
    image: Image.Image
    prompt: str


def ruin_image(image: Image.Image, size: int = VISUAL_RUIN_SIZE) -> Image.Image:
    """The image pixelated to `size` x `size` blocks at its own size (nearest neighbour).

    >>> from PIL import Image
    >>> img = Image.new("RGB", (40, 30)); img.putpixel((3, 3), (255, 0, 0))
    >>> out = ruin_image(img); out.size, len(out.getcolors(4096)) <= 100
    ((40, 30), True)
    """
    from PIL import Image as PILImage

    rgb = image if image.mode == "RGB" else image.convert("RGB")
    small = rgb.resize((size, size), PILImage.Resampling.NEAREST)
    return small.resize(rgb.size, PILImage.Resampling.NEAREST)


def decoy_question(item_id: str, seed: int = 0) -> str:
    """The decoy of one item: fixed by (seed, item id), whatever the order of the run.

    >>> decoy_question("vsr_dev_000001") == decoy_question("vsr_dev_000001")
    True
    >>> decoy_question("vsr_dev_000001") in DECOY_QUESTIONS
    True
    """
    digest = hashlib.sha256(f"decoy\x00{seed}\x00{item_id}".encode("utf-8")).digest()
    return DECOY_QUESTIONS[int.from_bytes(digest[:8], "little") % len(DECOY_QUESTIONS)]


def answer_constraint(dataset: str) -> str:
    """The part of a dataset's base prompt that constrains the answer (kept by language ruin).

    >>> answer_constraint("pope"), answer_constraint("vsr")
    ("Answer with only 'Yes' or 'No'.", "Answer with only 'True' or 'False'.")
    """
    from halluscope.prism.probes import base_prompt_for

    if dataset == "vsr":
        # The VSR prompt wraps the caption in a statement frame; its last sentence is the
        # constraint.
        return "Answer with only 'True' or 'False'."
    return base_prompt_for(dataset, "{question}").replace("{question}", "", 1).strip()


def ruin_language(item: Item, seed: int = 0) -> Item:
    """The item with its question replaced by a decoy, prompt "{decoy} {constraint}".

    >>> from halluscope.prism.datasets import Item
    >>> it = ruin_language(Item("x", "pope", "i.jpg", "Is there a dog in the image?", "yes", "yesno"))
    >>> it.question in DECOY_QUESTIONS, it.prompt_template
    (True, "{question} Answer with only 'Yes' or 'No'.")
    """
    return replace(item, question=decoy_question(item.item_id, seed), relation=None,
                   prompt_template="{question} " + answer_constraint(item.dataset))


def ruin_alignment(item: Item) -> tuple[Item, str]:
    """The item with the question-image agreement inverted, and the method used.

    >>> from halluscope.prism.datasets import Item
    >>> vsr = Item("v", "vsr", "i.jpg", "The cat is under the table.", "true", "truefalse", "under")
    >>> it, how = ruin_alignment(vsr); it.question, it.relation, how
    ('The cat is on top of the table.', 'on top of', 'relation_inversion')
    >>> ruin_alignment(Item("p", "pope", "i.jpg", "Is there a dog in the image?", "yes", "yesno"))[0].question
    'Is there no dog in the image?'

    Relation inversion (VSR), else polarity inversion (yes/no existence questions), else the
    opposite-answer prompt around the original prompt.
    """
    from halluscope.prism.probes import (RELATION_SWAPS, base_prompt_for, invert_polarity,
                                         swap_relation)

    if item.dataset == "vsr":
        swapped = swap_relation(item.question, item.relation)
        if swapped is not None:
            target = RELATION_SWAPS.get(item.relation.lower().strip()) if item.relation else None
            return replace(item, question=swapped, relation=target), "relation_inversion"
    if item.answer_type == "yesno":
        inverted = invert_polarity(item.question)
        if inverted is not None:
            return replace(item, question=inverted), "polarity_inversion"
    frame = item.prompt_template or base_prompt_for(item.dataset, "{question}")
    return replace(item, prompt_template=f"{OPPOSITE_PREFIX} {frame}"), "opposite_prompt"


def ruin(item: Item, image: Image.Image, condition: str, seed: int = 0) -> Ruined:
    """One item's input under a ruined condition (visual, language or alignment).

    >>> from PIL import Image
    >>> from halluscope.prism.datasets import Item
    >>> r = ruin(Item("p", "pope", "i.jpg", "Is there a dog?", "yes", "yesno"), Image.new("RGB", (8, 8)), "language")
    >>> r.method, r.prompt.endswith("Answer with only 'Yes' or 'No'."), r.item.question in DECOY_QUESTIONS
    ('decoy_question', True, True)
    """
    from halluscope.prism.probes import item_prompt

    if condition == "visual":
        ruined, method, img = item, "pixelated", ruin_image(image)
    elif condition == "language":
        ruined, method, img = ruin_language(item, seed), "decoy_question", image
    elif condition == "alignment":
        (ruined, method), img = ruin_alignment(item), image
    else:
        raise ValueError(f"unknown ruined condition {condition!r} (known: {', '.join(CONDITIONS)})")
    return Ruined(condition, method, ruined, img, item_prompt(ruined))


def _signature(row: Mapping[str, Any]) -> tuple[float, float, float]:
    try:
        return (float(row["v_score"]), float(row["lp_score"]), float(row["a_score"]))
    except KeyError:
        raise ValueError(f"row {row.get('sample_id')!r} has no (V, L, A): every probe must "
                         "run for the entanglement test") from None


def probe_entanglement(adapter: VLMAdapter | ModelSpec, items: Sequence[Item],
                       images: Sequence[Image.Image], config: ProbeConfig | None = None,
                       model_name: str = "", seed: int = 0,
                       conditions: Sequence[str] = CONDITIONS,
                       executor: ExecutorConfig | None = None) -> dict[str, Any]:
    """Probe every item clean and under each ruined condition; deltas and diagonal checks.

    Returns `{"clean": rows, "ruined": {condition: rows}, "settings": {(model, dataset):
    {condition: (dV, dL, dA)}}, "table": entanglement_table(settings)}`; rows are the
    released layout (`probes.build_row`), ruined rows with `ruin_condition`, `ruin_method`,
    `ruined_prompt` and `ruin_seed` added. Same model, items, images and seed give the same
    output (greedy decoding, per-item noise seeds, per-item decoys). The clean and every ruined
    input are probed in one pass (`probes.probe_all`: one model load per worker on Ray).
    """
    from halluscope.prism.probes import PROBES, ProbeConfig, probe_all

    config = config or ProbeConfig()
    if set(config.probes) != set(PROBES):
        raise ValueError("the entanglement test needs every probe (ProbeConfig.probes)")
    if len(items) != len(images) or not items:
        raise ValueError("need one image per item and at least one item")
    unknown = [c for c in conditions if c not in TARGET]
    if unknown or not conditions:
        raise ValueError(f"conditions must come from {', '.join(CONDITIONS)}, got {unknown}")
    ruins = {cond: [ruin(it, im, cond, seed) for it, im in zip(items, images)]
             for cond in conditions}
    all_items = list(items) + [r.item for cond in conditions for r in ruins[cond]]
    all_images = list(images) + [r.image for cond in conditions for r in ruins[cond]]
    rows = probe_all(adapter, all_items, all_images, config, model_name, executor)
    clean = rows[:len(items)]
    ruined: dict[str, list[dict[str, Any]]] = {}
    for k, cond in enumerate(conditions, 1):
        part = rows[k * len(items):(k + 1) * len(items)]
        for row, r in zip(part, ruins[cond]):
            row.update(ruin_condition=cond, ruin_method=r.method, ruined_prompt=r.prompt,
                       ruin_seed=seed)
        ruined[cond] = part
    settings: dict[tuple[str, str], dict[str, tuple[float, float, float]]] = {}
    for dataset in sorted({it.dataset for it in items}):
        keep = [i for i, it in enumerate(items) if it.dataset == dataset]
        base = [_signature(clean[i]) for i in keep]
        settings[(model_name, dataset)] = {
            cond: mean_deltas(base, [_signature(ruined[cond][i]) for i in keep])
            for cond in conditions}
    return {"clean": clean, "ruined": ruined, "settings": settings,
            "table": entanglement_table(settings)}


def entanglement_markdown(table: Mapping[str, Any]) -> str:
    """Tables 15-19 as Markdown: signed deltas with PASS/FAIL, then the pass counts.

    >>> print(entanglement_markdown(entanglement_table({("m", "vsr"): {"visual": (-0.1, 0.0, 0.02)}})))
    | Model | Dataset | Condition | ΔV | ΔL | ΔA | Check |
    |---|---|---|---|---|---|---|
    | m | vsr | Visual-ruined | -0.100 | +0.000 | +0.020 | PASS |
    <BLANKLINE>
    Pass counts: visual-ruined 1/1; all checks 1/1; per model: m 1/1.
    """
    from halluscope.report.markdown import markdown_table

    rows = [[c["model"], c["dataset"], f"{c['condition'].capitalize()}-ruined",
             *(f"{c['delta'][k]:+.3f}" for k in COORDS), "PASS" if c["passed"] else "FAIL"]
            for c in table["checks"]]
    counts = "; ".join(f"{k}-ruined {v}" for k, v in table["pass_counts"].items())
    models = ", ".join(f"{k} {v}" for k, v in table["per_model"].items())
    return (markdown_table(["Model", "Dataset", "Condition", "ΔV", "ΔL", "ΔA", "Check"], rows)
            + f"\n\nPass counts: {counts}; all checks {table['total']}; per model: {models}.")


def write_entanglement(out_dir: str | Path, result: Mapping[str, Any]) -> dict[str, Path]:
    """Write a `probe_entanglement` result: `clean/<model>/<dataset>.jsonl`,
    `ruined/<condition>/<model>/<dataset>.jsonl` (the layout `prism report --ruined` reads),
    `entanglement.json` and `entanglement.md`, each atomically."""
    from halluscope.io.atomic import write_json_atomic, write_jsonl_atomic, write_text_atomic

    out = Path(out_dir)
    dataset_of = {name: key for key, name in DATASET_NAMES.items()}

    def by_file(rows: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], list[Any]]:
        files: dict[tuple[str, str], list[Any]] = {}
        for row in rows:
            if not row.get("model"):
                raise ValueError("rows need a model name to be written (model_name)")
            files.setdefault((row["model"], dataset_of[row["dataset_name"]]), []).append(row)
        return files

    for (model, dataset), rows in by_file(result["clean"]).items():
        write_jsonl_atomic(out / "clean" / model / f"{dataset}.jsonl", list(rows))
    for cond, cond_rows in result["ruined"].items():
        for (model, dataset), rows in by_file(cond_rows).items():
            write_jsonl_atomic(out / "ruined" / cond / model / f"{dataset}.jsonl", list(rows))
    table = result["table"]
    write_json_atomic(out / "entanglement.json", {
        "analysis": "entanglement", "table": table,
        "settings": [{"model": m, "dataset": d, "deltas": {c: list(v) for c, v in conds.items()}}
                     for (m, d), conds in sorted(result["settings"].items())]})
    write_text_atomic(out / "entanglement.md", "# Interventional entanglement\n\n"
                      + entanglement_markdown(table) + "\n")
    return {"json": out / "entanglement.json", "markdown": out / "entanglement.md",
            "clean": out / "clean", "ruined": out / "ruined"}
