"""A stand-in OpenAI-compatible ``/v1/embeddings`` server on a local port (http.server in a thread), for the remote
embedder's tests: it answers what a test scripts (429 with Retry-After, 5xx, slow, malformed, 401 quoting the key)
and otherwise embeds each text with a function the test picks, recording every request and how many were in flight.
"""
from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

EmbedFn = Callable[[list[str]], np.ndarray]


def hashed_words(texts: list[str], dims: int = 64) -> np.ndarray:
    """A bag of words hashed into ``dims`` buckets: deterministic, and texts sharing words are near each other, so a
    search over it finds something."""
    out = np.zeros((len(texts), dims), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % dims] += 1.0
        out[row, dims - 1] += 0.01  # never all zeros
    return out


@dataclass
class Reply:
    """One scripted answer: status, body (bytes as they are, anything else as JSON) and headers."""

    status: int
    body: Any = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class StandIn:
    embed: EmbedFn = hashed_words
    script: list[Reply] = field(default_factory=list)
    delay: float = 0.0  # seconds every embedding answer waits (to see requests in flight)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    port: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def answer(self, body: dict[str, Any]) -> Reply:
        with self.lock:
            if self.script:
                return self.script.pop(0)
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = self.embed(list(texts))
        data = [{"object": "embedding", "index": i, "embedding": [float(x) for x in v]} for i, v in enumerate(vectors)]
        data.reverse()  # servers may answer in any order: the index says which text each vector is
        return Reply(200, {"object": "list", "data": data, "model": body.get("model")}, delay=self.delay)


def _handler(server: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            body = json.loads(raw)
            with server.lock:
                server.requests.append(body)
                server.headers.append(dict(self.headers))
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            try:
                reply = server.answer(body)
                time.sleep(reply.delay)
                payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                for name, value in {"content-type": "application/json", **reply.headers}.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                pass
            finally:
                with server.lock:
                    server.in_flight -= 1

    return Handler


@contextmanager
def serve(stand_in: StandIn | None = None) -> Iterator[StandIn]:
    """``stand_in`` listening on a free local port for the ``with`` block."""
    state = stand_in or StandIn()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
