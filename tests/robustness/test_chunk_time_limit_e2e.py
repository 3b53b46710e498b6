"""End to end: a strategy that hangs on one file fails its quality[fallback] item naming the strategy, the file and
the limit, and one that hangs on every file fails its build; the run ends with a verdict instead of hanging."""
from __future__ import annotations

import json
import signal

import pytest
from project_files import run, write_strategies

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="the limit needs SIGALRM (not Windows)")]

HANGING = {"hanging.py": """
    from pytest_chunkeval import FileLevelChunker, strategy


    class HangsOn(FileLevelChunker):
        def __init__(self, name, files):
            self.name, self.files = name, files

        def chunk(self, path, text):
            while self.files is None or path in self.files:
                pass
            return super().chunk(path, text)


    @strategy
    def hangs_on_orders():
        return HangsOn("hangs_on_orders", {"orders.py"})


    @strategy
    def hangs_always():
        return HangsOn("hangs_always", None)
"""}


def test_a_hanging_strategy_falls_back_and_one_that_always_hangs_fails_its_build(project: pytest.Pytester) -> None:
    write_strategies(project.path, HANGING)
    result = run(project, "-p", "no:randomly", "--chunkeval-chunk-timeout=0.5")
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out and "Traceback" not in out
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*hangs_on_orders's own chunking failed on 1 of 4 files (25%)*",
        "first: orders.py: chunking ran past the 0.5 s limit (--chunkeval-chunk-timeout / ini chunkeval_chunk_timeout)",
    ])
    result.stdout.fnmatch_lines(["*hangs_always failed to build: its chunking ran past the 0.5 s limit on every file "
                                 "it handles (4: README.md, auth.py, orders.py and 1 more)*"])
    result.stdout.fnmatch_lines(["VERDICT: FAIL", "  strategies that failed to build (1):"])
    report = json.loads((project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    assert "strategies that failed to build (1)" in report["verdict"]["headline"]
    strategies = report["suites"]["golden/shop/queries.yaml"]["strategies"]
    assert strategies["hangs_always"]["failed"].startswith("its chunking ran past the 0.5 s limit")
    assert strategies["hangs_on_orders"]["fallbacks"] == [
        "orders.py: chunking ran past the 0.5 s limit (--chunkeval-chunk-timeout / ini chunkeval_chunk_timeout)"]
