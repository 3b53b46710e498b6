"""p-value adjustment across the family of gating tests, and the minimum detectable effect: small pure functions
checked against hand-computed values and an independent implementation (scipy's Benjamini-Hochberg)."""
from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_chunkeval.scoring.family import adjust, mde, per_test_alpha, queries_needed


def test_holm_steps_down_from_the_smallest_p() -> None:
    # p sorted: 0.01 (x4), 0.02 (x3), 0.03 (x2), 0.04 (x1) -> 0.04, 0.06, 0.06 (monotone), 0.06
    assert adjust([0.03, 0.01, 0.04, 0.02], "holm") == pytest.approx([0.06, 0.04, 0.06, 0.06])
    assert adjust([0.5, 0.9], "holm") == [1.0, 1.0]  # capped at 1


def test_bh_matches_scipy() -> None:
    scipy_stats = pytest.importorskip("scipy.stats")
    ps = [0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216]
    assert adjust(ps, "bh") == pytest.approx(list(scipy_stats.false_discovery_control(ps, method="bh")))


def test_none_keeps_each_test_at_its_own_p_and_an_unknown_method_is_refused() -> None:
    assert adjust([0.2, 0.01], "none") == [0.2, 0.01]
    assert adjust([], "holm") == []
    with pytest.raises(ValueError, match="unknown correction 'bonf'"):
        adjust([0.1], "bonf")


@given(st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=30))
def test_adjusted_p_values_are_never_smaller_and_holm_is_never_below_bh(ps: list[float]) -> None:
    holm, bh = adjust(ps, "holm"), adjust(ps, "bh")
    for raw, h, b in zip(ps, holm, bh, strict=True):
        assert h >= raw - 1e-12 and b >= raw - 1e-12 and h >= b - 1e-12 and h <= 1 and b <= 1


def test_the_mde_shrinks_with_the_square_root_of_the_queries() -> None:
    # two-sided alpha 0.05 and 80 % power: z = 1.95996 + 0.84162 = 2.80158
    assert mde(0.3, 100, 0.05) == pytest.approx(2.80158 * 0.3 / 10, rel=1e-4)
    assert mde(0.3, 400, 0.05) == pytest.approx(mde(0.3, 100, 0.05) / 2)
    assert mde(0.3, 1, 0.05) is None
    # queries needed to see a fall of 0.01 with sd 0.3: (2.80158 * 0.3 / 0.01) ** 2 = 7063.97 -> 7064
    assert queries_needed(0.3, 0.01, 0.05) == math.ceil((2.80158 * 0.3 / 0.01) ** 2 - 1e-6)
    assert queries_needed(0.0, 0.01, 0.05) is None


def test_the_per_test_alpha_is_what_the_smallest_p_must_reach() -> None:
    assert per_test_alpha(0.05, 10, "holm") == pytest.approx(0.005)
    assert per_test_alpha(0.05, 10, "none") == 0.05
    assert per_test_alpha(0.05, 1, "holm") == 0.05
