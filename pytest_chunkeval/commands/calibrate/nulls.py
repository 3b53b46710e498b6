"""Null pull requests: changes that should move nothing, run through the whole decision many times.

**Sign flips.** Each strategy of a suite is paired with the next one in the report (the last with the first). In a
simulated run, for every query, base and head take the two strategies' real per-query values in random order: the
real paired difference with a random sign, which is exactly what "the change did nothing" means to a paired
randomization test, with each suite's own spread, ties and correlation between NDCG, Recall and the hits. Every
strategy is changed in every run, so the family is as large as a real run that changed everything: the hardest case
for the correction. A run is a false alarm when any test of the family regressed (the check turned red); the rate is
over whole runs, per suite (the suite alone is the run) and over all suites at once (one family, as a run over
several suites is).

**Same tree.** Head and base are the report itself: every strategy is unchanged, nothing is tested, nothing fails.

Every run calls the real decision: :func:`~pytest_chunkeval.judges.comparison.compare_run` once, then
:func:`~pytest_chunkeval.judges.comparison.judge` again for each other correction and scope on the same
comparisons (judge reads only the raw p-values and falls, so re-judging is what a run with that setting decides).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from pytest_chunkeval.commands.calibrate.sides import Table, paired_ids, rng, rows, shell, side, table
from pytest_chunkeval.judges.comparison import Policy, StrategyComparison, compare_run, judge
from pytest_chunkeval.results.typed import QueryResult, SuiteResult

ALL = "all suites"  # the scope of one family over every suite


@dataclass(frozen=True)
class Pair:
    """A changed strategy ``table`` and the per-query results of its own values (``mine``) and its partner's."""

    table: Table
    mine: list[QueryResult]
    partner: list[QueryResult]


@dataclass(frozen=True)
class NullPlan:
    """What a sign-flip run needs: each suite's shell and its pairs of real per-query gating values."""

    shells: dict[str, SuiteResult]
    pairs: dict[str, list[Pair]]

    @property
    def scopes(self) -> list[str]:
        """Every suite alone, and all of them together when there are several."""
        return ([ALL] if len(self.pairs) > 1 else []) + list(self.pairs)

    def keys(self, scope: str) -> list[str]:
        return list(self.pairs) if scope == ALL else [scope]

    def changed(self, scope: str) -> int:
        return sum(len(self.pairs[key]) for key in self.keys(scope))


def plan(suites: dict[str, SuiteResult], k: int) -> NullPlan:
    """Pair every evaluated strategy with the next one, per suite; a suite with fewer than two is left out."""
    shells: dict[str, SuiteResult] = {}
    pairs: dict[str, list[Pair]] = {}
    for key, suite in suites.items():
        labels = [label for label, r in suite.strategies.items() if r.evaluated]
        ids = paired_ids(suite, labels)
        tables = [t for t in (table(suite.strategies[label], ids, k) for label in labels) if t is not None]
        if len(tables) < 2:
            continue
        shells[key] = shell(suite, ids)
        own = [rows(t, t.values, t.hits) for t in tables]
        pairs[key] = [Pair(t, own[i], rows(t, (p := tables[(i + 1) % len(tables)]).values, p.hits))
                      for i, t in enumerate(tables)]
    return NullPlan(shells, pairs)


def flipped_sides(p: NullPlan, g: np.random.Generator) -> tuple[dict[str, SuiteResult], dict[str, SuiteResult]]:
    """(bases, heads) of one run: per query, a coin decides which of the pair's two values is head's."""
    bases: dict[str, SuiteResult] = {}
    heads: dict[str, SuiteResult] = {}
    for key, pairs in p.pairs.items():
        base, head = shell(p.shells[key]), shell(p.shells[key])
        for pair in pairs:
            flip = (g.random(len(pair.mine)) < 0.5).tolist()
            swapped = [(b, a) if f else (a, b) for a, b, f in zip(pair.mine, pair.partner, flip, strict=True)]
            base.strategies[pair.table.label] = side(pair.table, [a for a, _ in swapped], "base")
            head.strategies[pair.table.label] = side(pair.table, [b for _, b in swapped], "head")
        bases[key], heads[key] = base, head
    return bases, heads


@dataclass
class NullRates:
    """Runs of one kind of null change in one scope, and how many turned the check red under each correction."""

    kind: str  # "sign flips" | "same tree"
    scope: str  # a suite key, or ALL
    changed: int  # strategies changed per run
    family: int  # gating tests per run (the family the correction adjusts over)
    runs: int = 0
    red: dict[str, int] = field(default_factory=dict)  # correction -> runs that failed

    def rate(self, correction: str) -> float:
        return self.red.get(correction, 0) / self.runs if self.runs else 0.0

    def add(self, other: NullRates) -> None:
        self.runs += other.runs
        for c, n in other.red.items():
            self.red[c] = self.red.get(c, 0) + n


def _red(family: Sequence[StrategyComparison]) -> bool:
    return any(c.failed for c in family)


def sign_flips(p: NullPlan, policy: Policy, corrections: Sequence[str], runs: Iterable[int],
               seed: int) -> list[NullRates]:
    """Sign-flip runs numbered ``runs`` (each seeded by its number, so any split of the numbers adds up to the same
    counts), judged under every correction in every scope."""
    out = {scope: NullRates("sign flips", scope, p.changed(scope), 0, red={c: 0 for c in corrections})
           for scope in p.scopes}
    for r in runs:
        bases, heads = flipped_sides(p, rng(seed, "null", r))
        comparisons, _ = compare_run(dict(bases), heads, replace(policy, correction=corrections[0]))
        for scope, rates in out.items():
            family = [c for key in p.keys(scope) for c in comparisons[key].strategies.values()]
            for correction in corrections:
                rates.family = judge(family, replace(policy, correction=correction))
                rates.red[correction] += _red(family)
            rates.runs += 1
    return list(out.values())


def same_tree(suites: dict[str, SuiteResult], policy: Policy, corrections: Sequence[str]) -> list[NullRates]:
    """The report against itself, once per scope and correction (deterministic: one run says it all)."""
    scopes = ([ALL] if len(suites) > 1 else []) + list(suites)
    out = []
    for scope in scopes:
        keys = list(suites) if scope == ALL else [scope]
        chosen = {key: suites[key] for key in keys}
        rates = NullRates("same tree", scope, 0, 0, runs=1, red={})
        for correction in corrections:
            comparisons, size = compare_run(dict(chosen), chosen, replace(policy, correction=correction))
            family = [c for suite in comparisons.values() for c in suite.strategies.values()]
            rates.family = size
            rates.changed = sum(c.status == "changed" for c in family)
            rates.red[correction] = int(_red(family))
        out.append(rates)
    return out
