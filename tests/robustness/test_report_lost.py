"""End to end: an output file that cannot be written, and a stored report holding NaN, each end in one line naming
the file: the verdict is still printed, the other outputs still written, and there is no traceback."""
from __future__ import annotations

import json

import pytest
from project_files import run

pytestmark = pytest.mark.slow


def test_a_report_that_cannot_be_written_is_one_line_after_the_verdict(project: pytest.Pytester) -> None:
    (project.path / "blocked").write_text("a file where the report's folder should be\n")
    result = run(project, "--chunkeval-report=blocked/report.json", "--chunkeval-markdown=summary.md")
    out = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in out and "INTERNALERROR" not in out
    result.stdout.fnmatch_lines(["VERDICT: PASS", f"chunkeval: could not write {project.path}/blocked/report.json: *"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # a run whose report is lost does not pass
    assert "report: " not in out  # it is not said to be where it could not be written
    assert "| fixed_size | " in (project.path / "summary.md").read_text()  # the other outputs are written


def test_a_compared_report_holding_nan_is_a_usage_error_naming_it(project: pytest.Pytester) -> None:
    run(project).assert_outcomes(passed=9, skipped=5)
    report = json.loads((project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    suite = report["suites"]["golden/shop/queries.yaml"]["strategies"]["fixed_size"]
    for outcome in suite["queries"].values():
        outcome["metrics"]["file"] = {m: float("nan") for m in outcome["metrics"]["file"]}
    (project.path / "main.json").write_text(json.dumps(report))  # json writes NaN unless told not to
    result = run(project, "--chunkeval-compare=main.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {project.path}/main.json: cannot read the previous report: it holds NaN*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
