"""The run's verdict on hand-made failures and results (no evaluation): every failed item lands in a reason with what
settles it, the comparison's own numbers are attached, and every renderer puts the verdict first."""
from __future__ import annotations

from pathlib import Path

import pytest
from comparison_results import CHUNKS, compared_summary, result, spec, suite

from pytest_chunkeval.judges.verdict import Failure
from pytest_chunkeval.output.headline import markdown, one_line, text_lines
from pytest_chunkeval.output.markdown import document
from pytest_chunkeval.output.report import build_report
from pytest_chunkeval.output.tables import summary_text
from pytest_chunkeval.run.outputs_plugin import verdict as judge

SPECS = [spec(f"q{i}") for i in range(30)]
ACCEPT = "pytest --chunkeval --chunkeval-accept-misses"


def _regressed_summary():
    base = suite(SPECS, result("ast", {q.id: 1.0 for q in SPECS}, CHUNKS, digest="x"))
    head = suite(SPECS, result("ast", {q.id: 0.0 if i < 12 else 1.0 for i, q in enumerate(SPECS)}, CHUNKS,
                               digest="y"))
    return compared_summary(base, head)


def test_each_failed_item_is_sorted_into_a_reason_with_what_settles_it() -> None:
    failures = [
        Failure("golden/a/queries.yaml::ast::q3", "miss",
                "MISS: ast: no chunk in the top 10 overlaps a relevant line span"),
        Failure("golden/a/queries.yaml::ast::q4", "fixed", "FIXED: ast: a chunk in the top 10 now overlaps ..."),
        Failure("golden/a/queries.yaml::grammar_definition::build", "build",
                "grammar_definition failed to build: c.json:4: x"),
        Failure("golden/a/queries.yaml::crashy::quality[fallback]", "fallback",
                "crashy's own chunking failed on 1 of 4 files"),
        Failure("golden/a/queries.yaml::lossy::quality[lossless]", "quality", "lossy claims to be lossless but ..."),
        Failure("golden/a/queries.yaml::ast::gate[ndcg-gain]", "gate", "ast fails gate ndcg-gain against file_level"),
        Failure("golden/a/queries.yaml::ast::q5", "other", "RuntimeError: something else"),
    ]
    verdict = judge(None, failures, ACCEPT)
    assert not verdict.passed
    titles = [r.title for r in verdict.reasons]
    assert titles == [
        "strategies that failed to build",
        "queries missed that the accepted-misses record does not list",
        "queries found that the record lists as missed (the record is stale)",
        "strategies whose own chunking fell back to fixed windows",
        "strategies that break their own declarations",
        "adoption gates failed",
        "other failures",
    ]
    miss = verdict.reasons[1]
    assert miss.lines == ("golden/a/queries.yaml::ast::q3: MISS: ast: no chunk in the top 10 overlaps a relevant "
                          "line span",) and f"`{ACCEPT}`" in miss.settle
    assert one_line(verdict).startswith("FAIL: strategies that failed to build (1); queries missed")


def test_a_failure_is_judged_by_the_kind_its_item_gave_it_not_by_its_id_or_text() -> None:
    failures = [Failure("golden/a/queries.yaml::lossy::renamed", "quality", "MISS: a message that reads like a miss"),
                Failure("golden/a/queries.yaml::ast::gate[x]", "miss", "anything")]
    verdict = judge(None, failures, ACCEPT)
    assert [(r.title, r.lines) for r in verdict.reasons] == [
        ("queries missed that the accepted-misses record does not list",
         ("golden/a/queries.yaml::ast::gate[x]: anything",)),
        ("strategies that break their own declarations",
         ("golden/a/queries.yaml::lossy::renamed: MISS: a message that reads like a miss",)),
    ]
    with pytest.raises(ValueError, match=r"s.yaml::ast::q1: unknown failure kind 'regression' \(known: comparison, "):
        Failure("s.yaml::ast::q1", "regression", "x")  # type: ignore[arg-type]


def test_no_failure_is_a_pass_and_a_failed_comparison_brings_its_numbers() -> None:
    assert judge(None, []).passed and one_line(judge(None, [])) == "PASS"
    summary = _regressed_summary()
    summary.family_size = 2
    verdict = judge(summary, [Failure("s.yaml::ast::vs-base", "comparison", "ast got worse than on base main")])
    (reason,) = verdict.reasons
    assert reason.title == "regressions against the base"
    assert reason.lines[0].startswith("s.yaml::ast: ndcg@10 (file) 1.000 → 0.600 (-0.400, p=")
    assert "adjusted p=" in reason.lines[0] and "(Holm, family of 2)" in reason.lines[0]
    assert verdict.notes == ["s.yaml::ast: 12 queries lost, 0 gained against the base"]


def test_every_renderer_says_the_verdict_first() -> None:
    summary = _regressed_summary()
    summary.verdict = judge(summary, [Failure("s.yaml::ast::vs-base", "comparison", "ast got worse")])
    md = document(summary).splitlines()
    assert md[0] == "# pytest-chunkeval report" and md[2] == "## Verdict: ❌ FAIL — 1 reason"
    assert "regressions against the base" in "\n".join(md[:10])
    assert markdown(summary.verdict, summary)[0] == "## Verdict: ❌ FAIL — 1 reason"
    text = summary_text(summary)
    assert text.lstrip().startswith("VERDICT: FAIL (head vs base main (0123456789)")
    # NDCG, R and the hit test (12 queries lost, none gained)
    assert text_lines(summary.verdict, summary)[1] == "  regressions against the base (3):"
    report = build_report(summary, Path("."))
    assert report["verdict"]["passed"] is False and report["verdict"]["reasons"][0]["lines"]


def test_the_command_that_records_misses_keeps_what_selects_and_drops_what_compares_or_writes() -> None:
    from pytest_chunkeval.run.outputs_plugin import recording_args

    args = ["--chunkeval", "-m", "chunkeval", "--chunkeval-base", "main", "--chunkeval-markdown=pr.md", "-k", "ast",
            "--chunkeval-step-summary", "--junitxml=x.xml", "--chunkeval-golden=g/q.yaml"]
    assert recording_args(args) == ["--chunkeval", "-m", "chunkeval", "-k", "ast", "--chunkeval-golden=g/q.yaml"]
