"""One frontier per repository: suites of several reports are told apart by their content (corpus and queries), not
by their path, which ``chunkeval init`` makes the same in every repository. Hand-made reports; nothing is evaluated."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from frontier_reports import entry, report

from pytest_chunkeval.cli import main
from pytest_chunkeval.core.ranking import Relevant
from pytest_chunkeval.frontier.analysis import from_reports
from pytest_chunkeval.frontier.suites import SuiteConflict
from pytest_chunkeval.results.comparable import recorded_digest, suite_digest
from pytest_chunkeval.results.typed import QuerySpec, SuiteResult

DOCS, HISTORY = "golden/docs/queries.yaml", "golden/history/queries.yaml"


def repo_report(repo: str, sizes: dict[str, int], *, digest: bool = True, corpus_hash: bool = True) -> dict[str, Any]:
    """A report of repository ``repo``: a docs and a history suite of ``sizes[key]`` queries each, where ``ast``
    beats the default ``file_level`` by 0.2 on every query."""
    out = report({key: {"file_level": entry([0.4] * n, 100, strategy="file_level"),
                        "ast": entry([0.6] * n, 200, strategy="ast")} for key, n in sizes.items()})
    for key, suite in out["suites"].items():
        suite["query_set"] = {f"q{i}": {"query": f"{repo} question {i}", "relevant": [{"path": "a.py", "grade": 1}]}
                              for i in range(sizes[key])}
        if corpus_hash:
            suite["corpus_hash"] = f"{repo}-{key}-corpus"
        if digest:
            suite["content_digest"] = recorded_digest(suite)
    return out


def test_the_same_paths_in_two_repositories_are_four_suites_kept_apart_and_said_so() -> None:
    a = repo_report("toolz", {DOCS: 65, HISTORY: 30})
    b = repo_report("attrs", {DOCS: 24, HISTORY: 12})
    result = from_reports([a, b], None, "bytes", names=["toolz.json", "attrs.json"])
    suites = [p.suite for p in result.panels if not p.pooled]
    assert len(suites) == 4 and len(set(suites)) == 4
    digest = {(name, key): report["suites"][key]["content_digest"][:8]
              for name, report in (("toolz", a), ("attrs", b)) for key in (DOCS, HISTORY)}
    assert suites == [f"{DOCS}@{digest['toolz', DOCS]}", f"{HISTORY}@{digest['toolz', HISTORY]}",
                      f"{DOCS}@{digest['attrs', DOCS]}", f"{HISTORY}@{digest['attrs', HISTORY]}"]
    assert [p.points[0].queries for p in result.panels if not p.pooled] == [65, 30, 24, 12]  # never mixed
    (pooled,) = [p for p in result.panels if p.pooled]
    assert pooled.suite == "pooled over 4 suites"
    (versus,) = pooled.tests
    assert versus.queries == 65 + 30 + 24 + 12 and versus.delta == pytest.approx(0.2)
    assert f"{DOCS} names 2 different suites (another corpus or other queries), kept apart: " \
           f"{DOCS}@{digest['toolz', DOCS]} in toolz.json; {DOCS}@{digest['attrs', DOCS]} in attrs.json" in result.notes


def test_the_same_suite_in_two_reports_is_one_suite_that_keeps_the_points_of_both() -> None:
    first, again = repo_report("toolz", {DOCS: 5}), repo_report("toolz", {DOCS: 5})
    again["suites"][DOCS]["strategies"]["ast"] = entry([0.9] * 5, 200, strategy="ast")
    result = from_reports([first, again], None, "bytes", names=["monday.json", "tuesday.json"])
    assert [p.suite for p in result.panels] == [DOCS]
    (panel,) = result.panels
    assert {p.label: round(p.quality, 3) for p in panel.points} == {
        "ast (monday.json)": 0.6, "ast (tuesday.json)": 0.9, "file_level": 0.4}  # the same in both: once
    assert panel.best.label == "ast (tuesday.json)"
    assert "ast is in 2 reports on the same suite; each is kept, named by its report: ast (monday.json), " \
           "ast (tuesday.json)" in result.notes


def test_without_a_recorded_digest_the_corpus_hash_and_queries_tell_suites_apart() -> None:
    a = repo_report("toolz", {DOCS: 6}, digest=False)
    b = repo_report("attrs", {DOCS: 6}, digest=False)
    result = from_reports([a, b], None, "bytes", names=["a.json", "b.json"])
    assert [p.suite for p in result.panels if not p.pooled] == [
        f"{DOCS}@{recorded_digest(a['suites'][DOCS])[:8]}", f"{DOCS}@{recorded_digest(b['suites'][DOCS])[:8]}"]


def test_a_report_that_records_no_content_is_read_by_path_and_said_so() -> None:
    old = repo_report("toolz", {DOCS: 6}, digest=False, corpus_hash=False)
    new = repo_report("toolz", {DOCS: 6})
    result = from_reports([old, new], None, "bytes", names=["old.json", "new.json"])
    assert [p.suite for p in result.panels] == [DOCS]
    assert any(n.startswith(f"{DOCS} in old.json, new.json: read as one suite by its path alone (not checked: "
                            "old.json does not record") for n in result.notes)


def test_a_path_naming_two_suites_and_a_report_that_cannot_say_which_is_refused_naming_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    reports = {"toolz.json": repo_report("toolz", {DOCS: 6}), "attrs.json": repo_report("attrs", {DOCS: 6}),
               "old.json": repo_report("toolz", {DOCS: 6}, digest=False, corpus_hash=False)}
    with pytest.raises(SuiteConflict, match="toolz.json, attrs.json .*and old.json does not record which"):
        from_reports(list(reports.values()), None, "bytes", names=list(reports))
    paths = []
    for name, r in reports.items():
        paths.append(tmp_path / name)
        paths[-1].write_text(json.dumps(r))
    assert main(["frontier", *map(str, paths)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"chunkeval frontier: {DOCS} is a different suite in {paths[0]}, {paths[1]}")
    assert f"and {paths[2]} does not record which one it holds" in err


def test_a_suite_result_records_its_content_digest_which_follows_its_corpus_and_queries() -> None:
    spec = QuerySpec("q1", "Where are passwords hashed?", (Relevant("auth.py", (3, 9), 1),))
    suite = SuiteResult("golden/docs/queries.yaml", "docs", "golden/docs/corpus", 1, {}, {"q1": spec},
                        corpus_hash="c" * 64)
    written = json.loads(json.dumps(suite.to_entry()))
    assert written["content_digest"] == suite_digest("c" * 64, written["query_set"]) == recorded_digest(
        {k: v for k, v in written.items() if k != "content_digest"})
    reworded = SuiteResult(suite.key, "docs", suite.corpus, 1, {},
                           {"q1": QuerySpec("q1", "Where is the password hashed?", spec.relevant)},
                           corpus_hash="c" * 64)
    other_corpus = SuiteResult(suite.key, "docs", suite.corpus, 1, {}, {"q1": spec}, corpus_hash="d" * 64)
    assert len({suite.content_digest, reworded.content_digest, other_corpus.content_digest}) == 3
    assert SuiteResult(suite.key, "docs", suite.corpus, 1, {}, {"q1": spec}).content_digest == ""  # no corpus hash


def test_the_same_report_read_twice_shows_each_point_once() -> None:
    first = repo_report("toolz", {DOCS: 5})
    result = from_reports([first, json.loads(json.dumps(first))], None, "bytes", names=["r.json", "copy/r.json"])
    assert sorted(p.label for p in result.panels[0].points) == ["ast", "file_level"]
    assert f"{DOCS}: ast (hybrid) is the same point in r.json, copy/r.json: shown once" in result.notes
