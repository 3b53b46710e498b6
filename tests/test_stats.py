"""Bootstrap intervals and the paired sign-flip test: coverage of the mean, determinism, power and its absence."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_chunkeval.scoring.stats import bootstrap_ci, paired_test, summarize


def _sample(seed: int, n: int = 30) -> list[float]:
    return list(np.random.default_rng(seed).uniform(0.0, 1.0, n))


@pytest.mark.parametrize("seed", range(5))
def test_interval_contains_the_mean_and_is_not_degenerate(seed: int):
    values = _sample(seed)
    low, high = bootstrap_ci(values)
    mean = float(np.mean(values))
    assert low < mean < high
    # A 95% interval of the mean of 30 uniforms is about +-2 standard errors (sd 0.29 / sqrt(30) = 0.053).
    assert 0.12 < high - low < 0.3


def test_interval_narrows_with_lower_confidence_and_more_data():
    values = _sample(1)
    w95 = np.subtract(*bootstrap_ci(values)[::-1])
    w50 = np.subtract(*bootstrap_ci(values, confidence=0.5)[::-1])
    assert w50 < w95
    big = _sample(1, n=300)
    assert np.subtract(*bootstrap_ci(big)[::-1]) < w95


def test_bootstrap_is_deterministic_per_seed():
    values = _sample(2)
    assert bootstrap_ci(values, seed=7) == bootstrap_ci(values, seed=7)
    assert bootstrap_ci(values, seed=7) != bootstrap_ci(values, seed=8)


def test_degenerate_inputs_do_not_produce_nan():
    assert bootstrap_ci([]) == (0.0, 0.0)
    assert bootstrap_ci([0.4]) == (0.4, 0.4)
    assert bootstrap_ci([0.5, 0.5, 0.5]) == (0.5, 0.5)
    assert summarize([]) == {"mean": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 0}
    assert summarize([0.25]) == {"mean": 0.25, "ci_low": 0.25, "ci_high": 0.25, "n": 1}
    assert paired_test([], []) == 1.0
    assert paired_test([0.3], [0.3]) == 1.0


def test_bad_input_is_rejected():
    with pytest.raises(ValueError):
        paired_test([1.0, 2.0], [1.0])
    with pytest.raises(ValueError):
        bootstrap_ci([float("nan"), 1.0])
    with pytest.raises(ValueError):
        bootstrap_ci([1.0, 2.0], confidence=1.0)


def test_summarize_reports_mean_interval_and_count():
    values = _sample(3, n=20)
    s = summarize(values)
    assert s["n"] == 20
    assert s["mean"] == pytest.approx(float(np.mean(values)))
    assert (s["ci_low"], s["ci_high"]) == bootstrap_ci(values)
    assert all(isinstance(s[key], float) for key in ("mean", "ci_low", "ci_high"))


def test_p_value_small_for_a_clear_paired_difference():
    rng = np.random.default_rng(0)
    base = rng.uniform(0.2, 0.8, 30)
    better = base + 0.1 + rng.normal(0, 0.05, 30)
    p = paired_test(better, base)
    assert p < 0.001
    assert p == paired_test(base, better)  # two-sided


def test_p_value_large_for_no_difference():
    rng = np.random.default_rng(1)
    a = rng.uniform(0.2, 0.8, 30)
    noise = rng.normal(0, 0.05, 30)
    assert paired_test(a + noise, a - noise + (2 * noise).mean()) > 0.5  # differences with mean exactly 0
    b = a + rng.normal(0, 0.05, 30)
    assert paired_test(a, b) > 0.05


def test_paired_test_is_deterministic_and_monte_carlo_p_is_never_zero():
    rng = np.random.default_rng(2)
    a, b = rng.uniform(0, 1, 40), rng.uniform(0, 1, 40)
    assert paired_test(a, b, seed=3) == paired_test(a, b, seed=3)
    assert paired_test(a + 1.0, a, resamples=999) == pytest.approx(1 / 1000)


def test_small_samples_are_enumerated_exactly():
    d = [0.3, -0.1, 0.2, 0.25, 0.05]
    observed = abs(sum(d)) / len(d)
    extreme = sum(
        abs(sum(s * x for s, x in zip(signs, d, strict=True))) / len(d) >= observed - 1e-12
        for signs in itertools.product([1, -1], repeat=len(d))
    )
    assert paired_test(d, [0.0] * 5) == pytest.approx(extreme / 32)
    # Three equal positive differences: only all-plus and all-minus are as extreme, p = 2 / 8.
    assert paired_test([1, 1, 1], [0, 0, 0]) == 0.25
    assert not math.isnan(paired_test([1.0], [0.0]))


# -- the per-query hit test (exact McNemar) ------------------------------------------------------------------------


@settings(deadline=None)  # the first example imports scipy
@given(st.integers(0, 60), st.integers(0, 60))
def test_the_hit_test_is_scipys_exact_two_sided_binomial_test(lost: int, gained: int) -> None:
    """An independent implementation as the oracle: scipy's exact binomial test at p = 1/2 on the discordant pairs
    (what McNemar's exact test is); no discordant pair is no evidence (1.0)."""
    from scipy.stats import binomtest

    from pytest_chunkeval.scoring.stats import hits_test

    expected = binomtest(lost, lost + gained, 0.5).pvalue if lost + gained else 1.0
    assert hits_test(lost, gained) == pytest.approx(expected, rel=1e-9, abs=1e-15)
    assert hits_test(lost, gained) == hits_test(gained, lost)  # two-sided: the direction is the tolerance's job


def test_the_hit_test_refuses_negative_counts() -> None:
    from pytest_chunkeval.scoring.stats import hits_test

    with pytest.raises(ValueError, match="non-negative"):
        hits_test(-1, 3)
