"""The pytest nodes: a golden file collects one node per strategy, which collects its query and quality items.

Node ids read like ``golden/avap/queries.yaml::fixed_size::error-handling``, so ``-k fixed_size`` or
``-k error-handling`` select what a user expects. With several retrieval modes (``--chunkeval-retrieval
vector,hybrid``) a golden file collects one node per strategy and mode, ``…::fixed_size[vector]::error-handling``, so
``-k vector`` selects a mode; with one mode the ids stay as they were. With several models (``--chunkeval-model
A,B``) each strategy node is also labelled by its model, ``…::fixed_size@all-mpnet-base-v2::error-handling`` (the
first model's too), and evaluates with that model's state (:meth:`RunState.model_states`).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NoReturn, assert_never

import pytest

from pytest_chunkeval.chunking.contract import Registration
from pytest_chunkeval.core.golden import GoldenError, GoldenSuite
from pytest_chunkeval.core.grid import keyword
from pytest_chunkeval.core.vocabulary import metric_key
from pytest_chunkeval.judges.verdict import FailureKind
from pytest_chunkeval.output import comparison_text, messages
from pytest_chunkeval.output.escape import log_lines, log_text, node_id
from pytest_chunkeval.run.item_failures import (
    BuildFailure,
    KindedFailure,
    QueryFixed,
    QueryMiss,
    ReportedFailure,
    xfail,
)
from pytest_chunkeval.run.library_warnings import MARK_ARGS, dependency_warnings
from pytest_chunkeval.run.parts import STATE_KEY
from pytest_chunkeval.run.parts.failures import Failed
from pytest_chunkeval.run.parts.query_outcome import (
    Counted,
    Fixed,
    Missed,
    MissedAccepted,
    MissedAgainstBase,
    MissedAtGridPoint,
    MissedNoRecordYet,
    MissedUnlisted,
    query_outcome,
)
from pytest_chunkeval.run.quality_checks import QUALITY, QUALITY_CHECKS

if TYPE_CHECKING:
    from pytest_chunkeval.chunking.contract import Contract
    from pytest_chunkeval.evaluation.evaluate import BuildFailed, StrategyRun
    from pytest_chunkeval.run.state import RunState


def state_of(node: pytest.Item | pytest.Collector) -> RunState:
    """The state of ``node``'s model: its strategy node's (several models), else the session's."""
    current: pytest.Item | pytest.Collector | None = node
    while current is not None:
        if isinstance(current, StrategyNode):
            return current.state
        current = current.parent
    return node.config.stash[STATE_KEY]


class GoldenFile(pytest.File):
    """A golden suite file (YAML or JSONL)."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        with dependency_warnings():  # collection runs under the project's warning filters: not ours to fail on
            return list(self._collect())

    def _collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        state = state_of(self)
        try:
            suite = state.catalog.suite(self.path)
            state.ledger.record_of(suite)  # a damaged record stops this suite once, here, not every item later
            strategies = state.catalog.load_strategies()  # two project files defining one name: said here
        except (GoldenError, ValueError) as exc:
            raise self.CollectError(log_lines(str(exc))) from None
        modes = state.options.retrieval_modes
        for each in state.model_states():
            for name, reg in strategies.items():
                for mode in modes:
                    label = node_id(each.node_label(name, mode))  # a name holding a newline: one line still
                    node = StrategyNode.from_parent(self, name=label, suite=suite, reg=reg, mode=mode, state=each)
                    if reg.point:  # `-k` cannot type the label's "=" and ",": the point answers to this too
                        node.extra_keyword_matches.add(keyword(reg.strategy_name, reg.point))
                    yield node


class StrategyNode(pytest.Collector):
    """One strategy on one suite, searched with one retrieval mode (its items share the evaluation)."""

    def __init__(self, *, suite: GoldenSuite, reg: Registration, mode: str, state: RunState, **kw: Any) -> None:
        super().__init__(**kw)
        self.state = state  # its model's
        self.suite = suite
        self.reg = reg
        self.mode = mode
        self.add_marker("chunkeval")
        self.add_marker(pytest.mark.filterwarnings(*MARK_ARGS))  # its items' warnings never fail them

    def collect(self) -> list[pytest.Item]:
        with dependency_warnings():
            return list(self._collect())

    def _collect(self) -> Iterator[pytest.Item]:
        state = state_of(self)
        try:
            strategy = state.catalog.strategy(self.reg)
        except Exception as exc:  # its own items fail; every other strategy is still evaluated and reported
            if self.mode == state.options.retrieval_modes[0]:  # one item, whatever the number of modes
                yield BuildFailedItem.from_parent(self, name="build", message=messages.build_error(self.reg, exc))
            return
        from pytest_chunkeval.evaluation.evaluate import skip_reason

        reason = skip_reason(self.suite, strategy)
        if reason:
            yield SkippedStrategyItem.from_parent(self, name="skipped", reason=reason)
            return
        for q in self.suite.queries:
            yield QueryItem.from_parent(self, name=node_id(str(q.id)), query_id=q.id)
        if self.mode == state.options.retrieval_modes[0]:  # chunk checks do not depend on the search: once
            for check in QUALITY_CHECKS:
                yield QualityItem.from_parent(self, name=f"quality[{check}]", check=check)
        if state.base.comparing:
            yield ComparisonItem.from_parent(self, name=comparison_name(state))
        if state.options.gated(self.reg.name, self.reg.strategy_name):
            from pytest_chunkeval.judges.gates import GATE_NAMES

            for gate in GATE_NAMES:
                yield GateItem.from_parent(self, name=f"gate[{gate}]", gate=gate)


class NamedReport(pytest.TestReport):
    """A report whose failure header is the item's own id (``golden/avap/queries.yaml::fixed_size::q``), and which
    carries its failure's kind for the verdict (``failure_kind``).

    pytest heads a failure with the location's "domain", and rewrites dots in a domain as "::" when it prints
    locations, which would mangle ``queries.yaml``; so the domain stays empty and only the header is named here.
    ``failure_kind`` is an instance attribute, so pytest's report serialization (its ``__dict__``) carries it from an
    xdist worker and ``TestReport.__init__`` (its ``**extra``) sets it again on the controller.
    """

    failure_kind: FailureKind

    @classmethod
    def of(cls, item: EvalItem, call: pytest.CallInfo[None]) -> NamedReport:
        report = cls.from_item_and_call(item, call)
        assert isinstance(report, NamedReport)
        report.failure_kind = item.failure_kind(call.excinfo)
        _inert(report)
        return report

    @property
    def head_line(self) -> str | None:
        return self.nodeid


def _inert(report: pytest.TestReport) -> None:
    """The report's own words (a failure's message, a skip's or xfail's reason) as the log may show them: messages
    quote suite paths, file names, strategy names and query text, and pytest prints them, and writes them into JUnit
    XML, as they are (messages.py escapes what it quotes; this holds for every message, written anywhere)."""
    if isinstance(report.longrepr, str):
        report.longrepr = log_lines(report.longrepr)
    elif isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:  # a skip: (path, line, reason)
        path, line, reason = report.longrepr
        report.longrepr = (path, line, log_text(reason))
    if isinstance(getattr(report, "wasxfail", None), str):
        report.wasxfail = log_text(report.wasxfail)


class EvalItem(pytest.Item):
    kind: FailureKind = "other"  # what this item's failures are, unless the failure says (KindedFailure)

    def failure_kind(self, excinfo: pytest.ExceptionInfo[BaseException] | None) -> FailureKind:
        """The kind of this item's failure, for the verdict: the exception's own where it names one (a strategy that
        failed to build, a miss), else the item's."""
        if excinfo is not None and isinstance(excinfo.value, KindedFailure) and excinfo.value.kind is not None:
            return excinfo.value.kind
        return self.kind

    @property
    def strategy_node(self) -> StrategyNode:
        assert isinstance(self.parent, StrategyNode)
        return self.parent

    def contract(self) -> Contract | BuildFailed:
        """This item's strategy, built (once, at collection), or why it could not be."""
        return state_of(self).catalog.strategy(self.strategy_node.reg)

    def evaluation(self) -> StrategyRun:
        """This item's strategy evaluated on its suite (once, for all its items); or this item fails as the head side
        says the evaluation did."""
        node = self.strategy_node
        got = state_of(self).head.evaluation(node.suite, node.reg, node.mode, self.contract(), self.nodeid)
        if isinstance(got, Failed):
            self.fail_with(got)
        return got.run

    def fail_with(self, failed: Failed) -> NoReturn:
        """Fail (or skip) as ``failed`` says: in full when this item is the first to meet it, else in one line that
        points to the item that did (re-raising the error in every item would flood the log)."""
        __tracebackhide__ = True
        node = self.strategy_node
        if not failed.first:
            if failed.cause == "build":  # its reason is said once, by the first
                pytest.skip(messages.build_failed_see(node.reg.name, failed.reported_by))
            if failed.cause == "base":
                raise ReportedFailure(messages.base_failed_see(failed.reported_by))
            raise ReportedFailure(messages.evaluation_failed_see(node.name, failed.reported_by))
        if failed.cause == "build":  # the strategy's rows say "failed", in every mode
            raise BuildFailure(messages.build_failed(node.reg.name, failed.reason))
        if failed.cause == "model":  # every strategy would fail the same way, and pay: the session stops
            said = self.session.shouldstop = messages.model_failed(failed.error)
            raise ReportedFailure(said)
        if failed.cause == "base":
            raise ReportedFailure(failed.reason)
        raise failed.error

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        # A failure that carries its own report (quality, gate) is shown as written, without a traceback; so is
        # an accepted miss (xfail), whose traceback pytest would otherwise format, slowly, and never show.
        if isinstance(excinfo.value, (ReportedFailure, pytest.xfail.Exception)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        # No "domain": pytest would rewrite dots in it as "::" when printing the location.
        return self.path, None, ""


class SkippedStrategyItem(EvalItem):
    def __init__(self, *, reason: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.reason = reason

    def runtest(self) -> None:
        self.evaluation()  # records the skip, so the summary table and the report list it with its reason
        pytest.skip(messages.strategy_skipped(self.strategy_node.reg.name, self.reason))


class BuildFailedItem(EvalItem):
    """The one item of a strategy that cannot be built on this suite: it fails with the reason, and the summary,
    the report and the comparison with a base show the strategy as failed instead of leaving it out."""

    kind = "build"

    def __init__(self, *, message: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.message = message

    def contract(self) -> BuildFailed:
        from pytest_chunkeval.evaluation.evaluate import BuildFailed

        return BuildFailed(self.message)

    def runtest(self) -> None:
        self.evaluation()  # fails: the head side keeps the failure, and every mode's row says it


class QueryItem(EvalItem):
    """One query of the suite: its outcome recorded, then reported as :func:`.parts.query_outcome.query_outcome`
    decides it (the item maps the value to a pass, an xfail with its reason, or a failure of its kind)."""

    def __init__(self, *, query_id: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.query_id = query_id

    def runtest(self) -> None:
        state, node = state_of(self), self.strategy_node
        self.outcome = self.evaluation().outcomes[self.query_id]
        state.ledger.record(node.suite, node.reg.name, self.query_id, self.outcome.hit, node.mode, node.reg.family)
        match query_outcome(state.ledger, state.base, node.suite, node.reg, node.mode, self.query_id,
                            self.outcome.hit):
            case Counted():
                return
            case MissedAgainstBase(found):
                xfail(messages.miss_against_base(found, state.options.k, f"{node.name}::{comparison_name(state)}"))
            case MissedAtGridPoint():
                xfail(messages.MISSED_AT_GRID_POINT)
            case MissedNoRecordYet(record, settings):
                xfail(messages.no_record_yet(record, settings))
            case MissedAccepted(record, family):
                xfail(messages.accepted_miss(record, family))
            case MissedUnlisted(record):
                xfail(messages.miss_not_recorded(record))
            case Missed():
                raise QueryMiss()
            case Fixed():
                raise QueryFixed()
            case unknown:
                assert_never(unknown)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if not isinstance(excinfo.value, (QueryMiss, QueryFixed)):
            return super().repr_failure(excinfo)
        state, node = state_of(self), self.strategy_node
        k = state.options.k
        base = (state.base.rank(node.suite, node.reg.name, self.query_id, node.mode) if state.base.comparing
                else None)
        if isinstance(excinfo.value, QueryMiss):
            return messages.miss_message(node.name, self.outcome, k, base)
        return messages.fixed_message(node.name, self.outcome, k, base, state.ledger.record_of(node.suite).path)


class QualityItem(EvalItem):
    def __init__(self, *, check: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.check = QUALITY[check]
        self.kind = self.check.kind

    def runtest(self) -> None:
        run = self.evaluation()
        assert run.facts.quality is not None
        self.check.judge(run, run.facts.quality, state_of(self).options)


class GateItem(EvalItem):
    """One acceptance gate of a candidate strategy against the baseline on this suite."""

    kind = "gate"

    def __init__(self, *, gate: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.gate = gate

    def runtest(self) -> None:
        from pytest_chunkeval.judges.gates import GATE_METRIC

        state, node = state_of(self), self.strategy_node
        run = self.evaluation()
        baseline, base = state.options.baseline, state.judgements.baseline(node.suite, node.mode)
        if base is None:
            raise ReportedFailure(messages.baseline_not_registered(baseline))
        if isinstance(base, Failed):
            if base.cause != "build":  # said in full by the baseline's own items; here, as it came
                raise base.error
            raise ReportedFailure(messages.baseline_failed(baseline, base.reason))
        if base.run.skipped:
            pytest.skip(messages.baseline_skipped(baseline, base.run.skipped))
        # The run's one judgement of this result: the report's gates and the summary's gates column read it too.
        judged = state.judgements.against_baseline(node.suite, run, base.run)
        result = next(g for g in (judged and judged.gates) or () if g.name == self.gate)
        if not result.passed:
            against = messages.gate_against(baseline, node.mode, labelled=node.name != node_id(node.reg.name))
            metric = metric_key(GATE_METRIC[self.gate], state.options.k) if self.gate in GATE_METRIC else None
            raise ReportedFailure(messages.gate_failure(
                node.name, self.gate, against, result.detail, metric=metric, mode=state.options.thresholds.mode,
                candidate=run.outcomes, baseline=base.run.outcomes))


class ComparisonItem(EvalItem):
    """This strategy on this suite against the same strategy on the base (a git ref, or a stored report)."""

    kind = "comparison"

    def failure_kind(self, excinfo: pytest.ExceptionInfo[BaseException] | None) -> FailureKind:
        # Whatever failed it (a build too), the verdict says it through the comparison's own numbers, or as a
        # comparison that could not be made.
        return self.kind

    def runtest(self) -> None:
        state, node = state_of(self), self.strategy_node
        cmp = state.judgements.comparison(node.suite, node.reg.name, self.evaluation(), self.nodeid)
        if isinstance(cmp, Failed):  # no base to compare with
            self.fail_with(cmp)
        if cmp.status in ("new", "removed", "skipped"):
            pytest.skip(messages.no_comparison(node.reg.name, cmp.status, comparison_text.reason(cmp)))
        if cmp.failed:
            o = state.options
            raise ReportedFailure(messages.comparison_failure(
                cmp, against=messages.compared_with(o.base, o.compare), k=o.k, tolerance=o.regression_tolerance,
                alpha=o.regression_alpha, correction=o.regression_correction,
                family_size=state.judgements.family()[1], size_increase=o.regression_size_increase))


def comparison_name(state: RunState) -> str:
    """The name of a strategy's comparison item: against a git ref, or against a stored report."""
    return "vs-base" if state.base.comparing == "base" else "regression"
