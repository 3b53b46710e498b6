"""Streamed builds: a corpus is embedded and written a window at a time, and the table is the one a single batch
gives.

The embedder here is ``FakeSentenceModel`` (a named stand-in that counts what it is asked to embed): these tests
prove the order, the counts and the memory shape of the stream, never a retrieval result. The tables are real
LanceDB tables.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fake_model import FakeSentenceModel, fake_embedder
from project_files import run

from pytest_chunkeval.retrieval import embed as embed_module
from pytest_chunkeval.retrieval.embed import Embedder
from pytest_chunkeval.retrieval.heap import release_heap
from pytest_chunkeval.retrieval.index import IndexStore
from pytest_chunkeval.retrieval.table_rows import Row, arrow_payload_bytes

TEXTS = [f"def handler_{i}(request):\n    return respond(request, {'x' * (i % 7)})\n" for i in range(23)]


def test_windows_come_in_order_and_equal_one_matrix(tmp_path: Path) -> None:
    emb, fake = fake_embedder(tmp_path)
    emb.cache = None
    counts, windows = emb.stream(TEXTS, window=5)
    parts = list(windows)
    assert [len(p) for p in parts] == [5, 5, 5, 5, 3]
    whole, _ = Embedder(emb.name_or_path, cache=None, _model=FakeSentenceModel()).encode(TEXTS)
    assert np.array_equal(np.concatenate(parts), whole)
    assert (counts.embedded, counts.cached) == (23, 0)
    assert sorted(fake.seen) == sorted(TEXTS)


def test_a_text_repeated_in_later_windows_is_embedded_once_without_a_cache(tmp_path: Path) -> None:
    emb, fake = fake_embedder(tmp_path)
    emb.cache = None
    texts = ["a", "bb", "ccc", "a", "dddd", "bb", "a"]
    _, windows = emb.stream(texts, window=2)
    vectors = np.concatenate(list(windows))
    assert sorted(fake.seen) == ["a", "bb", "ccc", "dddd"]
    assert vectors[:, 0].tolist() == [len(t) for t in texts]


def test_counts_are_known_before_anything_is_embedded(tmp_path: Path) -> None:
    emb, fake = fake_embedder(tmp_path)
    emb.encode(TEXTS[:10])
    seen = len(fake.seen)
    started: list[tuple[int, int]] = []
    advanced: list[int] = []

    def progress(todo: int, cached: int):  # type: ignore[no-untyped-def]
        started.append((todo, cached))
        return advanced.append

    counts, windows = emb.stream(TEXTS, progress, window=4)
    assert started == [(13, 10)] and len(fake.seen) == seen  # told first, nothing embedded yet
    next(windows)
    assert len(fake.seen) == seen  # the first window (4 texts) was all cached
    list(windows)
    assert sum(advanced) == 13 and (counts.embedded, counts.cached) == (13, 10)


def test_a_damaged_cached_vector_is_embedded_again_and_counted_so(tmp_path: Path) -> None:
    emb, fake = fake_embedder(tmp_path)
    emb.encode(["alpha", "beta"])
    key = embed_module.text_key("beta")
    assert emb.cache is not None
    emb.cache._db.execute("UPDATE vectors SET vec = ? WHERE key = ?", (b"\x00\x01", key))
    emb.cache._db.commit()
    with pytest.warns(UserWarning, match="damaged cached vector"):
        counts, windows = emb.stream(["alpha", "beta", "gamma"], window=2)
        vectors = np.concatenate(list(windows))
    assert (counts.embedded, counts.cached) == (2, 1)
    assert fake.seen[-2:] in (["beta", "gamma"], ["gamma", "beta"])
    assert vectors[:, 0].tolist() == [5, 4, 5]


ROWS = [Row(f"f{i}.py#0", f"f{i}.py", 1, 2 + i, TEXTS[i]) for i in range(len(TEXTS))]
VECTORS = np.random.default_rng(3).standard_normal((len(ROWS), 8)).astype(np.float32)


def test_a_table_built_in_batches_is_the_table_built_at_once(tmp_path: Path) -> None:
    store = IndexStore(str(tmp_path / "db"), tmp_path / "locks")
    store.build("whole", ROWS, VECTORS)
    store.build_batches("parts", ((ROWS[i : i + 6], VECTORS[i : i + 6]) for i in range(0, len(ROWS), 6)))
    whole, parts = (store.db.open_table(n) for n in ("whole", "parts"))
    assert parts.to_arrow().equals(whole.to_arrow())  # same rows, same order, same vectors
    assert len(parts.list_versions()) == 1  # appends compacted, older versions dropped: the size is honest
    # The size summed while writing is the size read back from the committed version.
    assert store.size_bytes("parts") == arrow_payload_bytes(parts.to_arrow()) == store.size_bytes("whole")
    assert store.problem("parts", len(ROWS)) is None  # full-text index there and readable
    for mode in ("vector", "fts", "hybrid"):
        query = "handler request respond"
        assert store.search("parts", VECTORS[4], query, mode, 10) == store.search("whole", VECTORS[4], query, mode, 10)


def test_no_batch_gives_an_empty_table(tmp_path: Path) -> None:
    store = IndexStore(str(tmp_path / "db"), tmp_path / "locks")
    store.build_batches("empty", iter(()))
    assert store.db.open_table("empty").count_rows() == 0 and store.size_bytes("empty") == 0


def test_every_embedding_batch_gives_the_heap_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(embed_module, "release_heap", lambda: calls.append(1) or True)
    emb, _ = fake_embedder(tmp_path)
    emb.batch_size = 4
    emb.encode(TEXTS)
    assert len(calls) == 6  # 23 texts in batches of 4
    assert isinstance(release_heap(), bool)  # the real one: callable here, whatever the C library


@pytest.mark.slow
def test_a_corpus_streamed_in_windows_of_two_gives_the_report_of_one_window(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real model and real tables on a small project, each run cold in its own cache and database, with the
    items in their collected order (pytest-randomly off): on a cold cache the strategy evaluated second finds the
    texts it shares with the first already embedded, and the report counts which strategy embedded what."""
    import json

    from pytest_chunkeval.evaluation import evaluate

    def report(name: str) -> dict:  # type: ignore[type-arg]
        result = run(project, f"--chunkeval-report={name}.json", "-o", f"chunkeval_cache_dir={name}-cache",
                     f"--chunkeval-db={name}-db", "-p", "no:randomly")
        result.assert_outcomes(passed=9, skipped=5)
        data = json.loads((project.path / f"{name}.json").read_text())
        for suite in data["suites"].values():
            for s in suite["strategies"].values():  # how long the build took, not what it built
                for key in ("build_seconds", "chunk_seconds", "cost"):
                    s.get("index", {}).pop(key, None)
        return {k: v for k, v in data.items() if k not in ("created", "machine", "embedding", "options")}

    whole = report("whole")
    monkeypatch.setattr(evaluate, "STREAM_WINDOW", 2)
    windows = report("windows")
    assert windows == whole


def test_a_build_interrupted_between_windows_is_rebuilt_next_run_with_one_warning(tmp_path: Path) -> None:
    from pytest_chunkeval.retrieval.table_identity import TableIdentity

    identity = TableIdentity.of(tmp_path / "golden" / "shop" / "queries.yaml", "fixed_size", "f" * 20, label="shop")

    def killed_after_one_window():  # type: ignore[no-untyped-def]
        yield ROWS[:6], VECTORS[:6]
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        IndexStore(str(tmp_path / "db"), tmp_path / "locks").ensure(identity, len(ROWS), killed_after_one_window)
    warned: list[str] = []
    store = IndexStore(str(tmp_path / "db"), tmp_path / "locks", warn=warned.append)
    assert store.ensure(identity, len(ROWS), lambda: [(ROWS, VECTORS)]) is False  # rebuilt
    assert len(warned) == 1 and identity.name in warned[0] and "its build did not finish" in warned[0]
    assert store.ensure(identity, len(ROWS), lambda: [(ROWS, VECTORS)]) is True and len(warned) == 1
    assert store.db.open_table(identity.name).count_rows() == len(ROWS)
