"""Metrics against hand-computed examples and against trec_eval (ir_measures) on many random rankings and qrels."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import pytest

from pytest_chunkeval.scoring.metrics import (
    ChunkRef,
    Ranked,
    Relevant,
    chunk_grade,
    chunk_mode,
    evaluate_query,
    file_mode,
    hit,
    mrr_at_k,
    ndcg_at_k,
    recall_at_k,
    sort_ranking,
)

ir_measures = pytest.importorskip("ir_measures")
from ir_measures import RR, R, nDCG  # noqa: E402


def _r(cid: str, path: str, start: int, end: int, score: float = 0.0) -> Ranked:
    return Ranked(cid, path, start, end, score)


# ---------------------------------------------------------------------------------------------- hand-computed cases

CHUNKS = [
    ChunkRef("a#0", "a.py", 1, 10),
    ChunkRef("a#1", "a.py", 11, 20),
    ChunkRef("b#0", "b.py", 1, 10),
    ChunkRef("c#0", "c.py", 1, 5),
]


def test_file_mode_dedupes_files_keeping_first():
    ranking = [_r("a#0", "a.py", 1, 10), _r("a#1", "a.py", 11, 20), _r("b#0", "b.py", 1, 10), _r("c#0", "c.py", 1, 5)]
    relevant = [Relevant("a.py", (15, 16), 1), Relevant("c.py", None, 2), Relevant("c.py", (1, 1), 1)]
    gains, ideal = file_mode(ranking, relevant, 10)
    assert gains == [1, 0, 2]
    assert ideal == [2, 1]
    m = evaluate_query(ranking, relevant, CHUNKS, k=10)["file"]
    dcg = 1 + 2 / math.log2(4)
    idcg = 2 + 1 / math.log2(3)
    assert m["ndcg@10"] == pytest.approx(dcg / idcg, abs=1e-12)
    assert m["recall@10"] == 1.0
    assert m["mrr@10"] == 1.0


def test_file_mode_duplicates_use_up_the_k_slots():
    ranking = [_r("a#0", "a.py", 1, 10), _r("a#1", "a.py", 11, 20), _r("c#0", "c.py", 1, 5)]
    relevant = [Relevant("c.py")]
    # k = 2: the top two chunks are both a.py, so c.py is not retrieved at all.
    assert evaluate_query(ranking, relevant, CHUNKS, k=2)["file"] == {"ndcg@2": 0.0, "recall@2": 0.0, "mrr@2": 0.0}
    m3 = evaluate_query(ranking, relevant, CHUNKS, k=3)["file"]
    assert m3["mrr@3"] == 0.5  # rank 2 in the de-duplicated list, not 3
    assert m3["ndcg@3"] == pytest.approx(1 / math.log2(3))


def test_chunk_mode_counts_unretrieved_relevant_chunks():
    relevant = [Relevant("a.py", (8, 12), 1), Relevant("c.py", None, 2)]
    ranking = [_r("b#0", "b.py", 1, 10), _r("a#1", "a.py", 11, 20), _r("c#0", "c.py", 1, 5)]
    gains, ideal = chunk_mode(ranking, relevant, CHUNKS, 2)
    assert gains == [0, 1]
    assert ideal == [2, 1, 1]  # a#0 and a#1 both overlap lines 8-12; c#0 is in a whole-file item
    m = evaluate_query(ranking, relevant, CHUNKS, k=2)["chunk"]
    assert m["ndcg@2"] == pytest.approx((1 / math.log2(3)) / (2 + 1 / math.log2(3)), abs=1e-12)
    assert m["recall@2"] == pytest.approx(1 / 3)
    assert m["mrr@2"] == 0.5


def test_chunk_grade_takes_highest_overlapping_grade_and_inclusive_bounds():
    rel = [Relevant("a.py", (10, 12), 1), Relevant("a.py", (20, 30), 3), Relevant("b.py", None, 2)]
    assert chunk_grade("a.py", 1, 9, rel) == 0
    assert chunk_grade("a.py", 1, 10, rel) == 1  # touches the first line of the range
    assert chunk_grade("a.py", 12, 20, rel) == 3  # touches both; the higher grade wins
    assert chunk_grade("a.py", 31, 40, rel) == 0
    assert chunk_grade("b.py", 500, 501, rel) == 2
    assert chunk_grade("c.py", 1, 100, rel) == 0


def test_no_relevant_and_empty_ranking_score_zero():
    zero = {"ndcg@10": 0.0, "recall@10": 0.0, "mrr@10": 0.0}
    assert evaluate_query([], [Relevant("a.py")], CHUNKS) == {"file": zero, "chunk": zero}
    assert evaluate_query([_r("a#0", "a.py", 1, 10)], [], CHUNKS) == {"file": zero, "chunk": zero}
    assert ndcg_at_k([1, 1], [], 10) == 0.0
    assert recall_at_k([1], 0, 10) == 0.0
    assert mrr_at_k([], 10) == 0.0


def test_keys_follow_k_and_k_must_be_positive():
    m = evaluate_query([], [], [], k=5)
    assert set(m["file"]) == {"ndcg@5", "recall@5", "mrr@5"}
    with pytest.raises(ValueError):
        evaluate_query([], [], [], k=0)


def test_ndcg_is_one_for_ideal_order_and_truncates_ideal_to_k():
    assert ndcg_at_k([3, 2, 1], [3, 2, 1], 3) == pytest.approx(1.0)
    # Ideal truncated to k = 1: retrieving the best item first is perfect even though two more exist.
    assert ndcg_at_k([3], [3, 2, 1], 1) == pytest.approx(1.0)
    assert ndcg_at_k([0, 3], [3], 1) == 0.0


def test_sort_ranking_breaks_ties_by_path_then_line_then_id():
    items = [
        _r("z", "b.py", 1, 2, 0.5),
        _r("y", "a.py", 9, 10, 0.5),
        _r("x", "a.py", 1, 2, 0.5),
        _r("w", "a.py", 1, 2, 0.5),
        _r("top", "z.py", 1, 2, 0.9),
    ]
    assert [r.chunk_id for r in sort_ranking(items)] == ["top", "w", "x", "y", "z"]
    assert sort_ranking(reversed(items)) == sort_ranking(items)


def test_hit_uses_chunk_relevance_within_k():
    ranking = [_r("b#0", "b.py", 1, 10), _r("a#1", "a.py", 11, 20)]
    rel = [Relevant("a.py", (15, 15))]
    assert hit(ranking, rel, 2)
    assert not hit(ranking, rel, 1)
    assert not hit(ranking, [Relevant("a.py", (1, 10))], 2)
    assert not hit([], rel, 10)


# --------------------------------------------------------------------------------------------- trec_eval comparison


@dataclass
class Case:
    chunks: list[ChunkRef]
    relevant: list[Relevant]
    ranking: list[Ranked]
    k: int


def _random_case(rng: random.Random) -> Case:
    n_files = rng.randint(1, 5)
    chunks: list[ChunkRef] = []
    for f in range(n_files):
        path = f"dir{f % 2}/f{f}.py"
        line, n = 1, 0
        for _ in range(rng.randint(1, 6)):
            length = rng.randint(1, 15)
            # Some strategies overlap windows: step back a little now and then.
            start = max(1, line - (rng.randint(0, 3) if rng.random() < 0.3 else 0))
            chunks.append(ChunkRef(f"{path}#{n}", path, start, start + length - 1))
            line, n = start + length, n + 1
    paths = sorted({c.path for c in chunks}) + ["missing.py"]
    relevant: list[Relevant] = []
    for _ in range(rng.choice([0, 1, 1, 2, 3, 4])):
        path = rng.choice(paths)
        if rng.random() < 0.3:
            lines = None
        else:
            a = rng.randint(1, 40)
            lines = (a, a + rng.randint(0, 8))
        relevant.append(Relevant(path, lines, rng.randint(1, 3)))
    pool = rng.sample(chunks, rng.randint(0, len(chunks)))
    ranking = sort_ranking(
        Ranked(c.chunk_id, c.path, c.start_line, c.end_line, rng.choice([0.1, 0.2, 0.3, 0.5, 0.9]) if rng.random() < 0.5
               else rng.random())
        for c in pool
    )
    return Case(chunks, relevant, ranking, rng.choice([1, 2, 3, 5, 10, 10, 20]))


def _grade_by_lines(path: str, start: int, end: int, relevant: list[Relevant]) -> int:
    # A different formulation of the overlap rule (sets of line numbers), independent of chunk_grade.
    span = set(range(start, end + 1))
    grades = [
        r.grade for r in relevant if r.path == path and (r.lines is None or span & set(range(r.lines[0], r.lines[1] + 1)))
    ]
    return max(grades, default=0)


def _oracle(qrels: dict[str, int], docs: list[str], k: int) -> dict[str, float]:
    zero = {f"ndcg@{k}": 0.0, f"recall@{k}": 0.0, f"mrr@{k}": 0.0}
    qrels = {d: g for d, g in qrels.items() if g > 0}
    if not qrels or not docs:
        return zero  # trec_eval drops such queries; our definition scores them 0
    run = [ir_measures.ScoredDoc("q", d, float(len(docs) - i)) for i, d in enumerate(docs)]
    qr = [ir_measures.Qrel("q", d, g) for d, g in qrels.items()]
    res = ir_measures.calc_aggregate([nDCG @ k, R @ k, RR @ k], qr, run)
    return {f"ndcg@{k}": res[nDCG @ k], f"recall@{k}": res[R @ k], f"mrr@{k}": res[RR @ k]}


def _expected(case: Case) -> dict[str, dict[str, float]]:
    k = case.k
    top = case.ranking[:k]
    file_qrels: dict[str, int] = {}
    for r in case.relevant:
        file_qrels[r.path] = max(file_qrels.get(r.path, 0), r.grade)
    files = list(dict.fromkeys(r.path for r in top))
    chunk_qrels = {c.chunk_id: _grade_by_lines(c.path, c.start_line, c.end_line, case.relevant) for c in case.chunks}
    # The run is the top k only; RR over a k-truncated run is RR@k.
    return {
        "file": _oracle(file_qrels, files, k),
        "chunk": _oracle(chunk_qrels, [r.chunk_id for r in top], k),
    }


CASES = [_random_case(random.Random(seed)) for seed in range(600)]


def test_random_cases_cover_the_tricky_situations():
    # If the generator stopped producing these, the comparison below would prove much less.
    assert sum(not c.ranking for c in CASES) >= 20
    assert sum(not c.relevant for c in CASES) >= 20
    assert sum(len(c.ranking) > c.k for c in CASES) >= 100
    assert sum(any(r.lines is None for r in c.relevant) for c in CASES) >= 50
    assert sum(len({r.grade for r in c.relevant}) > 1 for c in CASES) >= 50
    assert sum(len({r.score for r in c.ranking}) < len(c.ranking) for c in CASES) >= 100
    dup_files = sum(len({r.path for r in c.ranking[: c.k]}) < len(c.ranking[: c.k]) for c in CASES)
    assert dup_files >= 100
    nonzero = [c for c in CASES if any(v > 0 for v in _expected(c)["chunk"].values())]
    assert len(nonzero) >= 150


@pytest.mark.parametrize("block", range(6))
def test_both_modes_equal_trec_eval_on_random_cases(block: int):
    for i, case in enumerate(CASES[block * 100 : (block + 1) * 100]):
        got = evaluate_query(case.ranking, case.relevant, case.chunks, k=case.k)
        want = _expected(case)
        for mode in ("file", "chunk"):
            assert set(got[mode]) == set(want[mode])
            for name, value in want[mode].items():
                assert abs(got[mode][name] - value) <= 1e-9, (block * 100 + i, mode, name, got[mode][name], value, case)
