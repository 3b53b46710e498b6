"""The accepted-misses ledger: the records beside the suites (``accepted_misses.yaml``) and this run's outcomes
against them. Two kinds of miss are told apart, because a run says different things of each: an *unrecorded* miss is
under settings no record holds yet (a new suite: listed, with the command that records it), an *unlisted* miss is one
a record holding the settings does not list (drift: reported, or failed with ``chunkeval_misses = fail``). What
``--chunkeval-accept-misses`` writes comes from here too."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_chunkeval.output.misses import Drift
from pytest_chunkeval.run.parts.context import ModelContext, ModelPart

if TYPE_CHECKING:
    from pytest_chunkeval.core.golden import GoldenSuite
    from pytest_chunkeval.run.accepted import AcceptedMisses
    from pytest_chunkeval.run.parts.catalog import Catalog
    from pytest_chunkeval.run.parts.head_side import HeadSide

#: (golden file, strategy row name, retrieval mode) -> query id -> hit.
Outcomes = dict[tuple[Path, str, str], dict[str, bool]]


class MissLedger(ModelPart):
    """The outcomes of one run (of one model) and the records they are held against (shared by every model)."""

    def __init__(self, context: ModelContext, catalog: Catalog, head: HeadSide,
                 records: dict[Path, AcceptedMisses] | None = None) -> None:
        super().__init__(context)
        self.catalog = catalog
        self.head = head  # asked for the model's id only when a record is read or written
        self.records: dict[Path, AcceptedMisses] = {} if records is None else records  # suite file -> record
        self.outcomes: Outcomes = {}
        self.families: dict[str, str] = {}  # grid point label -> its strategy (whose record a point may share)
        self._workers_model: str | None = None  # an xdist controller's: the model its workers evaluated with

    def model_id(self) -> str:
        """The embedding model's id, which names a record's sections: the workers' on an xdist controller (it builds
        no evaluator), else this run's evaluator's (built here if no item built it)."""
        return self._workers_model or self.head.evaluator().embedder.model_id

    def record_of(self, suite: GoldenSuite) -> AcceptedMisses:
        """The record beside ``suite``, read once (a damaged one raises ``ValueError`` naming it)."""
        from pytest_chunkeval.run.accepted import AcceptedMisses

        key = suite.path.resolve()
        if key not in self.records:
            self.records[key] = AcceptedMisses.load(suite.path.parent)
        return self.records[key]

    def section_for(self, mode: str) -> str:
        """The accepted-misses section of one retrieval mode: a run of several modes reads and writes one section
        each, exactly those single-mode runs of each would, so records stay valid either way."""
        from pytest_chunkeval.run.accepted import record_section

        return record_section(self.model_id(), mode, self.options.k)

    def record(self, suite: GoldenSuite, strategy: str, query_id: str, hit: bool, mode: str | None = None,
               family: str = "") -> None:
        """One query item's outcome (``family``: the strategy of a grid point)."""
        mode = mode or self.options.retrieval_modes[0]
        self.outcomes.setdefault((suite.path.resolve(), strategy, mode), {})[query_id] = hit
        if family and family != strategy:
            self.families[strategy] = family

    def rows(self) -> list[tuple[Any, ...]]:
        """This run's outcomes as a worker sends them: (golden file, row name, query id, hit, mode, family)."""
        return [(str(path), name, q, hit, mode, self.families.get(name, ""))
                for (path, name, mode), ran in self.outcomes.items() for q, hit in ran.items()]

    def received(self, rows: Iterable[Sequence[Any]], model_id: str | None) -> None:
        """An xdist controller: its workers' outcome rows (:meth:`rows`) and the model they evaluated with. The
        golden files are loaded here, for the records."""
        if model_id is not None:
            self._workers_model = model_id
        for path, name, query, hit, *mode_family in rows:
            self.record(self.catalog.suite(Path(path)), name, query, hit, *mode_family)

    def drift(self, label: Callable[[str, str], str]) -> list[Drift]:
        """This run against the records that hold its settings, per suite and row (``label(name, mode)``); rows of
        grid points are left out unless --chunkeval-gate-grid (a sweep measures them)."""
        if self.options.accept_misses:
            return []
        out: list[Drift] = []
        for (suite_path, strategy, mode), ran in self.outcomes.items():
            if strategy in self.families and not self.options.gate_grid:
                continue
            record, section = self.record_of(self.catalog.suites[suite_path]), self.section_for(mode)
            if not record.holds(section):
                continue
            accepted, own = record.accepted(section, strategy, self.families.get(strategy, ""))
            out.append(Drift(suite_path, label(strategy, mode),
                             sum(1 for q, hit in ran.items() if not hit and q in accepted),
                             tuple(q for q, hit in ran.items() if not hit and q not in accepted),
                             tuple(q for q, hit in ran.items() if hit and q in accepted) if own else ()))
        return out

    def unrecorded(self, label: Callable[[str, str], str]) -> dict[Path, dict[str, list[str]]]:
        """The unrecorded misses, under settings no record holds yet (a new suite): suite -> row label
        (``label(name, mode)``) -> query ids, in run order."""
        out: dict[Path, dict[str, list[str]]] = {}
        for (suite_path, strategy, mode), ran in self.outcomes.items():
            if not self.record_of(self.catalog.suites[suite_path]).holds(self.section_for(mode)):
                missed = [q for q, hit in ran.items() if not hit]
                if missed:
                    out.setdefault(suite_path, {})[label(strategy, mode)] = missed
        return out

    def update_records(self) -> None:
        """Put this run's outcomes in the records (one section per mode and model); nothing is written yet."""
        for (suite_path, strategy, mode), ran in sorted(self.outcomes.items()):
            record = self.record_of(self.catalog.suites[suite_path])
            record.update(self.section_for(mode), strategy, ran, keep_empty=strategy in self.families)

    def save(self) -> list[Path]:
        """Write every record that changed; the files written. Each header names the command this run was started
        with (``chunkeval run`` for an isolated run), so whoever refreshes a record runs what made it."""
        from pytest_chunkeval.run.accepted import PYTEST_COMMAND, RUN_COMMAND

        written: list[Path] = []
        for record in self.records.values():
            if record.dirty:
                record.command = RUN_COMMAND if self.options.project is not None else PYTEST_COMMAND
                record.save()
                written.append(record.path)
        return written
