"""The judged run as one value, :class:`Summary`: what every renderer reads and the verdict is judged from.

It sits with the judges, not with the renderers: it holds their decisions (the gates' thresholds, the comparisons, the
verdict), and the verdict reads it, so a renderer's module would be a layer above the judge that needs it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pytest_chunkeval.judges.comparison import SuiteComparison
from pytest_chunkeval.judges.gates import Thresholds
from pytest_chunkeval.results.typed import SuiteResult


@dataclass(frozen=True)
class Reason:
    """Why a run failed, one kind of failure: its lines and what settles it when the change is intended."""

    title: str
    lines: tuple[str, ...]
    settle: str  # what to run or change when the change is intended


@dataclass
class Verdict:
    """The run's verdict as it is read (``verdict.judge`` decides it, ``output.verdict_text`` words it): it travels
    on the Summary every renderer reads, so each shows the same words."""

    passed: bool
    reasons: list[Reason] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # worth knowing, failing nothing


@dataclass
class Summary:
    """Everything a renderer needs: the typed results (each judged against the baseline once:
    ``judges.against_baseline``), the settings they were made under, the comparisons and the verdict. Renderers
    read it; none of them judges anything."""

    k: int
    retrieval: str
    baseline: str
    model: dict[str, Any]
    embedding: dict[str, int]
    suites: dict[str, SuiteResult]
    thresholds: Thresholds = field(default_factory=Thresholds)
    comparisons: dict[str, SuiteComparison] = field(default_factory=dict)
    base: dict[str, Any] | None = None  # what the comparisons are against: a git ref's evaluation or a stored report
    family_size: int = 0  # the paired tests that can fail the run (gating metrics of changed strategies)
    correction: str = "holm"  # how their p-values were adjusted across the family
    verdict: Verdict | None = None  # of the finished run (None while it runs)
    tolerance: float = 0.01  # the fall of a mean a comparison allows (ini chunkeval_regression_tolerance)
    columns: tuple[str, ...] = ()  # extra column groups of the retrieval table (tables.COLUMN_GROUPS)
    gated: bool = False  # gates were asked for (--chunkeval-gate): only then a gates column

    @property
    def modes(self) -> tuple[str, ...]:
        """The retrieval modes of this run, in the order asked for."""
        return tuple(m for m in self.retrieval.split(",") if m)
