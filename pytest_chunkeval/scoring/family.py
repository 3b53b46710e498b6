"""Many paired tests, one decision: p-values adjusted across the family, and what a suite can detect at all.

A pull-request check runs a paired test per changed strategy, gating metric and suite, and fails when any one is
significant. Unadjusted, the chance that a harmless change turns the check red grows with every strategy and suite
added; adjusted across the family (Holm by default), it stays at most alpha for the whole run. Only the gating
metrics form the family; the others are reported with their raw p and never fail a run.

The minimum detectable effect answers the other half: "ok" from a suite of 40 queries means "no fall larger than
what 40 queries can see", and the report says how large that is (normal approximation of the paired test).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from pytest_chunkeval.core.vocabulary import FILE, NDCG, RECALL

#: p-value adjustments across the family: Holm's step-down (family-wise error, any dependence), Benjamini-Hochberg
#: (false discovery rate, for exploration), none (each test at alpha, unadjusted).
CORRECTIONS = ("holm", "bh", "none")
#: The metrics whose falls can fail a run, by (relevance mode, metric): file-mode NDCG and Recall, the ADR's two
#: headline numbers, judged on the view every strategy is fair in. MRR, chunk and line modes inform.
GATING = ((FILE, NDCG), (FILE, RECALL))
#: Tests one changed strategy adds to the family: its gating metrics and the paired test of its per-query hits
#: (queries lost against queries gained, :func:`~pytest_chunkeval.scoring.stats.hits_test`).
TESTS_PER_CHANGE = len(GATING) + 1
POWER = 0.80


def adjust(p_values: Sequence[float], method: str) -> list[float]:
    """Adjusted p-values in the input order (each in [0, 1])."""
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; one of {', '.join(CORRECTIONS)}")
    m = len(p_values)
    if method == "none" or m == 0:
        return [min(1.0, max(0.0, p)) for p in p_values]
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [0.0] * m
    if method == "holm":
        running = 0.0
        for rank, i in enumerate(order):  # step down: the smallest p is multiplied by m, the next by m - 1, ...
            running = max(running, min(1.0, (m - rank) * p_values[i]))
            out[i] = running
        return out
    running = 1.0
    for rank in range(m - 1, -1, -1):  # Benjamini-Hochberg, step up from the largest p
        i = order[rank]
        running = min(running, min(1.0, p_values[i] * m / (rank + 1)))
        out[i] = running
    return out


def per_test_alpha(alpha: float, family: int, method: str) -> float:
    """The level the smallest p of the family must reach to be significant: what one true regression must clear."""
    return alpha / family if method in ("holm", "bh") and family > 1 else alpha


def _z(alpha: float, power: float) -> float:
    from statistics import NormalDist  # imported here: the settings table (every pytest run) imports this module

    unit = NormalDist()
    return unit.inv_cdf(1 - alpha / 2) + unit.inv_cdf(power)


def spread(diffs: Sequence[float]) -> float:
    """Standard deviation of per-query differences (0 for fewer than two)."""
    from statistics import stdev

    return stdev(diffs) if len(diffs) > 1 else 0.0


def mde(sd: float, n: int, alpha: float, power: float = POWER) -> float | None:
    """The smallest fall of a mean a two-sided paired test at ``alpha`` detects with ``power``, given the per-query
    differences' standard deviation ``sd`` over ``n`` queries (None without queries)."""
    if n < 2:
        return None
    return _z(alpha, power) * sd / math.sqrt(n)


def queries_needed(sd: float, effect: float, alpha: float, power: float = POWER) -> int | None:
    """About how many paired queries detect a fall of ``effect`` (None when no spread was measured)."""
    if effect <= 0 or sd <= 0:
        return None
    return math.ceil((_z(alpha, power) * sd / effect) ** 2)
