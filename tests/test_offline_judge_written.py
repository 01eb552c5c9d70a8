"""The offline judge on VLM-style captions written for tuning it (`tests/data/usage_written.jsonl`).

1,660 captions written by LLM annotator sessions in the styles of LLaVA-1.5, InstructBLIP,
MiniGPT-4 and Shikra (detailed, run-on and one-line), each asked for many non-assertive mentions
in natural phrasings and for hard negatives (rounds 7 and 8, 430 captions, at the density of
real captions, with common cues in varied syntactic positions; round 9, 200, in the styles of
other models: GPT-4V, Qwen-VL, LLaVA-NeXT/CogVLM and short-caption models; round 10, the last
230, imitating the four models' real captions closely, 80 of them one first sentence each),
and labelled by the writer from the labelling guide
(`tests/data/usage_check_guide.md`) without reading the judge. Every rule added after they were
written was studied on them, so these are tuning figures, not held-out ones: the test guards
against regressions. A gold mention is placed at the `occurrence`-th whole-word, case-sensitive
match of its word; gold mentions the extractor does not produce there (words outside the
vocabulary such as "jeep", or compounds labelled as a whole) are not scored.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from test_offline_judge import judge  # noqa: F401  (the module-scoped judge fixture)
from test_offline_judge_styles import scored_pairs, usage_figures, well_formed_rows

WRITTEN = Path(__file__).parent / "data" / "usage_written.jsonl"


def whole_word_offset(caption: str, word: str, occurrence: int) -> int:
    """Character offset of the `occurrence`-th (1-based) whole-word match of `word`, or -1."""
    starts = [m.start() for m in re.finditer(r"\b" + re.escape(word) + r"\b", caption)]
    return starts[occurrence - 1] if len(starts) >= occurrence else -1


def test_written_file_is_well_formed():
    rows = well_formed_rows(WRITTEN, whole_word_offset)
    assert len(rows) == 1660
    assert {r["style"] for r in rows} == {"llava15", "instructblip", "minigpt4", "shikra",
                                          "gpt4v", "qwenvl", "llavanext", "short"}


@pytest.mark.slow
def test_offline_judge_on_written_vlm_captions(judge):
    figures = usage_figures(scored_pairs(judge, WRITTEN, whole_word_offset))
    print("offline judge on usage_written:", figures)
    # Measured (tuning figures, round 18's rules): 12,944 scored mentions, 97.5% agreement,
    # recall 95.2%, precision 97.1%; floors a little under them.
    assert figures["mentions"] >= 12800
    assert figures["agreement"] >= 0.96
    assert figures["recall"] >= 0.93
    assert figures["precision"] >= 0.96
