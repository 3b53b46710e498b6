"""The head and base sides of a simulated pull request, built from a report's per-query numbers.

The decision (:func:`~pytest_chunkeval.judges.comparison.compare_run` and its ``judge``) reads each side's per-query
metric values and hits, its index digest (equal digests and rankings: unchanged) and its index size. A simulated side
carries only what can change the verdict: the gating metrics (:data:`~pytest_chunkeval.scoring.family.GATING`), each
query's hit (a relevant chunk in the top k: what the hit test counts as lost or gained), a digest
that differs between head and base (so the strategy counts as changed and joins the family), and neither sizes (an
index without a size never fails the size gate) nor chunker warnings. The informing metrics (MRR, chunk and line
modes) never fail a run; leaving them out changes no verdict and saves a bootstrap interval and a randomization test
each, which is most of a simulated run's cost.
"""
from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pytest_chunkeval.core.vocabulary import metric_key
from pytest_chunkeval.results.typed import IndexInfo, QueryResult, QuerySpec, StrategyResult, SuiteResult
from pytest_chunkeval.scoring.family import GATING


def gating_columns(k: int) -> tuple[tuple[str, str], ...]:
    """(relevance mode, metric key) of every gating metric at cutoff ``k``: ``("file", "ndcg@10")``, ..."""
    return tuple((mode, metric_key(short, k)) for mode, short in GATING)


@dataclass(frozen=True)
class Table:
    """One strategy's gating numbers on one suite: a row per paired query, a column per gating metric."""

    suite: str
    label: str  # the strategy's key in its suite (what compare_run names it by)
    name: str
    mode: str  # retrieval mode
    ids: tuple[str, ...]
    columns: tuple[tuple[str, str], ...]
    values: np.ndarray  # len(ids) x len(columns)
    hits: np.ndarray  # len(ids) booleans: the query's hit


def paired_ids(suite: SuiteResult, labels: list[str]) -> tuple[str, ...]:
    """The queries every one of ``labels`` scored, in the suite's order: the population a real run would pair."""
    results = [suite.strategies[label] for label in labels]
    order = list(suite.queries) or (list(results[0].queries) if results else [])
    return tuple(q for q in order if all(q in r.queries for r in results))


def table(result: StrategyResult, ids: tuple[str, ...], k: int) -> Table | None:
    """``result``'s gating values over ``ids``; None when it has no numbers (skipped, failed, or an older report
    without one of the gating metrics)."""
    if not result.evaluated or not ids:
        return None
    columns = gating_columns(k)
    try:
        values = np.array([[float(result.queries[q].metrics[m][metric]) for m, metric in columns] for q in ids])
    except KeyError:
        return None
    hits = np.array([result.queries[q].hit for q in ids], dtype=bool)
    return Table(result.suite, result.label, result.name, result.mode, ids, columns, values, hits)


def query_result(qid: str, t: Table, values: Sequence[float], hit: bool) -> QueryResult:
    """A query's result carrying only ``t``'s gating values (one per column) and its hit."""
    metrics: dict[str, dict[str, float]] = {}
    for (mode, metric), v in zip(t.columns, values, strict=True):
        metrics.setdefault(mode, {})[metric] = float(v)
    return QueryResult(qid, bool(hit), (), metrics)


def rows(t: Table, values: np.ndarray, hits: np.ndarray) -> list[QueryResult]:
    """One query result per row of ``values`` and ``hits`` (in ``t.ids`` order). Built once and shared by every
    simulated run that uses them: results are frozen and the decision only reads them."""
    return [query_result(q, t, row, hit) for q, row, hit in zip(t.ids, values.tolist(), hits.tolist(), strict=True)]


def side(t: Table, results: Sequence[QueryResult], digest: str) -> StrategyResult:
    """A result of ``t``'s strategy made of ``results`` (one per query of ``t.ids``); ``digest`` differs between head
    and base so that the strategy is changed."""
    return StrategyResult(t.suite, t.name, mode=t.mode, label=t.label, queries={r.id: r for r in results},
                          index=IndexInfo(digest=digest))


def shell(suite: SuiteResult, ids: Sequence[str] = ()) -> SuiteResult:
    """``suite`` without its strategies: the queries and corpus a simulated side shares with the real run. A report
    written before query sets were stored gets a blank query per id in ``ids``, so the queries still pair."""
    queries = dict(suite.queries) or {q: QuerySpec(q, "", ()) for q in ids}
    return SuiteResult(suite.key, suite.name, suite.corpus, suite.files, dict(suite.skipped_files), queries,
                       file_lines=dict(suite.file_lines))


def rng(seed: int, *parts: int | str) -> np.random.Generator:
    """A generator for one simulated run, seeded by the calibration's seed and the run's own coordinates, so every
    run draws the same numbers whatever else is simulated, in whatever order."""
    words = [seed] + [p if isinstance(p, int) else zlib.crc32(p.encode("utf-8")) for p in parts]
    return np.random.default_rng(words)
