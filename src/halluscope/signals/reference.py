"""The same features computed the published way: from eager `output_attentions` and
`output_hidden_states`, the full tensors materialised. Tests compare the hook path against it;
the benchmark runs it once per detector family, as the detectors' own code does.

>>> sorted(FAMILIES)
['dhcp', 'glsim', 'hidden', 'logit_lens', 'lookback', 'pas', 'svar_vade', 'uncertainty']

Written independently of `features.FeatureCollector` (plain indexing of the full tensors, one
mention at a time) so that agreement means something. The model must run with eager attention.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Sequence

from halluscope.signals.features import RowLayout, SignalConfig

if TYPE_CHECKING:
    import torch

FAMILIES: dict[str, tuple[str, ...]] = {
    "svar_vade": ("image_attention", "image_attention_w4"),
    "lookback": ("lookback_ratio_w4",),
    "pas": ("pas_attention",),
    "dhcp": ("dhcp_attention",),
    "hidden": ("hidden_mid_w4", "hidden_last_w4"),
    "logit_lens": ("logit_lens_max", "internal_confidence"),
    "glsim": ("glsim_global", "glsim_local", "glsim_score", "glsim_global_code"),
    "uncertainty": ("nll", "entropy"),
}
ATTENTION_FAMILIES = ("svar_vade", "lookback", "pas", "dhcp")


def eager_forward(model: Any, inputs: dict[str, Any], attentions: bool = True) -> Any:
    """One forward with every attention map and hidden state (eager attention required)."""
    import torch

    if attentions and model.config.get_text_config()._attn_implementation != "eager":
        raise ValueError("reference attentions need attn_implementation='eager'")
    with torch.no_grad():
        return model(**inputs, output_attentions=attentions, output_hidden_states=True,
                     use_cache=False)


def _lens_probs(h: "torch.Tensor", index: int, num_layers: int, norm: bool, final_norm: Any,
                lm_head: Any) -> "torch.Tensor":
    if norm and index < num_layers:
        h = final_norm(h)
    return lm_head(h).float()


def reference_features(outputs: Any, layouts: Sequence[RowLayout], config: SignalConfig,
                       final_norm: Any, lm_head: Any,
                       families: Iterable[str] = tuple(FAMILIES)) -> dict[int, list[dict]]:
    """Per batch row, one dict per mention with the features of `families`."""
    import torch

    families = set(families)
    hs = outputs.hidden_states
    L = len(hs) - 1
    layers = config.layers(L)
    att = outputs.attentions
    result: dict[int, list[dict]] = {}
    with torch.no_grad():
        for lay in layouts:
            b, P, pad = lay.row, lay.prompt_length, lay.padding
            s, e = lay.image_span
            rows = []
            for mention in lay.mentions:
                a, t = mention.alignment, mention.token_id
                q = a.query_index
                queries = a.window_queries(P)
                f: dict[str, Any] = {}
                if "svar_vade" in families:
                    per_query = torch.stack([torch.stack([att[l][b, :, qq, s:e].sum(-1)
                                                          for l in range(L)]) for qq in queries])
                    f["image_attention"] = torch.stack([att[l][b, :, q, s:e].sum(-1)
                                                        for l in range(L)]).float()
                    f["image_attention_w4"] = per_query.mean(0).float()
                if "lookback" in families:
                    ratios = []
                    for qq in queries:
                        per_layer = []
                        for l in range(L):
                            context = att[l][b, :, qq, pad:P].mean(-1)
                            new = att[l][b, :, qq, P:qq + 1]
                            per_layer.append(torch.ones_like(context) if new.shape[-1] == 0
                                             else context / (context + new.mean(-1)))
                        ratios.append(torch.stack(per_layer))
                    f["lookback_ratio_w4"] = torch.stack(ratios).mean(0).float()
                if "pas" in families:
                    f["pas_attention"] = att[0][b, :, q, P:q + 1].sum(-1).float()
                if "dhcp" in families:
                    gs, ge = lay.dhcp_span
                    maps = torch.stack([att[l][b, :, q, gs:ge] for l in range(L)]).float()
                    flat = maps.reshape(L * maps.shape[1], ge - gs)
                    if lay.grid is None:  # no grid known: a 1-D sequence into pool^2 bins
                        pooled = torch.nn.functional.adaptive_avg_pool1d(
                            flat[:, None], config.pool * config.pool)
                    else:
                        pooled = torch.nn.functional.adaptive_avg_pool2d(
                            flat.reshape(-1, *lay.grid), config.pool)
                    f["dhcp_attention"] = pooled.reshape(L, maps.shape[1], -1)
                if "hidden" in families:
                    w4 = lay.window_rows(mention, config.hidden_at)
                    f["hidden_mid_w4"] = hs[layers.mid][b, w4].float().mean(0)
                    f["hidden_last_w4"] = hs[L][b, w4].float().mean(0)
                if "logit_lens" in families:
                    per_layer = []
                    for index in range(1, L + 1):
                        logits = _lens_probs(hs[index][b, s:e], index, L, config.logit_lens_norm,
                                             final_norm, lm_head)
                        top = logits.topk(min(config.logit_lens_top_k, logits.shape[-1]), dim=-1)
                        probs = torch.softmax(top.values, dim=-1)
                        hit = top.indices == t
                        per_layer.append((probs * hit).sum(-1).max())
                    f["logit_lens_max"] = torch.stack(per_layer)
                    f["internal_confidence"] = f["logit_lens_max"].max()
                if "glsim" in families:
                    text_rep = hs[layers.text][b, q].float()
                    glob = hs[layers.image][b, P - 1].float()
                    image = hs[layers.image][b, s:e]
                    probs = torch.softmax(_lens_probs(image, layers.image, L,
                                                      config.logit_lens_norm, final_norm,
                                                      lm_head), dim=-1)[:, t]
                    top = probs.topk(min(config.glsim_k, probs.shape[0])).indices
                    cos = torch.nn.functional.cosine_similarity
                    g = cos(text_rep, glob, dim=-1)
                    loc = cos(text_rep[None], image[top].float(), dim=-1).mean()
                    f["glsim_global"], f["glsim_local"] = g, loc
                    f["glsim_score"] = config.glsim_weight * g + (1 - config.glsim_weight) * loc
                    f["glsim_global_code"] = cos(hs[layers.text][b, P - 1].float(),
                                                 hs[layers.image][b, q].float(), dim=-1)
                if "uncertainty" in families:
                    log_probs = torch.log_softmax(outputs.logits[b, q].float(), dim=-1)
                    f["nll"] = -log_probs[t]
                    f["entropy"] = -(log_probs.exp() * log_probs).sum()
                rows.append(f)
            result[b] = rows
    return result


def reference_caption_features(outputs: Any, layouts: Sequence[RowLayout]) -> dict[int, dict]:
    """HALP: last-layer hidden state of the last prompt token, per batch row."""
    hs = outputs.hidden_states
    return {lay.row: {"halp_hidden": hs[-1][lay.row, lay.prompt_length - 1].float()}
            for lay in layouts}


def reference_text_features(outputs: Any, layouts: Sequence[RowLayout],
                            config: SignalConfig) -> dict[int, list[dict]]:
    """The text-only probe's hidden features from a text-only forward's hidden states."""
    hs = outputs.hidden_states
    L = len(hs) - 1
    mid = config.layers(L).mid
    result = {}
    for lay in layouts:
        result[lay.row] = [
            {"text_hidden_mid_w4": hs[mid][lay.row, lay.window_rows(m, config.hidden_at)]
             .float().mean(0),
             "text_hidden_last_w4": hs[L][lay.row, lay.window_rows(m, config.hidden_at)]
             .float().mean(0)}
            for m in lay.mentions]
    return result
