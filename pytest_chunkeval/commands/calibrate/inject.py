"""Regressions of known size: how often the check catches a fall of 1, 2 and 4 times the effect it says it detects.

**The loss.** For a query, every chunk of the first relevant file in the stored top k is moved below rank k: what a
chunker change that loses the chunk which found that file does (the function cut so that no piece matches, the
chunk dropped), with nothing else of the ranking changed. The query's gating metrics are recomputed from the stored
ranking and the query's relevant items with the real metric functions (``evaluate_query``), and so are the untouched
values, which must equal the report's (``mismatches`` counts those that do not).

**Two kinds of change.** *Clean*: head is base, except that each query loses with probability ``share``. *Churn*:
head and base are first the strategy and its partner in random order per query, as in a null pull request (a change
that moves many queries both ways and on average nothing), and head then loses with probability ``share`` as well.
Real changes look like the second; the first is the easiest case for a paired test (every moved query fell).

**Its size, and why the queries are resampled.** The minimum detectable effect (``MetricDelta.mde``) is a claim about
the population of queries a suite samples: a true fall of one MDE is detected with 80 % power at the family's
per-test alpha. So each run draws a suite of the same size from the suite's queries with replacement (a bootstrap
sample; the observed fall then varies as it would from one sample of queries to another) and loses each drawn query
with probability ``share``. ``share`` is chosen, exactly from the suite's per-query numbers, where the population's
expected NDCG fall is ``factor`` times its MDE under the first correction (the real
:func:`~pytest_chunkeval.scoring.family.mde` on the population's spread of differences). Each run calls
:func:`~pytest_chunkeval.judges.comparison.compare_run`, and ``judge`` again for the other corrections. The strategy
is the only one changed, so the family is its own gating tests, as in a pull request that touches one strategy; a
larger family raises the MDE the report prints, not the method.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from pytest_chunkeval.commands.calibrate.sides import Table, paired_ids, query_result, rng, shell, side, table
from pytest_chunkeval.core.ranking import ChunkRef, Ranked, Relevant
from pytest_chunkeval.judges.comparison import Policy, compare_run, judge
from pytest_chunkeval.results.typed import SuiteResult
from pytest_chunkeval.scoring.family import TESTS_PER_CHANGE, mde, per_test_alpha
from pytest_chunkeval.scoring.metrics import evaluate_query, file_grades, hit

KINDS = ("clean", "churn")
GRID = 2000  # shares tried when solving for the size (0 < share <= 1)


def demoted(ranking: tuple[Ranked, ...], relevant: tuple[Relevant, ...], k: int) -> tuple[Ranked, ...] | None:
    """``ranking`` with every chunk of the first relevant file of its top ``k`` moved below rank ``k`` (dropped: the
    report keeps the top k only); None when no relevant file is in the top k (nothing to lose)."""
    grades = file_grades(relevant)
    target = next((r.path for r in ranking[:k] if grades.get(r.path, 0) > 0), None)
    if target is None:
        return None
    return tuple(r for r in ranking if r.path != target)


def _scores(ranking: tuple[Ranked, ...], relevant: tuple[Relevant, ...], chunks: tuple[ChunkRef, ...], k: int,
            columns: tuple[tuple[str, str], ...]) -> list[float]:
    out = evaluate_query(ranking, relevant, chunks, k)
    return [float(out[mode][metric]) for mode, metric in columns]


@dataclass(frozen=True)
class Lossy:
    """One strategy's gating values over some queries, as they are and with each query's first relevant file lost."""

    table: Table  # recomputed from the stored rankings (values and hits)
    lowered: np.ndarray  # the same with the loss applied to every query (unchanged where there is nothing to lose)
    lowered_hits: np.ndarray  # each query's hit with the loss applied
    mismatches: int  # stored values and hits the recomputation did not reproduce (0 expected)

    @property
    def drop(self) -> np.ndarray:
        """How much the loss lowers the first gating metric (file-mode NDCG), per query (0: nothing to lose)."""
        return self.table.values[:, 0] - self.lowered[:, 0]


def lossy(suite: SuiteResult, label: str, ids: tuple[str, ...], k: int) -> Lossy | None:
    """``label``'s gating values over ``ids`` recomputed from its stored rankings, with and without the loss; None
    when it has no numbers or the report holds no rankings to recompute from."""
    result = suite.strategies[label]
    stored = table(result, ids, k)
    if stored is None or not any(result.queries[q].ranking for q in ids):
        return None
    columns = stored.columns
    # Chunk mode's relevant set is the whole index; file mode needs none of it, so it is only read when gating asks.
    chunks = (tuple(ChunkRef(c.id, c.path, c.start_line, c.end_line) for c in result.chunks)
              if any(mode != "file" for mode, _ in columns) else ())
    base, low, hits, low_hits = [], [], [], []
    for q in ids:
        ranking, relevant = result.queries[q].ranking, suite.queries[q].relevant
        now = _scores(ranking, relevant, chunks, k, columns)
        moved = demoted(ranking, relevant, k)
        base.append(now)
        low.append(now if moved is None else _scores(moved, relevant, chunks, k, columns))
        hits.append(hit(ranking, relevant, k))
        low_hits.append(hits[-1] if moved is None else hit(moved, relevant, k))
    values, found = np.array(base), np.array(hits, dtype=bool)
    mismatches = (int(np.count_nonzero(np.abs(values - stored.values) > 1e-9))
                  + int(np.count_nonzero(found != stored.hits)))
    return Lossy(replace(stored, values=values, hits=found), np.array(low), np.array(low_hits, dtype=bool),
                 mismatches)


@dataclass(frozen=True)
class Target:
    """A strategy to inject into: its own values and, for churn, its partner's (``sides[1]``)."""

    kind: str  # clean | churn
    shell: SuiteResult
    sides: tuple[Lossy, ...]

    @property
    def table(self) -> Table:
        return self.sides[0].table

    @property
    def mismatches(self) -> int:
        return sum(s.mismatches for s in self.sides)

    def population(self) -> tuple[np.ndarray, np.ndarray]:
        """(head minus base before the loss, what the loss takes from head's NDCG) for every equally likely unit:
        each query, and for churn each of its two orders."""
        own = self.sides[0]
        if len(self.sides) == 1:
            return np.zeros(len(own.table.ids)), own.drop
        other = self.sides[1]
        a, b = own.table.values[:, 0], other.table.values[:, 0]
        return np.concatenate([a - b, b - a]), np.concatenate([own.drop, other.drop])


def targets(suite: SuiteResult, k: int, kind: str) -> list[Target]:
    """Every evaluated strategy of ``suite``; for churn each with the next one as its partner (as the null pairs).
    Nothing for a report written before query sets were stored: without relevant items nothing can be recomputed."""
    if not suite.queries:
        return []
    labels = [label for label, r in suite.strategies.items() if r.evaluated]
    common = paired_ids(suite, labels)
    found = [lossy(suite, label, common if kind == "churn" else paired_ids(suite, [label]), k) for label in labels]
    usable = [x for x in found if x is not None]
    if kind == "churn":
        return [Target(kind, shell(suite), (x, usable[(i + 1) % len(usable)]))
                for i, x in enumerate(usable) if len(usable) > 1]
    return [Target(kind, shell(suite), (x,)) for x in usable]


def share_for(target: Target, factor: float, alpha: float) -> tuple[float, float, float]:
    """(share, expected fall, MDE) of the population: the smallest share of lost queries whose expected fall of the
    mean NDCG reaches ``factor`` times the MDE at per-test ``alpha`` of a suite of the same size (the largest ratio
    when none does; share 0 when nothing can be lost)."""
    change, drop = target.population()
    n = len(target.table.ids)
    if n < 2 or not np.any(drop > 1e-12):
        return 0.0, 0.0, 0.0
    s = np.linspace(1.0 / GRID, 1.0, GRID)
    mean_c, mean_x = change.mean(), drop.mean()
    # Per unit the difference is change - drop * B with B ~ Bernoulli(share): its mean and variance, exactly.
    second = (change**2).mean() - 2 * s * (change * drop).mean() + s * (drop**2).mean()
    fall = s * mean_x - mean_c
    spread = np.sqrt(np.maximum(second - fall**2, 0.0))
    detectable = (mde(1.0, n, alpha) or 0.0) * spread  # the real formula, linear in the spread
    ratio = fall / np.maximum(detectable, 1e-12)
    i = int(np.argmax(ratio >= factor)) if np.any(ratio >= factor) else int(np.argmax(ratio))
    return float(s[i]), float(fall[i]), float(detectable[i])


@dataclass
class Detection:
    """Runs of one injected size on one strategy, judged under each correction."""

    suite: str
    label: str
    kind: str
    factor: float  # the intended fall, in MDEs (of the first correction)
    share: float  # probability that a query loses
    fall: float  # expected fall of the mean NDCG (population)
    mde: float  # the population's MDE at that share (first correction)
    paired: int  # queries per simulated suite
    runs: int = 0
    detected: dict[str, int] = field(default_factory=dict)  # correction -> runs whose check failed
    by_ndcg: dict[str, int] = field(default_factory=dict)  # correction -> runs whose NDCG test alone regressed
    by_hits: dict[str, int] = field(default_factory=dict)  # correction -> runs whose hit test alone regressed
    falls: list[float] = field(default_factory=list)  # observed fall of the mean NDCG, per run
    mdes: list[float] = field(default_factory=list)  # the MDE judge printed for that NDCG delta (first correction)

    @property
    def reached(self) -> bool:
        """Whether the loss can make a fall this large at all (else the share is 1 and the fall smaller)."""
        return self.mde > 0 and self.fall >= self.factor * self.mde - 1e-9

    def rate(self, correction: str) -> float:
        return self.detected.get(correction, 0) / self.runs if self.runs else 0.0

    def ndcg_rate(self, correction: str) -> float:
        """How often the NDCG test alone caught it: what the MDE's 80 % power is a claim about (the check also
        fails on Recall, which the loss lowers too)."""
        return self.by_ndcg.get(correction, 0) / self.runs if self.runs else 0.0

    def hits_rate(self, correction: str) -> float:
        """How often the per-query hit test alone caught it (lost against gained queries)."""
        return self.by_hits.get(correction, 0) / self.runs if self.runs else 0.0

    def add(self, other: Detection) -> None:
        self.runs += other.runs
        for c, n in other.detected.items():
            self.detected[c] = self.detected.get(c, 0) + n
        for c, n in other.by_ndcg.items():
            self.by_ndcg[c] = self.by_ndcg.get(c, 0) + n
        for c, n in other.by_hits.items():
            self.by_hits[c] = self.by_hits.get(c, 0) + n
        self.falls += other.falls
        self.mdes += other.mdes


def _run_sides(target: Target, share: float, g: np.random.Generator) -> tuple[SuiteResult, SuiteResult]:
    """(base, head) of one run: a bootstrap sample of the queries, each ordered (churn) and lost at random."""
    t = target.table
    n = len(t.ids)
    picked = g.integers(0, n, n)
    order = g.integers(0, len(target.sides), n)  # which side is head's: 0 own, 1 partner
    lose = g.random(n) < share
    base, head = shell(target.shell), shell(target.shell)
    base.queries, head.queries = {}, {}
    b_rows, h_rows = [], []
    for j, (i, h) in enumerate(zip(picked.tolist(), order.tolist(), strict=True)):
        qid = f"{t.ids[i]}#{j}"
        base.queries[qid] = head.queries[qid] = target.shell.queries[t.ids[i]]
        mine, other = target.sides[h], target.sides[len(target.sides) - 1 - h].table
        b_rows.append(query_result(qid, t, other.values[i], other.hits[i]))
        h_rows.append(query_result(qid, t, mine.lowered[i], mine.lowered_hits[i]) if lose[j]
                      else query_result(qid, t, mine.table.values[i], mine.table.hits[i]))
    base.strategies[t.label] = side(t, b_rows, "base")
    head.strategies[t.label] = side(t, h_rows, "head")
    return base, head


def detect(target: Target, policy: Policy, corrections: Sequence[str], factor: float, runs: Iterable[int],
           seed: int) -> Detection:
    """Runs numbered ``runs`` of a fall of ``factor`` MDEs (each seeded by its number and coordinates)."""
    t = target.table
    alpha = per_test_alpha(policy.alpha if policy.alpha is not None else 0.05, TESTS_PER_CHANGE, corrections[0])
    share, fall, detectable = share_for(target, factor, alpha)
    out = Detection(t.suite, t.label, target.kind, factor, share, fall, detectable, len(t.ids),
                    detected={c: 0 for c in corrections}, by_ndcg={c: 0 for c in corrections},
                    by_hits={c: 0 for c in corrections})
    if not share:
        return out
    for r in runs:
        base, head = _run_sides(target, share, rng(seed, "inject", target.kind, t.suite, t.label, f"{factor:g}", r))
        comparisons, _ = compare_run({t.suite: base}, {t.suite: head}, replace(policy, correction=corrections[0]))
        family = list(comparisons[t.suite].strategies.values())
        first = family[0].delta(*t.columns[0])
        if first is not None:
            out.falls.append(first.base - first.head)
            out.mdes.append(first.mde or 0.0)
        for correction in corrections:
            judge(family, replace(policy, correction=correction))
            out.detected[correction] += family[0].failed
            ndcg = family[0].delta(*t.columns[0])
            out.by_ndcg[correction] += bool(ndcg and ndcg.regressed)
            out.by_hits[correction] += bool(family[0].hits and family[0].hits.regressed)
        out.runs += 1
    return out
