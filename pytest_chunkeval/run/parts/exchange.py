"""pytest-xdist: what a worker sends the controller, and what the controller merges (see ``distributed``)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_chunkeval.results.typed import SuiteResult
    from pytest_chunkeval.run.distributed import WorkerResults
    from pytest_chunkeval.run.parts.base_side import BaseSide
    from pytest_chunkeval.run.parts.catalog import Catalog
    from pytest_chunkeval.run.parts.head_side import HeadSide
    from pytest_chunkeval.run.parts.judgements import Judgements
    from pytest_chunkeval.run.parts.ledger import MissLedger


class WorkerExchange:
    """A worker's side (:meth:`payload`) and the controller's (:meth:`add`, :meth:`merge`) of one run."""

    def __init__(self, catalog: Catalog, head: HeadSide, base: BaseSide, judgements: Judgements,
                 ledger: MissLedger) -> None:
        self.catalog = catalog
        self.head = head
        self.base = base
        self.judgements = judgements
        self.ledger = ledger
        self.received: list[WorkerResults] | None = None  # an xdist controller's: one per finished worker
        self.model_id: str | None = None  # the workers' model, on an xdist controller (it runs no evaluator)

    def payload(self) -> str | None:
        """This worker's results for the controller, or None when it evaluated nothing."""
        from pytest_chunkeval.run.distributed import WorkerResults

        if not self.head.evaluated:
            return None
        ledger = self.ledger
        part = WorkerResults(
            suites={key: suite.to_entry() for key, suite in self.head.results().items()},
            embedding=self.head.embed_totals(), model=self.head.model_info(),
            outcomes=[(str(path), name, q, hit, mode, ledger.families.get(name, ""))
                      for (path, name, mode), ran in ledger.outcomes.items() for q, hit in ran.items()],
            compared=[list(pair) for pair in sorted(self.judgements.compared)],
        )
        base = self.base.finished() if self.base.comparing == "base" else None
        if base is not None:
            part.base_report, part.base_info = base.report, base.info()
        return part.dumps()

    def add(self, text: str) -> None:
        """A finished worker's payload."""
        from pytest_chunkeval.run.distributed import WorkerResults

        if self.received is None:
            self.received = []
        self.received.append(WorkerResults.loads(text))

    def merge(self) -> tuple[dict[str, SuiteResult], WorkerResults]:
        """The workers' results as one run's: suite key -> results, and the merged rest; their outcomes are in the
        ledger, their comparisons in the family, the base one of them evaluated on the base side."""
        from pytest_chunkeval.run.distributed import merge

        options = self.catalog.options
        suites, merged = merge(self.received or [], options.baseline, options.retrieval_modes)
        if not suites:
            return suites, merged
        for path, name, query, hit, *mode_family in merged.outcomes:
            suite = self.catalog.suite(Path(path))  # the controller loads the golden files for the records
            self.ledger.record(suite, name, query, hit, *mode_family)
        self.judgements.compared.update((str(key), str(label)) for key, label in merged.compared)
        if merged.model:
            self.model_id = merged.model.get("id")
        if merged.base_report is not None:
            self.base.received(merged.base_report, merged.base_info)
        return suites, merged

