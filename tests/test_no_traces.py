"""``pytest`` in a project that has the plugin installed but does not ask for ``--chunkeval``: no file written (in
the project or in ``HOME``) and no line printed beyond pytest's plugin list, compared with the same run under
``-p no:chunkeval``. This environment has other plugins installed (pytest-benchmark, syrupy, hypothesis, ...), so the
comparison is with that run, not with nothing. tests/test_installed_wheel.py repeats the check in a virtualenv that
holds the built wheel alone."""
from __future__ import annotations

from pathlib import Path

import pytest
from no_traces import Trace, difference, write_scratch_project

ROOT = Path(__file__).resolve().parents[1]


def test_plain_pytest_with_the_plugin_installed_leaves_no_trace(pytester: pytest.Pytester,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # This checkout's package, whatever the environment's editable install points at (another worktree's).
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    traces: dict[str, Trace] = {}
    for label, disable in (("without", ["-p", "no:chunkeval"]), ("with", [])):
        folders = {"project": pytester.path / label / "project", "home": pytester.path / label / "home"}
        write_scratch_project(folders["project"])
        folders["home"].mkdir()
        monkeypatch.chdir(folders["project"])
        monkeypatch.setenv("HOME", str(folders["home"]))
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *disable)
        result.assert_outcomes(passed=1)
        traces[label] = Trace.of(result.stdout.str() + result.stderr.str(), folders)
    assert "project/test_trivial.py" in traces["with"].files
    assert any(line.startswith("plugins:") and "chunkeval" in line for line in traces["with"].lines)
    assert difference(traces["with"], traces["without"]) == []
