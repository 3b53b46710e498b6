"""A per-file time limit on a strategy's chunking, so a chunker that never returns ends in a fallback, not a hang.

A strategy's ``while True`` or a grammar config's catastrophic regex (``^(\\s*a+)+$`` on a 41-character line) would
hold the run until CI's own limit, with no message. A thread cannot interrupt Python code or a C regex loop, and a
worker process per file would cost what chunking costs; a POSIX interval timer can: ``setitimer`` rings SIGALRM, and
the handler raises :class:`ChunkingTimeout` in the main thread at the next bytecode (CPython's regex engine checks for
signals as it backtracks). Arming and disarming are two system calls per file: no measurable cost
(benchmarks/test_bench_chunking.py, docs/benchmarks.md).

Where the timer cannot be used the limit does not apply: on Windows (no SIGALRM), off the main thread (a Ray worker's
task thread), and while something else holds ITIMER_REAL (pytest-timeout's signal method): theirs is left alone.
C code that never returns to Python (a C extension's own loop) cannot be interrupted this way either.
"""
from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: Seconds one file may take by default: generous (the slowest real file of the bundled suites takes well under a
#: second), so only a chunker that hangs meets it.
DEFAULT_SECONDS = 30.0

#: After the limit the alarm rings again this often, in case the strategy swallowed the first exception.
_REPEAT = 1.0


class ChunkingTimeout(BaseException):
    """Raised in a strategy's ``chunk`` past the limit. A BaseException, so the ``except Exception`` a strategy keeps
    around its own parsing does not swallow it."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"chunking ran past the {seconds:g} s limit")
        self.seconds = seconds


def usable() -> bool:
    """Whether a limit can be enforced here: SIGALRM exists, this is the main thread, and no one else's timer runs."""
    return (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
            and signal.getitimer(signal.ITIMER_REAL)[0] == 0)


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`ChunkingTimeout` in the body once it has run ``seconds`` (None or 0: no limit; nor where the
    timer is not :func:`usable`). The previous SIGALRM handler is restored afterwards."""
    if not seconds or seconds <= 0 or not usable():
        yield
        return
    armed = [True]

    def ring(signum: int, frame: Any) -> None:
        if armed[0]:
            raise ChunkingTimeout(seconds)

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds, _REPEAT)
    try:
        yield
    finally:
        try:
            _disarm(armed, previous)
        except ChunkingTimeout:  # it rang between the body's end and the line that stops it: stop it again
            _disarm(armed, previous)


def _disarm(armed: list[bool], previous: Any) -> None:
    armed[0] = False
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)
