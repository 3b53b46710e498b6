"""A watchdog process for grammars that can hang where tree-sitter cannot cancel them.

Most grammars honour the parse deadline (:func:`~pytest_chunkeval.chunking.ast.parsing.parse_bytes`), but an external
scanner that loops never reports progress: tree-sitter-kotlin 1.1 spins forever on ``val N = 1\\n@*@``.
For languages marked ``isolate=True`` the file is first parsed in a long-lived child process; if the child does
not answer in time it is killed (and restarted on the next file) and the caller falls back to line chunking.
One pipe round trip per file: the cost is a second parse of that language's files only.

Run as ``python -m pytest_chunkeval.chunking.ast.guard MODULE FUNCTION``: reads ``<u64 length><bytes>`` frames on stdin
and answers one byte per frame after parsing.
"""
from __future__ import annotations

import atexit
import importlib
import os
import select
import struct
import subprocess
import sys
import threading

_LOCK = threading.Lock()
_GUARDS: dict[tuple[str, str], Guard] = {}


class Guard:
    """One child process parsing with one grammar; :meth:`finishes` says whether a parse ends in time."""

    def __init__(self, module: str, function: str) -> None:
        self.module, self.function = module, function
        self.proc: subprocess.Popen[bytes] | None = None
        self.pid_owner = os.getpid()

    def _start(self) -> subprocess.Popen[bytes]:
        if self.proc is None or self.proc.poll() is not None or self.pid_owner != os.getpid():
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "pytest_chunkeval.chunking.ast.guard", self.module, self.function],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            self.pid_owner = os.getpid()
            assert self.proc.stdout is not None  # stdout=PIPE
            ready, _, _ = select.select([self.proc.stdout], [], [], 30.0)  # start-up: import the grammar
            if not ready or self.proc.stdout.read(1) != b"R":
                raise OSError("parse watchdog did not start")
        return self.proc

    def finishes(self, data: bytes, timeout: float) -> bool:
        try:
            proc = self._start()
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(struct.pack("<Q", len(data)) + data)
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], timeout)
            if ready and proc.stdout.read(1) == b"1":
                return True
        except (BrokenPipeError, OSError):
            pass
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        return False

    def close(self) -> None:
        """End the child this process started: its stdin closed, it reads the end and returns; a child that does not
        within a second is killed. A forked process leaves its parent's child alone."""
        proc, self.proc = self.proc, None
        if proc is None or self.pid_owner != os.getpid():
            return
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()
        try:
            proc.wait(1.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@atexit.register
def _close_all() -> None:
    """The watchdogs live as long as the process that uses them; at its exit they end with it, so no child outlives
    the run and Python has no running subprocess or open pipe to warn about."""
    with _LOCK:
        for guard in _GUARDS.values():
            guard.close()
        _GUARDS.clear()


def finishes(module: str, function: str, data: bytes, timeout: float) -> bool:
    """True when ``module.function``'s grammar parses ``data`` within ``timeout`` seconds in the watchdog."""
    with _LOCK:
        guard = _GUARDS.get((module, function))
        if guard is None:
            guard = _GUARDS[(module, function)] = Guard(module, function)
        return guard.finishes(data, timeout)


def _serve(module: str, function: str) -> None:
    import tree_sitter

    parser = tree_sitter.Parser(tree_sitter.Language(getattr(importlib.import_module(module), function)()))
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    out.write(b"R")
    out.flush()
    while True:
        head = inp.read(8)
        if len(head) < 8:
            return
        (n,) = struct.unpack("<Q", head)
        parser.parse(inp.read(n))
        out.write(b"1")
        out.flush()


if __name__ == "__main__":
    _serve(sys.argv[1], sys.argv[2])
