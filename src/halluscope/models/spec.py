"""A VLM to load later, in the process that runs it: what a Ray actor receives instead of a
loaded model.

>>> ModelSpec("models/tiny", dtype="float32")
ModelSpec(model='models/tiny', dtype='float32', device='cpu', attn_implementation='sdpa')
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ModelSpec:
    """`load_adapter`'s arguments, kept to load the model where the work runs."""

    model: str
    dtype: str = "auto"
    device: str = "cpu"
    attn_implementation: str = "sdpa"

    def check(self) -> None:
        """Fail now, in the driver, on a model folder whose family has no adapter (a hub id
        is checked when it is loaded)."""
        from halluscope.models.registry import (adapter_class, family_for_model_type,
                                                read_model_type)

        if Path(self.model).is_dir():
            adapter_class(family_for_model_type(read_model_type(self.model)))

    def load(self) -> Any:
        from halluscope.models.registry import load_adapter

        return load_adapter(self.model, dtype=self.dtype, device=self.device,
                            attn_implementation=self.attn_implementation)
