"""`make demo` end to end: embedded default (no ../shared), and the real caption sets."""

import json

import pyarrow.parquet as pq
import pytest

from halluscope.metrics.classes import CLASSES
from halluscope.demo.run import run_demo
from halluscope.text.usage.base import SUBTYPES


def test_embedded_demo_covers_every_class_and_subtype(tmp_path):
    printed = []
    run_demo(tmp_path, echo=printed.append, model=False)
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert summary["n_captions"] >= 30 and summary["n_judge_failures"] == 0
    assert all(summary["counts"]["class"][c] > 0 for c in CLASSES)
    assert all(summary["counts"]["subtype"][s] > 0 for s in SUBTYPES)
    assert summary["counts"]["usage"]["not_object"] > 0
    # the point of the report: the usage-aware rate is below the usage-agnostic one
    assert (summary["usage_aware"]["hallucination_rate"]["value"]
            < summary["usage_agnostic"]["hallucination_rate"]["value"])
    mentions = pq.read_table(tmp_path / "report" / "mentions.parquet").to_pylist()
    assert len(mentions) == summary["n_mentions"]
    assert "Usage-aware hallucination report" in printed[0]
    assert "Mentions that are not claims" in printed[1]


def test_model_demo_captions_and_extracts_signals(tmp_path):
    from halluscope.demo.model_demo import run_model_demo

    printed = []
    result = run_model_demo(tmp_path, echo=printed.append, images=3, layers=2, hidden=32,
                            max_new_tokens=8)
    assert result["captioning"].done == 3 and result["captioning"].errors == 0
    assert (tmp_path / "captioning" / "captions.jsonl").is_file()
    signals = result["signals"]
    assert signals["errors"] == 0 and signals["processed"] == 3
    rows = [r for shard in sorted((tmp_path / "signals" / "mentions").glob("*.parquet"))
            for r in pq.read_table(shard).to_pylist()]
    assert len(rows) == signals["mentions_written"] > 0
    assert all(0.0 <= sum(map(sum, r["image_attention"])) for r in rows)
    assert "teacher-forced" in printed[-1]
    # a rerun resumes: nothing is redone
    again = run_model_demo(tmp_path, echo=printed.append, images=3, layers=2, hidden=32,
                           max_new_tokens=8)
    assert again["captioning"].skipped == 3 and again["signals"]["skipped_done"] == 3


@pytest.mark.slow
def test_demo_on_real_caption_sets(shared_data, tmp_path):
    printed = []
    summaries = run_demo(tmp_path, data_root=shared_data, echo=printed.append)
    assert sorted(summaries) == [f"opera_{m}_greedy" for m in
                                 ("instructblip", "llava-1.5", "minigpt4", "shikra")]
    for name, summary in summaries.items():
        assert summary["n_captions"] == 500
        chair = summary["chair"]
        # every CHAIR hallucinated word is either aligned to a mention or counted apart
        assert (chair["aligned_to_mentions"] + chair["not_in_mention_vocabulary"]
                == chair["hallucinated_words"])
        assert 0 < summary["natural_rates"]["non_assertive_share"]["value"] < 0.5
        assert (tmp_path / name / "mentions.parquet").is_file()
    assert "CHAIRi" in printed[0]
