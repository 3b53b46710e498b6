"""End to end: a project's strategy that swallows every BaseException, sleeps, calls sys.exit or os._exit, segfaults
or eats memory on one file cannot hang, kill or flood the run. Its quality[fallback] item fails naming the file and
what happened, the project's other strategies are evaluated, the run ends with a verdict and a non-zero exit status,
and the log stays short (no traceback per item). One that kills its process on every file fails its build."""
from __future__ import annotations

import json
import os
import signal
import textwrap

import pytest
from project_files import run, write_strategies

from pytest_chunkeval.chunking.worker import available

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not available() or not hasattr(signal, "setitimer"),
                                 reason="isolation needs fork, its time limit SIGALRM (not Windows)")]

FAULTS = {
    "swallows": """
        while True:
            try:
                time.sleep(60)
            except BaseException:
                continue""",
    "sleeps": "time.sleep(10**6)",
    "exits": "sys.exit(0)",
    "os_exits": "os._exit(0)",
    "segfaults": "ctypes.string_at(0)",
    "hoards": """
        hoard = []
        while True:
            hoard.append(bytearray(64 * 2**20))""",
}
REASONS = {
    "swallows": "chunking ran past the 0.5 s limit and its process was stopped (--chunkeval-chunk-timeout / ini "
                "chunkeval_chunk_timeout)",
    "sleeps": "chunking ran past the 0.5 s limit (--chunkeval-chunk-timeout / ini chunkeval_chunk_timeout)",
    "exits": "SystemExit: raised by the strategy (SystemExit(0))",
    "os_exits": "the strategy's process ended with exit status 0 while chunking this file",
    "segfaults": "the strategy's process was killed by signal SIGSEGV while chunking this file",
    "hoards": "MemoryError: past its memory cap of 256 MiB (--chunkeval-strategy-memory / ini "
              "chunkeval_strategy_memory)",
}
#: What a run with one bad strategy may print: the issue's sys.exit case printed 278 KB; a healthy run of this
#: project prints a few KB.
LOG_BYTES = 30_000


def _strategy(fault: str, files: str = '{"orders.py"}') -> dict[str, str]:
    body = textwrap.indent(textwrap.dedent(FAULTS[fault]).strip("\n"), " " * 12)
    return {f"{fault}.py": f'''
import ctypes
import os
import sys
import time

from pytest_chunkeval import FileLevelChunker, strategy


class Faulty(FileLevelChunker):
    name = "{fault}"

    def chunk(self, path, text):
        print("chunking", path, "x" * 5000)
        if path in {files}:
{body}
        return super().chunk(path, text)


@strategy
def {fault}():
    return Faulty()
'''}


@pytest.mark.parametrize("fault", [pytest.param(f, marks=pytest.mark.skipif(
    f == "hoards" and not os.path.exists("/proc/self/statm"), reason="the memory cap needs Linux (/proc)"))
    for f in FAULTS])
def test_a_strategy_fault_fails_its_fallback_item_and_the_others_are_evaluated(project: pytest.Pytester,
                                                                               fault: str) -> None:
    write_strategies(project.path, _strategy(fault))
    limit = "60" if fault == "hoards" else "0.5"  # filling memory takes time: the hoarder meets its cap first
    result = run(project, "-p", "no:randomly", f"--chunkeval-chunk-timeout={limit}",
                 "--chunkeval-strategy-memory=256")
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "Traceback" not in out and "INTERNALERROR" not in out and "xxxxx" not in out
    assert len(out.encode()) < LOG_BYTES
    result.stdout.fnmatch_lines([f"*{fault}'s own chunking failed on 1 of 4 files (25%)*",
                                 f"first: orders.py: {REASONS[fault]}"])
    result.stdout.fnmatch_lines(["VERDICT: FAIL"])
    report = json.loads((project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    strategies = report["suites"]["golden/shop/queries.yaml"]["strategies"]
    assert strategies[fault]["fallbacks"] == [f"orders.py: {REASONS[fault]}"]
    for other in ("file_level", "fixed_size"):  # the project's other strategies: evaluated, no fallback
        assert not strategies[other].get("failed") and strategies[other]["fallbacks"] == []
        assert strategies[other]["queries"] and strategies[other]["aggregate"]


def test_a_strategy_that_ends_its_process_on_every_file_fails_its_build(project: pytest.Pytester) -> None:
    write_strategies(project.path, _strategy("os_exits", files="{path}"))
    result = run(project, "-p", "no:randomly")
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "Traceback" not in out and len(out.encode()) < LOG_BYTES
    result.stdout.fnmatch_lines(["*os_exits failed to build: its process ended while chunking every file it handles "
                                 "(4); first: README.md: ended with exit status 0*"])
    result.stdout.fnmatch_lines(["VERDICT: FAIL", "  strategies that failed to build (1):"])


def test_against_a_base_a_strategy_that_fails_its_build_leaves_the_others_compared(project: pytest.Pytester) -> None:
    """The pull-request run: one strategy's failed build is its own red reason, never every other strategy's
    comparison error (it was: each other vs-base item failed with the build's traceback, 700 KB of log on a real
    repository)."""
    write_strategies(project.path, _strategy("os_exits", files="set()"))  # on base it chunks every file
    assert run(project, "-p", "no:randomly", "--chunkeval-report=base.json").ret == pytest.ExitCode.OK
    write_strategies(project.path, _strategy("os_exits", files="{path}"))  # the pull request breaks it
    result = run(project, "-p", "no:randomly", "--chunkeval-compare=base.json")
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "Traceback" not in out and len(out.encode()) < LOG_BYTES
    result.stdout.fnmatch_lines(["VERDICT: FAIL (head vs the stored report *", "  strategies that failed to build (1):"])
    assert "other failures" not in out and "regressions against the base" not in out
    failed = [line for line in result.stdout.lines if line.startswith("FAILED ")]
    assert failed and all("::os_exits::" in line for line in failed), failed  # fixed_size's vs-base item passes
