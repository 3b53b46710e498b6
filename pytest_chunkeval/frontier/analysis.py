"""One panel per (suite, retrieval mode), and one per mode pooled over suites: the frontier, the best point and its
tests against the defaults. What the tables and the chart draw."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_chunkeval.core.grid import sort_key
from pytest_chunkeval.frontier.pareto import best, dominator, frontier
from pytest_chunkeval.frontier.points import COST_LABELS, Point, report_points
from pytest_chunkeval.frontier.pooled import pool
from pytest_chunkeval.frontier.significance import RESAMPLES, SEED, Versus, against_defaults


@dataclass(frozen=True)
class Panel:
    suite: str
    mode: str
    points: tuple[Point, ...]  # cheapest first
    frontier: tuple[Point, ...]  # cheapest first
    dominated_by: Mapping[str, str]  # label -> the label of the point that dominates it
    best: Point
    tests: tuple[Versus, ...]
    pooled: bool = False


@dataclass
class Frontier:
    metric: str
    cost: str
    panels: list[Panel] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def panel(points: Sequence[Point], cost: str, *, pooled: bool = False, resamples: int = RESAMPLES,
          seed: int = SEED) -> Panel:
    top = best(points, cost)
    ordered = tuple(sorted(points, key=lambda p: (p.costs[cost], -p.quality, sort_key(p.label), p.label)))
    beaten = {p.label: d.label for p in points if (d := dominator(p, points, cost)) is not None}
    return Panel(top.suite, top.mode, ordered, tuple(frontier(points, cost)), beaten, top,
                 tuple(against_defaults(top, points, resamples=resamples, seed=seed)), pooled)


def analyse(points: Sequence[Point], metric: str, cost: str, *, resamples: int = RESAMPLES,
            seed: int = SEED) -> Frontier:
    """Panels for every (suite, mode) in the points' order, then the pooled panels (modes with two suites or more)."""
    out = Frontier(metric, cost)
    unmeasured = [p for p in points if cost not in p.costs]
    if unmeasured:
        points = [p for p in points if cost in p.costs]
        suites = ", ".join(dict.fromkeys(p.suite for p in unmeasured))
        out.notes.append(f"left out: {len(unmeasured)} point(s) of {suites} whose report does not record "
                         f"{COST_LABELS[cost]} (written before it was recorded; evaluate again to measure it)")
    groups: dict[tuple[str, str], list[Point]] = {}
    for p in points:
        groups.setdefault((p.suite, p.mode), []).append(p)
    out.panels = [panel(g, cost, resamples=resamples, seed=seed) for g in groups.values()]
    pooled, left_out = pool(points)
    by_mode: dict[str, list[Point]] = {}
    for p in pooled:
        by_mode.setdefault(p.mode, []).append(p)
    out.panels += [panel(g, cost, pooled=True, resamples=resamples, seed=seed) for g in by_mode.values()]
    out.notes += [f"not pooled: {line}" for line in left_out]
    return out


def from_reports(reports: Sequence[Mapping[str, Any]], metric: str | None, cost: str, *, resamples: int = RESAMPLES,
                 seed: int = SEED, names: Sequence[str] | None = None) -> Frontier:
    """The frontier of one or more JSON reports (``metric`` None: line-projected NDCG at the report's k; ``names``:
    how notes and errors name the reports). ``frontier.suites.SuiteConflict`` when their suites cannot be told
    apart."""
    from pytest_chunkeval.frontier.points import default_metric

    metric = metric or default_metric(int(reports[0].get("k", 10)) if reports else 10)
    points, notes = report_points(reports, metric, names)
    result = analyse(points, metric, cost, resamples=resamples, seed=seed)
    result.notes[:0] = notes
    return result
