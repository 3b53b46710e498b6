"""Every renderer on a hand-made results value: nothing is evaluated, embedded, indexed, judged or compared here.

The run's verdict (gates and paired statistics against the baseline, the comparison with a base, the verdict's
reasons) is computed once into the results value; the terminal tables, the Markdown, the JSON report, the verdict
lines, the GitHub annotations and step summary and the pull-request comment only render it. So the values (in
tests/hand_made_results.py) are chosen to be ones no renderer could recompute: the stored gates fail where the means
would pass them, the stored Δ is +24.6 % where the means give +60 %. A renderer that judged anything itself would
show the other number, and the :func:`no_evaluation` guard makes every evaluation and judging entry point raise
while these tests run.
"""
from __future__ import annotations

import json
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hand_made_results import KEY, STORED_GATES, STORED_VS, VERDICT, made_suite, made_summary

import pytest_chunkeval.judges.against_baseline as against_baseline
import pytest_chunkeval.judges.comparison as comparison
import pytest_chunkeval.judges.gates as gates
import pytest_chunkeval.judges.verdict as verdict_module
import pytest_chunkeval.scoring.family as family
import pytest_chunkeval.scoring.stats as stats
from pytest_chunkeval.commands.github.comment import DEFAULT_MARKER, build_body
from pytest_chunkeval.evaluation.evaluate import Evaluator
from pytest_chunkeval.judges.judged_run import Verdict
from pytest_chunkeval.output import headline
from pytest_chunkeval.output.annotations import MAX_ANNOTATIONS, annotation_lines
from pytest_chunkeval.output.markdown import append_step_summary, document
from pytest_chunkeval.output.misses import unrecorded_lines
from pytest_chunkeval.output.report import build_report
from pytest_chunkeval.output.tables import comparison_table, index_table, retrieval_table, summary_text
from pytest_chunkeval.results.decisions import AgainstBaseline
from pytest_chunkeval.results.report_file import shape_problem
from pytest_chunkeval.results.typed import (
    suites_from_report,
)
from pytest_chunkeval.retrieval.embed import Embedder
from pytest_chunkeval.retrieval.index import IndexStore


class EvaluationRan(AssertionError):
    """A renderer evaluated, embedded, indexed, judged or compared something: it must only read the results."""


def _raising(name: str) -> Callable[..., None]:
    def boom(*args: object, **kwargs: object) -> None:
        raise EvaluationRan(f"{name} ran inside a renderer")

    return boom


#: Module-level functions that evaluate or judge, by module: their code is swapped for one that raises, so a renderer
#: that imported one by name (``from ... import evaluate_gates``) is caught as well as one that looks it up.
JUDGES: dict[types.ModuleType, tuple[str, ...]] = {
    gates: ("evaluate_gates",),
    stats: ("compare_paired", "paired_test", "bootstrap_ci", "summarize"),
    against_baseline: ("against", "judge_suites", "paired_vs"),
    comparison: ("compare_run", "compare_suite", "compare_one", "compare_strategy", "judged", "judge"),
    family: ("adjust", "mde", "queries_needed"),
    verdict_module: ("judge",),
}
#: Methods that start an evaluation, an embedder or an index store.
ENGINES = ((Evaluator, "__init__"), (Evaluator, "run"), (Embedder, "__init__"), (IndexStore, "__init__"))


@pytest.fixture(autouse=True)
def no_evaluation(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """While a test of this module runs, every entry point of evaluation and judging raises :class:`EvaluationRan`."""
    for module, names in JUDGES.items():
        for name in names:
            function = getattr(module, name)
            monkeypatch.setattr(function, "__code__", _constant_raiser.__code__)
            monkeypatch.setattr(function, "__defaults__", None)
            monkeypatch.setattr(function, "__kwdefaults__", None)
    for cls, name in ENGINES:
        monkeypatch.setattr(cls, name, _raising(f"{cls.__name__}.{name}"))
    yield


def _constant_raiser(*args: object, **kwargs: object) -> None:
    # This code runs with the judge's own module globals: only builtins are sure to be there.
    raise AssertionError("an evaluation or judging function ran inside a renderer")


# -- the guard ---------------------------------------------------------------------------------------------------


def test_the_guard_stops_every_evaluation_and_judging_entry_point() -> None:
    for module, names in JUDGES.items():
        for name in names:
            with pytest.raises(AssertionError, match="ran inside a renderer"):
                getattr(module, name)()
    from pytest_chunkeval.judges.gates import evaluate_gates  # a name bound by import is caught too

    with pytest.raises(AssertionError, match="ran inside a renderer"):
        evaluate_gates()
    for cls, name in ENGINES:
        with pytest.raises(EvaluationRan):
            getattr(cls, name)(object())


# -- terminal tables ---------------------------------------------------------------------------------------------


def test_the_retrieval_table_shows_the_stored_delta_and_gates_never_recomputed() -> None:
    table = retrieval_table(made_summary(), KEY)
    rows = {row[0].split(" (")[0]: row for row in table.rows}
    assert list(rows) == ["file_level", "ast", "peers", "crashy"]  # skipped: listed under the tables
    delta, misses, gates_col = (table.columns.index(c) for c in ("ΔNDCG vs file_level (p)", "misses", "gates"))
    assert rows["ast"][delta] == "+24.6% (p=0.042)"  # the means alone would read +60.0%
    assert rows["ast"][gates_col] == "fail: ndcg,size"  # the means alone would pass every gate
    assert rows["ast"][misses] == "1" and rows["peers"][misses] == "2"
    assert rows["file_level"][delta] == "—" and rows["file_level"][gates_col] == "—"
    assert rows["peers"][delta] == "" and rows["peers"][gates_col] == "—"  # judged: no ratio, no gates
    assert rows["ast"][1] == "0.800 [0.70–0.90]"
    assert rows["crashy"][1] == "failed to build"
    assert table.rows[2][0] == "peers (fallback 1/3 files)"


def test_without_gates_asked_for_there_is_no_gates_column() -> None:
    table = retrieval_table(made_summary(gated=False), KEY)
    assert "gates" not in table.columns and table.columns[-1] == "misses"


def test_an_unjudged_result_renders_empty_cells_rather_than_judging_itself() -> None:
    suite = made_suite()
    suite.strategies["ast"].against = None
    row = next(r for r in retrieval_table(made_summary(suites={KEY: suite}), KEY).rows if r[0] == "ast")
    assert row[-3:] == ["", "1", "—"]


def test_the_index_table_shows_each_strategy_once_with_its_stored_sizes_and_costs() -> None:
    table = index_table(made_summary(), KEY)
    rows = {row[0]: row for row in table.rows}
    assert list(rows) == ["file_level", "ast", "peers"]  # failed and skipped have no index
    col = {c: table.columns.index(c) for c in ("chunks", ">256 tok", "tiny", "lossless", "index KB", "Δsize",
                                                "chunk s", "embed s", "build s", "cached", "notes")}
    ast = rows["ast"]
    assert [ast[col[c]] for c in ("chunks", ">256 tok", "tiny", "lossless", "index KB", "Δsize")] == [
        "2", "25%", "50%", "yes", "1", "-50%"]
    assert [ast[col[c]] for c in ("chunk s", "embed s", "build s", "cached")] == ["0.2", "4.0", "5.5", "0"]
    assert rows["file_level"][col["Δsize"]] == "—" and rows["file_level"][col["cached"]] == "reused index"
    assert rows["peers"][col["notes"]] == "fallback files=1"


def test_the_comparison_table_renders_the_stored_deltas_and_verdict() -> None:
    table = comparison_table(made_summary(), KEY)
    (row,) = table.rows  # peers was skipped on base: listed under the table, not in it
    assert row[0] == "ast" and row[1:4] == ["0.900 → 0.700 ▼", "-0.200 [-0.300, -0.100]", "0.010 (adj 0.020)"]
    assert row[-5:] == ["0.050 / 0.050", "—", "+2.4%", "2 → 3", "FAIL, lost 1"]  # made by hand: no hit test
    assert "head vs main" in table.title


def test_the_terminal_summary_puts_the_verdict_first_then_every_suites_tables_and_notes() -> None:
    text = summary_text(made_summary())
    lines = text.splitlines()
    assert lines[0] == ("VERDICT: FAIL (head vs base main (0123456789); 2 paired tests can fail the run (file-mode "
                        "NDCG@10, R@10 and the hit test of each changed strategy), Holm-adjusted)")
    order = [text.index(s) for s in ("VERDICT: FAIL", f"{KEY} — 3 files", "chunks and index", "head vs main",
                                     "embedded 3 texts, 7 from cache (model m)")]
    assert order == sorted(order)
    for line in ("skipped corpus file big.bin: not text", "crashy: failed to build: ValueError: c.json:4",
                 "java_only: skipped: handles none of the 3 files of this suite",
                 "peers: fallback: b.py: SyntaxError at line 3", "queries added since base, left out of the paired "
                 "tests: q9", "not compared: peers (skipped on base: handles none)",
                 "ast: lost on head: q2 (rank 1 → none)", "base main (0123456789): evaluated in a temporary worktree"
                 " in 2.5s, embedded 1 texts, 9 from cache", "… and 2 more (see the JSON report)",
                 "note: golden/s/queries.yaml::ast: 1 queries lost, 0 gained against the base"):
        assert line in text, line


# -- the verdict -------------------------------------------------------------------------------------------------


def test_the_verdict_lines_render_each_reason_with_what_settles_it() -> None:
    text = headline.text_lines(VERDICT, made_summary())
    assert text[1:4] == ["  regressions against the base (1):", f"    {KEY}::ast: ndcg@10 (file) 0.900 → 0.700",
                         "    → intended? nothing to record"]
    assert "    … and 2 more (see the JSON report)" in text  # 12 gate lines: 10 shown
    md = headline.markdown(VERDICT, made_summary())
    assert md[0] == "## Verdict: ❌ FAIL — 2 reasons"
    assert f"- `{KEY}::ast`: ndcg@10 (file) 0.900 → 0.700" in md and "- ↳ intended? nothing to record" in md
    passed = Verdict(passed=True)
    assert headline.text_lines(passed, made_summary(comparisons={}, base=None)) == ["VERDICT: PASS"]
    assert headline.markdown(passed, made_summary(comparisons={}, base=None))[0] == "## Verdict: ✅ PASS"


# -- Markdown, the job summary and the PR comment ----------------------------------------------------------------


def test_the_markdown_report_renders_verdict_tables_and_details_from_the_value() -> None:
    md = document(made_summary())
    assert md.startswith("# pytest-chunkeval report\n\n## Verdict: ❌ FAIL — 2 reasons")
    order = [md.index(s) for s in ("## Verdict", f"## Head vs base: {KEY}", f"## {KEY}\n",
                                   f"### What changed on {KEY}")]
    assert order == sorted(order)
    assert "| ast | 0.800 [0.70–0.90] |" in md and "| +24.6% (p=0.042) | 1 | fail: ndcg,size |" in md
    assert "- **crashy failed to build**: ValueError: c.json:4: $.blocks: not a list" in md
    assert "- **ast**: ndcg@10 (file) fell 0.9000 -&gt; 0.7000" in md  # text (md_text): it reads "->"
    assert "<summary>ast: 1 lost, 0 gained queries</summary>" in md
    assert "  - head's top 3: `z.py:1-2`" in md and "Compared with base `main` (0123456789)" in md


def test_the_step_summary_appends_and_trims_to_githubs_limit(tmp_path: Path) -> None:
    target = tmp_path / "step_summary.md"
    target.write_text("another step's line\n", "utf-8")
    append_step_summary(made_summary(), target)
    text = target.read_text("utf-8")
    assert text.startswith("another step's line\n# pytest-chunkeval report") and text.endswith(document(made_summary()))
    small = tmp_path / "small.md"
    append_step_summary(made_summary(), small, limit=5000)
    trimmed = small.read_text("utf-8")
    assert len(trimmed.encode()) <= 5000 and "Trimmed:" in trimmed and trimmed.startswith("# pytest-chunkeval report")


def test_the_pull_request_comment_is_the_markdown_report_under_its_marker() -> None:
    md = document(made_summary())
    body = build_body(md, link="https://github.com/o/r/actions/runs/1")
    assert body.text.startswith(f"{DEFAULT_MARKER}\n# pytest-chunkeval report\n\n## Verdict: ❌ FAIL")
    assert body.left_out == 0 and "| +24.6% (p=0.042) | 1 | fail: ndcg,size |" in body.text
    assert body.text.endswith("_Full report: [the workflow run](https://github.com/o/r/actions/runs/1), artifact "
                              "`chunkeval-report` (Markdown and JSON)._\n")
    short = build_body(md, limit=2500)
    assert short.left_out > 0 and "## Verdict" in short.text and "sections did not fit" in short.text


# -- the JSON report ---------------------------------------------------------------------------------------------


def test_the_json_report_writes_the_stored_judgement_and_verdict(tmp_path: Path) -> None:
    report = json.loads(json.dumps(build_report(made_summary(), tmp_path), allow_nan=False))
    assert shape_problem(report) is None  # the shape readers check stored reports against (report_file)
    entries = report["suites"][KEY]["strategies"]
    assert list(entries) == ["file_level", "ast", "peers", "crashy", "java_only"]
    assert entries["ast"]["vs_baseline"] == STORED_VS
    assert [g["passed"] for g in entries["ast"]["gates"]] == [False, True, False]
    assert entries["ast"]["gates"][0]["detail"].startswith("stored detail")
    assert entries["file_level"]["vs_baseline"] == {} and "gates" not in entries["file_level"]
    assert entries["peers"]["gates"] == []
    assert entries["crashy"] == {"skipped": None, "failed": "ValueError: c.json:4: $.blocks: not a list",
                                 "strategy": "crashy", "retrieval": "hybrid"}
    assert entries["java_only"]["skipped"].startswith("handles none") and "vs_baseline" not in entries["java_only"]
    assert list(entries["ast"])[-2:] == ["vs_baseline", "gates"]  # where the report has always had them
    assert report["verdict"]["passed"] is False and report["verdict"]["headline"] == headline.one_line(VERDICT)
    assert report["verdict"]["reasons"][0]["settle"] == "intended? nothing to record"
    cmp = report["suites"][KEY]["comparison"]["strategies"]["ast"]
    assert cmp["verdict"] == "worse" and cmp["lost"][0]["id"] == "q2" and cmp["index"]["relative"] == 0.024
    assert report["family"] == {"size": 2, "correction": "holm"}
    assert report["base"]["ref"] == "main" and report["gate_thresholds"]["ndcg_gain"] == 0.1


def test_a_stored_report_reads_back_with_its_judgement(tmp_path: Path) -> None:
    report = json.loads(json.dumps(build_report(made_summary(), tmp_path)))
    back = suites_from_report(report)[KEY].strategies
    assert back["ast"].against == AgainstBaseline(STORED_VS, STORED_GATES)
    assert back["file_level"].against == AgainstBaseline({}, None)
    assert back["crashy"].against is None and back["java_only"].against is None
    # Rendered from the stored report, the tables read exactly what the run showed.
    again = made_summary(suites={KEY: suites_from_report(report)[KEY]})
    assert retrieval_table(again, KEY).rows == retrieval_table(made_summary(), KEY).rows


def test_a_report_without_a_verdict_or_comparison_says_so() -> None:
    report = build_report(made_summary(verdict=None, comparisons={}, base=None), Path("."))
    assert report["verdict"] is None and report["family"] is None and report["base"] is None
    assert "comparison" not in report["suites"][KEY]


# -- GitHub annotations and the misses a new suite lists ---------------------------------------------------------


def test_annotations_escape_github_workflow_commands_and_stop_at_githubs_limit() -> None:
    failed = [(f"{KEY}::ast::q{i}", KEY, "MISS: ast: 50%, a,b: c\nsecond line") for i in range(MAX_ANNOTATIONS + 3)]
    lines = annotation_lines(failed)
    assert lines[0] == (f"::error file={KEY},title=golden/s/queries.yaml%3A%3Aast%3A%3Aq0::MISS: ast: 50%25, a,b: "
                        "c%0Asecond line")
    assert len(lines) == MAX_ANNOTATIONS + 1 and lines[-1] == "::warning title=chunkeval::3 more failed items (see the log)"
    assert annotation_lines([]) == []


def test_unrecorded_misses_are_listed_with_the_command_that_records_them(tmp_path: Path) -> None:
    suite = tmp_path / "golden" / "s" / "queries.yaml"
    lines = unrecorded_lines({suite: {"ast": [f"q{i}" for i in range(10)], "peers": ["q1"]}}, tmp_path,
                         "pytest --chunkeval --chunkeval-accept-misses")
    assert lines == [
        "golden/s/queries.yaml: no accepted-misses record yet; 11 misses (xfailed):",
        "  ast: q0, q1, q2, q3, q4, q5, q6, q7 … and 2 more",
        "  peers: q1",
        "11 misses on suites with no accepted-misses record yet; to hold today's state, record it with: "
        "pytest --chunkeval --chunkeval-accept-misses",
    ]
