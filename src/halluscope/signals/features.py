"""Per-mention features for the twelve detectors (NAME-Bench Table 8), reduced during the pass.

>>> SignalConfig().layers(32)
LayerChoice(mid=16, text=31, image=32, last=32)
>>> image_grid(576), image_grid(12, (1, 6, 8), merge=2), image_grid(10)
((24, 24), (3, 4), (1, 10))

Layer numbering is transformers' `output_hidden_states` numbering: hidden index 0 is the
embedding output, l in 1..L-1 the output of decoder layer l-1, L the final-norm output (what
transformers returns last). Attention layers are numbered 0..L-1. Positions below are sequence
positions; q = `token_index - 1` is the query that generates the object token; W4 = the caption
tokens j-3..j ending at the object token j (fewer at the caption start, see `alignment`).

Features of one mention (shapes; L layers, H heads, D hidden size):
- `image_attention` (L, H): attention mass on the image-token block at q (SVAR sums it over the
  middle layers, head-mean).
- `image_attention_w4` (L, H): the same, averaged over the W4 queries (VADE).
- `lookback_ratio_w4` (L, H): Lookback Lens ratio, averaged over the W4 queries. For the query
  generating caption token k: context = every non-padding token before the caption (everything
  before the assistant's reply, image included, as in the official code's `:context_length`),
  generated = caption tokens 0..k-1 (the query itself is one of them);
  ratio = mean(attn on context) / (mean(attn on context) + mean(attn on generated)).
  Rule for the first caption token (no generated token yet, where the official code divides by
  an empty mean and gets NaN): the generated mean is taken as 0, so the ratio is 1.0.
- `pas_attention` (H,): layer-0 attention mass from q on the previously generated caption
  tokens 0..j-1 (0.0 for the first caption token) (PAS).
- `dhcp_attention` (L, H, pool*pool): attention from q to every image token, the image-token
  grid (LLaVA 24x24; Qwen (h/merge)x(w/merge) from image_grid_thw) adaptively average-pooled to
  6x6 (DHCP). A grid smaller than 6 is spread over the 6x6 cells by the same pooling.
- `hidden_mid_w4`, `hidden_last_w4` (D,): hidden state at index L/2 and L, mean over the W4 token
  positions (`hidden_at="query"`: over the W4 query positions instead).
- `logit_lens_max` (L,): for each hidden index 1..L, the largest probability of the object
  token over the image tokens, from lm_head(final_norm(h)) — the final norm is applied by default
  (`logit_lens_norm`; index L is already normed and never normed twice) — with a softmax over the
  top-50 logits only (the token gets 0 outside them). `internal_confidence` is its max over
  layers (Internal Confidence).
- GLSim (official code, deeplearning-wisc/glsim, defaults text layer L-1, image layer L, k=32,
  w=0.6): t = hidden at the text layer at q (the generation step, as the official code reads
  `hidden_states[step]`); `glsim_global` = cos(t, g) with g the hidden state of the last prompt
  token at the image layer; `glsim_local` = mean over the k image tokens where the object token's
  logit-lens probability (full softmax, image layer, same norm rule) is highest of cos(t, image
  hidden state at the image layer); `glsim_score` = w * global + (1 - w) * local. The official
  code indexes its global matrix the other way round (prompt token at layer L-1, object at layer
  L); that value is kept as `glsim_global_code`.
- `nll`, `entropy`: -log p(object token) and the entropy (nats) of the next-token distribution at
  q, from the model's own logits.
- per caption: `halp_hidden` (D,), the hidden state of the last prompt token at index L (HALP).
The text-only probe (`text_hidden_mid_w4`, `text_hidden_last_w4`) is computed the same way on a
second, text-only forward; see `encode_text_only`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from halluscope.signals.alignment import TokenAlignment

if TYPE_CHECKING:
    import torch

HIDDEN_AT = ("token", "query")


@dataclass(frozen=True)
class LayerChoice:
    """Hidden-state indices used by the features (transformers numbering, 1..L)."""

    mid: int
    text: int
    image: int
    last: int


@dataclass(frozen=True)
class SignalConfig:
    """What to compute and the published defaults (see the module docstring)."""

    window: int = 4
    pool: int = 6
    logit_lens_norm: bool = True
    logit_lens_top_k: int = 50
    glsim_k: int = 32
    glsim_weight: float = 0.6
    glsim_text_layer: int | None = None  # None: L - 1
    glsim_image_layer: int | None = None  # None: L
    mid_layer: int | None = None  # None: L // 2
    hidden_at: str = "token"
    text_only: bool = True

    def __post_init__(self) -> None:
        if self.hidden_at not in HIDDEN_AT:
            raise ValueError(f"hidden_at must be one of {HIDDEN_AT}, not {self.hidden_at!r}")

    def layers(self, num_layers: int) -> LayerChoice:
        """Resolve the default layer indices for a model with `num_layers` decoder layers."""
        choice = LayerChoice(
            mid=self.mid_layer if self.mid_layer is not None else max(1, num_layers // 2),
            text=self.glsim_text_layer if self.glsim_text_layer is not None
            else max(1, num_layers - 1),
            image=self.glsim_image_layer if self.glsim_image_layer is not None else num_layers,
            last=num_layers)
        for name in ("mid", "text", "image"):
            if not 1 <= getattr(choice, name) <= num_layers:
                raise ValueError(f"{name} layer must lie in 1..{num_layers}")
        return choice


def image_grid(n_tokens: int, grid_thw: Sequence[int] | None = None,
               merge: int = 1) -> tuple[int, int]:
    """(rows, cols) of the image-token grid: from Qwen's `image_grid_thw` row and merge size,
    else the square root of a square count (LLaVA), else one row."""
    if grid_thw is not None:
        t, h, w = (int(x) for x in grid_thw)
        if t * (h // merge) * (w // merge) == n_tokens:
            return t * (h // merge), w // merge
    side = math.isqrt(n_tokens)
    if side * side == n_tokens:
        return side, side
    return 1, n_tokens


@dataclass
class MentionSlot:
    """One mention placed in a padded batch row (alignment positions are padded positions)."""

    alignment: TokenAlignment
    token_id: int


@dataclass
class RowLayout:
    """One batch row: where its parts are (padded positions) and which mentions it holds."""

    row: int
    padding: int
    prompt_length: int
    image_span: tuple[int, int]
    grid: tuple[int, int]
    mentions: list[MentionSlot] = field(default_factory=list)

    def attention_queries(self) -> list[int]:
        """Every query position an attention feature reads (W4 queries of all mentions)."""
        return sorted({q for m in self.mentions
                       for q in m.alignment.window_queries(self.prompt_length)})

    def hidden_positions(self, hidden_at: str) -> list[int]:
        """Positions whose hidden states are kept: W4 rows, the object queries, the last
        prompt token."""
        keep = {self.prompt_length - 1}
        for m in self.mentions:
            keep.add(m.alignment.query_index)
            keep.update(self.window_rows(m, hidden_at))
        return sorted(keep)

    def window_rows(self, mention: MentionSlot, hidden_at: str) -> list[int]:
        a = mention.alignment
        return (a.window_positions(self.prompt_length) if hidden_at == "token"
                else a.window_queries(self.prompt_length))


def _cos(a: "torch.Tensor", b: "torch.Tensor") -> "torch.Tensor":
    import torch

    return torch.nn.functional.cosine_similarity(a, b, dim=-1)


class FeatureCollector:
    """Receives `Capture` callbacks for one batch and reduces them into per-mention features.

    `text_only=True` keeps only what the text-only probe needs (hidden states at mid and last).
    """

    def __init__(self, rows: Sequence[RowLayout], num_layers: int, config: SignalConfig,
                 final_norm: Any = None, lm_head: Any = None, text_only: bool = False):
        self.rows = {r.row: r for r in rows}
        self.num_layers = num_layers
        self.config = config
        self.layers = config.layers(num_layers)
        self.final_norm = final_norm
        self.lm_head = lm_head
        self.text_only = text_only
        self.keep_indices = ({self.layers.mid, self.layers.last} if text_only else
                             {self.layers.mid, self.layers.last, self.layers.text,
                              self.layers.image})
        self._hidden_pos = {r.row: r.hidden_positions(config.hidden_at) for r in rows}
        self._hidden: dict[int, dict[int, torch.Tensor]] = {r.row: {} for r in rows}
        self._columns: dict[int, dict[int, int]] = {r.row: {q: i for i, q in
                                                            enumerate(r.attention_queries())}
                                                     for r in rows}
        # row -> per-layer tensors, stacked in `features`
        self._image_mass: dict[int, list[Any]] = {r.row: [None] * num_layers for r in rows}
        self._lookback: dict[int, list[Any]] = {r.row: [None] * num_layers for r in rows}
        self._generated: dict[int, list[Any]] = {r.row: [None] * num_layers for r in rows}
        self._grid: dict[int, list[Any]] = {r.row: [None] * num_layers for r in rows}
        self._lens: dict[int, list[Any]] = {r.row: [None] * num_layers for r in rows}
        self._image_rows: dict[int, Any] = {}
        self._topk: dict[int, Any] = {}

    # ------------------------------------------------------------------ what the capture needs
    def queries(self) -> dict[int, list[int]]:
        if self.text_only:
            return {}
        return {row: list(cols) for row, cols in self._columns.items() if cols}

    def hidden_indices(self) -> list[int]:
        if self.text_only:
            return sorted(self.keep_indices)
        return list(range(1, self.num_layers + 1))  # the logit lens reads every layer

    # ------------------------------------------------------------------ callbacks
    def on_attention(self, layer: int, row: int, positions: "torch.Tensor",
                     probs: "torch.Tensor") -> None:
        """probs: (heads, n, keys) for the query `positions` of batch row `row`."""
        import torch

        layout = self.rows[row]
        start, end = layout.image_span
        self._image_mass[row][layer] = probs[..., start:end].sum(-1).T  # (n, H)
        context = probs[..., layout.padding:layout.prompt_length].mean(-1)
        keys = torch.arange(probs.shape[-1], device=probs.device)
        generated_keys = ((keys[None, :] >= layout.prompt_length)
                          & (keys[None, :] <= positions[:, None]))
        generated = (probs * generated_keys[None]).sum(-1)  # (H, n)
        count = (positions - layout.prompt_length + 1).clamp(min=0)
        generated_mean = generated / count.clamp(min=1)
        ratio = torch.where(count > 0, context / (context + generated_mean),
                            torch.ones_like(context))
        self._lookback[row][layer] = ratio.T
        self._generated[row][layer] = generated.T
        cols = self._columns[row]
        objects = [cols[m.alignment.query_index] for m in layout.mentions]
        image = probs[:, objects, start:end]  # (H, m, N)
        heads, m, _ = image.shape
        gh, gw = layout.grid
        pooled = torch.nn.functional.adaptive_avg_pool2d(
            image.permute(1, 0, 2).reshape(m * heads, gh, gw), self.config.pool)
        self._grid[row][layer] = pooled.reshape(m, heads, -1)

    def on_hidden(self, index: int, hidden: "torch.Tensor") -> None:
        """hidden: (batch, T, D), transformers hidden-state `index`."""
        import torch

        with torch.no_grad():
            for row, layout in self.rows.items():
                if index in self.keep_indices:
                    self._hidden[row][index] = hidden[row, self._hidden_pos[row]].float()
                if self.text_only or not layout.mentions:
                    continue
                self._logit_lens(index, layout, hidden[row, layout.image_span[0]:
                                                       layout.image_span[1]])

    def _lens_logits(self, index: int, image_hidden: "torch.Tensor") -> "torch.Tensor":
        h = image_hidden
        if self.config.logit_lens_norm and index < self.num_layers:
            h = self.final_norm(h)  # index L is the final-norm output already
        return self.lm_head(h).float()  # (N, V)

    def _logit_lens(self, index: int, layout: RowLayout, image_hidden: "torch.Tensor") -> None:
        import torch

        logits = self._lens_logits(index, image_hidden)
        ids = torch.tensor([m.token_id for m in layout.mentions], device=logits.device)
        top = logits.topk(min(self.config.logit_lens_top_k, logits.shape[-1]), dim=-1).values
        lse = torch.logsumexp(top, dim=-1, keepdim=True)
        chosen = logits[:, ids]  # (N, m)
        probs = torch.where(chosen >= top[:, -1:], torch.exp(chosen - lse),
                            torch.zeros_like(chosen))
        self._lens[layout.row][index - 1] = probs.max(dim=0).values
        if index == self.layers.image:
            full = torch.softmax(logits, dim=-1)[:, ids]  # (N, m)
            k = min(self.config.glsim_k, full.shape[0])
            self._topk[layout.row] = full.topk(k, dim=0).indices  # (k, m)
            self._image_rows[layout.row] = image_hidden.float()

    # ------------------------------------------------------------------ results
    def _row_hidden(self, row: int, index: int, positions: Sequence[int]) -> "torch.Tensor":
        lookup = {p: i for i, p in enumerate(self._hidden_pos[row])}
        return self._hidden[row][index][[lookup[p] for p in positions]]

    def caption_features(self, row: int) -> dict[str, Any]:
        """Per-caption features of batch row `row` (HALP)."""
        layout = self.rows[row]
        return {"halp_hidden": self._row_hidden(row, self.layers.last,
                                                [layout.prompt_length - 1])[0]}

    def mention_features(self, row: int) -> list[dict[str, Any]]:
        """One dict of tensors per mention of batch row `row`, in mention order."""
        import torch

        with torch.no_grad():
            return self._mention_features(row)

    def _mention_features(self, row: int) -> list[dict[str, Any]]:
        import torch

        layout = self.rows[row]
        if not layout.mentions:
            return []
        out: list[dict[str, Any]] = []
        prefix = "text_" if self.text_only else ""
        if not self.text_only:
            mass = torch.stack(self._image_mass[row])  # (L, n, H)
            lookback = torch.stack(self._lookback[row])
            generated = torch.stack(self._generated[row])
            grid = torch.stack(self._grid[row])  # (L, m, H, P*P)
            lens = torch.stack(self._lens[row])  # (L, m)
            cols = self._columns[row]
        for i, mention in enumerate(layout.mentions):
            a = mention.alignment
            rows_w4 = layout.window_rows(mention, self.config.hidden_at)
            features: dict[str, Any] = {
                f"{prefix}hidden_mid_w4": self._row_hidden(row, self.layers.mid, rows_w4).mean(0),
                f"{prefix}hidden_last_w4": self._row_hidden(row, self.layers.last,
                                                            rows_w4).mean(0)}
            if not self.text_only:
                q = cols[a.query_index]
                w4 = [cols[p] for p in a.window_queries(layout.prompt_length)]
                features.update({
                    "image_attention": mass[:, q],
                    "image_attention_w4": mass[:, w4].mean(1),
                    "lookback_ratio_w4": lookback[:, w4].mean(1),
                    "pas_attention": generated[0, q],
                    "dhcp_attention": grid[:, i],
                    "logit_lens_max": lens[:, i],
                    "internal_confidence": lens[:, i].max(),
                })
                features.update(self._glsim(row, layout, i, a))
                features.update(self._uncertainty(row, a, mention.token_id))
            out.append(features)
        return out

    def _glsim(self, row: int, layout: RowLayout, i: int, a: TokenAlignment) -> dict[str, Any]:
        text_rep = self._row_hidden(row, self.layers.text, [a.query_index])[0]
        prompt_image = self._row_hidden(row, self.layers.image, [layout.prompt_length - 1])[0]
        image_rows = self._image_rows[row][self._topk[row][:, i]]  # (k, D)
        global_sim = _cos(text_rep, prompt_image)
        local_sim = _cos(text_rep[None], image_rows).mean()
        w = self.config.glsim_weight
        code_global = _cos(self._row_hidden(row, self.layers.text, [layout.prompt_length - 1])[0],
                           self._row_hidden(row, self.layers.image, [a.query_index])[0])
        return {"glsim_global": global_sim, "glsim_local": local_sim,
                "glsim_score": w * global_sim + (1 - w) * local_sim,
                "glsim_global_code": code_global}

    def _uncertainty(self, row: int, a: TokenAlignment, token_id: int) -> dict[str, Any]:
        import torch

        final = self._row_hidden(row, self.layers.last, [a.query_index])[0]
        log_probs = torch.log_softmax(self.lm_head(final.to(_weight_dtype(self.lm_head))).float(),
                                      dim=-1)
        return {"nll": -log_probs[token_id],
                "entropy": -(log_probs.exp() * log_probs).sum()}


def _weight_dtype(module: Any) -> Any:
    return next(module.parameters()).dtype


def encode_text_only(adapter: Any, prompts: Sequence[str],
                     caption_ids: Sequence[Sequence[int]]) -> tuple[dict[str, Any], list[int],
                                                                    list[int]]:
    """Inputs for the text-only probe: the same chat template and prompt WITHOUT the image.

    The prompt is the family's chat template applied to one user turn holding only the prompt
    text (no image placeholder, so no image tokens), with the generation prompt, tokenized as the
    processor tokenizes prompts (special tokens such as LLaVA's BOS included); the caption ids are
    the very ids of the multimodal pass appended after it. Rows are left-padded. Returns
    (`input_ids`/`attention_mask` on the model's device, per-row padding, per-row prompt length
    in the padded row).
    """
    import torch

    tok = adapter.tokenizer
    owner = adapter.processor if getattr(adapter.processor, "chat_template", None) else tok
    seqs: list[list[int]] = []
    prompt_lengths: list[int] = []
    for prompt, ids in zip(prompts, caption_ids):
        text = owner.apply_chat_template(
            [{"role": "user", "content": [{"type": "text", "text": prompt}]}],
            tokenize=False, add_generation_prompt=True)
        prompt_ids = list(tok(text)["input_ids"])
        prompt_lengths.append(len(prompt_ids))
        seqs.append(prompt_ids + [int(t) for t in ids])
    width = max(len(s) for s in seqs)
    pad_id = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    input_ids = torch.full((len(seqs), width), int(pad_id), dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    paddings = []
    for i, seq in enumerate(seqs):
        pad = width - len(seq)
        input_ids[i, pad:] = torch.tensor(seq, dtype=torch.long)
        mask[i, pad:] = 1
        paddings.append(pad)
    device = adapter.device
    return ({"input_ids": input_ids.to(device), "attention_mask": mask.to(device)}, paddings,
            [p + n for p, n in zip(paddings, prompt_lengths)])
