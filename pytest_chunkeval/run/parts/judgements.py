"""Every judgement of a run, made once and kept: each result against the baseline (what the gate items judge) and
each compared strategy against the base (one family, p adjusted across it). Items, the summary and the report read
the same values. The baseline a gate item judges against (:meth:`Judgements.baseline`) and the base a comparison item
needs (:meth:`Judgements.comparison`) are asked for here, of the head and base sides, so the items only report what
they get back: a value, or a typed failure."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_chunkeval.run.parts.context import ModelContext, ModelPart

if TYPE_CHECKING:
    from pytest_chunkeval.chunking.contract import Registration
    from pytest_chunkeval.core.golden import GoldenSuite
    from pytest_chunkeval.evaluation.evaluate import StrategyRun
    from pytest_chunkeval.judges.comparison import StrategyComparison, SuiteComparison
    from pytest_chunkeval.results.decisions import AgainstBaseline
    from pytest_chunkeval.results.typed import SuiteResult
    from pytest_chunkeval.run.parts.base_side import BaseSide
    from pytest_chunkeval.run.parts.catalog import Catalog
    from pytest_chunkeval.run.parts.failures import Evaluated, Failed
    from pytest_chunkeval.run.parts.head_side import HeadSide

#: (suite key, row label): one result of the run.
RowKey = tuple[str, str]


class Judgements(ModelPart):
    """The judgements of one run (of one model)."""

    def __init__(self, context: ModelContext, catalog: Catalog, head: HeadSide, base: BaseSide) -> None:
        super().__init__(context)
        self.catalog = catalog
        self.head = head
        self.base = base
        # every comparison item this run runs: the family whose tests can fail it
        self.compared: set[RowKey] = set()
        self._compared_runs: list[tuple[GoldenSuite, Registration, str]] = []
        self._family: tuple[dict[str, SuiteComparison], int] | None = None  # (suite key -> comparison, family size)
        self._against: dict[RowKey, AgainstBaseline] = {}  # judged by a gate item, read again by the summary

    # -- against the baseline ---------------------------------------------------------------------------------
    def baseline(self, suite: GoldenSuite, mode: str) -> Evaluated | Failed | None:
        """The baseline on ``suite`` searched with ``mode``, evaluated as its own items would (None when it is not
        registered); a strategy that cannot be built raises here, as it does at collection."""
        reg = self.catalog.load_strategies().get(self.options.baseline)
        if reg is None:
            return None
        return self.head.evaluation(suite, reg, mode, self.catalog.strategy(reg))

    def against_baseline(self, suite: GoldenSuite, run: StrategyRun, base: StrategyRun) -> AgainstBaseline | None:
        """``run`` against ``base``, the baseline's run searched the same way: judged once per (suite, row label)
        and kept, so the gate items and every output read the same value."""
        from pytest_chunkeval.judges.against_baseline import against
        from pytest_chunkeval.results.typed import StrategyResult

        label = self.catalog.label
        key = (self.catalog.suite_key(suite), label(run.name, run.mode))
        if key not in self._against:
            o = self.options
            result, baseline = (StrategyResult.from_run(r, key[0], label(r.name, r.mode)) for r in (run, base))
            judged = against(result, baseline, o.baseline, o.k, o.thresholds)
            if judged is None:
                return None
            self._against[key] = judged
        return self._against[key]

    def judge(self, suites: dict[str, SuiteResult]) -> None:
        """Every result of ``suites`` against its baseline, reusing what a gate item judged already."""
        from pytest_chunkeval.judges.against_baseline import judge_suites

        o = self.options
        judge_suites(suites, o.baseline, o.k, o.thresholds, known=self._against)

    # -- against the base ----------------------------------------------------------------------------------------
    def compare_item(self, suite: GoldenSuite, reg: Registration, mode: str) -> None:
        """Collection: a comparison item of (suite, strategy, mode) will run, so it belongs to the family."""
        self.compared.add((self.catalog.suite_key(suite), self.catalog.label(reg.name, mode)))
        self._compared_runs.append((suite, reg, mode))

    def received(self, compared: Iterable[Sequence[str]]) -> None:
        """An xdist controller: the (suite key, row label) pairs its workers' comparison items ran (it runs none)."""
        self.compared.update((str(key), str(label)) for key, label in compared)

    def family(self, heads: dict[str, SuiteResult] | None = None) -> tuple[dict[str, SuiteComparison], int]:
        """Every comparison this run's items make, decided once as one family (p adjusted across it): the items,
        the summary and the report read the same objects. ``heads`` (suite key -> SuiteResult) when the results are
        already collected (an xdist controller, which runs no item); else the compared strategies are evaluated."""
        if self._family is None:
            from pytest_chunkeval.judges.comparison import compare_run

            if heads is None:
                heads = self._compared_heads()
            wanted = {key: head for key, head in heads.items() if any(k == key for k, _ in self.compared)}
            for key, head in wanted.items():
                head_labels = {label for k, label in self.compared if k == key}
                wanted[key] = replace(head, strategies={n: r for n, r in head.strategies.items() if n in head_labels})
            base = self.base.suites()
            self._family = compare_run({key: base.get(key) for key in wanted}, wanted, self.options.policy)
        return self._family

    def _compared_heads(self) -> dict[str, SuiteResult]:
        """The results of every compared (suite, strategy, mode) that could be evaluated, evaluated as the items
        would. One strategy's failed build must not become every other strategy's comparison error."""
        from pytest_chunkeval.run.parts.failures import Evaluated

        catalog = self.catalog
        by_suite: dict[Path, tuple[GoldenSuite, dict[str, StrategyRun]]] = {}
        for suite, reg, mode in self._compared_runs:
            # A strategy that did not build: its own items say why (the head side keeps the failure for them), and
            # the others are compared without it.
            try:
                got = self.head.evaluation(suite, reg, mode, catalog.strategy(reg))
            except Exception:  # noqa: BLE001 - one that cannot be constructed: its build item says why
                continue
            if isinstance(got, Evaluated):
                by_suite.setdefault(suite.path.resolve(), (suite, {}))[1][catalog.label(reg.name, mode)] = got.run
        return {catalog.suite_key(suite): self.head_suite(suite, runs) for suite, runs in by_suite.values()}

    def head_suite(self, suite: GoldenSuite, runs: dict[str, StrategyRun]) -> SuiteResult:
        """``runs``: row label -> StrategyRun."""
        from pytest_chunkeval.results.typed import StrategyResult, SuiteResult, suite_key

        key = self.catalog.suite_key(suite)
        head = SuiteResult.from_suite(key, suite, suite_key(suite.corpus_dir, self.options.rootdir))
        head.strategies = {label: StrategyResult.from_run(run, key, label) for label, run in runs.items()}
        return head

    def comparison(self, suite: GoldenSuite, name: str, run: StrategyRun,
                   asker: str) -> StrategyComparison | Failed:
        """``name`` searched with ``run.mode`` against the same strategy and mode on the base side, as the family
        decided it; or the failure that stops every comparison (no base to compare with), which ``asker``, when the
        first to meet it, reports in full."""
        if self._family is None:
            heads = self._compared_heads()  # the family's heads are evaluated before the base is
            refused = self.base.refusal(asker)
            if refused is not None:
                return refused
            self.family(heads)
        label = self.catalog.label(name, run.mode or self.options.retrieval_modes[0])
        return self.family()[0][self.catalog.suite_key(suite)].strategies[label]

    def comparisons(self, heads: dict[str, SuiteResult],
                    base: dict[str, SuiteResult]) -> tuple[dict[str, SuiteComparison], int]:
        """Every suite of ``heads`` against ``base`` for the summary, with what the family decided: comparisons
        outside the family (their items deselected) are shown, never judged. Returns them and the family size."""
        from pytest_chunkeval.judges.comparison import compare_suite

        family, size = self.family(heads)
        comparisons = {key: compare_suite(base.get(key), head, self.options.policy) for key, head in heads.items()}
        for key, judged in family.items():
            comparisons[key].strategies.update(judged.strategies)
        self._drop_unselected(comparisons)
        return comparisons, size

    def _drop_unselected(self, comparisons: dict[str, SuiteComparison]) -> None:
        """A strategy the base evaluated and head did not is "removed" only when head has no such strategy: one
        left out by --chunkeval-strategies or -k was not removed, and is not listed at all."""
        try:
            known = set(self.catalog.strategy_set().available)
        except Exception:  # an xdist controller that cannot load the strategies: show every row
            return
        for suite in comparisons.values():
            for label in [n for n, c in suite.strategies.items() if c.status == "removed"]:
                if label.split("[", 1)[0] in known:
                    del suite.strategies[label]
