"""Model families: family name -> its adapter class, imported only when a model is loaded.

>>> family_for_model_type("qwen2_5_vl")
'qwen2_5_vl'
>>> family_for_model_type("bert")
Traceback (most recent call last):
...
halluscope.errors.ConfigError: unsupported model_type 'bert'; supported: gemma3, internvl, llava, llava_next, llava_onevision, qwen2_5_vl, qwen2_vl, qwen3_vl

`load_adapter(path_or_id)` reads `model_type` from the checkpoint's config.json to pick the
family when none is given.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from halluscope.errors import ConfigError, HalluscopeError
from halluscope.registry import Registry

# One entry per family: its adapter, and the config.json `model_type` values it reads.
FAMILIES = Registry("model family")
FAMILIES.add("gemma3", "halluscope.models.gemma3:Gemma3Adapter", model_types=("gemma3",))
FAMILIES.add("internvl", "halluscope.models.internvl:InternVLAdapter", model_types=("internvl",))
FAMILIES.add("llava", "halluscope.models.llava:LlavaAdapter", model_types=("llava",))
FAMILIES.add("llava_next", "halluscope.models.llava_next:LlavaNextAdapter",
             model_types=("llava_next",))
FAMILIES.add("llava_onevision", "halluscope.models.llava_onevision:LlavaOnevisionAdapter",
             model_types=("llava_onevision",))
FAMILIES.add("qwen2_5_vl", "halluscope.models.qwen2_vl:Qwen2_5_VLAdapter",
             model_types=("qwen2_5_vl",))
FAMILIES.add("qwen2_vl", "halluscope.models.qwen2_vl:Qwen2VLAdapter", model_types=("qwen2_vl",))
FAMILIES.add("qwen3_vl", "halluscope.models.qwen3_vl:Qwen3VLAdapter", model_types=("qwen3_vl",))


def model_types() -> dict[str, str]:
    """config.json `model_type` -> family, over every registered family."""
    return {t: e.name for e in FAMILIES.entries() for t in e.metadata["model_types"]}


def family_for_model_type(model_type: str) -> str:
    """The family registered for a config.json `model_type`, or a ConfigError."""
    known = model_types()
    if model_type not in known:
        raise ConfigError(f"unsupported model_type {model_type!r}; supported: "
                          f"{', '.join(sorted(known))}")
    return known[model_type]


def read_model_type(path_or_id: str | Path) -> str:
    """`model_type` from a local folder's config.json, or from the hub config (cache first)."""
    folder = Path(path_or_id)
    if folder.is_dir():
        config_file = folder / "config.json"
        if not config_file.is_file():
            raise ConfigError(f"{folder} has no config.json; is it a model folder?")
        try:
            config = json.loads(config_file.read_bytes().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise ConfigError(f"{config_file}: not valid JSON ({exc})") from None
        if not isinstance(config, dict):
            raise ConfigError(f"{config_file}: expected a JSON object, got "
                              f"{type(config).__name__}")
        model_type = config.get("model_type")
    else:
        try:
            from transformers import AutoConfig

            model_type = AutoConfig.from_pretrained(str(path_or_id)).model_type
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read the config of {str(path_or_id)!r}: not a local "
                              f"folder and not loadable from the hub ({exc})") from exc
    if not model_type:
        raise ConfigError(f"{path_or_id}: config.json has no model_type; pass family=")
    return str(model_type)


def adapter_class(family: str) -> type:
    """The adapter class of `family` (imports its module)."""
    return FAMILIES.load(family)


def load_adapter(path_or_id: str | Path, family: str | None = None, **options: Any) -> Any:
    """Load a VLM with its family's adapter; options go to `VLMAdapter.load` (dtype, device,
    device_map, attn_implementation, ...)."""
    if family is None:
        family = family_for_model_type(read_model_type(path_or_id))
    adapter = adapter_class(family)
    from safetensors import SafetensorError

    try:
        return adapter.load(str(path_or_id), **options)
    except (OSError, ValueError, KeyError, TypeError, RuntimeError, SafetensorError) as exc:
        if isinstance(exc, HalluscopeError) or not Path(path_or_id).is_dir():
            raise
        # A local folder that does not load (weights cut short or missing, a config that does
        # not fit them): one line naming the folder, not a transformers traceback.
        detail = " ".join(str(exc).split())[:300]
        raise ConfigError(f"{path_or_id}: cannot load the model ({type(exc).__name__}: "
                          f"{detail})") from None
