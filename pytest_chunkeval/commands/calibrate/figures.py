"""The calibration's figures: a table for the terminal and a JSON document with every number behind it.

Rates come with a 95 % Wilson interval in the JSON (the Monte Carlo error of a simulated share), so "at most alpha"
can be read against the error of the estimate, not the estimate alone.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import mean, median
from typing import Any

from pytest_chunkeval.commands.calibrate.inject import Detection
from pytest_chunkeval.commands.calibrate.nulls import ALL, NullRates
from pytest_chunkeval.core.vocabulary import NDCG, label


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % interval of a share of ``hits`` in ``n`` (Wilson score; sensible at 0 and at n)."""
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _table(header: list[str], rows: list[list[str]], left: int) -> str:
    """Columns sized to their content; the first ``left`` are text (left-aligned), the rest numbers."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    for r in [header, *rows]:
        cells = [c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def grouped(power: Sequence[Detection]) -> dict[tuple[str, str], list[Detection]]:
    """Detections by (suite, kind), each kind's suites in order and then (ALL, kind) over all of them."""
    out: dict[tuple[str, str], list[Detection]] = {}
    kinds = list(dict.fromkeys(d.kind for d in power))
    suites = list(dict.fromkeys(d.suite for d in power))
    for kind in kinds:
        for suite in suites + ([ALL] if len(suites) > 1 else []):
            chosen = [d for d in power if d.kind == kind and suite in (ALL, d.suite)]
            if chosen:
                out[(suite, kind)] = chosen
    return out


def _pooled(ds: Sequence[Detection], factor: float, correction: str, alone: str = "") -> float | None:
    """The share of runs caught, pooled over ``ds`` at ``factor``: by the whole check, or by one test ``alone``
    ("ndcg": the NDCG test, "hits": the per-query hit test)."""
    chosen = [d for d in ds if d.factor == factor and d.runs]
    runs = sum(d.runs for d in chosen)
    if not runs:
        return None
    counts = {"": lambda d: d.detected, "ndcg": lambda d: d.by_ndcg, "hits": lambda d: d.by_hits}[alone]
    return sum(counts(d).get(correction, 0) for d in chosen) / runs


def _mdes(ds: Sequence[Detection]) -> list[float]:
    """The population MDE of each strategy (the unit of the sizes), from its smallest injected size."""
    smallest = min((d.factor for d in ds), default=0.0)
    return [d.mde for d in ds if d.factor == smallest and d.mde > 0]


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def render(settings: dict[str, Any], nulls: Sequence[NullRates], power: Sequence[Detection],
           per_strategy: bool = False) -> str:
    corrections, power_corrections = settings["corrections"], settings["power_corrections"]
    out = [f"chunkeval calibrate: k={settings['k']}, tolerance {settings['tolerance']}, alpha {settings['alpha']}, "
           f"seed {settings['seed']}"]
    if settings.get("mismatches"):
        out.append(f"warning: {settings['mismatches']} stored metric values were not reproduced from the rankings")
    if nulls:
        rows = [[r.kind, r.scope, str(r.changed), str(r.family), str(r.runs),
                 *(f"{r.rate(c):.3f}" for c in corrections)] for r in nulls]
        out += ["", "False alarms: null pull requests, share of whole runs that turned the check red",
                _table(["null change", "scope", "changed", "tests", "runs", *corrections], rows, 2)]
        runs = max((r.runs for r in nulls), default=0)
        if runs > 1:
            low, high = wilson(round(settings["alpha"] * runs), runs)
            out.append(f"Monte Carlo error at {runs} runs: a measured {settings['alpha']} is in "
                       f"[{low:.3f}, {high:.3f}] (95 %)")
    if power:
        factors = sorted({d.factor for d in power})
        first = power_corrections[0]
        cols = [f"{f:g}x {c}" for c in power_corrections for f in factors]
        rows = []
        for (suite, kind), ds in grouped(power).items():
            mdes = _mdes(ds)
            span = f"{median(mdes):.3f} [{min(mdes):.3f}, {max(mdes):.3f}]" if mdes else "-"
            rows.append([suite, kind, str(len({d.label for d in ds})), span,
                         *(_fmt(_pooled(ds, f, c)) for c in power_corrections for f in factors),
                         _fmt(_pooled(ds, factors[0], first, "ndcg")), _fmt(_pooled(ds, factors[0], first, "hits"))])
        runs = max(d.runs for d in power)
        out += ["", f"Detection: a strategy loses its first relevant file on a share of the queries, sized in MDEs of "
                    f"file {label(NDCG, settings['k'])} ({first}); {runs} runs per strategy and size",
                _table(["suite", "change", "strategies", "MDE median [range]", *cols,
                        f"NDCG alone {factors[0]:g}x", f"hits alone {factors[0]:g}x"], rows, 2)]
        short = [d for d in power if d.runs and not d.reached]
        if short:
            out.append(f"{len(short)} of {len(power)} sizes could not be reached (every query lost is not enough): "
                       + ", ".join(sorted({f'{d.label} {d.factor:g}x' for d in short}))[:300])
        if per_strategy:
            rows = [[d.suite, d.label, d.kind, f"{d.factor:g}x", f"{d.share:.3f}", f"{d.fall:.3f}", f"{d.mde:.3f}",
                     f"{mean(d.falls):.3f}" if d.falls else "-", *(f"{d.rate(c):.2f}" for c in power_corrections),
                     f"{d.ndcg_rate(first):.2f}", f"{d.hits_rate(first):.2f}"]
                    for d in power]
            out += ["", _table(["suite", "strategy", "change", "size", "share", "E fall", "MDE", "fall seen",
                                *power_corrections, "NDCG alone", "hits alone"], rows, 4)]
    return "\n".join(out)


def as_json(settings: dict[str, Any], nulls: Sequence[NullRates], power: Sequence[Detection]) -> dict[str, Any]:
    def rate(hits: int, n: int) -> dict[str, Any]:
        low, high = wilson(hits, n)
        return {"hits": hits, "runs": n, "rate": hits / n if n else None, "ci95": [low, high]}

    summaries = []
    for (suite, kind), ds in grouped(power).items():
        mdes = _mdes(ds)
        summaries.append({
            "suite": suite, "kind": kind, "strategies": len({d.label for d in ds}),
            "mde": {"median": median(mdes), "min": min(mdes), "max": max(mdes)} if mdes else None,
            "detected": {c: {f"{f:g}": _pooled(ds, f, c) for f in sorted({d.factor for d in ds})}
                         for c in settings["power_corrections"]},
            "ndcg_alone": {c: {f"{f:g}": _pooled(ds, f, c, "ndcg") for f in sorted({d.factor for d in ds})}
                           for c in settings["power_corrections"]},
            "hits_alone": {c: {f"{f:g}": _pooled(ds, f, c, "hits") for f in sorted({d.factor for d in ds})}
                           for c in settings["power_corrections"]},
        })
    return {
        "settings": settings,
        "false_alarms": [{"kind": r.kind, "scope": r.scope, "changed": r.changed, "tests": r.family,
                          **{c: rate(n, r.runs) for c, n in r.red.items()}} for r in nulls],
        "detection": summaries,
        "detection_per_strategy": [
            {"suite": d.suite, "strategy": d.label, "kind": d.kind, "factor": d.factor, "share": d.share,
             "expected_fall": d.fall, "mde": d.mde, "reached": d.reached, "paired": d.paired,
             "mean_fall_seen": mean(d.falls) if d.falls else None,
             "mean_mde_printed": mean(d.mdes) if d.mdes else None,
             "detected": {c: rate(n, d.runs) for c, n in d.detected.items()},
             "ndcg_alone": {c: rate(n, d.runs) for c, n in d.by_ndcg.items()},
             "hits_alone": {c: rate(n, d.runs) for c, n in d.by_hits.items()}}
            for d in power
        ],
    }
