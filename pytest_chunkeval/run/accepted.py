"""Accepted misses: queries a strategy is known not to find, recorded so CI fails only on *new* losses.

Like a snapshot, the record is written by a flag (``--chunkeval-accept-misses``) and read on every run. A recorded
miss that now hits fails too, as "fixed", until the record is refreshed: a stale record would otherwise hide the
next regression of that query. Records are keyed by the retrieval settings (model, mode, k), because a miss under
one setting says nothing about another. Settings with no record yet (a new suite) hold nothing: their misses are
listed, with the command that records them, instead of failing every item of a first run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from pytest_chunkeval.core import safe_yaml

FILE_NAME = "accepted_misses.yaml"
#: The commands that write a record, named in its header: the one the run that wrote it was started with.
PYTEST_COMMAND = "pytest --chunkeval --chunkeval-accept-misses"
RUN_COMMAND = "chunkeval run --chunkeval-accept-misses"


def header(command: str = PYTEST_COMMAND) -> str:
    return ("# Queries each strategy is known to miss (none of the relevant items in the top k), per retrieval "
            f"setting.\n# Written by `{command}`; review changes to it like a snapshot diff.\n")


HEADER = header()


def record_section(model_id: str, retrieval: str, k: int) -> str:
    """The section of a record that holds the misses under one retrieval setting (model, mode, k)."""
    return f"{model_id} | {retrieval} | k={k}"


@dataclass
class AcceptedMisses:
    path: Path
    data: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    dirty: bool = False
    command: str = PYTEST_COMMAND  # the command that records misses, as this run was started (the header says it)

    @classmethod
    def load(cls, suite_dir: Path) -> AcceptedMisses:
        path = suite_dir / FILE_NAME
        if not path.is_file():
            return cls(path)
        try:
            raw = safe_yaml.load(path.read_text("utf-8")) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
            raise ValueError(f"{where}: not valid YAML ({getattr(exc, 'problem', None) or exc}); fix it or delete the "
                             "file and record again with --chunkeval-accept-misses") from None
        shape_ok = isinstance(raw, dict) and all(
            isinstance(v, dict) and all(ids is None or isinstance(ids, list) for ids in v.values())
            for v in raw.values()
        )
        if not shape_ok:
            raise ValueError(f"{path}: expected a mapping of settings -> strategy -> [query ids]")
        data = {str(s): {str(n): [str(q) for q in (ids or [])] for n, ids in v.items()} for s, v in raw.items()}
        return cls(path, data)

    def ids(self, settings: str, strategy: str) -> set[str]:
        return set(self.data.get(settings, {}).get(strategy, []))

    def accepted(self, settings: str, strategy: str, family: str = "") -> tuple[set[str], bool]:
        """(the accepted misses of ``strategy``, whether they are its own record). A grid point of ``family`` with no
        record of its own reads its strategy's: what is accepted for the strategy is accepted at each of its points,
        so a sweep fails only on queries a point loses that the strategy's record says it finds, not on every known
        miss again. A point that finds one of those is no "fixed" failure: that record was not made for the point."""
        if strategy in self.data.get(settings, {}) or not family or family == strategy:
            return self.ids(settings, strategy), True
        return self.ids(settings, family), False

    def holds(self, settings: str) -> bool:
        """Whether misses under ``settings`` were ever recorded: then a miss not on the record fails. Before that
        (a new suite, new settings) there is nothing to hold, and misses are listed instead of failing."""
        return settings in self.data

    def update(self, settings: str, strategy: str, ran: dict[str, bool], keep_empty: bool = False) -> None:
        """Fold in this run's outcomes (query id -> hit) for the queries that ran; others keep their record.
        ``keep_empty`` writes an empty list rather than no entry: a grid point recorded with no misses must not
        fall back on its strategy's record (see :meth:`accepted`)."""
        current = self.ids(settings, strategy)
        new = {q for q in current if q not in ran} | {q for q, hit in ran.items() if not hit}
        before = self.data.get(settings, {}).get(strategy)  # None: no entry
        after = new if new or keep_empty else None
        if settings not in self.data or (None if before is None else set(before)) != after:
            self.dirty = True
        section = self.data.setdefault(settings, {})  # kept when empty: "recorded, no misses" holds every query
        if after is None:
            section.pop(strategy, None)
        else:
            section[strategy] = sorted(after)

    def save(self) -> None:
        if not self.dirty:
            return
        body = yaml.dump(self.data, Dumper=safe_yaml.Dumper, sort_keys=True, default_flow_style=False,
                         allow_unicode=True)
        from pytest_chunkeval.output.files import write_text

        write_text(self.path, header(self.command) + body)
