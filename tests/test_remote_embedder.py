"""The remote embedder against a stand-in OpenAI-compatible server (tests/embedding_server.py): vectors in order and
normalised, retries that honour Retry-After, one message per failure that never shows the key, bounded requests in
flight, the cost said before anything is sent, a budget that refuses, and a warm cache that sends nothing."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from embedding_server import Reply, StandIn, hashed_words, serve

from pytest_chunkeval.core.model_files import default_model_dir
from pytest_chunkeval.retrieval.cache_store import EmbeddingCache
from pytest_chunkeval.retrieval.embed import Embedder
from pytest_chunkeval.retrieval.openai_http import OpenAIEmbeddings, openai_remote, retry_after
from pytest_chunkeval.retrieval.remote import (
    EmbedderError,
    EstimatedTokens,
    RemoteSettings,
    embedder,
    make_remote,
    route_of,
)

KEY = "sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
TEXTS = ["def add(a, b): return a + b", "class Order: total = 0", "import os", "hash the password with a salt"]


@pytest.fixture
def server() -> Iterator[StandIn]:
    with serve() as stand_in:
        yield stand_in


def client(server: StandIn, *, retries: int = 2, timeout: float = 5.0, key: str = KEY,
           sleeps: list[float] | None = None) -> OpenAIEmbeddings:
    record = sleeps if sleeps is not None else []
    return OpenAIEmbeddings(server.url, key, "toy", timeout=timeout, retries=retries, sleep=record.append)


def test_vectors_come_back_in_the_order_asked_and_normalised(server: StandIn) -> None:
    got = client(server)(TEXTS)
    want = hashed_words(TEXTS)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-6)  # the stand-in answers in reverse order, with indexes
    assert server.requests[0] == {"model": "toy", "input": TEXTS, "encoding_format": "float"}
    assert server.headers[0]["Authorization"] == f"Bearer {KEY}"


def test_dimensions_are_asked_for_when_set(server: StandIn) -> None:
    OpenAIEmbeddings(server.url, "", "toy", dimensions=32, sleep=lambda s: None)(TEXTS[:1])
    assert server.requests[0]["dimensions"] == 32
    assert "Authorization" not in server.headers[0]  # no key (Ollama): no header at all


def test_a_429_waits_as_retry_after_asks_then_succeeds(server: StandIn) -> None:
    server.script = [Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "3"})]
    sleeps: list[float] = []
    vectors = client(server, sleeps=sleeps)(TEXTS)
    assert vectors.shape == (4, 64)
    assert sleeps == [3.0]
    assert len(server.requests) == 2


def test_retry_after_as_an_http_date() -> None:
    assert retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == pytest.approx(10.0)
    assert retry_after("soon") is None
    assert retry_after(None) is None


def test_5xx_every_time_gives_up_after_the_retries_with_one_message(server: StandIn) -> None:
    server.script = [Reply(503, {"error": {"message": "overloaded"}})] * 3
    sleeps: list[float] = []
    with pytest.raises(EmbedderError) as info:
        client(server, retries=2, sleeps=sleeps)(TEXTS)
    message = str(info.value)
    assert "gave up after 3 tries" in message and "HTTP 503: overloaded" in message
    assert len(sleeps) == 2 and sleeps[1] > sleeps[0] * 0.9  # backing off
    assert len(server.requests) == 3


def test_a_slow_server_times_out_per_request(server: StandIn) -> None:
    server.delay = 2.0
    with pytest.raises(EmbedderError, match=r"no answer within 0.2 s \(chunkeval_embedder_timeout\)"):
        client(server, retries=0, timeout=0.2)(TEXTS)


def test_a_malformed_answer_is_one_message(server: StandIn) -> None:
    server.script = [Reply(200, b"<html>proxy login</html>")]
    with pytest.raises(EmbedderError, match="not an embeddings list.*proxy login"):
        client(server)(TEXTS)
    server.script = [Reply(200, {"data": [{"index": 0, "embedding": [1.0, 2.0]}]})]
    with pytest.raises(EmbedderError, match="asked for 4 vectors, the answer holds 1"):
        client(server)(TEXTS)


@pytest.mark.parametrize(("status", "said", "expected"), [
    (401, "Incorrect API key provided: Bearer " + KEY, "the key was refused.*OPENAI_API_KEY"),
    (404, "The model `toy` does not exist", "model 'toy' not found"),
    (413, "payload too large", "input too long.*--chunkeval-batch-size"),
    (400, "This model's maximum context length is 8192 tokens", "input too long"),
    (400, "unknown parameter: " + KEY[:20], "HTTP 400: unknown parameter"),
])
def test_each_refusal_is_one_message_without_the_key(server: StandIn, status: int, said: str, expected: str) -> None:
    server.script = [Reply(status, {"error": {"message": said}})]
    with pytest.raises(EmbedderError, match=expected) as info:
        client(server)(TEXTS)
    assert KEY not in str(info.value) and KEY[:12] not in str(info.value)
    assert len(server.requests) == 1  # not retried: trying again cannot help


def test_a_dimension_that_changes_mid_run_is_refused(server: StandIn) -> None:
    embed = client(server)
    embed(TEXTS[:2])
    server.embed = lambda texts: hashed_words(texts, dims=32)
    with pytest.raises(EmbedderError, match="dimension changed mid-run, from 64 to 32"):
        embed(TEXTS[2:])


def remote_embedder(server: StandIn, tmp_path: Path, notes: list[str], **settings: object) -> Embedder:
    remote = openai_remote("openai:toy", RemoteSettings(url=server.url, **settings))  # type: ignore[arg-type]
    return Embedder("openai:toy", cache=EmbeddingCache(tmp_path / "cache.sqlite"), batch_size=2, remote=remote,
                    notice=notes.append)


def test_requests_in_flight_are_bounded_by_the_concurrency(server: StandIn, tmp_path: Path) -> None:
    server.delay = 0.3
    notes: list[str] = []
    emb = remote_embedder(server, tmp_path, notes, concurrency=2)
    texts = [f"text number {i}" for i in range(12)]
    vectors, counts = emb.encode(texts)
    assert vectors.shape == (12, 64) and counts.embedded == 12
    assert len(server.requests) == 6  # batches of 2
    assert server.max_in_flight == 2  # several at once, never more than asked


def test_cost_is_said_before_sending_and_a_warm_cache_sends_nothing(server: StandIn, tmp_path: Path) -> None:
    notes: list[str] = []
    emb = remote_embedder(server, tmp_path, notes, price=0.02, window=100)
    first, counts = emb.encode(TEXTS)
    tokens = sum(EstimatedTokens(100).count_many(TEXTS))
    assert notes == [f"openai:toy: 4 texts to embed ({tokens} tokens, estimate: 4 characters a token), 0 cached, "
                     f"{tokens * 0.02 / 1e6:.4f} at 0.02 per million tokens"]
    sent = len(server.requests)
    again = remote_embedder(server, tmp_path, notes)
    second, warm = again.encode(TEXTS)
    assert (warm.embedded, warm.cached) == (0, 4)
    assert len(server.requests) == sent and len(notes) == 1  # nothing sent, nothing to say
    np.testing.assert_array_equal(first, second)


def test_the_cache_key_names_model_server_and_dimensions(server: StandIn, tmp_path: Path) -> None:
    emb = remote_embedder(server, tmp_path, [], dimensions=32)
    assert emb.cache_id == f"openai:toy@{server.url}#dims=32"
    assert emb.model_id == "openai:toy"


def test_a_budget_refuses_before_anything_is_sent(server: StandIn, tmp_path: Path) -> None:
    emb = remote_embedder(server, tmp_path, [], price=1_000_000.0, budget=1.0)
    with pytest.raises(EmbedderError, match="over chunkeval_embed_budget = 1; nothing was sent"):
        emb.encode(TEXTS)
    assert server.requests == []


def test_tokens_are_counted_with_a_tokenizer_folder_when_given(server: StandIn, tmp_path: Path) -> None:
    notes: list[str] = []
    emb = remote_embedder(server, tmp_path, notes, tokenizer=default_model_dir())
    emb.encode(TEXTS)
    assert "counted with the model's tokenizer" in notes[0]
    assert emb.max_tokens == 256  # the folder's window


def test_a_registered_route_is_a_model(tmp_path: Path) -> None:
    calls: list[list[str]] = []

    @embedder("toyroute", version="2")
    def make(model: str):  # type: ignore[no-untyped-def]
        assert model == "words-64"

        def embed(texts: list[str]) -> list[list[float]]:
            calls.append(texts)
            return hashed_words(texts).tolist()

        return embed

    remote = make_remote("toyroute:words-64", RemoteSettings())
    emb = Embedder("toyroute:words-64", cache=EmbeddingCache(tmp_path / "c.sqlite"), remote=remote)
    vectors, _ = emb.encode(TEXTS)
    assert vectors.shape == (4, 64) and calls
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    assert emb.cache_id == "toyroute:words-64@version=2#dims=native"


def test_an_unregistered_route_names_the_fix() -> None:
    with pytest.raises(EmbedderError, match=r"no embedder is registered as 'nosuch'.*@pytest_chunkeval.embedder"):
        make_remote("nosuch:model", RemoteSettings())


@pytest.mark.parametrize(("name", "route"), [
    ("openai:text-embedding-3-small", ("openai", "text-embedding-3-small")),
    ("voyage:voyage-code-3", ("voyage", "voyage-code-3")),
    ("C:\\models\\mini", None), ("sentence-transformers/all-MiniLM-L6-v2", None), (None, None), ("openai:", None),
])
def test_route_of(name: str | None, route: tuple[str, str] | None) -> None:
    assert route_of(name) == route


def test_the_ray_engine_with_a_remote_model_is_one_usage_error(tmp_path: Path) -> None:
    from pytest_chunkeval.settings.options import Options

    options = Options(rootdir=tmp_path, model="openai:text-embedding-3-small", engine="ray",
                      cache_dir=tmp_path / "cache", db_uri=str(tmp_path / "db"))
    with pytest.raises(ValueError, match="openai:text-embedding-3-small is served elsewhere: use the local engine"):
        options.validate()


def test_a_redirect_is_not_followed(server: StandIn) -> None:
    server.script = [Reply(307, b"", {"Location": "https://elsewhere.example/v1/embeddings"})]
    with pytest.raises(EmbedderError, match=r"HTTP 307, redirected to https://elsewhere.example/v1/embeddings; no "):
        client(server)(TEXTS)
    assert len(server.requests) == 1


def test_a_url_without_a_scheme_is_one_message() -> None:
    with pytest.raises(EmbedderError, match=r"'localhost:11434/v1': an http:// or https:// URL"):
        openai_remote("openai:toy", RemoteSettings(url="localhost:11434/v1"))


def test_cached_vectors_of_another_length_than_the_answers_are_one_message(server: StandIn, tmp_path: Path) -> None:
    remote_embedder(server, tmp_path, []).encode(TEXTS[:2])
    server.embed = lambda texts: hashed_words(texts, dims=32)  # another model behind the same name, a later run
    with pytest.raises(EmbedderError, match=r"differ in length \(\[32, 64\]\): another model is served"):
        remote_embedder(server, tmp_path, []).encode(TEXTS)


def test_an_installed_package_registers_a_route_by_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    def make(model: str):  # type: ignore[no-untyped-def]
        return lambda texts: hashed_words(texts, dims=8)

    class EntryPoint:
        name = "pkgroute"

        def load(self):  # type: ignore[no-untyped-def]
            return make

    groups: list[str] = []

    def entry_points(group: str) -> list[EntryPoint]:
        groups.append(group)
        return [EntryPoint()]

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    remote = make_remote("pkgroute:m", RemoteSettings())
    assert groups == ["pytest_chunkeval.embedders"]
    assert np.asarray(remote.embed(["a b"])).shape == (1, 8)
    assert remote.cache_key == "pkgroute:m@version=#dims=native"
