"""Head against base on hand-made results: pairing, verdicts, and what the reviewer reads (no model, no database)."""
from __future__ import annotations

import json

import pytest
from comparison_results import CHUNKS, compared_summary, result, spec, suite

from pytest_chunkeval.judges.comparison import Policy, judged
from pytest_chunkeval.output.comparison_text import problems, reason
from pytest_chunkeval.output.markdown import document
from pytest_chunkeval.output.report import build_report, comparison_dict
from pytest_chunkeval.output.tables import comparison_table, render_text
from pytest_chunkeval.results.typed import (
    ChunkSpan,
    SuiteResult,
    suites_from_report,
)

SPECS = [spec(f"q{i}") for i in range(30)]


def test_identical_chunks_and_rankings_are_unchanged() -> None:
    scores = {q.id: 1.0 if i % 3 else 0.0 for i, q in enumerate(SPECS)}
    base = suite(SPECS, result("ast", scores, CHUNKS))
    head = suite(SPECS, result("ast", scores, CHUNKS))
    cmp = judged(base, head, Policy()).strategies["ast"]
    assert cmp.status == "unchanged" and cmp.verdict == "unchanged" and not cmp.failed and cmp.paired == 30


def test_a_significant_fall_fails_and_names_lost_queries_with_the_chunks_that_moved() -> None:
    base_scores = {q.id: 1.0 for q in SPECS}
    head_scores = {q.id: 0.0 if i < 12 else 1.0 for i, q in enumerate(SPECS)}
    moved = (ChunkSpan("a#0", "a.py", 1, 3, "block"), ChunkSpan("a#1", "a.py", 4, 9, "block"))
    base = suite(SPECS, result("ast", base_scores, CHUNKS, digest="x"))
    head = suite(SPECS, result("ast", head_scores, moved, digest="y"))
    cmp = judged(base, head, Policy()).strategies["ast"]
    ndcg = cmp.delta("file", "ndcg@10")
    assert ndcg is not None and ndcg.regressed and ndcg.delta == -0.4 and ndcg.p_value < 0.05
    assert ndcg.ci_high < 0 and cmp.verdict == "worse"
    assert [q.id for q in cmp.lost] == [f"q{i}" for i in range(12)]
    lost = cmp.lost[0]
    assert (lost.base_rank, lost.head_rank) == (1, None)
    assert [(c.start_line, c.end_line) for c in lost.base_chunks] == [(1, 5)]
    assert [(c.start_line, c.end_line) for c in lost.head_chunks] == [(1, 3), (4, 9)]
    assert cmp.files_rechunked == ["a.py"]
    assert [r.path for r in lost.head_top] == ["z.py"] * 3  # what head ranks first instead
    assert "ndcg@10 (file) fell 1.0000 -> 0.6000" in problems(cmp)[0]


def test_a_fall_within_tolerance_or_not_significant_passes_unless_significance_is_off() -> None:
    few = SPECS[:3]
    base = suite(few, result("ast", {q.id: 1.0 for q in few}, CHUNKS, digest="x"))
    head = suite(few, result("ast", {"q0": 0.0, "q1": 1.0, "q2": 1.0}, CHUNKS, digest="y"))
    assert not judged(base, head, Policy()).strategies["ast"].failed  # 3 queries: p = 1.0
    assert judged(base, head, Policy(alpha=None)).strategies["ast"].failed
    assert not judged(base, head, Policy(alpha=None, tolerance=0.5)).strategies["ast"].failed


def test_index_growth_fails_at_the_adrs_fifty_percent_and_an_empty_base_never_divides_by_zero() -> None:
    scores = {q.id: 1.0 for q in SPECS}
    base = suite(SPECS, result("ast", scores, CHUNKS, size=1000, digest="x"))
    assert judged(base, suite(SPECS, result("ast", scores, CHUNKS, 1499, "y")), Policy()).strategies["ast"].failed is False
    grown = judged(base, suite(SPECS, result("ast", scores, CHUNKS, 1500, "y")), Policy()).strategies["ast"]
    assert grown.size_regressed and "index grew 1000 -> 1500 (+50%)" in problems(grown)
    empty = suite(SPECS, result("ast", scores, (), size=0, digest="x"))
    cmp = judged(empty, suite(SPECS, result("ast", scores, CHUNKS, 1500, "y")), Policy()).strategies["ast"]
    assert cmp.size_change is None and not cmp.size_regressed
    json.dumps(comparison_dict(judged(empty, suite(SPECS, result("ast", scores, CHUNKS, 1500, "y")), Policy())),
               allow_nan=False)


def test_changed_added_and_removed_queries_are_listed_and_left_out_of_the_pairs() -> None:
    base_specs = [*SPECS[:5], spec("gone")]
    head_specs = [spec("q0", text="an edited question"), *SPECS[1:5], spec("new")]
    base = suite(base_specs, result("ast", {q.id: 1.0 for q in base_specs}, CHUNKS, digest="x"))
    head = suite(head_specs, result("ast", {"q0": 0.0, **{q.id: 1.0 for q in head_specs[1:]}}, CHUNKS, digest="y"))
    cmp = judged(base, head, Policy(alpha=None))
    assert (cmp.changed, cmp.added, cmp.removed) == (["q0"], ["new"], ["gone"])
    ast = cmp.strategies["ast"]
    assert ast.paired == 4 and not ast.failed and ast.lost == []  # q0 fell, but it is a different query now


def test_strategies_only_on_one_side_are_said_not_compared() -> None:
    scores = {q.id: 1.0 for q in SPECS}
    base = suite(SPECS, result("old", scores, CHUNKS))
    head = suite(SPECS, result("new", scores, CHUNKS))
    cmp = judged(base, head, Policy()).strategies
    assert (cmp["new"].status, cmp["old"].status) == ("new", "removed")
    assert reason(judged(None, head, Policy()).strategies["new"]) == "suite not evaluated on base"


def test_markdown_and_terminal_show_the_same_rows_and_the_details_a_reviewer_needs() -> None:
    base = suite(SPECS, result("ast", {q.id: 1.0 for q in SPECS}, CHUNKS, digest="x"))
    head = suite(SPECS, result("ast", {q.id: 0.0 if i < 12 else 1.0 for i, q in enumerate(SPECS)},
                               (ChunkSpan("a#0", "a.py", 1, 9, "file"),), digest="y"))
    summary = compared_summary(base, head)
    md = document(summary)
    row = comparison_table(summary, "s.yaml").rows[0]
    assert row[1] == "1.000 → 0.600 ▼" and row[2].startswith("-0.400 [") and row[-1] == "FAIL, lost 12"
    assert "| ast | 1.000 → 0.600 ▼ |" in md and "Compared with base `main` (0123456789)" in md
    assert "- `q0` — where is q0" in md and "base rank 1 → head not in the top 10" in md
    assert "chunks over the relevant lines on base: `a.py:1-5 function`" in md and "… and on head: `a.py:1-9 file`" in md
    assert "1.000 → 0.600 ▼" in render_text([comparison_table(summary, "s.yaml")])


def test_markdown_is_trimmed_below_a_limit_with_a_note() -> None:
    many = [spec(f"q{i}") for i in range(400)]
    base = suite(many, result("ast", {q.id: 1.0 for q in many}, CHUNKS, digest="x"))
    head = suite(many, result("ast", {q.id: 0.0 if i % 2 else 1.0 for i, q in enumerate(many)}, CHUNKS[:1], digest="y"))
    summary = compared_summary(base, head)
    full = document(summary)
    trimmed = document(summary, limit=len(full.encode()) // 2)
    assert len(trimmed.encode()) <= len(full.encode()) // 2
    assert "Trimmed:" in trimmed and "## Head vs base: s.yaml" in trimmed and "Trimmed:" not in full


def test_the_report_round_trips_through_typed_results_and_stays_strict_json() -> None:
    base = suite(SPECS, result("ast", {q.id: 1.0 for q in SPECS}, CHUNKS, size=0, digest="x"))
    head = suite(SPECS, result("ast", {q.id: 1.0 for q in SPECS}, CHUNKS, size=0, digest="y"))
    report = build_report(compared_summary(base, head), root=__import__("pathlib").Path("."))
    text = json.dumps(report, allow_nan=False)
    again = suites_from_report(json.loads(text))["s.yaml"]
    assert again.queries == head.queries and again.strategies["ast"].per_query() == head.strategies["ast"].per_query()
    assert again.strategies["ast"].chunks == CHUNKS and again.strategies["ast"].index.digest == "y"


def test_a_query_lost_with_unmoved_chunks_says_others_now_rank_above() -> None:
    base = suite(SPECS, result("ast", {q.id: 1.0 for q in SPECS}, CHUNKS, digest="x"))
    head = suite(SPECS, result("ast", {q.id: 0.0 if i < 12 else 1.0 for i, q in enumerate(SPECS)}, CHUNKS, digest="y"))
    md = document(compared_summary(base, head))
    assert "  - … the same on head: other chunks now rank above them" in md
    assert "  - head's top 3: `z.py:1-2`, `z.py:1-2`, `z.py:1-2`" in md


def test_the_step_summary_is_appended_and_counts_what_other_steps_wrote(tmp_path) -> None:
    from pytest_chunkeval.output.markdown import append_step_summary

    many = [spec(f"q{i}") for i in range(400)]
    base = suite(many, result("ast", {q.id: 1.0 for q in many}, CHUNKS, digest="x"))
    head = suite(many, result("ast", {q.id: 0.0 if i % 2 else 1.0 for i, q in enumerate(many)}, CHUNKS[:1], digest="y"))
    target = tmp_path / "summary.md"
    target.write_text("earlier step\n" + "x" * 20_000)
    append_step_summary(compared_summary(base, head), target, limit=40_000)
    text = target.read_text()
    assert text.startswith("earlier step\n") and "# pytest-chunkeval report" in text
    assert len(text.encode()) <= 40_000 and "Trimmed:" in text


def test_the_base_rank_of_a_miss_is_said_only_for_the_same_question(tmp_path) -> None:
    from pathlib import Path

    from pytest_chunkeval.core.corpus import Corpus
    from pytest_chunkeval.core.golden import GoldenSuite, Query
    from pytest_chunkeval.run.state import RunState
    from pytest_chunkeval.settings.options import Options

    golden = tmp_path / "s.yaml"
    queries = [Query(q.id, q.text, q.relevant) for q in SPECS[:2]]
    queries[1] = Query("q1", "a reworded question", SPECS[1].relevant)
    head_suite = GoldenSuite(golden, Corpus(tmp_path, {}), queries, "s")
    state = RunState(Options(rootdir=tmp_path, golden_patterns=[], golden_paths=[], strategies_dir=Path("x"),
                                   base="main"))
    state.base._suites = {"s.yaml": suite(SPECS[:2], result("ast", {"q0": 1.0, "q1": 1.0}, CHUNKS, hits={"q0": 3}))}
    assert state.base.rank(head_suite, "ast", "q0") == "on base main: rank 3"
    assert state.base.rank(head_suite, "ast", "q1") is None  # another question on base: no comparable rank
    assert state.base.rank(head_suite, "other", "q0") is None


def test_the_gating_tests_of_every_changed_strategy_are_one_family() -> None:
    """Each strategy's fall alone is significant at 0.05; decided as one family (Holm over 2 strategies x 3 gating
    metrics) neither is, unless the correction is off. Unchanged strategies are outside the family."""
    specs = [spec(f"q{i}") for i in range(12)]
    base_scores = {q.id: 1.0 for q in specs}
    head_scores = {q.id: 0.0 if i < 6 else 1.0 for i, q in enumerate(specs)}  # 6 fall: p = 2/64 alone
    strategies_base = [result(n, base_scores, CHUNKS, digest="x") for n in ("a", "b")]
    strategies_head = [result(n, head_scores, CHUNKS, digest="y") for n in ("a", "b")]
    same = result("same", base_scores, CHUNKS, digest="x")
    base = suite(specs, *strategies_base, same)
    head = suite(specs, *strategies_head, result("same", base_scores, CHUNKS, digest="x"))
    raw = judged(base, head, Policy(correction="none")).strategies
    p = raw["a"].delta("file", "ndcg@10").p_value
    assert p < 0.05 and raw["a"].failed and raw["b"].failed  # alone: significant
    holm = judged(base, head, Policy()).strategies
    d = holm["a"].delta("file", "ndcg@10")
    # 2 strategies x 3 tests (file-mode NDCG, R and the hit test: 6 lost, none gained, exact p = 2/64 too)
    assert holm["a"].hits is not None and holm["a"].hits.p_value == p
    assert d.p_adjusted == min(1.0, 6 * p) and d.p_adjusted > 0.05 and not holm["a"].failed
    assert holm["same"].status == "unchanged" and holm["same"].delta("file", "ndcg@10").p_adjusted is None
    mrr = holm["a"].delta("file", "mrr@10")
    assert not mrr.gating and mrr.p_adjusted is None and not mrr.regressed  # informs, never fails
    assert d.mde is not None and d.mde > 0.01 and d.queries_for_tolerance and d.queries_for_tolerance > 12


# -- the per-query hit test --------------------------------------------------------------------------------------


def _hits_case(n: int, lost: int = 0, gained: int = 0) -> tuple[SuiteResult, SuiteResult]:
    """``n`` queries whose metrics never move (0.5 on both sides); ``lost`` queries hit on base only, ``gained`` on
    head only, the rest hit on both: what the metric tests cannot see and the hit test can."""
    specs = [spec(f"q{i}") for i in range(n)]
    scores = {q.id: 0.5 for q in specs}
    base_miss = {f"q{i}": None for i in range(lost, lost + gained)}
    head_miss = {f"q{i}": None for i in range(lost)}
    base = suite(specs, result("ast", scores, CHUNKS, digest="x", hits=base_miss))
    head = suite(specs, result("ast", scores, CHUNKS, digest="y", hits=head_miss))
    return base, head


def test_whole_queries_lost_fail_through_the_hit_test_even_when_no_mean_moves() -> None:
    base, head = _hits_case(60, lost=12)
    c = judged(base, head, Policy()).strategies["ast"]
    assert all(not d.regressed for d in c.deltas) and c.delta("file", "ndcg@10").p_value == 1.0
    h = c.hits
    assert h is not None and (h.lost, h.gained, h.paired) == (12, 0, 60) and h.p_value == 2 * 0.5**12
    assert h.p_adjusted == min(1.0, 3 * h.p_value)  # one family: NDCG, R and the hit test
    assert h.regressed and c.failed and c.verdict == "worse"
    assert any("12 queries lost, 0 gained of 60" in p for p in problems(c))
    assert comparison_dict(judged(base, head, Policy()))["strategies"]["ast"]["hits"]["regressed"] is True


def test_gained_queries_never_fail_and_churn_is_evidence_not_a_failure() -> None:
    gain = judged(*_hits_case(60, gained=12), Policy()).strategies["ast"]
    assert gain.hits is not None and gain.hits.p_value < 0.001 and not gain.hits.regressed and not gain.failed
    churn = judged(*_hits_case(90, lost=5, gained=3), Policy()).strategies["ast"]
    assert churn.hits is not None and churn.hits.fell and churn.hits.p_value == pytest.approx(0.7265625)
    assert not churn.failed and churn.verdict == "ok"


def test_the_hit_test_allows_a_net_loss_up_to_the_tolerance() -> None:
    """8 lost of 1000 is significant (p = 0.008) but a net 0.8 %, under the 1 % tolerance; 2 % fails."""
    under = judged(*_hits_case(1000, lost=8), Policy()).strategies["ast"]
    assert under.hits is not None and under.hits.p_value < 0.01 and not under.hits.fell and not under.failed
    assert judged(*_hits_case(1000, lost=8), Policy(tolerance=0.005)).strategies["ast"].failed
    assert not judged(*_hits_case(1000, lost=8), Policy(alpha=0.001)).strategies["ast"].failed


def test_an_unchanged_strategy_has_no_hit_test_and_adds_nothing_to_the_family() -> None:
    base, _ = _hits_case(20)
    cmp = judged(base, base, Policy())
    assert cmp.strategies["ast"].status == "unchanged" and cmp.strategies["ast"].hits is None
