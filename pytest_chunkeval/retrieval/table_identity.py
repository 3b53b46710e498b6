"""Which (suite, strategy, fingerprint) a LanceDB table holds: its name, and the record that says so inside it.

A table name is readable (``avap__ast-context__<key>__<fingerprint>``) but never parsed: two suites can share a
folder name and two strategies can differ only in punctuation, so the name carries ``key``, a hash of the exact
suite path and strategy name, and the table itself carries the record (in its Arrow schema metadata, so it travels
with the table to any LanceDB URI). Cleanup and reports read the record; the name only has to be unique.
"""
from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

#: Schema-metadata key of the identity record.
RECORD_KEY = b"chunkeval.table"
#: Bump when the record's fields change meaning; a table with another format is treated as foreign to this code.
RECORD_FORMAT = 1
#: Tables an older pytest-chunkeval named, without a record: ``<slug of suite name and strategy>__<20 hex>``.
#: Nothing reuses them, so they are always stale.
LEGACY_NAME = re.compile(r"[A-Za-z0-9_]+__[0-9a-f]{20}")
#: Tables named by this module: only used to tell, for a table whose record cannot be read, whether it is ours.
NAME = re.compile(r".+__[0-9a-f]{12}__[0-9a-f]{20}")
#: The strategy field of a table keyed by its content (a grid point's): ``<strategy>@<12 hex of the chunks>``.
SHARED = re.compile(r"(?P<strategy>.+)@[0-9a-f]{12}")


def is_legacy_name(name: str) -> bool:
    """Named by the older scheme (and not by this one, whose names without a hyphen fit the old pattern too)."""
    return bool(LEGACY_NAME.fullmatch(name)) and not NAME.fullmatch(name)


@lru_cache(maxsize=256)
def _work_tree(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():  # a folder in a clone, a file in a linked worktree
            return candidate
    return None


def suite_id(path: Path) -> str:
    """The suite's golden file relative to its git work tree, else absolute.

    Relative so that the same suite has the same identity in every checkout of the project: the base side of
    ``--chunkeval-base`` runs in a new temporary worktree each time, and must still find its tables of last time.
    """
    path = Path(path).resolve()
    root = _work_tree(path.parent)
    return path.relative_to(root).as_posix() if root is not None else path.as_posix()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")[:40] or "x"


@dataclass(frozen=True)
class TableIdentity:
    """One index table: suite and strategy say whose it is, the fingerprint which build of it."""

    suite: str  # suite_id() of the golden file
    strategy: str
    fingerprint: str
    # The embedding model of a table built with a model other than the bundled one ("" for that one, so its tables
    # keep their names): tables of two models of one (suite, strategy) are two families, neither superseding the
    # other, so a run with --chunkeval-model A,B keeps both.
    model: str = ""
    # Not part of the identity: the same suite in another checkout (the base worktree) is the same suite.
    label: str = field(default="", compare=False)  # the suite's display name, for the readable name only
    suite_path: str = field(default="", compare=False)  # absolute path when built: does the suite still exist?
    built_at: float = field(default=0.0, compare=False)

    @classmethod
    def of(cls, suite_path: Path, strategy: str, fingerprint: str, label: str = "", model: str = "") -> TableIdentity:
        path = Path(suite_path).resolve()
        return cls(suite_id(path), strategy, fingerprint, model, label or path.parent.name, str(path))

    @classmethod
    def shared(cls, suite_path: Path, strategy: str, content: str, fingerprint: str, label: str = "",
               model: str = "") -> TableIdentity:
        """A table keyed by what is in it (``content``: the digest of its rows), for a strategy's grid points.

        Points whose chunks are identical get one table (and its rankings and scores, keyed by it); points with other
        chunks get their own, which never supersede each other (each content is its own (suite, strategy) key).
        """
        return cls.of(suite_path, f"{strategy}@{content[:12]}", fingerprint, label, model)

    @property
    def family(self) -> str:
        """The strategy whose table this is: a shared table's strategy without its content digest."""
        match = SHARED.fullmatch(self.strategy)
        return match.group("strategy") if match else self.strategy

    @property
    def key(self) -> str:
        """Hash of the exact suite id and strategy name (and model, when not the bundled one): the same for every
        build of one (suite, strategy, model)."""
        model = f"\0{self.model}" if self.model else ""
        return hashlib.sha256(f"{self.suite}\0{self.strategy}{model}".encode()).hexdigest()[:12]

    @property
    def name(self) -> str:
        return f"{_slug(self.label)}__{_slug(self.strategy)}__{self.key}__{self.fingerprint[:20]}"

    @property
    def legacy_name_prefix(self) -> str:
        """What the older naming (without a record) gives this (suite, strategy), without its fingerprint: such tables
        are never reused, so a build drops them (several suites or strategies may map to one prefix; all stale)."""
        return re.sub(r"[^A-Za-z0-9_]+", "_", f"{self.label}__{self.strategy}").strip("_")

    def describe(self) -> str:
        return f"{self.suite} · {self.strategy}"

    def record(self) -> dict[bytes, bytes]:
        """The schema metadata a table of this identity is built with."""
        body = {"format": RECORD_FORMAT, **asdict(self), "built_at": self.built_at or time.time()}
        if not self.model:
            del body["model"]  # a bundled model's record has no model field, as the older records do
        return {RECORD_KEY: json.dumps(body, sort_keys=True).encode("utf-8")}


def read_record(metadata: Mapping[bytes, bytes] | None) -> TableIdentity | None:
    """The identity recorded in a table's schema metadata; None when there is none in a format this code reads."""
    raw = (metadata or {}).get(RECORD_KEY)
    if raw is None:
        return None
    try:
        body: dict[str, Any] = json.loads(raw)
        if body.get("format") != RECORD_FORMAT:
            return None
        return TableIdentity(
            suite=str(body["suite"]), strategy=str(body["strategy"]), fingerprint=str(body["fingerprint"]),
            model=str(body.get("model", "")), label=str(body.get("label", "")),
            suite_path=str(body.get("suite_path", "")),
            built_at=float(body.get("built_at", 0.0)),
        )
    except (ValueError, TypeError, KeyError):
        return None


def suite_gone(ident: TableIdentity, root: Path | None) -> bool:
    """True when the suite a table was built for exists neither where it was built nor under ``root``'s work tree."""
    if ident.suite_path and Path(ident.suite_path).exists():
        return False
    if Path(ident.suite).is_absolute():
        return not Path(ident.suite).exists()
    tree = _work_tree(Path(root).resolve()) if root is not None else None
    return tree is not None and not (tree / ident.suite).exists()  # no work tree here: cannot tell, so keep it
