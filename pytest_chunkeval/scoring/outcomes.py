"""One search scored: each query's hits mapped back to the strategy's chunks and ranked, its metrics in every
relevance mode, and the means over queries with their intervals.

Its own module, apart from the evaluator that runs the searches, because what it makes is what the facts cache keeps
(:class:`~pytest_chunkeval.evaluation.build_facts.ScoredSearch`): the cache keys its entries by this code and holds
these objects, so it imports this module, and the evaluator imports the cache.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pytest_chunkeval.core.chunk import Chunk
from pytest_chunkeval.core.golden import Query
from pytest_chunkeval.core.ranking import ChunkRef, Ranked
from pytest_chunkeval.core.vocabulary import EVAL_MODES, LINES
from pytest_chunkeval.retrieval.table_rows import Hit
from pytest_chunkeval.scoring.line_metrics import evaluate_lines
from pytest_chunkeval.scoring.metrics import evaluate_query, hit, sort_ranking
from pytest_chunkeval.scoring.stats import summarize

#: mode -> metric key -> {"mean", "ci_low", "ci_high", "n"}
Aggregate = dict[str, dict[str, dict[str, float]]]


@dataclass
class QueryOutcome:
    query: Query
    ranking: list[Ranked]
    metrics: dict[str, dict[str, float]]
    hit: bool
    tokens: list[int] = field(default_factory=list)  # tokens of each ranked chunk's text (budget recall)


def score_query(query: Query, hits: Iterable[Hit], chunks: Mapping[str, Chunk], refs: Sequence[ChunkRef], k: int,
                tokens: Mapping[str, int], file_lines: Mapping[str, int]) -> QueryOutcome:
    """One query's top ``k`` (hits of chunks no longer in ``chunks`` dropped, ties broken deterministically) scored in
    file and chunk mode, and in line mode with each ranked chunk's ``tokens``."""
    ranked = sort_ranking(
        Ranked(h.chunk_id, chunks[h.chunk_id].path, chunks[h.chunk_id].start_line, chunks[h.chunk_id].end_line,
               h.score)
        for h in hits
        if h.chunk_id in chunks
    )[:k]
    metrics = evaluate_query(ranked, query.relevant, refs, k)
    outcome = QueryOutcome(query, ranked, metrics, hit(ranked, query.relevant, k))
    outcome.tokens = [tokens[r.chunk_id] for r in ranked]
    outcome.metrics[LINES] = evaluate_lines(ranked, outcome.tokens, query.relevant, k, file_lines)
    return outcome


def aggregate(outcomes: Mapping[str, QueryOutcome]) -> Aggregate:
    """Every metric's mean over the queries with its bootstrap interval, per mode ({} when no query was scored)."""
    if not outcomes:
        return {}
    first = next(iter(outcomes.values()))
    return {mode: {m: summarize([o.metrics[mode][m] for o in outcomes.values()]) for m in first.metrics[mode]}
            for mode in EVAL_MODES}
