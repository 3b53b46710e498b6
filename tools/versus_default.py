#!/usr/bin/env python3
"""Each grid point against its own strategy's default, pooled over the suites of several reports: should a default
change?

Why: ``chunkeval frontier`` answers "which point is best, and is it better than the defaults" - the best point, chosen
among all. Deciding a strategy's default asks something else: is *this* candidate (``fixed_size`` cut to the model's
window, say) better than *its own* default, on quality, on the file recall the gates use, at what index size and
how many truncated chunks. This prints that table, pooled the frontier's way (the mean of the suites' means, each
suite weighing the same; costs summed), with the frontier's suite-stratified paired test per candidate, Holm-adjusted
over every candidate compared. The suites of the reports are told apart by content as the frontier does, and a
point the reports hold on only some suites is left out (named in a note).

    python tools/versus_default.py reports/*.json --markdown versus.md
    python tools/versus_default.py reports/*.json --pair "ast[size=window,size_unit=tokens]=ast"

Without ``--pair`` every point that is not a default is compared with the default of its strategy (a strategy with
no default point in the reports is left out, with a note).
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_chunkeval.frontier.points import Point, report_points
from pytest_chunkeval.frontier.pooled import pool
from pytest_chunkeval.frontier.significance import shared_differences, stratified_test
from pytest_chunkeval.frontier.suites import suite_names
from pytest_chunkeval.results.report_file import read_report
from pytest_chunkeval.scoring.family import adjust

QUALITY = "lines:ndcg@10"
RECALL = "file:recall@10"


@dataclass(frozen=True)
class Row:
    """One pooled point: the two qualities, the costs, and the share of its chunks the model truncates."""

    label: str
    default: bool
    quality: float
    recall: float
    over_window: float | None  # None: no report said how many chunks overran the window
    kb: float
    chunks: int
    embed_tokens: float | None


@dataclass(frozen=True)
class Versus:
    candidate: str
    default: str
    delta: float
    queries: int
    p_value: float
    p_holm: float


def window_counts(reports: Sequence[Mapping[str, Any]], names: Sequence[str]) -> dict[tuple[str, str, str],
                                                                                       tuple[int, int]]:
    """(suite as the frontier names it, mode, label) -> (chunks over the model's window, chunks)."""
    shown, _ = suite_names(reports, names)
    out: dict[tuple[str, str, str], tuple[int, int]] = {}
    for i, report in enumerate(reports):
        for key, suite in (report.get("suites") or {}).items():
            for row, entry in (suite.get("strategies") or {}).items():
                quality = entry.get("quality") or {}
                if "over_window" in quality and "chunks" in quality:
                    mode = str(entry.get("retrieval") or "")
                    label = str(entry.get("strategy") or row)
                    out[(shown[(i, key)], mode, label)] = (int(quality["over_window"]), int(quality["chunks"]))
    return out


def _pooled(points: Sequence[Point], mode: str) -> dict[str, Point]:
    pooled, _ = pool([p for p in points if p.mode == mode])
    if pooled:
        return {p.label: p for p in pooled}
    return {p.label: p for p in points if p.mode == mode}  # one suite: nothing to pool


def rows(quality: Sequence[Point], recall: Sequence[Point], counts: Mapping[tuple[str, str, str], tuple[int, int]],
         mode: str) -> list[Row]:
    """The pooled points of ``mode`` that have both qualities, in the frontier's label order."""
    by_quality, by_recall = _pooled(quality, mode), _pooled(recall, mode)
    out = []
    for label, p in by_quality.items():
        if label not in by_recall:
            continue
        found = [counts[(s, mode, label)] for s in p.per_query if (s, mode, label) in counts]
        share = sum(f[0] for f in found) / max(1, sum(f[1] for f in found)) if len(found) == len(p.per_query) else None
        out.append(Row(label, p.default, p.quality, by_recall[label].quality, share, p.costs.get("bytes", 0.0) / 1024,
                       int(p.costs.get("chunks", 0)), p.costs.get("embed_tokens")))
    return out


def default_pairs(points: Sequence[Point]) -> tuple[list[tuple[str, str]], list[str]]:
    """Every non-default point with its strategy's default point, and notes on strategies that have none."""
    defaults = {p.family: p.label for p in points if p.default}
    pairs, notes = [], []
    for p in points:
        if p.default:
            continue
        if p.family in defaults:
            pairs.append((p.label, defaults[p.family]))
        else:
            notes.append(f"{p.label}: no default of {p.family} in the reports to compare it with")
    return pairs, notes


def versus(points: Mapping[str, Point], pairs: Sequence[tuple[str, str]], *, resamples: int,
           seed: int) -> list[Versus]:
    """Each candidate against its default: the mean over suites of the per-suite mean difference, the stratified p,
    and p Holm-adjusted over ``pairs``. A label not among ``points`` is a ``KeyError`` naming it."""
    for label in {x for pair in pairs for x in pair}:
        if label not in points:
            raise KeyError(f"{label!r} is not a point on every suite of the reports; points: {', '.join(points)}")
    tested = []
    for candidate, default in pairs:
        strata = shared_differences(points[candidate].per_query, points[default].per_query)
        delta = sum(sum(s) / len(s) for s in strata) / len(strata) if strata else 0.0
        tested.append((candidate, default, delta, sum(map(len, strata)),
                       stratified_test(strata, resamples=resamples, seed=seed)))
    holm = adjust([t[4] for t in tested], "holm")
    return [Versus(c, d, delta, n, p, h) for (c, d, delta, n, p), h in zip(tested, holm, strict=True)]


def markdown(mode: str, suites: int, table: Sequence[Row], tests: Sequence[Versus], metric: str = QUALITY) -> str:
    """The pooled table and the tests, as Markdown."""
    lines = [f"**{mode} retrieval, pooled over {suites} suites** (qualities: mean of the suites' means; costs: summed)",
             "", f"| point | {metric} | {RECALL} | over the window | index KB | chunks | embed tokens |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in table:
        share = "n/a" if r.over_window is None else f"{r.over_window:.0%}"
        tokens = "n/a" if r.embed_tokens is None else f"{r.embed_tokens:,.0f}"
        name = f"`{r.label}`" + (" (default)" if r.default else "")
        lines.append(f"| {name} | {r.quality:.3f} | {r.recall:.3f} | {share} | {r.kb:,.0f} | {r.chunks:,} | {tokens} |")
    if tests:
        lines += ["", f"Against the default, {metric} (suite-stratified paired test, Holm over {len(tests)}):", ""]
        lines += [f"- `{t.candidate}` − `{t.default}`: {t.delta:+.3f} over {t.queries} paired queries "
                  f"(p = {t.p_value:.3f}, Holm p = {t.p_holm:.3f})" for t in tests]
    return "\n".join(lines) + "\n"


def suite_titles(reports: Sequence[Mapping[str, Any]], names: Sequence[str]) -> dict[str, str]:
    """The frontier's name of each suite -> the name its report gives it (``chunkeval init`` names a suite after its
    repository: ``jd+tenacity-docs``), so that a column says which repository it is rather than ``KEY@digest``."""
    shown, _ = suite_names(reports, names)
    return {shown[(i, key)]: str(suite.get("name") or shown[(i, key)])
            for i, report in enumerate(reports) for key, suite in (report.get("suites") or {}).items()}


def per_suite(points: Mapping[str, Point], titles: Mapping[str, str]) -> str:
    """The quality of every pooled point on each suite: where a pooled difference comes from."""
    suites = list(dict.fromkeys(s for p in points.values() for s in p.per_query))
    lines = ["| point | " + " | ".join(titles.get(s, s) for s in suites) + " |", "|---|" + "---:|" * len(suites)]
    for label, p in points.items():
        means = [sum(p.per_query[s].values()) / len(p.per_query[s]) for s in suites]
        lines.append(f"| `{label}` | " + " | ".join(f"{m:.3f}" for m in means) + " |")
    return "\n".join(lines) + "\n"


def parse_pair(text: str) -> tuple[str, str]:
    """``CANDIDATE=DEFAULT``: split at the ``=`` that ends a label (``]=``), or the only ``=`` of plain names."""
    at = text.find("]=")
    cut = at + 1 if at >= 0 else text.find("=")
    if cut <= 0 or cut >= len(text) - 1:
        raise ValueError(f"{text!r} is not CANDIDATE=DEFAULT (e.g. fixed_size[size=650]=fixed_size[size=1000])")
    return text[:cut], text[cut + 1:]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="+", type=Path)
    parser.add_argument("--pair", action="append", default=[], help="CANDIDATE=DEFAULT (repeatable)")
    parser.add_argument("--markdown", type=Path, help="also write the tables here")
    parser.add_argument("--per-suite", action="store_true", help="also each point's quality on each suite")
    parser.add_argument("--metric", default=QUALITY, help=f"the quality pooled and tested, MODE:METRIC@CUTOFF "
                        f"({QUALITY}: the frontier's; {RECALL}: what the gates read)")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        reports = [read_report(p) for p in args.reports]  # one message naming the file, never a traceback
        names = [str(p) for p in args.reports]
        quality, notes = report_points(reports, args.metric, names)
        recall, _ = report_points(reports, RECALL, names)
        pairs = [parse_pair(p) for p in args.pair]
    except ValueError as exc:  # ReportError is one
        print(f"versus_default: {exc}", file=sys.stderr)
        return 2
    counts = window_counts(reports, names)
    parts = []
    for mode in dict.fromkeys(p.mode for p in quality):
        pooled = _pooled(quality, mode)
        chosen, left = (pairs, []) if pairs else default_pairs(list(pooled.values()))
        notes += left
        try:
            tests = versus(pooled, chosen, resamples=args.resamples, seed=args.seed)
        except KeyError as exc:
            print(f"versus_default: {exc.args[0]}", file=sys.stderr)
            return 2
        suites = len({s for p in pooled.values() for s in p.per_query})
        parts.append(markdown(mode, suites, rows(quality, recall, counts, mode), tests, args.metric))
        if args.per_suite:
            parts.append(per_suite(pooled, suite_titles(reports, names)))
    text = "\n".join(parts) + "".join(f"\n- note: {n}" for n in notes) + ("\n" if notes else "")
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
