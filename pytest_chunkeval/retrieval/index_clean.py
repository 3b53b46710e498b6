"""``--chunkeval-clean``: drop the index tables nothing will reuse and the old versions of the rest.

A build already drops the older builds of its own (suite, strategy), so what piles up is what no build touches any
more: tables of a strategy that was renamed or removed, of a suite that was moved or deleted, of a run that was
interrupted between building and dropping, tables named by an older pytest-chunkeval, and old table versions.
Which table is whose comes from the identity record inside each table, never from its name. Tables that are not
pytest-chunkeval's (a shared LanceDB) are left alone and counted.
"""
from __future__ import annotations

import warnings
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol

from pytest_chunkeval.retrieval.table_identity import NAME, TableIdentity, is_legacy_name, read_record, suite_gone


class TableStore(Protocol):
    """What cleaning needs of a store of tables (:class:`~pytest_chunkeval.retrieval.index.IndexStore` is one).

    Declared here, so this module depends on no store: the store calls :func:`clean` on itself, and the import runs
    one way only (index -> index_clean)."""

    lock_dir: Path

    @property
    def local(self) -> bool: ...  # a folder on this machine (bytes freed are measured only there)

    @property
    def db(self) -> Any: ...  # the LanceDB connection

    def _names(self) -> set[str]: ...

    def _folder(self, name: str) -> Path: ...

    def locked(self, key: str) -> AbstractContextManager[None]: ...

    def drop(self, name: str) -> None: ...


@dataclass
class CleanResult:
    dropped: list[tuple[str, str]] = field(default_factory=list)  # (table, why)
    pruned: list[tuple[str, int]] = field(default_factory=list)  # (table, old versions removed)
    freed_bytes: int = 0  # local databases only: bytes on disk before minus after
    kept: int = 0
    foreign: list[str] = field(default_factory=list)

    def lines(self, uri: str) -> list[str]:
        """What the clean did, for the terminal: a summary line, then one line per table it changed."""
        versions = sum(n for _, n in self.pruned)
        head = (
            f"[chunkeval] --chunkeval-clean {uri}: dropped {len(self.dropped)} stale table(s), removed {versions} old "
            f"version(s) of {len(self.pruned)} table(s)"
            + (f", freed {self.freed_bytes / 1e6:.1f} MB" if self.freed_bytes else "")
            + f"; kept {self.kept} table(s)"
        )
        if self.foreign:
            head += f"; left {len(self.foreign)} table(s) not made by pytest-chunkeval ({', '.join(self.foreign[:3])})"
        out = [head]
        out += [f"[chunkeval]   dropped {name}: {why}" for name, why in self.dropped]
        out += [f"[chunkeval]   pruned {name}: {n} old version(s)" for name, n in self.pruned]
        return out


def _bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else 0


def _stale(records: dict[str, TableIdentity], strategies: set[str] | None, root: Path | None) -> dict[str, str]:
    """Table -> why it is stale, among the tables that carry a record."""
    newest: dict[str, str] = {}
    for name, rec in sorted(records.items(), key=lambda kv: (kv[1].built_at, kv[0])):
        newest[rec.key] = name  # sorted oldest first: the last one written wins
    stale = {}
    for name, rec in records.items():
        if newest[rec.key] != name:
            stale[name] = f"an older build of {rec.describe()} (the current one is {newest[rec.key]})"
        elif strategies is not None and rec.strategy not in strategies and rec.family not in strategies:
            stale[name] = f"strategy {rec.strategy!r} is not registered any more"
        elif suite_gone(rec, root):
            stale[name] = f"its suite {rec.suite} no longer exists"
    return stale


def clean(store: TableStore, strategies: set[str] | None = None, root: Path | None = None) -> CleanResult:
    """Drop stale tables, then remove every old version of the tables kept.

    ``strategies``: the names registered now (None: do not judge by strategy). ``root``: the project folder, to
    find suites by their identity when the folder they were built in has moved.
    """
    result = CleanResult()
    local = store.local  # bytes freed are measured on a local folder only; an object store is never walked
    records: dict[str, TableIdentity] = {}
    stale: dict[str, str] = {}
    for name in sorted(store._names()):
        try:
            record = read_record(store.db.open_table(name).schema.metadata)
        except Exception as exc:  # Lance raises RuntimeError/OSError/ValueError, by where the damage is
            if NAME.fullmatch(name) or is_legacy_name(name):
                stale[name] = f"unreadable ({type(exc).__name__}); it would be rebuilt anyway"
            else:
                result.foreign.append(name)
            continue
        if record is not None:
            records[name] = record
        elif is_legacy_name(name):
            stale[name] = "named by an older pytest-chunkeval; nothing reuses it"
        else:
            result.foreign.append(name)
    stale.update(_stale(records, strategies, root))
    for name, why in sorted(stale.items()):
        with store.locked(records[name].key if name in records else name):
            before = _bytes(store._folder(name)) if local else 0
            store.drop(name)
        result.freed_bytes += before
        result.dropped.append((name, why))
        if name not in records:  # locks of the older naming are per table
            (store.lock_dir / f"{name}.lock").unlink(missing_ok=True)
    for name, rec in sorted(records.items()):
        if name in stale:
            continue
        result.kept += 1
        with store.locked(rec.key):
            tbl = store.db.open_table(name)
            versions = len(tbl.list_versions())
            if versions <= 1:
                continue
            before = _bytes(store._folder(name)) if local else 0
            with warnings.catch_warnings():  # it warns that concurrent readers of old versions fail: we hold the lock
                warnings.simplefilter("ignore")
                # optimize() prunes before it folds new rows into the indexes, which commits one more version:
                # a second call prunes the version that one left behind.
                for _ in range(2):
                    tbl.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
            result.pruned.append((name, versions - len(tbl.list_versions())))
            result.freed_bytes += max(0, before - _bytes(store._folder(name))) if local else 0
    return result
