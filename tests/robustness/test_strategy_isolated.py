"""A strategy run in its worker process (chunking/worker.py) cannot hang, kill or flood the run: each fault ends as
the failing file's fallback, with a reason naming the file and what happened, and the other files are chunked by the
strategy (a fresh worker where the old one died). One test per fault; the end-to-end runs are in
test_strategy_isolated_e2e.py."""
from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_chunkeval.chunking.boundary import chunk_file
from pytest_chunkeval.chunking.contract import Registration, resolve
from pytest_chunkeval.chunking.fixed import FileLevelChunker
from pytest_chunkeval.chunking.sizing import default_tokens
from pytest_chunkeval.chunking.strategy_base import Strategy
from pytest_chunkeval.chunking.strategy_sources import THIS_PACKAGE, packaged, runs_isolated
from pytest_chunkeval.chunking.worker import IsolatedChunker, available
from pytest_chunkeval.core.chunk import Chunk
from pytest_chunkeval.evaluation.chunk_corpus import chunk_corpus

pytestmark = pytest.mark.skipif(not available() or not hasattr(signal, "setitimer"),
                                reason="isolation needs fork, its time limit SIGALRM (not Windows)")

#: The memory cap and the process listing read /proc: elsewhere a hoarding strategy would take the machine's memory.
LINUX = pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="the memory cap needs Linux (/proc)")
LIMIT = 0.3
FILES = [("a.py", "x = 1\n"), ("bad.py", "y = 2\n"), ("c.py", "z = 3\n")]
TIME = "(--chunkeval-chunk-timeout / ini chunkeval_chunk_timeout)"


class FailsOnBad(FileLevelChunker):
    """Chunks every file as one chunk, except ``bad.py``, where it does ``fault``; counts the files it chunked."""

    def __init__(self, fault: str) -> None:
        self.name, self.fault = fault, fault

    def chunk(self, path: str, text: str) -> list[Chunk]:
        if path == "bad.py":
            FAULTS[self.fault]()
        self.count("chunked")
        print("chunking", path, "x" * 10_000)  # would flood the log, were the worker's output not discarded
        return super().chunk(path, text)


def _swallows_everything() -> None:
    while True:
        try:
            time.sleep(60)
        except BaseException:  # noqa: B036, S112 - the fault under test: the alarm is swallowed, forever
            continue


def _hoards() -> None:
    hoard = []
    while True:
        hoard.append(bytearray(64 * 2**20))


FAULTS = {
    "swallows-base-exception": _swallows_everything,
    "sleeps": lambda: time.sleep(10**6),
    "sys-exit": lambda: sys.exit(0),
    "os-exit": lambda: os._exit(0),
    "segfault": lambda: ctypes.string_at(0),
    "runaway-memory": _hoards,
}


def _chunked(fault: str, memory_mb: int = 256) -> tuple[list[str], list[int], dict[str, int]]:
    """Each file's fallback lines and chunk counts, and the strategy's counters over the pass, chunked in a worker.
    Filling memory takes time (the pages are written): the hoarder gets a time limit it never meets."""
    limit = 60 if fault == "runaway-memory" else LIMIT
    parts = IsolatedChunker(resolve(FailsOnBad(fault)), fault, limit, memory_mb)(FILES)
    assert [p.path for p in parts] == [path for path, _ in FILES]
    chunked = sum(p.stats.get("chunked", 0) for p in parts)
    return [line for p in parts for line in p.fallbacks], [len(p.chunks) for p in parts], {"chunked": chunked}


@pytest.mark.parametrize(("fault", "reason"), [
    ("swallows-base-exception", f"chunking ran past the {LIMIT:g} s limit and its process was stopped {TIME}"),
    ("sleeps", f"chunking ran past the {LIMIT:g} s limit {TIME}"),
    ("sys-exit", "SystemExit: raised by the strategy (SystemExit(0))"),
    ("os-exit", "the strategy's process ended with exit status 0 while chunking this file"),
    ("segfault", "the strategy's process was killed by signal SIGSEGV while chunking this file"),
    pytest.param("runaway-memory", "MemoryError: past its memory cap of 256 MiB (--chunkeval-strategy-memory / ini "
                 "chunkeval_strategy_memory)", marks=LINUX),
])
def test_a_fault_is_the_files_fallback_naming_it_and_the_other_files_are_chunked(
        fault: str, reason: str, capfd: pytest.CaptureFixture[str]) -> None:
    fallbacks, chunks, stats = _chunked(fault)
    assert fallbacks == [f"bad.py: {reason}"]
    assert chunks == [1, 1, 1]  # a.py and c.py by the strategy, bad.py by the fallback's one window
    assert stats == {"chunked": 2}  # a.py and c.py, whether or not the worker was replaced in between
    out, err = capfd.readouterr()
    assert "chunking" not in out + err and "Fatal Python error" not in err  # its prints and crash dump: nowhere


@LINUX
def test_every_fault_leaves_no_process_behind() -> None:
    before = _children()
    for fault in FAULTS:
        _chunked(fault)
    assert _children() == before


def _children() -> set[int]:
    """This process's live children (Linux /proc); a worker left behind would be one."""
    me = str(os.getpid())
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as f:
                    if f.read().rsplit(")", 1)[1].split()[1] == me:
                        found.add(int(entry))
            except OSError:
                continue
    return found


class TokenLines(Strategy):
    """A chunk per line run of at most 8 model tokens: sizing needs the model's tokenizer, in the worker too."""

    name = "token_lines"
    size_unit = "tokens"
    max_chunk_size = 8

    def chunk(self, path: str, text: str) -> list[Chunk]:
        lines, out, start = text.splitlines(keepends=True), [], 0
        for i in range(1, len(lines) + 1):
            if i == len(lines) or self.measure("".join(lines[start:i + 1])) > 8:
                body = "".join(lines[start:i])
                out.append(Chunk(body, path, start + 1, i, len("".join(lines[:start]).encode()),
                                 len("".join(lines[:i]).encode())))
                start = i
        return out


def test_a_strategy_that_sizes_by_the_models_tokens_chunks_alike_in_its_worker() -> None:
    text = "".join(f"value_{i} = compute_something({i}, factor={i * 3})\n" for i in range(12))
    contract = resolve(TokenLines()).bind(default_tokens())
    here: list[str] = []
    expected = chunk_file(contract, "token_lines", "m.py", text, here)
    parts = IsolatedChunker(contract, "token_lines", LIMIT)([("m.py", text)])
    assert here == [] and parts[0].fallbacks == []
    assert [(c.start_line, c.end_line, c.text) for c in parts[0].chunks] == \
           [(c.start_line, c.end_line, c.text) for c in expected]
    assert len(expected) > 1  # the tokenizer did split the file


class Unsendable(FileLevelChunker):
    """Chunks that carry a lambda in their metadata: fine in this process, impossible to pickle back from a worker."""

    name = "unsendable"

    def chunk(self, path: str, text: str) -> list[Chunk]:
        return [replace(c, metadata={"score": lambda: 1}) for c in super().chunk(path, text)]


def test_output_that_cannot_leave_the_worker_falls_back_naming_why() -> None:
    (part,) = IsolatedChunker(resolve(Unsendable()), "unsendable", LIMIT)([("a.py", "x = 1\n")])
    assert len(part.fallbacks) == 1
    assert part.fallbacks[0].startswith("a.py: its output cannot leave its process: ")
    assert [(c.path, c.strategy, c.text) for c in part.chunks] == [("a.py", "unsendable", "x = 1\n")]  # a window


def test_a_strategy_chunks_and_counts_the_same_in_its_worker_as_here() -> None:
    """The built-in ``ast`` (counters, lazily loaded grammars) over the polyglot suite, chunked as the evaluator
    chunks it: the same chunks, fallbacks and merged counters in a worker as in this process."""
    root = Path(__file__).resolve().parents[2] / "golden" / "polyglot" / "corpus"
    corpus = {p.relative_to(root).as_posix(): p.read_text("utf-8") for p in sorted(root.rglob("*")) if p.is_file()}
    reg = {r.name: r for r in packaged()}["ast"]
    contract = reg.build()
    here = chunk_corpus(contract, "ast", corpus, limit=30)
    there = chunk_corpus(contract, "ast", corpus, remote=IsolatedChunker(contract, "ast", 30), limit=30)
    assert there.chunks == here.chunks and there.fallbacks == here.fallbacks
    assert there.strategy_stats == here.strategy_stats and here.strategy_stats  # it does count
    assert there.files_handled == here.files_handled > 50


def test_only_strategies_this_package_does_not_ship_are_isolated() -> None:
    shipped = packaged()
    ours = [r for r in shipped if r.provider.startswith(THIS_PACKAGE)]
    assert ours and not any(runs_isolated(r) for r in ours)
    project = Registration("mine", FailsOnBad, "strategies/mine.py:3")
    other = Registration("theirs", FailsOnBad, "theirs:factory", source="package", provider="acme-chunkers 1.0")
    grammar = Registration("ebnf_full", FailsOnBad, "ini", source="grammar", provider="ini chunkeval_grammar")
    assert [runs_isolated(r) for r in (project, other, grammar)] == [True, True, False]


def _exits_on_bad() -> FailsOnBad:
    return FailsOnBad("os-exit")


def _healthy() -> FileLevelChunker:
    return FileLevelChunker()


def test_chunks_of_a_worker_that_ended_are_not_cached_as_the_strategys(tmp_path: Path) -> None:
    """A worker killed by the machine (out of memory) is this run's, not the strategy's: the next run chunks again,
    while a strategy whose worker went through is read back from the facts cache."""
    from fake_model import fake_embedder

    from pytest_chunkeval.core.golden import load_golden
    from pytest_chunkeval.evaluation.build_facts import BuildFactsCache
    from pytest_chunkeval.evaluation.evaluate import EvalConfig, Evaluator
    from pytest_chunkeval.retrieval.index import IndexStore

    (tmp_path / "suite" / "corpus").mkdir(parents=True)
    for path, text in FILES:
        (tmp_path / "suite" / "corpus" / path).write_text(text)
    (tmp_path / "suite" / "queries.yaml").write_text(
        "corpus: corpus\nqueries:\n  - {id: q1, query: what is y, relevant: [{path: bad.py}]}\n")
    suite = load_golden(tmp_path / "suite" / "queries.yaml")
    regs = [Registration("exits", _exits_on_bad, "strategies/exits.py:1"),
            Registration("healthy", _healthy, "strategies/healthy.py:1")]
    cached = []
    for _ in range(2):
        embedder, _fake = fake_embedder(tmp_path)
        embedder._tokens = default_tokens()
        evaluator = Evaluator(EvalConfig(retrieval="vector"), embedder,
                              IndexStore(str(tmp_path / "db"), tmp_path / "locks"),
                              facts=BuildFactsCache(tmp_path / "cache.sqlite"))
        runs = [evaluator.run(suite, reg) for reg in regs]
        assert runs[0].facts.fallbacks == [
            "bad.py: the strategy's process ended with exit status 0 while chunking this file"]
        assert runs[0].ended == ("bad.py: ended with exit status 0",)
        cached.append([run.facts_cached for run in runs])
    assert cached == [[False, False], [False, True]]


def test_a_worker_that_cannot_start_is_each_files_fallback_naming_why(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    contract = resolve(FailsOnBad("sleeps"))
    done = chunk_corpus(contract, "sleeps", dict(FILES), remote=IsolatedChunker(contract, "sleeps", LIMIT), limit=LIMIT)
    why = "its process could not be started: [Errno 11] Resource temporarily unavailable"
    assert done.fallbacks == [f"{path}: {why}" for path, _ in FILES]
    assert done.ended == [f"{path}: {why}" for path, _ in FILES]  # every file: the evaluator fails the build
