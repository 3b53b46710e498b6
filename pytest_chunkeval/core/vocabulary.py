"""The words every module shares: metric names and their keys, the default k and line budgets, the relevance modes,
the retrieval modes, the entry-point group packages ship strategies under (the values a ranking is made of are in
``ranking.py``).

A metric key such as ``ndcg@10`` is written into reports, read back by comparisons against a stored base, matched by
``verify`` against trec_eval and shown in tables; spelled by hand in two modules, it can drift apart with nothing but
a failing run to say so. Here it is spelled once, and every other module asks for it. This module sits at the bottom
of the package's import graph (it imports nothing from the package), so anything may import it without a cycle.
"""
from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "BUDGET_RECALL",
    "CHUNK",
    "DEFAULT_BUDGETS",
    "DEFAULT_K",
    "DEFAULT_RETRIEVAL",
    "ENTRY_POINT_GROUP",
    "EVAL_MODES",
    "FILE",
    "FTS",
    "HYBRID",
    "LABELS",
    "LINES",
    "LONG_LABELS",
    "MRR",
    "NDCG",
    "RANK_METRICS",
    "RANK_MODES",
    "RECALL",
    "RETRIEVAL_MODES",
    "VECTOR",
    "budget_key",
    "label",
    "line_metric_keys",
    "metric_key",
    "metric_keys",
    "mode_metric",
    "split_key",
    "split_mode_metric",
]

#: The entry-point group through which packages (this one among them) ship strategies: read by every pytest run to
#: name the strategy fixtures (run/fixtures.py) and by an evaluation to load them (chunking/strategy_sources.py).
ENTRY_POINT_GROUP = "pytest_chunkeval.strategies"

#: Chunks a strategy may return for one file before the file falls back to windows. A 1 MiB file (the corpus's
#: size cap) cut into the fallback's 1,000-character windows is about 1,200 chunks, and the finest real strategies
#: (a chunk per statement) stay far below this; past it a chunk list is a bug, and each chunk costs memory, an
#: embedding (the slow part of a run) and a line of the report: 10^6 chunks of one file take 4.5 GB and a 253 MB
#: report.
#: Here, light, because the settings table every pytest run imports names it as a default.
MAX_CHUNKS_PER_FILE = 10_000

#: The ranking cutoff when none is configured (the ADR's protocol: the top 10 chunks of each query).
DEFAULT_K = 10

# -- metrics -----------------------------------------------------------------------------------------------------
#: Short names of the rank metrics (trec_eval semantics, scoring/metrics.py), in the order reports list them.
NDCG, RECALL, MRR = "ndcg", "recall", "mrr"
RANK_METRICS = (NDCG, RECALL, MRR)
#: The line mode's share of gold lines inside a token budget (scoring/line_metrics.py); its cutoff is the budget.
BUDGET_RECALL = "budget_recall"
#: Token budgets of budget recall: what a generator's context could hold of the top k.
DEFAULT_BUDGETS = (512, 2048)
#: How tables abbreviate each metric (``NDCG@10``, ``R@10``, ``MRR@10``, ``BR@512``) ...
LABELS = {NDCG: "NDCG", RECALL: "R", MRR: "MRR", BUDGET_RECALL: "BR"}
#: ... and how sentences (a gate's detail) name it in full (``Recall@10``).
LONG_LABELS = {NDCG: "NDCG", RECALL: "Recall", MRR: "MRR", BUDGET_RECALL: "budget recall"}


def metric_key(metric: str, cutoff: int) -> str:
    """The key of ``metric`` at ``cutoff`` in results and reports: ``metric_key("ndcg", 10) == "ndcg@10"``."""
    return f"{metric}@{cutoff}"


def split_key(key: str) -> tuple[str, int]:
    """``"budget_recall@512"`` -> ``("budget_recall", 512)``: the inverse of :func:`metric_key`."""
    metric, cutoff = key.rsplit("@", 1)
    return metric, int(cutoff)


def label(metric: str, cutoff: int, long: bool = False) -> str:
    """The display form of a key: ``label("recall", 10) == "R@10"``, ``label("recall", 10, long=True) ==
    "Recall@10"``."""
    return metric_key((LONG_LABELS if long else LABELS)[metric], cutoff)


def metric_keys(k: int) -> tuple[str, str, str]:
    """The rank metrics' keys at ``k`` (file and chunk mode), in :data:`RANK_METRICS` order."""
    ndcg, recall, mrr = (metric_key(m, k) for m in RANK_METRICS)
    return ndcg, recall, mrr


def budget_key(budget: int) -> str:
    """The key of budget recall within ``budget`` tokens: ``budget_recall@512``."""
    return metric_key(BUDGET_RECALL, budget)


def line_metric_keys(k: int, budgets: Sequence[int] = DEFAULT_BUDGETS) -> tuple[str, ...]:
    """The line mode's keys: line-projected NDCG at ``k``, then budget recall at each budget, in that order."""
    return (metric_key(NDCG, k), *(budget_key(b) for b in budgets))


# -- relevance (evaluation) modes --------------------------------------------------------------------------------
#: file: the top k mapped to files, duplicates dropped; chunk: each chunk judged on its own; lines: the top k's lines
#: judged line by line (line-projected NDCG, budget recall).
FILE, CHUNK, LINES = "file", "chunk", "lines"
#: The modes the rank metrics are computed in (and gates and comparisons read).
RANK_MODES = (FILE, CHUNK)
#: Every mode a query is scored in, in the order results hold them.
EVAL_MODES = (FILE, CHUNK, LINES)


def mode_metric(mode: str, key: str) -> str:
    """A metric key qualified by its mode, as a report's ``comparable.metrics`` lists it: ``file:ndcg@10``."""
    return f"{mode}:{key}"


def split_mode_metric(text: str) -> tuple[str, str, int] | None:
    """``"lines:budget_recall@512"`` -> ``("lines", "budget_recall", 512)``; None for text not of that shape (no
    ``:`` or no ``@``); a cutoff that is not a number raises ``ValueError``, as :func:`split_key` does."""
    mode, sep, key = text.partition(":")
    if not sep or "@" not in key:
        return None
    metric, cutoff = split_key(key)
    return mode, metric, cutoff


# -- retrieval modes ---------------------------------------------------------------------------------------------
#: How an index is searched: vector and full-text fused (reciprocal rank fusion), vector only, full-text only.
HYBRID, VECTOR, FTS = "hybrid", "vector", "fts"
RETRIEVAL_MODES = (HYBRID, VECTOR, FTS)
DEFAULT_RETRIEVAL = HYBRID


# -- what reports and tables name --------------------------------------------------------------------------------
#: What an index's size (``index.bytes`` of a report) measures: the Arrow payload of the table's rows
#: (retrieval/index.py ``IndexStore.size_bytes``), named in docs and reports.
SIZE_MEASURE = "arrow_bytes"
#: Column groups of the retrieval table beyond its default ones (--chunkeval-columns; rendered by output/tables.py).
COLUMN_GROUPS = ("chunk", "budget")
