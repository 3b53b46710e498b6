"""A stand-in for GitHub's REST API: a real HTTP server on 127.0.0.1 (a thread) that keeps one pull request's
comments (each with its author), pages them as GitHub does (``Link: <...>; rel="next"``), deletes them, answers
``GET /user`` as the workflow's token gets it (403) unless told a login, records every request, and gives queued
answers (refusals, rate limits, redirects, raw bytes, a body trickled a byte at a time, or one made from the request:
a callable given the recorded request) to the comment endpoints before the real ones. tests/test_github_comment.py
and tests/test_action.py use it."""
from __future__ import annotations

import json
import re
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPO, PR = "octo/widgets", 7
TOKEN = "ghs_test-token-0123456789"
BOT = "github-actions[bot]"  # who the workflow's token writes as


@dataclass
class Trickle:
    """A 200 answer whose body (``size`` bytes, as Content-Length says) is sent one byte every ``every`` seconds."""

    size: int = 100_000
    every: float = 0.002


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass
class FakeGitHub:
    """One repository's pull request ``PR``: its comments, and answers to give before the real ones."""

    url: str = ""
    comments: list[dict[str, Any]] = field(default_factory=list)
    per_page: int = 100  # GitHub's maximum; a test lowers it to get several pages
    queued: list[tuple[int, dict[str, str], Any]] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    next_id: int = 1000
    user: tuple[int, Any] = (403, {"message": "Resource not accessible by integration"})  # GET /user
    stopped: threading.Event = field(default_factory=threading.Event)

    @property
    def login(self) -> str:
        """Who the token writes as: the login /user names, else the workflow's bot."""
        status, data = self.user
        return str(data["login"]) if status == 200 else BOT

    def add(self, body: str, author: str = BOT) -> dict[str, Any]:
        self.next_id += 1
        comment = {"id": self.next_id, "body": body, "user": {"login": author},
                   "html_url": f"https://github.test/{REPO}/pull/{PR}#c{self.next_id}"}
        self.comments.append(comment)
        return comment

    def answer(self, method: str, path: str, query: dict[str, list[str]], body: Any
               ) -> tuple[int, dict[str, str], Any]:
        if path == "/user":
            return self.user[0], {}, self.user[1]
        if self.queued:
            return self.queued.pop(0)
        listing = f"/repos/{REPO}/issues/{PR}/comments"
        if method == "GET" and path == listing:
            per_page = min(int(query.get("per_page", ["30"])[0]), self.per_page)
            page = int(query.get("page", ["1"])[0])
            items = self.comments[(page - 1) * per_page: page * per_page]
            headers = {}
            if page * per_page < len(self.comments):
                headers["Link"] = (f'<{self.url}{listing}?per_page={per_page}&page={page + 1}>; rel="next", '
                                   f'<{self.url}{listing}?per_page={per_page}&page=99>; rel="last"')
            return 200, headers, items
        if method == "POST" and path == listing:
            return 201, {}, self.add(body["body"], self.login)
        match = re.fullmatch(rf"/repos/{REPO}/issues/comments/(\d+)", path)
        comment = next((c for c in self.comments if match and c["id"] == int(match.group(1))), None)
        if comment is None:
            return 404, {}, {"message": "Not Found"}
        if method == "PATCH":
            comment["body"] = body["body"]
            return 200, {}, comment
        if method == "DELETE":
            self.comments.remove(comment)
            return 204, {}, None
        return 404, {}, {"message": "Not Found"}


@contextmanager
def serve() -> Iterator[FakeGitHub]:
    """The server, listening on a free port of 127.0.0.1 until the block ends."""
    state = FakeGitHub()

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            split = urllib.parse.urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            state.requests.append(Recorded(self.command, split.path, urllib.parse.parse_qs(split.query),
                                           dict(self.headers.items()), body))
            status, headers, data = state.answer(self.command, split.path, urllib.parse.parse_qs(split.query), body)
            if callable(data):  # an answer made from the request (a server that quotes it back)
                data = data(state.requests[-1])
            if isinstance(data, Trickle):
                self._trickle(data)
                return
            payload = data if isinstance(data, bytes) else b"" if data is None else json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)

        def _trickle(self, how: Trickle) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(how.size))
            self.end_headers()
            self.wfile.flush()
            try:
                for _ in range(how.size):
                    if state.stopped.wait(how.every):
                        return
                    self.wfile.write(b" ")
                    self.wfile.flush()
            except OSError:  # the client gave up: what the test wants
                return

        do_GET = do_POST = do_PATCH = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:  # keep the test output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stopped.set()
        server.shutdown()
        server.server_close()
