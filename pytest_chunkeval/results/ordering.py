"""A run's results gathered by suite, in the one order every output shows: suites by key, and within a suite per
retrieval mode the baseline first, then by name.

A serial run gathers its own evaluations (:func:`collect`); an xdist controller merges the workers' results
(``distributed.merge``). Both order by :func:`strategy_order`, so the two write the same report; sorted by row label
instead, a merge would disagree with a serial run on a name such as ``ast-x``.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pytest_chunkeval.core.grid import sort_key
from pytest_chunkeval.results.typed import StrategyResult, SuiteResult, row_label, suite_key

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_chunkeval.evaluation.evaluate import StrategyRun


def strategy_order(name: str, mode: str, baseline: str, modes: tuple[str, ...]) -> tuple[Any, ...]:
    """Where the result of strategy ``name`` searched with ``mode`` sits among its suite's results: per retrieval
    mode in the run's order (a mode the run did not ask for after those), the baseline first, then by name, a
    strategy's grid points beside it with their values in numeric order (``grid.sort_key``); so tables read
    "baseline, then the rest against it". A serial run (:func:`collect`) and an xdist controller
    (``distributed.merge``) both order by it."""
    rank = modes.index(mode) if mode in modes else len(modes)
    return rank, mode, name != baseline, sort_key(name), name


def collect(
    runs: Iterable[StrategyRun], root: Path, baseline: str, modes: tuple[str, ...] = ()
) -> dict[str, SuiteResult]:
    """Typed results of every run, by suite (in key order) and within a suite by :func:`strategy_order`. Keys are
    :func:`row_label` s: labelled by mode only when ``modes`` holds several."""
    multi = len(modes) > 1
    suites: dict[str, SuiteResult] = {}
    keyed = [(suite_key(run.suite.path, root), run) for run in runs]
    for key, run in sorted(keyed, key=lambda kr: (kr[0], strategy_order(kr[1].name, kr[1].mode, baseline, modes))):
        if key not in suites:
            suites[key] = SuiteResult.from_suite(key, run.suite, suite_key(run.suite.corpus_dir, root))
        label = row_label(run.name, run.mode, multi)
        suites[key].strategies[label] = StrategyResult.from_run(run, key, label)
    return suites
