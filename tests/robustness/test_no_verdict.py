"""A run whose evaluation items ran but that made no verdict (whatever broke between them and the judging) never
exits 0: a gate that reads the exit status would pass a pull request nothing judged. It says so in one line."""
from __future__ import annotations

import pytest
from project_files import run

from pytest_chunkeval.run.state import RunState


@pytest.mark.slow
def test_items_that_ran_without_a_verdict_fail_the_run(project: pytest.Pytester,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(RunState, "summary", lambda self, run_base=True: None)  # nothing gets judged
    result = run(project, "-p", "no:randomly", "-k", "file_level and not quality")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=2)  # the items themselves passed: the missing verdict alone fails the run
    result.stdout.fnmatch_lines(["chunkeval: 2 evaluation items ran but no verdict was made and no report written; "
                                 "the run fails (exit status 1)"])
    assert "VERDICT" not in result.stdout.str()
    assert not (project.path / ".chunkeval" / "chunkeval-report.json").exists()
