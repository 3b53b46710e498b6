"""What running a strategy in a worker process costs (chunking/worker.py): a corpus chunked as the evaluator chunks
it (:func:`~pytest_chunkeval.evaluation.chunk_corpus.chunk_corpus`, the default 30 s limit) by the same strategy in this
process, as the built-ins are, and isolated, as a project's strategy is: one forked worker per pass, each file sent
over a pipe and its checked chunks pickled back.

One row per (corpus, strategy, where): ``test_isolation[<corpus>-<strategy>-in-process|isolated]``, grouped by corpus
and strategy, so the table's relative column is the isolation's cost. torch is imported first (when installed), as
in an evaluation, whose model makes the forked process large: forking copies its page tables. The cost is per file
(a round trip over the pipe) and per chunk (pickling), plus one fork per pass: ``file_level`` on golden/polyglot (79
small files, a cheap strategy) shows it most. ``extra_info``: ``files``, ``chunks``, ``µs per file`` (fastest
round), ``MB/s``.
"""
from __future__ import annotations

import contextlib
import time
from typing import Any

import pytest
from bench_support import load_corpus, megabytes, note, plan_rounds, round_times, strategy_files

from pytest_chunkeval.chunking.time_limit import DEFAULT_SECONDS
from pytest_chunkeval.chunking.worker import IsolatedChunker, available
from pytest_chunkeval.evaluation.chunk_corpus import chunk_corpus

SECTION = "strategy isolation"
ROWS = [(corpus, strategy, where) for corpus in ("polyglot", "pystdlib") for strategy in ("file_level", "ast")
        for where in ("in-process", "isolated")]

pytestmark = pytest.mark.skipif(not available(), reason="isolation needs fork (not Windows)")


def chunk_all(contract: Any, name: str, files: dict[str, str], isolated: bool) -> int:
    """One round: the corpus chunked as the evaluator chunks it, here or in a worker. Returns the chunk count."""
    remote = IsolatedChunker(contract, name, DEFAULT_SECONDS) if isolated else None
    return len(chunk_corpus(contract, name, files, remote=remote, limit=DEFAULT_SECONDS).chunks)


@pytest.mark.parametrize(("corpus_id", "strategy_name", "where"), ROWS, ids=["-".join(r) for r in ROWS])
def test_isolation(benchmark: Any, request: pytest.FixtureRequest, corpus_id: str, strategy_name: str,
                   where: str) -> None:
    with contextlib.suppress(ImportError):
        import torch  # noqa: F401 - the evaluation's process is this large when it forks
    corpus = load_corpus(corpus_id)
    benchmark.group = f"strategy isolation: {corpus.label}, {strategy_name}"
    contract, files = strategy_files(corpus, strategy_name)
    isolated = where == "isolated"
    t0 = time.perf_counter()
    chunks = chunk_all(contract, strategy_name, files, isolated)  # warm-up (grammars load), untimed; sizes rounds
    benchmark.pedantic(chunk_all, args=(contract, strategy_name, files, isolated),
                       rounds=plan_rounds(request.config, time.perf_counter() - t0), warmup_rounds=0)
    times = round_times(benchmark)
    mb = megabytes(files)
    benchmark.extra_info.update({"files": len(files), "chunks": chunks, "MB": round(mb, 3)})
    if times:
        best = min(times)
        benchmark.extra_info.update({"MB/s": round(mb / best, 3), "µs per file": round(best / len(files) * 1e6, 1)})
        note(request.config, SECTION, f"{corpus_id}, {strategy_name}", where, round(best / len(files) * 1e6, 1))
