"""CHAIR on the four real OPERA caption sets: internal consistency and the reference's figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from halluscope.metrics.chair import compute_chair, load_gt_objects
from halluscope.vocab.chair import ChairVocabulary, load_chair_vocabulary

# Counts behind the overall figures, taken from a run of the reference implementation
# (Maxlinn/CHAIR-metric-standalone chair.py with pattern's own singularize and punkt sentence
# splitting, run outside this repository on these files): (hallucinated captions, captions),
# (hallucinated mentions, object mentions), (recalled gt objects, gt objects). halluscope's
# port matched that run exactly, per caption as well as overall.
REFERENCE_COUNTS = {
    "llava-1.5": ((225, 500), (478, 3739), (1216, 1524)),
    "instructblip": ((286, 500), (496, 2184), (1066, 1548)),
    "minigpt4": ((145, 500), (233, 2522), (949, 1524)),
    "shikra": ((278, 500), (573, 3694), (1184, 1524)),
}


@pytest.fixture(scope="module")
def vocab(shared_data: Path) -> ChairVocabulary:
    return load_chair_vocabulary(shared_data / "chair_reference" / "chair_vocabulary.json")


@pytest.fixture(scope="module")
def gt(shared_data: Path) -> dict[int, set[str]]:
    return load_gt_objects(shared_data / "coco" / "chair_gt_objects_coco2014.json")


@pytest.fixture(scope="module", params=sorted(REFERENCE_COUNTS))
def scored(request: pytest.FixtureRequest, shared_data: Path, vocab: ChairVocabulary,
           gt: dict[int, set[str]]) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    path = shared_data / "captions" / f"opera_{request.param}_greedy.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return request.param, records, compute_chair(records, gt, vocab)


def test_order_and_identity_kept(scored: tuple[str, list[dict[str, Any]], dict[str, Any]]) -> None:
    _, records, out = scored
    assert [(c["image_id"], c["caption"]) for c in out["captions"]] == \
           [(r["image_id"], r["caption"]) for r in records]


def test_overall_recomputed_from_captions(
        scored: tuple[str, list[dict[str, Any]], dict[str, Any]]) -> None:
    _, _, out = scored
    captions = out["captions"]
    hallucinated = sum(1 for c in captions if c["hallucinated_words"])
    mentions = sum(len(c["generated_words"]) for c in captions)
    wrong = sum(len(c["hallucinated_words"]) for c in captions)
    recalled = sum(len(set(c["generated_words"]) & set(c["gt_words"])) for c in captions)
    total_gt = sum(len(c["gt_words"]) for c in captions)
    assert out["overall"] == {"CHAIRs": hallucinated / len(captions), "CHAIRi": wrong / mentions,
                              "Recall": recalled / total_gt}


def test_caption_lists_agree(scored: tuple[str, list[dict[str, Any]], dict[str, Any]],
                             vocab: ChairVocabulary) -> None:
    _, _, out = scored
    for c in out["captions"]:
        gt_words = set(c["gt_words"])
        assert [n for _, n in c["hallucinated_words"]] == [w for w in c["generated_words"]
                                                             if w not in gt_words]
        assert c["mscoco_hallucinated_words"] == c["hallucinated_words"]
        assert all(vocab.inverse_synonym_dict[w] == n for w, n in c["mscoco_hallucinated_words"])
        assert len(c["hallucination_idxs"]) == len(c["hallucinated_words"])
        assert c["hallucination_idxs"] == sorted(c["hallucination_idxs"])
        # every node word is a mention of an object form that survived two-word merging
        objects_in_words = [vocab.inverse_synonym_dict[w] for w in c["words"] if vocab.is_object(w)]
        if not ("toilet" in c["words"] and "seat" in c["words"]):
            assert objects_in_words == c["generated_words"]
        assert c["metrics"]["CHAIRs"] == int(bool(c["hallucinated_words"]))


def test_figures_equal_reference_run(
        scored: tuple[str, list[dict[str, Any]], dict[str, Any]]) -> None:
    name, _, out = scored
    (hc, n), (hm, m), (rc, g) = REFERENCE_COUNTS[name]
    assert out["overall"]["CHAIRs"] == hc / n
    assert out["overall"]["CHAIRi"] == hm / m
    assert out["overall"]["Recall"] == rc / g
    assert sum(1 for c in out["captions"] if c["hallucinated_words"]) == hc
    assert sum(len(c["generated_words"]) for c in out["captions"]) == m
