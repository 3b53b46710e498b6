"""What building and searching a (suite, strategy) index computed besides the table, kept so a warm run need not
redo it.

A warm run reuses every table (its name is the fingerprint of everything that feeds it) and every ranking (cached by
table and query), but without these facts it would still chunk the whole corpus again: the chunks are what rankings are
mapped back to, what the quality checks and the report read. Chunking is deterministic in exactly what the index
fingerprint covers (the corpus bytes, the strategy's name, version, code and files, the model's window and tokenizer
through the embedder's id), so its outcome is stored under that fingerprint: the chunks, the per-file fallbacks, the
strategy's counters, the quality report, every chunk's token count, the table's size, and what the build cost when it
ran (chunk, embed and build seconds), which the report shows on warm runs too. Likewise each search's scored outcomes
(every query's ranking, metrics and the aggregates with their bootstrap intervals), keyed by the index, the search and
the questions with their relevance: a pure function of the cached rankings, so a warm run reads it back.

Stored as a pickle in the cache store (``facts`` table, beside the vectors and rankings): the values are this
package's own dataclasses, written and read by the same code version. :data:`FACTS_VERSION` and a digest of the
modules that define those classes are part of the key, so a changed class is never read from an older entry; an
entry that does not load (damaged, or written by other code) is a miss, warned about once, and is rebuilt.
"""
from __future__ import annotations

import hashlib
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest_chunkeval.chunking.boundary as boundary_module
import pytest_chunkeval.core.chunk as chunk_module
import pytest_chunkeval.core.golden as golden_module
import pytest_chunkeval.core.vocabulary as vocabulary_module
import pytest_chunkeval.evaluation.chunk_corpus as evaluate_chunking_module
import pytest_chunkeval.scoring.line_metrics as line_metrics_module
import pytest_chunkeval.scoring.metrics as metrics_module
import pytest_chunkeval.scoring.outcomes as outcomes_module
import pytest_chunkeval.scoring.quality as quality_module
import pytest_chunkeval.scoring.stats as stats_module
from pytest_chunkeval.core.chunk import Chunk
from pytest_chunkeval.core.golden import Query
from pytest_chunkeval.retrieval.cache_store import CacheView
from pytest_chunkeval.scoring.outcomes import Aggregate, QueryOutcome
from pytest_chunkeval.scoring.quality import QualityReport

#: Bump when :class:`BuildFacts` changes meaning.
FACTS_VERSION = "1"
#: The modules whose classes an entry holds or whose code produced it: the chunk, the chunking of a corpus (and its
#: boundary checks and fallback), the quality checks, the scoring of a search, the golden data's classes, the
#: vocabulary's types, the metrics and statistics. The evaluator that calls them is not here: it only orchestrates.
CODE_MODULES = (chunk_module, evaluate_chunking_module, boundary_module, quality_module, outcomes_module, golden_module,
                vocabulary_module, metrics_module, line_metrics_module, stats_module)


@lru_cache(maxsize=1)
def _code_digest() -> str:
    """A digest of :data:`CODE_MODULES`' source: a changed module is a different key, never a stale entry."""
    h = hashlib.sha256(FACTS_VERSION.encode())
    for module in CODE_MODULES:
        h.update(Path(str(module.__file__)).read_bytes())
    return h.hexdigest()[:16]


@dataclass
class BuildFacts:
    """One (suite, strategy) index's chunking outcome and costs, as the run that built it measured them.

    The one type of these facts: the evaluator fills it while it chunks and indexes (or reads it back from this
    cache), a :class:`~pytest_chunkeval.evaluation.evaluate.StrategyRun` holds it as ``facts``, and the report's
    :class:`~pytest_chunkeval.results.typed.IndexInfo` is made from it (``IndexInfo.from_run``). Its fields are what the
    cache pickles: a change to them bumps :data:`FACTS_VERSION`."""

    files_handled: int = 0
    chunks: list[tuple[str, Chunk]] = field(default_factory=list)  # (chunk id "<path>#<i>", chunk), file by file
    fallbacks: list[str] = field(default_factory=list)  # files the strategy failed on, cut into windows instead
    strategy_stats: dict[str, Any] = field(default_factory=dict)
    quality: QualityReport | None = None
    tokens: dict[str, int] = field(default_factory=dict)  # chunk id -> model tokens of its text (no specials)
    index_bytes: int = 0  # the table's size (vocabulary.SIZE_MEASURE), measured once, when it was built
    # What building this index cost when it was built (also on a warm run that reused it): chunk_seconds,
    # embed_seconds, build_seconds.
    cost: dict[str, float] = field(default_factory=dict)

    @property
    def text_bytes(self) -> int:
        return sum(len(c.text.encode("utf-8")) for _, c in self.chunks)


@dataclass
class ScoredSearch:
    """One search of an index (one retrieval mode) with every query scored: what a warm run would recompute from
    the cached rankings, bit for bit."""

    outcomes: dict[str, QueryOutcome]  # by query id
    aggregate: Aggregate


class BuildFactsCache(CacheView):
    """:class:`BuildFacts` by index fingerprint, and :class:`ScoredSearch` by index, search and questions."""

    @staticmethod
    def key(fingerprint: str) -> str:
        return f"{fingerprint}:{_code_digest()}"

    def get(self, fingerprint: str) -> BuildFacts | None:
        facts = self._get(self.key(fingerprint), "chunking")
        return facts if isinstance(facts, BuildFacts) else None

    def put(self, fingerprint: str, facts: BuildFacts) -> None:
        self._put(self.key(fingerprint), facts)

    def _put(self, key: str, value: Any) -> None:
        try:
            blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - e.g. a strategy's chunk metadata holding a parser object
            self._warn(f"cache store {self.path}: cannot cache this result ({type(exc).__name__}: {exc}); it is "
                       "computed again on every run")
            return
        self.store.write("INSERT OR REPLACE INTO facts VALUES (?, ?)", [(key, blob)])

    def _get(self, key: str, what: str) -> Any:
        rows = self.store.read("SELECT value FROM facts WHERE key = ?", (key,))
        if not rows:
            return None
        try:
            return pickle.loads(rows[0][0])
        except Exception as exc:  # noqa: BLE001 - any unreadable entry is a miss
            self._warn(f"cache store {self.path}: dropped a damaged cached {what} ({type(exc).__name__}); "
                       f"computing it again")
            return None

    # -- scored outcomes ------------------------------------------------------------------------------------------
    @staticmethod
    def outcomes_key(fingerprint: str, mode: str, k: int, depth: int, queries: Sequence[Query], search: str) -> str:
        """A search's scored outcomes depend on the index (``fingerprint``), how it was searched (mode, depth and
        ``search``: the search code's and LanceDB's versions, as the ranking cache keys them), ``k`` and the
        questions with their relevance; the scoring code is in :func:`_code_digest`."""
        h = hashlib.sha256()
        for q in queries:
            h.update(repr((q.id, q.text, [(r.path, r.lines, r.grade) for r in q.relevant])).encode())
        return f"outcomes:{fingerprint}:{mode}:{k}:{depth}:{search}:{h.hexdigest()[:16]}:{_code_digest()}"

    def get_outcomes(self, key: str) -> ScoredSearch | None:
        value = self._get(key, "scoring")
        return value if isinstance(value, ScoredSearch) else None

    def put_outcomes(self, key: str, scored: ScoredSearch) -> None:
        self._put(key, scored)
