"""Hand-made results of a run in one or several retrieval modes: every metric of a result is one chosen score, so
each expected number can be worked out by hand. tests/test_retrieval_modes.py and tests/test_against_baseline.py
build on them; no model, no database.
"""
from __future__ import annotations

from pytest_chunkeval.core.ranking import Relevant
from pytest_chunkeval.results.typed import (
    ChunkSpan,
    IndexInfo,
    QueryResult,
    QuerySpec,
    RankedChunk,
    StrategyResult,
    SuiteResult,
    row_label,
)

K = 10
SPECS = [QuerySpec(f"q{i}", f"where is q{i}", (Relevant("a.py", (1, 5), 1),)) for i in range(30)]
CHUNKS = (ChunkSpan("a#0", "a.py", 1, 5, "function"), ChunkSpan("a#1", "a.py", 6, 9, "function"))


def result(name: str, mode: str, score: float, multi: bool = True, size: int = 1000) -> StrategyResult:
    """Every metric of every query equals ``score``; the result is searched with ``mode`` and labelled for a run of
    several modes (``multi``) or one."""
    ranking = (RankedChunk("a#0", "a.py", 1, 5, 1.0),) if score > 0 else ()
    metrics = {m: {f"{x}@{K}": score for x in ("ndcg", "recall", "mrr")} for m in ("file", "chunk")}
    queries = {q.id: QueryResult(q.id, score > 0, ranking, metrics) for q in SPECS}
    means = {m: {f"{x}@{K}": score for x in ("ndcg", "recall", "mrr")} for m in ("file", "chunk")}
    return StrategyResult("s.yaml", name, files=1, chunks=CHUNKS, queries=queries, means=means,
                          index=IndexInfo(bytes=size, chunk_count=2, digest="d"), mode=mode,
                          label=row_label(name, mode, multi))


def suite(*results: StrategyResult) -> SuiteResult:
    return SuiteResult("s.yaml", "s", "corpus", 1, {}, {q.id: q for q in SPECS}, {r.label: r for r in results})
