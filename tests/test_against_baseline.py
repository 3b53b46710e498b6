"""Every result judged against the baseline once (judges.against_baseline), on hand-made results: what each kind of
result gets, and that what a gate item judged is the very value the summary and the report then read."""
from __future__ import annotations

from mode_results import K, result, suite

from pytest_chunkeval.judges.against_baseline import against, judge_suites
from pytest_chunkeval.judges.gates import Thresholds
from pytest_chunkeval.results.decisions import AgainstBaseline
from pytest_chunkeval.results.typed import StrategyResult


def test_each_kind_of_result_gets_its_judgement() -> None:
    s = suite(result("file_level", "hybrid", 0.5, multi=False), result("ast", "hybrid", 1.0, multi=False),
              StrategyResult("s.yaml", "crashy", failed="boom", mode="hybrid"))
    judge_suites({"s.yaml": s}, "file_level", K, Thresholds())
    base, ast, crashy = (s.strategies[n].against for n in ("file_level", "ast", "crashy"))
    assert base == AgainstBaseline({}, None)  # the baseline: no delta, no gates (and no "gates" key in the report)
    assert crashy is None  # no numbers, nothing to judge
    assert ast is not None and ast.gates is not None and [g.passed for g in ast.gates] == [True, True, True]
    assert ast.vs["file"]["ndcg@10"]["relative"] == 1.0
    # A candidate whose baseline has no numbers (it failed to build) has nothing to be judged against.
    failed_base = StrategyResult("s.yaml", "file_level", failed="boom", mode="hybrid")
    assert against(s.strategies["ast"], failed_base, "file_level", K, Thresholds()) == AgainstBaseline({}, ())


def test_what_a_gate_item_judged_is_the_value_the_summary_stores() -> None:
    s = suite(result("file_level", "hybrid", 0.5, multi=False), result("ast", "hybrid", 1.0, multi=False))
    by_item = against(s.strategies["ast"], s.strategies["file_level"], "file_level", K, Thresholds())
    assert by_item is not None
    known = {("s.yaml", "ast"): by_item}  # the session's record of what its gate items judged
    judge_suites({"s.yaml": s}, "file_level", K, Thresholds(), known=known)
    assert s.strategies["ast"].against is by_item  # read, not judged a second time
    assert known[("s.yaml", "file_level")] is s.strategies["file_level"].against  # and the rest recorded
