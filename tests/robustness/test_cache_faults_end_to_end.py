"""Garbage in ``.chunkeval/cache.sqlite`` and a truncated table file, end to end with the real model: one warning
each naming the file or table and why, everything rebuilt, exit 0, metrics identical to the clean run.
"""
from __future__ import annotations

import json

import lancedb  # noqa: F401  (imported once, outside the in-process runs: see tests/conftest.py)
import pytest
import sentence_transformers  # noqa: F401
from project_files import SHOP_CORPUS, name_suites, write_strategies, write_suite

pytestmark = pytest.mark.slow

STRATEGY = """
    from pytest_chunkeval import FixedSizeChunker, FileLevelChunker, strategy

    @strategy
    def file_level():
        return FileLevelChunker()

    @strategy
    def fixed_size():
        return FixedSizeChunker(max_chunk_size=120, overlap=20)
"""
GOLDEN = """
    corpus: corpus
    queries:
      - id: password-hash
        query: How are user passwords hashed with a salt?
        relevant:
          - path: auth.py
      - id: order-total
        query: compute the total price of an order
        relevant:
          - path: orders.py
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    name_suites(pytester)
    write_strategies(pytester.path, {"both.py": STRATEGY})
    write_suite(pytester.path / "golden" / "shop", SHOP_CORPUS, GOLDEN)
    return pytester


def _metrics(p: pytest.Pytester) -> dict[str, object]:
    report = json.loads((p.path / ".chunkeval" / "chunkeval-report.json").read_text())
    strategies = report["suites"]["golden/shop/queries.yaml"]["strategies"]
    return {name: (s["aggregate"], s["index"]["bytes"], s["index"]["chunk_count"]) for name, s in strategies.items()}


def test_garbage_cache_store_and_truncated_table_are_rebuilt_once(project: pytest.Pytester) -> None:
    args = ("--chunkeval", "-p", "no:cacheprovider", "--chunkeval-no-progress", "-W", "always")
    clean = project.runpytest(*args)
    assert clean.ret == 0
    assert "CacheWarning" not in clean.stdout.str()
    expected = _metrics(project)

    store = project.path / ".chunkeval" / "cache.sqlite"
    for extra in (".chunkeval/cache.sqlite-wal", ".chunkeval/cache.sqlite-shm"):
        (project.path / extra).unlink(missing_ok=True)
    store.write_bytes(b"\x00garbage, not SQLite\n" * 500)
    table = next((project.path / ".chunkeval" / "lancedb").glob("shop__fixed_size__*.lance"))
    data_file = next((table / "data").glob("*.lance"))
    data_file.write_bytes(data_file.read_bytes()[: data_file.stat().st_size // 2])

    damaged = project.runpytest(*args)
    out = damaged.stdout.str()
    assert damaged.ret == 0, out[-3000:]
    store_warnings = [line for line in out.splitlines() if "CacheWarning: cache store" in line]
    table_warnings = [line for line in out.splitlines() if "CacheWarning: LanceDB table" in line]
    assert len(store_warnings) == 1 and str(store) in store_warnings[0]
    # In-process sessions (pytester) still hold the store from the clean run: SQLite reads the header then, not
    # Python (cache_store._store_problem, connected), and says it in its own words.
    assert "not an SQLite database" in store_warnings[0] or "file is not a database" in store_warnings[0]
    assert len(table_warnings) == 1 and table.name.removesuffix(".lance") in table_warnings[0]
    assert "failed to fill whole buffer" in table_warnings[0]
    assert len(out.splitlines()) < 200
    assert _metrics(project) == expected

    healed = project.runpytest(*args)
    assert healed.ret == 0 and "CacheWarning" not in healed.stdout.str()
    assert _metrics(project) == expected
