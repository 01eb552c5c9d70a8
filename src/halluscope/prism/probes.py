"""Batched HalluPrism probing on any `VLMAdapter`: per-item rows in the released layout.

>>> base_prompt_for("vsr", "The cat is under the table.")[:36]
'Look at the image carefully. Is the '
>>> swap_relation("The cat is at the left side of the dog.", "at the left side of")
'The cat is at the right side of the dog.'
>>> negate_question("Is there a dog in the image?")
'Is there no dog in the image?'

Probes per item (paper Sec. 3, Appendix 9.2): the clean answer, four visual perturbations
(`perturb.py`), a blank image, the grounding re-check prompt, and, where they apply, the VSR
relation swap (P_r of Eq. 6) and the negated yes/no question (the reference code's A probe).
Items whose caption has no swappable relation are counted (`ProbeStats.n_no_relation_swap`).

How answers and confidences are computed (c of Eq. 2, geometric mean of answer-token
probabilities from raw logits, EOS never included):

* Closed answer sets (yes/no, true/false), every probe whose prompt asks for the bare label
  (clean, perturbations, blank, relation swap, negation): the label is not generated. One
  forward pass scores the options: each option's tokens ("Yes"/"No", "True"/"False", as the
  base prompts spell them) are teacher-forced after the prompt and the option with the higher
  total log-probability is the answer. When every option is one token (the usual case) a single
  row per request suffices (the next-token distribution after the prompt); otherwise each
  option is its own row of the same forward pass. Confidence (`ProbeConfig.confidence`):
  "geomean" (default) = the chosen option's geometric-mean token probability, Eq. 2 applied to
  the answer; "two_way" = its share of the options' total probability, exp(lp_a) /
  sum_o exp(lp_o). Scoring the options instead of generating removes the parser from the
  clean answer and makes c comparable across probes; it does not check that the model would
  have stopped after the label.
* The grounding re-check asks for a description first, so it is generated (greedy, up to
  `max_new_tokens`) and its label parsed from the response (`answers.parse_closed`, which
  reads answers at the end). Its confidence is then the label's option score at the point the
  model gave it (the response up to the label is teacher-forced as a prefix, one batched
  forward), so Delta c in P_g compares like with like. An unparsed response keeps the
  geometric mean of its generated tokens as confidence and counts as a flip.
* Open answers (VizWiz) are generated; c is the geometric mean over the generated tokens.
  Generation goes through a `GenerationBackend`: transformers by default, vLLM with
  `--backend vllm` (`ProbeJob.generator`); the closed options are always scored by the
  transformers model, which needs the logits of every option.

Rows carry the released schema's field names (`model_prediction`, `scalar_confidence`,
`v_per_perturbation`, `lp_*`, `cot_*`, `negation_*`, `relation_*`) so `results.probe_set`
reads them and `signature.py` computes (V, L, A); the stored `v_score`/`lp_score`/`a_score` use
the paper preset (`signature_preset`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from halluscope.generation.backends import GeneratedText, GenerationBackend, HFBackend
from halluscope.prism.answers import labels_for, score
from halluscope.prism.datasets import DATASET_NAMES, TASK_TYPES, Item
from halluscope.prism.perturb import PERTURBATION_NAMES, blank_image, perturb
from halluscope.registry import Registry

if TYPE_CHECKING:
    from PIL import Image

    from halluscope.runs.executor import ExecutorConfig

    from halluscope.models.base import VLMAdapter

# The probes, in the order they are run and written. Each entry's target builds the probe's
# request for one item, `(item, image, clean_prompt, config, stats, name) -> (image, prompt) |
# None` (None: the probe does not apply to the item); `family` is the signature component it
# feeds (HalluPrism's V, L, A), `row_prefix` the released schema's field prefix of its answer and
# `generated` marks a probe whose answer is generated and parsed even on closed items (its
# prompt asks for more than the label).
PROBE_REGISTRY = Registry("probe")
PROBE_REGISTRY.add("clean", f"{__name__}:clean_request", family="", row_prefix="")
for _name in PERTURBATION_NAMES:
    PROBE_REGISTRY.add(_name, f"{__name__}:visual_request", family="V", row_prefix="")
PROBE_REGISTRY.add("blank", f"{__name__}:blank_request", family="L", row_prefix="lp")
PROBE_REGISTRY.add("grounding", f"{__name__}:grounding_request", family="L", row_prefix="cot",
                   generated=True)
PROBE_REGISTRY.add("relation", f"{__name__}:relation_request", family="A",
                   row_prefix="relation")
PROBE_REGISTRY.add("negation", f"{__name__}:negation_request", family="A",
                   row_prefix="negation")
PROBES: tuple[str, ...] = tuple(PROBE_REGISTRY)
#: How each closed label is spelled when scored (the base prompts' spelling).
SURFACES = {"yes": "Yes", "no": "No", "true": "True", "false": "False"}
CONFIDENCE_MODES = ("geomean", "two_way")
CLOSED_MODES = ("score", "generate")

# Appendix 9.1 base prompts and Appendix 9.2.3 grounding re-check.
_YES_NO_PROMPT = "{question} Answer with only 'Yes' or 'No'."
_VSR_PROMPT = ("Look at the image carefully. Is the following statement true or false? "
               "Statement: \"{caption}\" Answer with only 'True' or 'False'.")
_VIZWIZ_PROMPT = ("{question} If the image is too unclear to answer, or the question cannot be "
                  "answered from the image, say 'unanswerable'. Otherwise, give a short answer "
                  "(one or two words).")
_GROUNDING_PROMPT = ("Look at the image carefully. First, describe what you see in the image in "
                     "one sentence. Then answer the following question. {prompt}")

# Relation swaps for VSR captions (directed: the swap of the relation as the caption states it).
# Relations with no spatial opposite ("touching", "contains", "part of") are left unswapped.
RELATION_SWAPS: dict[str, str] = {
    "left of": "right of", "right of": "left of",
    "at the left side of": "at the right side of", "at the right side of": "at the left side of",
    "above": "below", "below": "above", "over": "under", "under": "on top of",
    "beneath": "above", "on top of": "under", "on": "under", "in front of": "behind",
    "behind": "in front of", "ahead of": "behind", "at the back of": "in front of",
    "inside": "outside", "in": "outside", "out of": "in", "facing": "facing away from",
    "facing away from": "facing", "near": "far from", "close to": "far from",
    "next to": "far from", "beside": "far from", "by": "far from", "far from": "next to",
    "far away from": "next to", "away from": "next to",
}


def base_prompt_for(dataset: str, question: str) -> str:
    """The Appendix 9.1 base prompt of a dataset's question (or VSR caption).

    >>> base_prompt_for("pope", "Is there a cat in the image?")
    "Is there a cat in the image? Answer with only 'Yes' or 'No'."
    """
    if dataset in ("pope", "hallusionbench"):
        return _YES_NO_PROMPT.format(question=question)
    if dataset == "vsr":
        return _VSR_PROMPT.format(caption=question)
    if dataset == "vizwiz":
        return _VIZWIZ_PROMPT.format(question=question)
    raise ValueError(f"no base prompt for dataset {dataset!r}")


def grounding_prompt(prompt: str) -> str:
    """Appendix 9.2.3 grounding re-check around the original prompt.

    >>> grounding_prompt("Q?").endswith("Then answer the following question. Q?")
    True
    """
    return _GROUNDING_PROMPT.format(prompt=prompt)


def swap_relation(caption: str, relation: str | None) -> str | None:
    """The caption with its spatial relation swapped, or None when there is none to swap.

    >>> swap_relation("The dog is on the surfboard.", "on")
    'The dog is under the surfboard.'
    >>> swap_relation("The cup is touching the plate.", "touching") is None
    True
    >>> swap_relation("The bus is behind the car.", None)
    'The bus is in front of the car.'

    With no stated relation the longest known relation phrase found in the caption is used.
    """
    candidates = [relation] if relation else sorted(RELATION_SWAPS, key=len, reverse=True)
    for rel in candidates:
        target = RELATION_SWAPS.get(rel.lower().strip())
        if target is None:
            continue
        pattern = re.compile(r"\b" + re.escape(rel.strip()) + r"\b", re.IGNORECASE)
        if pattern.search(caption):
            return pattern.sub(target, caption, count=1)
    return None


def invert_polarity(question: str) -> str | None:
    """The existence question with its polarity inverted, or None when it is not one.

    >>> invert_polarity("Is there a dog in the image?"), invert_polarity("Is there no dog here?")
    ('Is there no dog in the image?', 'Is there any dog here?')
    >>> invert_polarity("Is the red line longer than the blue line?") is None
    True

    "Is/Are there (a|an|any) X" becomes "... there no X" and "... there no X" becomes
    "... there any X", so inverting twice asks the original question again.
    """
    inverted, n = re.subn(r"^(is|are)\s+there\s+no\s+", r"\1 there any ", question, count=1,
                          flags=re.IGNORECASE)
    if n:
        return inverted
    inverted, n = re.subn(r"^(is|are)\s+there\s+(?:(?:any|an|a)\s+)?", r"\1 there no ",
                          question, count=1, flags=re.IGNORECASE)
    return inverted if n else None


def negate_question(question: str) -> str:
    """A yes/no question whose correct answer is the opposite one.

    >>> negate_question("Are there any people in the photo?")
    'Are there no people in the photo?'
    >>> negate_question("Is the red line longer than the blue line?")
    "Is the answer to the following question 'No'? Is the red line longer than the blue line?"

    Existence questions are inverted (`invert_polarity`); other questions are wrapped so that
    the expected answer flips without rewriting their grammar.
    """
    inverted = invert_polarity(question)
    if inverted is not None:
        return inverted
    return f"Is the answer to the following question 'No'? {question}"


def item_prompt(item: Item, question: str | None = None) -> str:
    """The prompt of an item (or of another question in the item's frame): the item's
    `prompt_template` with `{question}` filled in, else the dataset's base prompt.

    >>> it = Item("x", "vsr", "i.jpg", "What is the capital city of France?", "true", "truefalse",
    ...           prompt_template="{question} Answer with only 'True' or 'False'.")
    >>> item_prompt(it)
    "What is the capital city of France? Answer with only 'True' or 'False'."
    """
    text = item.question if question is None else question
    if item.prompt_template is not None:
        # str.replace, not str.format: a question may contain braces.
        return item.prompt_template.replace("{question}", text)
    return base_prompt_for(item.dataset, text)


@dataclass(frozen=True)
class ProbeConfig:
    """Probe settings.

    >>> ProbeConfig().preset, ProbeConfig().confidence
    ('default', 'geomean')
    """

    preset: str = "default"  # perturbation strengths (Table 12)
    blank: str = "same"  # "same" size as the original, or the reference's 384x384 "reference"
    confidence: str = "geomean"  # closed sets: "geomean" or "two_way"
    max_new_tokens: int = 128  # the paper's cap
    batch_size: int = 8
    probes: tuple[str, ...] = PROBES
    # Closed answers: "score" the options (halluscope's default, no parser), or "generate" them
    # as the reference protocol does (greedy, `max_new_tokens`, parsed; c over every generated
    # token, the EOS included), to reproduce the released signatures' way of answering.
    closed: str = "score"

    def __post_init__(self) -> None:
        if self.confidence not in CONFIDENCE_MODES:
            raise ValueError(f"confidence must be one of {CONFIDENCE_MODES}, "
                             f"not {self.confidence!r}")
        if self.batch_size < 1 or self.max_new_tokens < 1:
            raise ValueError("batch_size and max_new_tokens must be at least 1")
        if self.closed not in CLOSED_MODES:
            raise ValueError(f"closed must be one of {CLOSED_MODES}, not {self.closed!r}")
        unknown = set(self.probes) - set(PROBES)
        if unknown or "clean" not in self.probes:
            raise ValueError(f"probes must include 'clean' and come from {PROBES}")


@dataclass
class ProbeStats:
    """Counts over a probing run.

    >>> ProbeStats().as_dict()["n_no_relation_swap"]
    0
    """

    n_items: int = 0
    n_no_relation_swap: int = 0
    n_negated: int = 0
    n_forward_rows: int = 0
    n_generated: int = 0
    unparsed: dict[str, int] = field(default_factory=dict)

    def add(self, other: ProbeStats) -> None:
        """Add another batch's counts (a worker's, on Ray) to these."""
        for name in ("n_items", "n_no_relation_swap", "n_negated", "n_forward_rows",
                     "n_generated"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for probe, n in other.unparsed.items():
            self.unparsed[probe] = self.unparsed.get(probe, 0) + n

    def as_dict(self) -> dict[str, Any]:
        return {"n_items": self.n_items, "n_no_relation_swap": self.n_no_relation_swap,
                "n_negated": self.n_negated, "n_forward_rows": self.n_forward_rows,
                "n_generated": self.n_generated, "unparsed": dict(self.unparsed)}


@dataclass(frozen=True)
class Answer:
    """One probe's answer: raw text, normalised prediction ('' if unparsed), confidence."""

    raw: str
    prediction: str
    confidence: float
    option_logprobs: tuple[float, ...] = ()


@dataclass(frozen=True)
class OptionScores:
    """Total log-probability and token count of each option, in the order given."""

    logprobs: tuple[float, ...]
    n_tokens: tuple[int, ...]

    def best(self) -> int:
        return max(range(len(self.logprobs)), key=lambda i: self.logprobs[i])

    def confidence(self, index: int, mode: str = "geomean") -> float:
        """Geometric-mean token probability of option `index`, or its two-way share.

        >>> s = OptionScores((math.log(0.6), math.log(0.2)), (1, 1))
        >>> round(s.confidence(0), 6), round(s.confidence(0, "two_way"), 6)
        (0.6, 0.75)
        """
        if mode == "two_way":
            top = max(self.logprobs)
            total = sum(math.exp(lp - top) for lp in self.logprobs)
            return math.exp(self.logprobs[index] - top) / total
        return math.exp(self.logprobs[index] / max(self.n_tokens[index], 1))


# ---------------------------------------------------------------------------------------------
# Model-side primitives (torch is imported inside)
# ---------------------------------------------------------------------------------------------

def _option_ids(adapter: VLMAdapter, surface: str, prefix_ids: Sequence[int],
                prefix: str) -> list[int]:
    if not prefix_ids:
        return adapter.tokenize_caption(surface)[0]
    space = " " if prefix and not prefix[-1].isspace() else ""
    return list(adapter.tokenizer(space + surface, add_special_tokens=False)["input_ids"])


def score_options(adapter: VLMAdapter, images: Sequence[Image.Image], prompts: Sequence[str],
                  options: Sequence[Sequence[str]], prefixes: Sequence[str] | None = None,
                  stats: ProbeStats | None = None) -> list[OptionScores]:
    """Total log-probability of each option after each (image, prompt[, response prefix]), in one
    forward pass.

    Left padding puts every scored token at the end of its row, so only the last K positions
    go through the LM head (`logits_to_keep`), K = longest option + 1.
    """
    import torch

    n = len(prompts)
    prefix_texts = list(prefixes) if prefixes is not None else [""] * n
    prefix_ids = [adapter.tokenize_caption(p)[0] if p else [] for p in prefix_texts]
    opt_ids = [[_option_ids(adapter, s, prefix_ids[i], prefix_texts[i]) for s in options[i]]
               for i in range(n)]
    single = all(len(ids) == 1 for row in opt_ids for ids in row)
    if single:
        # One row per request: the next-token distribution after prompt (+ prefix) scores all
        # single-token options at once.
        rows_img, rows_prompt, rows_cap = list(images), list(prompts), prefix_ids
        keep = 1
    else:
        rows_img, rows_prompt, rows_cap = [], [], []
        for i in range(n):
            for ids in opt_ids[i]:
                rows_img.append(images[i])
                rows_prompt.append(prompts[i])
                rows_cap.append(prefix_ids[i] + ids)
        keep = max(len(ids) for row in opt_ids for ids in row) + 1
    captions = rows_cap if any(rows_cap) else None
    batch = adapter.encode(rows_img, rows_prompt, captions, padding_side="left")
    with torch.no_grad():
        out = adapter.model(**batch.inputs, logits_to_keep=keep)
    logp = torch.log_softmax(out.logits[:, -keep:].float(), dim=-1)
    if stats is not None:
        stats.n_forward_rows += len(rows_prompt)
    results: list[OptionScores] = []
    row = 0
    for i in range(n):
        lps, counts = [], []
        for ids in opt_ids[i]:
            if single:
                lps.append(float(logp[i, -1, ids[0]]))
            else:
                m = len(ids)
                # Position -1 predicts the token after the row; option token j sits at -(m - j)
                # and is predicted from position -(m - j) - 1.
                lps.append(float(sum(logp[row, keep - m - 1 + j, t] for j, t in enumerate(ids))))
                row += 1
            counts.append(len(ids))
        results.append(OptionScores(tuple(lps), tuple(counts)))
    return results


def generation_confidence(generated: GeneratedText, include_eos: bool = False) -> float:
    """Geometric-mean probability of the generated tokens (log-probabilities from the raw
    logits), the closing EOS excluded unless `include_eos` (the reference protocol's c);
    0.0 for an empty answer.

    >>> import math
    >>> g = GeneratedText([5, 6, 2], "a b", [math.log(0.5), math.log(0.2), math.log(0.9)], "eos")
    >>> round(generation_confidence(g), 4), round(generation_confidence(g, include_eos=True), 4)
    (0.3162, 0.4481)
    """
    drop_eos = generated.finish_reason == "eos" and not include_eos
    logprobs = generated.logprobs[:-1] if drop_eos else generated.logprobs
    if not logprobs:
        return 0.0
    return math.exp(sum(logprobs) / len(logprobs))


def _label_position(text: str, label: str, leading: bool) -> tuple[int, str]:
    """Character offset and spelling of the label occurrence the parser read."""
    hits = list(re.finditer(r"\b" + re.escape(label) + r"\b", text, re.IGNORECASE))
    if not hits:
        return len(text), SURFACES[label]
    hit = hits[0] if leading else hits[-1]
    return hit.start(), hit.group(0)


# ---------------------------------------------------------------------------------------------
# Probing
# ---------------------------------------------------------------------------------------------

@dataclass
class _Request:
    item: int
    probe: str
    image: Any
    prompt: str


def load_image(path: str) -> Image.Image:
    """An RGB PIL image from a file."""
    from PIL import Image as PILImage

    with PILImage.open(path) as im:
        return im.convert("RGB")


def build_requests(item: Item, image: Image.Image, config: ProbeConfig, index: int,
                   stats: ProbeStats) -> list[_Request]:
    """The probe requests of one item (images perturbed per item, so batching cannot change them).

    >>> from PIL import Image
    >>> it = Item("vsr_dev_000000", "vsr", "x.jpg", "The cat is on the mat.", "true", "truefalse", "on")
    >>> [r.probe for r in build_requests(it, Image.new("RGB", (8, 8)), ProbeConfig(), 0, ProbeStats())]
    ['clean', 'blur_heavy', 'crop_aggressive', 'brightness_low', 'noise', 'blank', 'grounding', 'relation']
    """
    prompt = item_prompt(item)
    want = set(config.probes)
    reqs = []
    for name in PROBES:
        if name in want:
            made = PROBE_REGISTRY.load(name)(item, image, prompt, config, stats, name)
            if made is not None:
                reqs.append(_Request(index, name, *made))
    return reqs


def clean_request(item: Item, image: Image.Image, prompt: str, config: ProbeConfig,
                  stats: ProbeStats, name: str) -> tuple[Image.Image, str] | None:
    """The clean probe: the item's own image and prompt.

    >>> from PIL import Image
    >>> item = Item("p1", "pope", "i.jpg", "Is there a dog in the image?", "yes", "yesno")
    >>> clean_request(item, Image.new("RGB", (8, 8)), "Q?", ProbeConfig(), ProbeStats(), "clean")[1]
    'Q?'
    """
    return image, prompt


def visual_request(item: Item, image: Image.Image, prompt: str, config: ProbeConfig,
                   stats: ProbeStats, name: str) -> tuple[Image.Image, str] | None:
    """A V probe: the image perturbed by `name` (Table 12's strengths), the prompt unchanged.

    >>> from PIL import Image
    >>> item = Item("p1", "pope", "i.jpg", "Is there a dog in the image?", "yes", "yesno")
    >>> grey = Image.new("RGB", (8, 8), (100, 100, 100))
    >>> visual_request(item, grey, "Q?", ProbeConfig(), ProbeStats(), "brightness_low")[0].getpixel((0, 0))
    (30, 30, 30)
    """
    # Perturbed per item (the noise is seeded by the item id), so batching cannot change it.
    return perturb(image, name, item.item_id, config.preset), prompt


def blank_request(item: Item, image: Image.Image, prompt: str, config: ProbeConfig,
                  stats: ProbeStats, name: str) -> tuple[Image.Image, str] | None:
    """The L probe without visual evidence: a uniform grey canvas, the prompt unchanged.

    >>> from PIL import Image
    >>> item = Item("p1", "pope", "i.jpg", "Is there a dog in the image?", "yes", "yesno")
    >>> blank, _ = blank_request(item, Image.new("RGB", (50, 20), "red"), "Q?", ProbeConfig(),
    ...                          ProbeStats(), "blank")
    >>> blank.size, blank.getpixel((0, 0))
    ((50, 20), (128, 128, 128))
    """
    return blank_image(image, config.blank), prompt


def grounding_request(item: Item, image: Image.Image, prompt: str, config: ProbeConfig,
                      stats: ProbeStats, name: str) -> tuple[Image.Image, str] | None:
    """The L probe that re-checks grounding: describe the image first, then answer.

    >>> from PIL import Image
    >>> item = Item("p1", "pope", "i.jpg", "Is there a dog in the image?", "yes", "yesno")
    >>> grounding_request(item, Image.new("RGB", (8, 8)), "Q?", ProbeConfig(), ProbeStats(),
    ...                   "grounding")[1][:49]
    'Look at the image carefully. First, describe what'
    """
    return image, grounding_prompt(prompt)


def relation_request(item: Item, image: Image.Image, prompt: str, config: ProbeConfig,
                     stats: ProbeStats, name: str) -> tuple[Image.Image, str] | None:
    """The A probe of VSR (P_r of Eq. 6): the caption's relation swapped; None (and counted)
    when the item is not VSR or its relation has no opposite.

    >>> from PIL import Image
    >>> stats, image = ProbeStats(), Image.new("RGB", (8, 8))
    >>> vsr = Item("v1", "vsr", "i.jpg", "The cat is under the table.", "true", "truefalse", "under")
    >>> relation_request(vsr, image, "", ProbeConfig(), stats, "relation")[1].split('"')[1]
    'The cat is on top of the table.'
    >>> touching = Item("v2", "vsr", "i.jpg", "The cup is touching the plate.", "true", "truefalse",
    ...                 "touching")
    >>> relation_request(touching, image, "", ProbeConfig(), stats, "relation"), stats.n_no_relation_swap
    (None, 1)
    """
    if item.dataset != "vsr":
        return None
    swapped = swap_relation(item.question, item.relation)
    if swapped is None:
        stats.n_no_relation_swap += 1
        return None
    return image, item_prompt(item, swapped)


def negation_request(item: Item, image: Image.Image, prompt: str, config: ProbeConfig,
                     stats: ProbeStats, name: str) -> tuple[Image.Image, str] | None:
    """The A probe of yes/no items: the question negated, so the right answer flips; None for
    other answer types.

    >>> from PIL import Image
    >>> item = Item("p1", "pope", "i.jpg", "Is there a dog in the image?", "yes", "yesno")
    >>> negation_request(item, Image.new("RGB", (8, 8)), "", ProbeConfig(), ProbeStats(),
    ...                  "negation")[1]
    "Is there no dog in the image? Answer with only 'Yes' or 'No'."
    """
    if item.answer_type != "yesno":
        return None
    stats.n_negated += 1
    return image, item_prompt(item, negate_question(item.question))


def _chunks(seq: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(seq), size):
        yield seq[start:start + size]


def _run_closed(adapter: VLMAdapter, reqs: list[_Request], items: Sequence[Item],
                config: ProbeConfig, stats: ProbeStats) -> dict[tuple[int, str], Answer]:
    out: dict[tuple[int, str], Answer] = {}
    for chunk in _chunks(reqs, config.batch_size):
        labels = [labels_for(items[r.item].answer_type) for r in chunk]
        scores = score_options(adapter, [r.image for r in chunk], [r.prompt for r in chunk],
                               [[SURFACES[lab] for lab in labs] for labs in labels], stats=stats)
        for r, labs, s in zip(chunk, labels, scores):
            k = s.best()
            out[(r.item, r.probe)] = Answer(SURFACES[labs[k]], labs[k],
                                            s.confidence(k, config.confidence), s.logprobs)
    return out


def _run_generated(adapter: VLMAdapter, generator: GenerationBackend, reqs: list[_Request],
                   items: Sequence[Item], config: ProbeConfig,
                   stats: ProbeStats) -> dict[tuple[int, str], Answer]:
    from halluscope.prism.answers import parse_answer

    out: dict[tuple[int, str], Answer] = {}
    rescore: list[tuple[_Request, str, str, str]] = []  # request, label, prefix, surface
    for chunk in _chunks(reqs, config.batch_size):
        gens = generator.generate([r.image for r in chunk], [r.prompt for r in chunk],
                                  max_new_tokens=config.max_new_tokens)
        stats.n_generated += len(chunk)
        for r, g in zip(chunk, gens):
            item = items[r.item]
            conf = generation_confidence(g, include_eos=config.closed == "generate")
            pred = parse_answer(g.text, item.answer_type)
            out[(r.item, r.probe)] = Answer(g.text, pred, conf)
            if item.closed and pred and config.closed == "score":
                # A label the response starts with is the one read; otherwise the last one.
                leading = bool(re.match(r"^[\s\W]*" + pred + r"\b", g.text, re.IGNORECASE))
                pos, spelled = _label_position(g.text, pred, leading)
                rescore.append((r, pred, g.text[:pos], spelled))
    # The label's confidence where the model stated it: the response up to the label is the
    # prefix, the options are scored after it (spelled with the case the model used).
    for chunk in _chunks(rescore, config.batch_size):
        opts = []
        for r, pred, _, spelled in chunk:
            labs = labels_for(items[r.item].answer_type)
            cased = [(lab.capitalize() if spelled[:1].isupper() else lab) for lab in labs]
            opts.append(cased)
        scores = score_options(adapter, [c[0].image for c in chunk], [c[0].prompt for c in chunk],
                               opts, prefixes=[c[2] for c in chunk], stats=stats)
        for (r, pred, _, _), s in zip(chunk, scores):
            labs = labels_for(items[r.item].answer_type)
            k = labs.index(pred)
            prev = out[(r.item, r.probe)]
            out[(r.item, r.probe)] = Answer(prev.raw, pred, s.confidence(k, config.confidence),
                                            s.logprobs)
    return out


def answer_requests(adapter: VLMAdapter, reqs: list[_Request], items: Sequence[Item],
                    config: ProbeConfig, stats: ProbeStats,
                    generator: GenerationBackend | None = None,
                    generated: Callable[[str], bool] | None = None
                    ) -> dict[tuple[int, str], Answer]:
    """The answers of built requests: closed labels scored by `adapter`, the others generated
    by `generator` (default: `adapter` through transformers; `--backend vllm`: vLLM).
    `generated(name)` says which request names ask for more than the bare label (default: the
    probes flagged `generated` in `PROBE_REGISTRY`); `config.closed == "generate"` generates all.
    """
    if generated is None:
        generated = lambda name: bool(PROBE_REGISTRY.meta(name).get("generated"))  # noqa: E731

    def scored(r: _Request) -> bool:  # a closed item whose prompt asks for the bare label
        return config.closed == "score" and items[r.item].closed and not generated(r.probe)

    closed = [r for r in reqs if scored(r)]
    generated = [r for r in reqs if not scored(r)]
    answers = _run_closed(adapter, closed, items, config, stats)
    answers.update(_run_generated(adapter, generator or HFBackend(adapter), generated, items,
                                  config, stats))
    return answers


def _flipped(a: str, b: str) -> bool:
    return not (a and a == b)


def build_row(item: Item, answers: dict[str, Answer], config: ProbeConfig,
              model_name: str = "") -> dict[str, Any]:
    """One released-layout row from an item's probe answers, with (V, L, A) computed by
    `signature.py` from the row's own raw fields."""
    from halluscope.prism.results import probe_set
    from halluscope.prism.signature import paper_signature

    clean = answers["clean"]
    judged = score(clean.raw if not item.closed else clean.prediction, item.answer_type,
                   item.answer, item.answers)
    c = clean.confidence
    row: dict[str, Any] = {
        "dataset_name": DATASET_NAMES[item.dataset], "sample_id": item.item_id,
        "image_path": item.image, "text_input": item.question, "gold_answer": item.answer,
        "task_type": TASK_TYPES[item.dataset], "failure_family": item.failure_family_hint,
        "relation": item.relation, "pope_split": item.split, "subcategory": item.subcategory,
        "answerable": item.answerable, "model": model_name,
        "model_prediction": clean.prediction, "raw_response": clean.raw,
        "scalar_confidence": c, "is_correct": judged.correct, "is_parsed": judged.parsed,
        "vqa_accuracy": judged.accuracy if item.answer_type == "open" else None,
        "v_preset": config.preset, "confidence_mode": config.confidence,
        "blank_mode": config.blank, "closed_mode": config.closed,
    }
    per = {}
    for name in PERTURBATION_NAMES:
        if name in answers:
            a = answers[name]
            per[name] = {"prediction": a.prediction, "confidence": a.confidence,
                         "flipped": _flipped(clean.prediction, a.prediction),
                         "confidence_delta": abs(c - a.confidence), "raw_response": a.raw}
    row["v_per_perturbation"] = per
    row["v_n_perturbations"] = len(per)
    if per:
        row["v_flip_rate"] = sum(p["flipped"] for p in per.values()) / len(per)
        row["v_confidence_shift"] = sum(p["confidence_delta"] for p in per.values()) / len(per)
    for name in PROBES:
        prefix = PROBE_REGISTRY.meta(name)["row_prefix"]
        if prefix and name in answers:
            a = answers[name]
            row.update({f"{prefix}_prediction": a.prediction, f"{prefix}_raw_response": a.raw,
                        f"{prefix}_confidence": a.confidence})
            # The released schema's two comparisons with the clean answer.
            if name == "blank":
                row["lp_answer_matches"] = not _flipped(clean.prediction, a.prediction)
            elif name == "grounding":
                row["cot_flipped"] = _flipped(clean.prediction, a.prediction)
    if per and "blank" in answers and "grounding" in answers and \
            (row["task_type"] != "yes_no" or "negation_prediction" in row):
        sig = paper_signature(probe_set(row, f"{model_name}/{item.dataset}", 0))
        from halluscope.prism.analysis import dominant_index
        from halluscope.prism.routing import SOURCES

        row.update(v_score=sig.v, lp_score=sig.l_conf, a_score=sig.a, l_persist=sig.l_persist,
                   l_match=sig.l_match, l_stable=sig.l_stable, signature_preset="paper",
                   # The raw argmax only: the normalised source z-scores over the whole file,
                   # which a row appended mid-run cannot know (`prism intervene` writes both).
                   dominant_source=SOURCES[dominant_index((sig.v, sig.l_conf, sig.a))])
    return row


def skipped_row(item: Item, reason: str = "[skipped_no_image]") -> dict[str, Any]:
    """A row for an item that could not be probed (results.py counts and drops these).

    >>> skipped_row(Item("a", "vsr", "x", "q", "true", "truefalse"))["skipped"]
    True
    """
    return {"dataset_name": DATASET_NAMES[item.dataset], "sample_id": item.item_id,
            "image_path": item.image, "text_input": item.question, "gold_answer": item.answer,
            "task_type": TASK_TYPES[item.dataset], "model_prediction": reason, "skipped": True}


@dataclass(frozen=True)
class ProbeBatch:
    """A batch on its way through a `ProbeJob`: the items, their built requests (images
    perturbed on the CPU side) and, once answered, the rows; `stats` counts both steps."""

    tag: int  # the batch's number, so results arriving out of order can be put back
    items: list[Item]
    requests: list[_Request]
    stats: ProbeStats
    rows: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class ProbeJob:
    """Probing as a `BatchJob` (`halluscope.runs.executor`): a batch is `(tag, pairs)`, pairs
    `(item, image or None)` (None: read from `item.image`). `model` is loaded by each worker."""

    model: Any  # a ModelSpec (or anything with .load() -> VLMAdapter); None with a loaded worker
    config: ProbeConfig
    model_name: str = ""
    # Open answers through another engine (`BackendSpec("vllm", ...)`); the options of closed
    # answers are still scored by `model`, which also rescores a generated label.
    generator: Any = None

    def prepare(self, batch: tuple[int, Sequence[tuple[Item, Image.Image | None]]]
                ) -> ProbeBatch:
        tag, pairs = batch
        stats = ProbeStats()
        items = [item for item, _ in pairs]
        reqs = [r for i, (item, image) in enumerate(pairs)
                for r in build_requests(item, image if image is not None else
                                        load_image(item.image), self.config, i, stats)]
        return ProbeBatch(tag, items, reqs, stats)

    def load_worker(self) -> ProbeWorker:
        return ProbeWorker(self, self.model.load(),
                           self.generator.load() if self.generator is not None else None)


class ProbeWorker:
    """Answers a prepared batch's requests and builds its rows, in item order."""

    def __init__(self, job: ProbeJob, adapter: VLMAdapter,
                 generator: GenerationBackend | None = None):
        self.job, self.adapter = job, adapter
        self.generator = generator or HFBackend(adapter)

    def __call__(self, batch: ProbeBatch) -> ProbeBatch:
        stats, config = batch.stats, self.job.config
        answers = answer_requests(self.adapter, batch.requests, batch.items, config, stats,
                                  self.generator)
        rows = []
        for i, item in enumerate(batch.items):
            per_item = {probe: a for (k, probe), a in answers.items() if k == i}
            for probe, a in per_item.items():
                if not a.prediction:
                    stats.unparsed[probe] = stats.unparsed.get(probe, 0) + 1
            stats.n_items += 1
            rows.append(build_row(item, per_item, config, self.job.model_name))
        return ProbeBatch(batch.tag, batch.items, [], stats, rows)


def probe_all(model: Any, items: Sequence[Item], images: Sequence[Image.Image | None],
              config: ProbeConfig, model_name: str = "",
              executor: ExecutorConfig | None = None,
              on_rows: Callable[[list[dict[str, Any]]], None] | None = None,
              stats: ProbeStats | None = None,
              generator: Any = None) -> list[dict[str, Any]]:
    """Rows of `items` in item order, on any executor (`model`: an adapter, or a `ModelSpec`
    that each worker loads). `images[i]` None is read from `items[i].image`. `on_rows` gets
    each batch's rows as they come (in the order batches finish), to be written at once.
    `generator`, a `BackendSpec` loaded where the work runs, generates the open answers
    instead of `model` (`--backend vllm`).
    """
    from halluscope.models.spec import ModelSpec
    from halluscope.runs.executor import ExecutorConfig, check_model_placement

    executor = executor or ExecutorConfig()
    stats = stats if stats is not None else ProbeStats()
    loaded = not isinstance(model, ModelSpec)
    job = ProbeJob(None if loaded else model, config, model_name, generator)
    check_model_placement(executor, loaded)
    worker = None
    if loaded and items:
        worker = ProbeWorker(job, model, generator.load() if generator is not None else None)
    return run_in_order(job, list(zip(items, images)), config.batch_size, executor, stats,
                        on_rows, worker)


def run_in_order(job: Any, pairs: Sequence[Any], batch_size: int, executor: ExecutorConfig,
                 stats: ProbeStats, on_rows: Callable[[list[dict[str, Any]]], None] | None,
                 worker: Any = None) -> list[dict[str, Any]]:
    """`pairs` in batches of `batch_size` through a batch job (`ProbeJob`, `InterventionJob`)
    on `executor`; each result's stats added to `stats` and its rows passed to `on_rows` as
    they finish; returns all rows in input order (batches carry their start as a tag)."""
    from halluscope.runs.executor import run_batches

    batches = [(start, list(pairs[start:start + batch_size]))
               for start in range(0, len(pairs), batch_size)]
    done: dict[int, list[dict[str, Any]]] = {}

    def collect(result: Any) -> None:
        stats.add(result.stats)
        done[result.tag] = result.rows
        if on_rows is not None:
            on_rows(result.rows)

    run_batches(job, batches, executor, collect, worker=worker)
    return [row for tag in sorted(done) for row in done[tag]]


def probe_items(adapter: VLMAdapter, items: Sequence[Item], config: ProbeConfig | None = None,
                model_name: str = "", stats: ProbeStats | None = None,
                load: Callable[[str], Image.Image] = load_image,
                images: Sequence[Image.Image] | None = None) -> Iterator[dict[str, Any]]:
    """Rows of all probes for `items`, yielded in item order, `config.batch_size` items at a time
    (so a caller can write them as they come and resume after a stop).

    `images` (same order as `items`) overrides loading from `Item.image`.
    """
    config = config or ProbeConfig()
    stats = stats if stats is not None else ProbeStats()
    job = ProbeJob(None, config, model_name)
    worker = ProbeWorker(job, adapter)
    for start in range(0, len(items), config.batch_size):
        chunk = list(items[start:start + config.batch_size])
        imgs = (list(images[start:start + len(chunk)]) if images is not None
                else [load(it.image) for it in chunk])
        done = worker(job.prepare((start, list(zip(chunk, imgs)))))
        stats.add(done.stats)
        yield from done.rows
