"""Per-mention features for the twelve detectors (NAME-Bench Table 8), reduced during the pass.

>>> SignalConfig().layers(32)
LayerChoice(mid=16, text=31, image=32, last=32)
>>> image_grid(576), image_grid(12, (1, 6, 8), merge=2), image_grid(10)
((24, 24), (3, 4), None)

Layer numbering is transformers' `output_hidden_states` numbering: hidden index 0 is the
embedding output, l in 1..L-1 the output of decoder layer l-1, L the final-norm output (what
transformers returns last). Qwen3-VL: DeepStack adds visual features to the residual stream at
the image positions after the first decoder layers; transformers records a layer's output before
that addition, and so do the hooks here (what the next layer reads differs there). Attention
layers are numbered 0..L-1; their probabilities use the very mask the model built for the layer
(padding, Gemma 3's two-way attention inside the image block, sliding windows). Positions below
are sequence positions; q = `token_index - 1` is the query that generates the object token;
W4 = the caption tokens j-3..j ending at the object token j (fewer at the caption start, see
`alignment`).

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
- `dhcp_attention` (L, H, pool*pool): attention from q to the image tokens of one image grid,
  adaptively average-pooled to 6x6 (DHCP). A grid smaller than 6 is spread over the 6x6 cells by
  the same pooling. Which grid (`dhcp_grid`): LLaVA 24x24 and Gemma 3 (16x16) the whole image
  block; Qwen (h/merge)x(w/merge) from image_grid_thw; tiled images pool ONE tile that shows the
  whole image at base resolution, so the cells mean the same image regions for every image size:
  LLaVA-NeXT / OneVision the base tile (the first (image_size/patch)^2 tokens of the block, before
  the anyres tiles and their newline tokens), InternVL the thumbnail tile (the last
  image_seq_length tokens when the image was cut into several tiles, else the one tile). When no
  grid is known the block is treated as a 1-D sequence and average-pooled into pool*pool bins.
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


# Image tokens projected through lm_head at once by the logit lens (bounds its memory).
LENS_CHUNK = 64


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
    # Internal Confidence's logit lens projects every image token through lm_head at every
    # layer: N_image x vocab x hidden per layer, several forwards' worth on a small model with a
    # large vocabulary. False skips it (no `logit_lens_max` / `internal_confidence`); GLSim's
    # one-layer lens is still computed.
    logit_lens: bool = True

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
               merge: int = 1) -> tuple[int, int] | None:
    """(rows, cols) of the image-token grid: from Qwen's `image_grid_thw` row and merge size,
    else the square root of a square count (LLaVA), else None (no grid known)."""
    if grid_thw is not None:
        t, h, w = (int(x) for x in grid_thw)
        if t * (h // merge) * (w // merge) == n_tokens:
            return t * (h // merge), w // merge
    side = math.isqrt(n_tokens)
    if side * side == n_tokens:
        return side, side
    return None


TILE_LAYOUTS = ("", "base_first", "thumbnail_last")


def dhcp_grid(n_tokens: int, grid_thw: Sequence[int] | None = None, merge: int = 1,
              tile_tokens: int | None = None, tiles: str = ""
              ) -> tuple[tuple[int, int], tuple[int, int] | None]:
    """((offset, count), grid) of the image tokens DHCP pools, offset within the image block.

    >>> dhcp_grid(576)                                           # LLaVA-1.5: the whole block
    ((0, 576), (24, 24))
    >>> dhcp_grid(44, tile_tokens=16, tiles="base_first")        # LLaVA-NeXT: the base tile
    ((0, 16), (4, 4))
    >>> dhcp_grid(28, tile_tokens=4, tiles="thumbnail_last")     # InternVL: 6 tiles + thumbnail
    ((24, 4), (2, 2))
    >>> dhcp_grid(10)                                            # no grid known: 1-D
    ((0, 10), None)

    `tiles` says where the tile showing the whole image sits in a tiled block of `tile_tokens`
    tokens per tile (see the module docstring); a block of one tile is the tile itself.
    """
    if tiles not in TILE_LAYOUTS:
        raise ValueError(f"tiles must be one of {TILE_LAYOUTS}, not {tiles!r}")
    offset, count = 0, n_tokens
    if tiles and tile_tokens and 0 < tile_tokens < n_tokens:
        count = tile_tokens
        offset = n_tokens - tile_tokens if tiles == "thumbnail_last" else 0
        grid_thw = None  # a grid_thw describes the whole block, not one tile
    return (offset, count), image_grid(count, grid_thw, merge)


def pooling_matrix(count: int, grid: tuple[int, int] | None, pool: int) -> "torch.Tensor":
    """(count, pool*pool) float32 matrix M with `maps @ M` = the DHCP pooling of `maps`.

    >>> pooling_matrix(4, (2, 2), 2).tolist() == [[1., 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0],
    ...                                           [0, 0, 0, 1]]
    True

    Adaptive average pooling is linear: the matrix is the pooling applied to the identity, 2-D
    over `grid` when one is known, else 1-D over the sequence into pool*pool bins. One matmul
    then pools every head and layer (and reuses the same per-cell weights as the pooling op).
    """
    import torch

    eye = torch.eye(count, dtype=torch.float32)
    if grid is None:
        pooled = torch.nn.functional.adaptive_avg_pool1d(eye[:, None, :], pool * pool)
    else:
        pooled = torch.nn.functional.adaptive_avg_pool2d(eye.reshape(count, *grid), pool)
    return pooled.reshape(count, pool * pool)


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
    grid: tuple[int, int] | None  # of the DHCP tokens; None: 1-D
    mentions: list[MentionSlot] = field(default_factory=list)
    grid_span: tuple[int, int] | None = None  # [start, end) of the DHCP tokens; None: image_span

    @property
    def dhcp_span(self) -> tuple[int, int]:
        return self.grid_span if self.grid_span is not None else self.image_span

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
            # the W4 queries' final states give the clean log-probabilities of the window
            # tokens (`window_token_stats`), which the perturbation signatures compare against
            keep.update(m.alignment.window_queries(self.prompt_length))
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

    Per layer the callbacks keep only small reductions (kept in torch, no host syncs):
    - attention: every reduction the features need is linear in the probabilities, so one
      matmul with a per-row `(keys, 3)` matrix gives the image mass, the context mean and the
      generated-token sum of every query row, and one with the DHCP pooling matrix the pooled
      image map of the object queries. The generated sum runs over all keys from the caption
      start: a query's probabilities on later keys are exactly 0 (causal mask), so this equals
      the sum over caption tokens 0..k-1 the docstring above defines;
    - logit lens: the object tokens' top-k probabilities, max over image tokens.
    Ratios, window means and the per-mention split are computed once, in `mention_features`.
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
        self._queries = {r.row: r.attention_queries() for r in rows}
        self._columns: dict[int, dict[int, int]] = {row: {q: i for i, q in enumerate(qs)}
                                                     for row, qs in self._queries.items()}
        # row -> per-layer tensors, stacked in `mention_features`
        self._reduced: dict[int, list[Any]] = {r.row: [None] * num_layers for r in rows}
        self._grid: dict[int, list[Any]] = {r.row: [None] * num_layers for r in rows}
        self._lens: dict[int, list[Any]] = {r.row: [None] * num_layers for r in rows}
        self._image_rows: dict[int, Any] = {}
        self._topk: dict[int, Any] = {}
        self._setup: dict[int, tuple[Any, Any, Any]] = {}  # row -> reduce, objects, pooling
        self._device_cache: dict[tuple[str, int, Any], Any] = {}

    def _tensor(self, name: str, row: int, values: Sequence[int], device: Any) -> "torch.Tensor":
        """A long tensor of `values`, built once per (name, row, device)."""
        import torch

        key = (name, row, device)
        cached = self._device_cache.get(key)
        if cached is None:
            cached = torch.tensor(list(values), dtype=torch.long, device=device)
            self._device_cache[key] = cached
        return cached

    # ------------------------------------------------------------------ what the capture needs
    def queries(self) -> dict[int, list[int]]:
        if self.text_only:
            return {}
        return {row: list(qs) for row, qs in self._queries.items() if qs}

    def needed_length(self) -> int:
        """Tokens up to the last position any feature reads (hidden states, query rows)."""
        last = [max(self._hidden_pos[row]) for row in self.rows]
        last += [max(qs) for qs in self._queries.values() if qs]
        return 1 + max(last)

    def hidden_indices(self) -> list[int]:
        if self.text_only:
            return sorted(self.keep_indices)
        return list(range(1, self.num_layers + 1))  # the logit lens reads every layer

    # ------------------------------------------------------------------ callbacks
    def _attention_setup(self, row: int, probs: "torch.Tensor") -> tuple[Any, Any, Any]:
        import torch

        setup = self._setup.get(row)
        if setup is None:
            layout = self.rows[row]
            keys = probs.shape[-1]
            reduce = torch.zeros(keys, 3, dtype=torch.float32)
            reduce[layout.image_span[0]:layout.image_span[1], 0] = 1.0
            reduce[layout.padding:layout.prompt_length, 1] = 1.0 / max(
                1, layout.prompt_length - layout.padding)
            reduce[layout.prompt_length:, 2] = 1.0
            start, end = layout.dhcp_span
            pool = pooling_matrix(end - start, layout.grid, self.config.pool)
            cols = self._columns[row]
            objects = [cols[m.alignment.query_index] for m in layout.mentions]
            setup = (reduce.to(probs.device), torch.tensor(objects, device=probs.device),
                     pool.to(probs.device))
            self._setup[row] = setup
        return setup

    def on_attention(self, layer: int, row: int, positions: "torch.Tensor",
                     probs: "torch.Tensor") -> None:
        """probs: (heads, n, keys) float32 for the query `positions` of batch row `row`."""
        import torch

        reduce, objects, pool = self._attention_setup(row, probs)
        self._reduced[row][layer] = torch.matmul(probs, reduce)  # (H, n, 3)
        start, end = self.rows[row].dhcp_span
        self._grid[row][layer] = torch.matmul(probs[:, objects, start:end], pool)  # (H, m, G)

    def on_hidden(self, index: int, hidden: "torch.Tensor") -> None:
        """hidden: (batch, T, D), transformers hidden-state `index`."""
        import torch

        with torch.no_grad():
            for row, layout in self.rows.items():
                if index in self.keep_indices:
                    rows = self._tensor("hidden", row, self._hidden_pos[row], hidden.device)
                    self._hidden[row][index] = hidden[row, rows].float()
                if self.text_only or not layout.mentions:
                    continue
                if self.config.logit_lens or index == self.layers.image:
                    self._logit_lens(index, layout, hidden[row, layout.image_span[0]:
                                                           layout.image_span[1]])

    def _lens_logits(self, index: int, image_hidden: "torch.Tensor") -> "torch.Tensor":
        h = image_hidden
        if self.config.logit_lens_norm and index < self.num_layers:
            h = self.final_norm(h)  # index L is the final-norm output already
        return self.lm_head(h).float()  # (N, V)

    def _logit_lens(self, index: int, layout: RowLayout, image_hidden: "torch.Tensor") -> None:
        import torch

        ids = self._tensor("ids", layout.row, [m.token_id for m in layout.mentions],
                           image_hidden.device)
        lens_rows, full_rows = [], []
        # Image tokens in chunks: each token's logits are a row of its own, so the result is the
        # same, but only LENS_CHUNK x vocab logits exist at once (576 x 49k floats are 113 MB).
        for start in range(0, image_hidden.shape[0], LENS_CHUNK):
            logits = self._lens_logits(index, image_hidden[start:start + LENS_CHUNK])
            chosen = logits[:, ids]  # (c, m)
            if self.config.logit_lens:
                top = top_k_values(logits, min(self.config.logit_lens_top_k, logits.shape[-1]))
                threshold = top.min(dim=-1, keepdim=True).values  # each row's k-th largest
                lse = torch.logsumexp(top, dim=-1, keepdim=True)
                lens_rows.append(torch.where(chosen >= threshold, torch.exp(chosen - lse),
                                             torch.zeros_like(chosen)).max(dim=0).values)
            if index == self.layers.image:
                full_rows.append(torch.softmax(logits, dim=-1)[:, ids])
            del logits
        if lens_rows:
            self._lens[layout.row][index - 1] = torch.stack(lens_rows).max(dim=0).values
        if full_rows:
            full = torch.cat(full_rows)  # (N, m): the full-softmax probability of each object
            k = min(self.config.glsim_k, full.shape[0])
            self._topk[layout.row] = full.topk(k, dim=0).indices  # (k, m)
            self._image_rows[layout.row] = image_hidden.float()

    # ------------------------------------------------------------------ results
    def _row_hidden(self, row: int, index: int, positions: Sequence[int]) -> "torch.Tensor":
        lookup = {p: i for i, p in enumerate(self._hidden_pos[row])}
        return self._hidden[row][index][[lookup[p] for p in positions]]

    def _window_mean(self, row: int, index: int, windows: Sequence[Sequence[int]]
                     ) -> "torch.Tensor":
        """(m, D): hidden state `index` averaged over each mention's window positions."""
        import torch

        lookup = {p: i for i, p in enumerate(self._hidden_pos[row])}
        stored = self._hidden[row][index]
        weights = torch.zeros(len(windows), stored.shape[0], dtype=stored.dtype)
        for i, window in enumerate(windows):
            weights[i, [lookup[p] for p in window]] = 1.0 / len(window)
        return torch.matmul(weights.to(stored.device), stored)

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
        layout = self.rows[row]
        if not layout.mentions:
            return []
        prefix = "text_" if self.text_only else ""
        windows = [layout.window_rows(m, self.config.hidden_at) for m in layout.mentions]
        columns: dict[str, Any] = {
            f"{prefix}hidden_mid_w4": self._window_mean(row, self.layers.mid, windows),
            f"{prefix}hidden_last_w4": self._window_mean(row, self.layers.last, windows)}
        if not self.text_only:
            columns.update(self._attention_features(row, layout))
            columns.update(self._glsim(row, layout))
            columns.update(self._uncertainty(row, layout))
        return [{name: value[i] for name, value in columns.items()}
                for i in range(len(layout.mentions))]

    def _attention_features(self, row: int, layout: RowLayout) -> dict[str, Any]:
        """Per-mention attention features and the logit lens, each stacked over mentions."""
        import torch

        reduced = torch.stack(self._reduced[row])  # (L, H, n, 3)
        device = reduced.device
        positions = torch.tensor(self._queries[row], device=device)
        count = (positions - layout.prompt_length + 1).clamp(min=0)  # generated tokens so far
        mass, context, generated = reduced.unbind(-1)  # (L, H, n) each
        lookback = torch.where(count > 0,
                               context / (context + generated / count.clamp(min=1)),
                               torch.ones_like(context))
        cols = self._columns[row]
        objects = [cols[m.alignment.query_index] for m in layout.mentions]
        # (m, n) weights averaging each mention's W4 queries
        w4 = torch.zeros(len(objects), len(cols), dtype=reduced.dtype)
        for i, m in enumerate(layout.mentions):
            queries = m.alignment.window_queries(layout.prompt_length)
            w4[i, [cols[q] for q in queries]] = 1.0 / len(queries)
        w4 = w4.to(device)
        columns = {
            "image_attention": mass[:, :, objects].permute(2, 0, 1),  # (m, L, H)
            "image_attention_w4": torch.einsum("lhn,mn->mlh", mass, w4),
            "lookback_ratio_w4": torch.einsum("lhn,mn->mlh", lookback, w4),
            "pas_attention": generated[0][:, objects].T,  # (m, H)
            "dhcp_attention": torch.stack(self._grid[row]).permute(2, 0, 1, 3),  # (m, L, H, G)
        }
        if self.config.logit_lens:
            lens = torch.stack(self._lens[row]).T  # (m, L)
            columns["logit_lens_max"] = lens
            columns["internal_confidence"] = lens.max(dim=1).values
        return columns

    def _glsim(self, row: int, layout: RowLayout) -> dict[str, Any]:
        queries = [m.alignment.query_index for m in layout.mentions]
        last_prompt = [layout.prompt_length - 1]
        text_rep = self._row_hidden(row, self.layers.text, queries)  # (m, D)
        prompt_image = self._row_hidden(row, self.layers.image, last_prompt)  # (1, D)
        image_rows = self._image_rows[row][self._topk[row].T]  # (m, k, D)
        global_sim = _cos(text_rep, prompt_image)
        local_sim = _cos(text_rep[:, None], image_rows).mean(dim=1)
        w = self.config.glsim_weight
        code_global = _cos(self._row_hidden(row, self.layers.text, last_prompt),
                           self._row_hidden(row, self.layers.image, queries))
        return {"glsim_global": global_sim, "glsim_local": local_sim,
                "glsim_score": w * global_sim + (1 - w) * local_sim,
                "glsim_global_code": code_global}

    def window_token_stats(self, row: int, caption_token_ids: Sequence[int]) -> list[Any]:
        """Per mention of batch row `row`: the log-probability, rank and top-1 token of each W4
        token at the query generating it (`signals.perturbations.WindowStats`), from this pass's
        final hidden states (the clean condition of the perturbation signatures)."""
        from halluscope.signals.perturbations import split_windows, token_stats, window_targets

        layout = self.rows[row]
        if not layout.mentions:
            return []
        queries = [q for m in layout.mentions
                   for q in m.alignment.window_queries(layout.prompt_length)]
        targets = [t for m in layout.mentions
                   for t in window_targets(caption_token_ids, m.alignment.window)]
        final = self._row_hidden(row, self.layers.last, queries)
        return split_windows(*token_stats(self.lm_head, final, targets),
                             [m.alignment.window_size for m in layout.mentions])

    def _uncertainty(self, row: int, layout: RowLayout) -> dict[str, Any]:
        import torch

        final = self._row_hidden(row, self.layers.last,
                                 [m.alignment.query_index for m in layout.mentions])
        log_probs = torch.log_softmax(self.lm_head(final.to(_weight_dtype(self.lm_head))).float(),
                                      dim=-1)  # (m, V)
        ids = torch.tensor([m.token_id for m in layout.mentions], device=log_probs.device)
        return {"nll": -log_probs.gather(1, ids[:, None])[:, 0],
                "entropy": -(log_probs.exp() * log_probs).sum(dim=-1)}


def top_k_values(logits: "torch.Tensor", k: int) -> "torch.Tensor":
    """The k largest values of each row of a 2-D float tensor, in no particular order.

    >>> import torch
    >>> sorted(top_k_values(torch.tensor([[3., 1., 4., 1., 5.]]), 2)[0].tolist())
    [4.0, 5.0]

    On CPU numpy's introselect (`np.partition`) finds them several times faster than
    `torch.topk` (which sorts partially), the logit lens' largest cost on small models; the set of
    values is the same, so the probabilities are too. Elsewhere `torch.topk`.
    """
    import torch

    if logits.device.type != "cpu" or logits.dtype not in (torch.float32, torch.float64):
        return logits.topk(k, dim=-1, sorted=False).values
    import numpy as np

    array = logits.detach().contiguous().numpy()
    width = array.shape[-1]
    return torch.from_numpy(np.partition(array, width - k, axis=-1)[:, width - k:])


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
