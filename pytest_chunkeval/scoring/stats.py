"""Uncertainty for per-query metric means: bootstrap intervals and a paired randomization test.

Golden suites are small (tens of queries), so a mean without an interval invites over-reading one query's luck, and
two strategies must be compared query by query (paired), not as two independent samples.  Everything is seeded so
that the same inputs always give the same numbers (DESIGN.md, "Deterministic").

Degenerate inputs never produce NaN (which would also break JSON reports):

* n = 0: mean and interval are 0.0, ``n`` says there was nothing; :func:`paired_test` returns 1.0 (no evidence).
* n = 1: the interval collapses to the single value.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np

__all__ = ["bootstrap_ci", "compare_paired", "hits_test", "paired_test", "summarize"]

# Resampled means are computed in blocks of at most this many numbers, to bound memory on large suites.
_BLOCK = 2_000_000


def _as_array(values: Sequence[float] | np.ndarray) -> np.ndarray:
    arr = np.asarray(list(values), dtype=float)
    if arr.ndim != 1:
        raise ValueError("values must be a flat sequence of numbers")
    if not np.all(np.isfinite(arr)):
        raise ValueError("values must be finite numbers")
    return arr


def bootstrap_ci(
    values: Sequence[float] | np.ndarray, *, confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean: resample the queries with replacement ``resamples`` times and take
    the (1 - confidence) / 2 and (1 + confidence) / 2 quantiles of the resampled means.

    Returns ``(0.0, 0.0)`` for no values and ``(v, v)`` for one value (or when all values are equal).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    arr = _as_array(values)
    n = arr.size
    if n == 0:
        return (0.0, 0.0)
    if n == 1 or np.all(arr == arr[0]):
        v = float(arr.mean())
        return (v, v)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    step = max(1, _BLOCK // n)
    for start in range(0, resamples, step):
        stop = min(resamples, start + step)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = arr[idx].mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return (float(low), float(high))


def paired_test(a: Sequence[float], b: Sequence[float], *, resamples: int = 10000, seed: int = 0) -> float:
    """Two-sided paired randomization (sign-flip) test of ``mean(a - b) == 0``; returns the p-value.

    Under the null hypothesis each per-query difference is as likely to have either sign, so the p-value is the share
    of sign assignments whose mean difference is at least as far from zero as the observed one.  When ``2 ** n`` is at
    most ``resamples`` every assignment is enumerated (exact p); otherwise ``resamples`` random assignments are drawn
    and ``(hits + 1) / (resamples + 1)`` is returned, which never reports an impossible p of 0.

    Returns 1.0 when there are no pairs or every difference is zero.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    x = _as_array(a)
    y = _as_array(b)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} != {y.size}")
    d = x - y
    n = d.size
    if n == 0 or np.all(d == 0.0):
        return 1.0
    observed = abs(d.mean())
    # Tolerance so that assignments equal to the observed one up to rounding count as "at least as extreme".
    tol = 1e-12 * max(1.0, float(np.abs(d).max()))
    if n < 63 and 2**n <= resamples:
        codes = np.arange(2**n, dtype=np.int64)[:, None]
        signs = 1.0 - 2.0 * ((codes >> np.arange(n, dtype=np.int64)) & 1)
        stats = np.abs(signs @ d) / n
        return float(np.count_nonzero(stats >= observed - tol) / 2**n)
    hits = 0
    for signs in _sign_blocks(n, resamples, seed):
        stats = np.abs(signs @ d) / n
        hits += int(np.count_nonzero(stats >= observed - tol))
    return float((hits + 1) / (resamples + 1))


def hits_test(lost: int, gained: int) -> float:
    """Two-sided exact McNemar test (a sign test on the discordant queries) of "losing a query is as likely as
    gaining one"; returns the p-value.

    Why this test beside the metric tests: a chunker change that loses many queries outright and gains a few moves
    the mean NDCG less than the count suggests (a lost query often keeps a lower-ranked relevant file), so the
    paired metric tests can miss a loss that a reviewer would call real. Only the queries that changed sides carry
    evidence; the many that hit (or miss) on both sides say nothing about the direction. Exact binomial tail with
    p = 1/2, doubled and capped at 1 (the usual two-sided exact McNemar); 1.0 when nothing changed sides.
    """
    if lost < 0 or gained < 0:
        raise ValueError(f"counts must be non-negative, got lost={lost}, gained={gained}")
    n = lost + gained
    if n == 0:
        return 1.0
    extreme = max(lost, gained)
    tail = sum(math.comb(n, i) for i in range(extreme, n + 1))
    return min(1.0, 2.0 * tail / 2**n)


def _draw_sign_blocks(n: int, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """The random sign assignments of :func:`paired_test`, in blocks of at most ``_BLOCK`` numbers."""
    rng = np.random.default_rng(seed)
    step = max(1, _BLOCK // n)
    for start in range(0, resamples, step):
        m = min(resamples, start + step) - start
        yield rng.choice(np.array([-1.0, 1.0]), size=(m, n))


@functools.lru_cache(maxsize=8)
def _cached_sign_blocks(n: int, resamples: int, seed: int) -> tuple[np.ndarray, ...]:
    blocks = tuple(_draw_sign_blocks(n, resamples, seed))
    for block in blocks:
        block.setflags(write=False)
    return blocks


def _sign_blocks(n: int, resamples: int, seed: int) -> Iterable[np.ndarray]:
    """Why cached: a report runs this test for every metric of every strategy against the baseline, all over the
    same n queries with the same seed, so every call draws the very same assignments; drawing them is nearly all of
    the test's cost (the product with the differences is cheap). Small draws (at most two blocks, 32 MB) are kept
    and reused; the p-values are exactly those of a fresh draw."""
    if n * resamples <= 2 * _BLOCK:
        return _cached_sign_blocks(n, resamples, seed)
    return _draw_sign_blocks(n, resamples, seed)


def summarize(values: Sequence[float], *, confidence: float = 0.95, resamples: int = 2000, seed: int = 0) -> dict:
    """``{"mean", "ci_low", "ci_high", "n"}`` for a list of per-query values (see the module doc for n = 0 / 1)."""
    arr = _as_array(values)
    n = int(arr.size)
    mean = float(arr.mean()) if n else 0.0
    low, high = bootstrap_ci(arr, confidence=confidence, resamples=resamples, seed=seed)
    return {"mean": mean, "ci_low": low, "ci_high": high, "n": n}


PerQuery = Mapping[str, Mapping[str, Mapping[str, float]]]  # query id -> mode -> metric -> value


def compare_paired(a: PerQuery, b: PerQuery) -> list[tuple[str, str, float, float, float]]:
    """``(mode, metric, mean of a, mean of b, paired p-value)`` over the queries both scored, in ``a``'s order.

    One place for every "this run against that one" question (candidate vs baseline, now vs a stored report), so
    both are paired the same way over the same population.
    """
    shared = [q for q in a if q in b]
    if not shared:
        return []
    out: list[tuple[str, str, float, float, float]] = []
    for mode, metrics in a[shared[0]].items():
        for metric in metrics:
            if metric not in b[shared[0]].get(mode, {}):
                continue  # a report written before this measure existed
            xs = [a[q][mode][metric] for q in shared]
            ys = [b[q][mode][metric] for q in shared]
            out.append((mode, metric, sum(xs) / len(xs), sum(ys) / len(ys), paired_test(xs, ys)))
    return out
