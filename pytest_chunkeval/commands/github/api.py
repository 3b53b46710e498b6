"""A tiny GitHub REST client on :mod:`urllib.request`: a few JSON calls do not justify an HTTP dependency.

It knows what the comment needs beyond a plain request: the ``Link`` header for pagination (bounded: at most
:data:`MAX_PAGES` pages, never the same one twice), rate-limit responses, secondary ones included (waited out,
within a bound the caller sets), answers that are not the JSON asked for, and a failure that names the status and
the endpoint. The token travels in the ``Authorization`` header only, and only to the API's own host
(:mod:`.transport` follows no redirect). No message this module builds contains it: the token is checked and
stripped when the client is made (:func:`.secret.clean_token`), and every text quoted from an answer or an exception
goes through :meth:`Client.quote`, which takes the token out (:class:`.secret.Redactor`) before cutting it short.
"""
from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

from pytest_chunkeval.commands.github import transport
from pytest_chunkeval.commands.github.secret import Redactor, clean_token

API_VERSION = "2022-11-28"
USER_AGENT = "pytest-chunkeval"
SECONDARY_LIMIT_WAIT = 60.0  # GitHub: without retry-after or a reset time, wait at least a minute
MAX_PAGES = 100  # of 100 comments each: no pull request's conversation is longer
MAX_ANSWER = 64 * 1024 * 1024  # bytes; a page of 100 comments of 65,536 characters is under 30 MB


class GitHubError(Exception):
    """A request that did not succeed: ``status`` is None when no HTTP answer came back (network, DNS, TLS)."""

    def __init__(self, method: str, endpoint: str, status: int | None, detail: str) -> None:
        self.method, self.endpoint, self.status, self.detail = method, endpoint, status, detail
        what = f"HTTP {status}" if status is not None else "no answer"
        super().__init__(f"{method} {endpoint}: {what}" + (f" ({detail})" if detail else ""))


class RateLimited(GitHubError):
    """Still rate-limited after the retries and the wait the caller allowed."""


@dataclass(frozen=True)
class Clock:
    """Time as the client sees it: ``wall`` for GitHub's reset times, ``monotonic`` for request deadlines,
    ``sleep`` for the waits. Tests replace :data:`SYSTEM_CLOCK` so that none of them sleeps or waits."""

    sleep: Callable[[float], None] = time.sleep
    wall: Callable[[], float] = time.time
    monotonic: Callable[[], float] = time.monotonic


SYSTEM_CLOCK = Clock()


@dataclass
class Response:
    status: int
    headers: Message
    data: Any


@dataclass
class Client:
    """Calls on one API base (``https://api.github.com``, or a GitHub Enterprise Server's ``.../api/v3``).

    ``max_retries`` and ``max_wait`` (seconds, all waits together) bound how long a rate limit may hold the caller;
    a wait longer than what is left of ``max_wait`` is not started at all. ``timeout`` is one deadline per request,
    from the connection to the last byte of the answer. ``token`` is stripped of the white space around it;
    :class:`.secret.TokenError` (a ``ValueError`` that does not show it) when it holds a character no token has.
    """

    api_url: str
    token: str = field(repr=False)
    max_retries: int = 2
    max_wait: float = 120.0
    timeout: float = 30.0
    clock: Clock = field(default_factory=lambda: SYSTEM_CLOCK)
    waited: float = field(default=0.0, init=False)
    redact: Redactor = field(default_factory=Redactor, init=False, repr=False)

    def __post_init__(self) -> None:
        self.redact = Redactor.of(self.token)
        self.token = clean_token(self.token)

    def quote(self, text: str | bytes, limit: int) -> str:
        """Text from an answer or an exception, fit for a message: without the token, then at most ``limit``
        characters (in this order: a cut could leave a piece of the token that the redactor would not know)."""
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        text = self.redact(text)
        return text if len(text) <= limit else text[:limit] + "…"

    def request(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Response:
        """``path`` is relative to the API base, or a full URL on the same host (a ``Link`` header's next page)."""
        url = self._url(path)
        endpoint = urllib.parse.urlsplit(url).path
        data = json.dumps(payload).encode() if payload is not None else None
        for attempt in range(self.max_retries + 1):
            try:
                req = urllib.request.Request(url, data=data, method=method, headers=self._headers(data is not None))
            except ValueError as err:  # not a URL urllib can open (--api-url notaurl)
                raise GitHubError(method, endpoint, None, self.quote(str(err), 200)) from None
            try:
                return self._send(req, method, endpoint)
            except urllib.error.HTTPError as err:
                wait = self._refusal(err, method, endpoint, attempt)
                self.clock.sleep(wait)
                self.waited += wait
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover

    def _send(self, req: urllib.request.Request, method: str, endpoint: str) -> Response:
        deadline = self.clock.monotonic() + self.timeout
        try:
            with transport.opener(deadline, self.clock.monotonic).open(req, timeout=self.timeout) as resp:
                body = transport.read_all(resp, MAX_ANSWER)
                return Response(resp.status, resp.headers, self._json(body, method, endpoint, resp.status))
        except urllib.error.HTTPError:
            raise
        except (urllib.error.URLError, TimeoutError, OSError, http.client.HTTPException, ValueError) as err:
            cause = getattr(err, "reason", err)
            reason = self.quote(str(cause), 200)
            if isinstance(cause, TimeoutError) or isinstance(err, TimeoutError):
                reason = f"no complete answer within {self.timeout:g}s ({reason})"
            raise GitHubError(method, endpoint, None, reason) from None

    def _refusal(self, err: urllib.error.HTTPError, method: str, endpoint: str, attempt: int) -> float:
        """How long to wait before the next attempt; raises when the answer is final (an error, a redirect, a rate
        limit past the bounds)."""
        try:
            raw = err.read(64 * 1024)
        except (OSError, http.client.HTTPException):
            raw = b""
        detail = self._message(raw)
        if 300 <= err.code < 400:
            raise GitHubError(method, endpoint, err.code, self._redirect(err)) from None
        wait = rate_limit_wait(err.code, err.headers, self.clock.wall(), detail)
        if wait is None:
            raise GitHubError(method, endpoint, err.code, detail) from None
        if attempt == self.max_retries or self.waited + wait > self.max_wait:
            raise RateLimited(method, endpoint, err.code,
                              f"rate limited; {attempt} retries, {self.waited:.0f}s waited, "
                              f"{wait:.0f}s more asked") from None
        return wait

    def _redirect(self, err: urllib.error.HTTPError) -> str:
        """Why a 3xx is not followed, naming the host it points to (never the rest of its URL, nor the token)."""
        location = err.headers.get("Location")
        ours = urllib.parse.urlsplit(self.api_url).netloc
        if not location:
            return f"a redirect without a Location; not followed (the token is only sent to {ours})"
        target = urllib.parse.urlsplit(urllib.parse.urljoin(err.geturl() or self.api_url, location))
        host = target.hostname or "?"
        host += f":{target.port}" if _port(target) else ""
        return (f"redirected to {self.quote(host, 200)}; not followed: the token is only sent to {ours}, and never "
                "on a redirect")

    def _json(self, body: bytes, method: str, endpoint: str, status: int) -> Any:
        """The answer's JSON (None for an empty one); an answer that is not JSON is an error that shows its start."""
        if not body.strip():
            return None
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            start = self.quote(body[:64 * 1024], 80)
            raise GitHubError(method, endpoint, status, f"the answer is not JSON: {start!r}") from None

    def _message(self, body: bytes) -> str:
        """GitHub's own ``message`` of an error answer, short; the raw start of anything else."""
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            return self.quote(body, 200).strip()
        return self.quote(str(data.get("message", "")), 200) if isinstance(data, dict) else ""

    def paginate(self, path: str) -> Iterator[Any]:
        """Every item of a list endpoint, following ``Link: <...>; rel="next"`` page after page, at most
        :data:`MAX_PAGES` pages and never the same page twice (a server's loop is an error, not a hang)."""
        next_url: str | None = path
        seen: set[str] = set()
        while next_url:
            url = self._url(next_url)
            endpoint = urllib.parse.urlsplit(url).path
            if url in seen:
                raise GitHubError("GET", endpoint, None, "the next-page link points to a page already read; stopped")
            if len(seen) == MAX_PAGES:
                raise GitHubError("GET", endpoint, None, f"more than {MAX_PAGES} pages; stopped")
            seen.add(url)
            resp = self.request("GET", url)
            if not isinstance(resp.data, list):
                raise GitHubError("GET", endpoint, resp.status,
                                  f"expected a JSON list, got {type(resp.data).__name__}")
            yield from resp.data
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


def rate_limit_wait(status: int, headers: Message, now: float, message: str = "") -> float | None:
    """Seconds to wait before retrying, or None when the answer is not a rate limit (a plain 403 is a refusal).

    GitHub's rules: ``retry-after`` when given; else, with ``x-ratelimit-remaining: 0``, until ``x-ratelimit-reset``
    (epoch seconds); else a 429, or a 403 whose message says "secondary rate limit" (GitHub sends some with no
    header at all), waits a minute.
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
    if status == 429 or "secondary rate limit" in message.lower():
        return SECONDARY_LIMIT_WAIT
    return None


def next_link(header: str | None) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header (RFC 8288), as GitHub writes it."""
    for part in (header or "").split(","):
        url, _, params = part.partition(";")
        if any(p.strip().replace(" ", "") in ('rel="next"', "rel=next") for p in params.split(";")):
            return url.strip().strip("<>")
    return None


def _port(url: urllib.parse.SplitResult) -> bool:
    """Whether the URL names a port other than its scheme's own."""
    try:
        return url.port is not None and url.port != {"http": 80, "https": 443}.get(url.scheme)
    except ValueError:
        return False

