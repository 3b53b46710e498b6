"""A hand-made results value, as one finished run would hold it: the renderers' tests (tests/test_renderers.py) and
the hostile-text tests (tests/test_hostile_text.py) render it.

Its numbers are ones no renderer could recompute: the stored gates fail where the means would pass them, the stored
Δ is +24.6 % where the means give +60 % (see tests/test_renderers.py).
"""
from __future__ import annotations

from pytest_chunkeval.core.ranking import Relevant
from pytest_chunkeval.judges.comparison import MetricDelta, QueryChange, StrategyComparison, SuiteComparison
from pytest_chunkeval.judges.judged_run import Reason, Verdict
from pytest_chunkeval.output.report import Summary
from pytest_chunkeval.results.decisions import AgainstBaseline, GateResult
from pytest_chunkeval.results.typed import (
    ChunkSpan,
    IndexInfo,
    Interval,
    QueryResult,
    QuerySpec,
    RankedChunk,
    StrategyResult,
    SuiteResult,
)

KEY = "golden/s/queries.yaml"
K = 10

SPECS = {q: QuerySpec(q, f"where is {q}", (Relevant("a.py", (1, 5), 1),)) for q in ("q1", "q2")}
CHUNKS = (ChunkSpan("a.py#0", "a.py", 1, 5, "function"), ChunkSpan("a.py#1", "a.py", 6, 9, "function"))


def _means(ndcg: float, recall: float, mrr: float) -> dict[str, dict[str, float]]:
    ranked = {f"ndcg@{K}": ndcg, f"recall@{K}": recall, f"mrr@{K}": mrr}
    return {"file": dict(ranked), "chunk": dict(ranked), "lines": {f"ndcg@{K}": ndcg / 2}}


def _queries(hits: dict[str, bool]) -> dict[str, QueryResult]:
    found = (RankedChunk("a.py#0", "a.py", 1, 5, 0.9),)
    return {q: QueryResult(q, hit, found if hit else (), {"file": {f"ndcg@{K}": 1.0 if hit else 0.0}}, (12,) if hit
                           else ()) for q, hit in hits.items()}


def _result(name: str, ndcg: float, *, against: AgainstBaseline | None, size: int, hits: dict[str, bool],
            fallbacks: tuple[str, ...] = (), cost: dict[str, float] | None = None, reused: bool = True
            ) -> StrategyResult:
    means = _means(ndcg, 0.9, 0.7)
    intervals = {"file": {f"ndcg@{K}": Interval(ndcg, ndcg - 0.1, ndcg + 0.1, 2)}}
    index = IndexInfo(table=f"s__{name}", bytes=size, chunk_count=len(CHUNKS), digest=name, reused=reused,
                      cost=cost or {"chunk_seconds": 0.25, "embed_seconds": 4.0, "build_seconds": 5.5})
    quality = {"claims_lossless": True, "uncovered_lines": 0, "over_window_share": 0.25, "tiny_share": 0.5}
    return StrategyResult(KEY, name, files=3, chunks=CHUNKS, index=index, means=means, intervals=intervals,
                          queries=_queries(hits), quality=quality, fallbacks=fallbacks, mode="hybrid",
                          against=against)


STORED_GATES = (
    GateResult("ndcg-gain", False, 0.05, 0.10, "stored detail: NDCG gain +5.0%, needs >= +10%"),
    GateResult("recall-drop", True, 0.0, 0.05, "stored detail: no drop"),
    GateResult("index-size", False, 0.9, 0.50, "stored detail: index +90%"),
)
STORED_VS = {"file": {f"ndcg@{K}": {"delta": 0.123, "relative": 0.246, "p_value": 0.042}}}


def made_suite() -> SuiteResult:
    strategies = {
        "file_level": _result("file_level", 0.5, against=AgainstBaseline({}, None), size=2048,
                              hits={"q1": True, "q2": True}),
        # The means say +60 % against file_level and pass every gate; what was judged (stored) says otherwise.
        "ast": _result("ast", 0.8, against=AgainstBaseline(STORED_VS, STORED_GATES), size=1024,
                       hits={"q1": True, "q2": False}, reused=False),
        "peers": _result("peers", 0.4, against=AgainstBaseline({"file": {f"ndcg@{K}": {
            "delta": -0.1, "relative": None, "p_value": 1.0}}}, ()), size=4096, hits={"q1": False, "q2": False},
            fallbacks=("b.py: SyntaxError at line 3",)),
        "crashy": StrategyResult(KEY, "crashy", failed="ValueError: c.json:4: $.blocks: not a list", mode="hybrid"),
        "java_only": StrategyResult(KEY, "java_only", skipped="handles none of the 3 files of this suite",
                                    mode="hybrid"),
    }
    return SuiteResult(KEY, "s", "golden/s/corpus", 3, {"big.bin": "not text"}, dict(SPECS), strategies)


def made_comparison() -> SuiteComparison:
    deltas = [MetricDelta("file", f"{m}@{K}", 0.9, 0.7, -0.3, -0.1, 0.01, regressed=m == "ndcg", gating=m != "mrr",
                          fell=True, p_adjusted=0.02 if m != "mrr" else None, mde=0.05 if m != "mrr" else None)
              for m in ("ndcg", "recall", "mrr")]
    lost = QueryChange("q2", "where is q2", SPECS["q2"].relevant, 1, None, (CHUNKS[0],),
                       (ChunkSpan("a.py#0", "a.py", 1, 2, "block"),), (RankedChunk("z#0", "z.py", 1, 2, 0.8),))
    ast = StrategyComparison(KEY, "ast", "changed", paired=2, deltas=deltas, base_size=1000, head_size=1024,
                             base_chunks=2, head_chunks=3, lost=[lost], files_rechunked=["a.py"])
    peers = StrategyComparison(KEY, "peers", "skipped", "base_skipped", "handles none")
    return SuiteComparison(KEY, True, added=["q9"], strategies={"ast": ast, "peers": peers})


VERDICT = Verdict(
    passed=False,
    reasons=[Reason("regressions against the base", (f"{KEY}::ast: ndcg@10 (file) 0.900 → 0.700",),
                    "intended? nothing to record"),
             Reason("adoption gates failed", tuple(f"{KEY}::ast::gate[g{i}]: failed" for i in range(12)),
                    "thresholds are ini chunkeval_gate_*")],
    notes=[f"{KEY}::ast: 1 queries lost, 0 gained against the base"],
)


def made_summary(**kw: object) -> Summary:
    values: dict[str, object] = dict(
        k=K, retrieval="hybrid", baseline="file_level", model={"id": "m", "max_tokens": 256},
        embedding={"embedded": 3, "cached": 7}, suites={KEY: made_suite()}, comparisons={KEY: made_comparison()},
        base={"ref": "main", "commit": "0123456789abcdef", "seconds": 2.5, "embedded": 1, "cached": 9},
        family_size=2, verdict=VERDICT, gated=True)
    values.update(kw)
    return Summary(**values)  # type: ignore[arg-type]
