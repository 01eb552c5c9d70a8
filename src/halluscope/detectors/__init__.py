"""Hallucination detectors of NAME-Bench (Table 8), built by name; nothing heavy is imported here.

>>> sorted(TWELVE) == sorted(TRAINING_FREE + TRAINED)
True
>>> get_detector("vade").columns
('image_attention_w4',)
>>> get_detector("svar", layers=(0, 1)).layers
(0, 1)

Every detector has `fit(features, labels)` (a no-op for training-free ones, returning self) and
`score(features)` (one float per mention; higher = more likely hallucinated). `features` maps a
column name to an array with one row per mention (`halluscope.detectors.base.FeatureTable`);
`labels` is 1 for hallucinated and 0 for concrete and for mixed-in non-assertive mentions.

`DETECTORS` is the one place that says which feature columns a detector reads (its `columns`
metadata, viewed as `DETECTOR_COLUMNS`). A detector built with `columns=(...)` reads other
columns of the same shapes. Adding a detector: a class with `fit`/`score` (and a docstring
example) in this package, and one `DETECTORS.add` line.
"""

from __future__ import annotations

from typing import Any

from halluscope.registry import Registry

# One entry per detector: its class (imported only when built, so sklearn / torch stay unloaded
# until then), the feature columns it reads (the names `halluscope.signals` writes; `FEATURE_SHAPES`
# in `base` gives their shapes) and its group: training-free or trained (the paper's twelve),
# reference (HALP), baseline (position) or mention (perturbation signatures, below).
DETECTORS = Registry("detector")
_FREE, _PROBES, _MLP = ("halluscope.detectors.training_free", "halluscope.detectors.probes",
                        "halluscope.detectors.mlp")
DETECTORS.add("svar", f"{_FREE}:SVAR", columns=("image_attention",), group="training_free")
DETECTORS.add("vade", f"{_FREE}:VADE", columns=("image_attention_w4",), group="training_free")
DETECTORS.add("internal_confidence", f"{_FREE}:InternalConfidence",
              columns=("internal_confidence",), group="training_free")
DETECTORS.add("glsim", f"{_FREE}:GLSim", columns=("glsim_global", "glsim_local"),
              group="training_free")
DETECTORS.add("pas", f"{_FREE}:PAS", columns=("pas_attention",), group="training_free")
DETECTORS.add("nll", f"{_FREE}:NLL", columns=("nll",), group="training_free")
DETECTORS.add("entropy", f"{_FREE}:Entropy", columns=("entropy",), group="training_free")
DETECTORS.add("position", f"{_FREE}:Position", columns=("caption_token_index",),
              group="baseline")
DETECTORS.add("lookback_lens", f"{_PROBES}:LookbackLens", columns=("lookback_ratio_w4",),
              group="trained")
DETECTORS.add("hidden_mid", f"{_PROBES}:HiddenStateProbe", columns=("hidden_mid_w4",),
              group="trained")
DETECTORS.add("hidden_last", f"{_PROBES}:HiddenStateProbe", columns=("hidden_last_w4",),
              group="trained")
DETECTORS.add("text_only", f"{_PROBES}:HiddenStateProbe", columns=("text_hidden_mid_w4",),
              group="trained")
DETECTORS.add("dhcp", f"{_MLP}:DHCP", columns=("dhcp_attention",), group="trained")
DETECTORS.add("halp", f"{_MLP}:HALP", columns=("halp_hidden",), group="reference")

# Mention-level perturbation signatures (`signals --perturbations`): not among the paper's twelve.
# The full vector is what `signals --perturbations blank,blur,crop,dark,noise` writes
# (`signals.perturbations.coordinate_columns`; a test checks the two agree).
_MENTION = "halluscope.detectors.mention"
_SIGNATURE = ("mention_v", "mention_v_dlogp", "mention_v_flip", "mention_l_conf",
              "mention_l_persist", "mention_l_match", "mention_l_stable", "mention_l_logratio")
MENTION_VECTOR: tuple[str, ...] = tuple(
    f"mention_{kind}_{condition}"
    for condition in ("clean", "blur", "crop", "dark", "noise", "blank")
    for kind in ("logprob", "rank")) + tuple(c + w for c in _SIGNATURE for w in ("", "_w4"))
DETECTORS.add("mention_v", f"{_MENTION}:MentionV", columns=("mention_v_dlogp",),
              group="mention", trained=False)
DETECTORS.add("mention_l", f"{_MENTION}:MentionL", columns=("mention_l_logratio",),
              group="mention", trained=False)
DETECTORS.add("mention_vl", f"{_MENTION}:MentionVL",
              columns=("mention_v_dlogp", "mention_l_logratio"), group="mention", trained=False)
DETECTORS.add("mention_probe", f"{_MENTION}:MentionProbe", columns=MENTION_VECTOR,
              group="mention", trained=True)

# Views of the registry, for the code that asks these questions often.
DETECTOR_COLUMNS: dict[str, tuple[str, ...]] = {
    e.name: e.metadata["columns"] for e in DETECTORS.entries()}
TRAINING_FREE: tuple[str, ...] = tuple(DETECTORS.select(group="training_free"))
TRAINED: tuple[str, ...] = tuple(DETECTORS.select(group="trained"))
# The paper's twelve detectors; HALP (reference) and position (baseline) are reported beside them.
TWELVE: tuple[str, ...] = TRAINING_FREE + TRAINED
REFERENCE: tuple[str, ...] = ("halp", "position")
MENTION: tuple[str, ...] = tuple(DETECTORS.select(group="mention"))
# Fitted again at every mixing budget: the paper's trained detectors and the mention probe.
MIXED: tuple[str, ...] = TRAINED + tuple(DETECTORS.select(group="mention", trained=True))


def get_detector(name: str, **options: Any) -> Any:
    """Build the detector registered as `name`; `options` override its defaults.

    Every detector takes `columns` (default `DETECTOR_COLUMNS[name]`) and sets `name`.
    """
    cls = DETECTORS.load(name)
    options.setdefault("columns", DETECTOR_COLUMNS[name])
    return cls(name=name, **options)
