"""Index tables have one identity per (exact suite path, strategy name): no two suites or strategies share or drop
each other's tables, a second run reuses every table, and ``--chunkeval-clean`` drops only what nothing reuses.

The store-level tests use a real LanceDB with small made-up vectors; the end-to-end ones run pytest --chunkeval
through pytester with the real model on a tiny corpus.
"""
from __future__ import annotations

import json
from pathlib import Path

import lancedb  # noqa: F401  (imported once, outside the in-process runs: see tests/conftest.py)
import numpy as np
import pytest
import sentence_transformers  # noqa: F401
from project_files import SHOP_CORPUS, SHOP_GOLDEN, name_suites, write_strategies, write_suite

from pytest_chunkeval.retrieval.index import IndexStore
from pytest_chunkeval.retrieval.table_identity import TableIdentity, read_record, suite_id
from pytest_chunkeval.retrieval.table_rows import Row

ROWS = [Row("a.py#0", "a.py", 1, 2, "def retry_with_backoff(): pass"), Row("b.py#0", "b.py", 1, 1, "x = 1")]
VECTORS = np.eye(2, 4, dtype=np.float32)


def _suite(root: Path, folder: str) -> Path:
    path = root / folder / "queries.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("queries: []\n")
    return path


def _store(tmp_path: Path) -> IndexStore:
    return IndexStore(str(tmp_path / "db"), tmp_path / "locks")


def _ensure(store: IndexStore, ident: TableIdentity) -> bool:
    return store.ensure(ident, len(ROWS), lambda: [(ROWS, VECTORS)])


def test_names_differ_where_the_old_slug_collided(tmp_path: Path) -> None:
    a, b = _suite(tmp_path, "a/avap"), _suite(tmp_path, "b/avap")
    idents = [TableIdentity.of(s, name, "f" * 64) for s in (a, b) for name in ("ast-context", "ast_context")]
    assert len({i.name for i in idents}) == 4 and len({i.key for i in idents}) == 4
    assert all(i.name.startswith("avap__ast") for i in idents)  # still readable
    assert idents[0].name.startswith("avap__ast-context__") and idents[1].name.startswith("avap__ast_context__")


def test_identity_is_the_same_in_every_checkout(tmp_path: Path) -> None:
    """The base worktree of --chunkeval-base is a new folder each run; its suites must keep their tables."""
    one, two = tmp_path / "clone", tmp_path / "worktree"
    (one / ".git").mkdir(parents=True)
    two.mkdir()
    (two / ".git").write_text("gitdir: elsewhere\n")  # a linked worktree has a .git file
    s1, s2 = _suite(one, "golden/avap"), _suite(two, "golden/avap")
    assert suite_id(s1) == suite_id(s2) == "golden/avap/queries.yaml"
    assert TableIdentity.of(s1, "fixed", "f" * 64) == TableIdentity.of(s2, "fixed", "f" * 64)


def test_side_by_side_tables_are_kept_and_reused(tmp_path: Path) -> None:
    store = _store(tmp_path)
    a, b = _suite(tmp_path, "a/avap"), _suite(tmp_path, "b/avap")
    idents = [TableIdentity.of(s, name, "1" * 64) for s in (a, b) for name in ("ast-context", "ast_context")]
    assert [_ensure(store, i) for i in idents] == [False] * 4
    assert [_ensure(store, i) for i in idents] == [True] * 4
    assert store._names() == {i.name for i in idents}
    recorded = read_record(store.db.open_table(idents[1].name).schema.metadata)
    assert recorded == idents[1] and recorded.suite_path == str(a.resolve())


def test_a_new_build_drops_only_its_own_older_builds(tmp_path: Path) -> None:
    store = _store(tmp_path)
    suite = _suite(tmp_path, "a/avap")
    old, other = TableIdentity.of(suite, "ast-context", "1" * 64), TableIdentity.of(suite, "ast_context", "1" * 64)
    _ensure(store, old)
    _ensure(store, other)
    store.build("avap__ast_context__" + "0" * 20, ROWS, VECTORS)  # named by an older pytest-chunkeval
    new = TableIdentity.of(suite, "ast-context", "2" * 64)
    assert _ensure(store, new) is False
    # Its older build and the old-style table of its slug are gone; the other strategy's table is not.
    assert store._names() == {new.name, other.name}
    assert _ensure(store, other) is True


def test_a_table_recording_another_identity_is_not_served(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ident = TableIdentity.of(_suite(tmp_path, "a/avap"), "fixed", "1" * 64)
    store.build(ident.name, ROWS, VECTORS)  # right name, no record
    with pytest.warns(UserWarning, match="records no identity"):
        assert _ensure(store, ident) is False
    assert _ensure(store, ident) is True


def test_exists_answers_absence_and_lets_other_errors_through(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path)
    ident = TableIdentity.of(_suite(tmp_path, "a/avap"), "fixed", "1" * 64)
    assert store.exists(ident.name) is False
    _ensure(store, ident)
    assert store.exists(ident.name) is True
    monkeypatch.setattr(store, "_names", lambda: {"dropped_meanwhile"})
    assert store.exists("dropped_meanwhile") is False  # listed, then gone: absent

    def broken(name: str) -> None:
        raise OSError("LanceError(IO): corrupt manifest")

    monkeypatch.setattr(store, "_names", lambda: {ident.name})
    monkeypatch.setattr(store.db, "open_table", broken)
    with pytest.raises(OSError, match="corrupt manifest"):
        store.exists(ident.name)


def test_clean_drops_what_nothing_reuses_and_prunes_old_versions(tmp_path: Path) -> None:
    store = _store(tmp_path)
    suite = _suite(tmp_path, "a/avap")
    gone = _suite(tmp_path, "gone/avap")
    keep = TableIdentity.of(suite, "fixed", "2" * 64)
    older = TableIdentity.of(suite, "fixed", "1" * 64)
    removed_strategy = TableIdentity.of(suite, "renamed_away", "1" * 64)
    removed_suite = TableIdentity.of(gone, "fixed", "1" * 64)
    for ident in (older, keep, removed_strategy, removed_suite):
        store.build(ident.name, ROWS, VECTORS, ident)
    gone.unlink()
    store.build("avap__fixed__" + "0" * 20, ROWS, VECTORS)  # older naming
    store.build("someone_elses_table", ROWS, VECTORS)  # not ours: left alone
    store.db.open_table(keep.name).add(store.db.open_table(keep.name).to_arrow().slice(0, 1))  # a second version

    result = store.clean(strategies={"fixed"}, root=tmp_path)
    dropped = dict(result.dropped)
    assert set(dropped) == {older.name, removed_strategy.name, removed_suite.name, "avap__fixed__" + "0" * 20}
    assert "older build" in dropped[older.name] and "not registered" in dropped[removed_strategy.name]
    assert "no longer exists" in dropped[removed_suite.name]
    assert result.pruned == [(keep.name, 1)] and result.foreign == ["someone_elses_table"]
    assert store._names() == {keep.name, "someone_elses_table"}
    assert len(store.db.open_table(keep.name).list_versions()) == 1
    lines = result.lines(store.uri)
    assert "dropped 4 stale table(s)" in lines[0] and "left 1 table(s) not made by pytest-chunkeval" in lines[0]
    assert store.clean(strategies={"fixed"}, root=tmp_path).dropped == []


# -- end to end ---------------------------------------------------------------------------------------------------

STRATEGIES = """
    from pytest_chunkeval import FixedSizeChunker, strategy

    @strategy(name="ast-context")
    def ast_context_hyphen():
        return FixedSizeChunker(max_chunk_size=120, overlap=20)

    @strategy
    def ast_context():
        return FixedSizeChunker(max_chunk_size=200, overlap=0)
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    name_suites(pytester, "golden/*/*/queries.yaml")
    write_strategies(pytester.path, {"both.py": STRATEGIES})
    for team in ("a", "b"):  # two suites whose folders share a name
        write_suite(pytester.path / "golden" / team / "avap", {"auth.py": SHOP_CORPUS["auth.py"]}, SHOP_GOLDEN)
    return pytester


def _run(p: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[tuple[str, str], dict[str, object]]]:
    result = p.runpytest("--chunkeval", "-p", "no:cacheprovider", "--chunkeval-no-progress",
                         "--chunkeval-baseline=ast_context", *args)
    report = json.loads((p.path / ".chunkeval" / "chunkeval-report.json").read_text())
    index = {(suite, name): s["index"] for suite, data in report["suites"].items() for name, s in data["strategies"].items()}
    return result, index


@pytest.mark.slow
def test_same_named_suites_and_strategies_keep_their_tables_and_clean_drops_a_stale_one(project: pytest.Pytester) -> None:
    first, index = _run(project)
    assert first.ret == 0, first.stdout.str()[-2000:]
    assert len(index) == 4 and len({i["table"] for i in index.values()}) == 4
    assert not any(i["reused"] for i in index.values())
    db = project.path / ".chunkeval" / "lancedb"
    tables = {p.name.removesuffix(".lance") for p in db.glob("*.lance")}
    assert tables == {i["table"] for i in index.values()}

    second, again = _run(project)
    assert second.ret == 0
    assert all(i["reused"] for i in again.values()), again
    assert {k: i["table"] for k, i in again.items()} == {k: i["table"] for k, i in index.items()}

    store = IndexStore(str(db), project.path / ".chunkeval" / "locks")
    stale = "avap__ast_context__" + "0" * 20  # what the old naming left behind
    store.build(stale, ROWS, VECTORS)
    cleaned, after = _run(project, "--chunkeval-clean")
    assert cleaned.ret == 0
    err = cleaned.stderr.str()
    assert "--chunkeval-clean" in err and "dropped 1 stale table(s)" in err and f"dropped {stale}:" in err, err
    assert stale not in store._names() and store._names() == tables
    assert all(i["reused"] for i in after.values())
