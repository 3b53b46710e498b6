"""One evaluation = one strategy on one golden suite: chunk, index, search every query, score.

This module orchestrates: the chunking of a corpus is :mod:`~pytest_chunkeval.evaluation.chunk_corpus`'s, the scoring
of a search :mod:`~pytest_chunkeval.scoring.outcomes`'s, and both results are cached by
:mod:`~pytest_chunkeval.evaluation.build_facts`.

Plain functions and data, no pytest: the plugin's items ask the :class:`Evaluator` for a result and read it. Results
are memoised, so the first item of a (suite, strategy) pays for the index and the others read from it. Failures are
not: an evaluation that raised tries again when asked again, so whoever asks keeps what failed, in the one place that
also knows who said it. With several retrieval modes (``--chunkeval-retrieval vector,hybrid``) one (suite, strategy)
is chunked, embedded and indexed once and searched once per mode: a result per (suite, strategy, mode), sharing
everything but the search.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from pytest_chunkeval.chunking import worker
from pytest_chunkeval.chunking.boundary import LIMIT_SETTING
from pytest_chunkeval.chunking.contract import Contract, Registration, resolve
from pytest_chunkeval.chunking.strategy_sources import runs_isolated
from pytest_chunkeval.chunking.time_limit import DEFAULT_MEMORY_MB, DEFAULT_SECONDS
from pytest_chunkeval.core.golden import GoldenSuite
from pytest_chunkeval.core.grid import defaults as grid_defaults
from pytest_chunkeval.core.model_files import DEFAULT_MODEL
from pytest_chunkeval.core.ranking import ChunkRef
from pytest_chunkeval.core.vocabulary import DEFAULT_K, DEFAULT_RETRIEVAL, MAX_CHUNKS_PER_FILE
from pytest_chunkeval.evaluation.build_facts import BuildFacts, BuildFactsCache, ScoredSearch
from pytest_chunkeval.evaluation.chunk_corpus import RemoteChunker, chunk_corpus, count_and_check
from pytest_chunkeval.evaluation.fingerprint import chunks_fingerprint, index_fingerprint, strategy_fingerprint
from pytest_chunkeval.retrieval.embed import STREAM_WINDOW, EmbedCounts, Embedder
from pytest_chunkeval.retrieval.index import SEARCH_VERSION, IndexStore, RankingCache, lancedb_version
from pytest_chunkeval.retrieval.table_identity import TableIdentity
from pytest_chunkeval.retrieval.table_rows import Hit, Row
from pytest_chunkeval.scoring.outcomes import QueryOutcome, aggregate, score_query

__all__ = ["BuildFailed", "Evaluator", "QueryOutcome", "EvalConfig", "StrategyRun", "skip_reason"]


class BuildFailed(Exception):
    """The strategy could not make an index of this suite at all (its chunking ran out of time on every file): its
    items report a failed build, as for a strategy that cannot be constructed."""


class Progress(Protocol):
    def __call__(self, description: str, total: int) -> Callable[[int], None]: ...


def _no_progress(description: str, total: int) -> Callable[[int], None]:
    return lambda n: None


@dataclass
class EvalConfig:
    k: int = DEFAULT_K
    retrieval: str = DEFAULT_RETRIEVAL  # the mode of a result asked for without one (the first of the session's modes)
    depth: int = 50  # candidates fetched before the deterministic tie-break cuts to k
    chunk_timeout: float = DEFAULT_SECONDS  # seconds a strategy may spend on one file (0: no limit)
    strategy_memory: int = DEFAULT_MEMORY_MB  # MiB an isolated strategy's worker may grow by (0: no cap)
    max_chunks: int = MAX_CHUNKS_PER_FILE  # chunks of one file past which it falls back to windows (0: no cap)


@dataclass
class StrategyRun:
    """One strategy on one suite searched with one mode, with the live state the evaluation left (the contract,
    every chunk's text): what :meth:`~pytest_chunkeval.results.typed.StrategyResult.from_run` turns into a result."""

    suite: GoldenSuite
    name: str
    strategy: Contract | None = None  # bound to the embedder's model
    mode: str = ""  # the retrieval mode its outcomes were searched with; chunks and index are shared across modes
    skipped: str | None = None
    failed: str | None = None  # the strategy could not be built: why (its items fail, the tables say so)
    # The chunking's outcome, the table's size and what the build cost: made here or read from the facts cache.
    facts: BuildFacts = field(default_factory=BuildFacts)
    table: str = ""
    fingerprint: str = ""
    reused: bool = False
    chunk_seconds: float = 0.0  # this run's own times (facts.cost holds those of the run that built the index)
    build_seconds: float = 0.0
    embed: EmbedCounts = field(default_factory=EmbedCounts)
    outcomes: dict[str, QueryOutcome] = field(default_factory=dict)
    aggregate: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    facts_cached: bool = False  # ``facts`` came from the facts cache (nothing was chunked)
    # Tokens the model reads to embed every chunk of the index (ModelTokens.read): its embedding cost, cached or not.
    embed_tokens: int = 0
    timed_out: tuple[str, ...] = ()  # files whose chunking ran past the time limit (they fell back to windows)
    ended: tuple[str, ...] = ()  # "path: how" for files whose isolated worker ended while chunking them (fell back)
    # A grid point's strategy, values and the factory's defaults (grid.defaults); empty for a plain strategy.
    family: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)

    def per_query(self, mode: str, metric: str) -> list[float]:
        return [o.metrics[mode][metric] for o in self.outcomes.values()]


def skip_reason(suite: GoldenSuite, strategy: Contract) -> str | None:
    """Why ``strategy`` has nothing to evaluate on ``suite`` (None when it has): said, never silently skipped."""
    if strategy.unavailable:
        return strategy.unavailable
    if not any(strategy.handles(p) for p in suite.corpus.files):
        exts = strategy.extensions or ()
        return f"handles none of the {len(suite.corpus.files)} files of this suite (it handles {', '.join(exts)})"
    return None


class Evaluator:
    """Holds the embedder, the index store and every result of the session."""

    def __init__(
        self,
        config: EvalConfig,
        embedder: Embedder,
        store: IndexStore,
        progress: Progress | None = None,
        rankings: RankingCache | None = None,
        facts: BuildFactsCache | None = None,
        engine: Any = None,
    ):
        self.config = config
        self.rankings = rankings
        self.facts = facts
        self.embedder = embedder
        self.store = store
        self.progress = progress or _no_progress
        # retrieval.ray_engine.RayEngine with --chunkeval-engine ray: it chunks and embeds; None: this process does
        self.engine = engine
        self.runs: dict[tuple[Path, str, str], StrategyRun] = {}  # (suite, strategy, retrieval mode)
        self._built: dict[tuple[Path, str], StrategyRun] = {}  # chunked and indexed, not yet searched
        self.query_embed = EmbedCounts()
        self._query_vectors: dict[Path, dict[str, np.ndarray]] = {}

    # -- public -------------------------------------------------------------------------------------------------
    def run(
        self, suite: GoldenSuite, reg: Registration, strategy: Contract | None = None, mode: str | None = None
    ) -> StrategyRun:
        """The memoised evaluation of ``reg`` on ``suite`` searched with ``mode`` (default: the config's mode);
        ``strategy`` is its built contract (else built here). Every mode shares one chunking and one index."""
        mode = mode or self.config.retrieval
        key = (suite.path.resolve(), reg.name, mode)
        if key not in self.runs:
            run = replace(self._build(suite, reg, strategy), mode=mode, outcomes={}, aggregate={})
            if not run.skipped:
                self._search(run)
            self.runs[key] = run
        return self.runs[key]

    def built(self, suite: GoldenSuite, name: str) -> bool:
        """Whether ``name`` was chunked and indexed for ``suite`` (a failure after it is one mode's search's)."""
        return (suite.path.resolve(), name) in self._built

    def fail(self, suite: GoldenSuite, name: str, mode: str, message: str) -> StrategyRun:
        """Record that ``name`` could not be built for ``suite``: a result with no numbers that says why."""
        run = StrategyRun(suite=suite, name=name, mode=mode, failed=message)
        self.runs[(suite.path.resolve(), name, mode)] = run
        return run

    # -- stages -------------------------------------------------------------------------------------------------
    def _build(self, suite: GoldenSuite, reg: Registration, strategy: Contract | None) -> StrategyRun:
        """Chunked and indexed once per (suite, strategy), whatever the number of modes searched afterwards."""
        key = (suite.path.resolve(), reg.name)
        if key not in self._built:
            self._built[key] = self._evaluate(suite, reg, strategy if strategy is not None else reg.build())
        return self._built[key]

    def _evaluate(self, suite: GoldenSuite, reg: Registration, strategy: Contract | Any) -> StrategyRun:
        contract = strategy if isinstance(strategy, Contract) else resolve(strategy, name=reg.name, origin=reg.origin)
        # Sized with the model in use: its window is what fits, its tokenizer counts, for the strategy and checks.
        contract = contract.bind(self.embedder.tokens)
        run = StrategyRun(suite=suite, name=reg.name, strategy=contract)
        if reg.point:
            run.family, run.params, run.defaults = reg.strategy_name, dict(reg.point), grid_defaults(reg.factory)
        run.skipped = skip_reason(suite, contract)
        if run.skipped:
            return run
        fingerprint = index_fingerprint(
            suite.corpus.content_hash, self._strategy_key(reg, contract), self.embedder.cache_id
        )
        facts = self.facts.get(fingerprint) if self.facts is not None else None
        if facts is not None:  # a warm run's chunking: the stored outcome of the identical chunking of the table
            run.facts, run.facts_cached = facts, True
        else:
            self._chunk(run, reg)
        run.embed_tokens = self.embedder.tokens.read(run.facts.tokens.values())
        self._index(run, self._identity(run, reg, fingerprint), facts)
        # A timeout, or a worker killed (out of memory, say), is this machine's, this time: its chunks are not cached
        if facts is None and self.facts is not None and not (run.timed_out or run.ended):
            self.facts.put(fingerprint, run.facts)
        return run

    def _strategy_key(self, reg: Registration, contract: Contract) -> str:
        """The strategy's fingerprint, and the chunk cap when it is not the default: the cap decides which files
        fall back to windows, so another cap is another index (the default leaves every existing key as it was)."""
        key = strategy_fingerprint(reg, contract)
        cap = self.config.max_chunks
        return key if cap == MAX_CHUNKS_PER_FILE else f"{key}:max_chunks={cap}"

    def _chunk(self, run: StrategyRun, reg: Registration | None = None) -> None:
        t0 = time.perf_counter()
        strategy = run.strategy
        assert strategy is not None
        limit = self.config.chunk_timeout
        done = chunk_corpus(strategy, run.name, run.suite.corpus.files, self._remote(reg, strategy, run.name), limit,
                            self.config.max_chunks)
        run.chunk_seconds = time.perf_counter() - t0
        run.timed_out, run.ended = tuple(done.timed_out), tuple(done.ended)
        if done.files_handled and len(done.timed_out) == done.files_handled:
            shown = ", ".join(done.timed_out[:3]) + (f" and {len(done.timed_out) - 3} more" if len(done.timed_out) > 3
                                                      else "")
            raise BuildFailed(f"its chunking ran past the {limit:g} s limit on every file it handles "
                              f"({done.files_handled}: {shown}); {LIMIT_SETTING} sets the limit")
        if done.files_handled and len(done.ended) == done.files_handled:
            raise BuildFailed(f"its process ended while chunking every file it handles ({done.files_handled}); "
                              f"first: {done.ended[0]}")
        # The contract is bound to the embedder's model: the checks and budget recall count with its tokenizer.
        tokens, quality = count_and_check(done, strategy, run.suite.corpus.files, self.embedder.tokens)
        run.facts = BuildFacts(done.files_handled, done.chunks, done.fallbacks, done.strategy_stats, quality, tokens,
                               cost={"chunk_seconds": round(run.chunk_seconds, 4)})

    def _remote(self, reg: Registration | None, strategy: Contract, name: str) -> RemoteChunker | None:
        """With ``--chunkeval-engine ray``: chunking by the engine's workers, for the registration ``reg`` (they
        run apart from this process already); else a strategy that is not this package's own runs in a worker
        process this run can stop (:mod:`~pytest_chunkeval.chunking.worker`)."""
        if reg is None:
            return None
        if self.engine is None:
            if not (runs_isolated(reg) and worker.available()):
                return None
            return worker.IsolatedChunker(strategy, name, self.config.chunk_timeout, self.config.strategy_memory,
                                          self.config.max_chunks)
        engine, model = self.engine, self.embedder.name_or_path
        cap = self.config.max_chunks
        return lambda files: engine.chunk(reg, files, model, cap)

    def _identity(self, run: StrategyRun, reg: Registration, fingerprint: str) -> TableIdentity:
        """The table of ``run``: the strategy's, under its fingerprint; a grid point's is keyed by its chunks
        instead, so points that chunk alike share one table, its vectors, rankings and scores (hashing the chunks is
        milliseconds; embedding them again would be minutes)."""
        model = "" if self.embedder.model_id == DEFAULT_MODEL else self.embedder.model_id
        # Chunks with timed-out files (or files whose worker ended) in them are not what the strategy makes: keyed by
        # their content, like a grid point's, they never take the place of (or get taken for) the strategy's table.
        if not reg.point and not (run.timed_out or run.ended):
            return TableIdentity.of(run.suite.path, run.name, fingerprint, label=run.suite.name, model=model)
        content = chunks_fingerprint(run.facts.chunks)
        shared = index_fingerprint(run.suite.corpus.content_hash, content, self.embedder.cache_id)
        return TableIdentity.shared(run.suite.path, reg.strategy_name, content, shared, label=run.suite.name,
                                    model=model)

    def _index(self, run: StrategyRun, identity: TableIdentity, facts: BuildFacts | None) -> None:
        chunks, cost = run.facts.chunks, run.facts.cost
        if not chunks:  # nothing to index: every query retrieves nothing and scores 0
            return
        t0 = time.perf_counter()
        run.fingerprint = identity.fingerprint
        run.table = identity.name

        def batches() -> Iterator[tuple[list[Row], np.ndarray]]:
            """Chunks' rows and vectors, a window at a time: each is written before the next is embedded."""
            texts = [c.text for _, c in chunks]
            runner, window = None, STREAM_WINDOW
            if self.engine is not None:  # one window: each starts a Ray pipeline whose actors load the model
                e = self.embedder
                runner = self.engine.runner(e.name_or_path, e.device, e.backend, e.batch_size, e.onnx_dir)
                window = len(texts)
            progress = self._progress(f"{run.suite.name} · {run.name}")
            run.embed, windows = self.embedder.stream(texts, progress, runner, window)
            embedding, offset = 0.0, 0
            while True:
                started = time.perf_counter()
                vectors = next(windows, None)
                embedding += time.perf_counter() - started
                if vectors is None:
                    break
                part = chunks[offset : offset + len(vectors)]
                offset += len(vectors)
                yield [Row(cid, c.path, c.start_line, c.end_line, c.text) for cid, c in part], vectors
            cost["embed_seconds"] = round(embedding, 4)

        run.reused = self.store.ensure(identity, len(chunks), batches)
        # The size is a function of the table's content, which the fingerprint fixes: measured once, when built
        # (a reused table with cached facts keeps the size they hold).
        if not (run.reused and facts is not None):
            run.facts.index_bytes = self.store.size_bytes(run.table)
        run.build_seconds = time.perf_counter() - t0
        if not run.reused:  # embed_seconds was measured by batches; chunk_seconds stays the chunking's
            cost["build_seconds"] = round(run.build_seconds, 4)

    def _progress(self, what: str) -> Callable[[int, int], Callable[[int], None]]:
        """Progress for the texts the cache lacks only: cache hits are no work, and counting them as done would
        make the rate read like a faster model."""

        def start(todo: int, cached: int) -> Callable[[int], None]:
            return self.progress(f"embedding {what}" + (f" ({cached} from cache)" if cached else ""), todo)

        return start

    def _queries(self, suite: GoldenSuite) -> dict[str, np.ndarray]:
        key = suite.path.resolve()
        if key not in self._query_vectors:
            texts = [q.text for q in suite.queries]
            vectors, counts = self.embedder.encode(texts, self._progress(f"{suite.name} · queries"))
            self.query_embed.add(counts)
            self._query_vectors[key] = {q.id: v for q, v in zip(suite.queries, vectors, strict=False)}
        return self._query_vectors[key]

    def _search(self, run: StrategyRun) -> None:
        k = self.config.k
        depth, retrieval = max(self.config.depth, k), run.mode or self.config.retrieval
        scored_key = None
        if self.facts is not None and run.fingerprint:
            scored_key = BuildFactsCache.outcomes_key(run.fingerprint, retrieval, k, depth, run.suite.queries,
                                                 f"{lancedb_version()}/{SEARCH_VERSION}")
            scored = self.facts.get_outcomes(scored_key)
            if scored is not None:
                run.outcomes, run.aggregate = scored.outcomes, scored.aggregate
                return
        self._score(run, k, depth, retrieval)
        if scored_key is not None and self.facts is not None:
            self.facts.put_outcomes(scored_key, ScoredSearch(run.outcomes, run.aggregate))

    def _score(self, run: StrategyRun, k: int, depth: int, retrieval: str) -> None:
        """Search every query (rankings from the cache where it has them) and score it, then the aggregates."""
        vectors = self._queries(run.suite)
        by_id = {cid: c for cid, c in run.facts.chunks}
        refs = [ChunkRef(cid, c.path, c.start_line, c.end_line) for cid, c in run.facts.chunks]
        file_lines = run.suite.file_lines()
        fresh: list[tuple[str, list[Hit]]] = []
        for q in run.suite.queries:
            hits: list[Hit] = []
            if run.table:
                key = RankingCache.key(run.table, retrieval, depth, q.text)
                cached = self.rankings.get(key) if self.rankings is not None else None
                if cached is None:
                    cached = self.store.search(run.table, vectors[q.id], q.text, retrieval, depth)
                    fresh.append((key, cached))
                hits = cached
            run.outcomes[q.id] = score_query(q, hits, by_id, refs, k, run.facts.tokens, file_lines)
        if self.rankings is not None and fresh:
            self.rankings.put_many(fresh)
        run.aggregate = aggregate(run.outcomes)
