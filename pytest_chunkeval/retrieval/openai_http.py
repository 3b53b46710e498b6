"""An OpenAI-compatible ``/v1/embeddings`` endpoint as a model: OpenAI, Azure's compatible route, Ollama, vLLM, TEI,
infinity, LiteLLM all answer the same request.

httpx, not the ``openai`` package: httpx is already installed with the hub client, gives a timeout per request and a
thread-safe connection pool, and the rest (retries that honour ``Retry-After``, one message per failure) is the few
lines below that this plugin must own anyway, because each message must name the setting that fixes it and must
never show the key (every text quoted from a server or an exception goes through the key's
:class:`~pytest_chunkeval.core.redact.Redactor`).
"""
from __future__ import annotations

import email.utils
import os
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import numpy as np

from pytest_chunkeval.core.redact import Redactor
from pytest_chunkeval.retrieval.remote import (
    OPENAI_URL,
    CostMeter,
    EmbedderError,
    Remote,
    RemoteSettings,
    remote_tokens,
    route_of,
)

#: Answers worth another try: rate limited, timed out at a proxy, the server's own trouble.
RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})
#: The longest wait between tries, whatever a server's Retry-After asks: past it the run would look hung.
MAX_WAIT = 120.0
#: Characters of a server's own words quoted in a message.
QUOTE = 300


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (seconds or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class OpenAIEmbeddings:
    """The batch function of one endpoint and model: ``client(texts) -> float32 matrix``, L2-normalised as the
    in-process model's vectors are (the index compares by cosine), in the order asked (answers carry an index)."""

    def __init__(self, url: str, key: str, model: str, dimensions: int = 0, timeout: float = 60.0,
                 retries: int = 5, *, key_env: str = "OPENAI_API_KEY",
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.url = url.rstrip("/")
        self.model = model
        self.dimensions = dimensions
        self.timeout = timeout
        self.retries = retries
        self.key_env = key_env
        self.sleep = sleep
        self.redact = Redactor.of(key)
        self.dims: int | None = None  # learned from the first answer; every later one must agree
        self._lock = threading.Lock()
        headers = {"Authorization": f"Bearer {key.strip()}"} if key.strip() else {}
        self._client = httpx.Client(timeout=timeout, headers=headers, follow_redirects=False)

    def close(self) -> None:
        self._client.close()

    def _say(self, text: str) -> str:
        return self.redact(text)

    def __call__(self, texts: list[str]) -> np.ndarray:
        body: dict[str, Any] = {"model": self.model, "input": texts, "encoding_format": "float"}
        if self.dimensions:
            body["dimensions"] = self.dimensions
        where = f"{self.url}/embeddings"
        last = ""
        for attempt in range(self.retries + 1):
            wait = min(MAX_WAIT, 0.5 * 2 ** attempt) * (0.5 + random.random() / 2)
            try:
                answer = self._client.post(where, json=body)
            except httpx.TimeoutException:
                last = f"no answer within {self.timeout:g} s (chunkeval_embedder_timeout)"
            except httpx.HTTPError as exc:
                last = f"could not reach it ({type(exc).__name__}: {self._say(str(exc))[:QUOTE]})"
            else:
                if answer.status_code == 200:
                    return self._vectors(answer, len(texts))
                if answer.status_code not in RETRY_STATUS:
                    raise EmbedderError(f"{where}: {self._refused(answer, len(texts))}")
                last = f"HTTP {answer.status_code}: {self._quote(answer)}"
                asked = retry_after(answer.headers.get("retry-after"))
                if asked is not None:
                    wait = min(MAX_WAIT, asked)
            if attempt < self.retries:
                self.sleep(wait)
        hint = ("lower chunkeval_embedder_concurrency or raise chunkeval_embedder_retries" if "429" in last
                else "is the server up? chunkeval_embedder_url names it")
        raise EmbedderError(f"{where}: gave up after {self.retries + 1} tries; the last: {last}. {hint}")

    def _quote(self, answer: httpx.Response) -> str:
        """The server's own words: the ``error.message`` of an OpenAI-style error, else the body's start."""
        try:
            data = answer.json()
            error = data.get("error", data) if isinstance(data, dict) else data
            text = error.get("message") or error.get("detail") or str(error) if isinstance(error, dict) else str(error)
        except ValueError:
            text = answer.text
        return self._say(" ".join(str(text).split()))[:QUOTE] or "(no message)"

    def _refused(self, answer: httpx.Response, count: int) -> str:
        """One message per failure the user can fix, naming the fix."""
        status, said = answer.status_code, self._quote(answer)
        if status in (401, 403):
            key = "is set" if "Authorization" in self._client.headers else "is empty"
            return (f"HTTP {status}, the key was refused ({said}). The key is read from the environment variable "
                    f"{self.key_env} (chunkeval_embedder_key_env), which {key}")
        if 300 <= status < 400:
            where = self._say(answer.headers.get("location", "(no location)"))[:QUOTE]
            return (f"HTTP {status}, redirected to {where}; no redirect is followed (the key would go along): set "
                    "chunkeval_embedder_url to the address it names")
        if status == 404:
            return (f"HTTP 404, model {self.model!r} not found there ({said}): check the name after 'openai:' and "
                    "chunkeval_embedder_url")
        lowered = said.lower()
        if status == 413 or (status == 400 and any(w in lowered for w in ("too long", "maximum", "context", "token"))):
            return (f"HTTP {status}, input too long ({said}): a batch of {count} texts was refused; lower "
                    "--chunkeval-batch-size, or set chunkeval_embedder_window to the model's window so chunks "
                    "are cut to fit")
        return f"HTTP {status}: {said}"

    def _vectors(self, answer: httpx.Response, count: int) -> np.ndarray:
        where = f"{self.url}/embeddings"
        try:
            data = answer.json()["data"]
            rows = sorted(data, key=lambda d: int(d.get("index", 0)))
            matrix = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise EmbedderError(
                f"{where}: the answer is not an embeddings list ({type(exc).__name__}); it began "
                f"{self._say(answer.text[:QUOTE])!r}") from None
        if matrix.ndim != 2 or matrix.shape[0] != count:
            raise EmbedderError(f"{where}: asked for {count} vectors, the answer holds {matrix.shape[0]}")
        if not np.isfinite(matrix).all():
            raise EmbedderError(f"{where}: the answer holds a vector that is not finite (NaN or infinity)")
        with self._lock:
            if self.dims is None:
                self.dims = int(matrix.shape[1])
            elif matrix.shape[1] != self.dims:
                raise EmbedderError(
                    f"{where}: the vector dimension changed mid-run, from {self.dims} to {matrix.shape[1]}: is "
                    f"another model now served under the name {self.model!r}?")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms == 0, 1, norms)


def openai_remote(model: str, settings: RemoteSettings) -> Remote:
    """``openai:NAME`` as a remote embedder: the URL from the setting, else ``OPENAI_BASE_URL``, else OpenAI's; the
    key from the environment variable ``settings.key_env`` (empty: no Authorization header, as Ollama wants)."""
    parsed = route_of(model)
    assert parsed is not None
    url = (settings.url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL).rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise EmbedderError(f"chunkeval_embedder_url / OPENAI_BASE_URL = {url!r}: an http:// or https:// URL, such as "
                            "http://localhost:11434/v1")
    client = OpenAIEmbeddings(url, os.environ.get(settings.key_env, ""), parsed[1], settings.dimensions,
                              settings.timeout, settings.retries, key_env=settings.key_env)
    tokens = remote_tokens(settings.tokenizer, settings.window)
    return Remote(model, url, client, tokens, CostMeter(tokens, settings.price, settings.budget),
                  settings.concurrency, settings.dimensions, client.close)
