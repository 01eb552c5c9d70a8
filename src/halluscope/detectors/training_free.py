"""Training-free detectors (NAME-Bench Table 8, top): a score from the model, nothing fitted.

>>> import numpy as np
>>> attention = np.full((2, 32, 4), 0.3, dtype=np.float32); attention[1] = 0.1
>>> SVAR().score({"image_attention": attention}).round(2).tolist()   # less image attention
[-4.2, -1.4]

Differences from the original methods, on purpose (the paper's summary is implemented):
- SVAR (Jiang et al. 2025b) as published trains a small classifier on per-head visual attention
  ratios; the paper uses the training-free summary: minus the image-attention mass at the
  generation step, head-mean, summed over the middle layers 5..18 (of 32, scaled to depth).
- VADE (Prabhakaran et al. 2025) as published is a trained sequence model over attention maps;
  here it is VisAttnAgg: minus the mean image-attention mass over layers, heads and W4.
- PAS is read as the paper's summary says: the layer-0 attention mass of the object's generation
  step on the previously generated caption tokens, mean over heads, higher = more hallucinated
  (more reliance on the text already written, less on the image).
- GLSim uses the extractor's two components with the official weight 0.6 (`glsim_score` is the
  same number; reading the parts keeps the weight adjustable).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from halluscope.detectors.base import FeatureTable, TrainingFree, feature, scaled_layers


class SVAR(TrainingFree):
    """-sum over middle layers of head-mean image attention at the generation step.

    >>> SVAR().score({"image_attention": np.full((1, 32, 4), 0.25)}).tolist()  # 14 layers
    [-3.5]
    >>> SVAR(layers=[0]).score({"image_attention": np.full((1, 32, 4), 0.25)}).tolist()
    [-0.25]

    `layers` (0-based attention layers) defaults to 5..18 of 32 scaled to the model's depth
    (`scaled_layers`), e.g. 4..16 for a 28-layer model and 6..20 for a 36-layer one.

    Reading of the paper's "layers 5-18 of 32" (Table 8, Appendix B): as 0-based indices, both
    ends included, i.e. 14 layers, the 6th to the 19th counted from 1; the layer indices of
    `output_attentions` and of SVAR's code base start at 0. The 1-based reading (indices 4..17 on
    a 32-layer model) is `layers=range(4, 18)`, on the command line
    `--detector-option svar.layers=4,5,6,7,8,9,10,11,12,13,14,15,16,17`.

    >>> scaled_layers(5, 18, 32, 32) == tuple(range(5, 19))
    True
    """

    def __init__(self, name: str = "svar", columns: Sequence[str] = ("image_attention",),
                 layers: Sequence[int] | None = None):
        super().__init__(name, columns)
        self.layers = tuple(layers) if layers is not None else None

    def score(self, features: FeatureTable) -> np.ndarray:
        attention = feature(features, self.columns[0], ndim=2, detector=self.name)  # (n, L, H)
        layers = self.layers or scaled_layers(5, 18, 32, attention.shape[1])
        return -attention[:, list(layers)].mean(axis=2, dtype=np.float64).sum(axis=1)


class VADE(TrainingFree):
    """-mean image attention over layers, heads and the W4 window (VisAttnAgg).

    >>> VADE().score({"image_attention_w4": np.full((1, 2, 3), 0.25)}).tolist()
    [-0.25]
    """

    def __init__(self, name: str = "vade", columns: Sequence[str] = ("image_attention_w4",)):
        super().__init__(name, columns)

    def score(self, features: FeatureTable) -> np.ndarray:
        attention = feature(features, self.columns[0], ndim=2, detector=self.name)
        return -attention.mean(axis=(1, 2), dtype=np.float64)


class _Scalar(TrainingFree):
    """A scalar feature, times `sign` (-1 for scores defined with low = hallucinated)."""

    sign = 1.0

    def score(self, features: FeatureTable) -> np.ndarray:
        return self.sign * feature(features, self.columns[0], ndim=0,
                                   detector=self.name).astype(np.float64)


class InternalConfidence(_Scalar):
    """-(max over layers and image tokens of the object's logit-lens probability).

    >>> InternalConfidence().score({"internal_confidence": np.array([0.75, 0.25])}).tolist()
    [-0.75, -0.25]
    """

    sign = -1.0

    def __init__(self, name: str = "internal_confidence",
                 columns: Sequence[str] = ("internal_confidence",)):
        super().__init__(name, columns)


class NLL(_Scalar):
    """-log p(object token) at its generation step (uncertain = more likely hallucinated).

    >>> NLL().score({"nll": np.array([0.5, 2.5])}).tolist()
    [0.5, 2.5]
    """

    def __init__(self, name: str = "nll", columns: Sequence[str] = ("nll",)):
        super().__init__(name, columns)


class Entropy(_Scalar):
    """Entropy of the next-token distribution at the object's generation step.

    >>> Entropy().score({"entropy": np.array([0.5, 3.0])}).tolist()
    [0.5, 3.0]
    """

    def __init__(self, name: str = "entropy", columns: Sequence[str] = ("entropy",)):
        super().__init__(name, columns)


class Position(_Scalar):
    """Position-only baseline: the object token's index in the caption (later = higher).

    >>> Position().score({"caption_token_index": np.array([3, 40])}).tolist()
    [3.0, 40.0]
    """

    def __init__(self, name: str = "position", columns: Sequence[str] = ("caption_token_index",)):
        super().__init__(name, columns)


class GLSim(TrainingFree):
    """-(weight * global + (1 - weight) * local similarity); official weight 0.6.

    >>> GLSim().score({"glsim_global": np.array([1.0]), "glsim_local": np.array([0.5])}).tolist()
    [-0.8]
    """

    def __init__(self, name: str = "glsim",
                 columns: Sequence[str] = ("glsim_global", "glsim_local"), weight: float = 0.6):
        super().__init__(name, columns)
        self.weight = weight

    def score(self, features: FeatureTable) -> np.ndarray:
        g = feature(features, self.columns[0], ndim=0, detector=self.name).astype(np.float64)
        local = feature(features, self.columns[1], ndim=0, detector=self.name).astype(np.float64)
        return -(self.weight * g + (1.0 - self.weight) * local)


class PAS(TrainingFree):
    """Head-mean layer-0 attention on previously generated tokens (higher = hallucinated).

    >>> PAS().score({"pas_attention": np.array([[0.25, 0.75]])}).tolist()
    [0.5]
    """

    def __init__(self, name: str = "pas", columns: Sequence[str] = ("pas_attention",)):
        super().__init__(name, columns)

    def score(self, features: FeatureTable) -> np.ndarray:
        attention = feature(features, self.columns[0], ndim=1, detector=self.name)
        return attention.mean(axis=1, dtype=np.float64)
