"""Retrieval mode as a dimension (``--chunkeval-retrieval vector,hybrid``) on hand-made results: ids, rows, report.

No model and no database here: the values are made by hand so each expected number is worked out below. The one
end-to-end runs with the real model are in tests/test_retrieval_modes_e2e.py.
"""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from mode_results import SPECS, K, result, suite
from project_files import SHOP_CORPUS, set_ini, write_strategies, write_suite

from pytest_chunkeval.commands.verify import check_report
from pytest_chunkeval.judges.against_baseline import judge_suites
from pytest_chunkeval.judges.comparison import Policy, judged
from pytest_chunkeval.judges.gates import Thresholds
from pytest_chunkeval.output.markdown import document
from pytest_chunkeval.output.report import REPORT_VERSION, Summary, build_report
from pytest_chunkeval.output.tables import index_table, render_text, retrieval_table
from pytest_chunkeval.results.typed import (
    SuiteResult,
    row_label,
    suites_from_report,
)


def two_modes() -> SuiteResult:
    # vector: ast 1.0 against file_level 0.5 (+100 %); hybrid: ast 0.4 against file_level 0.8 (-50 %). Paired across
    # modes by mistake, hybrid would read 0.4 against 0.5 (-20 %) and vector 1.0 against 0.8 (+25 %).
    return suite(result("file_level", "vector", 0.5), result("ast", "vector", 1.0),
                 result("file_level", "hybrid", 0.8), result("ast", "hybrid", 0.4))


def summary(s: SuiteResult, retrieval: str = "vector,hybrid") -> Summary:
    """The suite judged against the baseline once, as the session does, then wrapped for the renderers."""
    judge_suites({"s.yaml": s}, "file_level", K, Thresholds())
    return Summary(k=K, retrieval=retrieval, baseline="file_level", model={"id": "m", "max_tokens": 256},
                   embedding={"embedded": 0, "cached": 0}, suites={"s.yaml": s}, thresholds=Thresholds())


def test_labels_are_bare_with_one_mode_and_carry_the_mode_with_several() -> None:
    assert row_label("ast", "hybrid", multi=False) == "ast"
    assert row_label("ast", "vector", multi=True) == "ast[vector]"


def test_the_baseline_delta_and_the_gates_compare_within_one_mode() -> None:
    s = summary(two_modes()).suites["s.yaml"].strategies
    vec, hyb = s["ast[vector]"].vs_baseline, s["ast[hybrid]"].vs_baseline
    assert vec["file"]["ndcg@10"]["delta"] == pytest.approx(0.5)
    assert vec["file"]["ndcg@10"]["relative"] == pytest.approx(1.0)
    assert hyb["file"]["ndcg@10"]["delta"] == pytest.approx(-0.4)
    assert hyb["file"]["ndcg@10"]["relative"] == pytest.approx(-0.5)
    assert s["file_level[hybrid]"].vs_baseline == {}  # the baseline against itself: nothing
    gates = {label: {g.name: g.passed for g in s[label].gates} for label in ("ast[vector]", "ast[hybrid]")}
    assert gates == {"ast[vector]": {"ndcg-gain": True, "recall-drop": True, "index-size": True},
                     "ast[hybrid]": {"ndcg-gain": False, "recall-drop": False, "index-size": True}}
    assert s["file_level[vector]"].gates == ()


def test_tables_label_every_row_by_mode_and_show_the_shared_index_once() -> None:
    s = summary(two_modes())
    table = retrieval_table(s, "s.yaml")
    assert "vector and hybrid retrieval" in table.title
    rows = {row[0]: row for row in table.rows}
    assert list(rows) == ["file_level[vector]", "ast[vector]", "file_level[hybrid]", "ast[hybrid]"]
    delta = table.columns.index("ΔNDCG vs file_level (p)")
    assert rows["ast[vector]"][delta].startswith("+100.0% (p=")
    assert rows["ast[hybrid]"][delta].startswith("-50.0% (p=")
    assert rows["file_level[hybrid]"][delta] == "—"
    assert [row[0] for row in index_table(s, "s.yaml").rows] == ["file_level", "ast"]  # chunks and index: shared
    text = render_text([table])
    assert "ast[vector]" in text and "ast[hybrid]" in text
    md = document(s)
    assert "| ast[vector] |" in md and "| ast[hybrid] |" in md and "vector and hybrid retrieval" in md


def test_single_mode_tables_and_report_keys_stay_as_they_were() -> None:
    s = summary(suite(result("file_level", "hybrid", 0.8, multi=False), result("ast", "hybrid", 0.4, multi=False)),
                retrieval="hybrid")
    assert [row[0] for row in retrieval_table(s, "s.yaml").rows] == ["file_level", "ast"]
    report = build_report(s, Path("."))
    assert list(report["suites"]["s.yaml"]["strategies"]) == ["file_level", "ast"]
    assert report["retrieval"] == "hybrid" and report["retrieval_modes"] == ["hybrid"]


def test_the_report_keys_entries_by_label_names_strategy_and_mode_and_reads_back() -> None:
    s = summary(two_modes())
    report = json.loads(json.dumps(build_report(s, Path(".")), allow_nan=False))
    assert report["version"] == REPORT_VERSION == 3
    assert (report["retrieval"], report["retrieval_modes"]) == ("vector,hybrid", ["vector", "hybrid"])
    entries = report["suites"]["s.yaml"]["strategies"]
    assert {label: (e["strategy"], e["retrieval"]) for label, e in entries.items()} == {
        "file_level[vector]": ("file_level", "vector"), "ast[vector]": ("ast", "vector"),
        "file_level[hybrid]": ("file_level", "hybrid"), "ast[hybrid]": ("ast", "hybrid")}
    assert entries["ast[hybrid]"]["vs_baseline"]["file"]["ndcg@10"]["delta"] == pytest.approx(-0.4)
    assert [g["passed"] for g in entries["ast[hybrid]"]["gates"]] == [False, False, True]
    assert "gates" not in entries["file_level[vector]"]
    back = suites_from_report(report)["s.yaml"]
    found = back.find("ast", "hybrid")
    assert found is not None and (found.label, found.means["file"]["ndcg@10"]) == ("ast[hybrid]", 0.4)
    assert back.strategies["ast[vector]"].against == s.suites["s.yaml"].strategies["ast[vector]"].against
    again = summary(back).suites["s.yaml"].strategies["ast[vector]"]  # judged again from the stored numbers
    assert again.vs_baseline["file"]["ndcg@10"]["delta"] == pytest.approx(0.5)


def test_a_two_mode_head_pairs_with_a_single_mode_base_of_the_same_mode_only() -> None:
    # The base is a version-2 report of a hybrid-only run: bare keys, entries that do not name their mode.
    old = build_report(summary(suite(result("ast", "hybrid", 0.4, multi=False)), retrieval="hybrid"), Path("."))
    for entry in old["suites"]["s.yaml"]["strategies"].values():
        del entry["strategy"], entry["retrieval"]
    base = suites_from_report(old)["s.yaml"]
    assert base.strategies["ast"].mode == "hybrid"  # the report's one mode
    head = suite(result("ast", "vector", 1.0), result("ast", "hybrid", 0.4))
    cmp = judged(base, head, Policy()).strategies
    assert set(cmp) == {"ast[vector]", "ast[hybrid]"}  # no "removed" row for the base's bare "ast": it is paired
    assert cmp["ast[hybrid]"].status == "unchanged" and cmp["ast[hybrid]"].paired == 30
    assert cmp["ast[vector]"].status == "new"


def test_a_fall_in_one_mode_is_a_regression_of_that_mode_only() -> None:
    base = suite(result("ast", "vector", 1.0), result("ast", "hybrid", 1.0))
    head = suite(result("ast", "vector", 1.0), result("ast", "hybrid", 0.0))
    cmp = judged(base, head, Policy()).strategies
    assert not cmp["ast[vector]"].failed
    assert cmp["ast[hybrid]"].failed and cmp["ast[hybrid]"].strategy == "ast[hybrid]"


def test_verify_flags_an_entry_whose_mode_the_report_did_not_evaluate(tmp_path: Path) -> None:
    golden = tmp_path / "s.yaml"
    golden.write_text(textwrap.dedent("""
        corpus: corpus
        queries:
    """) + "".join(f"  - {{id: {q.id}, query: '{q.text}', relevant: [{{path: a.py, lines: [1, 5]}}]}}\n"
                   for q in SPECS))
    # Metrics of 1 (relevant at rank 1) or 0 (nothing retrieved): values trec_eval agrees with, so the only
    # mismatch left is the mode planted below.
    both = suite(result("file_level", "vector", 0.0), result("ast", "vector", 1.0),
                 result("file_level", "hybrid", 1.0), result("ast", "hybrid", 0.0))
    report = build_report(summary(both), tmp_path)
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    assert check_report(path).mismatches == []
    report["suites"]["s.yaml"]["strategies"]["ast[hybrid]"]["retrieval"] = "fts"
    path.write_text(json.dumps(report))
    assert check_report(path).mismatches == [
        "s.yaml / ast[hybrid]: retrieval mode 'fts' is not one of the report's ['vector', 'hybrid']"]


def _one_query_project(pytester: pytest.Pytester) -> None:
    """One strategy, one file, one query: enough to see what is collected. The strategy is its own baseline, so
    no built-in is evaluated beside it."""
    set_ini(pytester.path, "chunkeval_baseline", '"fixed_size"', "fixed_size")
    write_strategies(pytester.path, {"fixed_size.py": (
        "from pytest_chunkeval import FixedSizeChunker, strategy\n\n\n@strategy\ndef fixed_size():\n"
        "    return FixedSizeChunker(max_chunk_size=120)\n")})
    write_suite(pytester.path / "golden" / "shop", {"orders.py": SHOP_CORPUS["orders.py"]},
                "corpus: corpus\nqueries:\n  - id: order-total\n    query: total of an order\n"
                "    relevant:\n      - path: orders.py\n        lines: [1, 2]\n")


@pytest.mark.parametrize(("modes", "expected"), [
    ("hybrid", ["golden/shop/queries.yaml::fixed_size::order-total"]),
    ("vector, hybrid", ["golden/shop/queries.yaml::fixed_size[vector]::order-total",
                        "golden/shop/queries.yaml::fixed_size[hybrid]::order-total"]),
])
def test_item_ids_carry_the_mode_only_when_there_are_several(pytester: pytest.Pytester, modes: str,
                                                               expected: list[str]) -> None:
    _one_query_project(pytester)
    result = pytester.runpytest_subprocess("--chunkeval", "-p", "no:cacheprovider", "--collect-only", "-q",
                                           f"--chunkeval-retrieval={modes}", "-k", "order-total")
    ids = [line for line in result.stdout.lines if "::" in line]
    assert sorted(ids) == sorted(expected)  # as a set: pytest-randomly, where installed, shuffles the items


def test_chunk_checks_are_collected_once_whatever_the_modes(pytester: pytest.Pytester) -> None:
    """Quality checks judge the chunks, which every mode shares: under the first mode only, not once per mode."""
    _one_query_project(pytester)
    result = pytester.runpytest_subprocess("--chunkeval", "-p", "no:cacheprovider", "--collect-only", "-q",
                                           "--chunkeval-retrieval=vector,hybrid", "-k", "quality")
    ids = [line for line in result.stdout.lines if "::" in line]
    assert ids and all("::fixed_size[vector]::quality[" in i for i in ids), ids
