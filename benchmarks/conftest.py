"""Prints the numbers pytest-benchmark's table cannot show (MB/s, texts/s, tokens/s, p95) as one readable summary.

pytest-benchmark's table is in seconds per round, and rows of different sizes (a 0.1 MB corpus, a 3 MB one) do
not compare there; the rates below do. Each benchmark also keeps its rates in ``extra_info`` (saved with
``--benchmark-autosave`` / ``--benchmark-json``). Speed is judged from these numbers and from
``--benchmark-compare-fail``; nothing here fails on a timing.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_support, also under --import-mode=importlib

from bench_support import SUMMARY, corpus_ids  # noqa: E402 (after the sys.path line)

THROUGHPUT = pytest.StashKey[dict[str, float]]()  # label -> MB/s (best round), filled by test_bench_ast.py


@pytest.fixture(scope="session")
def throughput(request: pytest.FixtureRequest) -> dict[str, float]:
    return request.config.stash.setdefault(THROUGHPUT, {})


def _ratio(numbers: dict[str, float], a: str, b: str) -> str | None:
    if a in numbers and b in numbers and numbers[b] > 0:
        return f"{a} / {b} = {numbers[a] / numbers[b]:.2f}x"
    return None


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, float):
        if value >= 1000:
            return f"{value:,.0f}"
        return f"{value:.{digits}f}"
    return str(value)


def _table(tr: pytest.TerminalReporter, header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=False))
        )

    tr.write_line(line(header))
    for row in rows:
        tr.write_line(line(row))


def _ast_ratios(tr: pytest.TerminalReporter, numbers: dict[str, float]) -> None:
    mb = numbers.pop("_MB", None)
    tr.write_sep("-", "AST chunking throughput" + (f" on {mb:.2f} MB" if mb else "") + " (MB/s, best round)")
    tr.write_line(", ".join(f"{k} {v:.2f}" for k, v in numbers.items()))
    ratios = [_ratio(numbers, "chunk_code_by_ast", "parse-only"), _ratio(numbers, "ast", "parse-only"),
              _ratio(numbers, "ast_context", "parse-only"), _ratio(numbers, "chunk_code_by_ast", "astchunk"),
              _ratio(numbers, "ast", "astchunk"), _ratio(numbers, "ast_context", "astchunk")]
    pool = [k for k in numbers if k.startswith("ast_chunk_files")]
    ratios += [_ratio(numbers, k, "parse-only") for k in pool]
    tr.write_line(", ".join(r for r in ratios if r))


def _summary(tr: pytest.TerminalReporter, summary: dict[str, dict[str, dict[str, Any]]]) -> None:
    tr.write_sep("=", "chunkeval benchmark summary (rates from each row's fastest round)")
    chunking, corpora = summary.get("chunking", {}), summary.get("chunking corpora", {})
    if chunking:
        ids = [c for c in corpus_ids() if c in corpora]
        tr.write_line(
            "chunking throughput, MB/s (n/a: the strategy handles none of the corpus's files, or is unavailable)"
        )
        _table(tr, ["strategy", *ids],
               [[name, *(_fmt(cols.get(c)) for c in ids)] for name, cols in sorted(chunking.items())])
        for c in ids:
            info = corpora[c]
            tr.write_line(f"  {c}: {info.get('label')}, {info.get('files')} files, {_fmt(info.get('MB'))} MB")
        tr.write_line("")
    if embedding := summary.get("embedding"):
        tr.write_line("embedding throughput (fastest round)")
        _table(tr, ["backend, batch", "texts/s", "tokens/s", "texts/s (mean)"],
               [[row, _fmt(v.get("texts/s")), _fmt(v.get("tokens/s"), 0), _fmt(v.get("texts/s mean"))]
                for row, v in embedding.items()])
        tr.write_line("")
    if build := summary.get("index build"):
        tr.write_line("index build, LanceDB (fastest round)")
        _table(tr, ["table", "s", "s per 1k chunks"],
               [[row, _fmt(v.get("s"), 3), _fmt(v.get("s per 1k chunks"), 3)] for row, v in build.items()])
        tr.write_line("")
    if latency := summary.get("query latency"):
        tr.write_line("query latency, LanceDB, one query per round")
        _table(tr, ["mode", "p50 ms", "p95 ms", "min ms"],
               [[row, _fmt(v.get("p50 ms")), _fmt(v.get("p95 ms")), _fmt(v.get("min ms"))]
                for row, v in latency.items()])
        tr.write_line("")
    if whole := summary.get("whole run"):
        tr.write_line("whole pytest --chunkeval run (fastest round)")
        _table(tr, ["state", "s", "texts embedded"],
               [[row, _fmt(v.get("s")), _fmt(v.get("embedded"))] for row, v in whole.items()])
    if grid := summary.get("collecting a grid"):
        tr.write_line("")
        tr.write_line("collecting a grid, collect-only child process (fastest round; collect s: pytest's own count)")
        _table(tr, ["points", "s", "collect s", "items"],
               [[row, _fmt(v.get("s")), _fmt(v.get("collect s")), _fmt(v.get("items"))] for row, v in grid.items()])
    if limit := summary.get("chunking time limit"):
        tr.write_line("")
        tr.write_line("chunking time limit, µs per file through the boundary (fastest round): off, on (30 s)")
        _table(tr, ["corpus, strategy", "off", "on"],
               [[row, _fmt(v.get("off")), _fmt(v.get("on"))] for row, v in limit.items()])
    if isolation := summary.get("strategy isolation"):
        tr.write_line("")
        tr.write_line("strategy isolation, µs per file through chunk_corpus (fastest round): in-process, isolated")
        _table(tr, ["corpus, strategy", "in-process", "isolated"],
               [[row, _fmt(v.get("in-process")), _fmt(v.get("isolated"))] for row, v in isolation.items()])
    if large := summary.get("large suite"):
        tr.write_line("")
        tr.write_line("large suite, cold, beside the embedder alone on the same texts (one round)")
        for row, values in large.items():
            tr.write_line(f"  {row}: " + ", ".join(f"{k} {_fmt(v)}" for k, v in values.items()))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
                            ) -> None:
    recorded: dict[str, float] = config.stash.get(THROUGHPUT, {})
    numbers = dict(recorded)
    if numbers:
        _ast_ratios(terminalreporter, numbers)
    summary = config.stash.get(SUMMARY, {})
    if summary:
        _summary(terminalreporter, summary)
