"""``FakeSentenceModel``, the named stand-in for the embedding model that tests use to count what is embedded.

Its vectors come from text length: it proves what is embedded, cached and shared, never a retrieval result;
``MarkerModel`` is the stand-in whose rankings a test chooses.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from pytest_chunkeval.retrieval.cache_store import EmbeddingCache
from pytest_chunkeval.retrieval.embed import Embedder


class FakeSentenceModel:
    """Deterministic 4-d vectors from text length; counts how many texts it was asked to embed."""

    max_seq_length = 256

    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts: list[str], **_: object) -> np.ndarray:
        self.seen.extend(texts)
        return np.array([[len(t), 1.0, 0.0, 0.0] for t in texts], dtype=np.float32)


def fake_embedder(tmp_path: Path, weights: bytes = b"weights") -> tuple[Embedder, FakeSentenceModel]:
    """An embedder whose model files are ``weights`` (what its cache key hashes) and whose model is the fake, with
    its own cache in ``tmp_path``."""
    model_dir = tmp_path / "model"
    model_dir.mkdir(exist_ok=True)
    (model_dir / "model.safetensors").write_bytes(weights)
    fake = FakeSentenceModel()
    emb = Embedder(str(model_dir), cache=EmbeddingCache(tmp_path / "cache.sqlite"))
    emb._model = fake
    return emb, fake


class MarkerModel:
    """Vectors that say which marker words a text holds ("alpha", "beta", and "zeta" at half weight), plus a
    constant: a test decides what ranks first for a query by the words its files and queries hold."""

    max_seq_length = 256

    def encode(self, texts: list[str], **_: object) -> np.ndarray:
        return np.array([[float("alpha" in t), float("beta" in t), 0.5 * ("zeta" in t), 0.1] for t in texts],
                        dtype=np.float32)
