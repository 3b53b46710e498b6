"""The HTTP underneath :mod:`.api`: :mod:`urllib.request` with two of its defaults taken away.

* **No redirects.** urllib follows a 3xx to any host and sends the request's headers there, ``Authorization``
  included. Here a 3xx is returned to the caller as the :class:`urllib.error.HTTPError` it is, and :mod:`.api` turns
  it into an error naming the host it pointed to; the token goes nowhere but the API it was given for.
* **One deadline per request.** A socket timeout applies to each read: a server that sends one byte every few
  seconds holds a request as long as it likes. Here every read of the connection (status line, headers, body) may
  only take what is left of the request's deadline, measured on a monotonic clock the caller passes in (tests
  pass a fake one and never wait).
"""
from __future__ import annotations

import functools
import http.client
import io
import socket
import urllib.request
from collections.abc import Callable
from typing import Any

Monotonic = Callable[[], float]


class DeadlineExceeded(TimeoutError):
    """The request's time was up before its answer had arrived in full."""


class _DeadlineReader(io.RawIOBase):
    """The socket's own unbuffered file (which keeps the socket open while the answer is read), each read limited
    to what is left of the deadline."""

    def __init__(self, raw: io.RawIOBase, sock: socket.socket, deadline: float, monotonic: Monotonic) -> None:
        super().__init__()
        self._raw, self._sock, self._deadline, self._monotonic = raw, sock, deadline, monotonic

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        left = self._deadline - self._monotonic()
        if left <= 0:
            raise DeadlineExceeded("the answer did not arrive in full within the request's time limit")
        self._sock.settimeout(left)
        return self._raw.readinto(buffer)

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()


class _DeadlineSocket:
    """A connected socket whose ``makefile`` (what :class:`http.client.HTTPResponse` reads from) keeps a deadline;
    everything else is the socket's own."""

    def __init__(self, sock: socket.socket, deadline: float, monotonic: Monotonic) -> None:
        self._sock, self._deadline, self._monotonic = sock, deadline, monotonic

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        raw = self._sock.makefile("rb", buffering=0)
        return io.BufferedReader(_DeadlineReader(raw, self._sock, self._deadline, self._monotonic))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class _DeadlineConnection:
    """Mixed into :class:`http.client.HTTPConnection` and its HTTPS subclass: wraps the connected socket."""

    sock: Any

    def __init__(self, *args: Any, deadline: float, monotonic: Monotonic, **kwargs: Any) -> None:
        self._deadline, self._monotonic = deadline, monotonic
        super().__init__(*args, **kwargs)

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        self.sock = _DeadlineSocket(self.sock, self._deadline, self._monotonic)


class _HTTP(_DeadlineConnection, http.client.HTTPConnection):
    pass


class _HTTPS(_DeadlineConnection, http.client.HTTPSConnection):
    pass


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # urllib then raises the 3xx as an HTTPError, Location header and all


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: float, monotonic: Monotonic) -> None:
        super().__init__()
        self._connection = functools.partial(_HTTP, deadline=deadline, monotonic=monotonic)

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self._connection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: float, monotonic: Monotonic) -> None:
        super().__init__()
        self._connection = functools.partial(_HTTPS, deadline=deadline, monotonic=monotonic)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self._connection, req)


def opener(deadline: float, monotonic: Monotonic) -> urllib.request.OpenerDirector:
    """An opener for one request that must be answered in full by ``deadline`` (on ``monotonic``'s clock) and
    follows no redirect."""
    return urllib.request.build_opener(_NoRedirects(), _HTTPHandler(deadline, monotonic),
                                       _HTTPSHandler(deadline, monotonic))


def read_all(resp: Any, limit: int) -> bytes:
    """The answer's body, refused past ``limit`` bytes (a page of comments is a few MB at most)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = resp.read(64 * 1024)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise ValueError(f"the answer is over {limit:,} bytes")
        chunks.append(chunk)
