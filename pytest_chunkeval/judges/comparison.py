"""Head against base: the same strategy on the same suite, before and after a change, paired query by query.

This is the pull-request question ("did this change make retrieval worse?"), not the adoption question the gates
answer ("is this strategy better than the baseline?"). Base is either the suites evaluated at a git ref
(``--chunkeval-base``) or a stored report (``--chunkeval-compare``); both arrive as :class:`~results.SuiteResult`.

Only queries whose id, text and relevance are equal on both sides are paired; added, removed and changed queries are
listed and left out of the tests, so editing the golden data never reads as a retrieval change. A strategy is paired
with the same strategy *searched the same way* (name and retrieval mode, :meth:`~results.SuiteResult.find`): a
``vector,hybrid`` head against a hybrid-only base compares its hybrid rows and lists its vector rows as new.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pytest_chunkeval.core.vocabulary import DEFAULT_K, RANK_METRICS, RANK_MODES, metric_key
from pytest_chunkeval.results.typed import ChunkSpan, QuerySpec, RankedChunk, StrategyResult, SuiteResult
from pytest_chunkeval.scoring.family import GATING, adjust, mde, per_test_alpha, queries_needed, spread
from pytest_chunkeval.scoring.stats import bootstrap_ci, hits_test, paired_test

EPS = 1e-12

#: Why a strategy has no paired numbers, or needs none (``output.comparison_text.reason`` says it): "removed" no
#: result on head; "unevaluated" none on base, "suite_unevaluated" not even its suite; "head_failed" / "base_failed"
#: it failed to build on that side, "head_skipped" / "base_skipped" it was skipped there (``detail``: that side's own
#: reason); "identical" the same chunks and rankings on both sides. "" for a strategy compared.
Cause = Literal["", "removed", "unevaluated", "suite_unevaluated", "head_failed", "base_failed", "head_skipped",
                "base_skipped", "identical"]


@dataclass(frozen=True)
class Policy:
    """When a head result counts as worse than its base (ini ``chunkeval_regression_*``)."""

    k: int = DEFAULT_K
    tolerance: float = 0.01  # absolute fall of a mean that is allowed
    alpha: float | None = 0.05  # the fall must also be significant (paired p < alpha); None: any fall past tolerance
    size_increase: float = 0.50  # index growth (relative) that fails, as the ADR's gate
    size_measure: str = "bytes"
    correction: str = "holm"  # how p-values are adjusted across the family of gating tests (family.CORRECTIONS)
    fail_on_new_warnings: bool = True  # a chunker warning head has and base had not fails the comparison


@dataclass(frozen=True)
class MetricDelta:
    mode: str
    metric: str
    base: float
    head: float
    ci_low: float  # 95 % bootstrap interval of the mean per-query difference (head - base)
    ci_high: float
    p_value: float
    regressed: bool  # a gating metric that fell past the tolerance with an adjusted p below alpha
    gating: bool = False  # in the family whose tests can fail the run (family.GATING)
    fell: bool = False  # the mean fell by more than the tolerance (significant or not)
    p_adjusted: float | None = None  # across the family (gating metrics of changed strategies only)
    sd: float = 0.0  # of the per-query differences (of the base's values when nothing moved): the MDE's spread
    mde: float | None = None  # smallest fall the suite detects at the family's per-test alpha with 80 % power
    queries_for_tolerance: int | None = None  # about how many queries would detect a fall of the tolerance

    @property
    def delta(self) -> float:
        return self.head - self.base


@dataclass(frozen=True)
class HitTest:
    """Queries lost (hit on base, missed on head) against queries gained, over the paired queries: the per-query
    view of a change, tested as one member of the family instead of failing each lost query on its own.

    It fails, like a gating metric, only when the net loss passes the tolerance (as a share of the paired queries)
    and the exact McNemar test's adjusted p is below alpha: a change that moves a few queries both ways is evidence
    to read, never a failure, and a gain never fails.
    """

    lost: int
    gained: int
    paired: int
    p_value: float
    fell: bool  # the net loss, (lost - gained) / paired, is past the tolerance
    p_adjusted: float | None = None
    regressed: bool = False

    @property
    def net(self) -> float:
        """Net share of the paired queries lost (negative: more gained)."""
        return (self.lost - self.gained) / self.paired if self.paired else 0.0


def hit_test(lost: int, gained: int, paired: int, tolerance: float) -> HitTest:
    """The hit test of ``lost`` against ``gained`` queries of ``paired`` (untested: :func:`judge` adjusts it)."""
    return HitTest(lost, gained, paired, hits_test(lost, gained),
                   paired > 0 and (lost - gained) / paired > tolerance + EPS)


@dataclass(frozen=True)
class QueryChange:
    """A query that one side retrieves (a relevant chunk in the top k) and the other does not."""

    id: str
    text: str
    relevant: tuple[Any, ...]
    base_rank: int | None
    head_rank: int | None
    base_chunks: tuple[ChunkSpan, ...]  # chunks of the relevant files that touch the relevant lines, on base
    head_chunks: tuple[ChunkSpan, ...]
    head_top: tuple[RankedChunk, ...] = ()  # what head ranks first instead: why a query with unmoved chunks was lost

    @property
    def lost(self) -> bool:
        return self.base_rank is not None and self.head_rank is None


@dataclass
class StrategyComparison:
    suite: str
    strategy: str
    status: str  # unchanged | changed | new (no base) | removed (no head) | skipped | failed (to build on head)
    cause: Cause = ""
    detail: str = ""  # the failed or skipped side's own reason
    paired: int = 0
    deltas: list[MetricDelta] = field(default_factory=list)
    base_size: float = 0.0
    head_size: float = 0.0
    base_chunks: int = 0
    head_chunks: int = 0
    size_regressed: bool = False
    hits: HitTest | None = None  # lost against gained queries (changed strategies only)
    lost: list[QueryChange] = field(default_factory=list)
    gained: list[QueryChange] = field(default_factory=list)
    files_rechunked: list[str] = field(default_factory=list)  # corpus files whose chunk boundaries moved
    new_warnings: list[str] = field(default_factory=list)

    fail_on_new_warnings: bool = False  # the policy's, as it was when compared

    @property
    def failed(self) -> bool:
        return (self.size_regressed or any(d.regressed for d in self.deltas)
                or (self.hits is not None and self.hits.regressed)
                or (self.fail_on_new_warnings and bool(self.new_warnings)))

    @property
    def verdict(self) -> str:
        if self.status != "changed":
            return self.status
        return "worse" if self.failed else "ok"

    @property
    def size_change(self) -> float | None:
        return (self.head_size - self.base_size) / self.base_size if self.base_size else None

    def delta(self, mode: str, metric: str) -> MetricDelta | None:
        return next((d for d in self.deltas if d.mode == mode and d.metric == metric), None)


@dataclass
class SuiteComparison:
    suite: str
    has_base: bool
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # same id, other text or relevance: not paired
    strategies: dict[str, StrategyComparison] = field(default_factory=dict)


def _metric_deltas(base: StrategyResult, head: StrategyResult, ids: list[str], policy: Policy) -> list[MetricDelta]:
    out: list[MetricDelta] = []
    for mode in RANK_MODES:
        for short in RANK_METRICS:
            metric = metric_key(short, policy.k)
            try:
                b = [float(base.queries[q].metrics[mode][metric]) for q in ids]
                h = [float(head.queries[q].metrics[mode][metric]) for q in ids]
            except KeyError:
                continue
            n = len(ids)
            mb, mh = (sum(b) / n, sum(h) / n) if n else (0.0, 0.0)
            diffs = [y - x for x, y in zip(b, h, strict=True)]
            low, high = bootstrap_ci(diffs) if n else (0.0, 0.0)
            p = paired_test(h, b) if n else 1.0
            fell = mb - mh > policy.tolerance + EPS
            # Nothing moved: what a change could be seen against is the spread of the base's own values (as if head
            # and base correlated at 0.5, where the differences' spread equals the values').
            sd = spread(diffs) if any(diffs) else spread(b)
            out.append(MetricDelta(mode, metric, mb, mh, low, high, p, False, (mode, short) in GATING, fell,
                                   sd=sd))
    return out


def judge(comparisons: list[StrategyComparison], policy: Policy) -> int:
    """Decide every comparison as one family: adjust the p-values of the gating metrics and of the hit test of
    changed strategies across all of them (``policy.correction``), mark those that fell past the tolerance with an
    adjusted p below alpha as regressed, and give each gating metric its minimum detectable effect at the family's
    per-test alpha. Returns the family's size. Unchanged strategies have nothing to test; their deltas get an MDE
    from the base's spread."""
    changed = [c for c in comparisons if c.status == "changed"]
    tested = [(c, i) for c in changed for i, d in enumerate(c.deltas) if d.gating]
    hits = [(c, c.hits) for c in changed if c.hits is not None]
    adjusted = adjust([c.deltas[i].p_value for c, i in tested] + [h.p_value for _, h in hits], policy.correction)

    def significant(p_adj: float) -> bool:
        return policy.alpha is None or p_adj < policy.alpha

    for (c, i), p_adj in zip(tested, adjusted[:len(tested)], strict=True):
        d = c.deltas[i]
        c.deltas[i] = replace(d, p_adjusted=p_adj, regressed=d.fell and significant(p_adj))
    for (c, h), p_adj in zip(hits, adjusted[len(tested):], strict=True):
        c.hits = replace(h, p_adjusted=p_adj, regressed=h.fell and significant(p_adj))
    size = len(adjusted)
    alpha = per_test_alpha(policy.alpha if policy.alpha is not None else 0.05, max(size, 1), policy.correction)
    for c in comparisons:
        c.fail_on_new_warnings = policy.fail_on_new_warnings and c.status == "changed"
        c.deltas = [replace(d, mde=mde(d.sd, c.paired, alpha),
                            queries_for_tolerance=queries_needed(d.sd, policy.tolerance, alpha))
                    if d.gating else d for d in c.deltas]
    return size


def _touching(chunks: list[ChunkSpan], spec: QuerySpec) -> tuple[ChunkSpan, ...]:
    out = []
    for c in chunks:
        for r in spec.relevant:
            if r.path == c.path and (r.lines is None or (c.start_line <= r.lines[1] and r.lines[0] <= c.end_line)):
                out.append(c)
                break
    return tuple(out)


def _query_changes(base: StrategyResult, head: StrategyResult, ids: list[str], specs: dict[str, QuerySpec]):
    """(lost, gained): the queries that hit on one side only, by each side's ``hit`` (the query item's criterion),
    with their ranks and the chunks over their relevant lines; the hit test counts these same lists."""
    lost: list[QueryChange] = []
    gained: list[QueryChange] = []
    for q in ids:
        b_hit, h_hit = base.queries[q].hit, head.queries[q].hit
        if b_hit == h_hit:
            continue
        spec = specs[q]
        b_rank, h_rank = base.queries[q].hit_rank(spec.relevant), head.queries[q].hit_rank(spec.relevant)
        paths = {r.path for r in spec.relevant}
        change = QueryChange(
            q, spec.text, spec.relevant, b_rank, h_rank,
            _touching([c for c in base.chunks if c.path in paths], spec),
            _touching([c for c in head.chunks if c.path in paths], spec),
            head.queries[q].ranking[:3],
        )
        (lost if b_hit else gained).append(change)
    return lost, gained


def _rechunked(base: StrategyResult, head: StrategyResult) -> list[str]:
    def spans(r: StrategyResult) -> dict[str, list[tuple[int, int, str]]]:
        out: dict[str, list[tuple[int, int, str]]] = {}
        for c in r.chunks:
            out.setdefault(c.path, []).append((c.start_line, c.end_line, c.kind))
        return out

    b, h = spans(base), spans(head)
    return sorted(p for p in set(b) | set(h) if b.get(p) != h.get(p))


def compare_strategy(
    base: StrategyResult | None, head: StrategyResult | None, specs: dict[str, QuerySpec], paired: list[str],
    policy: Policy, suite: str,
) -> StrategyComparison:
    name = (head or base).label  # type: ignore[union-attr]
    if head is None:
        return StrategyComparison(suite, name, "removed", "removed")
    if base is None:
        return StrategyComparison(suite, name, "new", "unevaluated")
    if head.failed:
        return StrategyComparison(suite, name, "failed", "head_failed", head.failed)
    if base.failed:
        return StrategyComparison(suite, name, "new", "base_failed", base.failed)
    if head.skipped:  # the reason, said once per side (head's when both skipped)
        return StrategyComparison(suite, name, "skipped", "head_skipped", head.skipped)
    if base.skipped:
        return StrategyComparison(suite, name, "skipped", "base_skipped", base.skipped)
    measure = policy.size_measure
    cmp = StrategyComparison(
        suite, name, "changed", paired=len(paired),
        base_size=base.index.measure(measure), head_size=head.index.measure(measure),
        base_chunks=base.index.chunk_count, head_chunks=head.index.chunk_count,
    )
    cmp.deltas = _metric_deltas(base, head, paired, policy)
    identical_chunks = bool(base.index.digest) and base.index.digest == head.index.digest
    same_numbers = all(d.base == d.head for d in cmp.deltas) and all(
        base.queries[q].ranking == head.queries[q].ranking for q in paired
    )
    if identical_chunks and same_numbers:
        cmp.status, cmp.cause = "unchanged", "identical"
        return cmp
    cmp.files_rechunked = _rechunked(base, head)
    cmp.lost, cmp.gained = _query_changes(base, head, paired, specs)
    cmp.hits = hit_test(len(cmp.lost), len(cmp.gained), len(paired), policy.tolerance)
    old = set(base.warnings)
    cmp.new_warnings = [w for w in head.warnings if w not in old]
    # An empty base index has nothing to grow from: the row says so (no ratio), it never fails on a division by zero.
    change = cmp.size_change
    cmp.size_regressed = change is not None and change >= policy.size_increase - EPS
    return cmp


def pairing(base: SuiteResult, head: SuiteResult) -> tuple[list[str], list[str], list[str], list[str]]:
    """(added, removed, changed, pairable) query ids: only equal id, text and relevance are paired."""
    b_specs, h_specs = base.queries, head.queries
    if not b_specs:  # a report written before query sets were stored: pair by id over the queries both scored
        b_specs = dict(h_specs)
    added = sorted(q for q in h_specs if q not in b_specs)
    removed = sorted(q for q in b_specs if q not in h_specs)
    changed = sorted(q for q in h_specs if q in b_specs and b_specs[q] != h_specs[q])
    pairable = [q for q in h_specs if q in b_specs and b_specs[q] == h_specs[q]]
    return added, removed, changed, pairable


def _partner(side: SuiteResult, other: StrategyResult) -> StrategyResult | None:
    """``other``'s strategy under ``other``'s retrieval mode on ``side`` (any mode when ``other`` does not say)."""
    if not other.mode:
        return next((s for s in side.strategies.values() if s.name == other.name), None)
    return side.find(other.name, other.mode)


def compare_one(base: SuiteResult | None, head: SuiteResult, name: str, policy: Policy) -> StrategyComparison:
    """One result of ``head`` (labelled ``name``; else a base-only label) against the same strategy and retrieval
    mode in ``base``."""
    if base is None:
        return StrategyComparison(head.key, name, "new", "suite_unevaluated")
    pairable = pairing(base, head)[3]
    h = head.strategies.get(name)
    b = _partner(base, h) if h is not None else base.strategies.get(name)
    paired = [q for q in pairable if b is not None and h is not None and q in b.queries and q in h.queries]
    return compare_strategy(b, h, head.queries, paired, policy, head.key)


def compare_suite(
    base: SuiteResult | None, head: SuiteResult, policy: Policy, known: dict[str, StrategyComparison] | None = None
) -> SuiteComparison:
    """Every strategy of both sides; ``known`` holds comparisons already made (by the items), not made again."""
    out = SuiteComparison(head.key, base is not None)
    names = list(head.strategies)
    if base is not None:
        out.added, out.removed, out.changed, _ = pairing(base, head)
        names += [n for n, b in base.strategies.items() if n not in head.strategies and _partner(head, b) is None]
    known = known or {}
    out.strategies = {name: known.get(name) or compare_one(base, head, name, policy) for name in names}
    return out


def compare_run(
    bases: dict[str, SuiteResult | None], heads: dict[str, SuiteResult], policy: Policy,
    selected: set[tuple[str, str]] | None = None,
) -> tuple[dict[str, SuiteComparison], int]:
    """Every suite of the run against its base, decided as one family (:func:`judge`); ``selected`` limits the
    family to the (suite, row label) pairs whose comparison items run (``-k`` may deselect some: a comparison
    nobody asked for cannot fail the run, nor count against the others). Returns the comparisons and the family
    size."""
    out = {key: compare_suite(bases.get(key), head, policy) for key, head in heads.items()}
    family = [c for key, suite in out.items() for label, c in suite.strategies.items()
              if selected is None or (key, label) in selected]
    size = judge(family, policy)
    return out, size


def judged(base: SuiteResult | None, head: SuiteResult, policy: Policy) -> SuiteComparison:
    """One suite compared and decided as a family of its own: what a run of that suite alone would conclude."""
    return compare_run({head.key: base}, {head.key: head}, policy)[0][head.key]
