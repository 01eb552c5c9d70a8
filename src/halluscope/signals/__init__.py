"""Signals: token alignment and single-pass, hook-reduced per-mention features.

>>> from halluscope.signals import align_span
>>> align_span([(0, 1), (2, 5)], 2, 5, prompt_length=7).token_index
8

Importing this package does not import torch: `capture`, `features`, `extract` import it in the
functions that run the model.
"""

from halluscope.signals.alignment import TokenAlignment, align_mentions, align_span
from halluscope.signals.features import SignalConfig

__all__ = ["SignalConfig", "TokenAlignment", "align_mentions", "align_span", "extract_signals"]


def extract_signals(*args, **kwargs):  # type: ignore[no-untyped-def]
    """Lazy alias of `halluscope.signals.extract.extract_signals` (see there)."""
    from halluscope.signals.extract import extract_signals as run

    return run(*args, **kwargs)
