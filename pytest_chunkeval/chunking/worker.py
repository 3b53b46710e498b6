"""A user's strategy chunked in a process of its own, which the run can stop for certain.

In this process a strategy can take the run down with it: a retry loop inside ``except BaseException`` swallows
the time limit's alarm (the run hangs), ``sys.exit`` unwinds through pytest (a long traceback per item),
``os._exit``, a segfault or the kernel's out-of-memory killer end the run with no report and, for ``os._exit(0)``,
a passing exit status. So a strategy that is not this package's own (a project's file or conftest, another
package's entry point) is run by :class:`IsolatedChunker`: one worker process per chunking pass, forked (the
strategy object need not pickle), fed one file at a time over a pipe.

- **Time**: inside the worker the per-file limit is the alarm of :mod:`.time_limit` (a cooperative strategy falls
  back and the worker goes on); the parent waits :data:`GRACE` seconds past the limit and then SIGKILLs the worker,
  so a strategy that swallows the alarm still ends, and a fresh worker takes the remaining files.
- **Death**: a worker that ends while chunking a file (any exit status, any signal) makes that file fall back,
  with a reason naming the file and how the process ended; the next file gets a fresh worker.
- **Memory**: the worker's address space is capped at what it had when forked plus ``memory_mb``
  (``RLIMIT_AS``, Linux): past it an allocation fails with MemoryError, the file falls back and the worker goes
  on. Measured against the fork's own size, not an absolute one, because the forked pytest process may already map
  gigabytes (torch); enforced by the kernel, so no allocation burst outruns a poll.
- **Output**: the worker's stdout and stderr are /dev/null (and faulthandler is off in it): a strategy that prints
  per file, or a crash's dump, cannot flood the run's log. The fallback reason says what happened.

``SystemExit`` and ``KeyboardInterrupt`` a strategy raises are that file's failure, like any exception. Where
``fork`` does not exist (Windows) :func:`available` is False and the strategy runs in this process, unisolated.
What still runs in this process: the strategy's factory, ``handles``, ``dropped_lines`` and ``stats``. With
``--chunkeval-engine ray`` the Ray workers chunk instead (evaluation/ray_engine.py), outside this process already;
they are not isolated further here.
"""
from __future__ import annotations

import builtins
import contextlib
import faulthandler
import gc
import os
import signal
import sys
import time
import warnings
from dataclasses import dataclass, field, fields, replace
from multiprocessing.connection import Connection, Pipe
from typing import Any

from pytest_chunkeval.chunking.boundary import LIMIT_SETTING, chunk_file
from pytest_chunkeval.chunking.contract import Contract
from pytest_chunkeval.chunking.fixed import FixedSizeChunker
from pytest_chunkeval.chunking.time_limit import DEFAULT_MEMORY_MB
from pytest_chunkeval.core.chunk import Chunk
from pytest_chunkeval.core.vocabulary import MAX_CHUNKS_PER_FILE

#: Seconds past the per-file limit before the parent kills a worker: the worker's own alarm gets the first chance
#: (it keeps the worker), a strategy that swallows it is killed.
GRACE = 1.0

#: Warnings a worker sends back per file: enough to show what warns, never a flood through the pipe.
MAX_WARNINGS = 20
MEMORY_SETTING = "--chunkeval-strategy-memory / ini chunkeval_strategy_memory"


def available() -> bool:
    """Whether strategies can be isolated here (a POSIX fork)."""
    return hasattr(os, "fork")


@dataclass
class FilePart:
    """One file's outcome, as the Ray engine's parts: its (checked or fallback) chunks, fallback line, counters."""

    path: str
    chunks: list[Chunk]
    fallbacks: list[str]
    stats: dict[str, Any] = field(default_factory=dict)
    timed_out: bool = False
    ended: str | None = None  # the worker process ended while chunking this file: how (killed at the limit included)
    warned: list[tuple[str, str, str, int]] = field(default_factory=list)  # (message, category, file, line)


class IsolatedChunker:
    """Chunks files with ``strategy`` in a worker process (see the module's notes); callable as the evaluator's
    :data:`~pytest_chunkeval.evaluation.chunk_corpus.RemoteChunker`."""

    def __init__(self, strategy: Contract, name: str, limit: float | None, memory_mb: int | None = DEFAULT_MEMORY_MB,
                 max_chunks: int = MAX_CHUNKS_PER_FILE):
        self.strategy, self.name = strategy, name
        self.limit = limit if limit and limit > 0 else None
        self.memory_mb = memory_mb or None
        self.max_chunks = max_chunks
        self._worker: _Worker | None = None
        self._warned: set[tuple[str, str, str, int]] = set()

    def __call__(self, files: list[tuple[str, str]]) -> list[FilePart]:
        parts: list[FilePart] = []
        try:
            for path, text in files:
                parts.append(self._one(path, text))
        finally:
            if self._worker is not None:
                self._worker.close()
                self._worker = None
        return parts

    def _one(self, path: str, text: str) -> FilePart:
        if self._worker is None:
            try:
                self._worker = _Worker.start(self.strategy, self.name, self.limit, self.memory_mb,
                                             self.max_chunks)
            except OSError as exc:  # no process could be made (limits, memory): this file falls back
                return self._fallback(path, text, f"its process could not be started: {exc}")
        worker = self._worker
        deadline = self.limit + GRACE if self.limit is not None else None
        reply = worker.ask(path, text, deadline)
        if isinstance(reply, FilePart):
            self._warn(reply.warned)
            return reply
        self._worker = None
        if reply == _TIMEOUT:
            worker.kill()
            assert self.limit is not None
            part = self._fallback(path, text, f"chunking ran past the {self.limit:g} s limit and its process was "
                                              f"stopped ({LIMIT_SETTING})", ended="killed at the time limit")
            part.timed_out = True
            return part
        how = worker.ended()
        return self._fallback(path, text, f"the strategy's process {how} while chunking this file", ended=how)

    def _warn(self, warned: list[tuple[str, str, str, int]]) -> None:
        """The warnings the strategy raised in its worker, raised again here, each once per run of this chunker: in
        the worker they would go to /dev/null, and pytest's warnings summary is where a user looks for them (a
        dependency's warning is shown there, never a failure: the items' library-warning filters apply here too)."""
        for entry in warned:
            if entry in self._warned:
                continue
            self._warned.add(entry)
            message, category, filename, lineno = entry
            found = getattr(builtins, category, None)
            kind = found if isinstance(found, type) and issubclass(found, Warning) else UserWarning
            warnings.warn_explicit(message, kind, filename, lineno)

    def _fallback(self, path: str, text: str, problem: str, ended: str | None = None) -> FilePart:
        chunks = [replace(c, path=path, strategy=self.name) for c in FixedSizeChunker(name=self.name).chunk(path, text)]
        return FilePart(path, chunks, [f"{path}: {problem}"], ended=ended or problem)


_TIMEOUT = "timeout"
_ENDED = "ended"


class _Worker:
    """One forked worker: the parent's end of its pipe and its process id."""

    def __init__(self, pid: int, conn: Connection) -> None:
        self.pid, self.conn = pid, conn
        self._status: int | None = None

    @classmethod
    def start(cls, strategy: Contract, name: str, limit: float | None, memory_mb: int | None,
              max_chunks: int = MAX_CHUNKS_PER_FILE) -> _Worker:
        ours, theirs = Pipe()
        with warnings.catch_warnings():
            # Python 3.12 warns that a multi-threaded process (torch's threads) may deadlock in a forked child: this
            # child only chunks, and one that deadlocks is killed at the time limit like any other hang.
            warnings.simplefilter("ignore", DeprecationWarning)
            sys.stdout.flush()
            sys.stderr.flush()
            # The parent's objects into the permanent generation for the fork: the worker's collector never walks
            # them, so it does not write to (and copy) every page of the parent's heap.
            gc.freeze()
            pid = -1
            try:
                pid = os.fork()
            except OSError:
                ours.close()
                theirs.close()
                raise
            finally:
                if pid != 0:  # the parent (or no fork at all)
                    gc.unfreeze()
        if pid == 0:  # the worker: never returns into the caller's stack
            code = 0
            try:
                ours.close()
                _serve(theirs, strategy, name, limit, memory_mb, max_chunks)
            except BaseException:  # noqa: BLE001 - whatever happens, the worker ends here, not in pytest's stack
                code = 70
            finally:
                os._exit(code)
        theirs.close()
        return cls(pid, ours)

    def ask(self, path: str, text: str, deadline: float | None) -> FilePart | str:
        """The worker's part for one file, or :data:`_TIMEOUT` / :data:`_ENDED`."""
        try:
            self.conn.send((path, text))
            if not self.conn.poll(deadline):
                return _TIMEOUT
            reply = _part(self.conn.recv())
        except (EOFError, OSError):  # the pipe closed: the worker is gone
            return _ENDED
        return _ENDED if reply is None else reply

    def kill(self) -> None:
        if self._status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        self.ended()

    def ended(self) -> str:
        """How the worker ended ("ended with exit status 0", "was killed by signal SIGSEGV"), after reaping it."""
        if self._status is None:
            self.conn.close()
            self._status = _reap(self.pid)
        code = self._status
        if code >= 0:
            return f"ended with exit status {code}"
        try:
            sig = signal.Signals(-code).name
        except ValueError:
            sig = str(-code)
        return f"was killed by signal {sig}" + (" (out of memory?)" if sig == "SIGKILL" else "")

    def close(self) -> None:
        """Tell the worker to end, and reap it (killed if it does not end promptly)."""
        if self._status is not None:
            return
        try:
            self.conn.send(None)
            self.conn.poll(GRACE)  # its end of the pipe closes as it exits
        except OSError:
            pass
        self.ended()  # reaped; killed if it did not end within GRACE


def _reap(pid: int) -> int:
    """The ended worker's exit code (negative: the signal), waiting up to :data:`GRACE` for it to end on its own
    (its pipe closing comes just before its exit) and killing it after that."""
    deadline = time.monotonic() + GRACE
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.001)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def _serve(conn: Connection, strategy: Contract, name: str, limit: float | None, memory_mb: int | None,
           max_chunks: int = MAX_CHUNKS_PER_FILE) -> None:
    """The worker's loop: a (path, text) in, that file's :class:`FilePart` out, until None."""
    _quiet()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it ends this worker
    if memory_mb:
        _cap_memory(memory_mb)
    guarded = replace(strategy, _chunk=_guard(strategy, memory_mb))
    while True:
        request = conn.recv()
        if request is None:
            return
        path, text = request
        strategy.reset_stats()
        fallbacks: list[str] = []
        timed_out: list[str] = []
        with warnings.catch_warnings(record=True) as caught:  # the run's filters, inherited: an "error" still raises
            chunks = chunk_file(guarded, name, path, text, fallbacks, limit, timed_out, max_chunks)
        warned = [(str(w.message), w.category.__name__, str(w.filename), int(w.lineno)) for w in caught[:MAX_WARNINGS]]
        try:
            conn.send((path, [_plain(c) for c in chunks], fallbacks, strategy.stats(), bool(timed_out), warned))
        except Exception as exc:  # its chunks or counters do not pickle: windows, and why
            windows = [_plain(replace(c, path=path, strategy=name))
                       for c in FixedSizeChunker(name=name).chunk(path, text)]
            conn.send((path, windows, [f"{path}: its output cannot leave its process: {type(exc).__name__}: {exc}"],
                       {}, bool(timed_out), warned))


#: A chunk crosses the pipe as the tuple of its fields, and a part as a tuple: plain values, so the parent rebuilds
#: them with its own classes (pickling a class needs the same class object on both sides; a pytest run that reloads
#: the package, as pytester's in-process runs do, would not have it).
_FIELDS = tuple(f.name for f in fields(Chunk))


def _plain(chunk: Chunk) -> tuple[Any, ...]:
    return tuple(getattr(chunk, name) for name in _FIELDS)


def _part(reply: Any) -> FilePart | None:
    """The worker's reply as a :class:`FilePart` (None: not a reply a worker makes)."""
    try:
        path, chunks, fallbacks, stats, timed_out, warned = reply
        return FilePart(path, [Chunk(*values) for values in chunks], list(fallbacks), dict(stats), bool(timed_out),
                        warned=[(str(m), str(c), str(f), int(n)) for m, c, f, n in warned])
    except (TypeError, ValueError):
        return None


def _guard(strategy: Contract, memory_mb: int | None) -> Any:
    """The strategy's ``chunk`` with SystemExit / KeyboardInterrupt turned into an ordinary failure of the file
    (:func:`chunk_file` counts exceptions, and lets BaseExceptions through), and a MemoryError naming the cap."""
    chunk = strategy.chunk
    # Made before any strategy runs: at the cap, making a class could fail for want of memory itself.
    out_of_memory = _named("MemoryError")
    cap = f"past its memory cap of {memory_mb} MiB ({MEMORY_SETTING})" if memory_mb else "out of memory"

    def guarded(path: str, text: str) -> list[Chunk]:
        try:
            return chunk(path, text)
        except MemoryError:
            pass  # raised below, once this block has dropped the traceback and with it what the strategy hoarded
        except (SystemExit, KeyboardInterrupt, GeneratorExit) as exc:
            raise _named(type(exc).__name__)(f"raised by the strategy ({exc!r})") from None
        raise out_of_memory(cap)

    return guarded


def _named(name: str) -> type[Exception]:
    """An Exception class called ``name``: the fallback reason reads "SystemExit: ..." as the strategy raised it."""
    return type(name, (Exception,), {})


def _quiet() -> None:
    """The worker's output goes nowhere: fds 1 and 2 onto /dev/null, no crash dump (pytest's faulthandler)."""
    faulthandler.disable()
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    # sys.stdout may not write to fd 1 at all (pytest's capture replaces it with a file of its own)
    sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - the worker's, for good


def _cap_memory(memory_mb: int) -> None:
    """RLIMIT_AS at the worker's size now plus ``memory_mb`` (Linux: /proc; elsewhere no cap)."""
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as f:
            size = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        soft = size + memory_mb * 2**20
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    except (OSError, ValueError, ImportError):
        pass
