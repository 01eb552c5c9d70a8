"""THRONE's local seq2seq judges (`--throne-judge hf`) on tiny T5 models built from a config and
loaded back by path; the offline stand-in says it is one."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from halluscope.metrics.throne import ThroneQuery

pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

WORDS = ("<pad>", "</s>", "<unk>", "is", "there", "a", "dog", "in", "the", "image", "yes", "no")


def tiny_t5(folder: Path, answer: str | None, seed: int = 0) -> Path:
    """A 1-layer T5 with random weights and a word-level tokenizer, saved to `folder`.

    `answer` ("yes"/"no") zeroes the output layer and puts that word at id 0: every logit is 0,
    greedy decoding takes the first id, so the model answers `answer` to every question. With
    `answer=None` the weights stay random (some answer, not necessarily yes or no).
    """
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    words = list(WORDS)
    if answer is not None:
        words.remove(answer)
        words.insert(0, answer)
    vocab = {w: i for i, w in enumerate(words)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", special_tokens=[("</s>", vocab["</s>"])])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>",
                                   unk_token="<unk>")
    config = T5Config(vocab_size=len(words), d_model=16, d_kv=4, d_ff=32, num_layers=1,
                      num_decoder_layers=1, num_heads=2, pad_token_id=vocab["<pad>"],
                      eos_token_id=vocab["</s>"], decoder_start_token_id=vocab["<pad>"],
                      tie_word_embeddings=False)
    torch.manual_seed(seed)
    model = T5ForConditionalGeneration(config)
    if answer is not None:
        with torch.no_grad():
            model.lm_head.weight.zero_()
    model.save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


QUERIES = [ThroneQuery("A dog in the park.", "dog", 2, 5, "dog"),
           ThroneQuery("No cat here.", "cat", 3, 6, "cat"),
           ThroneQuery("A dog in the park.", "dog", 2, 5, "dog")]


def test_constant_judges_give_the_votes_counted_by_hand(tmp_path):
    from halluscope.bench.throne_hf import HFThroneJudge

    yes, no = tiny_t5(tmp_path / "yes", "yes"), tiny_t5(tmp_path / "no", "no")
    judge = HFThroneJudge([yes, no, yes])  # three judges x three formats
    votes = judge.judge(QUERIES)
    assert judge.votes_per_query == 9 and len(votes) == 3
    for v in votes:  # two yes-judges x 3 formats, one no-judge x 3 formats
        assert (v.n_yes, v.n_no, v.errors) == (6, 3, [])
        assert v.verdict("majority") == "present" and v.verdict("unanimous") == "disqualified"
    assert judge.stats["answers"] == 2 * 9  # two distinct (caption, class), asked once each
    assert judge.prompt_set["models"] == [str(yes), str(no), str(yes)]


def test_random_t5_runs_deterministically_and_counts_non_answers(tmp_path):
    from halluscope.bench.throne_hf import HFThroneJudge

    folder = tiny_t5(tmp_path / "random", None, seed=3)
    first = HFThroneJudge([folder]).judge(QUERIES)
    judge = HFThroneJudge([folder])
    again = judge.judge(QUERIES)
    assert [(v.votes, v.errors) for v in first] == [(v.votes, v.errors) for v in again]
    for v in again:  # every answer is a vote or a counted failure, never dropped
        assert len(v.votes) + len(v.errors) == 3
    failures = sum(judge.stats["failures"].values())
    assert failures == sum(len(v.errors) for v in again[:2])  # the third query repeats the first


def _table3_inputs(tmp_path: Path) -> tuple[Path, Path]:
    caption = "A dog in the park, possibly a cat."
    rows = [{"caption_index": 0, "mention_index": 0, "image_id": 1, "category": "dog",
             "word": "dog", "start": 2, "end": 5, "namebench_class": "concrete", "subtype": None,
             "present": True, "chair_hallucinated": False, "usage": "existential",
             "error": None},
            {"caption_index": 0, "mention_index": 1, "image_id": 1, "category": "cat",
             "word": "cat", "start": 30, "end": 33, "namebench_class": "non_assertive",
             "subtype": "hedged", "present": False, "chair_hallucinated": True,
             "usage": "non_assertive", "error": None}]
    mentions = tmp_path / "mentions.parquet"
    pq.write_table(pa.Table.from_pylist(rows), mentions)
    captions = tmp_path / "captions.jsonl"
    captions.write_text(json.dumps({"image_id": 1, "caption": caption}) + "\n")
    return mentions, captions


def test_cli_table3_with_hf_judges_and_the_offline_stand_in(tmp_path):
    from halluscope.cli.bench import app

    mentions, captions = _table3_inputs(tmp_path)
    yes = tiny_t5(tmp_path / "yes", "yes")
    base = ["table3", "--mentions", str(mentions), "--captions", str(captions)]
    result = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "hf"), "--throne-judge",
                                      "hf", *(["--throne-model", str(yes)] * 3)])
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "hf" / "table3.json").read_text())
    assert doc["throne"]["judge"] == "hf" and doc["throne"]["votes_per_query"] == 9
    assert doc["throne"]["stand_in"] is False
    rows = {r["group"]: r for r in doc["rows"]}
    # Always "yes": the absent hedged cat counts as hallucinated, the present dog does not.
    assert rows["hedged"]["throne_majority_pct"] == 100.0
    assert rows["concrete"]["throne_majority_pct"] == 0.0

    offline = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "off"), "--throne-judge",
                                       "offline"])
    assert offline.exit_code == 0, offline.output
    assert "warning: offline THRONE stand-in" in offline.output
    doc = json.loads((tmp_path / "off" / "table3.json").read_text())
    assert doc["throne"]["stand_in"] is True and "not THRONE" in doc["throne"]["warning"]
    assert "WARNING: offline THRONE stand-in" in (tmp_path / "off" / "table3.md").read_text()


def test_cli_table3_needs_a_judge_and_a_loadable_model(tmp_path):
    from halluscope.cli.bench import app

    mentions, captions = _table3_inputs(tmp_path)
    base = ["table3", "--mentions", str(mentions), "--captions", str(captions), "--out",
            str(tmp_path / "o")]
    assert CliRunner().invoke(app, base).exit_code == 2  # no default judge any more
    missing = CliRunner().invoke(app, [*base, "--throne-judge", "hf"])
    assert missing.exit_code == 2 and "--throne-model" in missing.output
    bad = CliRunner().invoke(app, [*base, "--throne-judge", "hf", "--throne-model",
                                   str(tmp_path / "nowhere")])
    assert bad.exit_code == 2 and "cannot load" in bad.output
    assert len(bad.output.strip().splitlines()) == 1
