"""Embedding throughput (texts/s, tokens/s) of the evaluation's model, by backend and batch size.

Rows: ``test_embedding[<backend>-bs<N>]``. The texts are real chunks: the ``ast`` chunking (1,000 characters at
most, as ``strategies/ast.py``) of the suites/pystdlib corpus, N of them spread evenly over the corpus
(``CHUNKEVAL_BENCH_EMBED_TEXTS``, default 16; batch sizes from ``CHUNKEVAL_BENCH_BATCH_SIZES``, default 1,4,16).
Two rounds per row: at batch size 1 a round of 16 code chunks takes seconds even on an idle machine.
A round embeds all of them through ``Embedder.encode`` with no cache, which is the evaluator's path (longest
first, so batches pad little). tokens/s counts the tokens the model reads: each text's tokens with the special
tokens, cut at the model's window (256 for all-MiniLM-L6-v2), padding not counted.

Backends: :data:`BACKENDS` maps a name to a factory of an encode function for one batch size: ``torch``
(sentence-transformers, the default), ``onnx`` (ONNX Runtime over a local export, ``--chunkeval-backend onnx``),
``onnx-int8`` (that export quantized to int8), ``openai-http`` and ``infinity`` (a remote model over HTTP: see
:func:`remote_encoder`), all through the plugin's ``Embedder``; another is one more entry,
and its rows, group and summary lines follow from the name.
"""
from __future__ import annotations

import atexit
import os
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from typing import Any

import pytest
from bench_support import heavy_rounds, load_suite, note, round_times

SECTION = "embedding"
Encode = Callable[[Sequence[str]], Any]


def plugin_encoder(backend: str) -> Callable[[int], Encode]:
    """The plugin's embedder as the evaluation builds it with ``--chunkeval-backend``, minus the cache (every
    round must embed every text). The ONNX export, if any, lands in a temporary folder and is made before the
    timed rounds, as loading is: both are paid once per run, not per batch."""

    def factory(batch_size: int) -> Encode:
        import tempfile
        from pathlib import Path

        from pytest_chunkeval.retrieval.embed import Embedder

        if backend.startswith("onnx"):
            from pytest_chunkeval.retrieval.onnx_backend import missing_packages

            if missing := missing_packages():
                raise ImportError(f"{', '.join(missing)} (pip install -e '.[onnx]')")
        onnx_dir = Path(tempfile.gettempdir()) / "chunkeval-bench-onnx"
        embedder = Embedder(batch_size=batch_size, cache=None, backend=backend, onnx_dir=onnx_dir)
        embedder.model()

        def encode(texts: Sequence[str]) -> Any:
            return embedder.encode(list(texts))[0]

        return encode

    return factory


#: Backend name -> factory of an encode function for a batch size. A factory raises ``ImportError`` when its
#: backend is not installed; the rows are then skipped with the message.
BACKENDS: dict[str, Callable[[int], Encode]] = {name: plugin_encoder(name) for name in ("torch", "onnx", "onnx-int8")}


def remote_encoder(url_env: str | None) -> Callable[[int], Encode]:
    """``--chunkeval-model openai:...`` through the plugin's HTTP client, one request per batch, 4 in flight (the
    default): against the server at ``$url_env`` (``infinity``: a real server, started by hand as docs/embedders.md
    shows), or, with no variable, a local stand-in serving the bundled model from a thread of this process
    (``openai-http``: what HTTP and JSON add to the in-process model, on the same cores)."""

    def factory(batch_size: int) -> Encode:
        from pytest_chunkeval.core.model_files import default_model_dir
        from pytest_chunkeval.retrieval.embed import Embedder
        from pytest_chunkeval.retrieval.openai_http import openai_remote
        from pytest_chunkeval.retrieval.remote import RemoteSettings

        if url_env is not None:
            url = os.environ.get(url_env)
            if not url:
                raise ImportError(f"no server: set {url_env} to its /v1 URL")
            model = os.environ.get("CHUNKEVAL_BENCH_REMOTE_MODEL", "all-MiniLM-L6-v2")
        else:
            from embedding_server import StandIn, serve
            from sentence_transformers import SentenceTransformer

            st = SentenceTransformer(str(default_model_dir()), device="cpu", local_files_only=True)
            server = _SERVERS.enter_context(serve(StandIn(embed=lambda t: st.encode(t, batch_size=batch_size))))
            url, model = server.url, "all-MiniLM-L6-v2"
        remote = openai_remote(f"openai:{model}", RemoteSettings(url=url, tokenizer=default_model_dir()))
        embedder = Embedder(f"openai:{model}", cache=None, batch_size=batch_size, remote=remote)
        _SERVERS.callback(remote.close)

        def encode(texts: Sequence[str]) -> Any:
            return embedder.encode(list(texts))[0]

        return encode

    return factory


_SERVERS = ExitStack()  # the stand-in servers of this module, closed at exit
atexit.register(_SERVERS.close)
BACKENDS["openai-http"] = remote_encoder(None)
BACKENDS["infinity"] = remote_encoder("CHUNKEVAL_BENCH_INFINITY_URL")


def batch_sizes() -> list[int]:
    return [int(b) for b in os.environ.get("CHUNKEVAL_BENCH_BATCH_SIZES", "1,4,16").split(",") if b.strip()]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if {"backend", "batch_size"} <= set(metafunc.fixturenames):
        pairs = [(b, n) for b in BACKENDS for n in batch_sizes()]
        metafunc.parametrize(("backend", "batch_size"), pairs, ids=[f"{b}-bs{n}" for b, n in pairs])


@pytest.fixture(scope="module")
def texts() -> list[str]:
    from pytest_chunkeval import AstChunker

    suite = load_suite("pystdlib")
    chunker = AstChunker("ast", max_chunk_size=1000, min_chunk_size=100, preserve_context=False)
    chunks = [c.text for path, text in sorted(suite.corpus.files.items()) for c in chunker.chunk(path, text)]
    n = min(int(os.environ.get("CHUNKEVAL_BENCH_EMBED_TEXTS", "16")), len(chunks))
    return [chunks[i * len(chunks) // n] for i in range(n)]


def count_tokens(embedder: Any, texts: list[str]) -> list[int]:
    """Each text's tokens (special tokens included) with the embedder's own tokenizer, through whichever API the
    package offers: ``Embedder.tokens`` (the model's window and tokenizer), else ``quality.token_counter``."""
    count_many = getattr(getattr(embedder, "tokens", None), "count_many", None)
    if callable(count_many):
        return list(count_many(texts))
    from pytest_chunkeval.scoring.quality import token_counter  # type: ignore[attr-defined]  # before Embedder.tokens

    return token_counter(embedder.model_dir)(texts)


@pytest.fixture(scope="module")
def model_tokens(texts: list[str]) -> tuple[str, int]:
    """(model id, tokens the model reads for ``texts``): counted once, cut at the model's window."""
    from pytest_chunkeval.retrieval.embed import Embedder

    embedder = Embedder()
    embedder.model()
    window = embedder.max_tokens
    return embedder.model_id, sum(min(c, window) for c in count_tokens(embedder, texts))


def test_embedding(benchmark: Any, request: pytest.FixtureRequest, texts: list[str], model_tokens: tuple[str, int],
                   backend: str, batch_size: int) -> None:
    model_id, tokens = model_tokens
    benchmark.group = f"embedding: {model_id.rsplit('/', 1)[-1]}, {len(texts)} code chunks, {tokens:,} tokens"
    try:
        encode = BACKENDS[backend](batch_size)
    except ImportError as exc:
        pytest.skip(f"backend {backend} is not installed: {exc}")
    t0 = time.perf_counter()
    encode(texts[: max(batch_size, 4)])  # warm-up: first calls of a batch shape set up kernels
    warm = time.perf_counter() - t0
    vectors = benchmark.pedantic(encode, args=(texts,), rounds=heavy_rounds(request.config, 2), warmup_rounds=0)
    assert len(vectors) == len(texts)

    times = round_times(benchmark)
    benchmark.extra_info.update({"backend": backend, "batch size": batch_size, "texts": len(texts),
                                 "tokens": tokens, "warm-up s": round(warm, 3)})
    if times:
        best = min(times)
        benchmark.extra_info["texts/s"] = round(len(texts) / best, 2)
        benchmark.extra_info["tokens/s"] = round(tokens / best, 1)
        row = f"{backend}, batch {batch_size}"
        note(request.config, SECTION, row, "texts/s", len(texts) / best)
        note(request.config, SECTION, row, "tokens/s", tokens / best)
        note(request.config, SECTION, row, "texts/s mean", len(texts) * len(times) / sum(times))
