"""``chunkeval frontier REPORT [REPORT...]``: the quality/cost frontier of the points in JSON reports."""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from pytest_chunkeval.frontier.points import COSTS, default_metric, parse_metric
from pytest_chunkeval.frontier.significance import RESAMPLES, SEED
from pytest_chunkeval.results.report_file import ReportError, read_report


def add_parser(top: Any) -> None:
    """``chunkeval frontier`` under the top-level command's subparsers."""
    sub = top.add_parser(
        "frontier", help="the Pareto-optimal strategies and grid points of quality against cost",
        description="Per suite and retrieval mode, the points (strategies, grid points) no other beats on both "
                    "quality and cost; the best one tested against each strategy's default (paired randomization "
                    "test, Holm-adjusted); and, over several suites, the point best on average (test stratified by "
                    "suite). Several reports are read as one run.")
    sub.set_defaults(handler=run)
    sub.add_argument("reports", nargs="+", type=Path, help="JSON reports (--chunkeval-report)")
    sub.add_argument("--metric", default=None,
                     help=f"quality, MODE:METRIC@CUTOFF (default {default_metric()}: line-projected NDCG at the "
                          "report's k, fair across chunk sizes)")
    sub.add_argument("--cost", choices=COSTS, default="bytes", help="the cost axis (%(default)s)")
    sub.add_argument("--markdown", type=Path, help="also write the tables as Markdown here")
    sub.add_argument("--chart", type=Path, help="also write a PNG chart here (linked from the Markdown)")
    sub.add_argument("--chart-panels", choices=("all", "pooled"), default="all",
                     help="the chart's panels: every suite and mode, or only the pooled ones (%(default)s); a sweep "
                          "of many suites reads best as its pooled panels, the tables keep every point")
    sub.add_argument("--resamples", type=int, default=RESAMPLES, help="sign assignments per test (%(default)s)")
    sub.add_argument("--seed", type=int, default=SEED, help="(%(default)s)")


def run(args: argparse.Namespace, given: Any = None) -> int:
    from pytest_chunkeval.frontier.analysis import from_reports
    from pytest_chunkeval.frontier.suites import SuiteConflict
    from pytest_chunkeval.output import frontier_tables as render

    if args.metric:
        try:
            parse_metric(args.metric)
        except ValueError as exc:
            print(f"chunkeval frontier: --metric: {exc}", file=sys.stderr)
            return 2
    try:
        reports = [read_report(p) for p in args.reports]
    except ReportError as exc:
        print(f"chunkeval frontier: {exc}", file=sys.stderr)
        return 2
    try:
        result = from_reports(reports, args.metric, args.cost, resamples=args.resamples, seed=args.seed,
                              names=[str(p) for p in args.reports])
    except SuiteConflict as exc:
        print(f"chunkeval frontier: {exc}", file=sys.stderr)
        return 2
    if not result.panels:
        print("chunkeval frontier: no scored points with that metric in the reports", file=sys.stderr)
        return 1
    sys.stdout.write(render.text(result, width=shutil.get_terminal_size((160, 24)).columns))
    if args.chart:
        from pytest_chunkeval.output.frontier_chart import write_chart

        drawn = result
        if args.chart_panels == "pooled" and any(p.pooled for p in result.panels):
            drawn = replace(result, panels=[p for p in result.panels if p.pooled])
        write_chart(drawn, args.chart)
        print(f"chart: {args.chart}")
    if args.markdown:
        chart = os.path.relpath(args.chart, args.markdown.parent) if args.chart else None
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(render.markdown(result, chart), "utf-8")
        print(f"markdown: {args.markdown}")
    return 0
