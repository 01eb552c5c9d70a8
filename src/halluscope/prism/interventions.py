"""The intervention runner (HalluPrism Sec. 9.4; Tables 5, 35, 36): route each item of a probe
run to its matched correction, run it beside the generic prompt, write released-layout rows.

>>> generic_request(Item("p1", "pope", "i.jpg", "Is there a dog?", "yes", "yesno"), None, "Q?")[1]
'Think step by step about the image and question before answering. Q?'
>>> assign([("m", "vsr", 0.9, 1.0, 0.1), ("m", "vsr", 0.1, 1.0, 0.9)], "normalised")
['visual_enhance', 'cot_grounding']
>>> assign([("m", "vsr", 0.9, 1.0, 0.1), ("m", "vsr", 0.1, 1.0, 0.9)], "raw")
['anti_prior_prompt', 'anti_prior_prompt']

The corrections, with the paper's wording (Appendix 9.4 prints every template; the reference
code's prompts are not released, so none is taken from it):

* `generic`: "Think step by step about the image and question before answering." before the
  item's prompt, for every item (the baseline every table compares with);
* `visual_enhance` (V-dominant): the image upscaled 1.5x with LANCZOS, colour saturation 1.1x,
  sharpness 2.5x; the prompt unchanged;
* `anti_prior_prompt` (L-dominant): "Look at the image very carefully ... ONLY on what you can
  actually see in this specific image." before the prompt;
* `cot_grounding` (A-dominant): grounded answering (describe the image in one sentence, then
  answer); for VSR the relation check ("Follow these steps: 1. ... list the objects ...").

Routing (`--policy`): "normalised", the paper's text (each coordinate z-scored within model x
dataset on the probe run's whole population, the largest z wins: `routing.normalized_dominance`),
or "raw", the released code (argmax(V, L, A), which is L for nearly every item). The routed
correction always runs; `interventions` lists the corrections run on *every* item as well
(default all three), which is what lets `prism route-dominance` score the raw, normalised,
permuted and random policies on the same items, not only the one that was run.

How answers are obtained follows the probes (`probes.py`): a prompt that asks for the bare
label (visual enhancement, anti-prior) is answered by scoring the options in one forward pass;
the generic and grounded prompts ask for reasoning first, so they are generated (greedy, the
128-token cap) and parsed. `ProbeConfig.closed == "generate"` generates every answer (the
reference protocol). The original answer is the probe run's clean answer (same model, same
prompt), so a run costs one pass per correction, not a repeat of the clean probe.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from halluscope.errors import InputError
from halluscope.prism.answers import score
from halluscope.prism.datasets import DATASET_NAMES, TASK_TYPES, Item
from halluscope.prism.probes import (Answer, ProbeConfig, ProbeStats, _Request, answer_requests,
                                     item_prompt, load_image)
from halluscope.prism.routing import INTERVENTIONS, SOURCES, intervention_name, normalized_dominance
from halluscope.registry import Registry

if TYPE_CHECKING:
    from PIL import Image

    from halluscope.generation.backends import GenerationBackend
    from halluscope.models.base import VLMAdapter
    from halluscope.runs.executor import ExecutorConfig

GENERIC_TEMPLATE = "Think step by step about the image and question before answering. {prompt}"
ANTI_PRIOR_TEMPLATE = ("Look at the image very carefully before answering. Do NOT guess based on "
                       "common sense or what is usually true. Base your answer ONLY on what you "
                       "can actually see in this specific image. {prompt}")
GROUNDED_TEMPLATE = ("Look at the image carefully. First, describe what you see in the image in "
                     "one sentence. Then answer the following question based on your "
                     "description. {prompt}")
# The paper prints the steps run together and the labels in curly quotes; the straight quotes
# match the base prompts' spelling of the labels, which the option scorer and parser read.
VSR_RELATION_CHECK_TEMPLATE = (
    "Follow these steps: 1. First, list the objects you can see in the image. 2. Then, describe "
    "the spatial relationship between them. 3. Finally, is this statement true or false: "
    "\"{caption}\" Answer with only 'True' or 'False' on the last line.")
#: Appendix 9.4.2's enhancement.
UPSCALE, SATURATION, SHARPNESS = 1.5, 1.1, 2.5
POLICIES = ("normalised", "raw")

# Each entry builds one correction's request, `(item, image, prompt) -> (image, prompt)`;
# `source` is the signature coordinate it is matched to (None: the generic baseline) and
# `generated` marks a prompt that asks for more than the bare label.
INTERVENTION_REGISTRY = Registry("intervention")
INTERVENTION_REGISTRY.add("generic", f"{__name__}:generic_request", source=None, generated=True)
INTERVENTION_REGISTRY.add("visual_enhance", f"{__name__}:visual_enhance_request",
                          source="visual", generated=False)
INTERVENTION_REGISTRY.add("anti_prior_prompt", f"{__name__}:anti_prior_request",
                          source="language_prior", generated=False)
INTERVENTION_REGISTRY.add("cot_grounding", f"{__name__}:grounding_request", source="alignment",
                          generated=True)


def enhance_image(image: Image.Image) -> Image.Image:
    """Appendix 9.4.2: 1.5x LANCZOS upscale, saturation x1.1, sharpness x2.5.

    >>> from PIL import Image
    >>> enhance_image(Image.new("RGB", (10, 7), (90, 120, 150))).size
    (15, 10)
    """
    from PIL import Image as PILImage
    from PIL import ImageEnhance

    w, h = image.size
    up = image.convert("RGB").resize((round(w * UPSCALE), round(h * UPSCALE)),
                                     PILImage.Resampling.LANCZOS)
    return ImageEnhance.Sharpness(ImageEnhance.Color(up).enhance(SATURATION)).enhance(SHARPNESS)


def generic_request(item: Item, image: Image.Image, prompt: str) -> tuple[Image.Image, str]:
    """The generic reasoning prompt before the item's prompt (example: the module docstring)."""
    return image, GENERIC_TEMPLATE.format(prompt=prompt)


def visual_enhance_request(item: Item, image: Image.Image, prompt: str
                           ) -> tuple[Image.Image, str]:
    """The enhanced image, the prompt unchanged.

    >>> from PIL import Image
    >>> it = Item("p1", "pope", "i.jpg", "Is there a dog?", "yes", "yesno")
    >>> im, p = visual_enhance_request(it, Image.new("RGB", (4, 4)), "Q?"); im.size, p
    ((6, 6), 'Q?')
    """
    return enhance_image(image), prompt


def anti_prior_request(item: Item, image: Image.Image, prompt: str) -> tuple[Image.Image, str]:
    """The anti-prior instruction before the prompt.

    >>> anti_prior_request(Item("p1", "pope", "i.jpg", "Q", "yes", "yesno"), None, "Q?")[1][-39:]
    'actually see in this specific image. Q?'
    """
    return image, ANTI_PRIOR_TEMPLATE.format(prompt=prompt)


def grounding_request(item: Item, image: Image.Image, prompt: str) -> tuple[Image.Image, str]:
    """Grounded answering; for VSR the relation check of the caption.

    >>> vsr = Item("v1", "vsr", "i.jpg", "The cat is on the mat.", "true", "truefalse", "on")
    >>> grounding_request(vsr, None, "unused")[1].split('"')[1]
    'The cat is on the mat.'
    >>> grounding_request(Item("p", "pope", "i", "Q", "yes", "yesno"), None, "Q?")[1][:29]
    'Look at the image carefully. '
    """
    if item.dataset == "vsr":
        return image, VSR_RELATION_CHECK_TEMPLATE.format(caption=item.question)
    return image, GROUNDED_TEMPLATE.format(prompt=prompt)


def _generated(name: str) -> bool:
    return bool(INTERVENTION_REGISTRY.meta(name)["generated"])


def assign(signatures: Sequence[tuple[str, str, float, float, float]], policy: str) -> list[str]:
    """The matched correction of each `(model, dataset, v, l, a)` under a routing policy
    (examples: the module docstring)."""
    from halluscope.prism.analysis import dominant_index

    if policy == "normalised":
        dominant = normalized_dominance(signatures)
    elif policy == "raw":
        dominant = [dominant_index(s[2:]) for s in signatures]
    else:
        raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
    return [INTERVENTIONS[k] for k in dominant]


def parse_interventions(text: str) -> tuple[str, ...]:
    """The `--interventions` list: canonical names in the registry's order; "all" and "none".

    >>> parse_interventions("visual,anti_prior"), parse_interventions("all") == INTERVENTIONS
    (('visual_enhance', 'anti_prior_prompt'), True)
    >>> parse_interventions("none")
    ()
    """
    words = [w.strip() for w in text.split(",") if w.strip()]
    if words == ["all"]:
        return INTERVENTIONS
    names = set()
    for w in words:
        if w in ("none", "generic"):
            continue  # the generic prompt always runs
        try:
            names.add(intervention_name("visual_enhance" if w == "visual" else w))
        except InputError:
            raise ValueError(f"unknown intervention {w!r} (known: generic, "
                             f"{', '.join(INTERVENTIONS)}, all, none)") from None
    return tuple(n for n in INTERVENTIONS if n in names)


# ---------------------------------------------------------------------------------------------
# The routed population (from a probe run)
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Routed:
    """One item of a probe run with its clean answer, signature and routing.

    >>> r = Routed(Item("s", "vsr", "i", "c", "true", "truefalse"), "true", True, 0.9, "True",
    ...            (0.1, 1.0, 0.2), "anti_prior_prompt", "cot_grounding", "cot_grounding")
    >>> r.routed
    'cot_grounding'
    """

    item: Item
    prediction: str
    correct: bool
    confidence: float
    raw_response: str
    scores: tuple[float, float, float]
    raw_choice: str  # argmax(V, L, A)'s correction
    normalized_choice: str  # the normalised dominant source's correction
    routed: str  # the one the policy picked


def read_probe_rows(path: Path) -> dict[str, tuple[int, dict[str, Any]]]:
    """`sample_id -> (line, row)` of a probe run's file, skipped rows left out."""
    from halluscope.prism.results import read_rows

    if not path.is_file():
        raise InputError("probe results not found (run `halluscope prism probe` first)",
                         path=path)
    raw, _stats = read_rows(path)
    return {row["sample_id"]: (line, row) for line, row in raw}


def route_population(items: Sequence[Item], probe_path: Path, policy: str
                     ) -> tuple[list[Routed], dict[str, int]]:
    """The items of `items` that the probe run answered with a full signature, routed under
    `policy` (z-scores over all of them), and counts of those left out (never silently).

    The normalised z-scores use every signed row of the probe file, so a `--limit` run routes
    its items as the full run would.
    """
    from halluscope.prism.results import get_flag, get_text, get_unit

    rows = read_probe_rows(probe_path)
    signed = {sid: (line, row) for sid, (line, row) in rows.items()
              if all(k in row for k in ("v_score", "lp_score", "a_score"))}
    ids = sorted(signed)
    # One probe file is one (model, dataset): the z-scores are over all of its signed rows.
    sigs = [("", "", *(get_unit(signed[s][1], k, probe_path, signed[s][0])
                       for k in ("v_score", "lp_score", "a_score"))) for s in ids]
    choices = {s: (sig[2:], raw, norm) for s, sig, raw, norm in
               zip(ids, sigs, assign(sigs, "raw"), assign(sigs, "normalised"))}
    out: list[Routed] = []
    counts = {"n_not_probed": 0, "n_no_signature": 0}
    for item in items:
        if item.item_id not in rows:
            counts["n_not_probed"] += 1
            continue
        if item.item_id not in signed:
            counts["n_no_signature"] += 1
            continue
        line, row = signed[item.item_id]
        scores, raw, norm = choices[item.item_id]
        prediction = get_text(row, "model_prediction", probe_path, line, nullable=True)
        correct = bool(get_flag(row, "is_correct", probe_path, line))
        out.append(Routed(item, prediction or "", correct,
                          get_unit(row, "scalar_confidence", probe_path, line),
                          str(row.get("raw_response") or ""), scores, raw, norm,
                          raw if policy == "raw" else norm))
    return out, counts


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class InterventionConfig:
    """What to run: the corrections on every item (`interventions`; the generic prompt and the
    routed one always run), the routing policy and the answering settings (`probe`).

    >>> InterventionConfig().interventions == INTERVENTIONS, InterventionConfig().policy
    (True, 'normalised')
    """

    interventions: tuple[str, ...] = INTERVENTIONS
    policy: str = "normalised"
    probe: ProbeConfig = ProbeConfig()

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, not {self.policy!r}")

    def arms(self, routed: Routed) -> list[str]:
        """The corrections one item gets, in registry order."""
        want = {"generic", routed.routed, *self.interventions}
        return [name for name in INTERVENTION_REGISTRY if name in want]


@dataclass(frozen=True)
class InterventionBatch:
    tag: int
    routed: list[Routed]
    requests: list[_Request]
    stats: ProbeStats
    rows: list[dict[str, Any]] = field(default_factory=list)


def _arm_fields(prefix: str, item: Item, answer: Answer) -> dict[str, Any]:
    judged = score(answer.raw if not item.closed else answer.prediction, item.answer_type,
                   item.answer, item.answers)
    return {f"{prefix}_prediction": answer.prediction or None, f"{prefix}_correct": judged.correct,
            f"{prefix}_confidence": answer.confidence, f"{prefix}_raw_response": answer.raw}


def build_intervention_row(routed: Routed, answers: dict[str, Answer], config: InterventionConfig,
                           model_name: str = "") -> dict[str, Any]:
    """One row in the released intervention layout (`matched_*`, `generic_*`, fixed/broke
    flags) plus `<correction>_*` fields for every correction run and both routing choices."""
    item = routed.item
    v, l, a = routed.scores
    source = SOURCES[INTERVENTIONS.index(routed.routed)]
    row: dict[str, Any] = {
        "sample_id": item.item_id, "dataset_name": DATASET_NAMES[item.dataset],
        "task_type": TASK_TYPES[item.dataset], "gold_answer": item.answer,
        "failure_family": item.failure_family_hint, "model": model_name,
        "v_score": v, "lp_score": l, "a_score": a, "dominant_source": source,
        "routing_policy": config.policy,
        "raw_dominant_source": SOURCES[INTERVENTIONS.index(routed.raw_choice)],
        "normalized_dominant_source": SOURCES[INTERVENTIONS.index(routed.normalized_choice)],
        "raw_matched_intervention_type": routed.raw_choice,
        "normalized_matched_intervention_type": routed.normalized_choice,
        "original_prediction": routed.prediction or None, "original_correct": routed.correct,
        "original_confidence": routed.confidence, "original_raw_response": routed.raw_response,
        "matched_intervention_type": routed.routed,
        "closed_mode": config.probe.closed, "confidence_mode": config.probe.confidence,
    }
    for name in INTERVENTION_REGISTRY:
        if name in answers:
            row.update(_arm_fields(name, item, answers[name]))
    for arm, name in (("matched", routed.routed), ("generic", "generic")):
        row.update(_arm_fields(arm, item, answers[name]))
        row[f"{arm}_fixed"] = not routed.correct and row[f"{arm}_correct"]
        row[f"{arm}_broke"] = routed.correct and not row[f"{arm}_correct"]
    return row


@dataclass(frozen=True)
class InterventionJob:
    """Interventions as a `BatchJob` (`halluscope.runs.executor`): a batch is `(tag, pairs)`,
    pairs `(routed, image or None)` (None: read from the item's image path)."""

    model: Any  # a ModelSpec (or anything with .load()); None with a loaded worker
    config: InterventionConfig
    model_name: str = ""
    generator: Any = None  # a BackendSpec for the generated answers (`--backend vllm`)

    def prepare(self, batch: tuple[int, Sequence[tuple[Routed, Image.Image | None]]]
                ) -> InterventionBatch:
        tag, pairs = batch
        reqs = []
        for i, (routed, image) in enumerate(pairs):
            image = image if image is not None else load_image(routed.item.image)
            prompt = item_prompt(routed.item)
            for name in self.config.arms(routed):
                made = INTERVENTION_REGISTRY.load(name)(routed.item, image, prompt)
                reqs.append(_Request(i, name, *made))
        return InterventionBatch(tag, [r for r, _ in pairs], reqs, ProbeStats())

    def load_worker(self) -> InterventionWorker:
        return InterventionWorker(self, self.model.load(),
                                  self.generator.load() if self.generator is not None else None)


class InterventionWorker:
    """Answers a prepared batch (closed options scored together, the rest generated) and
    builds its rows in item order."""

    def __init__(self, job: InterventionJob, adapter: VLMAdapter,
                 generator: GenerationBackend | None = None):
        from halluscope.generation.backends import HFBackend

        self.job, self.adapter = job, adapter
        self.generator = generator or HFBackend(adapter)

    def __call__(self, batch: InterventionBatch) -> InterventionBatch:
        config = self.job.config
        items = [r.item for r in batch.routed]
        answers = answer_requests(self.adapter, batch.requests, items, config.probe, batch.stats,
                                  self.generator, generated=_generated)
        rows = []
        for i, routed in enumerate(batch.routed):
            mine = {name: a for (k, name), a in answers.items() if k == i}
            for name, a in mine.items():
                if not a.prediction:
                    batch.stats.unparsed[name] = batch.stats.unparsed.get(name, 0) + 1
            batch.stats.n_items += 1
            rows.append(build_intervention_row(routed, mine, config, self.job.model_name))
        return InterventionBatch(batch.tag, batch.routed, [], batch.stats, rows)


def intervene_all(model: Any, routed: Sequence[Routed], config: InterventionConfig,
                  model_name: str = "", executor: ExecutorConfig | None = None,
                  on_rows: Callable[[list[dict[str, Any]]], None] | None = None,
                  stats: ProbeStats | None = None, generator: Any = None,
                  images: Sequence[Image.Image | None] | None = None) -> list[dict[str, Any]]:
    """Rows of `routed` in item order, on any executor (`model`: a loaded adapter or a
    `ModelSpec`); `on_rows` gets each batch's rows as they finish, to be written at once."""
    from halluscope.models.spec import ModelSpec
    from halluscope.prism.probes import run_in_order
    from halluscope.runs.executor import ExecutorConfig, check_model_placement

    executor = executor or ExecutorConfig()
    loaded = not isinstance(model, ModelSpec)
    job = InterventionJob(None if loaded else model, config, model_name, generator)
    check_model_placement(executor, loaded)
    worker = None
    if loaded and routed:
        worker = InterventionWorker(job, model, generator.load() if generator else None)
    images = list(images) if images is not None else [None] * len(routed)
    return run_in_order(job, list(zip(routed, images)), config.probe.batch_size, executor,
                        stats if stats is not None else ProbeStats(), on_rows, worker)


def _check_settings(target: Path, config: InterventionConfig) -> None:
    """Resuming must not mix rows routed or answered differently in one file."""
    from halluscope.io.jsonl import read_jsonl
    from halluscope.prism.probe_store import done_ids

    if not done_ids(target):  # (also cuts a torn last line)
        return
    for line, row in read_jsonl(target):
        for key, want in (("routing_policy", config.policy),
                          ("closed_mode", config.probe.closed)):
            if row.get(key) != want:
                raise InputError(f"this file was written with {key}={row.get(key)!r}, the "
                                 f"command asks for {want!r}: use another --out or the same "
                                 f"settings", path=target, line=line)
        return


def intervene_into(target: Path, model: Any, routed: Sequence[Routed],
                   config: InterventionConfig, model_name: str,
                   executor: ExecutorConfig | None = None, shard: Any = None,
                   generator: Any = None) -> dict[str, Any]:
    """Run the corrections of the `routed` items not yet in `target` (resumable, sharded like
    `prism probe`: `probe_store.append_into`). Returns counts and the answering stats."""
    from halluscope.prism.probe_store import append_into
    from halluscope.runs.sharding import Shard

    _check_settings(target, config)
    stats = ProbeStats()

    def run(todo: list[Routed], write: Callable[[list[dict[str, Any]]], None]) -> None:
        intervene_all(model, todo, config, model_name, executor, on_rows=write, stats=stats,
                      generator=generator)

    result = append_into(target, routed, lambda r: r.item.item_id, run, shard or Shard())
    return {**result, "stats": stats}
