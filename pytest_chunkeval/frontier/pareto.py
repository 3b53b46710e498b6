"""Pareto sets of quality (higher is better) against one cost (lower is better).

A point is *dominated* when another is at least as good on quality and at most as costly, and strictly better on one
of the two. Points with equal quality and equal cost do not dominate each other: both stay on the frontier (a tie is
reported, not broken arbitrarily). The best point is the highest quality; among equals the cheapest, then the first
label in sorted order, so the choice never depends on a report's order.
"""
from __future__ import annotations

from collections.abc import Sequence

from pytest_chunkeval.frontier.points import Point


def dominates(a: Point, b: Point, cost: str) -> bool:
    """Whether ``a`` dominates ``b``: no worse on both axes, strictly better on one."""
    qa, qb, ca, cb = a.quality, b.quality, a.costs[cost], b.costs[cost]
    return qa >= qb and ca <= cb and (qa > qb or ca < cb)


def dominator(p: Point, points: Sequence[Point], cost: str) -> Point | None:
    """The point that dominates ``p`` with the highest quality (then lowest cost), or None when ``p`` is on the
    frontier."""
    over = [q for q in points if dominates(q, p, cost)]
    return min(over, key=lambda q: (-q.quality, q.costs[cost], q.label)) if over else None


def frontier(points: Sequence[Point], cost: str) -> list[Point]:
    """The non-dominated points, cheapest first (quality rises along the list)."""
    return sorted((p for p in points if dominator(p, points, cost) is None),
                  key=lambda p: (p.costs[cost], -p.quality, p.label))


def best(points: Sequence[Point], cost: str) -> Point:
    """The highest quality, then the lowest cost, then the label (``ValueError`` for no points). Always on the
    frontier."""
    if not points:
        raise ValueError("no points")
    return min(points, key=lambda p: (-p.quality, p.costs[cost], p.label))
