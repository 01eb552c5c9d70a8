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

`DETECTOR_COLUMNS` is the one place that says which feature columns a detector reads; the names
are those written by `halluscope.signals` (see `FEATURE_SHAPES` in `base` for the shapes). A
detector built with `columns=(...)` reads other columns of the same shapes.
"""

from __future__ import annotations

import importlib
from typing import Any

from halluscope.errors import ConfigError

# name -> "module:Class"; imported only when asked for (sklearn / torch stay unloaded until then).
DETECTORS: dict[str, str] = {
    "svar": "halluscope.detectors.training_free:SVAR",
    "vade": "halluscope.detectors.training_free:VADE",
    "internal_confidence": "halluscope.detectors.training_free:InternalConfidence",
    "glsim": "halluscope.detectors.training_free:GLSim",
    "pas": "halluscope.detectors.training_free:PAS",
    "nll": "halluscope.detectors.training_free:NLL",
    "entropy": "halluscope.detectors.training_free:Entropy",
    "position": "halluscope.detectors.training_free:Position",
    "lookback_lens": "halluscope.detectors.probes:LookbackLens",
    "hidden_mid": "halluscope.detectors.probes:HiddenStateProbe",
    "hidden_last": "halluscope.detectors.probes:HiddenStateProbe",
    "text_only": "halluscope.detectors.probes:HiddenStateProbe",
    "dhcp": "halluscope.detectors.mlp:DHCP",
    "halp": "halluscope.detectors.mlp:HALP",
}

# Which per-mention feature columns each detector reads (adjust here if the extractor renames).
DETECTOR_COLUMNS: dict[str, tuple[str, ...]] = {
    "svar": ("image_attention",),
    "vade": ("image_attention_w4",),
    "internal_confidence": ("internal_confidence",),
    "glsim": ("glsim_global", "glsim_local"),
    "pas": ("pas_attention",),
    "nll": ("nll",),
    "entropy": ("entropy",),
    "position": ("caption_token_index",),
    "lookback_lens": ("lookback_ratio_w4",),
    "hidden_mid": ("hidden_mid_w4",),
    "hidden_last": ("hidden_last_w4",),
    "text_only": ("text_hidden_mid_w4",),
    "dhcp": ("dhcp_attention",),
    "halp": ("halp_hidden",),
}

TRAINING_FREE: tuple[str, ...] = ("svar", "vade", "internal_confidence", "glsim", "pas", "nll",
                                  "entropy")
TRAINED: tuple[str, ...] = ("lookback_lens", "hidden_mid", "hidden_last", "text_only", "dhcp")
# The paper's twelve detectors; HALP (reference) and position (baseline) are reported beside them.
TWELVE: tuple[str, ...] = TRAINING_FREE + TRAINED
REFERENCE: tuple[str, ...] = ("halp", "position")


def get_detector(name: str, **options: Any) -> Any:
    """Build the detector registered as `name`; `options` override its defaults.

    Every detector takes `columns` (default `DETECTOR_COLUMNS[name]`) and sets `name`.
    """
    if name not in DETECTORS:
        raise ConfigError(f"unknown detector {name!r}; choose one of {', '.join(DETECTORS)}")
    module_name, class_name = DETECTORS[name].split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    options.setdefault("columns", DETECTOR_COLUMNS[name])
    return cls(name=name, **options)
