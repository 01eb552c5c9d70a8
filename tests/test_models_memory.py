"""The memory estimate against what a loaded model really holds."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from halluscope.models.memory import (DTYPE_BYTES, count_parameters, estimate_memory,  # noqa: E402
                                      kv_cache_bytes_per_token)


@pytest.fixture(scope="module", params=["llava", "qwen2_5_vl", "gemma3"])
def tiny(request, tmp_path_factory) -> Path:
    from halluscope.models.tiny import make_tiny

    return make_tiny(request.param, tmp_path_factory.mktemp(request.param) / "m", layers=2,
                     hidden=32, heads=4, seed=0, image_size=56)


def test_parameter_count_equals_the_loaded_model(tiny: Path) -> None:
    from transformers import AutoConfig

    from halluscope.models import load_adapter

    adapter = load_adapter(tiny, dtype="float32")
    loaded = sum(p.numel() for p in adapter.model.parameters())
    assert count_parameters(AutoConfig.from_pretrained(tiny)) == loaded


def test_kv_cache_per_token_equals_the_cache_a_forward_fills(tiny: Path, picture) -> None:
    from transformers import AutoConfig

    from halluscope.models import load_adapter

    adapter = load_adapter(tiny, dtype="float32")
    batch = adapter.encode([picture(0, (56, 56))], ["Describe the image."])
    with torch.no_grad():
        out = adapter.model(**batch.inputs, use_cache=True)
    cache = out.past_key_values
    held = sum(t.numel() * t.element_size() for layer in cache.layers
               for t in (layer.keys, layer.values))
    tokens = batch.inputs["input_ids"].shape[1]
    config = AutoConfig.from_pretrained(tiny)
    assert held == tokens * kv_cache_bytes_per_token(config, dtype="float32")


def test_estimate_adds_up_and_scales() -> None:
    from transformers import CLIPVisionConfig, LlamaConfig, LlavaConfig

    cfg = LlavaConfig(vision_config=CLIPVisionConfig(hidden_size=32, intermediate_size=64,
                                                     num_hidden_layers=1, num_attention_heads=2,
                                                     image_size=28, patch_size=14),
                      text_config=LlamaConfig(vocab_size=100, hidden_size=32,
                                              intermediate_size=64, num_hidden_layers=2,
                                              num_attention_heads=4, num_key_value_heads=2))
    one = estimate_memory(cfg, dtype="bfloat16", batch_size=1, image_tokens=4, prompt_tokens=6,
                          new_tokens=10, parameters=1000)
    two = estimate_memory(cfg, dtype="bfloat16", batch_size=2, image_tokens=4, prompt_tokens=6,
                          new_tokens=10, parameters=1000)
    assert one.weights == 1000 * DTYPE_BYTES["bfloat16"] == two.weights
    # 2 (K, V) x 2 layers x 2 KV heads x 8 dims x 2 bytes x 20 tokens
    assert one.kv_cache == 2 * 2 * 2 * 8 * 2 * 20 and two.kv_cache == 2 * one.kv_cache
    assert estimate_memory(cfg, command="signals", parameters=1000).kv_cache == 0
    assert one.total >= one.weights + one.kv_cache + one.logits + one.activations
    with pytest.raises(ValueError, match="dtype"):
        estimate_memory(cfg, dtype="int3", parameters=1)


def test_memory_command_prints_three_commands(tiny: Path) -> None:
    from typer.testing import CliRunner

    from halluscope.cli.models import app

    result = CliRunner().invoke(app, ["memory", "--model", str(tiny), "--batch-size", "2"])
    assert result.exit_code == 0, result.output
    assert [line.split()[0] for line in result.output.splitlines()[2:]] == [
        "caption", "signals", "probe"]
    bad = CliRunner().invoke(app, ["memory", "--model", str(tiny), "--dtype", "int3"])
    assert bad.exit_code == 2 and "dtype" in bad.output
    missing = CliRunner().invoke(app, ["memory", "--model", str(tiny / "nope")])
    assert missing.exit_code == 2 and "cannot read the config" in missing.output
