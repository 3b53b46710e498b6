"""Hostile files handed to the commands that read stored reports (``chunkeval frontier``): each ends in one line
naming the file and what is wrong, exit 2, never a traceback. Hand-written files; nothing is evaluated."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from frontier_reports import hand_made_report
from hostile_reports import RANGE_CASES

from pytest_chunkeval.cli import main
from pytest_chunkeval.results.report_file import ReportError, read_report

VALID_ENTRY = '{"index": {"bytes": 1}, "queries": {"q": {"metrics": {"lines": {"ndcg@10": %s}}}}}'

CASES = {
    # name: (file content, what the message must say besides the file's name)
    "nan": ('{"suites": {"a": {"strategies": {"x": ' + VALID_ENTRY % "NaN" + "}}}}",
            "NaN at $.suites.a.strategies.x.queries.q.metrics.lines['ndcg@10']"),
    "infinity": ('{"k": 10, "suites": {"a": {"strategies": {"x": ' + VALID_ENTRY % "-Infinity" + "}}}}",
                 "-Infinity at $.suites.a"),
    "overflow": ('{"suites": {"a": {"strategies": {"x": ' + VALID_ENTRY % "1e400" + "}}}}",
                 "1e400 (out of range) at $.suites.a.strategies.x.queries.q.metrics.lines['ndcg@10']"),
    "array": ("[1, 2, 3]", "not a pytest-chunkeval report: should be object, not array"),
    "no suites": ('{"k": 10}', "not a pytest-chunkeval report: 'suites' is a required property"),
    "suites a list": ('{"suites": ["golden/a"]}', "$.suites: should be object, not array"),
    "strategy a string": ('{"suites": {"a": {"strategies": {"x": "fast"}}}}',
                          "$.suites.a.strategies.x: should be object, not string"),
    "bytes a string": ('{"suites": {"a": {"strategies": {"x": {"index": {"bytes": "big"}}}}}}',
                       "$.suites.a.strategies.x.index.bytes: should be number, not string"),
    "metric a string": ('{"suites": {"a": {"strategies": {"x": ' + VALID_ENTRY % '"0.5"' + "}}}}",
                        "$.suites.a.strategies.x.queries.q.metrics.lines['ndcg@10']: should be number, not string"),
    "k a float": ('{"k": 2.5, "suites": {}}', "$.k: should be integer, not number"),
    "deep": ("[" * 100_000 + "]" * 100_000, "not a report: nested too deeply to read"),
    "truncated": ('{"suites": {', ":1:13: not a report: not JSON (Expecting property name"),
    "binary": ("\udcff", "not a report: not UTF-8 text (byte 0)"),
    **{name: (text, said) for name, (text, said, _) in RANGE_CASES.items()},
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_hostile_report_is_one_error_naming_the_file_and_what_is_wrong(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    text, expected = CASES[name]
    path = tmp_path / "report.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    good = hand_made_report(tmp_path)
    assert main(["frontier", str(good), str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"chunkeval frontier: {path}") and expected in err, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_a_missing_or_unreadable_report_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["frontier", str(tmp_path / "gone.json")]) == 2
    assert capsys.readouterr().err == f"chunkeval frontier: {tmp_path / 'gone.json'}: cannot read it: No such file or directory\n"
    assert main(["frontier", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(f"chunkeval frontier: {tmp_path}: cannot read it: ")


def test_a_message_does_not_repeat_a_huge_value(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"suites": {"a": {"strategies": ["x" * 100] * 10_000}}}))
    with pytest.raises(ReportError) as caught:
        read_report(path)
    assert len(str(caught.value)) < 300


def test_the_hand_made_reports_of_the_frontier_tests_are_reports(tmp_path: Path) -> None:
    assert read_report(hand_made_report(tmp_path))["suites"]
