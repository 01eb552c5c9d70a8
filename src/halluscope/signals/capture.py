"""One forward pass, reduced inside: a custom attention function and hidden-state hooks.

>>> ATTENTION_NAME
'halluscope'

`Capture(modules, queries, on_attention, on_hidden)` is a context manager (baukit `Trace` style):
while it is open, the language model's attention runs through the attention function registered
here under `ATTENTION_NAME` via transformers' `AttentionInterface`, and forward hooks sit on the
decoder layers and the final norm. On exit — also on an exception — the model's attention
implementation is put back and every hook removed.

The attention function computes the layer output with PyTorch's scaled-dot-product attention
(the same call transformers' `sdpa` makes), so the forward costs what a plain sdpa forward costs
and the `(batch, heads, T, T)` probability tensor never exists. Then, only for the query rows a
caption needs (a handful per mention), it recomputes the probabilities from the `query` and `key`
it was given and hands them, `(heads, n, keys)`, to `on_attention(layer, row, positions, probs)`,
which reduces them at once. The recomputation matches eager attention:
- RoPE (and Qwen's M-RoPE) is already applied to q and k before the attention function is called;
- scaling is the module's own (`scaling`, e.g. Gemma's query_pre_attn_scalar), else 1/sqrt(d);
- grouped-query attention: each key/value head serves `heads / kv_heads` consecutive query heads
  (transformers' `repeat_kv` order);
- masking: the 4-D mask the model built for this layer (causal + padding, and the sliding window
  on sliding layers) is applied to the selected rows; when the model passes no mask (a plain
  causal batch without padding) the causal mask, and the `sliding_window` if the layer has one,
  is applied here;
- logit softcapping (`softcap`, Gemma 2 style) is applied to the recomputed scores; sdpa has no
  softcap, so for such layers the output is computed the eager way (the only case that builds a
  full score matrix, one layer at a time).
Probabilities are computed in float32 (eager computes its softmax in float32 too).

Hidden states follow transformers' `output_hidden_states` numbering: index l in 1..L-1 is the
output of decoder layer l-1 (residual stream), index L is the output of the final norm (what
transformers returns as the last hidden state). `on_hidden(index, tensor)` gets the full
`(batch, T, hidden)` output and must keep only the rows it needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

if TYPE_CHECKING:
    import torch

ATTENTION_NAME = "halluscope"

AttentionCallback = Callable[[int, int, "torch.Tensor", "torch.Tensor"], None]
HiddenCallback = Callable[[int, "torch.Tensor"], None]

_ACTIVE: list["Capture"] = []  # innermost open capture last
_REGISTERED = False


def register_attention() -> None:
    """Register the attention function and its mask builder with transformers (idempotent)."""
    global _REGISTERED
    if _REGISTERED:
        return
    from transformers import AttentionInterface
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, sdpa_mask

    AttentionInterface.register(ATTENTION_NAME, halluscope_attention)
    # Without a mask function of its own name transformers builds NO mask at all (it assumes a
    # kernel that masks itself): the sdpa mask is the one our sdpa call expects.
    ALL_MASK_ATTENTION_FUNCTIONS.register(ATTENTION_NAME, sdpa_mask)
    _REGISTERED = True


def halluscope_attention(module: Any, query: "torch.Tensor", key: "torch.Tensor",
                         value: "torch.Tensor", attention_mask: "torch.Tensor | None",
                         dropout: float = 0.0, scaling: float | None = None,
                         softcap: float | None = None, **kwargs: Any) -> tuple[Any, None]:
    """sdpa output (eager when softcapped), plus the selected probability rows to the capture."""
    if softcap is not None:
        output = _eager_output(query, key, value, attention_mask, scaling, softcap,
                               kwargs.get("sliding_window"))
    else:
        from transformers.integrations.sdpa_attention import sdpa_attention_forward

        output, _ = sdpa_attention_forward(module, query, key, value, attention_mask,
                                           dropout=dropout, scaling=scaling, **kwargs)
    if _ACTIVE:
        _ACTIVE[-1]._attention(module, query, key, attention_mask, scaling, softcap,
                               kwargs.get("sliding_window"))
    return output, None


def _scale(query: "torch.Tensor", scaling: float | None) -> float:
    return scaling if scaling is not None else query.shape[-1] ** -0.5


def _repeat_kv(key: "torch.Tensor", heads: int) -> "torch.Tensor":
    """(kv_heads, K, d) -> (heads, K, d), kv head h serving query heads h*g .. h*g+g-1."""
    groups = heads // key.shape[0]
    return key if groups == 1 else key.repeat_interleave(groups, dim=0)


def masked_scores(query: "torch.Tensor", key: "torch.Tensor", positions: "torch.Tensor",
                  row_mask: "torch.Tensor | None", scale: float, softcap: float | None = None,
                  sliding_window: int | None = None) -> "torch.Tensor":
    """Float32 attention scores `(heads, n, K)` of the query rows `positions` of one item.

    `query` is `(heads, T, d)`, `key` `(kv_heads, K, d)`; `row_mask` is that item's slice of
    the model's 4-D mask, `(1 or heads, T, K)`, boolean (True = attend) or additive float.
    """
    import torch

    q = query[:, positions].float()
    heads, n, d = q.shape
    kv_heads = key.shape[0]
    k = key.float()
    # Grouped-query attention without materialising repeated keys: the g query heads of one
    # kv head are consecutive (repeat_kv order), so they share one batched matmul.
    scores = torch.matmul(q.reshape(kv_heads, (heads // kv_heads) * n, d),
                          k.transpose(-1, -2)).reshape(heads, n, k.shape[1]) * scale
    if softcap is not None:
        scores = torch.tanh(scores / softcap) * softcap
    if row_mask is None:
        keys = torch.arange(k.shape[1], device=q.device)
        allowed = keys[None, :] <= positions[:, None]
        if sliding_window is not None:
            allowed &= keys[None, :] > positions[:, None] - sliding_window
        return scores.masked_fill(~allowed[None], float("-inf"))
    rows = row_mask[:, positions, : k.shape[1]]
    if rows.dtype == torch.bool:
        return scores.masked_fill(~rows, float("-inf"))
    return scores + rows.float()


def _eager_output(query: "torch.Tensor", key: "torch.Tensor", value: "torch.Tensor",
                  mask: "torch.Tensor | None", scaling: float | None, softcap: float,
                  sliding_window: int | None) -> "torch.Tensor":
    """Softcapped attention output `(batch, T, heads, d)` the eager way, one item at a time."""
    import torch

    outputs = []
    positions = torch.arange(query.shape[2], device=query.device)
    for b in range(query.shape[0]):
        row_mask = None if mask is None else mask[b if mask.shape[0] > 1 else 0]
        scores = masked_scores(query[b], key[b], positions, row_mask, _scale(query, scaling),
                               softcap, sliding_window)
        # A padding query may see no key at all (-inf everywhere): zeros there, as torch's sdpa
        # gives, not NaN, which would reach valid rows through the next layer's values.
        probs = torch.softmax(scores, dim=-1).nan_to_num_(0.0).to(value.dtype)
        outputs.append(torch.matmul(probs, _repeat_kv(value[b], query.shape[1])))
    return torch.stack(outputs).transpose(1, 2).contiguous()


class Capture:
    """Open around `model(**inputs)`; see the module docstring.

    `modules` is an adapter's `ResolvedModules`; `queries[row]` lists the sequence positions of
    batch row `row` whose attention probabilities `on_attention` receives at every layer;
    `hidden_indices` selects the hidden-state indices (1..L) passed to `on_hidden`.
    """

    def __init__(self, modules: Any, queries: Mapping[int, Sequence[int]] | None = None,
                 on_attention: AttentionCallback | None = None,
                 on_hidden: HiddenCallback | None = None,
                 hidden_indices: Iterable[int] = ()):
        self.modules = modules
        self.queries = {int(r): sorted(set(int(p) for p in ps))
                        for r, ps in (queries or {}).items() if ps}
        self.on_attention = on_attention
        self.on_hidden = on_hidden
        self.hidden_indices = sorted(set(hidden_indices))
        self.num_layers = len(modules.layers)
        bad = [i for i in self.hidden_indices if not 1 <= i <= self.num_layers]
        if bad:
            raise ValueError(f"hidden indices must lie in 1..{self.num_layers}, got {bad}")
        self._layer_of = {id(m): i for i, m in enumerate(modules.attentions)}
        self._handles: list[Any] = []
        self._restore: list[tuple[Any, Any]] = []
        self._position_tensors: dict[tuple[int, Any], Any] = {}
        self._busy = False

    # ------------------------------------------------------------------ context manager
    def __enter__(self) -> Capture:
        register_attention()
        try:
            configs = {id(c): c for c in (getattr(m, "config", None)
                                          for m in self.modules.attentions) if c is not None}
            lm_config = getattr(self.modules.language_model, "config", None)
            if lm_config is not None:
                configs.setdefault(id(lm_config), lm_config)  # the mask is built from this one
            for config in configs.values():
                self._restore.append((config, config._attn_implementation))
                config._attn_implementation = ATTENTION_NAME
            for index in self.hidden_indices:
                module = (self.modules.final_norm if index == self.num_layers
                          else self.modules.layers[index - 1])
                self._handles.append(module.register_forward_hook(self._hidden_hook(index)))
            _ACTIVE.append(self)
        except BaseException:
            self._close()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self._close()

    def _close(self) -> None:
        try:
            if self in _ACTIVE:
                _ACTIVE.remove(self)
        finally:
            for handle in self._handles:
                handle.remove()
            self._handles.clear()
            for config, implementation in reversed(self._restore):
                config._attn_implementation = implementation
            self._restore.clear()

    # ------------------------------------------------------------------ callbacks
    def _hidden_hook(self, index: int) -> Callable[..., None]:
        def hook(module: Any, args: Any, output: Any) -> None:
            # Re-entrancy guard: a callback may itself call a hooked module (the logit lens
            # applies the final norm to other layers' rows); those calls are not model layers.
            if self.on_hidden is None or self._busy:
                return
            hidden = output[0] if isinstance(output, (tuple, list)) else output
            self._busy = True
            try:
                self.on_hidden(index, hidden.detach())
            finally:
                self._busy = False
        return hook

    def _positions(self, row: int, device: Any) -> "torch.Tensor":
        import torch

        cached = self._position_tensors.get((row, device))
        if cached is None:
            cached = torch.tensor(self.queries[row], dtype=torch.long, device=device)
            self._position_tensors[(row, device)] = cached
        return cached

    def _attention(self, module: Any, query: "torch.Tensor", key: "torch.Tensor",
                   mask: "torch.Tensor | None", scaling: float | None, softcap: float | None,
                   sliding_window: int | None) -> None:
        import torch

        layer = self._layer_of.get(id(module))
        if layer is None or self.on_attention is None or not self.queries:
            return
        with torch.no_grad():
            for row in self.queries:
                if row >= query.shape[0]:
                    continue
                positions = self._positions(row, query.device)
                row_mask = None if mask is None else mask[row if mask.shape[0] > 1 else 0]
                scores = masked_scores(query[row].detach(), key[row].detach(), positions,
                                       row_mask, _scale(query, scaling), softcap, sliding_window)
                self.on_attention(layer, row, positions, torch.softmax(scores, dim=-1))
