"""The evaluation's chunking step (:mod:`~pytest_chunkeval.evaluation.evaluate` calls it): not the Chunk type
(:mod:`~pytest_chunkeval.core.chunk`), nor the chunking engines strategies are built on (``chunking/``).

One strategy over one suite's corpus: every file it handles chunked, in file order, with what indexing and the
report need besides the chunks: stable chunk ids, the files that fell back to windows, the strategy's counters, each
chunk's token count and the quality checks.

Its own module, apart from the evaluator that orchestrates chunking, indexing and search, because what it makes is
what the facts cache stores (:class:`~pytest_chunkeval.evaluation.build_facts.BuildFacts`): the cache keys its entries
by this code, so it imports this module, and the evaluator imports the cache.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from pytest_chunkeval.chunking.boundary import chunk_file
from pytest_chunkeval.chunking.contract import Contract
from pytest_chunkeval.chunking.time_limit import alarm_handler
from pytest_chunkeval.core.chunk import Chunk
from pytest_chunkeval.core.vocabulary import MAX_CHUNKS_PER_FILE
from pytest_chunkeval.retrieval.remote import Tokens
from pytest_chunkeval.scoring.quality import QualityReport, check

#: Chunks (path, text) pairs elsewhere (the Ray engine, bound to the registration and model) and returns one part per
#: file with ``path``, ``chunks``, ``fallbacks`` and ``stats``, in file order.
RemoteChunker = Callable[[list[tuple[str, str]]], list[Any]]


@dataclass
class ChunkedCorpus:
    files_handled: int
    by_file: dict[str, list[Chunk]]
    chunks: list[tuple[str, Chunk]]  # (chunk id "<path>#<i>", chunk), file by file
    fallbacks: list[str] = field(default_factory=list)
    strategy_stats: dict[str, Any] = field(default_factory=dict)
    timed_out: list[str] = field(default_factory=list)  # files whose chunking ran past the limit (in fallbacks too)
    # Files whose isolated worker ended while chunking them (killed at the limit, exited, crashed): "path: how"
    ended: list[str] = field(default_factory=list)


def chunk_corpus(strategy: Contract, name: str, corpus: Mapping[str, str],
                 remote: RemoteChunker | None = None, limit: float | None = None,
                 max_chunks: int = MAX_CHUNKS_PER_FILE) -> ChunkedCorpus:
    """Chunk every file of ``corpus`` that ``strategy`` handles (here, or by ``remote``: the Ray engine, or a
    worker process, :class:`~pytest_chunkeval.chunking.worker.IsolatedChunker`), checked at the boundary
    (:func:`~pytest_chunkeval.chunking.boundary.chunk_file`: a failing file, one that takes more than ``limit``
    seconds here, or one cut into more than ``max_chunks`` chunks falls back to windows)."""
    strategy.reset_stats()
    by_file: dict[str, list[Chunk]] = {}
    fallbacks: list[str] = []
    timed_out: list[str] = []
    ended: list[str] = []
    files = [(path, text) for path, text in sorted(corpus.items()) if strategy.handles(path)]
    if remote is not None:
        from pytest_chunkeval.evaluation.ray_engine import merge_stats

        done = remote(files)
        for part in done:  # in file order, as below
            by_file[part.path] = part.chunks
            fallbacks.extend(part.fallbacks)
            if getattr(part, "timed_out", False):
                timed_out.append(part.path)
            if getattr(part, "ended", None):
                ended.append(f"{part.path}: {part.ended}")
        stats = merge_stats([part.stats for part in done], strategy)
    else:
        with alarm_handler() if limit else nullcontext():  # installed once; each file only arms the timer
            for path, text in files:
                by_file[path] = chunk_file(strategy, name, path, text, fallbacks, limit, timed_out, max_chunks)
        stats = strategy.stats()
    chunks = [(f"{path}#{i}", c) for path, _ in files for i, c in enumerate(by_file[path])]
    return ChunkedCorpus(len(files), by_file, chunks, fallbacks, stats, timed_out, ended)


def count_and_check(chunked: ChunkedCorpus, strategy: Contract, corpus: dict[str, str],
                    tokens: Tokens) -> tuple[dict[str, int], QualityReport]:
    """Every chunk's tokens, once, when it is made, and the quality report.

    The quality checks judge the window with them, and budget recall reads them for whatever gets retrieved (what a
    generator receives is the chunk's text, without the [CLS]/[SEP] the embedder adds, so the specials are taken
    off). ``tokens`` is the embedder's model; the counts are handed to the checks when the contract is bound to it."""
    counted = tokens.count_many([c.text for _, c in chunked.chunks])
    per_chunk = {cid: max(0, n - tokens.specials) for (cid, _), n in zip(chunked.chunks, counted, strict=True)}
    quality = check(strategy, corpus, chunked.by_file, counted if strategy.model is tokens else None)
    return per_chunk, quality
