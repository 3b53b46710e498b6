"""Speed of AST chunking against tree-sitter parsing alone, and against astchunk, on real Python source.

Corpus: the running interpreter's standard library without tests (CPython's Lib/, ~11 MB). By default a
deterministic subset - every 8th file in sorted order, ~1.3 MB - so the whole run takes well under two minutes.
Select another corpus with ``CHUNKEVAL_BENCH_CORPUS=/path/to/dir`` and the sampling step with
``CHUNKEVAL_BENCH_STEP=1`` (all files). Run: ``pytest benchmarks/ --benchmark-only``.

Throughput (MB/s) of each benchmark is recorded in ``extra_info`` (``MB/s`` from the mean round, ``MB/s best`` from
the fastest) and the end of the run prints the ratios (``ast / parse-only``, ``ast / astchunk``, ...; see
``conftest.py``). Everything runs single-process on the same files in the same run, except the row labelled
``ast_chunk_files[N processes]``, which is the process pool and is not comparable with the one-process parse.
Speed is judged from these numbers; nothing here fails on a timing ratio.

Groups: the one-process rows share ``ast: ... one process`` (pytest-benchmark's relative column then reads
"times parse-only"); ``test_throughput_ratios`` times the process pool, in a group of its own.
"""
from __future__ import annotations

import os
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from pytest_chunkeval import ast_chunk_files, ast_chunks, chunk_code_by_ast
from pytest_chunkeval.chunking.ast import LANGUAGES, parser_for

SKIP_PARTS = {"test", "tests", "idlelib", "site-packages", "__pycache__", "lib2to3"}
ONE_PROCESS = pytest.mark.benchmark(group="ast: CPython stdlib subset, one process")


def corpus() -> list[Path]:
    root = Path(os.environ.get("CHUNKEVAL_BENCH_CORPUS") or sysconfig.get_paths()["stdlib"])
    step = int(os.environ.get("CHUNKEVAL_BENCH_STEP", "8"))
    files = sorted(p for p in root.rglob("*.py") if not SKIP_PARTS & set(p.relative_to(root).parts))
    return files[::step]


@pytest.fixture(scope="module")
def files() -> list[tuple[str, str, bytes]]:
    out = []
    for p in corpus():
        text = p.read_text(encoding="utf-8", errors="surrogateescape")
        out.append((str(p), text, text.encode("utf-8", "surrogatepass")))
    if not out:
        pytest.skip("empty benchmark corpus")
    return out


def megabytes(files: list[tuple[str, str, bytes]]) -> float:
    return sum(len(d) for _, _, d in files) / 1e6


def parse_only(files) -> None:
    parser = parser_for(LANGUAGES["python"])
    for _, _, data in files:
        parser.parse(data)


def chunk_all(files, **opts) -> None:
    for path, text, _ in files:
        ast_chunks(text, path, **opts)


def chunk_texts_all(files) -> None:
    """The seed's API, chunk_code_by_ast: chunk texts only, no per-chunk metadata, no context header."""
    for path, text, _ in files:
        chunk_code_by_ast(text, path, preserve_context=False)


def astchunk_all(files) -> None:
    from astchunk import ASTChunkBuilder

    builder = ASTChunkBuilder(max_chunk_size=1000, language="python", metadata_template="default")
    for _, text, _ in files:
        builder.chunkify(text)


def _record(benchmark, files, throughput, label: str) -> None:
    mb = megabytes(files)
    stats = benchmark.stats.stats if benchmark.stats else None
    if stats is not None and stats.mean:
        benchmark.extra_info["MB/s"] = round(mb / stats.mean, 2)
        benchmark.extra_info["MB/s best"] = round(mb / stats.min, 2)
        throughput[label] = mb / stats.min
        throughput["_MB"] = mb
    benchmark.extra_info["MB"] = round(mb, 2)


@ONE_PROCESS
def test_parse_only(benchmark, files, throughput) -> None:
    benchmark.pedantic(parse_only, args=(files,), rounds=7, warmup_rounds=1)
    _record(benchmark, files, throughput, "parse-only")


@ONE_PROCESS
def test_ast_chunk(benchmark, files, throughput) -> None:
    benchmark.pedantic(chunk_all, args=(files,), kwargs=dict(preserve_context=False), rounds=7, warmup_rounds=1)
    _record(benchmark, files, throughput, "ast")


@ONE_PROCESS
def test_chunk_code_by_ast(benchmark, files, throughput) -> None:
    benchmark.pedantic(chunk_texts_all, args=(files,), rounds=7, warmup_rounds=1)
    _record(benchmark, files, throughput, "chunk_code_by_ast")


@ONE_PROCESS
def test_ast_chunk_with_context(benchmark, files, throughput) -> None:
    benchmark.pedantic(chunk_all, args=(files,), kwargs=dict(preserve_context=True), rounds=5, warmup_rounds=1)
    _record(benchmark, files, throughput, "ast_context")


@ONE_PROCESS
def test_astchunk_peer(benchmark, files, throughput) -> None:
    pytest.importorskip("astchunk", reason="astchunk not installed (pip install astchunk)")
    benchmark.pedantic(astchunk_all, args=(files,), rounds=3, warmup_rounds=1)
    _record(benchmark, files, throughput, "astchunk")


def _best(fn, *args, rounds: int = 5, **kw) -> float:
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        fn(*args, **kw)
        best = min(best, time.perf_counter() - t)
    return best


def test_throughput_ratios(benchmark, files, throughput) -> None:
    """One test, same files: parse-only vs chunking (one process, and the pool) vs astchunk, best of N, in MB/s.

    A report, not a check: the numbers go to ``extra_info`` and stdout (``-s``); the row's timing is the process
    pool, the only one that uses more than one process. The run's summary line also lists the pool against the
    one-process parse.
    """
    mb = megabytes(files)
    paths = [p for p, _, _ in files]
    parse_mbs = mb / _best(parse_only, files)
    chunk_mbs = mb / _best(chunk_all, files, preserve_context=False)
    workers = os.cpu_count() or 1
    pool_label = f"ast_chunk_files[{workers} processes]"
    # The row's own timing is the pool (the one figure no other row has), not a no-op: an empty row would be the
    # fastest of its group and turn every relative figure of the table into "(>1000.0)".
    benchmark.group = "ast: CPython stdlib subset, process pool"
    benchmark.extra_info["processes"] = workers
    benchmark.pedantic(ast_chunk_files, args=(paths,), kwargs=dict(workers=workers, min_files_for_pool=1,
                       preserve_context=False), rounds=5, warmup_rounds=1)
    pool_mbs = mb / min(benchmark.stats.stats.data) if benchmark.stats else mb / _best(
        ast_chunk_files, paths, workers=workers, min_files_for_pool=1, rounds=1, preserve_context=False)
    numbers = {"parse_only": parse_mbs, "ast_chunk": chunk_mbs, pool_label: pool_mbs}
    if "astchunk" in sys.modules or _has("astchunk"):
        numbers["astchunk"] = mb / _best(astchunk_all, files, rounds=2)
    benchmark.extra_info.update({k: round(v, 2) for k, v in numbers.items()})
    benchmark.extra_info["ratio_single"] = round(chunk_mbs / parse_mbs, 3)
    benchmark.extra_info["ratio_pool"] = round(pool_mbs / parse_mbs, 3)
    throughput[pool_label] = pool_mbs
    print(f"\nthroughput MB/s on {mb:.2f} MB: " + ", ".join(f"{k}={v:.2f}" for k, v in numbers.items())
          + f"; chunk/parse single process={chunk_mbs / parse_mbs:.2f}, {pool_label}={pool_mbs / parse_mbs:.2f}")


def _has(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None
