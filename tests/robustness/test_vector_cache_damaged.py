"""Cached vectors are checked when read: a short, odd-sized or non-finite blob is dropped and embedded again.

Before, one short blob made ``np.stack`` fail every item of the strategy ("all input arrays must have the same
shape"). A small named fake model stands in for sentence-transformers: the cache, not the model, is under test.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from pytest_chunkeval.retrieval.cache_store import CacheWarning, EmbeddingCache
from pytest_chunkeval.retrieval.embed import Embedder, text_key

DIM = 8


class CountingFakeModel:
    """Deterministic 'embeddings' from the text's length; remembers what it was asked to embed."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts: list[str], **_: object) -> np.ndarray:
        self.seen.extend(texts)
        out = np.array([[len(t) + i for i in range(DIM)] for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def _embedder(path: Path) -> tuple[Embedder, CountingFakeModel]:
    model = CountingFakeModel()
    return Embedder(cache=EmbeddingCache(path), _model=model, _model_id="fake", _digests={}), model


@pytest.mark.parametrize(
    "blob, dim, reason",
    [
        (np.ones(DIM // 2, dtype=np.float32).tobytes(), DIM, "bytes for dimension 8"),
        (b"\x00\x01\x02", DIM, "3 bytes for dimension 8"),
        (np.full(DIM, np.nan, dtype=np.float32).tobytes(), DIM, "non-finite"),
        (np.ones(DIM // 2, dtype=np.float32).tobytes(), DIM // 2, "dimension 4, the others have 8"),
    ],
)
def test_damaged_vector_is_dropped_and_embedded_again(tmp_path: Path, blob: bytes, dim: int, reason: str) -> None:
    path = tmp_path / "cache.sqlite"
    texts = ["alpha", "beta gamma", "delta epsilon zeta"]
    first, _ = _embedder(path)
    clean, _ = first.encode(texts)
    first.cache._db.execute(
        "UPDATE vectors SET vec = ?, dim = ? WHERE key = ?", (blob, dim, text_key("beta gamma"))
    )
    first.cache._db.commit()

    second, model = _embedder(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again, counts = second.encode(texts)
    messages = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    assert len(messages) == 1 and reason in messages[0] and str(path) in messages[0], messages
    assert model.seen == ["beta gamma"]
    assert (counts.embedded, counts.cached) == (1, 2)
    np.testing.assert_array_equal(again, clean)

    third, model = _embedder(path)  # the re-embedded vector replaced the damaged one
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        third.encode(texts)
    assert model.seen == []
