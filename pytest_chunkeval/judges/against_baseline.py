"""Every result against its suite's baseline, judged once: the acceptance gates and the paired statistics.

The session calls :func:`judge_suites` once on the run's results (the serial run's own, or the union an xdist
controller merged) and stores each decision in its result
(:attr:`~pytest_chunkeval.results.typed.StrategyResult.against`). The gate items, the JSON report, the terminal and
Markdown tables then read that one value, so a gate item and the ``gates`` column can never disagree; no renderer
computes a gate or a p-value.
"""
from __future__ import annotations

from collections.abc import Mapping, MutableMapping

from pytest_chunkeval.judges.gates import Thresholds, evaluate_gates
from pytest_chunkeval.results.decisions import AgainstBaseline, VsBaseline
from pytest_chunkeval.results.typed import StrategyResult, SuiteResult
from pytest_chunkeval.scoring.stats import compare_paired

Known = MutableMapping[tuple[str, str], AgainstBaseline]  # (suite key, row label) -> what was judged already


def paired_vs(result: StrategyResult, baseline: StrategyResult) -> VsBaseline:
    """Per mode and metric: difference of means to the baseline, relative change, paired randomization p."""
    out: VsBaseline = {}
    for mode, metric, mean_a, mean_b, p in compare_paired(result.per_query(), baseline.per_query()):
        out.setdefault(mode, {})[metric] = {
            "delta": mean_a - mean_b,
            "relative": (mean_a - mean_b) / mean_b if mean_b else None,
            "p_value": p,
        }
    return out


def against(result: StrategyResult, baseline: StrategyResult | None, baseline_name: str, k: int,
            thresholds: Thresholds) -> AgainstBaseline | None:
    """``result`` against ``baseline`` (the strategy ``baseline_name`` searched the same way; None when the suite has
    none). None when ``result`` has no numbers (skipped or failed to build): there is nothing to judge."""
    if not result.evaluated:
        return None
    if result.name == baseline_name:
        return AgainstBaseline({}, None)
    if baseline is None or not baseline.evaluated:
        return AgainstBaseline({}, ())
    return AgainstBaseline(paired_vs(result, baseline), tuple(evaluate_gates(result, baseline, k, thresholds)))


def judge_suites(suites: Mapping[str, SuiteResult], baseline: str, k: int, thresholds: Thresholds,
                 known: Known | None = None) -> None:
    """Store in every result of ``suites`` its judgement against the baseline of the same retrieval mode. ``known``
    holds what the run's gate items judged already (by suite key and row label): read, never judged twice."""
    known = {} if known is None else known
    for key, suite in suites.items():
        for label, result in suite.strategies.items():
            if (key, label) not in known:
                judged = against(result, suite.find(baseline, result.mode), baseline, k, thresholds)
                if judged is None:
                    continue
                known[(key, label)] = judged
            result.against = known[(key, label)]
