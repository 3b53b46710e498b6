"""LanceDB costs: building an index table (seconds per 1,000 chunks) and query latency per retrieval mode.

Chunks: the ``ast`` chunking of the suites/pystdlib corpus (real code, ~3,000 chunks). Vectors: random unit
vectors of the model's dimension (384) from a fixed seed, not embeddings: building stores them and the vector
search scans them all (no ANN index), so neither cost depends on their values, and embedding 3,000 chunks would
take minutes that measure the model, not the database (test_bench_embedding.py does that).

``test_index_build[<N>-chunks]``: one round is ``IndexStore.build`` (create the table, the full-text index over
split identifiers, compact) of the first N chunks into an empty database folder, as a cold evaluation does;
``extra_info["s per 1k chunks"]`` is the fastest round scaled to 1,000 chunks.

``test_query[<mode>]``: one round is one ``IndexStore.search`` (open the table, search, depth 50 as the evaluator
asks) for one query of suites/pystdlib's golden file, a different query each round, over the whole table.
``extra_info`` holds the median and p95 in milliseconds; the table's ``min`` is the fastest query.
"""
from __future__ import annotations

import os
import shutil
import time
from itertools import cycle
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bench_support import heavy_rounds, load_suite, median, note, percentile, round_times

DIM = 384  # all-MiniLM-L6-v2's dimension
BUILD_SIZES = (1000, 3000)


@pytest.fixture(scope="module")
def rows() -> list[Any]:  # -> list[pytest_chunkeval.retrieval.index.Row]
    from pytest_chunkeval import AstChunker
    from pytest_chunkeval.retrieval.table_rows import Row

    suite = load_suite("pystdlib")
    chunker = AstChunker("ast", max_chunk_size=1000, min_chunk_size=100, preserve_context=False)
    out: list[Row] = []
    for path, text in sorted(suite.corpus.files.items()):
        for i, c in enumerate(chunker.chunk(path, text)):
            out.append(Row(f"{path}#{i}", path, c.start_line, c.end_line, c.text))
    return out


def unit_vectors(n: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def store_in(folder: Path) -> Any:  # -> pytest_chunkeval.retrieval.index.IndexStore
    from pytest_chunkeval.retrieval.index import IndexStore

    return IndexStore(str(folder / "lancedb"), folder / "locks")


@pytest.mark.parametrize("size", BUILD_SIZES, ids=[f"{n}-chunks" for n in BUILD_SIZES])
def test_index_build(
    benchmark: Any, request: pytest.FixtureRequest, tmp_path: Path, rows: list[Any], size: int
) -> None:
    benchmark.group = "index build: LanceDB table + full-text index (suites/pystdlib ast chunks)"
    chunk_rows = rows[:size]
    if len(chunk_rows) < size:
        pytest.skip(f"the corpus has {len(rows)} chunks, fewer than {size}")
    vectors = unit_vectors(len(chunk_rows), seed=size)
    folder = tmp_path / "db"

    def fresh_store() -> tuple[tuple[Any, ...], dict[str, Any]]:
        """An empty database each round: a cold evaluation builds into a folder without that table."""
        shutil.rmtree(folder, ignore_errors=True)
        return (store_in(folder), "bench", chunk_rows, vectors), {}

    def build(store: Any, name: str, rows_: list[Any], vectors_: np.ndarray) -> None:
        store.build(name, rows_, vectors_)

    args, _ = fresh_store()
    t0 = time.perf_counter()
    build(*args)  # warm-up: lancedb and pyarrow import, the first table's one-time set-up
    warm = time.perf_counter() - t0
    benchmark.pedantic(build, setup=fresh_store, rounds=heavy_rounds(request.config, 3), warmup_rounds=0)

    times = round_times(benchmark)
    benchmark.extra_info.update({"chunks": size, "warm-up s": round(warm, 3)})
    if times:
        per_1k = min(times) / size * 1000
        benchmark.extra_info["s per 1k chunks"] = round(per_1k, 4)
        note(request.config, "index build", f"{size:,} chunks", "s", min(times))
        note(request.config, "index build", f"{size:,} chunks", "s per 1k chunks", per_1k)


@pytest.fixture(scope="module")
def query_table(tmp_path_factory: pytest.TempPathFactory, rows: list[Any]) -> tuple[Any, str, int]:
    store = store_in(tmp_path_factory.mktemp("query-db"))
    store.build("bench", rows, unit_vectors(len(rows), seed=0))
    return store, "bench", len(rows)


def query_count() -> int:
    return int(os.environ.get("CHUNKEVAL_BENCH_QUERIES", "100"))


@pytest.mark.parametrize("mode", ["vector", "fts", "hybrid"])
def test_query(benchmark: Any, request: pytest.FixtureRequest, query_table: tuple[Any, str, int], mode: str) -> None:
    from pytest_chunkeval.evaluation.evaluate import EvalConfig
    from pytest_chunkeval.retrieval.index import RETRIEVAL_MODES

    if mode not in RETRIEVAL_MODES:
        pytest.skip(f"retrieval mode {mode} is gone from pytest_chunkeval.retrieval.index"
                    f" (it has {', '.join(RETRIEVAL_MODES)})")
    store, table, n_rows = query_table
    depth = EvalConfig().depth
    benchmark.group = f"query latency: one query per round, LanceDB table of {n_rows:,} chunks, depth {depth}"
    queries = [q.text for q in load_suite("pystdlib").queries]
    rounds = min(query_count(), len(queries))
    picked = [queries[i * len(queries) // rounds] for i in range(rounds)]
    vectors = unit_vectors(len(picked), seed=1)
    feed = cycle(zip(picked, vectors, strict=True))

    def next_query() -> tuple[tuple[Any, ...], dict[str, Any]]:
        text, vector = next(feed)
        return (table, vector, text, mode, depth), {}

    for text, vector in zip(picked[:5], vectors[:5], strict=True):  # warm-up: open the table, load the FTS index
        store.search(table, vector, text, mode, depth)
    benchmark.pedantic(store.search, setup=next_query, rounds=rounds, warmup_rounds=0)

    times = round_times(benchmark)
    benchmark.extra_info.update({"queries": rounds, "chunks": n_rows, "depth": depth})
    if times:
        p50, p95 = median(times) * 1000, percentile(times, 95) * 1000
        benchmark.extra_info["p50 ms"] = round(p50, 3)
        benchmark.extra_info["p95 ms"] = round(p95, 3)
        note(request.config, "query latency", mode, "p50 ms", p50)
        note(request.config, "query latency", mode, "p95 ms", p95)
        note(request.config, "query latency", mode, "min ms", min(times) * 1000)
