"""Collects the throughput (MB/s) of each benchmark in the run and prints the ratios that matter at the end.

Speed is judged by these benchmarks, never by timing assertions: the summary reports, it does not fail.
"""
from __future__ import annotations

import pytest

THROUGHPUT = pytest.StashKey[dict]()  # label -> MB/s (best round), filled by the benchmarks of this run


@pytest.fixture(scope="session")
def throughput(request: pytest.FixtureRequest) -> dict[str, float]:
    return request.config.stash.setdefault(THROUGHPUT, {})


def _ratio(numbers: dict[str, float], a: str, b: str) -> str | None:
    if a in numbers and b in numbers and numbers[b] > 0:
        return f"{a} / {b} = {numbers[a] / numbers[b]:.2f}x"
    return None


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
                            ) -> None:
    numbers: dict[str, float] = dict(config.stash.get(THROUGHPUT, {}))
    if not numbers:
        return
    mb = numbers.pop("_MB", None)
    tr = terminalreporter
    tr.write_sep("-", "chunking throughput" + (f" on {mb:.2f} MB" if mb else "") + " (MB/s, best round)")
    tr.write_line(", ".join(f"{k} {v:.2f}" for k, v in numbers.items()))
    ratios = [_ratio(numbers, "chunk_code_by_ast", "parse-only"), _ratio(numbers, "ast", "parse-only"),
              _ratio(numbers, "ast_context", "parse-only"), _ratio(numbers, "chunk_code_by_ast", "astchunk"),
              _ratio(numbers, "ast", "astchunk"), _ratio(numbers, "ast_context", "astchunk")]
    pool = [k for k in numbers if k.startswith("ast_chunk_files")]
    ratios += [_ratio(numbers, k, "parse-only") for k in pool]
    tr.write_line(", ".join(r for r in ratios if r))
