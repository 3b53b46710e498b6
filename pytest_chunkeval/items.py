"""The pytest nodes: a golden file collects one node per strategy, which collects its query and quality items.

Node ids read like ``golden/avap/queries.yaml::fixed_size::error-handling``, so ``-k fixed_size`` or
``-k error-handling`` select what a user expects. With several retrieval modes (``--chunkeval-retrieval
vector,hybrid``) a golden file collects one node per strategy and mode, ``…::fixed_size[vector]::error-handling``, so
``-k vector`` selects a mode; with one mode the ids stay as they were. With several models (``--chunkeval-model
A,B``) each strategy node is also labelled by its model, ``…::fixed_size@all-mpnet-base-v2::error-handling`` (the
first model's too), and evaluates with that model's state (:meth:`ChunkevalState.model_states`).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

import pytest

from pytest_chunkeval.golden import GoldenError, GoldenSuite
from pytest_chunkeval.grid import keyword
from pytest_chunkeval.output.escape import log_text
from pytest_chunkeval.strategy import Registration
from pytest_chunkeval.tolerated import MARK_ARGS, dependency_warnings
from pytest_chunkeval.verdict import FailureKind
from pytest_chunkeval.vocabulary import RECALL, metric_key

if TYPE_CHECKING:
    from pytest_chunkeval.evaluate import QueryOutcome, StrategyRun
    from pytest_chunkeval.session import ChunkevalState

STATE_KEY: pytest.StashKey[ChunkevalState] = pytest.StashKey()
QUALITY_CHECKS = ("lossless", "size-limit", "token-window", "fallback")


def state_of(node: pytest.Item | pytest.Collector) -> ChunkevalState:
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
            suite = state.suite(self.path)
            state.accepted_for(suite)  # a damaged record stops this suite once, here, not every item later
            strategies = state.load_strategies()  # two project files defining one name: said here
        except (GoldenError, ValueError) as exc:
            raise self.CollectError(str(exc)) from None
        modes = state.options.retrieval_modes
        for each in state.model_states():
            for name, reg in strategies.items():
                for mode in modes:
                    node = StrategyNode.from_parent(self, name=each.node_label(name, mode), suite=suite, reg=reg,
                                                    mode=mode, state=each)
                    if reg.point:  # `-k` cannot type the label's "=" and ",": the point answers to this too
                        node.extra_keyword_matches.add(keyword(reg.strategy_name, reg.point))
                    yield node


class StrategyNode(pytest.Collector):
    """One strategy on one suite, searched with one retrieval mode (its items share the evaluation)."""

    def __init__(self, *, suite: GoldenSuite, reg: Registration, mode: str, state: ChunkevalState, **kw: Any) -> None:
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
            strategy = state.strategy(self.reg)
        except Exception as exc:  # its own items fail; every other strategy is still evaluated and reported
            if self.mode == state.options.retrieval_modes[0]:  # one item, whatever the number of modes
                yield BuildFailedItem.from_parent(self, name="build", message=build_error(self.reg, exc))
            return
        from pytest_chunkeval.evaluate import skip_reason

        reason = skip_reason(self.suite, strategy)
        if reason:
            yield SkippedStrategyItem.from_parent(self, name="skipped", reason=reason)
            return
        for q in self.suite.queries:
            yield QueryItem.from_parent(self, name=q.id, query_id=q.id)
        if self.mode == state.options.retrieval_modes[0]:  # chunk checks do not depend on the search: once
            for check in QUALITY_CHECKS:
                yield QualityItem.from_parent(self, name=f"quality[{check}]", check=check)
        if state.comparing:
            yield ComparisonItem.from_parent(self, name="vs-base" if state.comparing == "base" else "regression")
        if state.options.gated(self.reg.name, self.reg.strategy_name):
            from pytest_chunkeval.scoring.gates import GATE_NAMES

            for gate in GATE_NAMES:
                yield GateItem.from_parent(self, name=f"gate[{gate}]", gate=gate)


class KindedFailure(AssertionError):
    """A failure that says its own kind for the verdict, whichever item raised it (None: the item's kind)."""

    kind: ClassVar[FailureKind | None] = None


class ReportedFailure(KindedFailure):
    """A failure whose message is the whole report: measured values, thresholds, examples."""


class BuildFailure(ReportedFailure):
    """A strategy that failed to build, met by whichever of its items asked first: a build failure, not the item's."""

    kind = "build"


def build_error(reg: Registration, exc: BaseException) -> str:
    """Why ``reg`` could not be built, in one line a reviewer can act on: a config's or grammar's own
    ``file:line: $.path: reason`` as written (they name their file), else the exception with its type and the
    place that registered the strategy."""
    if isinstance(exc, ValueError) and str(exc):
        return "; ".join(line for line in str(exc).splitlines() if line.strip())
    where = reg.provider or reg.origin
    return f"{type(exc).__name__}: {exc} ({where})"


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
        return report

    @property
    def head_line(self) -> str | None:
        return self.nodeid


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

    def evaluation(self) -> StrategyRun:
        """The (memoised) evaluation of this item's strategy on its suite.

        A failed evaluation is reported in full by the first item that asks; every later item of the same
        evaluation fails with one line pointing there. Re-raising the stored exception would grow its traceback
        with every item and flood the log.
        """
        node = self.strategy_node
        state = state_of(self)
        key = (node.suite.path.resolve(), node.reg.name, node.mode)
        first = state.failed_evaluations.get(key)
        if first is not None:
            if getattr(state.evaluator().runs.get(key), "failed", None):  # a failed build: said once, by ``first``
                pytest.skip(f"{node.reg.name} failed to build: see {first}")
            raise ReportedFailure(f"the evaluation of {node.name} on this suite failed: see {first}")
        from pytest_chunkeval.evaluate import BuildFailed

        try:
            return state.evaluator().run(node.suite, node.reg, state.strategy(node.reg), node.mode)
        except BuildFailed as exc:  # as BuildFailedItem does: the strategy's row says "failed", in every mode
            for mode in state.options.retrieval_modes:
                state.failed_evaluations[(key[0], key[1], mode)] = self.nodeid
                state.evaluator().fail(node.suite, node.reg.name, mode, str(exc))
            raise BuildFailure(f"{node.reg.name} failed to build: {exc}") from None
        except Exception:
            state.failed_evaluations[key] = self.nodeid
            raise

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
        pytest.skip(f"{self.strategy_node.reg.name}: {self.reason}")


class BuildFailedItem(EvalItem):
    """The one item of a strategy that cannot be built on this suite: it fails with the reason, and the summary,
    the report and the comparison with a base show the strategy as failed instead of leaving it out."""

    kind = "build"

    def __init__(self, *, message: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.message = message

    def runtest(self) -> None:
        state = state_of(self)
        node = self.strategy_node
        for mode in state.options.retrieval_modes:
            state.evaluator().fail(node.suite, node.reg.name, mode, self.message)
        raise BuildFailure(f"{node.reg.name} failed to build: {self.message}")


class QueryMiss(KindedFailure):
    kind = "miss"


class QueryFixed(KindedFailure):
    kind = "fixed"


def describe_outcome(outcome: QueryOutcome, k: int) -> list[str]:
    from pytest_chunkeval.scoring.metrics import chunk_grade

    q = outcome.query
    # A file name or a query's text may hold a newline: shown escaped, it can never start a line of the log of its
    # own (a workflow command in GitHub Actions).
    lines = [f"query {q.id!r}: {log_text(q.text)}", "relevant:"]
    for r in q.relevant:
        span = f" lines {r.lines[0]}-{r.lines[1]}" if r.lines else ""
        lines.append(f"  {log_text(r.path)}{span} (grade {r.grade})")
    lines.append(f"top {k} retrieved:")
    for i, hit in enumerate(outcome.ranking, 1):
        mark = "✓" if chunk_grade(hit.path, hit.start_line, hit.end_line, q.relevant) else " "
        lines.append(f"  {i:2d}. {mark} {log_text(hit.path)}:{hit.start_line}-{hit.end_line}  score {hit.score:.4f}")
    if not outcome.ranking:
        lines.append("  (nothing)")
    m = outcome.metrics
    lines.append(
        "metrics: " + ", ".join(f"{mode} " + " ".join(f"{k_}={v:.3f}" for k_, v in m[mode].items()) for mode in m)
    )
    return lines


class QueryItem(EvalItem):
    def __init__(self, *, query_id: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.query_id = query_id

    def runtest(self) -> None:
        state = state_of(self)
        node = self.strategy_node
        run = self.evaluation()
        outcome = run.outcomes[self.query_id]
        self.outcome = outcome
        state.record(node.suite, node.reg.name, self.query_id, outcome.hit, node.mode, node.reg.family)
        if state.options.accept_misses:
            return
        if node.reg.point and not state.options.gate_grid:  # a sweep measures its points; it does not gate them
            if not outcome.hit:
                pytest.xfail("missed at a grid point: measured, not gated (--chunkeval-gate-grid fails it)")
            return
        record, settings = state.accepted_for(node.suite), state.settings_key_for(node.mode)
        if not record.holds(settings):  # nothing recorded yet: listed at the end, with the command that records it
            if not outcome.hit:
                pytest.xfail(f"missed; {record.path} holds no record for {settings} yet")
            return
        ids, own = record.accepted(settings, node.reg.name, node.reg.family)
        accepted = self.query_id in ids
        if not outcome.hit and accepted:
            whose = "" if own else f" for {node.reg.family}"
            pytest.xfail(f"accepted miss (recorded{whose} in {record.path.name})")
        if not outcome.hit:
            raise QueryMiss("none of the relevant items is in the top k")
        if accepted and own:
            raise QueryFixed("recorded as an accepted miss but now retrieved")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, (QueryMiss, QueryFixed)):
            state = state_of(self)
            k, name = state.options.k, self.strategy_node.name
            criterion = "hits are judged per chunk; the file-mode metrics below credit any chunk of a relevant file"
            if isinstance(excinfo.value, QueryMiss):
                head = f"MISS: {name}: no chunk in the top {k} overlaps a relevant line span ({criterion})"
                tail = ["If this miss is expected, record it: run the same command with --chunkeval-accept-misses."]
            else:
                head = (f"FIXED: {name}: a chunk in the top {k} now overlaps a relevant line span, but the query is "
                        f"recorded as an accepted miss; refresh the record with --chunkeval-accept-misses "
                        f"({state.accepted_for(self.strategy_node.suite).path})")
                tail = []
            node = self.strategy_node
            base = state.base_rank(node.suite, node.reg.name, self.query_id, node.mode) if state.comparing else None
            if base:
                head += f"\n{name} {base}"
            return "\n".join([head, *describe_outcome(self.outcome, k), *tail])
        return super().repr_failure(excinfo)


class QualityItem(EvalItem):
    def __init__(self, *, check: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.check = check
        self.kind = "fallback" if check == "fallback" else "quality"

    def runtest(self) -> None:
        run = self.evaluation()
        facts = run.facts
        q = facts.quality
        assert q is not None
        name = run.name
        if self.check == "lossless":
            if not q.claims_lossless:
                pytest.skip(f"{name} does not claim to be lossless (line coverage {q.coverage:.1%})")
            if q.uncovered:
                raise ReportedFailure(
                    f"{name} claims to be lossless but {len(q.uncovered)} of {q.lines_checked} non-blank lines"
                    " are in no chunk:\n"
                    + "\n".join(f"  {log_text(str(u))}" for u in q.uncovered[:15])
                )
        elif self.check == "size-limit":
            if q.max_chunk_size is None:
                pytest.skip(f"{name} declares no size limit (largest chunk: {q.largest} {q.size_unit})")
            if q.over_limit:
                raise ReportedFailure(
                    f"{len(q.over_limit)} of {q.chunks} chunks exceed {name}'s limit of"
                    f" {q.max_chunk_size} {q.size_unit}:\n"
                    + "\n".join(f"  {log_text(str(o))}" for o in q.over_limit[:15])
                )
        elif self.check == "fallback":
            limit = state_of(self).options.max_fallback
            share = len(facts.fallbacks) / facts.files_handled if facts.files_handled else 0.0
            if share > limit:
                raise ReportedFailure(
                    f"{name}'s own chunking failed on {len(facts.fallbacks)} of {facts.files_handled} files "
                    f"({share:.0%}), more than chunkeval_max_fallback allows ({limit:.0%}): those files were cut into "
                    f"fixed windows instead, so this row does not measure {name} there.\n"
                    f"first: {log_text(str(facts.fallbacks[0]))}\n{_timed_out(facts.fallbacks[1:])}"
                    "Fix the strategy, or allow a share explicitly: --chunkeval-max-fallback=0.1 "
                    "(ini chunkeval_max_fallback)"
                )
        elif self.check == "token-window":
            summary = (f"{q.over_window} of {q.chunks} chunks ({q.window_share:.1%}) exceed the embedder's"
                       f" {q.window_tokens}-token window and are truncated")
            if not q.fits_window:
                pytest.skip(f"{name} does not promise to fit the window: {summary}")
            if q.over_window:
                raise ReportedFailure(
                    f"{name} promises every chunk fits, but {summary}:\n"
                    + "\n".join(f"  {log_text(str(e))}" for e in q.over_window_examples)
                )



def _timed_out(fallbacks: list[str]) -> str:
    """The fallbacks past the first that ran out of time, one line each: a hang is worth naming even when another
    file failed first."""
    from pytest_chunkeval.chunking.boundary import LIMIT_SETTING

    return "".join(f"timed out: {f}\n" for f in fallbacks if f.endswith(f"({LIMIT_SETTING})"))


class GateItem(EvalItem):
    """One acceptance gate of a candidate strategy against the baseline on this suite."""

    kind = "gate"

    def __init__(self, *, gate: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.gate = gate

    def runtest(self) -> None:
        from pytest_chunkeval.scoring.gates import GATE_METRIC

        state = state_of(self)
        node = self.strategy_node
        baseline = state.options.baseline
        regs = state.load_strategies()
        if baseline not in regs:
            raise ReportedFailure(f"baseline strategy {baseline!r} is not registered; gates compare against it")
        run = self.evaluation()
        base = state.evaluator().run(node.suite, regs[baseline], state.strategy(regs[baseline]), node.mode)
        if base.skipped:
            pytest.skip(f"baseline {baseline} was skipped on this suite: {base.skipped}")
        if base.failed:
            raise ReportedFailure(f"baseline {baseline} failed to build on this suite: {base.failed}")
        k, t = state.options.k, state.options.thresholds
        # The run's one judgement of this result: the report's gates and the summary's gates column read it too.
        judged = state.against_baseline(node.suite, run, base)
        result = next(g for g in judged.gates or () if g.name == self.gate)
        if not result.passed:
            metric = metric_key(GATE_METRIC.get(self.gate, RECALL), k)
            worst = sorted(
                run.outcomes,
                key=lambda q: run.outcomes[q].metrics[t.mode][metric] - base.outcomes[q].metrics[t.mode][metric],
            )[:5]
            against = baseline if node.name == node.reg.name else f"{baseline}[{node.mode}]"
            lines = [f"{node.name} fails gate {self.gate} against {against}: {result.detail}"]
            if self.gate != "index-size":
                lines.append(f"worst queries ({metric}, {t.mode} mode, candidate vs baseline):")
                lines += [
                    f"  {q}: {run.outcomes[q].metrics[t.mode][metric]:.3f}"
                    f" vs {base.outcomes[q].metrics[t.mode][metric]:.3f}"
                    f" — {log_text(run.outcomes[q].query.text)}"
                    for q in worst
                ]
            raise ReportedFailure("\n".join(lines))



class ComparisonItem(EvalItem):
    """This strategy on this suite against the same strategy on the base (a git ref, or a stored report)."""

    kind = "comparison"

    def failure_kind(self, excinfo: pytest.ExceptionInfo[BaseException] | None) -> FailureKind:
        # Whatever failed it (a build too), the verdict says it through the comparison's own numbers, or as a
        # comparison that could not be made.
        return self.kind

    def runtest(self) -> None:
        from pytest_chunkeval.base_ref import BaseRefError

        state = state_of(self)
        node = self.strategy_node
        run = self.evaluation()
        try:
            cmp = state.comparison(node.suite, node.reg.name, run)
        except (BaseRefError, ValueError) as exc:  # no base to compare with: said once, in full
            first = state._base_failure_item
            if first is not None:  # said once in full, at the first item; the rest point there
                raise ReportedFailure(f"the base could not be evaluated: see {first}") from None
            state._base_failure_item = self.nodeid
            raise ReportedFailure(str(exc)) from None
        if cmp.status in ("new", "removed", "skipped"):
            pytest.skip(f"{node.reg.name}: no comparison ({cmp.status}: {cmp.reason})")
        if cmp.failed:
            raise ReportedFailure("\n".join(map(log_text, self.describe(cmp))))

    def describe(self, cmp: Any) -> list[str]:
        state = state_of(self)
        o, k = state.options, state.options.k
        against = f"base {o.base}" if state.comparing == "base" else str(o.compare)
        size = state.family()[1]
        alpha = (f"a paired p below {o.regression_alpha} after {o.regression_correction} adjustment across the "
                 f"run's {size} gating tests" if o.regression_alpha is not None else "no significance required")
        lines = [f"{cmp.strategy} got worse than on {against} ({cmp.paired} paired queries; a fall of file-mode "
                 f"NDCG or R counts past {o.regression_tolerance} with {alpha}; index growth of "
                 f"{o.regression_size_increase:.0%} fails):"]
        lines += [f"  {p}" for p in cmp.problems()]
        if cmp.lost:
            lines.append(f"lost queries (a relevant chunk in the top {k} on base, none on head):")
            for q in cmp.lost[:10]:
                spans = ", ".join(f"{r.path}:{r.lines[0]}-{r.lines[1]}" if r.lines else r.path for r in q.relevant)
                lines.append(f"  {q.id}: rank {q.base_rank} -> none — {q.text}")
                lines.append(f"    relevant {spans}; chunks there on base: "
                             + (", ".join(c.label for c in q.base_chunks) or "none")
                             + "; on head: "
                             + (", ".join(c.label for c in q.head_chunks) or "none"))
            if len(cmp.lost) > 10:
                lines.append(f"  … and {len(cmp.lost) - 10} more (every one is in the Markdown and JSON reports)")
        if cmp.files_rechunked:
            lines.append(f"chunk boundaries moved in {len(cmp.files_rechunked)} files ({cmp.base_chunks} -> "
                         f"{cmp.head_chunks} chunks)")
        lines += [f"new warning: {w}" for w in cmp.new_warnings[:5]]
        return lines
