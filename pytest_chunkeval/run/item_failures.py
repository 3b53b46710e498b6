"""What an evaluation item fails (or xfails) with: exceptions that carry their failure's kind for the verdict, so
whichever item raises one, the verdict sorts it by what it is, not by the item's id or message."""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, NoReturn

import pytest

from pytest_chunkeval.output.escape import log_text

if TYPE_CHECKING:
    from pytest_chunkeval.judges.verdict import FailureKind


class KindedFailure(AssertionError):
    """A failure that says its own kind for the verdict, whichever item raised it (None: the item's kind)."""

    kind: ClassVar[FailureKind | None] = None


class ReportedFailure(KindedFailure):
    """A failure whose message is the whole report: measured values, thresholds, examples."""


class BuildFailure(ReportedFailure):
    """A strategy that failed to build, met by whichever of its items asked first: a build failure, not the item's."""

    kind = "build"


class QueryMiss(KindedFailure):
    """A query missed that no record accepts; its item's report is the miss in full (``QueryItem.repr_failure``)."""

    kind = "miss"

    def __init__(self) -> None:
        super().__init__("none of the relevant items is in the top k")


class QueryFixed(KindedFailure):
    """A query found that its record lists as missed; reported in full as the miss is."""

    kind = "fixed"

    def __init__(self) -> None:
        super().__init__("recorded as an accepted miss but now retrieved")


def xfail(reason: str) -> NoReturn:
    """pytest.xfail with its reason as the log may show it: pytest prints it (``-rx``, ``-v``) after this package's
    report hook has run, and it names the suite's record file, whose folder is the suite's."""
    pytest.xfail(log_text(reason))
