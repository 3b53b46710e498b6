"""LanceDB tables: one per (suite, strategy, fingerprint), with vectors and a full-text index over split identifiers.

Tables live in an embedded database (``.chunkeval/lancedb``) or any LanceDB URI. Each is named and recorded by its
:class:`~.table_identity.TableIdentity`; the table of the current identity is reused as is, and building takes a file
lock per (suite, strategy) so parallel workers never build the same table twice.
"""
from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from pytest_chunkeval.core.vocabulary import FTS, RETRIEVAL_MODES, VECTOR
from pytest_chunkeval.retrieval.cache_store import CacheView, CacheWarning, WarnFn
from pytest_chunkeval.retrieval.heap import release_heap
from pytest_chunkeval.retrieval.identifiers import split_words
from pytest_chunkeval.retrieval.index_clean import CleanResult, clean
from pytest_chunkeval.retrieval.storage import StorageOptions, connect, is_local, redact_uri
from pytest_chunkeval.retrieval.table_identity import TableIdentity, is_legacy_name, read_record
from pytest_chunkeval.retrieval.table_rows import Batch, Hit, Row, arrow_batch, arrow_payload_bytes

os.environ.setdefault("LANCEDB_LOG", "error")


#: Bump when anything changes what :meth:`IndexStore.search` returns for a table (modes, reranker, tie handling):
#: cached rankings are keyed by it, so they are never served across a change of the search code.
SEARCH_VERSION = "1"


@lru_cache(maxsize=1)
def lancedb_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lancedb")
    except PackageNotFoundError:
        return "unknown"


class RankingCache(CacheView):
    """Search results by (table, mode, depth, query text), in the cache store beside the embeddings.

    A table name carries the fingerprint of everything that feeds it, and search over a fixed table is
    deterministic, so a re-run can skip the database entirely; that is most of a warm run's time otherwise. The key
    also holds the LanceDB version and :data:`SEARCH_VERSION`: a new LanceDB (its BM25 or RRF) or new search code
    may rank differently, and a cached ranking must never stand in for that.
    """

    @staticmethod
    def key(table: str, mode: str, depth: int, text: str) -> str:
        import hashlib

        parts = [table, mode, str(depth), text, lancedb_version(), SEARCH_VERSION]
        return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()

    def get(self, key: str) -> list[Hit] | None:
        """The cached hits, or None when there are none or the stored value is not a list of [id, score] pairs."""
        import json

        rows = self.store.read("SELECT hits FROM rankings WHERE key = ?", (key,))
        row = rows[0] if rows else None
        if row is None:
            return None
        try:
            return [Hit(str(cid), float(score)) for cid, score in json.loads(row[0])]
        except (TypeError, ValueError) as exc:
            self._warn(f"cache store {self.path}: dropped a damaged cached ranking ({exc}); searching again")
            return None

    def put_many(self, items: list[tuple[str, list[Hit]]]) -> None:
        import json

        rows = [(k, json.dumps([[h.chunk_id, h.score] for h in hits])) for k, hits in items]
        self.store.write("INSERT OR REPLACE INTO rankings VALUES (?, ?)", rows)


def _short_error(exc: BaseException) -> str:
    """An exception in one line, without the Rust source locations Lance appends to its messages."""
    text = " ".join(str(exc).split())
    text = re.sub(r",? /(rustc|root|home)/\S+\.rs:\d+:\d+\S*", "", text)
    return f"{type(exc).__name__}: {text[:300]}"


class IndexStore:
    """The database connection plus everything about its tables: naming, locking, reuse, cleanup, search.

    Tables are named and recorded by :class:`TableIdentity`; building one holds a file lock per (suite, strategy)
    in ``lock_dir``, so parallel workers never build the same table twice or drop one another is building.

    ``uri`` is a folder or any LanceDB URI (:mod:`.storage`); ``storage`` its options. Nothing here assumes a local
    folder except :meth:`drop`'s fallback for a damaged local table. The lock is a file on this machine: workers of
    one machine share it; two machines building the same table at once both build it (identical content; the later
    commit wins).
    """

    def __init__(self, uri: str, lock_dir: Path, warn: WarnFn | None = None,
                 storage: StorageOptions | None = None) -> None:
        self.uri = uri
        self.lock_dir = lock_dir
        self.storage = storage or StorageOptions()
        self._db: Any = None
        self._warn_raw = warn or (lambda message: warnings.warn(CacheWarning(message), stacklevel=4))
        self._sizes: dict[str, int] = {}

    def _warn(self, message: str) -> None:
        """Warn with every storage secret removed from the message (Lance errors can quote a request)."""
        self._warn_raw(self.storage.scrub(message))

    @property
    def shown_uri(self) -> str:
        """The URI as it may be printed: without user info or query."""
        return redact_uri(self.uri)

    @property
    def local(self) -> bool:
        return is_local(self.uri)

    @property
    def db(self) -> Any:
        if self._db is None:
            self._db = connect(self.uri, self.storage)
        return self._db

    def _names(self) -> set[str]:
        names: set[str] = set()
        token = None
        while True:
            listing = self.db.list_tables(page_token=token)
            names.update(getattr(listing, "tables", listing))
            token = getattr(listing, "page_token", None)
            if not token:
                return names

    @contextmanager
    def locked(self, key: str) -> Iterator[None]:
        """Hold the lock of one (suite, strategy) (:attr:`TableIdentity.key`), or of a table name without one."""
        from filelock import FileLock

        self.lock_dir.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.lock_dir / f"{key}.lock")):
            yield

    def exists(self, name: str) -> bool:
        """Whether table ``name`` is there with its full-text index. Damage is not absence: a table that cannot be
        read raises (:meth:`verify` is what judges and replaces damaged tables)."""
        if name not in self._names():
            return False
        try:
            tbl = self.db.open_table(name)
        except ValueError as exc:  # dropped between the listing and the opening: LanceDB's "Table ... not found"
            if "not found" in str(exc):
                return False
            raise
        return any(getattr(i, "index_type", "") == "FTS" for i in tbl.list_indices())

    def problem(self, name: str, expected_rows: int | None = None, identity: TableIdentity | None = None) -> str | None:
        """Why the existing table ``name`` cannot be served as is (None: it can).

        Opening a table and counting its rows read only the manifest, so a truncated data file or a damaged FTS
        index file would surface later as raw Lance errors in every item, or not at all when the rankings come
        from the cache. Reading every row (which also gives :meth:`size_bytes` its figure) and one full-text probe
        load every file the searches need. With ``identity``, the table must also record that identity.
        """
        try:
            tbl = self.db.open_table(name)
            if identity is not None:
                found = read_record(tbl.schema.metadata)
                if found != identity:
                    return f"it records {found.describe() if found else 'no identity'}, not {identity.describe()}"
            if not any(getattr(i, "index_type", "") == "FTS" for i in tbl.list_indices()):
                return "it has no full-text index: its build did not finish"
            data = tbl.to_arrow()
            if expected_rows is not None and data.num_rows != expected_rows:
                return f"it has {data.num_rows} rows, its chunks are {expected_rows}"
            tbl.search("chunkevalprobe", query_type="fts").limit(1).select(["chunk_id"]).to_list()
        except Exception as exc:  # Lance raises RuntimeError/OSError/ValueError, by where the damage is
            return _short_error(exc)
        self._sizes[name] = arrow_payload_bytes(data)
        return None

    def verify(self, name: str, expected_rows: int | None = None, identity: TableIdentity | None = None) -> bool:
        """True when table ``name`` exists and is healthy; a damaged one is dropped with one warning (then False)."""
        if name not in self._names():
            return False
        problem = self.problem(name, expected_rows, identity)
        if problem is None:
            return True
        self.drop(name)
        self._warn(f"LanceDB table {name} in {self.shown_uri} is damaged ({problem}); dropped it to rebuild it")
        return False

    def ensure(
        self, identity: TableIdentity, expected_rows: int, make: Callable[[], Iterable[Batch]]
    ) -> bool:
        """Make sure the table of ``identity`` is there and healthy; True when it was reused as it was.

        Otherwise ``make`` gives its rows and vectors as batches (it embeds, so it is called only when needed, and
        each batch is written before the next is made), the table is built and the older builds of the same
        (suite, strategy) are dropped: only the current one is worth the disk.
        """
        with self.locked(identity.key):
            if self.verify(identity.name, expected_rows, identity):
                return True
            self.build_batches(identity.name, make(), identity)
            self.drop_superseded(identity)
        return False

    def drop(self, name: str) -> None:
        """Remove a table, by hand when LanceDB cannot (a damaged manifest can make ``drop_table`` fail)."""
        self._sizes.pop(name, None)
        try:
            self.db.drop_table(name)
        except Exception:
            if not self.local:
                raise
        if self.local:
            import shutil

            shutil.rmtree(self._folder(name), ignore_errors=True)

    def _folder(self, name: str) -> Path:
        return Path(self.uri.removeprefix("file://")) / f"{name}.lance"

    def build(self, name: str, rows: Sequence[Row], vectors: np.ndarray, identity: TableIdentity | None = None) -> None:
        """:meth:`build_batches` with everything in one batch."""
        self.build_batches(name, [(rows, vectors)], identity)

    def build_batches(self, name: str, batches: Iterable[Batch], identity: TableIdentity | None = None) -> None:
        """Create the table from ``batches`` in order, add its FTS index, compact it and drop old versions so its
        size is honest.

        Each batch is appended as it comes, so a corpus is never held as one Arrow table (nor its vectors as one
        matrix); compaction then rewrites the appended fragments in order. The size is summed batch by batch as
        the rows are written (:func:`arrow_payload_bytes` counts row by row, so the sum is the committed table's
        figure without reading it back). ``identity`` is recorded in the table's schema metadata, for cleanup and
        reports to read.
        """
        from lancedb.index import FTS

        self._sizes.pop(name, None)
        tbl: Any = None
        size = 0
        for rows, vectors in batches:
            if tbl is not None and not len(rows):
                continue
            data = arrow_batch(rows, vectors, identity)
            size += arrow_payload_bytes(data)
            if tbl is None:
                tbl = self.db.create_table(name, data=data, mode="overwrite")
            else:
                tbl.add(data)
            del data
        if tbl is None:  # no batch at all: an empty table, as one empty batch gives
            tbl = self.db.create_table(name, data=arrow_batch([], np.zeros((0, 1), np.float32), identity),
                                       mode="overwrite")
        # Code is not English prose: stemming and stop-word removal would merge or drop identifiers.
        tbl.create_index(
            "words",
            config=FTS(with_position=False, stem=False, remove_stop_words=False, lower_case=True, ascii_folding=False),
            replace=True,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tbl.optimize(cleanup_older_than=timedelta(0))
        self._sizes[name] = size
        release_heap()  # the Arrow and index-building buffers just freed

    def size_bytes(self, name: str) -> int:
        """The table's size as its Arrow payload: the bytes of every column of the committed version's rows.

        Why not bytes on disk: Lance's file writer does not produce byte-identical files for identical input (six
        builds of one table give data files from 171,913 to 175,177 bytes), ``stats()['total_bytes']`` reads those
        same files, and a folder walk also counts whatever else lies there (``data/.tmp*`` left by a killed
        ``create_table``, old ``_versions/``). A gate must give the same verdict on the same input, so the measure
        is a function of the content alone: the rows the latest version's manifest lists, as Arrow arrays (strings'
        offsets and bytes, 4 bytes per vector component, ...). It is identical across runs and machines; the FTS
        index, derived from the ``words`` column, is not counted separately.
        """
        if name not in self._sizes:
            self._sizes[name] = arrow_payload_bytes(self.db.open_table(name).to_arrow())
        return self._sizes[name]

    def drop_superseded(self, identity: TableIdentity) -> list[str]:
        """Drop the other builds of ``identity``'s (suite, strategy), by their records, and the tables an older
        pytest-chunkeval named for it; the names of those dropped."""
        dropped = []
        for other in sorted(self._names() - {identity.name}):
            mine = identity.key in other  # cheap filters; the record decides
            legacy = is_legacy_name(other) and other[: -len("__") - 20] == identity.legacy_name_prefix
            if not (mine or legacy):
                continue
            try:
                found = read_record(self.db.open_table(other).schema.metadata)
            except (OSError, RuntimeError, ValueError):  # damaged: left to verify() or --chunkeval-clean
                continue
            ours = found.key == identity.key if found is not None else legacy
            if not ours:
                continue
            self.drop(other)
            dropped.append(other)
        return dropped

    def clean(self, strategies: set[str] | None = None, root: Path | None = None) -> CleanResult:
        """Drop the tables nothing will reuse and old versions of the rest (:func:`index_clean.clean`)."""
        return clean(self, strategies, root)

    def search(self, name: str, vector: np.ndarray, text: str, mode: str, depth: int) -> list[Hit]:
        """Top ``depth`` chunks with a score where higher is better, in the database's order."""
        tbl = self.db.open_table(name)
        words = split_words(text)
        if mode not in RETRIEVAL_MODES:
            raise ValueError(f"unknown retrieval mode {mode!r}; choose one of {', '.join(RETRIEVAL_MODES)}")
        if mode == FTS and not words:
            return []
        # A query with no word characters has nothing for BM25: hybrid degrades to its vector half.
        if mode == VECTOR or not words:
            res = (
                tbl.search(vector, query_type="vector").distance_type("cosine").limit(depth).select(["chunk_id"])
                .to_list()
            )
            return [Hit(r["chunk_id"], 1.0 - float(r["_distance"])) for r in res]
        if mode == FTS:
            res = tbl.search(words, query_type="fts").limit(depth).select(["chunk_id"]).to_list()
            return [Hit(r["chunk_id"], float(r["_score"])) for r in res]
        from lancedb.rerankers import RRFReranker

        res = (
            tbl.search(query_type="hybrid")
            .vector(vector)
            .text(words)
            .distance_type("cosine")
            .rerank(RRFReranker())
            .limit(depth)
            .select(["chunk_id"])
            .to_list()
        )
        return [Hit(r["chunk_id"], float(r["_relevance_score"])) for r in res]
