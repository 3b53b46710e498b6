"""Speed of AST chunking against tree-sitter parsing alone, and against astchunk, on real Python source.

Corpus: the running interpreter's standard library without tests (CPython's Lib/, ~11 MB). By default a
deterministic subset - every 8th file in sorted order, ~1.3 MB - so the whole run takes well under two minutes.
Select another corpus with ``CHUNKEVAL_BENCH_CORPUS=/path/to/dir`` and the sampling step with
``CHUNKEVAL_BENCH_STEP=1`` (all files). Run: ``pytest benchmarks/ --benchmark-only``.

Throughput (MB/s) of each benchmark is recorded in ``extra_info``; ``test_throughput_ratios`` measures parse-only,
chunking (single process and the process pool) and astchunk in one run and checks the issue's bars.
"""
from __future__ import annotations

import os
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from pytest_chunkeval import ast_chunk_files, ast_chunks
from pytest_chunkeval.ast import LANGUAGES, parser_for

SKIP_PARTS = {"test", "tests", "idlelib", "site-packages", "__pycache__", "lib2to3"}


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


def astchunk_all(files) -> None:
    from astchunk import ASTChunkBuilder

    builder = ASTChunkBuilder(max_chunk_size=1000, language="python", metadata_template="default")
    for _, text, _ in files:
        builder.chunkify(text)


def _record(benchmark, files) -> None:
    mean = benchmark.stats.stats.mean if benchmark.stats else None
    if mean:
        benchmark.extra_info["MB/s"] = round(megabytes(files) / mean, 2)
    benchmark.extra_info["MB"] = round(megabytes(files), 2)


def test_parse_only(benchmark, files) -> None:
    benchmark.pedantic(parse_only, args=(files,), rounds=5, warmup_rounds=1)
    _record(benchmark, files)


def test_ast_chunk(benchmark, files) -> None:
    benchmark.pedantic(chunk_all, args=(files,), kwargs=dict(preserve_context=False), rounds=5, warmup_rounds=1)
    _record(benchmark, files)


def test_ast_chunk_with_context(benchmark, files) -> None:
    benchmark.pedantic(chunk_all, args=(files,), kwargs=dict(preserve_context=True), rounds=3, warmup_rounds=1)
    _record(benchmark, files)


def test_astchunk_peer(benchmark, files) -> None:
    pytest.importorskip("astchunk", reason="astchunk not installed (pip install astchunk)")
    benchmark.pedantic(astchunk_all, args=(files,), rounds=3, warmup_rounds=1)
    _record(benchmark, files)


def _best(fn, *args, rounds: int = 5, **kw) -> float:
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        fn(*args, **kw)
        best = min(best, time.perf_counter() - t)
    return best


def test_throughput_ratios(benchmark, files) -> None:
    """One run, same files: parse-only vs chunking (single process and pool) vs astchunk, in MB/s."""
    mb = megabytes(files)
    paths = [p for p, _, _ in files]
    parse_mbs = mb / _best(parse_only, files)
    chunk_mbs = mb / _best(chunk_all, files, preserve_context=False)
    workers = os.cpu_count() or 1
    pool_mbs = mb / _best(ast_chunk_files, paths, workers=workers, min_files_for_pool=1, rounds=5,
                          preserve_context=False)
    numbers = {"parse_only": parse_mbs, "ast_chunk": chunk_mbs, f"ast_chunk_files[{workers} workers]": pool_mbs}
    if "astchunk" in sys.modules or _has("astchunk"):
        numbers["astchunk"] = mb / _best(astchunk_all, files, rounds=2)
    benchmark.pedantic(lambda: None, rounds=1)
    benchmark.extra_info.update({k: round(v, 2) for k, v in numbers.items()})
    benchmark.extra_info["ratio_single"] = round(chunk_mbs / parse_mbs, 3)
    benchmark.extra_info["ratio_pool"] = round(pool_mbs / parse_mbs, 3)
    print("\nthroughput MB/s on %.2f MB: " % mb + ", ".join(f"{k}={v:.2f}" for k, v in numbers.items())
          + f"; chunk/parse single={chunk_mbs / parse_mbs:.2f} pool={pool_mbs / parse_mbs:.2f}")
    if "astchunk" in numbers:
        assert chunk_mbs > numbers["astchunk"], numbers
    assert max(chunk_mbs, pool_mbs) >= 0.8 * parse_mbs, numbers


def _has(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None
