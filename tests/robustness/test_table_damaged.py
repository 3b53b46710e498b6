"""A LanceDB table that is listed but damaged (truncated data file, damaged FTS index file, wrong row count) is
dropped with one warning naming the table and the reason, so the evaluation rebuilds it instead of failing every
item with a raw Lance error or, worse, serving cached rankings over a broken table.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from pytest_chunkeval.retrieval.cache_store import CacheWarning
from pytest_chunkeval.retrieval.index import IndexStore
from pytest_chunkeval.retrieval.table_rows import Row

ROWS = [Row(f"f{i}.py#0", f"f{i}.py", 1, 2, f"def handler_{i}(request):\n    return {i}\n" * 3) for i in range(10)]


def _built(tmp_path: Path) -> tuple[IndexStore, Path]:
    store = IndexStore(str(tmp_path / "db"), tmp_path / "locks")
    store.build("avap__fixed_size__0123", ROWS, np.random.default_rng(1).standard_normal((10, 8)).astype(np.float32))
    return store, tmp_path / "db" / "avap__fixed_size__0123.lance"


def _verify(store: IndexStore, rows: int = len(ROWS)) -> tuple[bool, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ok = store.verify("avap__fixed_size__0123", expected_rows=rows)
    return ok, [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def test_healthy_table_is_served_without_a_word(tmp_path: Path) -> None:
    store, _ = _built(tmp_path)
    assert _verify(store) == (True, [])


@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda t: _truncate(next((t / "data").glob("*.lance"))), "failed to fill whole buffer"),
        (lambda t: _truncate(next(t.rglob("part_0_invert.lance"))), "Invalid range"),
        (lambda t: next(t.rglob("part_0_tokens.lance")).write_bytes(b"garbage" * 50), "Invalid range"),
        (lambda t: next(t.rglob("metadata.lance")).unlink(), "RuntimeError"),
    ],
    ids=["truncated-data", "truncated-fts-postings", "garbage-fts-tokens", "missing-fts-metadata"],
)
def test_damaged_table_is_dropped_with_one_warning(tmp_path: Path, damage, reason: str) -> None:
    store, folder = _built(tmp_path)
    damage(folder)
    ok, messages = _verify(store)
    assert not ok
    assert len(messages) == 1, messages
    assert "avap__fixed_size__0123" in messages[0] and reason in messages[0] and "/rustc/" not in messages[0]
    assert not folder.exists()
    assert _verify(store) == (False, [])  # gone, so the caller builds it afresh


def test_row_count_not_matching_the_chunks_is_damage(tmp_path: Path) -> None:
    store, _ = _built(tmp_path)
    ok, messages = _verify(store, rows=11)
    assert not ok and len(messages) == 1 and "10 rows, its chunks are 11" in messages[0], messages
