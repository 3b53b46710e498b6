"""Is the best point better than today's defaults? Paired tests over the queries, Holm-adjusted.

Each comparison is the project's paired randomization (sign-flip) test (:func:`~pytest_chunkeval.scoring.stats.
paired_test`), over the queries both points scored. Pooled over suites (:mod:`.pooled`) the test is *stratified*:
signs flip within each suite, and the statistic is the mean over suites of each suite's mean difference, so a suite
of 400 queries weighs as much as one of 40. That statistic is a weighted sum of the per-query differences (weight
``1 / (S * n_s)`` for a query of suite s, S suites of n_s queries), so it is exactly the plain test's statistic on
differences rescaled by ``N / (S * n_s)`` (N queries in all): :func:`stratified_test` rescales and calls the plain
test, and with one suite it *is* the plain test.

The best point is *chosen*: it is the highest of every point of the grid, and the highest of 26 noisy points beats
a default by chance far more often than one point picked beforehand would. So the family the p-values are
Holm-adjusted over (:func:`~pytest_chunkeval.scoring.family.adjust`) is every comparison the choice made: each point
that is not a default (and the best, when it is one) against each default it is not. The best point's rows report
their place in that family, so "better than the defaults" keeps its family-wise error at alpha however many points
the grid had (``Holm over 104 comparisons`` for 26 points and 4 defaults).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_chunkeval.core.grid import sort_key
from pytest_chunkeval.frontier.points import PerQuery, Point
from pytest_chunkeval.scoring.family import adjust
from pytest_chunkeval.scoring.stats import paired_test

RESAMPLES = 10_000
SEED = 0


def shared_differences(a: PerQuery, b: PerQuery) -> list[list[float]]:
    """Per suite both scored, the differences ``a - b`` over the queries both scored (suites with none left out)."""
    out = []
    for suite, qa in a.items():
        qb = b.get(suite, {})
        diffs = [qa[q] - qb[q] for q in qa if q in qb]
        if diffs:
            out.append(diffs)
    return out


def stratified_test(strata: Sequence[Sequence[float]], *, resamples: int = RESAMPLES, seed: int = SEED) -> float:
    """Two-sided sign-flip test of "the mean over strata of each stratum's mean difference is 0" (1.0 without
    differences). Exact when 2 ** N <= resamples, as :func:`paired_test` is."""
    groups = [list(s) for s in strata if len(s)]
    n = sum(len(g) for g in groups)
    if not n:
        return 1.0
    scaled = [d * n / (len(groups) * len(g)) for g in groups for d in g]
    return paired_test(scaled, [0.0] * n, resamples=resamples, seed=seed)


@dataclass(frozen=True)
class Versus:
    """The best point against one default point."""

    default: Point
    delta: float  # best - default, mean over suites of per-suite mean differences over the shared queries
    queries: int  # paired queries
    p_value: float
    p_holm: float  # adjusted over every point-against-default comparison (the module doc says why)
    compared: int  # the size of that family


def _compare(a: Point, d: Point, resamples: int, seed: int) -> tuple[float, int, float]:
    """(mean over suites of per-suite mean differences a - d, paired queries, stratified p)."""
    strata = shared_differences(a.per_query, d.per_query)
    delta = sum(sum(s) / len(s) for s in strata) / len(strata) if strata else 0.0
    return delta, sum(map(len, strata)), stratified_test(strata, resamples=resamples, seed=seed)


def against_defaults(best: Point, points: Sequence[Point], *, resamples: int = RESAMPLES,
                     seed: int = SEED) -> list[Versus]:
    """The best point against each default point of ``points`` other than itself, Holm-adjusted over every
    candidate-against-default comparison of ``points`` (candidates: the points that are not defaults, and the best)."""
    defaults = sorted((p for p in points if p.default and p.label != best.label),
                      key=lambda p: (sort_key(p.label), p.label))
    candidates = [p for p in points if (not p.default or p.label == best.label)]
    family = [(c, d) for c in candidates for d in defaults if c.label != d.label]
    tested = {(c.label, d.label): _compare(c, d, resamples, seed) for c, d in family}
    adjusted = dict(zip(tested, adjust([t[2] for t in tested.values()], "holm"), strict=True))
    rows = []
    for d in defaults:
        delta, n, p = tested[(best.label, d.label)]
        rows.append(Versus(d, delta, n, p, adjusted[(best.label, d.label)], len(tested)))
    return rows
