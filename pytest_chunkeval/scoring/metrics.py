"""Retrieval metrics with trec_eval semantics, in file mode and chunk mode.

Everything here is a small pure function over plain values so that it can be checked, case by case, against an
independent trec_eval implementation (ir_measures / pytrec_eval; see ``tests/test_metrics.py`` and ``verify.py``).

Definitions (DESIGN.md, "Metric definitions"):

* **file mode**: the top-k chunks are mapped to their source files, duplicates removed keeping the first occurrence,
  so a strategy is never rewarded for returning the same file twice.  Ranks are positions in that de-duplicated list;
  a file's grade is the highest grade of the golden items naming it.
* **chunk mode**: a chunk is relevant when it overlaps a relevant item's lines (or, for an item without lines, comes
  from that file); its grade is the highest grade it overlaps.  The relevant set is every such chunk in the
  strategy's whole index, so recall and ideal DCG count relevant chunks that were *not* retrieved.
* NDCG@k: linear gain, discount ``log2(rank + 1)``, ideal DCG from the relevant set truncated to k (trec_eval
  ``ndcg_cut``).  Recall@k: relevant retrieved in the top k / relevant.  MRR@k: 1 / rank of the first relevant in
  the top k, else 0.  A query with no relevant items scores 0.0 everywhere (trec_eval would drop it; we keep it so
  that means over queries are over the same population for every strategy).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from pytest_chunkeval.core.ranking import ChunkRef, Ranked, Relevant
from pytest_chunkeval.core.vocabulary import CHUNK, DEFAULT_K, FILE, metric_keys

__all__ = [
    "sort_ranking",
    "overlaps",
    "chunk_grade",
    "file_grades",
    "file_mode",
    "chunk_mode",
    "ndcg_at_k",
    "recall_at_k",
    "mrr_at_k",
    "metric_names",
    "evaluate_query",
    "hit",
]


def sort_ranking(items: Iterable[Ranked]) -> list[Ranked]:
    """Order by score descending, then path, start line and chunk id ascending.

    Search engines return equal scores in arbitrary order; fixing the tie-break here makes rankings, and therefore
    every metric, reproducible run to run.  ``sorted`` is stable, but the key is total anyway.
    """
    return sorted(items, key=lambda r: (-r.score, r.path, r.start_line, r.chunk_id))


def overlaps(start_line: int, end_line: int, lines: tuple[int, int]) -> bool:
    """True when the inclusive ranges ``[start_line, end_line]`` and ``lines`` share at least one line."""
    lo, hi = lines
    return start_line <= hi and lo <= end_line


def chunk_grade(path: str, start_line: int, end_line: int, relevant: Sequence[Relevant]) -> int:
    """Grade of a chunk in chunk mode: the highest grade of a relevant item it touches, 0 when none.

    An item touches the chunk when it names the same path and either has no lines (the whole file is relevant) or its
    line range overlaps the chunk's.  Taking the maximum means a chunk spanning two judged regions gets the better one.
    """
    best = 0
    for item in relevant:
        if item.path != path:
            continue
        if item.lines is None or overlaps(start_line, end_line, item.lines):
            best = max(best, item.grade)
    return best


def file_grades(relevant: Sequence[Relevant]) -> dict[str, int]:
    """Grade of each relevant file in file mode: the maximum grade over the items naming it (lines are ignored)."""
    grades: dict[str, int] = {}
    for item in relevant:
        if item.grade > 0:
            grades[item.path] = max(grades.get(item.path, 0), item.grade)
    return grades


def file_mode(ranking: Sequence[Ranked], relevant: Sequence[Relevant], k: int) -> tuple[list[int], list[int]]:
    """(gains, ideal) in file mode.

    ``gains`` are the grades of the de-duplicated file list of the top-k chunks (first occurrence kept, so the list
    may be shorter than k); ``ideal`` are the grades of all relevant files, descending, each file counted once.
    """
    grades = file_grades(relevant)
    seen: set[str] = set()
    gains: list[int] = []
    for r in ranking[:k]:
        if r.path in seen:
            continue
        seen.add(r.path)
        gains.append(grades.get(r.path, 0))
    ideal = sorted(grades.values(), reverse=True)
    return gains, ideal


def chunk_mode(
    ranking: Sequence[Ranked], relevant: Sequence[Relevant], all_chunks: Sequence[ChunkRef], k: int
) -> tuple[list[int], list[int]]:
    """(gains, ideal) in chunk mode.

    ``gains`` are the chunk grades of the top-k chunks; ``ideal`` are the grades of every relevant chunk in the
    strategy's index (``all_chunks``, de-duplicated by chunk id), descending.  Ranked chunks are expected to come from
    ``all_chunks``; ``verify.py`` checks that a report honours this.
    """
    gains = [chunk_grade(r.path, r.start_line, r.end_line, relevant) for r in ranking[:k]]
    seen: set[str] = set()
    ideal: list[int] = []
    for c in all_chunks:
        if c.chunk_id in seen:
            continue
        seen.add(c.chunk_id)
        g = chunk_grade(c.path, c.start_line, c.end_line, relevant)
        if g > 0:
            ideal.append(g)
    ideal.sort(reverse=True)
    return gains, ideal


def _dcg(gains: Sequence[int], k: int) -> float:
    # rank r (1-based) is discounted by log2(r + 1); enumerate's i is r - 1.
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]) if g > 0)


def ndcg_at_k(gains: Sequence[int], ideal: Sequence[int], k: int) -> float:
    """trec_eval ``ndcg_cut.k``: DCG of the first k gains over DCG of the ideal gains truncated to k; 0.0 if no
    relevant.

    ``ideal`` must already be sorted descending (as :func:`file_mode` / :func:`chunk_mode` return it).
    """
    idcg = _dcg(ideal, k)
    if idcg <= 0.0:
        return 0.0
    return _dcg(gains, k) / idcg


def recall_at_k(gains: Sequence[int], n_relevant: int, k: int) -> float:
    """trec_eval ``recall.k``: relevant (gain > 0) among the first k / ``n_relevant``; 0.0 when nothing is relevant."""
    if n_relevant <= 0:
        return 0.0
    return sum(1 for g in gains[:k] if g > 0) / n_relevant


def mrr_at_k(gains: Sequence[int], k: int) -> float:
    """Reciprocal rank of the first relevant result within the first k, 0.0 when none (trec_eval ``recip_rank``
    on a run truncated to k)."""
    for i, g in enumerate(gains[:k]):
        if g > 0:
            return 1.0 / (i + 1)
    return 0.0


#: The metric keys used in results and reports for cutoff ``k`` (the vocabulary's name for it is ``metric_keys``).
metric_names = metric_keys


def _scores(gains: list[int], ideal: list[int], k: int) -> dict[str, float]:
    ndcg, recall, mrr = metric_keys(k)
    return {
        ndcg: ndcg_at_k(gains, ideal, k),
        recall: recall_at_k(gains, len(ideal), k),
        mrr: mrr_at_k(gains, k),
    }


def evaluate_query(
    ranking: Sequence[Ranked], relevant: Sequence[Relevant], all_chunks: Sequence[ChunkRef], k: int = DEFAULT_K
) -> dict[str, dict[str, float]]:
    """All metrics of one query in both modes: ``{"file": {"ndcg@k", "recall@k", "mrr@k"}, "chunk": {...}}``.

    ``ranking`` is used in the order given (the caller ranks, e.g. with :func:`sort_ranking`).
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    f_gains, f_ideal = file_mode(ranking, relevant, k)
    c_gains, c_ideal = chunk_mode(ranking, relevant, all_chunks, k)
    return {FILE: _scores(f_gains, f_ideal, k), CHUNK: _scores(c_gains, c_ideal, k)}


def hit(ranking: Sequence[Ranked], relevant: Sequence[Relevant], k: int) -> bool:
    """True when any of the top-k chunks overlaps a relevant item (chunk-mode relevance); a query item's pass/fail."""
    return any(chunk_grade(r.path, r.start_line, r.end_line, relevant) > 0 for r in ranking[:k])
