"""What an item gets back when it asks for an evaluation or for the base, and the one place failures are kept.

An item asks for its strategy's evaluation (:meth:`~.head_side.HeadSide.evaluation`) and, to compare, whether
there is a base (:meth:`~.base_side.BaseSide.refusal`). The answer is a value, never a raised exception: an
:class:`Evaluated` result, or a :class:`Failed` that says what failed and which item says it in full. Every item of a
failed evaluation (or of a base that cannot be compared with) fails; the first to ask reports the failure in full and
every later one points to it, so a log holds one traceback per failure, not one per item.

:class:`Failures` keeps both facts, the error and the item that reports it, for the head side and the base side
alike: nothing else in the run remembers a failure (the evaluator forgets a failed evaluation; asked again, it would
try again).
"""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pytest_chunkeval.evaluation.evaluate import StrategyRun

#: What failed: "build" the strategy made no index of the suite (in any retrieval mode: the build is shared),
#: "model" the embedding model, "base" the base to compare with, "error" anything else (said with its traceback).
FailureCause = Literal["build", "model", "base", "error"]


@dataclass(frozen=True)
class Evaluated:
    """An evaluation that went through (a strategy skipped on this suite too: its run says why)."""

    run: StrategyRun


@dataclass(frozen=True)
class Failed:
    """A failure, as the item that asked meets it: ``first`` when this item is the one that reports it in full
    (``reported_by`` is then its own id), else ``reported_by`` names the item that did ("" when no item has asked
    yet: a judgement met it first)."""

    cause: FailureCause
    error: BaseException
    reported_by: str
    first: bool

    @property
    def reason(self) -> str:
        return str(self.error)


@dataclass
class _Kept:
    cause: FailureCause
    error: BaseException
    traceback: TracebackType | None  # as raised: the first report shows it, however often it is met again


class Failures:
    """Every failure of one run (of one model) by scope, and the item that reports each in full.

    A failure is kept under the scope it spoils (an evaluation ``(suite, strategy, mode)``, a build
    ``(suite, strategy)`` that every mode shares, the base) and claimed under the scope its report covers: a build
    failure is said once for every mode, any other failure once per mode."""

    def __init__(self) -> None:
        self._kept: dict[Hashable, _Kept] = {}
        self._reported_by: dict[Hashable, str] = {}

    def __contains__(self, scope: Hashable) -> bool:
        return scope in self._kept

    def keep(self, scope: Hashable, cause: FailureCause, error: BaseException) -> None:
        self._kept[scope] = _Kept(cause, error, error.__traceback__)

    def cause(self, scope: Hashable) -> FailureCause:
        return self._kept[scope].cause

    def asked(self, scope: Hashable, claim: Hashable, asker: str | None) -> Failed:
        """The failure kept under ``scope``, as ``asker`` meets it: the first item to ask under ``claim`` reports it
        in full; ``asker`` None (not an item) never claims it."""
        kept = self._kept[scope]
        reporter = self._reported_by.get(claim)
        if reporter is None and asker is not None:
            self._reported_by[claim] = asker
            kept.error.with_traceback(kept.traceback)  # raised again by its reporter: one traceback, not a grown one
            return Failed(kept.cause, kept.error, asker, first=True)
        return Failed(kept.cause, kept.error, reporter or "", first=False)
