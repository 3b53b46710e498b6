"""A tiny GitHub REST client on :mod:`urllib.request`: a few JSON calls do not justify an HTTP dependency.

It knows the three things the comment needs beyond a plain request: the ``Link`` header for pagination, rate-limit
responses (waited out, within a bound the caller sets) and a failure that names the status and the endpoint.
The token travels in the ``Authorization`` header only; no message this module builds contains it.
"""
from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

API_VERSION = "2022-11-28"
USER_AGENT = "pytest-chunkeval"
SECONDARY_LIMIT_WAIT = 60.0  # GitHub: without retry-after or a reset time, wait at least a minute


class GitHubError(Exception):
    """A request that did not succeed: ``status`` is None when no HTTP answer came back (network, DNS, TLS)."""

    def __init__(self, method: str, endpoint: str, status: int | None, detail: str) -> None:
        self.method, self.endpoint, self.status, self.detail = method, endpoint, status, detail
        what = f"HTTP {status}" if status is not None else "no answer"
        super().__init__(f"{method} {endpoint}: {what}" + (f" ({detail})" if detail else ""))


class RateLimited(GitHubError):
    """Still rate-limited after the retries and the wait the caller allowed."""


@dataclass
class Response:
    status: int
    headers: Message
    data: Any


@dataclass
class Client:
    """Calls on one API base (``https://api.github.com``, or a GitHub Enterprise Server's ``.../api/v3``).

    ``max_retries`` and ``max_wait`` (seconds, all waits together) bound how long a rate limit may hold the caller;
    a wait longer than what is left of ``max_wait`` is not started at all.
    """

    api_url: str
    token: str
    max_retries: int = 2
    max_wait: float = 120.0
    timeout: float = 30.0
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.time
    waited: float = field(default=0.0, init=False)

    def request(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Response:
        """``path`` is relative to the API base, or a full URL on the same host (a ``Link`` header's next page)."""
        url = self._url(path)
        endpoint = urllib.parse.urlsplit(url).path
        data = json.dumps(payload).encode() if payload is not None else None
        for attempt in range(self.max_retries + 1):
            req = urllib.request.Request(url, data=data, method=method, headers=self._headers(data is not None))
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    body = resp.read()
                    return Response(resp.status, resp.headers, json.loads(body) if body.strip() else None)
            except urllib.error.HTTPError as err:
                detail = _message(err.read())
                wait = rate_limit_wait(err.code, err.headers, self.clock())
                if wait is None:
                    raise GitHubError(method, endpoint, err.code, detail) from None
                if attempt == self.max_retries or self.waited + wait > self.max_wait:
                    raise RateLimited(method, endpoint, err.code,
                                      f"rate limited; {attempt} retries, {self.waited:.0f}s waited, "
                                      f"{wait:.0f}s more asked") from None
                self.sleep(wait)
                self.waited += wait
            except (urllib.error.URLError, TimeoutError, OSError) as err:
                reason = getattr(err, "reason", err)
                raise GitHubError(method, endpoint, None, str(reason)) from None
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover

    def paginate(self, path: str) -> Iterator[Any]:
        """Every item of a list endpoint, following ``Link: <...>; rel="next"`` page after page."""
        next_url: str | None = path
        while next_url:
            resp = self.request("GET", next_url)
            yield from resp.data or []
            next_url = next_link(resp.headers.get("Link"))

    def _url(self, path: str) -> str:
        base = self.api_url.rstrip("/")
        if "://" not in path:
            return base + "/" + path.lstrip("/")
        # A next-page URL comes from the server's answer: the token goes nowhere but the API it was given for.
        given, ours = urllib.parse.urlsplit(path), urllib.parse.urlsplit(base)
        if (given.scheme, given.netloc) != (ours.scheme, ours.netloc):
            raise GitHubError("GET", given.path, None, f"refusing to follow a link off {ours.netloc}")
        return path

    def _headers(self, has_body: bool) -> dict[str, str]:
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": API_VERSION,
                   "User-Agent": USER_AGENT, "Authorization": f"Bearer {self.token}"}
        if has_body:
            headers["Content-Type"] = "application/json"
        return headers


def rate_limit_wait(status: int, headers: Message, now: float) -> float | None:
    """Seconds to wait before retrying, or None when the answer is not a rate limit (a plain 403 is a refusal).

    GitHub's rules: ``retry-after`` when given; else, with ``x-ratelimit-remaining: 0``, until ``x-ratelimit-reset``
    (epoch seconds); a 429 without either still asks to slow down.
    """
    if status not in (403, 429):
        return None
    retry_after = headers.get("Retry-After")
    if retry_after is not None:
        try:
            return max(0.0, float(retry_after))
        except ValueError:
            return SECONDARY_LIMIT_WAIT
    if headers.get("X-RateLimit-Remaining") == "0":
        try:
            return max(0.0, float(headers.get("X-RateLimit-Reset", "")) - now)
        except ValueError:
            return SECONDARY_LIMIT_WAIT
    return SECONDARY_LIMIT_WAIT if status == 429 else None


def next_link(header: str | None) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header (RFC 8288), as GitHub writes it."""
    for part in (header or "").split(","):
        url, _, params = part.partition(";")
        if any(p.strip().replace(" ", "") in ('rel="next"', "rel=next") for p in params.split(";")):
            return url.strip().strip("<>")
    return None


def _message(body: bytes) -> str:
    """GitHub's own ``message`` of an error answer, short; the raw start of anything else."""
    try:
        data = json.loads(body)
    except ValueError:
        return body[:200].decode("utf-8", "replace").strip()
    return str(data.get("message", ""))[:200] if isinstance(data, dict) else ""
