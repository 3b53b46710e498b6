"""Line-projected NDCG and budget recall on cases worked out by hand (the arithmetic is in each comment)."""
from __future__ import annotations

import math

import pytest

from pytest_chunkeval.core.ranking import Ranked, Relevant
from pytest_chunkeval.scoring.line_metrics import (
    budget_recall,
    evaluate_lines,
    gold_lines,
    line_ndcg_at_k,
    projected_lines,
)


def r(path: str, start: int, end: int, score: float = 1.0) -> Ranked:
    return Ranked(f"{path}:{start}", path, start, end, score)


GOLD = [Relevant("a.py", (3, 4))]  # two gold lines


def test_an_exact_chunk_at_rank_one_is_perfect() -> None:
    assert line_ndcg_at_k([r("a.py", 3, 4)], GOLD, 10) == pytest.approx(1.0)


def test_a_function_cut_in_two_that_ranks_together_loses_nothing() -> None:
    assert line_ndcg_at_k([r("a.py", 3, 3), r("a.py", 4, 4)], GOLD, 10) == pytest.approx(1.0)


def test_a_whole_file_pays_for_the_lines_ahead_of_the_gold_ones() -> None:
    # Lines 1..10 of a.py at positions 1..10; gold lines 3, 4 at positions 3, 4.
    # DCG = 1/log2(4) + 1/log2(5); IDCG = 1/log2(2) + 1/log2(3).
    expected = (1 / math.log2(4) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert line_ndcg_at_k([r("a.py", 1, 10)], GOLD, 10) == pytest.approx(expected)
    assert expected < 0.6


def test_lines_seen_before_are_not_counted_twice_and_k_cuts_chunks() -> None:
    ranking = [r("b.py", 1, 2), r("a.py", 3, 4), r("a.py", 3, 4)]
    assert projected_lines(ranking, 10) == [("b.py", 1), ("b.py", 2), ("a.py", 3), ("a.py", 4)]
    # Gold lines at positions 3 and 4.
    expected = (1 / math.log2(4) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert line_ndcg_at_k(ranking, GOLD, 10) == pytest.approx(expected)
    assert line_ndcg_at_k(ranking, GOLD, 1) == 0.0


def test_grades_and_whole_file_items() -> None:
    relevant = [Relevant("a.py", (1, 1), grade=2), Relevant("c.py", None, grade=1)]
    assert gold_lines(relevant, {"c.py": 2}) == {("a.py", 1): 2, ("c.py", 1): 1, ("c.py", 2): 1}
    # Ranking c.py 1-2 then a.py 1: gains 1, 1, 2 -> DCG = 1 + 1/log2(3) + 2/log2(4) = 1 + 0.6309 + 1.
    # Ideal gains 2, 1, 1 -> 2 + 1/log2(3) + 1/log2(4) = 2 + 0.6309 + 0.5.
    got = line_ndcg_at_k([r("c.py", 1, 2), r("a.py", 1, 1)], relevant, 10, {"c.py": 2})
    assert got == pytest.approx((1 + 1 / math.log2(3) + 1) / (2 + 1 / math.log2(3) + 0.5))


def test_no_gold_lines_scores_zero() -> None:
    assert line_ndcg_at_k([r("a.py", 1, 3)], [], 10) == 0.0
    assert budget_recall([r("a.py", 1, 3)], [5], [], 512, 10) == 0.0


def test_budget_recall_counts_the_lines_that_fit() -> None:
    # Chunk 1: b.py 1-10, 300 tokens (all in, 212 left). Chunk 2: a.py 1-8, 424 tokens: 212/424 of 8 lines = the
    # first 4 lines (1-4) fit, so both gold lines 3 and 4 are inside; with a 100-token budget nothing of a.py is.
    ranking = [r("b.py", 1, 10), r("a.py", 1, 8)]
    assert budget_recall(ranking, [300, 424], GOLD, 512, 10) == 1.0
    # 512 - 300 = 212 -> floor(8 * 212 / 430) = 3 lines: 1-3, so one gold line of two.
    assert budget_recall(ranking, [300, 430], GOLD, 512, 10) == 0.5
    assert budget_recall(ranking, [300, 430], GOLD, 100, 10) == 0.0
    assert budget_recall(ranking, [300, 430], GOLD, 2048, 10) == 1.0
    assert budget_recall(ranking, [300, 430], GOLD, 2048, 1) == 0.0  # only the top chunk is retrieved


def test_budget_recall_needs_a_token_count_for_every_ranked_chunk() -> None:
    with pytest.raises(ValueError, match="1 token counts for 2 ranked chunks"):
        budget_recall([r("a.py", 1, 2), r("a.py", 3, 4)], [10], GOLD, 512, 10)


def test_evaluate_lines_names_its_metrics() -> None:
    got = evaluate_lines([r("a.py", 3, 4)], [20], GOLD, 10)
    assert got == {"ndcg@10": pytest.approx(1.0), "budget_recall@512": 1.0, "budget_recall@2048": 1.0}


def test_line_measures_agree_with_trec_eval_on_random_cases() -> None:
    """verify.py scores lines with trec_eval (each line a document); the harness's own functions must agree."""
    pytest.importorskip("pytrec_eval")
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from pytest_chunkeval.commands.verify import _expected_lines

    span = st.tuples(st.sampled_from(["a.py", "b.py"]), st.integers(1, 25), st.integers(0, 8))
    relevant = st.lists(st.tuples(span, st.integers(1, 3)), min_size=1, max_size=3)
    ranking = st.lists(st.tuples(span, st.integers(1, 300)), min_size=1, max_size=8)

    @settings(max_examples=150, deadline=None)
    @given(relevant, ranking, st.integers(1, 6), st.sampled_from([64, 256, 2048]))
    def check(rel_spec, rank_spec, k, budget):  # type: ignore[no-untyped-def]
        rel = [Relevant(p, (s, s + n), g) for (p, s, n), g in rel_spec]
        ranked = [Ranked(f"c{i}", p, s, s + n, 1.0) for i, ((p, s, n), _) in enumerate(rank_spec)]
        tokens = [t for _, t in rank_spec]
        entry = {"queries": {"q": {"ranking": [
            {"chunk_id": r.chunk_id, "path": r.path, "start_line": r.start_line, "end_line": r.end_line, "tokens": t}
            for r, t in zip(ranked, tokens, strict=True)]}}}
        golden = {"q": [(r.path, r.lines, r.grade) for r in rel]}
        expected = _expected_lines(entry, golden, {}, k, [budget])["q"]
        assert line_ndcg_at_k(ranked, rel, k) == pytest.approx(expected[f"ndcg@{k}"], abs=1e-9)
        assert budget_recall(ranked, tokens, rel, budget, k) == pytest.approx(expected[f"budget_recall@{budget}"], abs=1e-9)

    check()
