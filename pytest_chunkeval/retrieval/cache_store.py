"""The cache store: one SQLite file (``.chunkeval/cache.sqlite``) with cached vectors, rankings and build facts.

One module owns the file's format (its stamp and schema version), its health checks and its self-healing, and one
:class:`CacheStore` handle per file and process owns the connection: the embedding cache and the ranking cache are
views on it, so a session opens, checks and (when damaged) rebuilds the file once, not once per cache.
"""
from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import warnings
import weakref
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

#: Stamped into every cache store (``PRAGMA application_id``, "CKEV") so a foreign SQLite file is never taken for one.
CACHE_APPLICATION_ID = 0x434B4556
#: Bump when the tables below change shape; a store with another version is moved aside and rebuilt.
CACHE_SCHEMA_VERSION = 1
_CACHE_TABLES = {
    "vectors": "CREATE TABLE vectors (model TEXT, key TEXT, dim INTEGER, vec BLOB, PRIMARY KEY (model, key))",
    "rankings": "CREATE TABLE rankings (key TEXT PRIMARY KEY, hits TEXT)",
    # evaluation.build_facts.BuildFactsCache's, under the same version: a store without it gains it, nothing else
    # changes.
    "facts": "CREATE TABLE facts (key TEXT PRIMARY KEY, value BLOB)",
}
WarnFn = Callable[[str], None]


class CacheWarning(UserWarning):
    """A damaged cache was found and rebuilt: nothing failed, but the user should know what was thrown away."""


def _warn(message: str) -> None:
    warnings.warn(CacheWarning(message), stacklevel=3)


#: How long a store whose size disagrees with its header is given before it is called truncated: another process's
#: checkpoint can write the header's new page count a moment before the pages that extend the file.
SETTLE_SECONDS = 0.25


def _header_problem(path: Path) -> str | None:
    """The header check of :func:`_store_problem`, from one open file: its size and its first 100 bytes."""
    with path.open("rb") as fh:
        header = fh.read(100)
        size = os.fstat(fh.fileno()).st_size
    if size == 0:
        return None  # SQLite creates the file empty; a fresh store
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
    return None


def _store_problem(path: Path, connected: bool = False) -> str | None:
    """Why the SQLite file at ``path`` is not a usable cache store (None: usable, or absent).

    Checked before use because SQLite only notices damage when a query touches it, which otherwise surfaces as a raw
    ``file is not a database`` in every item. ``quick_check`` reads every page once, cheap beside an evaluation. A
    header problem must hold twice, :data:`SETTLE_SECONDS` apart: moving aside a store another process is writing (a
    false "truncated" while its checkpoint extends the file) breaks that process's connection too.

    ``connected``: this process holds a connection to the file. The header is then not read: closing *any* file
    descriptor of the database file drops every POSIX lock the process holds on it, its SQLite connection's shared lock
    too, and another process closing its own connection then believes it is the last one, checkpoints and deletes the
    WAL under this one (a second pytest process started beside a running sweep on one cache then reads "database disk
    image is malformed"). SQLite's own checks below are safe: its connections share their locks.
    """
    if not path.exists():
        return None
    if not connected:
        problem = _settled_header_problem(path)
        if problem is not None:
            return None if problem == "absent" else problem
    elif path.stat().st_size == 0:
        return None
    return _sqlite_problem(path)


def _settled_header_problem(path: Path) -> str | None:
    """:func:`_header_problem`, held twice :data:`SETTLE_SECONDS` apart ("absent": the file went meanwhile)."""
    try:
        problem = _header_problem(path)
        if problem is not None:
            time.sleep(SETTLE_SECONDS)
            problem = _header_problem(path)
    except FileNotFoundError:
        return "absent"
    return problem


def _sqlite_problem(path: Path) -> str | None:
    """What SQLite itself finds wrong with the store: damage, another application's file, another schema."""
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
    """Rename the store (and its WAL and shared-memory files) to ``<name>.damaged-<time>``; keep it for a
    post-mortem."""
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
    for suffix in ("", "-wal", "-shm"):
        src = path.with_name(path.name + suffix)
        if src.exists():
            os.replace(src, aside.with_name(aside.name + suffix))
    return aside


def open_cache_store(path: Path, warn: WarnFn | None = None, connected: bool = False) -> sqlite3.Connection:
    """Open (or create) the cache store at ``path``, checked and stamped; a damaged one is moved aside and rebuilt.

    One warning per rebuild, naming the file and the reason. A file lock makes the check-and-replace atomic between
    processes, so two xdist workers never both move a store aside (the second finds the fresh one healthy). An
    unstamped store with the expected tables is a cache from before the stamp: it is adopted, not thrown away.
    """
    from filelock import FileLock

    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path.with_name(path.name + ".lock"))):
        problem = _store_problem(path, connected)
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
    """The one connection to a cache store file, shared by every cache of this process that uses the file.

    It heals itself: a read or write that finds the file damaged moves it aside, warns once and carries on with an
    empty store (a cache miss costs time, never a wrong number).
    """

    _shared: ClassVar[weakref.WeakValueDictionary[str, CacheStore]] = weakref.WeakValueDictionary()
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, path: Path, warn: WarnFn | None = None) -> None:
        self.path = Path(path)
        self._warn = warn or _warn
        self._lock = threading.RLock()
        self._users = 0
        self._db: sqlite3.Connection | None = open_cache_store(self.path, self._warn)

    @classmethod
    def at(cls, path: Path, warn: WarnFn | None = None) -> CacheStore:
        """The shared store for ``path``, opened and checked now.

        An existing handle is checked again and reconnected, exactly as a new one would be: between two sessions
        of one process (pytester) the file may have been replaced or damaged, and a handle must never keep
        reading a file that is no longer the store.
        """
        key = str(Path(path).resolve())
        with cls._shared_lock:
            store = cls._shared.get(key)
            if store is None:
                store = cls._shared[key] = cls(Path(path), warn)
            else:
                if warn is not None:
                    store._warn = warn
                store.reopen()
        return store

    @property
    def db(self) -> sqlite3.Connection:
        with self._lock:
            if self._db is None:
                self._db = open_cache_store(self.path, self._warn)
            return self._db

    def reopen(self) -> None:
        """Check the file and connect anew. The old connection is closed only after the check: closing the last
        connection of a WAL store checkpoints its log into the file, which would paper over whatever replaced or
        damaged the file meanwhile (the check would then pass on a half-rewritten file)."""
        with self._lock:
            old, self._db = self._db, open_cache_store(self.path, self._warn, connected=self._db is not None)
            if old is not None:
                with contextlib.suppress(sqlite3.Error):
                    old.close()

    def _disconnect(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None

    def _recover(self, exc: sqlite3.DatabaseError) -> None:
        from filelock import FileLock

        self._disconnect()
        with FileLock(str(self.path.with_name(self.path.name + ".lock"))):
            if _store_problem(self.path) is not None:  # else another process has already replaced it
                aside = _move_aside(self.path)
                self._warn(
                    f"cache store {self.path} failed while in use ({exc}); moved it to {aside.name} and started an "
                    "empty one"
                )
        self._db = open_cache_store(self.path, self._warn)

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[Any] | None:
        """The rows of one query; None when the store turned out damaged (it is then replaced by an empty one)."""
        with self._lock:
            try:
                return self.db.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                self._recover(exc)
                return None

    def write(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Insert rows in one transaction; on a damaged store, once more into the fresh one that replaced it."""
        rows = list(rows)
        with self._lock:
            try:
                self.db.executemany(sql, rows)
                self.db.commit()
            except sqlite3.DatabaseError as exc:
                self._recover(exc)
                self.db.executemany(sql, rows)
                self.db.commit()

    def attach(self) -> None:
        with self._lock:
            self._users += 1

    def release(self) -> None:
        """One cache is done with the store; the last one closes the connection."""
        with self._lock:
            self._users = max(0, self._users - 1)
            if self._users == 0:
                self._disconnect()


class CacheView:
    """A cache over one table of the store. Give it the store, or a path to share that file's store."""

    def __init__(self, store: CacheStore | Path | str, warn: WarnFn | None = None) -> None:
        self.store = store if isinstance(store, CacheStore) else CacheStore.at(Path(store), warn)
        self.store.attach()

    @property
    def path(self) -> Path:
        return self.store.path

    @property
    def _db(self) -> sqlite3.Connection:  # the raw connection, for tests that damage the store behind its back
        return self.store.db

    def _warn(self, message: str) -> None:
        self.store._warn(message)

    def close(self) -> None:
        self.store.release()


class EmbeddingCache(CacheView):
    """A small SQLite store of float32 vectors by (model, text hash).

    SQLite because it is in the standard library, safe for several pytest-xdist workers at once, and one file
    that can be deleted to start cold. Every vector read is checked (length against its stored dimension, finite
    values): a damaged one is dropped with a warning and embedded again, never stacked into a wrong matrix.
    """

    def _select(self, columns: str, model: str, keys: Sequence[str]) -> list[Any] | None:
        """``columns`` of the rows of ``keys`` under ``model``, 500 keys per query (SQLite's bound on variables);
        None when the store turned out damaged (it is now empty)."""
        rows: list[Any] = []
        for i in range(0, len(keys), 500):
            batch = list(keys[i : i + 500])
            marks = ",".join("?" * len(batch))
            sql = f"SELECT {columns} FROM vectors WHERE model = ? AND key IN ({marks})"
            part = self.store.read(sql, [model, *batch])
            if part is None:
                return None
            rows.extend(part)
        return rows

    def has_many(self, model: str, keys: Sequence[str]) -> set[str]:
        """Which of ``keys`` the store holds a vector for, without reading the vectors: a streamed build counts its
        work first and reads each window's vectors when it gets there (:meth:`get_many` checks each one then)."""
        return {key for (key,) in self._select("key", model, keys) or ()}

    def get_many(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        bad: list[str] = []
        rows = self._select("key, dim, vec", model, keys)
        if rows is None:  # the store was damaged and is now empty
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
        self.store.write("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)


def _vector_problem(dim: Any, blob: Any) -> str | None:
    """Why a stored (dim, blob) pair is not a float32 vector of that dimension (None when it is)."""
    if not isinstance(dim, int) or dim <= 0:
        return f"dimension {dim!r}"
    if not isinstance(blob, bytes) or len(blob) != 4 * dim:
        return f"{len(blob) if isinstance(blob, bytes) else type(blob).__name__} bytes for dimension {dim}"
    if not np.isfinite(np.frombuffer(blob, dtype=np.float32)).all():
        return "non-finite values"
    return None
