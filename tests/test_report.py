import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from halluscope.metrics.classes import namebench_class
from halluscope.data.captions import CaptionRecord
from halluscope.data.presence import Presence
from halluscope.metrics.rates import bootstrap_ratio
from halluscope.report.usage_report import build_usage_report, write_usage_report
from halluscope.text.labelling import label_mentions
from halluscope.text.usage.base import JudgeFailure, UsageLabel


class KeywordJudge:
    """Labels by a keyword before the mention, so expected classes are known by construction."""

    name = "keyword"

    def label(self, captions, mentions):
        out = []
        for caption, caption_mentions in zip(captions, mentions):
            labels = []
            for m in caption_mentions:
                before = caption[:m.start].lower().split()[-2:]
                if "maybe" in before:
                    labels.append(UsageLabel("non_assertive", "hedged", "maybe " + m.word,
                                             self.name))
                elif "broken" in before:
                    labels.append(JudgeFailure(self.name, "reply was not valid JSON"))
                elif "bus" in before:
                    labels.append(UsageLabel("not_object", None, None, self.name))
                else:
                    labels.append(UsageLabel("existential", None, None, self.name))
            out.append(labels)
        return out


RECORDS = [CaptionRecord(0, 1, 10, "A dog and maybe a cat."),
           CaptionRecord(1, 2, 11, "A car near maybe a dog and a broken chair."),
           CaptionRecord(2, 3, 12, "Nothing here."),
           CaptionRecord(3, 4, 12, "A man with an orange.")]
PRESENCE = Presence({10: frozenset({"dog"}), 11: frozenset({"dog"}), 12: frozenset({"person"})},
                    "ann.json")


def make_report(**kwargs):
    rows = label_mentions(RECORDS, KeywordJudge())
    return build_usage_report(rows, PRESENCE, [(r.index, r.image_id) for r in RECORDS],
                              n_resamples=200, **kwargs)


def test_classes_counts_and_rates():
    report = make_report()
    classes = [(m["word"], m["namebench_class"]) for m in report.mentions]
    assert classes == [("dog", "concrete"), ("cat", "non_assertive"), ("car", "hallucinated"),
                       ("dog", "non_assertive"), ("chair", None), ("man", "concrete"),
                       ("orange", None)]
    s = report.summary
    assert s["n_judge_failures"] == 1
    assert s["judge_failures_by_error"] == {"reply was not valid JSON": 1}
    assert s["counts"]["class"] == {"concrete": 2, "hallucinated": 1, "non_assertive": 2}
    assert s["counts"]["excluded_category"] == 1
    assert s["counts"]["non_assertive_by_presence"] == {"present": 1, "absent": 1}
    # usage-aware: 1 hallucinated of 3 existential; usage-agnostic: absent = cat, car (of 5)
    assert s["usage_aware"]["hallucination_rate"]["value"] == pytest.approx(1 / 3)
    assert s["usage_agnostic"]["hallucination_rate"]["value"] == pytest.approx(2 / 5)
    assert s["natural_rates"]["non_assertive_share"]["value"] == pytest.approx(2 / 5)
    assert [c["n_mentions"] for c in report.captions] == [2, 3, 0, 2]
    assert [c["usage_aware_hallucinated"] for c in report.captions] == [False, True, False, False]


def test_hedges_as_claims_switch():
    report = make_report(hedges_as_claims=True)
    assert report.summary["counts"]["class"] == {"concrete": 3, "hallucinated": 2,
                                                 "non_assertive": 0}


def test_chair_alignment_counts_non_assertive_share():
    chair = {"overall": {"CHAIRs": 0.5, "CHAIRi": 0.2, "Recall": 1.0}, "captions": [
        {"hallucinated_words": [["cat", "cat"]]},
        {"hallucinated_words": [["car", "car"], ["table", "dining table"]]},
        {"hallucinated_words": []}, {"hallucinated_words": []}]}
    report = make_report(chair=chair)
    c = report.summary["chair"]
    assert c["aligned_to_mentions"] == 2 and c["not_in_mention_vocabulary"] == 1
    assert c["non_assertive_share_of_hallucinated"]["value"] == pytest.approx(0.5)
    assert c["hallucinated_by_subtype"] == {"hedged": 1}


def test_written_tables(tmp_path):
    paths = write_usage_report(make_report(), tmp_path)
    mentions = pq.read_table(paths["mentions"]).to_pylist()
    assert len(mentions) == 7 and mentions[4]["error"] == "reply was not valid JSON"
    assert len(pq.read_table(paths["captions"]).to_pylist()) == 4
    assert json.loads(paths["summary_json"].read_text())["n_mentions"] == 7
    assert "Usage-aware hallucination report" in paths["summary_md"].read_text()
    assert not list(tmp_path.glob(".*.tmp"))


def test_unknown_image_is_an_error():
    from halluscope.errors import InputError

    rows = label_mentions([CaptionRecord(0, 1, 99, "A dog.")], KeywordJudge())
    with pytest.raises(InputError, match="image id 99"):
        build_usage_report(rows, PRESENCE, [(0, 99)])


def test_bootstrap_interval_matches_binomial_width():
    rng = np.random.default_rng(1)
    hits = rng.random(2000) < 0.3
    estimate = bootstrap_ratio(hits.astype(int), np.ones(2000, dtype=int), n_resamples=2000)
    half_width = 1.96 * np.sqrt(0.3 * 0.7 / 2000)
    assert estimate.low < estimate.value < estimate.high
    assert (estimate.high - estimate.low) / 2 == pytest.approx(half_width, rel=0.15)
    assert bootstrap_ratio(np.array([0]), np.array([0])).value is None


def test_bootstrap_is_seeded():
    args = (np.array([1, 0, 3, 2]), np.array([2, 1, 4, 2]))
    assert bootstrap_ratio(*args, seed=3) == bootstrap_ratio(*args, seed=3)


@pytest.mark.parametrize("usage, subtype, present, expected", [
    ("existential", None, True, "concrete"), ("existential", None, False, "hallucinated"),
    ("non_assertive", "negation", True, "non_assertive"), ("ambiguous", None, False, None),
    ("not_object", None, False, None)])
def test_namebench_class(usage, subtype, present, expected):
    assert namebench_class(usage, subtype, present) == expected
