"""Embedders outside this process: an OpenAI-compatible endpoint, or the project's own code registered by name.

Which chunking retrieves best depends on the model, and most teams embed through a hosted API or a served model,
not a sentence-transformers folder. A model named ``ROUTE:MODEL`` (``openai:text-embedding-3-small``,
``voyage:voyage-code-3``) is such an embedder: ``openai`` is built in (:mod:`.openai_http`, any server that speaks
``/v1/embeddings``); any other route is a function the project registers with :func:`embedder` (in a conftest, a
strategies-folder file, or an installed package's ``pytest_chunkeval.embedders`` entry point), as a strategy is.

Such a model costs money per token, so :class:`CostMeter` says what a run will send before it sends it (texts,
tokens, the price when one is set) and refuses to start past a budget; the cache (keyed by the model, where it is
served and its dimensions) makes a second run and a pull request's unchanged chunks free.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_chunkeval.chunking.sizing import ModelTokens, model_tokens, read_window

#: One batch of texts in, one vector per text out (lists of floats or a numpy matrix).
EmbedFn = Callable[[list[str]], Any]
#: The entry-point group an installed package registers embedder routes under (name -> factory).
ENTRY_POINT_GROUP = "pytest_chunkeval.embedders"
#: The built-in route: every server that speaks OpenAI's ``/v1/embeddings``.
OPENAI = "openai"
#: OpenAI's own endpoint, used when neither the setting nor ``OPENAI_BASE_URL`` names another.
OPENAI_URL = "https://api.openai.com/v1"
#: Tokens OpenAI's embedding models read at most; the window of a remote model whose window nobody set.
REMOTE_WINDOW = 8191
#: The estimate's rule when no tokenizer is known: about four characters of English or code per token.
CHARS_PER_TOKEN = 4


class EmbedderError(RuntimeError):
    """A remote embedder failed: the message names the endpoint, the cause and the fix, and never the key."""


@dataclass(frozen=True)
class EmbedderRoute:
    """A registered embedder: ``make(model)`` returns the function that embeds one batch.

    ``version`` is part of the cache key: change it when the code changes the vectors. ``window`` (tokens) and
    ``tokenizer`` (a local folder with the model's tokenizer files) say what fits and how tokens are counted.
    """

    name: str
    make: Callable[[str], EmbedFn]
    version: str = ""
    window: int = 0
    tokenizer: str | None = None
    concurrency: int = 1


_ROUTES: dict[str, EmbedderRoute] = {}


def embedder(name: str, *, version: str = "", window: int = 0, tokenizer: str | None = None,
             concurrency: int = 1) -> Callable[[Callable[[str], EmbedFn]], Callable[[str], EmbedFn]]:
    """Register ``--chunkeval-model NAME:MODEL``: the decorated function takes the model part and returns the
    function that embeds one batch of texts (one vector per text)."""
    if not name.isidentifier() or name == OPENAI:
        raise ValueError(f"embedder name {name!r}: a Python identifier other than {OPENAI!r}")

    def register(make: Callable[[str], EmbedFn]) -> Callable[[str], EmbedFn]:
        _ROUTES[name] = EmbedderRoute(name, make, version, window, tokenizer, max(1, concurrency))
        return make

    return register


def _entry_point(name: str) -> EmbedderRoute | None:
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            loaded = ep.load()
            return _ROUTES.get(name) or EmbedderRoute(name, loaded)  # a decorated factory registered itself
    return None


def registered(name: str) -> EmbedderRoute | None:
    return _ROUTES.get(name) or _entry_point(name)


def route_of(model: str | None) -> tuple[str, str] | None:
    """(route, model) for a remote model name (``openai:text-embedding-3-small``), None for a local model (a path,
    a hub name; ``C:\\models`` is a path: a route has more than one letter)."""
    if not model or ":" not in model:
        return None
    route, _, name = model.partition(":")
    if len(route) < 2 or not route.isidentifier() or not name:
        return None
    return route, name


@dataclass(frozen=True)
class RemoteSettings:
    """The settings of a remote embedder (``chunkeval_embedder_*``; docs/options.md)."""

    url: str | None = None  # None: OPENAI_BASE_URL, else OpenAI's
    key_env: str = "OPENAI_API_KEY"
    dimensions: int = 0  # 0: the model's own
    concurrency: int = 4
    timeout: float = 60.0
    retries: int = 5
    tokenizer: Path | None = None
    window: int = 0
    price: float = 0.0  # money per million tokens; 0: none shown
    budget: float = 0.0  # money a run may spend; 0: no limit


@dataclass(frozen=True)
class EstimatedTokens:
    """Tokens estimated as one per :data:`CHARS_PER_TOKEN` characters, for a model whose tokenizer is not on this
    machine (a hosted model). Said so wherever a count is shown (``name``); sizes in tokens are then estimates."""

    window: int
    name: str = f"estimate: {CHARS_PER_TOKEN} characters a token"
    specials: int = 0

    def count(self, text: str) -> int:
        return math.ceil(len(text) / CHARS_PER_TOKEN)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [self.count(t) for t in texts]

    def token_starts(self, text: str) -> tuple[list[int], int]:
        return list(range(0, len(text), CHARS_PER_TOKEN)), 0

    def read(self, counts: Any) -> int:
        return sum(min(n, self.window) for n in counts)


Tokens = ModelTokens | EstimatedTokens


def remote_tokens(tokenizer: Path | str | None, window: int) -> Tokens:
    """The model's own tokenizer when a local folder holds it (exact counts), else the named estimate."""
    if tokenizer:
        folder = Path(tokenizer).expanduser()
        return model_tokens(folder, window or read_window(folder) or REMOTE_WINDOW)
    return EstimatedTokens(window or REMOTE_WINDOW)


@dataclass
class CostMeter:
    """What a remote model will be sent, said before it is sent, and the budget held across the run."""

    tokens: Tokens
    price: float = 0.0
    budget: float = 0.0
    spent_tokens: int = 0

    def money(self, tokens: int) -> float:
        return tokens * self.price / 1_000_000

    def before(self, model: str, texts: Sequence[str], cached: int) -> str:
        """The line to show before embedding ``texts``; :class:`EmbedderError` when they would take the run past
        its budget (nothing of them is sent then)."""
        tokens = sum(min(n, self.tokens.window) for n in self.tokens.count_many(list(texts)))
        how = "counted with the model's tokenizer" if isinstance(self.tokens, ModelTokens) else self.tokens.name
        line = f"{model}: {len(texts)} texts to embed ({tokens:,} tokens, {how}), {cached} cached"
        if self.price:
            line += f", {self.money(tokens):.4f} at {self.price:g} per million tokens"
            total = self.money(self.spent_tokens + tokens)
            if self.budget and total > self.budget:
                raise EmbedderError(
                    f"{line}: this run would spend {total:.4f}, over chunkeval_embed_budget = {self.budget:g}; "
                    "nothing was sent. Raise the budget, or evaluate fewer strategies or suites")
        self.spent_tokens += tokens
        return line


@dataclass
class Remote:
    """One remote model as the embedder sees it: its id (report, comparisons), where it is served (part of the
    cache key, with the dimensions), the batch function and how its tokens are counted."""

    model_id: str
    where: str
    embed: EmbedFn
    tokens: Tokens
    meter: CostMeter
    concurrency: int = 1
    dimensions: int = 0
    close: Callable[[], None] = field(default=lambda: None)

    @property
    def cache_key(self) -> str:
        return f"{self.model_id}@{self.where}#dims={self.dimensions or 'native'}"


def make_remote(model: str, settings: RemoteSettings) -> Remote:
    """The remote embedder of a route the project registered; :class:`EmbedderError` for a route nobody registered.
    (``openai:`` is :func:`.openai_http.openai_remote`'s.)"""
    parsed = route_of(model)
    if parsed is None:
        raise EmbedderError(f"{model!r} is not a remote model (ROUTE:MODEL)")
    route, name = parsed
    found = registered(route)
    if found is None:
        raise EmbedderError(
            f"--chunkeval-model {model}: no embedder is registered as {route!r}; register one with "
            f"@pytest_chunkeval.embedder({route!r}) in a conftest.py or a strategies-folder file, or use "
            f"{OPENAI}:MODEL for an OpenAI-compatible endpoint")
    tokens = remote_tokens(found.tokenizer or settings.tokenizer, found.window or settings.window)
    return Remote(model, f"version={found.version}", found.make(name), tokens,
                  CostMeter(tokens, settings.price, settings.budget), found.concurrency)
