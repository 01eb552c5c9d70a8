"""Detectors (NAME-Bench Table 8): registry, directions, planted signal, determinism, runner."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from halluscope.bench.protocol import MentionTable, auc
from halluscope.detectors import (DETECTOR_COLUMNS, DETECTORS, MENTION, REFERENCE, TWELVE,
                                  get_detector)
from halluscope.detectors.base import features_from_arrow
from halluscope.bench.runner import budget_count, run_protocol
from halluscope.errors import ConfigError, InputError

L, H, D = 8, 4, 16


def test_registry_builds_every_detector_with_its_columns():
    assert len(TWELVE) == 12 and set(TWELVE) | set(REFERENCE) | set(MENTION) == set(DETECTORS)
    for name in DETECTORS:
        detector = get_detector(name)
        assert detector.name == name and detector.columns == DETECTOR_COLUMNS[name]
        assert hasattr(detector, "fit") and hasattr(detector, "score")
    with pytest.raises(ConfigError, match="unknown detector 'nope'"):
        get_detector("nope")


def test_importing_bench_and_detectors_loads_neither_torch_nor_sklearn():
    code = ("import sys, halluscope.bench.protocol, halluscope.cli.bench, halluscope.detectors, "
            "halluscope.bench.runner, halluscope.detectors.training_free; "
            "print(sorted(m for m in ('torch', 'sklearn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- training-free directions on constructed inputs -----------------------------------------

def pair(column: str, low, high) -> dict[str, np.ndarray]:
    return {column: np.stack([np.asarray(low, np.float32), np.asarray(high, np.float32)])}


def higher_second(name: str, features) -> bool:
    s = get_detector(name).score(features)
    return bool(s[1] > s[0])


def test_svar_less_middle_layer_image_attention_scores_higher():
    grounded, ungrounded = np.full((32, H), 0.4), np.full((32, H), 0.1)
    assert higher_second("svar", pair("image_attention", grounded, ungrounded))
    # Only layers 5..18 count: attention elsewhere changes nothing.
    other = grounded.copy()
    other[:5] = 0.9
    other[19:] = 0.0
    s = get_detector("svar").score(pair("image_attention", grounded, other))
    assert s[0] == pytest.approx(s[1])
    # A 28-layer model reads layers 4..16.
    assert get_detector("svar").score({"image_attention": np.ones((1, 28, H))})[0] == -13


def test_vade_internal_confidence_glsim_pas_nll_entropy_position_directions():
    assert higher_second("vade", pair("image_attention_w4", np.full((L, H), .3),
                                      np.full((L, H), .1)))
    assert higher_second("internal_confidence", pair("internal_confidence", 0.9, 0.2))
    assert higher_second("nll", pair("nll", 0.1, 3.0))
    assert higher_second("entropy", pair("entropy", 0.5, 2.5))
    assert higher_second("position", pair("caption_token_index", 3, 40))
    assert higher_second("pas", pair("pas_attention", np.full(H, 0.1), np.full(H, 0.6)))
    glsim = {"glsim_global": np.array([0.8, 0.2]), "glsim_local": np.array([0.5, 0.5])}
    assert higher_second("glsim", glsim)
    score = get_detector("glsim").score({"glsim_global": np.array([1.0]),
                                         "glsim_local": np.array([0.0])})
    assert score[0] == pytest.approx(-0.6)


def test_training_free_fit_is_a_no_op():
    detector = get_detector("nll")
    assert detector.fit({}, np.array([0, 1])) is detector and not detector.trained


def test_missing_or_misshapen_features_name_the_column():
    with pytest.raises(InputError, match="needs feature column 'image_attention'"):
        get_detector("svar").score({"nll": np.zeros(2)})
    with pytest.raises(InputError, match=r"feature 'nll' has shape \(2, 3\)"):
        get_detector("nll").score({"nll": np.zeros((2, 3))})
    with pytest.raises(InputError, match="NaN or infinite"):
        get_detector("hidden_mid").fit({"hidden_mid_w4": np.full((4, D), np.nan)},
                                       np.array([0, 1, 0, 1]))
    with pytest.raises(InputError, match="only label 0"):
        get_detector("lookback_lens").fit({"lookback_ratio_w4": np.zeros((4, L, H))},
                                          np.zeros(4, int))
    with pytest.raises(ConfigError, match="not fitted"):
        get_detector("hidden_last").score({"hidden_last_w4": np.zeros((2, D))})


# --- trained detectors recover planted signal -----------------------------------------------

def planted(n: int, seed: int, shape: tuple[int, ...], strength: float = 1.5):
    """Features ~ N(0,1) with `strength` added to 3 coordinates for hallucinated mentions."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    x = rng.normal(size=(n, int(np.prod(shape)))).astype(np.float32)
    x[:, :3] += strength * y[:, None]
    return x.reshape((n, *shape)), y


@pytest.mark.parametrize("name, column, shape, options", [
    ("lookback_lens", "lookback_ratio_w4", (L, H), {}),
    ("hidden_mid", "hidden_mid_w4", (D,), {}),
    ("text_only", "text_hidden_mid_w4", (D,), {}),
    ("dhcp", "dhcp_attention", (2, 2, 36), {"epochs": 8, "batch_size": 128}),
    ("dhcp", "dhcp_attention", (2, 2, 36), {"epochs": 8, "batch_size": 128, "precision": "bf16"}),
    ("halp", "halp_hidden", (D,), {"epochs": 3, "batch_size": 32, "hidden": (32, 16, 8)}),
])
def test_trained_detectors_find_planted_signal_and_are_deterministic(name, column, shape,
                                                                    options):
    x_fit, y_fit = planted(1200, 0, shape)
    x_test, y_test = planted(600, 1, shape)
    detector = get_detector(name, **options).fit({column: x_fit}, y_fit)
    scores = detector.score({column: x_test})
    assert scores.shape == (600,) and np.isfinite(scores).all()
    # Three coordinates shifted by 1.5: the Bayes AUC is Phi(1.5 * sqrt(3) / sqrt(2)) = 0.97.
    assert auc(scores[y_test == 1], scores[y_test == 0]) > 0.9
    again = get_detector(name, **options).fit({column: x_fit}, y_fit).score({column: x_test})
    assert np.array_equal(scores, again)


def test_mlp_seed_changes_the_fit():
    x, y = planted(400, 0, (D,))
    a = get_detector("dhcp", epochs=2, seed=0).fit({"dhcp_attention": x}, y)
    b = get_detector("dhcp", epochs=2, seed=1).fit({"dhcp_attention": x}, y)
    assert not np.array_equal(a.score({"dhcp_attention": x}), b.score({"dhcp_attention": x}))


def test_mlp_bf16_tracks_fp32_and_rejects_unknown_precision():
    x, y = planted(800, 0, (2, 2, 36))
    options = {"epochs": 4, "batch_size": 128}
    fp32 = get_detector("dhcp", **options).fit({"dhcp_attention": x}, y)
    bf16 = get_detector("dhcp", precision="bf16", **options).fit({"dhcp_attention": x}, y)
    a, b = fp32.score({"dhcp_attention": x}), bf16.score({"dhcp_attention": x})
    assert not np.array_equal(a, b)  # the option really changes the arithmetic
    # bfloat16 keeps 8 bits of mantissa: after 4 epochs the two fits rank mentions alike.
    assert np.corrcoef(a, b)[0, 1] > 0.98
    with pytest.raises(ConfigError, match="precision must be one of fp32, bf16"):
        get_detector("dhcp", precision="fp16")


# --- runner: budgets, mixing, row-order independence ----------------------------------------

def test_budget_counts():
    assert budget_count("0", 100, 900, 50, None) == (0, None)
    assert budget_count("10", 100, 900, 50, None) == (10, None)
    assert budget_count("100", 100, 900, 50, None)[0] == 50
    assert budget_count("max", 100, 900, 50, None) == (50, None)
    assert budget_count("nat", 100, 987, 50, 0.013)[0] == 13
    with pytest.raises(ConfigError, match="natural_share"):
        budget_count("nat", 100, 900, 50, None)
    with pytest.raises(ConfigError, match="unknown budget"):
        budget_count("lots", 100, 900, 50, None)


def mixing_data(n: int = 3000, seed: int = 0):
    """Hallucinations and non-assertive mentions share a 'hallucination' direction (dim 0);
    non-assertive mentions alone also move dim 1, so a probe that sees them can separate them."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(["concrete", "hallucinated", "non_assertive"], size=n, p=[.6, .2, .2])
    hidden = rng.normal(size=(n, D)).astype(np.float32)
    hidden[labels != "concrete", 0] += 2.0
    hidden[labels == "non_assertive", 1] += 2.0
    table = MentionTable.from_columns(
        [f"im{i // 3}" for i in range(n)], labels,
        ["hedged" if lab == "non_assertive" else None for lab in labels],
        key=[f"k{i}" for i in range(n)])
    features = {"hidden_mid_w4": hidden, "nll": hidden[:, 0].copy(),
                "caption_token_index": rng.integers(0, 50, size=n).astype(np.float32)}
    return table, features


def test_mixing_non_assertive_examples_lowers_their_fpr():
    table, features = mixing_data()
    report = run_protocol(table, features, ["hidden_mid", "nll", "position"], seeds=(0, 1),
                          budgets=("0", "30", "max"))
    before = report["mean"]["0"]["hidden_mid"]["na_fpr"]["mean"]
    after = report["mean"]["max"]["hidden_mid"]["na_fpr"]["mean"]
    assert before > 0.6 and after < 0.2
    assert set(report["mean"]["0"]) == {"hidden_mid", "nll", "position"}
    assert set(report["mean"]["30"]) == {"hidden_mid"}  # training-free: budget 0 only
    seed0 = report["per_seed"][0]["budgets"]
    assert seed0["0"]["n_mixed"] == 0 < seed0["30"]["n_mixed"] < seed0["max"]["n_mixed"]
    assert seed0["max"]["n_mixed"] == report["per_seed"][0]["split_counts"]["fit"][
        "non_assertive"]
    json.dumps(report, allow_nan=False)


def test_runner_results_ignore_row_order_and_repeat_exactly():
    table, features = mixing_data(900, seed=3)
    names = {"hidden_mid": {}, "nll": {}, "dhcp": {"columns": ("hidden_mid_w4",), "epochs": 2,
                                                  "batch_size": 64}}
    first = run_protocol(table, features, names, seeds=(0,), budgets=("0", "10"))
    order = np.random.default_rng(0).permutation(len(table))
    shuffled = MentionTable(table.image_id[order], table.label[order], table.subtype[order],
                            key=table.key[order])
    second = run_protocol(shuffled, {k: v[order] for k, v in features.items()}, names,
                          seeds=(0,), budgets=("0", "10"))
    for report in (first, second):
        report.pop("timings")
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def test_runner_reports_a_failing_detector_instead_of_crashing():
    table, features = mixing_data(300)
    report = run_protocol(table, features, ["hidden_mid", "svar"], seeds=(0,))
    svar = report["per_seed"][0]["budgets"]["0"]["detectors"]["svar"]
    assert svar["na_fpr"] is None and "image_attention" in svar["notes"][0]
    assert report["mean"]["0"]["hidden_mid"]["na_fpr"]["mean"] is not None


# --- feature tables from the extractor's Parquet layout -------------------------------------

def test_features_from_arrow_nested_lists_and_ragged_rows():
    t = pa.table({"image_attention": [np.ones((L, H)).tolist(), np.zeros((L, H)).tolist()],
                  "nll": [0.1, None]})
    f = features_from_arrow(t, ["image_attention", "nll"])
    assert f["image_attention"].shape == (2, L, H) and f["image_attention"].dtype == np.float32
    assert np.isnan(f["nll"][1])
    ragged = pa.table({"pas_attention": [[0.1, 0.2], [0.3]]})
    with pytest.raises(InputError, match="ragged"):
        features_from_arrow(ragged, ["pas_attention"])
    with pytest.raises(InputError, match="no feature column 'x'"):
        features_from_arrow(t, ["x"])
