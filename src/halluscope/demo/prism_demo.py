"""The HalluPrism side of the demo: probes and analyses on a tiny model over generated images.

>>> callable(run_prism_demo)
True

The project writes its own VSR-style items (a spatial relation between two drawn shapes, true
or false) and POPE-style items ("Is there a red ellipse in the image?", half present, half
absent) from the demo images' layout (`demo.images.demo_scene`), in the files the prism
loaders read (`prism.datasets.load_vsr`, `load_pope`). Then, with the functions the `prism`
commands use: the probes on both (`probes.probe_items`, as `prism probe`), the source profile
(`analysis.profile`, Table 13), abstention (`analysis.abstain`: scalar vs source-aware AUROC),
the interventions (`interventions.intervene_all`, as `prism intervene`: normalised routing, the
three corrections and the generic prompt on every item) and their policy comparison
(`routing.route_dominance`, as `prism route-dominance`), the interventional entanglement test on the VSR items (`entanglement.probe_entanglement` / `write_entanglement`)
and the HTML + Markdown report (`report.write_prism_report`, as `prism report`).

Layout under `out`: `inputs/` (vsr_dev.jsonl, coco_pope_random.json), `results/<model>/
<dataset>.jsonl`, `interventions/<model>/<dataset>.jsonl`, `profile.json`, `abstain.json`,
`routing.json`, `entanglement/`, `report/`
and `summary.json`. Every JSON is a pure function of the model, the images and the settings
(no timings, no dates), so a rerun writes identical files. With a random-weight model every
figure is noise: the point is that the pipeline runs end to end.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from halluscope.demo.images import COLOUR_NAMES, SHAPE_KINDS, Scene, Shape
from halluscope.errors import InputError

if TYPE_CHECKING:
    from halluscope.models.base import VLMAdapter

VSR_FILE = "vsr_dev.jsonl"
#: POPE's own file naming: the loader reads the split from it.
POPE_FILE = "coco_pope_random.json"
#: Relation -> its opposite (all four are `probes.RELATION_SWAPS` keys, so every item gets the
#: relation-swap probe).
OPPOSITE = {"left of": "right of", "right of": "left of", "above": "below", "below": "above"}
#: Colours never asked about as absent objects: the sky is a blue rectangle and the ground a
#: green one, so "Is there a blue rectangle?" would have no clear answer.
_BACKGROUND_COLOURS = ("blue", "green")


# ---------------------------------------------------------------------------------------------
# Items from what the images show
# ---------------------------------------------------------------------------------------------

def _overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def nameable_shapes(scene: Scene) -> list[Shape]:
    """Shapes a question can name without ambiguity: fully visible (no later shape drawn over
    their box) and the only one of their colour and kind in the image.

    >>> red, red2 = Shape("ellipse", "red", (0, 0, 9, 9)), Shape("ellipse", "red", (30, 0, 39, 9))
    >>> black = Shape("rectangle", "black", (0, 20, 9, 29))
    >>> white = Shape("rectangle", "white", (5, 25, 15, 35))
    >>> [x.name for x in nameable_shapes(Scene(64, 40, (red, red2, black, white)))]
    ['white rectangle']
    """
    names = [s.name for s in scene.shapes]
    out = []
    for i, shape in enumerate(scene.shapes):
        covered = any(_overlaps(shape.box, later.box) for later in scene.shapes[i + 1:])
        if not covered and names.count(shape.name) == 1:
            out.append(shape)
    return out


def spatial_facts(scene: Scene) -> list[tuple[Shape, str, Shape]]:
    """True (a, relation, b) statements between nameable shapes whose boxes are apart on the
    relation's axis (image coordinates: y grows downwards).

    >>> red = Shape("ellipse", "red", (0, 0, 9, 9))
    >>> black = Shape("rectangle", "black", (20, 0, 29, 9))
    >>> s = Scene(64, 60, (red, black))
    >>> [(a.name, rel, b.name) for a, rel, b in spatial_facts(s)]  # doctest: +NORMALIZE_WHITESPACE
    [('red ellipse', 'left of', 'black rectangle'),
     ('black rectangle', 'right of', 'red ellipse')]
    """
    shapes = nameable_shapes(scene)
    facts = []
    for a in shapes:
        for b in shapes:
            if a is b:
                continue
            if a.box[2] < b.box[0]:
                facts.append((a, "left of", b))
            if a.box[0] > b.box[2]:
                facts.append((a, "right of", b))
            if a.box[3] < b.box[1]:
                facts.append((a, "above", b))
            if a.box[1] > b.box[3]:
                facts.append((a, "below", b))
    return facts


def vsr_rows(scenes: Sequence[tuple[str, Scene]], n: int) -> list[dict[str, Any]]:
    """`n` VSR rows (`image, caption, label, relation`), one image each, true and false in turn;
    a false caption states the opposite of a true fact.

    >>> red = Shape("ellipse", "red", (0, 0, 9, 9))
    >>> black = Shape("rectangle", "black", (20, 0, 29, 9))
    >>> s = Scene(64, 60, (red, black))
    >>> [(r["caption"], r["label"]) for r in vsr_rows([("1.png", s), ("2.png", s)], 2)]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('The red ellipse is left of the black rectangle.', 1),
     ('The red ellipse is right of the black rectangle.', 0)]
    """
    rows: list[dict[str, Any]] = []
    wanted = list(OPPOSITE)
    for image, scene in scenes:
        if len(rows) == n:
            break
        facts = spatial_facts(scene)
        if not facts:
            continue
        k = len(rows)
        # Cycle through the four relations so each one (and its swap probe) is exercised.
        a, rel, b = next((f for f in facts if f[1] == wanted[k // 2 % 4]), facts[0])
        true = k % 2 == 0
        stated = rel if true else OPPOSITE[rel]
        rows.append({"image": image, "caption": f"The {a.name} is {stated} the {b.name}.",
                     "label": int(true), "relation": stated})
    return rows


def pope_rows(scenes: Sequence[tuple[str, Scene]], n: int) -> list[dict[str, Any]]:
    """`n` POPE rows (`question_id, image, text, label`), one image each, yes and no in turn.

    >>> red = Shape("ellipse", "red", (0, 0, 9, 9))
    >>> black = Shape("rectangle", "black", (20, 0, 29, 9))
    >>> s = Scene(64, 60, (red, black))
    >>> [(r["text"], r["label"]) for r in pope_rows([("1.png", s), ("2.png", s)], 2)]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('Is there a red ellipse in the image?', 'yes'),
     ('Is there a yellow ellipse in the image?', 'no')]

    An absent object has a colour no shape in the image has (never the sky's or the ground's).
    """
    rows: list[dict[str, Any]] = []
    for image, scene in scenes:
        if len(rows) == n:
            break
        k = len(rows)
        if k % 2 == 0:
            shapes = nameable_shapes(scene)
            if not shapes:
                continue
            name, label = shapes[k // 2 % len(shapes)].name, "yes"
        else:
            used = {s.colour for s in scene.shapes}
            free = [c for c in COLOUR_NAMES if c not in used and c not in _BACKGROUND_COLOURS]
            if not free:
                continue
            name, label = f"{free[k // 2 % len(free)]} {SHAPE_KINDS[k // 2 % 2]}", "no"
        article = "an" if name[0] in "aeiou" else "a"
        rows.append({"question_id": k + 1, "image": image,
                     "text": f"Is there {article} {name} in the image?", "label": label})
    return rows


def demo_scenes(images_dir: Path, seed: int = 0) -> list[tuple[str, Scene]]:
    """(file name, scene) of every `write_demo_images` file in `images_dir`, in id order.

    Each file is checked against its redrawn scene, so the gold answers are true of the pixels
    that are probed: a folder drawn with another seed or size is an error, not wrong labels.
    """
    from PIL import Image

    from halluscope.demo.images import demo_scene, draw_scene

    paths = sorted(p for p in images_dir.glob("*.png") if p.stem.isdigit())
    if not paths:
        raise InputError("no demo images (<id>.png) found", path=images_dir)
    out = []
    for path in paths:
        with Image.open(path) as im:
            pixels = im.convert("RGB")
        scene = demo_scene(int(path.stem) - 1, pixels.size[0], seed)
        if pixels.tobytes() != draw_scene(scene).tobytes():
            raise InputError(f"image is not demo image {int(path.stem)} drawn with seed {seed}",
                             path=path)
        out.append((path.name, scene))
    return out


# ---------------------------------------------------------------------------------------------
# Running and summarising
# ---------------------------------------------------------------------------------------------

def _write_json(path: Path, obj: Any) -> None:
    """Atomic JSON that refuses NaN/inf: an undefined metric must be None with a note."""
    from halluscope.io.atomic import write_text_atomic

    write_text_atomic(path, json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n")


def abstain_notes(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Why a setting's abstention metrics are undefined (None), one line per setting.

    >>> row = {"model": "m", "dataset": "pope", "n": 3, "accuracy": 1.0, "auroc_scalar": None}
    >>> abstain_notes([row])  # doctest: +NORMALIZE_WHITESPACE
    ['m/pope: AUROC undefined (None): all 3 items are correct, so there is no wrong item to
      rank below a correct one']
    """
    notes = []
    for r in rows:
        if r.get("auroc_scalar") is None:
            which = "correct" if r.get("accuracy") == 1.0 else "wrong"
            notes.append(f"{r['model']}/{r['dataset']}: AUROC undefined (None): all {r['n']} "
                         f"items are {which}, so there is no wrong item to rank below a "
                         "correct one")
    return notes


def run_interventions(adapter: VLMAdapter, datasets: Sequence[Any], results: Path, out: Path,
                      model_name: str, config: Any, seed: int) -> dict[str, Any]:
    """`prism intervene` on every probed item (normalised routing, all three corrections and
    the generic prompt), then `prism route-dominance` over the written rows."""
    from halluscope.io.atomic import write_jsonl_atomic
    from halluscope.prism.interventions import InterventionConfig, intervene_all, route_population
    from halluscope.prism.routing import route_dominance

    for ds in datasets:
        routed, _left_out = route_population(ds.items, results / model_name / f"{ds.name}.jsonl",
                                             "normalised")
        rows = intervene_all(adapter, routed, InterventionConfig(probe=config), model_name)
        write_jsonl_atomic(out / model_name / f"{ds.name}.jsonl", rows)
    return route_dominance(out, seed, n_resamples=200)


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def summary_markdown(summary: dict[str, Any]) -> str:
    """The demo's echo: per dataset items, accuracy, mean V/L/A, dominant-source counts."""
    from halluscope.report.markdown import markdown_table

    rows = []
    for p, a, r in zip(summary["profile"], summary["abstain"], summary["routing"]):
        raw, norm = r["raw_counts"], r["normalized_counts"]
        rows.append([p["dataset"], p["n"], _num(p["accuracy"]), _num(p["v_mean"]),
                     _num(p["l_mean"]), _num(p["a_mean"]),
                     "/".join(str(raw[s]) for s in raw), "/".join(str(norm[s]) for s in norm),
                     "/".join(_num(r[arm]["acc"]) for arm in ("none", "generic", "matched")),
                     _num(a["auroc_scalar"]), a["best_source_aware"] or "n/a"])
    ent = summary["entanglement"]
    lines = [
        f"## HalluPrism probes on {summary['model']} (random vision weights: every figure "
        "below is noise; the point is the pipeline)",
        "",
        markdown_table(["dataset", "items", "accuracy", "mean V", "mean L", "mean A",
                        "dominant V/L/A (raw)", "dominant V/L/A (normalised)",
                        "accuracy none/generic/matched", "AUROC scalar", "best source-aware"],
                       rows),
        "",
        f"Entanglement on the VSR items: {ent['total']} diagonal checks pass "
        f"({', '.join(f'{k}-ruined {v}' for k, v in ent['pass_counts'].items())}).",
    ]
    lines += [f"note: {n}" for n in summary["notes"]]
    lines += ["", f"Inputs in {summary['paths']['inputs']}; report in "
              f"{summary['paths']['report_html']} (+ report.md)", ""]
    return "\n".join(lines)


def run_prism_demo(out: str | Path, echo: Callable[[str], None],
                   model: str | Path | VLMAdapter, images_dir: str | Path, *,
                   model_name: str | None = None, n_vsr: int = 6, n_pope: int = 6,
                   batch_size: int = 4, max_new_tokens: int = 16, seed: int = 0
                   ) -> dict[str, Any]:
    """Write the items, probe them, run the analyses and the report under `out`; returns the
    summary written to `out/summary.json`.

    `model` is a model folder or an already loaded adapter (then `model_name` names it);
    `images_dir` holds `write_demo_images` files drawn with `seed`. `max_new_tokens` caps the
    generated probes (the grounding re-check) below the paper's 128 to keep the demo short.
    """
    from halluscope.io.atomic import write_jsonl_atomic
    from halluscope.prism.analysis import abstain, profile
    from halluscope.prism.datasets import load_pope, load_vsr
    from halluscope.prism.entanglement import probe_entanglement, write_entanglement
    from halluscope.prism.probes import ProbeConfig, ProbeStats, load_image, probe_items
    from halluscope.prism.report import write_prism_report

    start = time.perf_counter()
    out, images_dir = Path(out), Path(images_dir)
    if isinstance(model, (str, Path)):
        from halluscope.models import load_adapter

        model_name = model_name or Path(str(model).rstrip("/")).name
        adapter = load_adapter(model)  # `prism probe`'s defaults: dtype auto, CPU
    else:
        adapter = model
    if not model_name:
        raise ValueError("model_name is required with an adapter (it names the results files)")

    scenes = demo_scenes(images_dir, seed)
    inputs = out / "inputs"
    write_jsonl_atomic(inputs / VSR_FILE, vsr_rows(scenes, n_vsr))
    write_jsonl_atomic(inputs / POPE_FILE, pope_rows(scenes, n_pope))
    vsr, pope = load_vsr(inputs / VSR_FILE, images_dir), load_pope(inputs / POPE_FILE, images_dir)
    for ds, wanted in ((vsr, n_vsr), (pope, n_pope)):
        if len(ds.items) < wanted or ds.n_missing_images:
            raise InputError(f"only {len(ds.items)} of {wanted} {ds.name} items could be written "
                             f"({ds.n_missing_images} without image): too few demo images",
                             path=images_dir)

    config = ProbeConfig(batch_size=batch_size, max_new_tokens=max_new_tokens)
    results = out / "results"
    stats = {}
    for ds in (vsr, pope):
        st = ProbeStats()
        rows = list(probe_items(adapter, ds.items, config, model_name, st))
        write_jsonl_atomic(results / model_name / f"{ds.name}.jsonl", rows)
        stats[ds.name] = st.as_dict()

    prof, abst = profile(results), abstain(results)
    notes = abstain_notes(abst["rows"])
    _write_json(out / "profile.json", prof)
    _write_json(out / "abstain.json", {**abst, "notes": notes})
    routing = run_interventions(adapter, (vsr, pope), results, out / "interventions",
                                model_name, config, seed)
    _write_json(out / "routing.json", routing)

    ent = probe_entanglement(adapter, vsr.items, [load_image(it.image) for it in vsr.items],
                             config, model_name, seed)
    ent_paths = write_entanglement(out / "entanglement", ent)
    report = write_prism_report(results, out / "report", out / "interventions",
                                ent_paths["ruined"])

    notes = notes + [f"probes and interventions generate at most {max_new_tokens} tokens "
                     "(the paper: 128)"]
    summary = {
        "model": model_name, "seed": seed, "probe_config": {
            "preset": config.preset, "blank": config.blank, "confidence": config.confidence,
            "max_new_tokens": config.max_new_tokens, "batch_size": config.batch_size},
        "items": {"vsr": [it.as_dict() for it in vsr.items],
                  "pope": [it.as_dict() for it in pope.items]},
        "probe_stats": stats, "profile": prof["rows"],
        "abstain": [{k: v for k, v in r.items() if k != "scores"} for r in abst["rows"]],
        "routing": [{k: v for k, v in r.items() if k != "bootstrap"} for r in routing["rows"]],
        "entanglement": ent["table"], "notes": notes,
        "paths": {"inputs": str(inputs), "results": str(results),
                  "entanglement": str(ent_paths["json"]), "report_html": str(report["html"]),
                  "report_markdown": str(report["markdown"])},
    }
    _write_json(out / "summary.json", summary)
    echo(summary_markdown(summary)
         + f"HalluPrism demo time: {time.perf_counter() - start:.1f} s\n")
    return summary
