"""The quality items' checks: a strategy's chunks against its own declarations (lossless, a size limit, fitting the
model's window) and against the run's allowances (fallbacks to windows, files its grammar could not parse).

Each check skips (nothing declared), fails with the whole report as its message (:class:`ReportedFailure`, worded by
:mod:`pytest_chunkeval.output.messages`) or returns (kept); its ``kind`` is what its failure is for the verdict.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from pytest_chunkeval.output import messages
from pytest_chunkeval.run.item_failures import ReportedFailure

if TYPE_CHECKING:
    from pytest_chunkeval.evaluation.evaluate import StrategyRun
    from pytest_chunkeval.judges.verdict import FailureKind
    from pytest_chunkeval.scoring.quality import QualityReport
    from pytest_chunkeval.settings.options import Options


def _lossless(run: StrategyRun, q: QualityReport, options: Options) -> None:
    if not q.claims_lossless:
        pytest.skip(messages.not_lossless(run.name, q))
    if q.uncovered:
        raise ReportedFailure(messages.lossless_broken(run.name, q))


def _size_limit(run: StrategyRun, q: QualityReport, options: Options) -> None:
    if q.max_chunk_size is None:
        pytest.skip(messages.no_size_limit(run.name, q))
    if q.over_limit:
        raise ReportedFailure(messages.size_limit_broken(run.name, q))


def _token_window(run: StrategyRun, q: QualityReport, options: Options) -> None:
    if not q.fits_window:
        pytest.skip(messages.no_window_promise(run.name, q))
    if q.over_window:
        raise ReportedFailure(messages.window_broken(run.name, q))


def _fallback(run: StrategyRun, q: QualityReport, options: Options) -> None:
    facts, limit = run.facts, options.max_fallback
    share = len(facts.fallbacks) / facts.files_handled if facts.files_handled else 0.0
    if share > limit:
        raise ReportedFailure(messages.fallback_exceeded(run.name, facts, share, limit))


def _parse_errors(run: StrategyRun, q: QualityReport, options: Options) -> None:
    from pytest_chunkeval.scoring.quality import parse_errors

    pe = parse_errors(run.facts.strategy_stats, run.facts.files_handled)
    if not pe.parses:
        pytest.skip(messages.parses_nothing(run.name))
    if pe.share > options.max_parse_errors:
        raise ReportedFailure(messages.parse_errors_exceeded(run.name, pe, options.max_parse_errors))


@dataclass(frozen=True)
class QualityCheck:
    """One check of a strategy's chunks: ``judge`` skips, fails or returns; ``kind`` is what its failure is for the
    verdict."""

    judge: Callable[[StrategyRun, QualityReport, Options], None]
    kind: FailureKind = "quality"


#: The quality checks, by item name (``quality[<name>]``), in the order their items are collected.
QUALITY: dict[str, QualityCheck] = {
    "lossless": QualityCheck(_lossless),
    "size-limit": QualityCheck(_size_limit),
    "token-window": QualityCheck(_token_window),
    "fallback": QualityCheck(_fallback, kind="fallback"),
    "parse-errors": QualityCheck(_parse_errors, kind="parse"),
}
QUALITY_CHECKS = tuple(QUALITY)
