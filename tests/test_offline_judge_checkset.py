"""The offline judge on the usage check set (`tests/data/usage_check.jsonl` and
`usage_check_every_mention.jsonl`, see `usage_check.README.md`).

The set was labelled by two passes from NAME-Bench's definitions (the guide in
`tests/data/usage_check_guide.md`) on captions the judge was not developed on, and split once by
caption. Rules are studied on the `tune` half only; the `check` half is read here to report
figures. Ambiguous gold rows are dropped; agreement is over existential / non_assertive /
not_object; recall and precision are for non_assertive; subtype accuracy is among rows both the
gold labels and the judge call non_assertive.
"""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import pytest

from halluscope.text.mentions import extract_mentions
from halluscope.text.usage.offline import OfflineJudge

USAGES = ("existential", "non_assertive", "not_object")


def _builder():
    """`tests/data/build_usage_check.py`, whose `first_sentence` made the short captions."""
    spec = importlib.util.spec_from_file_location("build_usage_check",
                                                  Path(__file__).parent / "data" /
                                                  "build_usage_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


first_sentence = _builder().first_sentence
source_captions = _builder().source_captions
labelled_rows = _builder().labelled_rows


def caption_texts(shared_data: Path, rows: list[dict]) -> dict[tuple[str, int, str], str]:
    files: dict[str, list[str]] = {}
    texts = {}
    for row in rows:
        key = (row["source"], row["line"], row["variant"])
        if key in texts:
            continue
        if row["source"] not in files:
            files[row["source"]] = source_captions(shared_data, row["source"])
        caption = files[row["source"]][row["line"]]
        texts[key] = first_sentence(caption) if row["variant"] == "first_sentence" else caption
    return texts


def judge_rows(shared_data: Path, split: str) -> list[tuple[dict, object]]:
    """(gold row, judge label) for every row of `split`, ambiguous gold rows included."""
    rows = [r for r in labelled_rows() if r["split"] == split]
    texts = caption_texts(shared_data, rows)
    keys = list(texts)
    mentions = [extract_mentions(texts[k]) for k in keys]
    labels = OfflineJudge().label([texts[k] for k in keys], mentions)
    predicted = {(k, m.start, m.end): label
                 for k, ms, labs in zip(keys, mentions, labels) for m, label in zip(ms, labs)}
    out = []
    for row in rows:
        key = (row["source"], row["line"], row["variant"])
        assert texts[key][row["start"]:row["end"]] == row["word"], row
        assert row["trigger"] is None or row["trigger"] in texts[key], row
        out.append((row, predicted[(key, row["start"], row["end"])]))
    return out


def figures(pairs: list[tuple[dict, object]]) -> dict[str, object]:
    scored = [(row, label) for row, label in pairs if row["usage"] != "ambiguous"]
    confusion = Counter((row["usage"], label.usage) for row, label in scored)
    tp = confusion[("non_assertive", "non_assertive")]
    gold_na = sum(v for (g, _), v in confusion.items() if g == "non_assertive")
    pred_na = sum(v for (_, p), v in confusion.items() if p == "non_assertive")
    subtype_ok = sum(1 for row, label in scored if row["usage"] == label.usage == "non_assertive"
                     and row["subtype"] == label.subtype)
    return {"rows": len(scored),
            "agreement": sum(v for (g, p), v in confusion.items() if g == p) / len(scored),
            "recall": tp / gold_na, "precision": tp / pred_na,
            "subtype_accuracy": subtype_ok / tp,
            "confusion": {f"{g}->{p}": v for (g, p), v in sorted(confusion.items())}}


@pytest.mark.slow
def test_offline_judge_on_the_check_half(shared_data):
    result = figures(judge_rows(shared_data, "check"))
    print("offline judge on usage_check (check half):", result)
    # Regression floors at or a little under the measured 98.1% / 81.3% (39/48) / 88.6% (39/44)
    # / 94.9% (37/39); one mention is about 2 points. The goal (>= 93% agreement, >= 85% recall
    # and precision, >= 90% subtypes) is met for all but recall (two mentions short).
    assert result["agreement"] >= 0.97
    assert result["recall"] >= 0.81
    assert result["precision"] >= 0.88
    assert result["subtype_accuracy"] >= 0.92


def test_check_set_rows_are_consistent():
    rows = labelled_rows()
    assert len(rows) >= 1500
    assert {r["split"] for r in rows} == {"tune", "check"}
    for row in rows:
        assert row["usage"] in USAGES + ("ambiguous",)
        assert (row["subtype"] is not None) == (row["usage"] == "non_assertive")
        # One caption is wholly in one half.
    halves = {}
    for row in rows:
        assert halves.setdefault((row["source"], row["line"]), row["split"]) == row["split"]
