"""Points pooled over suites: which point is best on average.

A pooled point is a point present on every suite of its retrieval mode. Its quality is the mean over suites of each
suite's mean (every suite weighs the same, however many queries it has: a large generated suite must not decide
alone); its costs are the sums over suites (the indexes it would build for all of them). Its per-query values keep
their suite, so the test against a default (:func:`~pytest_chunkeval.frontier.significance.stratified_test`) flips
signs within suites.
"""
from __future__ import annotations

from collections.abc import Sequence

from pytest_chunkeval.core.grid import sort_key
from pytest_chunkeval.frontier.points import COSTS, Point


def pooled_label(suites: int) -> str:
    return f"pooled over {suites} suites"


def pool(points: Sequence[Point]) -> tuple[list[Point], list[str]]:
    """Per retrieval mode with at least two suites, the pooled points (mode order as first seen, labels in
    ``grid.sort_key`` order: numbers as numbers), and the labels left out because some suite lacks them."""
    out: list[Point] = []
    left_out: list[str] = []
    modes = list(dict.fromkeys(p.mode for p in points))
    for mode in modes:
        of_mode = [p for p in points if p.mode == mode]
        suites = list(dict.fromkeys(p.suite for p in of_mode))
        if len(suites) < 2:
            continue
        by_label: dict[str, list[Point]] = {}
        for p in of_mode:
            by_label.setdefault(p.label, []).append(p)
        for label in sorted(by_label, key=lambda name: (sort_key(name), name)):
            group = by_label[label]
            if len(group) < len(suites):
                left_out.append(f"{label} ({mode}): on {len(group)} of {len(suites)} suites")
                continue
            first = group[0]
            out.append(Point(
                pooled_label(len(suites)), mode, label, first.family, first.params, all(p.default for p in group),
                {c: sum(p.costs[c] for p in group) for c in COSTS if all(c in p.costs for p in group)},
                {s: q for p in group for s, q in p.per_query.items()}, first.report,
            ))
    return out, left_out
