"""The failed and skipped items' messages, built from hand-made facts (no evaluation): each text exactly as a reviewer
reads it under the item's header, and every check of the quality table judged by the facts it is given."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_chunkeval.chunking.boundary import LIMIT_SETTING
from pytest_chunkeval.core.golden import Query
from pytest_chunkeval.core.ranking import Relevant
from pytest_chunkeval.evaluation.build_facts import BuildFacts
from pytest_chunkeval.judges.comparison import MetricDelta, QueryChange, StrategyComparison
from pytest_chunkeval.output import messages
from pytest_chunkeval.output.comparison_text import problems
from pytest_chunkeval.results.typed import ChunkSpan, RankedChunk
from pytest_chunkeval.run.items import QUALITY, QUALITY_CHECKS, ReportedFailure
from pytest_chunkeval.scoring.outcomes import QueryOutcome
from pytest_chunkeval.scoring.quality import QualityReport

HOSTILE = "evil\n::error::x.py"  # a file name that would start a workflow command of its own if shown raw


def quality(**kw: object) -> QualityReport:
    values: dict[str, object] = dict(chunks=8, lines_checked=40, uncovered=[f"{HOSTILE}:3: lost"], max_chunk_size=60,
                                     over_limit=["a.py:1-9: 200"], largest=200, window_tokens=256, over_window=2,
                                     fits_window=True, over_window_examples=["a.py:1-90: 300 tokens"])
    values.update(kw)
    return QualityReport(**values)  # type: ignore[arg-type]


def facts(fallbacks: list[str], files: int = 4) -> BuildFacts:
    return BuildFacts(files_handled=files, fallbacks=fallbacks)


def outcome(ranking: list[RankedChunk]) -> QueryOutcome:
    query = Query("q1", "where is the\nsalt?", (Relevant("auth.py", (4, 5), 1),))
    return QueryOutcome(query, ranking, {"file": {"ndcg@10": 0.0, "recall@10": 0.0}}, hit=False)  # type: ignore[arg-type]


def test_the_quality_table_orders_the_items_and_gives_each_check_its_kind() -> None:
    assert QUALITY_CHECKS == ("lossless", "size-limit", "token-window", "fallback", "parse-errors")
    assert {name: check.kind for name, check in QUALITY.items()} == {
        "lossless": "quality", "size-limit": "quality", "token-window": "quality", "fallback": "fallback",
        "parse-errors": "parse"}


@pytest.mark.parametrize(("check", "kept", "broken", "undeclared"), [
    ("lossless", dict(uncovered=[]), {}, dict(claims_lossless=False)),
    ("size-limit", dict(over_limit=[]), {}, dict(max_chunk_size=None)),
    ("token-window", dict(over_window=0), {}, dict(fits_window=False)),
])
def test_each_declaration_is_kept_broken_or_not_made(check: str, kept: dict, broken: dict, undeclared: dict) -> None:
    class Run:
        name = "lossy"

    judge = QUALITY[check].judge
    judge(Run(), quality(**kept), None)  # type: ignore[arg-type]  # kept: the item passes
    with pytest.raises(ReportedFailure):
        judge(Run(), quality(**broken), None)  # type: ignore[arg-type]
    with pytest.raises(pytest.skip.Exception):
        judge(Run(), quality(**undeclared), None)  # type: ignore[arg-type]


def test_quality_messages() -> None:
    q = quality()
    assert messages.lossless_broken("lossy", q) == (
        "lossy claims to be lossless but 1 of 40 non-blank lines are in no chunk:\n  evil\\n::error::x.py:3: lost")
    assert messages.not_lossless("lossy", q) == "lossy does not claim to be lossless (line coverage 97.5%)"
    assert messages.size_limit_broken("lossy", q) == "1 of 8 chunks exceed lossy's limit of 60 chars:\n  a.py:1-9: 200"
    assert messages.no_size_limit("lossy", q) == "lossy declares no size limit (largest chunk: 200 chars)"
    assert messages.window_broken("lossy", q) == (
        "lossy promises every chunk fits, but 2 of 8 chunks (25.0%) exceed the embedder's 256-token window and are "
        "truncated:\n  a.py:1-90: 300 tokens")
    assert messages.no_window_promise("lossy", q) == (
        "lossy does not promise to fit the window: 2 of 8 chunks (25.0%) exceed the embedder's 256-token window and "
        "are truncated")
    many = quality(uncovered=[f"a.py:{i}: x" for i in range(20)])
    assert messages.lossless_broken("lossy", many).count("\n") == messages.SHOWN_EXAMPLES


def test_the_fallback_message_names_the_first_file_and_every_later_one_that_timed_out() -> None:
    fell = facts(["orders.py: RuntimeError: cannot parse", "b.py: ValueError: x",
                  f"c.py: ran past 5 s ({LIMIT_SETTING})"])
    assert messages.fallback_exceeded("crashy", fell, 0.75, 0.1) == (
        "crashy's own chunking failed on 3 of 4 files (75%), more than chunkeval_max_fallback allows (10%): those "
        "files were cut into fixed windows instead, so this row does not measure crashy there.\n"
        "first: orders.py: RuntimeError: cannot parse\n"
        "timed out: c.py: ran past 5 s (--chunkeval-chunk-timeout / ini chunkeval_chunk_timeout)\n"
        "Fix the strategy, or allow a share explicitly: --chunkeval-max-fallback=0.1 (ini chunkeval_max_fallback)")


def test_miss_and_fixed_messages() -> None:
    ranked = outcome([RankedChunk("o#1", "orders.py", 10, 12, 0.51234)])
    assert messages.miss_message("ast", ranked, 1, "on base main: rank 3") == (
        "MISS: ast: no chunk in the top 1 overlaps a relevant line span (hits are judged per chunk; the file-mode "
        "metrics below credit any chunk of a relevant file)\n"
        "ast on base main: rank 3\n"
        "query 'q1': where is the\\nsalt?\n"
        "relevant:\n"
        "  auth.py lines 4-5 (grade 1)\n"
        "top 1 retrieved:\n"
        "   1.   orders.py:10-12  score 0.5123\n"
        "metrics: file ndcg@10=0.000 recall@10=0.000\n"
        "If this miss is expected, record it: run the same command with --chunkeval-accept-misses.")
    fixed = messages.fixed_message("ast", outcome([]), 10, None, Path("golden/s/accepted_misses.yaml"))
    assert fixed.splitlines()[0] == (
        "FIXED: ast: a chunk in the top 10 now overlaps a relevant line span, but the query is recorded as an accepted "
        "miss; refresh the record with --chunkeval-accept-misses (golden/s/accepted_misses.yaml)")
    assert fixed.splitlines()[-2:] == ["  (nothing)", "metrics: file ndcg@10=0.000 recall@10=0.000"]


def test_a_failed_gate_lists_the_queries_that_fell_most_on_its_metric() -> None:
    def scored(values: dict[str, float]) -> dict[str, QueryOutcome]:
        return {q: QueryOutcome(Query(q, f"text of {q}", ()), [], {"file": {"ndcg@10": v}}, hit=v > 0)
                for q, v in values.items()}

    head = scored({f"q{i}": 0.5 for i in range(7)})
    base = scored({f"q{i}": 0.5 + i / 10 for i in range(7)})
    text = messages.gate_failure("ast", "ndcg-gain", "file_level", "NDCG 0.50 vs 0.80", metric="ndcg@10", mode="file",
                                 candidate=head, baseline=base)
    assert text.splitlines() == [
        "ast fails gate ndcg-gain against file_level: NDCG 0.50 vs 0.80",
        "worst queries (ndcg@10, file mode, candidate vs baseline):",
        *[f"  q{i}: 0.500 vs {0.5 + i / 10:.3f} — text of q{i}" for i in (6, 5, 4, 3, 2)],
    ]
    assert messages.gate_failure("ast", "index-size", "file_level[vector]", "index bytes 9 vs baseline 3", metric=None,
                                 mode="file", candidate=head, baseline=base) == (
        "ast fails gate index-size against file_level[vector]: index bytes 9 vs baseline 3")


def comparison(lost: int) -> StrategyComparison:
    """ast worse on head: NDCG fell significantly, ``lost`` queries lost, one file re-chunked, two new warnings."""
    fell = MetricDelta("file", "ndcg@10", 0.9, 0.7, -0.3, -0.1, 0.01, regressed=True, gating=True, fell=True,
                       p_adjusted=0.02)
    change = QueryChange("q2", "where is\nq2", (Relevant("a.py", (1, 5), 1), Relevant("b.py", None, 1)), 1, None,
                         (ChunkSpan("a.py#0", "a.py", 1, 2, "block"),), ())
    return StrategyComparison("golden/s/queries.yaml", "ast", "changed", paired=12, deltas=[fell], base_size=1000,
                              head_size=1300, base_chunks=2, head_chunks=3, size_regressed=True, lost=[change] * lost,
                              files_rechunked=["a.py"], new_warnings=["a.py:3: odd", "b.py:1: worse"])


def test_a_failed_comparison_says_its_rule_its_problems_and_what_was_lost() -> None:
    cmp = comparison(lost=1)
    text = messages.comparison_failure(cmp, against="base main", k=10, tolerance=0.02, alpha=0.05, correction="holm",
                                       family_size=2, size_increase=0.1)
    assert text.splitlines() == [
        "ast got worse than on base main (12 paired queries; a fall of file-mode NDCG or R, or a net share of queries "
        "lost (lost minus gained), counts past 0.02 with a paired p below 0.05 after holm adjustment across the "
        "run's 2 gating tests; index growth of 10% fails):",
        *(f"  {p}" for p in problems(cmp)),
        "lost queries (a relevant chunk in the top 10 on base, none on head):",
        "  q2: rank 1 -> none — where is\\nq2",  # the query's text escaped: it never starts a log line of its own
        "    relevant a.py:1-5, b.py; chunks there on base: a.py:1-2 block; on head: none",
        "chunk boundaries moved in 1 files (2 -> 3 chunks)",
        "new warning: a.py:3: odd",
        "new warning: b.py:1: worse",
    ]
    many = messages.comparison_failure(comparison(lost=12), against="report.json", k=10, tolerance=0.02, alpha=None,
                                       correction="holm", family_size=2, size_increase=0.1).splitlines()
    assert "counts past 0.02 with no significance required; index growth" in many[0]
    assert many.count("  q2: rank 1 -> none — where is\\nq2") == messages.LOST_QUERIES
    assert "  … and 2 more (every one is in the Markdown and JSON reports)" in many
