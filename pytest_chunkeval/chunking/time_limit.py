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

#: MiB of address space a strategy's worker process may take past its size when forked, by default
#: (``chunkeval_strategy_memory``; :mod:`.worker`). Here, beside the time limit's default, because the settings
#: table reads both and every pytest run imports it: this module imports nothing of the package.
DEFAULT_MEMORY_MB = 4096

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


class _Alarm:
    """The one alarm of this process: whether our handler is installed, and whether (and at what limit) it is armed.
    Installing a handler costs several times what arming the timer does, so a corpus installs it once
    (:func:`alarm_handler`) and each file only arms and disarms the timer."""

    installed = False
    armed = False
    seconds = 0.0


def _ring(signum: int, frame: Any) -> None:
    if _Alarm.armed:
        raise ChunkingTimeout(_Alarm.seconds)


@contextmanager
def alarm_handler() -> Iterator[None]:
    """Our SIGALRM handler for a stretch of chunking (a corpus), where the timer is :func:`usable`; the previous
    handler is restored afterwards. Inside one already, nothing more happens."""
    if _Alarm.installed or not usable():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _ring)
    _Alarm.installed = True
    try:
        yield
    finally:
        _Alarm.installed = False
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`ChunkingTimeout` in the body once it has run ``seconds`` (None or 0: no limit; nor where the
    timer is not :func:`usable`)."""
    if not seconds or seconds <= 0:
        yield
        return
    with alarm_handler():
        if not _Alarm.installed:  # not here (another thread, another timer, no SIGALRM)
            yield
            return
        _Alarm.seconds, _Alarm.armed = seconds, True
        signal.setitimer(signal.ITIMER_REAL, seconds, _REPEAT)
        try:
            yield
        finally:
            try:
                _disarm()
            except ChunkingTimeout:  # it rang between the body's end and the line that stops it: stop it again
                _disarm()


def _disarm() -> None:
    _Alarm.armed = False
    signal.setitimer(signal.ITIMER_REAL, 0)
