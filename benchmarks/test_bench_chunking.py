"""Chunking throughput (MB/s) of every registered strategy on every bundled suite and on a large real corpus.

One row per (corpus, strategy): ``test_chunking[<corpus>-<strategy>]``, grouped by corpus, so the table ranks the
strategies on the same bytes. A round is what ``pytest --chunkeval`` does before embedding: one strategy object
calls ``chunk(path, text)`` on every file of the corpus it handles (``reset_stats`` between rounds, as the
evaluator does). MB are the UTF-8 bytes of those files only, so a strategy that handles only ``.avap`` files is
measured on them. A strategy that handles no file of a corpus, or is ``unavailable`` here (a peer not
installed), is skipped with that reason: ``-rs`` lists them.

Corpora: each bundled suite's corpus (golden/*/, suites/*/) and ``stdlib`` - the running interpreter's standard
library without tests, every 4th file (~2.7 MB on CPython 3.11; ``CHUNKEVAL_BENCH_LARGE_STEP=1`` takes all
~11 MB, ``CHUNKEVAL_BENCH_CORPUS=DIR`` another tree).

Rounds: one untimed warm-up (grammars load, peers import lazily), then enough rounds to fill
``--benchmark-max-time`` seconds, at least 3 (fewer only if ``--benchmark-min-rounds`` asks for fewer).
``extra_info``: ``MB/s`` (from the fastest round, the figure compare runs judge), ``MB/s mean``, ``MB``, ``files``,
``chunks``.
"""
from __future__ import annotations

import time
from typing import Any

import pytest
from bench_support import BenchCorpus, corpus_ids, load_corpus, megabytes, note, plan_rounds, registrations, round_times

SECTION = "chunking"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if {"corpus_id", "strategy_name"} <= set(metafunc.fixturenames):
        pairs = [(c, s) for c in corpus_ids() for s in registrations()]
        metafunc.parametrize(("corpus_id", "strategy_name"), pairs, ids=[f"{c}-{s}" for c, s in pairs])


def chunk_round(strategy: Any, files: list[tuple[str, str]]) -> int:
    """One round: every handled file through the strategy itself (not evaluate_chunking.chunk_corpus, which adds the
    boundary checks: benchmarks/test_bench_time_limit.py measures that). Returns the chunk count."""
    return sum(len(list(strategy.chunk(path, text))) for path, text in files)


def test_chunking(benchmark: Any, request: pytest.FixtureRequest, corpus_id: str, strategy_name: str) -> None:
    corpus: BenchCorpus = load_corpus(corpus_id)
    benchmark.group = f"chunking: {corpus.label}"
    strategy = registrations()[strategy_name].build()
    reason = getattr(strategy, "unavailable", None)
    if reason:
        pytest.skip(f"{strategy_name} is unavailable here: {reason}")
    handled = corpus.handled_by(strategy)
    if not handled:
        pytest.skip(f"{strategy_name} handles none of the {len(corpus.files)} files of {corpus.label}")
    files = sorted(handled.items())
    mb = megabytes(handled)
    reset = getattr(strategy, "reset_stats", None)
    reset = reset if callable(reset) else None

    t0 = time.perf_counter()
    chunks = chunk_round(strategy, files)  # warm-up, untimed by the benchmark; also sizes the rounds
    warm = time.perf_counter() - t0
    benchmark.pedantic(chunk_round, args=(strategy, files), setup=reset,
                       rounds=plan_rounds(request.config, warm), warmup_rounds=0)

    times = round_times(benchmark)
    benchmark.extra_info.update({"MB": round(mb, 3), "files": len(files), "chunks": chunks})
    if times:
        best, mean = min(times), sum(times) / len(times)
        benchmark.extra_info["MB/s"] = round(mb / best, 3)
        benchmark.extra_info["MB/s mean"] = round(mb / mean, 3)
        note(request.config, SECTION, strategy_name, corpus.id, mb / best)
    note(request.config, "chunking corpora", corpus.id, "label", corpus.label)
    note(request.config, "chunking corpora", corpus.id, "MB", megabytes(corpus.files))
    note(request.config, "chunking corpora", corpus.id, "files", len(corpus.files))
