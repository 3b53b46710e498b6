"""Issue 34, item 6: the files and lines a grammar could not parse are recorded by every parsing engine, carried into
the JSON report, listed in the terminal summary and the Markdown, and fail ``quality[parse-errors]`` past a share."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hand_made_results import KEY, made_summary

from pytest_chunkeval.chunking.ast.chunker import AstChunker, ast_chunks
from pytest_chunkeval.chunking.function_level import FunctionLevelChunker
from pytest_chunkeval.chunking.lark.strategies import EbnfMetadataChunker
from pytest_chunkeval.chunking.regex_config.chunker import GrammarChunker
from pytest_chunkeval.chunking.strategy_base import MAX_ERROR_REGIONS, PARSE_ERROR_LINES, note_error_lines
from pytest_chunkeval.evaluation.build_facts import BuildFacts
from pytest_chunkeval.output.markdown import document
from pytest_chunkeval.output.tables import summary_text
from pytest_chunkeval.results.report_file import read_report
from pytest_chunkeval.run.items import QUALITY, ReportedFailure
from pytest_chunkeval.scoring.quality import error_regions, parse_errors

ROOT = Path(__file__).resolve().parents[1]
BAD = ROOT / "tests" / "data" / "avap_bad"
FIXTURE = ROOT / "tests" / "data" / "avap_fixture"

#: A TypeScript file that parses up to line 4 and not from line 5 (a parameter list never closed, an expression
#: missing), then parses again.
BROKEN_TS = """\
export function ok(a: number): number {
  return a;
}

function broken( {
  let x = ;
}

class Fine {
  m() { return 1 }
}
"""
CLEAN_TS = "export const answer = 42;\n"


def _lines(stats: dict) -> dict:
    return stats.get(PARSE_ERROR_LINES, {})


@pytest.mark.parametrize("make", [AstChunker, FunctionLevelChunker])
def test_tree_sitter_engines_record_the_lines_a_file_did_not_parse(make: type) -> None:
    s = make()
    s.reset_stats()
    s.chunk("src/broken.ts", BROKEN_TS)
    s.chunk("src/clean.ts", CLEAN_TS)
    stats = s.stats()
    assert stats["parse_errors"] == 1
    ((path, regions),) = _lines(stats).items()  # the clean file is not listed
    assert path == "src/broken.ts"
    for first, last in regions:  # every region lies in what did not parse, and covers its first line
        assert 5 <= first <= last <= len(BROKEN_TS.splitlines())
    assert regions[0][0] == 5
    s.reset_stats()
    assert PARSE_ERROR_LINES not in s.stats()


def test_ast_chunks_notes_into_a_dict_it_is_given_and_nothing_without_one() -> None:
    errors: dict = {}
    ast_chunks(BROKEN_TS, "a.ts", errors=errors)
    ast_chunks(CLEAN_TS, "b.ts", errors=errors)
    assert list(errors) == ["a.ts"]
    assert ast_chunks(BROKEN_TS, "a.ts") == ast_chunks(BROKEN_TS, "a.ts", errors={})  # the chunks do not change


def test_a_lark_syntax_error_records_the_line_the_parser_stopped_at() -> None:
    s = EbnfMetadataChunker(FIXTURE / "avap.lark", extensions=(".avap",))
    s.chunk("unclosed_if.avap", (BAD / "unclosed_if.avap").read_text())
    stats = s.stats()
    # the same line as its warning: "unclosed_if.avap:7: unexpected '}' ..."
    assert stats["parse_errors"] == 1 and _lines(stats) == {"unclosed_if.avap": [[7, 7]]}
    assert stats["warnings"][0].startswith("unclosed_if.avap:7:")


def test_a_grammar_configs_unclosed_blocks_are_its_parse_errors() -> None:
    s = GrammarChunker(FIXTURE / "avap_config.json")
    s.chunk("unclosed_at_eof.avap", (BAD / "unclosed_at_eof.avap").read_text())
    stats = s.stats()
    # "unclosed 'startLoop' block (line 2) / 'try' block (line 4), closed at line 5": one region, merged
    assert stats["recovered_blocks"] == 2 and stats["parse_errors"] == 1
    assert _lines(stats) == {"unclosed_at_eof.avap": [[2, 5]]}


def test_regions_are_merged_capped_and_never_lost_for_want_of_a_position() -> None:
    into: dict = {}
    note_error_lines(into, "a", [(9, 9), (3, 4), (5, 6), (4, 4)])
    assert into["a"] == [[3, 6], [9, 9]]  # adjacent and overlapping ranges joined, in file order
    note_error_lines(into, "a", [(8, 8)])
    assert into["a"] == [[3, 6], [8, 9]]
    note_error_lines(into, "b", [])
    assert into["b"] == [[1, 1]]
    note_error_lines(into, "c", [(i * 3, i * 3) for i in range(1, 100)])
    assert len(into["c"]) == MAX_ERROR_REGIONS and into["c"][0] == [3, 3]
    note_error_lines(None, "d", [(1, 2)])  # no record asked for: nothing happens


def test_stats_of_any_shape_are_read_without_an_exception() -> None:
    stats = {"parse_errors": 2, PARSE_ERROR_LINES: {"a.ts": [[1, 2], "x", [0, 3], [True, 2], [4, 5, 6]],
                                                    "b.ts": "lines", "c.ts": [[7, 7]]}}
    assert error_regions(stats) == {"a.ts": ((1, 2),), "c.ts": ((7, 7),)}
    assert error_regions({PARSE_ERROR_LINES: ["a.ts"]}) == {}
    pe = parse_errors(stats, 10)
    assert (pe.parses, pe.count, pe.share) == (True, 2, 0.2)
    assert not parse_errors({"files": 3}, 3).parses  # a strategy with no grammar
    assert parse_errors({"parse_errors": "many"}, 3).count == 0


# -- quality[parse-errors] ------------------------------------------------------------------------------------------

class _Run:
    def __init__(self, stats: dict, files: int) -> None:
        self.name = "ast"
        self.facts = BuildFacts(files_handled=files, strategy_stats=stats)


class _Options:
    def __init__(self, limit: float) -> None:
        self.max_parse_errors = limit


def _stats(bad: int) -> dict:
    return {"parse_errors": bad, PARSE_ERROR_LINES: {f"src/f{i}.ts": [[5, 7], [12, 12]] for i in range(bad)}}


def test_the_item_fails_past_the_share_naming_each_file_and_its_lines() -> None:
    judge = QUALITY["parse-errors"].judge
    judge(_Run(_stats(1), 20), None, _Options(0.05))  # type: ignore[arg-type]  # 5%: not more than allowed
    with pytest.raises(ReportedFailure) as failed:
        judge(_Run(_stats(2), 20), None, _Options(0.05))  # type: ignore[arg-type]
    message = str(failed.value)
    assert message.startswith("ast's grammar could not parse 2 of 20 files (10%), more than "
                              "chunkeval_max_parse_errors allows (5%); first: src/f0.ts: lines 5-7, 12\n")
    assert "  src/f0.ts: lines 5-7, 12\n  src/f1.ts: lines 5-7, 12\n" in message
    assert message.endswith("--chunkeval-max-parse-errors=0.1 (ini chunkeval_max_parse_errors)")
    judge(_Run(_stats(2), 20), None, _Options(0.1))  # type: ignore[arg-type]  # allowed explicitly
    with pytest.raises(ReportedFailure, match="could not parse 1 of 20"):
        judge(_Run(_stats(1), 20), None, _Options(0.0))  # type: ignore[arg-type]


def test_the_item_lists_a_capped_number_of_files_and_counts_the_rest() -> None:
    with pytest.raises(ReportedFailure) as failed:
        QUALITY["parse-errors"].judge(_Run(_stats(40), 40), None, _Options(0.05))  # type: ignore[arg-type]
    message = str(failed.value)
    assert "src/f14.ts" in message and "src/f15.ts" not in message
    assert "… and 25 more files (every one is in the JSON report's strategy_stats.parse_error_lines)" in message


def test_a_strategy_that_parses_nothing_skips_the_item() -> None:
    with pytest.raises(pytest.skip.Exception, match="reports no parsing"):
        QUALITY["parse-errors"].judge(_Run({"files": 3, "chunks": 9}, 3), None, _Options(0.0))  # type: ignore[arg-type]


# -- the report, the terminal, the Markdown ------------------------------------------------------------------------

def _summary_with(stats: dict) -> object:
    summary = made_summary()
    suite = summary.suites[KEY]  # type: ignore[attr-defined]
    suite.strategies["ast"] = dataclasses.replace(suite.strategies["ast"], strategy_stats=stats)
    return summary


def test_the_terminal_and_the_markdown_name_the_files_and_lines() -> None:
    summary = _summary_with({"parse_errors": 2, PARSE_ERROR_LINES: {"src/a.ts": [[5, 11]], "src/b.ts": [[3, 3]]}})
    text = summary_text(summary)  # type: ignore[arg-type]
    assert "ast: its grammar could not parse 2 of 3 files (67%):" in text
    assert "  src/a.ts: lines 5-11" in text and "  src/b.ts: line 3" in text
    md = document(summary)  # type: ignore[arg-type]
    assert "<summary>ast: its grammar could not parse 2 of 3 files (67%)</summary>" in md
    assert "- src/a.ts: lines 5-11" in md


def test_a_strategy_with_no_parse_errors_adds_nothing() -> None:
    quiet = _summary_with({"parse_errors": 0})
    assert "could not parse" not in summary_text(quiet)  # type: ignore[arg-type]
    assert "could not parse" not in document(quiet)  # type: ignore[arg-type]


def test_a_hostile_file_name_stays_on_its_line_in_both() -> None:
    summary = _summary_with({"parse_errors": 1, PARSE_ERROR_LINES: {"x\n::error ::pwned\n## Verdict: ✅ PASS": [[1, 2]]}})
    text = summary_text(summary)  # type: ignore[arg-type]
    assert not any(line.startswith(("::", "## Verdict")) for line in text.splitlines())
    md = document(summary)  # type: ignore[arg-type]
    assert "\n## Verdict: ✅ PASS" not in md and "\n::error" not in md
    stats = summary.suites[KEY].strategies["ast"].strategy_stats  # type: ignore[attr-defined]
    with pytest.raises(ReportedFailure) as failed:
        QUALITY["parse-errors"].judge(_Run(stats, 3), None, _Options(0.0))  # type: ignore[arg-type]
    assert not any(line.lstrip().startswith(("::", "## Verdict")) for line in str(failed.value).splitlines())


def test_the_report_carries_the_regions_and_its_reader_checks_them(tmp_path: Path) -> None:
    from pytest_chunkeval.output.report import build_report

    summary = _summary_with({"parse_errors": 1, PARSE_ERROR_LINES: {"src/a.ts": [[5, 11]]}})
    report = build_report(summary, tmp_path)  # type: ignore[arg-type]
    assert report["suites"][KEY]["strategies"]["ast"]["strategy_stats"][PARSE_ERROR_LINES] == {"src/a.ts": [[5, 11]]}
    good = tmp_path / "good.json"
    good.write_text(json.dumps(report))
    read_report(good)
    report["suites"][KEY]["strategies"]["ast"]["strategy_stats"][PARSE_ERROR_LINES] = {"src/a.ts": [[5, -1]]}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(report))
    with pytest.raises(ValueError, match=r"parse_error_lines.*-1 is less than the minimum of 0"):
        read_report(bad)


# -- end to end ----------------------------------------------------------------------------------------------------

def test_a_run_names_the_unparsed_file_and_fails_past_the_share(pytester: pytest.Pytester,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The shop with a TypeScript file that does not parse, chunked by the built-in ``ast`` (embedded by the fake
    model: what is checked is which files and lines are named, not what retrieves)."""
    from fake_model import FakeSentenceModel
    from project_files import SHOP_CORPUS, SHOP_GOLDEN, name_suites, run_vector, set_ini, write_suite

    from pytest_chunkeval.retrieval.embed import Embedder

    fake = FakeSentenceModel()
    monkeypatch.setattr(Embedder, "model", lambda self: fake)
    name_suites(pytester)
    set_ini(pytester.path, "chunkeval_strategies", '"ast"', "ast")
    write_suite(pytester.path / "golden" / "shop", {**SHOP_CORPUS, "broken.ts": BROKEN_TS}, SHOP_GOLDEN)
    failed = run_vector(pytester, "-k", "parse", "--chunkeval-markdown=summary.md")
    failed.assert_outcomes(failed=1, skipped=1)  # skipped: the baseline's (file_level parses nothing)
    failed.stdout.fnmatch_lines([
        "ast's grammar could not parse 1 of 3 files (33%), more than chunkeval_max_parse_errors allows (5%); "
        "first: broken.ts: lines 5-*",
        "  broken.ts: lines 5-*",
        "*strategies whose grammar could not parse a share of the files (1):",  # the verdict
        "*::ast::quality[[]parse-errors[]]: ast's grammar could not parse 1 of 3 files * first: broken.ts: lines 5-*",
        "ast: its grammar could not parse 1 of 3 files (33%):",  # the terminal summary
        "  broken.ts: lines 5-*",
    ])
    report = json.loads((pytester.path / ".chunkeval" / "chunkeval-report.json").read_text())
    regions = report["suites"]["golden/shop/queries.yaml"]["strategies"]["ast"]["strategy_stats"][PARSE_ERROR_LINES]
    assert list(regions) == ["broken.ts"] and regions["broken.ts"][0][0] == 5
    assert "- broken.ts: lines 5-" in (pytester.path / "summary.md").read_text()
    allowed = run_vector(pytester, "-k", "parse", "--chunkeval-max-parse-errors=0.5")
    allowed.assert_outcomes(passed=1, skipped=1)
    allowed.stdout.fnmatch_lines(["*ast: its grammar could not parse 1 of 3 files (33%):*"])  # still named
