"""A compared strategy in words: why it has no paired numbers (:func:`reason`), and its problems (:func:`problems`):
each gating metric that fell, the queries lost, the index grown, the chunker warnings new on head, with the numbers
that decided it.

:mod:`pytest_chunkeval.judges.comparison` decides which of them there are (``regressed`` on each delta and on the hit
test, ``size_regressed``, ``new_warnings`` under the policy); every reader says them through :func:`problems`, so the
comparison item's failure, the Markdown report and the JSON report's ``problems`` list say the same; and the
status it gave a strategy it could not pair (``cause``), which the comparison item's skip, the tables and the JSON
report's ``reason`` say through :func:`reason`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_chunkeval.judges.comparison import HitTest, MetricDelta, StrategyComparison


#: The reasons that quote nothing of either side.
REASONS = {
    "removed": "evaluated on base, not on head",
    "unevaluated": "not evaluated on base",
    "suite_unevaluated": "suite not evaluated on base",
    "identical": "identical chunks on base and head, identical rankings",
}
#: The reasons that quote the failed or skipped side's own (``detail``).
QUOTED = {
    "head_failed": "failed to build on head: {}",
    "base_failed": "failed to build on base: {}",
    "head_skipped": "head: {}",
    "base_skipped": "base: {}",
}


def reason(cmp: StrategyComparison) -> str:
    """Why ``cmp`` has no paired numbers, or needs none ("" for a strategy compared)."""
    if cmp.cause in QUOTED:
        return QUOTED[cmp.cause].format(cmp.detail)
    return REASONS.get(cmp.cause, "")


def _adjusted(p_adjusted: float | None) -> str:
    return f", adjusted {p_adjusted:.3f})" if p_adjusted is not None else ")"


def fell(d: MetricDelta) -> str:
    """A gating metric that fell past the tolerance: both means, the difference, its interval and its p-values."""
    return (f"{d.metric} ({d.mode}) fell {d.base:.4f} -> {d.head:.4f} ({d.delta:+.4f}, 95% CI "
            f"[{d.ci_low:+.3f}, {d.ci_high:+.3f}], paired p={d.p_value:.3f}" + _adjusted(d.p_adjusted))


def lost(h: HitTest) -> str:
    """More queries lost than gained, past the tolerance: the counts, the net share and the McNemar p-values."""
    return (f"{h.lost} queries lost, {h.gained} gained of {h.paired} (net {-h.net:+.1%}, exact McNemar "
            f"p={h.p_value:.3f}" + _adjusted(h.p_adjusted))


def problems(cmp: StrategyComparison) -> list[str]:
    """Every reason ``cmp`` fails, one line each (none when it does not)."""
    out = [fell(d) for d in cmp.deltas if d.regressed]
    if cmp.hits is not None and cmp.hits.regressed:
        out.append(lost(cmp.hits))
    if cmp.size_regressed:
        out.append(f"index grew {cmp.base_size:.0f} -> {cmp.head_size:.0f} ({cmp.size_change:+.0%})")
    if cmp.fail_on_new_warnings and cmp.new_warnings:
        out.append(f"{len(cmp.new_warnings)} chunker warnings new on head (first: {cmp.new_warnings[0]})")
    return out
