"""Mention-level perturbation signatures: HalluPrism's probes applied to each caption mention.

>>> config = PerturbationConfig.parse("blank,noise,blur", severity=3)
>>> config.conditions, config.preset
(('blur', 'noise', 'blank'), 'strong')
>>> clean = WindowStats(np.log([0.5, 0.8]), np.array([1, 1]), np.array([7, 9]))
>>> blank = WindowStats(np.log([0.25, 0.8]), np.array([2, 1]), np.array([3, 9]))
>>> out = mention_coordinates(clean, {"blank": blank})
>>> round(out["mention_l_conf"], 6), out["mention_l_match"], round(out["mention_l_conf_w4"], 6)
(1.0, 1.0, 0.75)

HalluPrism asks how an answer responds when the image is degraded (V) or removed (L); here the
"answer" is the caption token the model was teacher-forced to produce. For every caption the
same token ids are teacher-forced once more under each perturbed image (one batched forward per
condition; the clean pass is the signals pass itself, whose final hidden states give the clean
log-probabilities), and per mention and condition the object token's log-probability, its rank
(1 = the model's top choice) and the top-1 token are read at the query that generates it. The
object token and the W4 window are `signals.alignment`'s: the first sub-token of the mention and
the caption tokens j-3..j ending at it.

Conditions (`--perturbations`, Table 12 presets by `--severity` 1 weak, 2 default, 3 strong):
`blur`, `crop`, `dark`, `noise` are `prism.perturb`'s four V probes (`blur_heavy`,
`crop_aggressive`, `brightness_low`, `noise`; the noise seeded by the item's image id, so the
same image gets the same noise in every run, batch and order), `blank` is HalluPrism's blank
image (grey canvas of the original's size, Appendix 9.2.2). All keep the image size, so the
image-token count and the caption's positions are those of the clean pass.

Coordinates per mention (p = probability of the object token, p' under a condition, top-1 = the
arg-max token at the query; the `_w4` columns compute the same per W4 token, each at the query
that generates it, and average over the window):
- `mention_logprob_<condition>`, `mention_rank_<condition>` for `clean` and each condition;
- V (visual perturbations only): `mention_v_dlogp` = mean |log p' - log p|, `mention_v_flip` =
  share of the perturbations that change the top-1 token, `mention_v` = HalluPrism's Eq. 3 on
  the token, 0.6 flip + 0.4 min(2 mean |p' - p|, 1);
- L (blank): the answer-level variants on the token, `mention_l_conf` = min(p_blank / (p + eps),
  1) (Eq. 4), `mention_l_match` = 1[top-1 unchanged], `mention_l_persist` = match x l_conf
  (Eq. 5), `mention_l_stable` = match x min(p_blank / max(p, 0.1), 1) (Appendix 10.1), and the
  unclipped `mention_l_logratio` = log p_blank - log p.
A hallucinated object should lean on the language prior (high L, low V), a concrete one on the
image (low L, high V).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, Sequence

import numpy as np

from halluscope.errors import ConfigError, InputError
from halluscope.prism.signature import EPSILON, STABLE_FLOOR

if TYPE_CHECKING:
    import torch

#: `--perturbations` names -> `prism.perturb` names; `blank` is the L probe.
VISUAL: dict[str, str] = {"blur": "blur_heavy", "crop": "crop_aggressive",
                          "dark": "brightness_low", "noise": "noise"}
CONDITIONS: tuple[str, ...] = (*VISUAL, "blank")
#: `--severity` -> Table 12 preset.
SEVERITIES: dict[int, str] = {1: "weak", 2: "default", 3: "strong"}
V_COORDINATES = ("mention_v", "mention_v_dlogp", "mention_v_flip")
L_COORDINATES = ("mention_l_conf", "mention_l_persist", "mention_l_match", "mention_l_stable",
                 "mention_l_logratio")


@dataclass(frozen=True)
class PerturbationConfig:
    """Which perturbed passes to run (`conditions`, in `CONDITIONS` order) and how strong."""

    conditions: tuple[str, ...]
    severity: int = 2
    blank_mode: str = "same"  # prism.perturb.blank_image: "same" size, or "reference" 384x384

    def __post_init__(self) -> None:
        unknown = [c for c in self.conditions if c not in CONDITIONS]
        if unknown or not self.conditions:
            raise ConfigError(f"--perturbations: unknown or no condition {unknown or ''}; "
                              f"choose from {', '.join(CONDITIONS)}")
        if self.severity not in SEVERITIES:
            raise ConfigError(f"--severity must be 1, 2 or 3, not {self.severity!r}")

    @classmethod
    def parse(cls, text: str, severity: int = 2) -> PerturbationConfig:
        """From the CLI's comma list; order and repeats do not matter."""
        names = {p.strip() for p in text.split(",") if p.strip()}
        unknown = sorted(names - set(CONDITIONS))
        if unknown or not names:
            raise ConfigError(f"--perturbations: unknown condition(s) {', '.join(unknown)}; "
                              f"choose from {', '.join(CONDITIONS)}" if unknown else
                              f"--perturbations: no condition given (choose from "
                              f"{', '.join(CONDITIONS)})")
        return cls(tuple(c for c in CONDITIONS if c in names), severity)

    @property
    def preset(self) -> str:
        return SEVERITIES[self.severity]

    def manifest(self) -> dict[str, Any]:
        return {"conditions": list(self.conditions), "severity": self.severity,
                "preset": self.preset, "blank_mode": self.blank_mode}


def perturbed_image(image: Any, condition: str, item_id: str, config: PerturbationConfig) -> Any:
    """One condition's image of one item (`prism.perturb`; noise seeded by `item_id`).

    >>> from PIL import Image
    >>> cfg = PerturbationConfig(("dark", "blank"))
    >>> img = Image.new("RGB", (6, 4), (100, 50, 10))
    >>> [perturbed_image(img, c, "i", cfg).getpixel((0, 0)) for c in cfg.conditions]
    [(30, 15, 3), (128, 128, 128)]
    """
    from halluscope.prism.perturb import blank_image, perturb

    if condition == "blank":
        return blank_image(image, config.blank_mode)
    return perturb(image, VISUAL[condition], item_id, config.preset)


class WindowStats(NamedTuple):
    """One mention's W4 tokens under one condition, ascending, the object token last."""

    logprob: np.ndarray  # (w,) float64
    rank: np.ndarray  # (w,) int64, 1 = arg-max
    top1: np.ndarray  # (w,) int64, arg-max token id


def token_stats(lm_head: Any, hidden: "torch.Tensor", targets: Sequence[int]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(log p, rank, top-1) of `targets[i]` under `lm_head(hidden[i])` (final-norm rows).

    >>> import torch
    >>> head = torch.nn.Linear(2, 3, bias=False)
    >>> with torch.no_grad(): _ = head.weight.copy_(torch.eye(3, 2))
    >>> lp, rank, top = token_stats(head, torch.tensor([[2.0, 0.0]]), [1])
    >>> rank.tolist(), top.tolist(), bool(abs(lp[0] - (0 - np.log(np.exp(2) + 2))) < 1e-6)
    ([2], [0], True)

    The same computation as the signals' `nll` (the head in its weight dtype, then a float32
    log-softmax). Rank = 1 + the number of tokens with a strictly larger logit.
    """
    import torch

    dtype = next(lm_head.parameters()).dtype
    with torch.no_grad():
        logp = torch.log_softmax(lm_head(hidden.to(dtype)).float(), dim=-1)
        ids = torch.tensor(list(targets), dtype=torch.long, device=logp.device)[:, None]
        chosen = logp.gather(1, ids)
        rank = (logp > chosen).sum(dim=1) + 1
        top = logp.argmax(dim=1)
    return (chosen[:, 0].double().cpu().numpy(), rank.cpu().numpy().astype(np.int64),
            top.cpu().numpy().astype(np.int64))


def window_targets(caption_token_ids: Sequence[int], window: Sequence[int]) -> list[int]:
    """The token ids of a mention's W4 window (caption-token indices `window`).

    >>> window_targets([5, 6, 7, 8, 9], (1, 2, 3))
    [6, 7, 8]
    """
    return [int(caption_token_ids[k]) for k in window]


def split_windows(logprob: np.ndarray, rank: np.ndarray, top: np.ndarray,
                  sizes: Sequence[int]) -> list[WindowStats]:
    """Consecutive rows cut into one `WindowStats` per mention of `sizes[i]` tokens."""
    out, start = [], 0
    for size in sizes:
        out.append(WindowStats(logprob[start:start + size], rank[start:start + size],
                               top[start:start + size]))
        start += size
    return out


def _v(clean: WindowStats, visual: Sequence[WindowStats]) -> dict[str, np.ndarray]:
    """Per W4 token: V's parts over the visual perturbations."""
    lp = np.stack([s.logprob for s in visual])  # (K, w)
    dlogp = np.abs(lp - clean.logprob).mean(axis=0)
    flip = np.stack([s.top1 != clean.top1 for s in visual]).astype(np.float64).mean(axis=0)
    dp = np.abs(np.exp(lp) - np.exp(clean.logprob)).mean(axis=0)
    return {"mention_v": 0.6 * flip + 0.4 * np.minimum(2.0 * dp, 1.0),
            "mention_v_dlogp": dlogp, "mention_v_flip": flip}


def _l(clean: WindowStats, blank: WindowStats) -> dict[str, np.ndarray]:
    """Per W4 token: the L variants (probabilities clipped to [0, 1] against rounding)."""
    p = np.clip(np.exp(clean.logprob), 0.0, 1.0)
    pb = np.clip(np.exp(blank.logprob), 0.0, 1.0)
    match = (blank.top1 == clean.top1).astype(np.float64)
    conf = np.minimum(pb / (p + EPSILON), 1.0)
    return {"mention_l_conf": conf, "mention_l_persist": match * conf, "mention_l_match": match,
            "mention_l_stable": match * np.minimum(pb / np.maximum(p, STABLE_FLOOR), 1.0),
            "mention_l_logratio": blank.logprob - clean.logprob}


def mention_coordinates(clean: WindowStats, perturbed: Mapping[str, WindowStats]
                        ) -> dict[str, float]:
    """Every coordinate of one mention (see the module docstring) from its W4 token stats.

    >>> clean = WindowStats(np.log([0.5]), np.array([1]), np.array([4]))
    >>> blur = WindowStats(np.log([0.25]), np.array([3]), np.array([2]))
    >>> out = mention_coordinates(clean, {"blur": blur})
    >>> out["mention_rank_blur"], out["mention_v_flip"], round(out["mention_v"], 6)
    (3, 1.0, 0.8)
    """
    out: dict[str, Any] = {}
    for name, stats in {"clean": clean, **perturbed}.items():
        out[f"mention_logprob_{name}"] = float(stats.logprob[-1])
        out[f"mention_rank_{name}"] = int(stats.rank[-1])
    parts: dict[str, np.ndarray] = {}
    visual = [perturbed[c] for c in VISUAL if c in perturbed]
    if visual:
        parts.update(_v(clean, visual))
    if "blank" in perturbed:
        parts.update(_l(clean, perturbed["blank"]))
    for name, values in parts.items():
        out[name] = float(values[-1])  # the object token
        out[f"{name}_w4"] = float(values.mean())
    return out


def coordinate_columns(conditions: Sequence[str]) -> list[str]:
    """The columns `mention_coordinates` writes for these conditions, in that order.

    >>> coordinate_columns(["blank"])[:4]
    ['mention_logprob_clean', 'mention_rank_clean', 'mention_logprob_blank', 'mention_rank_blank']
    """
    names = [f"mention_{kind}_{c}" for c in ("clean", *conditions) for kind in ("logprob", "rank")]
    parts = (V_COORDINATES if any(c in VISUAL for c in conditions) else ()) + (
        L_COORDINATES if "blank" in conditions else ())
    for name in parts:
        names += [name, f"{name}_w4"]
    return names


class _FinalHidden:
    """`Capture` callback keeping the final-norm rows at each batch row's query positions."""

    def __init__(self, queries: Mapping[int, Sequence[int]]):
        self.queries = queries
        self.rows: dict[int, Any] = {}

    def __call__(self, index: int, hidden: "torch.Tensor") -> None:
        for row, positions in self.queries.items():
            self.rows[row] = hidden[row, list(positions)]


def perturbed_window_stats(adapter: Any, images: Sequence[Any], prompts: Sequence[str],
                           captions: Sequence[Any], spans: Sequence[Sequence[tuple[int, int]]],
                           caption_token_ids: Sequence[Sequence[int]], window: int
                           ) -> list[list[WindowStats | None]]:
    """One batched teacher-forced forward on `images`; per row, per mention span, its W4 stats.

    `captions` are what the clean pass encoded (text or token ids), so the caption token ids
    are the same; they are checked against `caption_token_ids` (the clean pass's). The forward
    is the signals pass without its reductions: sdpa attention, the final-norm output hooked at
    the W4 query positions only, cut after the last of them, no full-vocabulary logits.
    """
    import torch

    from halluscope.signals.alignment import align_mentions
    from halluscope.signals.capture import Capture
    from halluscope.signals.extract import _model_accepts, cut_inputs

    batch = adapter.encode(list(images), list(prompts), list(captions))
    queries: dict[int, list[int]] = {}
    placed: list[list[Any]] = []
    for row, (item, found) in enumerate(zip(batch.items, spans)):
        if list(item.caption_token_ids) != [int(t) for t in caption_token_ids[row]]:
            raise InputError("the perturbed pass tokenized the caption differently from the "
                             "clean pass", item=str(row))
        aligned = align_mentions(item.caption_offsets, found, item.prompt_length, window)
        placed.append(aligned)
        queries[row] = sorted({q for a in aligned if a is not None
                               for q in a.window_queries(item.prompt_length)})
    wanted = {row: qs for row, qs in queries.items() if qs}
    if not wanted:
        return [[None] * len(found) for found in spans]
    modules = adapter.modules
    model = adapter.model
    hook = _FinalHidden(wanted)
    length = 1 + max(max(qs) for qs in wanted.values())
    extra = {"logits_to_keep": 1} if _model_accepts(model, "logits_to_keep") else {}
    with Capture(modules, on_hidden=hook, hidden_indices=[len(modules.layers)]), \
            torch.no_grad():
        model(**cut_inputs(batch.inputs, length), use_cache=False, **extra)
    out: list[list[WindowStats | None]] = []
    for row, (item, aligned) in enumerate(zip(batch.items, placed)):
        if row not in wanted:
            out.append([None] * len(aligned))
            continue
        column = {q: i for i, q in enumerate(wanted[row])}
        present = [a for a in aligned if a is not None]
        order = [column[q] for a in present for q in a.window_queries(item.prompt_length)]
        targets = [t for a in present for t in window_targets(item.caption_token_ids, a.window)]
        stats = iter(split_windows(*token_stats(modules.lm_head, hook.rows[row][order], targets),
                                   [a.window_size for a in present]))
        out.append([next(stats) if a is not None else None for a in aligned])
    return out


@dataclass(frozen=True)
class PerturbationRequest:
    """What the perturbed passes of one batch need besides the clean encoding: the batch's
    decoded images, its captions as encoded (text or token ids) and each item's id (noise)."""

    config: PerturbationConfig
    images: Sequence[Any]
    captions: Sequence[Any]
    item_ids: Sequence[str]


def batch_signatures(adapter: Any, request: PerturbationRequest, prompts: Sequence[str],
                     spans: Sequence[Sequence[tuple[int, int]]],
                     caption_token_ids: Sequence[Sequence[int]],
                     clean: Sequence[Sequence[WindowStats]], window: int
                     ) -> list[list[dict[str, float]]]:
    """Per batch row, per ALIGNED mention (the order of `clean[row]`): its coordinates.

    `clean[row]` holds the clean pass's stats of the row's aligned mentions; one batched forward
    per condition gives the perturbed ones.
    """
    config = request.config
    per_condition: dict[str, list[list[WindowStats | None]]] = {}
    for condition in config.conditions:
        images = [perturbed_image(image, condition, item_id, config)
                  for image, item_id in zip(request.images, request.item_ids)]
        per_condition[condition] = perturbed_window_stats(
            adapter, images, prompts, request.captions, spans, caption_token_ids, window)
    out = []
    for row, clean_row in enumerate(clean):
        perturbed_row = {c: [s for s in rows[row] if s is not None]
                         for c, rows in per_condition.items()}
        coordinates = []
        for i, stats in enumerate(clean_row):
            others = {c: perturbed_row[c][i] for c in config.conditions}
            for c, s in others.items():
                if len(s.logprob) != len(stats.logprob):
                    raise InputError(f"mention {i}: the {c} pass aligned it differently",
                                     item=str(row))
            coordinates.append(mention_coordinates(stats, others))
        out.append(coordinates)
    return out
