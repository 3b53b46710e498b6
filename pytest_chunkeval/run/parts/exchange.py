"""pytest-xdist: what a worker sends the controller, and what the controller merges (see ``distributed``).

The exchange only packs and unpacks: it reads the values a worker sends from the parts given to it and returns what
the controller merged, and the state hands each merged value to the part that owns it. No part's state is written
from here, so each part stays the one place its values change.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_chunkeval.run.parts.context import ModelContext, ModelPart

if TYPE_CHECKING:
    from pytest_chunkeval.results.typed import SuiteResult
    from pytest_chunkeval.run.base_ref import BaseEvaluation
    from pytest_chunkeval.run.distributed import WorkerResults
    from pytest_chunkeval.run.parts.head_side import HeadSide
    from pytest_chunkeval.run.parts.judgements import RowKey


class WorkerExchange(ModelPart):
    """A worker's side (:meth:`payload`) and the controller's (:meth:`add`, :meth:`merge`) of one run."""

    def __init__(self, context: ModelContext) -> None:
        super().__init__(context)
        self.received: list[WorkerResults] | None = None  # an xdist controller's: one per finished worker

    @staticmethod
    def payload(head: HeadSide, outcomes: list[tuple[Any, ...]], compared: set[RowKey],
                base: BaseEvaluation | None) -> str | None:
        """A worker's results for the controller: its evaluation's, its outcome rows (``MissLedger.rows``), the
        comparison items it ran and the base it evaluated, if any; None when it evaluated nothing."""
        from pytest_chunkeval.run.distributed import WorkerResults

        if not head.evaluated:
            return None
        part = WorkerResults(
            suites={key: suite.to_entry() for key, suite in head.results().items()},
            embedding=head.embed_totals(), model=head.model_info(), outcomes=outcomes,
            compared=[list(pair) for pair in sorted(compared)],
        )
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
        """The workers' results as one run's: suite key -> results, and the merged rest (their outcomes, compared
        items, model and base), for the state to hand to the parts that own them."""
        from pytest_chunkeval.run.distributed import merge

        return merge(self.received or [], self.options.baseline, self.options.retrieval_modes)
