"""DHCP and HALP score with their logits: no two distinct logits share a score, even far past
where a float32 sigmoid rounds to 1.0."""

from __future__ import annotations

import numpy as np
import pytest

from halluscope.bench.protocol import MentionTable, calibrated_threshold
from halluscope.detectors import get_detector

torch = pytest.importorskip("torch")


def _separable(n: int, width: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Hallucinated rows (y = 1) shifted by 3 in every coordinate."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    x = rng.normal(size=(n, width)) + 3.0 * y[:, None]
    return x.astype(np.float32), y


def _far(n: int, width: int, seed: int) -> np.ndarray:
    """Rows pushed 10 to 100 times further along the hallucinated direction than the fit set:
    a ReLU network is linear out there, so their logits grow far past 20, each to its own value."""
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(n, width)) + np.linspace(30, 300, n)[:, None]).astype(np.float32)


def _logits(detector, column: str, x: np.ndarray) -> np.ndarray:
    """The fitted network's logits, recomputed here in float64 from its weights."""
    prepared = detector._prepare({column: x})
    with torch.no_grad():
        net = detector._net.double()
        out = net(torch.from_numpy(prepared.astype(np.float64))).squeeze(1).numpy()
        detector._net.float()
    return out


@pytest.mark.parametrize("name, column, options", [
    ("dhcp", "dhcp_attention", {"hidden": (32,), "epochs": 60, "batch_size": 64}),
    ("halp", "halp_hidden", {"hidden": (32, 16), "epochs": 30, "batch_size": 16}),
])
def test_scores_are_logits_without_ties(name: str, column: str, options: dict) -> None:
    x, y = _separable(256, 12, 0)
    detector = get_detector(name, **options).fit({column: x}, y)
    far = _far(128, 12, 1)
    scores = detector.score({column: far})
    logits = _logits(detector, column, far)
    high = logits > 20
    # The inputs do what the test needs: many rows past the float32 sigmoid's saturation.
    assert high.sum() >= 50
    saturated = 1 / (1 + np.exp(-logits[high].astype(np.float32)))
    assert len(np.unique(saturated)) < high.sum() / 2  # a sigmoid score would tie here
    # Scores are the logits (float32 arithmetic, so equal to about 1e-5 relative) ...
    np.testing.assert_allclose(scores, logits, rtol=1e-4, atol=1e-3)
    # ... so distinct logits keep distinct scores, in the same order.
    assert len(np.unique(scores[high])) == len(np.unique(np.round(logits[high], 3)))
    order = np.argsort(logits[high])
    assert (np.diff(scores[high][order]) > 0).all()


def test_threshold_inside_the_saturated_range_separates_distinct_logits() -> None:
    # Calibrate where almost every score is far past 20: the 10% concrete FPR threshold must
    # still split rows by logit, which a saturated sigmoid (all 1.0) cannot.
    x, y = _separable(256, 12, 2)
    detector = get_detector("dhcp", hidden=(32,), epochs=60, batch_size=64).fit(
        {"dhcp_attention": x}, y)
    scores = detector.score({"dhcp_attention": _far(128, 12, 3)})
    assert np.median(scores) > 20
    labels = ["concrete"] * len(scores)  # the hallucinated rows play concrete: FPR 10%
    table = MentionTable.from_columns([str(i) for i in range(len(scores))], labels,
                                      [None] * len(scores))
    codes = np.ones(len(scores), dtype=np.int8)  # every row in calibration
    threshold, _ = calibrated_threshold(scores, table, codes, np.ones(len(scores), dtype=bool))
    flagged = scores > threshold
    # 128 distinct scores: the threshold flags 13 (k = 12.8, the closest count); tied at 1.0,
    # as a float32 sigmoid leaves them, it could flag none of them.
    assert len(scores) == 128 and len(np.unique(scores)) == 128
    assert flagged.sum() == 13
