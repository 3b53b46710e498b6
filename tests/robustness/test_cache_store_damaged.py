"""A damaged or outdated cache store (``.chunkeval/cache.sqlite``) is detected when opened, moved aside and rebuilt,
once; the embedding and ranking caches share one handle on it.

Real SQLite files, no model: what matters is what the store does with the bytes it finds.
"""
from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path

import numpy as np
import pytest

from pytest_chunkeval.retrieval.cache_store import (
    CACHE_APPLICATION_ID,
    CACHE_SCHEMA_VERSION,
    CacheWarning,
    EmbeddingCache,
)
from pytest_chunkeval.retrieval.index import RankingCache
from pytest_chunkeval.retrieval.table_rows import Hit


def _open_both(path: Path) -> list[str]:
    """Open the store the way a session does (embeddings, then rankings); return the warnings raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vectors, rankings = EmbeddingCache(path), RankingCache(path)
        vectors.put_many("m", [("k", np.ones(4, dtype=np.float32))])
        rankings.put_many([("q", [Hit("a#0", 0.5)])])
        assert vectors.get_many("m", ["k"])["k"].tolist() == [1.0] * 4
        assert rankings.get("q") == [Hit("a#0", 0.5)]
        vectors.close()
        rankings.close()
    return [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]


def _aside(path: Path) -> list[Path]:
    return sorted(p for p in path.parent.iterdir() if p.name.startswith(path.name + ".damaged-"))


def _filled(path: Path, n: int = 2000) -> None:
    cache = EmbeddingCache(path)
    rng = np.random.default_rng(0)
    cache.put_many("m", [(f"k{i}", rng.standard_normal(384).astype(np.float32)) for i in range(n)])
    cache._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    cache.close()


def test_garbage_file_is_moved_aside_with_one_warning(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"this is not a database\n" * 200)
    messages = _open_both(path)
    assert len(messages) == 1, messages
    assert str(path) in messages[0] and "not an SQLite database" in messages[0]
    assert [p.read_bytes()[:22] for p in _aside(path)] == [b"this is not a database"]


def test_truncated_file_is_moved_aside_with_one_warning(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    _filled(path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    messages = _open_both(path)
    assert len(messages) == 1, messages
    assert str(path) in messages[0] and "truncated" in messages[0]


@pytest.mark.parametrize(
    "pragma, reason",
    [("application_id = 1234", "not a chunkeval cache"), ("user_version = 99", "cache schema version 99")],
)
def test_foreign_or_future_store_is_not_used(tmp_path: Path, pragma: str, reason: str) -> None:
    path = tmp_path / "cache.sqlite"
    _filled(path, 3)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA {pragma}")
    db.commit()
    db.close()
    messages = _open_both(path)
    assert len(messages) == 1 and reason in messages[0], messages


def test_unstamped_store_from_before_the_stamp_is_adopted_without_loss(tmp_path: Path) -> None:
    """Caches written before the stamp existed hold hours of embeddings: same tables, so kept and stamped."""
    path = tmp_path / "cache.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT, key TEXT, dim INTEGER, vec BLOB, PRIMARY KEY (model, key))")
    db.execute("INSERT INTO vectors VALUES ('old', 'x', 2, ?)", (np.array([3, 4], dtype=np.float32).tobytes(),))
    db.commit()
    db.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cache = EmbeddingCache(path)
        assert cache.get_many("old", ["x"])["x"].tolist() == [3.0, 4.0]
        cache.close()
    assert sqlite3.connect(path).execute("PRAGMA application_id").fetchone()[0] == CACHE_APPLICATION_ID
    assert _aside(path) == []


def test_healthy_store_reopens_silently_with_its_data(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    assert _open_both(path) == []
    assert _open_both(path) == []
    assert _aside(path) == []


def test_store_damaged_while_in_use_is_replaced_and_reads_miss(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    _filled(path)
    cache = EmbeddingCache(path)
    data = bytearray(path.read_bytes())
    data[4096 * 3 : 4096 * 40] = b"\x5a" * (4096 * 37)  # scribble over pages behind SQLite's back
    path.write_bytes(bytes(data))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = cache.get_many("m", [f"k{i}" for i in range(2000)])
    messages = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    assert len(messages) == 1 and str(path) in messages[0], messages
    assert len(found) < 2000
    cache.put_many("m", [("new", np.ones(3, dtype=np.float32))])
    assert "new" in cache.get_many("m", ["new"])


def test_both_caches_share_one_handle_and_closing_one_keeps_the_other(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    vectors, rankings = EmbeddingCache(path), RankingCache(path)
    assert vectors.store is rankings.store and vectors._db is rankings._db
    vectors.close()
    rankings.put_many([("q", [Hit("a#0", 0.5)])])
    assert rankings.get("q") == [Hit("a#0", 0.5)]
    rankings.close()


def test_store_of_another_schema_version_is_rebuilt_with_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pytest-chunkeval whose cache tables changed shape bumps the version: the old store is set aside, once."""
    from pytest_chunkeval.retrieval import cache_store

    path = tmp_path / "cache.sqlite"
    _filled(path, 3)
    monkeypatch.setattr(cache_store, "CACHE_SCHEMA_VERSION", CACHE_SCHEMA_VERSION + 1)
    messages = _open_both(path)
    assert len(messages) == 1, messages
    assert f"cache schema version {CACHE_SCHEMA_VERSION}, this pytest-chunkeval uses {CACHE_SCHEMA_VERSION + 1}" in messages[0]
    assert len(_aside(path)) == 1
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == CACHE_SCHEMA_VERSION + 1
    assert db.execute("SELECT count(*) FROM vectors WHERE key IN ('k0', 'k1', 'k2')").fetchone()[0] == 0
    db.close()
    assert _open_both(path) == []  # the rebuilt store is healthy: no second warning


def test_a_store_that_is_short_only_for_a_moment_is_not_moved_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another process's checkpoint can write the header's new page count just before the pages that extend the
    file; a store seen short once and whole a moment later is in use, not truncated, and moving it aside would break
    the writer's connection."""
    import pytest_chunkeval.retrieval.cache_store as cache_store

    path = tmp_path / "cache.sqlite"
    _filled(path)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    monkeypatch.setattr(cache_store.time, "sleep", lambda seconds: path.write_bytes(whole))  # the checkpoint ends
    assert cache_store._store_problem(path) is None
    assert _open_both(path) == [] and _aside(path) == []


def test_reopening_a_store_this_process_holds_never_opens_its_file_outside_sqlite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Closing any descriptor of the database file drops the process's POSIX locks on it, its SQLite connection's
    too; another process closing its connection then thinks it is the last, checkpoints and deletes the WAL under
    this one. A second cache of a session (rankings after vectors) reopens the shared store: no raw open then."""
    import pytest_chunkeval.retrieval.cache_store as cache_store

    path = tmp_path / "cache.sqlite"
    vectors = EmbeddingCache(path)
    vectors.put_many("m", [("k", np.ones(4, dtype=np.float32))])
    opened: list[str] = []
    real_open = Path.open

    def watch(self: Path, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if self.resolve() == path.resolve():
            opened.append(str(self))
        return real_open(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "open", watch)
    rankings = RankingCache(path)  # the store is shared: this reopens it while vectors' connection is open
    assert opened == []
    assert vectors.get_many("m", ["k"])["k"].tolist() == [1.0] * 4
    rankings.close()
    vectors.close()
    assert cache_store._store_problem(path) is None and opened == [str(path)] * len(opened) and opened  # closed: read
