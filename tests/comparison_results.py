"""Hand-made results for a head-against-base comparison: a query, a strategy's result with chosen scores, a suite,
and a summary comparing two suites. tests/test_comparison.py and tests/test_verdict.py build on them; no model, no
database.
"""
from __future__ import annotations

from pytest_chunkeval.core.ranking import Relevant
from pytest_chunkeval.judges.comparison import Policy, judged
from pytest_chunkeval.judges.gates import Thresholds
from pytest_chunkeval.output.report import Summary
from pytest_chunkeval.results.typed import (
    ChunkSpan,
    IndexInfo,
    QueryResult,
    QuerySpec,
    RankedChunk,
    StrategyResult,
    SuiteResult,
)

K = 10


def spec(qid: str, path: str = "a.py", lines: tuple[int, int] = (1, 5), text: str | None = None) -> QuerySpec:
    return QuerySpec(qid, text or f"where is {qid}", (Relevant(path, lines, 1),))


def result(name: str, scores: dict[str, float], chunks: tuple[ChunkSpan, ...], size: int = 1000,
           digest: str = "d", hits: dict[str, int | None] | None = None) -> StrategyResult:
    """A strategy whose every metric of query q equals ``scores[q]``; ``hits`` puts a relevant chunk at that rank."""
    queries = {}
    for q, v in scores.items():
        rank = (hits or {}).get(q, 1 if v > 0 else None)
        ranking = tuple(RankedChunk(f"z#{i}", "z.py", 1, 2, 1.0 / i) for i in range(1, K + 1))
        if rank is not None:
            ranking = ranking[: rank - 1] + (RankedChunk("a#0", "a.py", 1, 5, 1.0),) + ranking[rank:]
        metrics = {mode: {f"{m}@{K}": v for m in ("ndcg", "recall", "mrr")} for mode in ("file", "chunk")}
        queries[q] = QueryResult(q, rank is not None, ranking, metrics)
    means = {mode: {f"{m}@{K}": sum(scores.values()) / len(scores) for m in ("ndcg", "recall", "mrr")}
             for mode in ("file", "chunk")}
    return StrategyResult("s.yaml", name, files=2, chunks=chunks, queries=queries, means=means,
                          index=IndexInfo(bytes=size, chunk_count=len(chunks), digest=digest))


def suite(specs: list[QuerySpec], *strategies: StrategyResult) -> SuiteResult:
    return SuiteResult("s.yaml", "s", "corpus", 2, {}, {q.id: q for q in specs}, {s.name: s for s in strategies})


CHUNKS = (ChunkSpan("a#0", "a.py", 1, 5, "function"), ChunkSpan("a#1", "a.py", 6, 9, "function"))


def compared_summary(base: SuiteResult, head: SuiteResult) -> Summary:
    """A run's summary whose one suite, ``s.yaml``, is ``head`` compared with ``base`` (default thresholds)."""
    return Summary(k=K, retrieval="hybrid", baseline="ast", model={"id": "m", "max_tokens": 256},
                   embedding={"embedded": 0, "cached": 60}, suites={"s.yaml": head}, thresholds=Thresholds(),
                   comparisons={"s.yaml": judged(base, head, Policy())},
                   base={"ref": "main", "commit": "0123456789abcdef", "seconds": 3.0, "embedded": 0, "cached": 60})
