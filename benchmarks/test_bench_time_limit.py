"""What the per-file chunking time limit costs: a corpus chunked as the evaluator chunks it
(:func:`~pytest_chunkeval.evaluation.chunk_corpus.chunk_corpus`: every file through the boundary's checks) with the
limit off and on (the default 30 s).

One row per (corpus, strategy, limit): ``test_time_limit[<corpus>-<strategy>-off|on]``, grouped by corpus and
strategy, so the table's relative column is the limit's cost. The limit installs a SIGALRM handler once per corpus
and arms and disarms an interval timer around each file: a cost per file, not per byte, so the rows that show it
most are many small files chunked by a cheap strategy (``file_level`` on golden/polyglot, 79 files) beside an
expensive one (``ast``). ``extra_info``: ``MB/s`` (fastest round), ``files``, ``µs per file`` (fastest round).
"""
from __future__ import annotations

import time
from typing import Any

import pytest
from bench_support import load_corpus, megabytes, note, plan_rounds, round_times, strategy_files

from pytest_chunkeval.chunking.time_limit import DEFAULT_SECONDS
from pytest_chunkeval.evaluation.chunk_corpus import chunk_corpus

SECTION = "chunking time limit"
ROWS = [(corpus, strategy, limit) for corpus in ("polyglot", "pystdlib") for strategy in ("file_level", "ast")
        for limit in ("off", "on")]


def chunk_all(contract: Any, name: str, files: dict[str, str], limit: float | None) -> int:
    """One round: the corpus chunked as the evaluator chunks it. Returns the chunk count."""
    return len(chunk_corpus(contract, name, files, limit=limit).chunks)


@pytest.mark.parametrize(("corpus_id", "strategy_name", "limit"), ROWS, ids=["-".join(r) for r in ROWS])
def test_time_limit(benchmark: Any, request: pytest.FixtureRequest, corpus_id: str, strategy_name: str,
                    limit: str) -> None:
    corpus = load_corpus(corpus_id)
    benchmark.group = f"chunking time limit: {corpus.label}, {strategy_name}"
    contract, files = strategy_files(corpus, strategy_name)
    seconds = DEFAULT_SECONDS if limit == "on" else None
    t0 = time.perf_counter()
    chunk_all(contract, strategy_name, files, seconds)  # warm-up (grammars load), untimed; sizes the rounds
    benchmark.pedantic(chunk_all, args=(contract, strategy_name, files, seconds),
                       rounds=plan_rounds(request.config, time.perf_counter() - t0), warmup_rounds=0)
    times = round_times(benchmark)
    mb = megabytes(files)
    benchmark.extra_info.update({"files": len(files), "MB": round(mb, 3)})
    if times:
        best = min(times)
        benchmark.extra_info.update({"MB/s": round(mb / best, 3), "µs per file": round(best / len(files) * 1e6, 1)})
        note(request.config, SECTION, f"{corpus_id}, {strategy_name}", limit, round(best / len(files) * 1e6, 1))
