"""Faults a user meets at the plugin's edges: one clear message each, never an INTERNALERROR or a report overwritten."""
from __future__ import annotations

import json

import pytest
from project_files import run, write_strategies


def test_a_bad_ini_number_is_one_usage_error_naming_the_option(project: pytest.Pytester) -> None:
    result = run(project, "-o", "chunkeval_k=abc")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*chunkeval_k must be an integer from 1 to 10,000, got 'abc'*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_a_damaged_accepted_misses_file_stops_its_suite_once_naming_file_and_line(project: pytest.Pytester) -> None:
    record = project.path / "golden" / "shop" / "accepted_misses.yaml"
    record.write_text("model | hybrid | k=10:\n  fixed_size: [password-hash\n  file_level: []\n")
    result = run(project)
    assert result.ret == pytest.ExitCode.INTERRUPTED  # a collection error
    result.stdout.fnmatch_lines(["*accepted_misses.yaml:*: not valid YAML*--chunkeval-accept-misses*"])
    assert result.stdout.str().count("not valid YAML") <= 2  # the error and its summary line, not one per item
    assert "INTERNALERROR" not in result.stdout.str()


def test_another_projects_strategies_folder_never_breaks_a_plain_run(project: pytest.Pytester) -> None:
    (project.path / "strategies" / "trading.py").write_text("raise RuntimeError('needs a broker connection')\n")
    (project.path / "strategies" / "uses_us.py").write_text(
        "import pytest_chunkeval\nraise RuntimeError('half-written strategy')\n"
    )
    project.makepyfile(test_ok="def test_ok():\n    assert True\n")
    plain = project.runpytest("-p", "no:cacheprovider", "test_ok.py")
    plain.assert_outcomes(passed=1)  # other warnings (third-party imports, in-process) depend on test order
    plain.stdout.fnmatch_lines(["*pytest-chunkeval: *uses_us.py: could not import strategy module: RuntimeError: half-written*"])
    assert plain.stdout.str().count("could not import strategy module") == 1  # one warning, for uses_us.py only
    assert "broker" not in plain.stdout.str()  # a module that does not use this package is not imported at all
    evaluating = run(project)
    assert evaluating.ret == pytest.ExitCode.USAGE_ERROR
    evaluating.stderr.fnmatch_lines(["*trading.py: could not import strategy module: RuntimeError: needs a broker*"])


@pytest.mark.slow
def test_an_interrupted_run_leaves_the_last_report_and_writes_a_partial_one_beside_it(project: pytest.Pytester) -> None:
    run(project).assert_outcomes(passed=9, skipped=5)
    report = project.path / ".chunkeval" / "chunkeval-report.json"
    before = report.read_text()
    assert json.loads(before)["complete"] is True
    # A strategy module after the others (modules load in name order): Ctrl-C arrives in the middle of the run. As a
    # SIGINT to the run's process (the module is imported there), as a terminal's Ctrl-C reaches it: a project's
    # strategy chunks in a worker process, where a KeyboardInterrupt of its own is only that file's failure.
    write_strategies(project.path, {"zz_interrupting.py": (
        "import os, signal, time\n\n"
        "from pytest_chunkeval import Strategy, strategy\n\n"
        "RUN = os.getpid()\n\n\n"
        "class Interrupting(Strategy):\n"
        "    name = 'zz_interrupting'\n\n"
        "    def chunk(self, path, text):\n"
        "        os.kill(RUN, signal.SIGINT)\n"
        "        time.sleep(5)\n"
        "        return []\n\n\n"
        "@strategy\n"
        "def zz_interrupting():\n"
        "    return Interrupting()\n"
    )})
    # In a subprocess: an in-process run would hand the KeyboardInterrupt on to this test session. Items in their
    # collected order (pytest-randomly off): the interrupt must come after file_level's items, not before them.
    result = project.runpytest_subprocess("--chunkeval", "-p", "no:cacheprovider", "-p", "no:randomly",
                                          "--chunkeval-no-progress", "--chunkeval-markdown=summary.md")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert report.read_text() == before
    partial = json.loads((project.path / ".chunkeval" / "chunkeval-report.partial.json").read_text())
    assert partial["complete"] is False and "file_level" in partial["suites"]["golden/shop/queries.yaml"]["strategies"]
    assert not (project.path / "summary.md").exists()
    result.stdout.fnmatch_lines(["*the run did not finish: *chunkeval-report.json was left as it was*"])


@pytest.mark.slow
def test_an_evaluation_only_run_with_k_does_not_call_deselected_snapshots_unused(project: pytest.Pytester) -> None:
    project.makepyfile(test_snap="""
        import pytest

        @pytest.mark.parametrize("name", ["fixed_size", "file_level"])
        def test_snap(name, snapshot):
            assert snapshot == name
    """)
    project.runpytest("-p", "no:cacheprovider", "test_snap.py", "--snapshot-update").assert_outcomes(passed=2)
    result = run(project, "test_snap.py", "golden", "-m", "chunkeval", "-k", "fixed_size")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "snapshots unused" not in result.stdout.str()


@pytest.mark.parametrize("model", ["missing-dir/model", "garbage", "some-org/not-downloaded"])
def test_a_model_that_cannot_load_stops_the_run_once_before_any_item(project: pytest.Pytester, model: str) -> None:
    if model == "garbage":
        (project.path / "garbage").mkdir()
        (project.path / "garbage" / "config.json").write_text("{}")
        (project.path / "garbage" / "model.safetensors").write_bytes(b"\x00" * 64)
        model = str(project.path / "garbage")
    result = run(project, f"--chunkeval-model={model}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    out = result.stdout.str() + result.stderr.str()
    assert out.count("--chunkeval-model / ini chunkeval_model:") == 1
    assert len(out.splitlines()) < 20  # one message, not one failure per item
    assert "passed" not in out and "failed" not in out and "INTERNALERROR" not in out
    assert not (project.path / ".chunkeval" / "chunkeval-report.json").exists()


def test_a_damaged_bundled_model_stops_the_run_naming_both_digests(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_chunkeval.core import model_files

    monkeypatch.setitem(model_files.PINNED_SHA256, "tokenizer.json", "0" * 64)
    model_files.verify_pinned.cache_clear()
    try:
        result = run(project)
    finally:
        model_files.verify_pinned.cache_clear()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*tokenizer.json: sha256 * does not match the pinned {'0' * 64}*"])


def test_collect_only_does_not_check_the_model(project: pytest.Pytester) -> None:
    result = run(project, "--collect-only", "-q", "--chunkeval-model=missing-dir/model")
    assert result.ret == pytest.ExitCode.OK


@pytest.mark.slow
def test_under_xdist_the_controller_writes_one_report_equal_to_the_serial_one(project: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    serial = run(project, "--chunkeval-report=serial.json")
    serial.assert_outcomes(passed=9, skipped=5)
    # In a subprocess: xdist's workers are processes anyway, and the controller must not be this test session.
    result = project.runpytest_subprocess("--chunkeval", "-p", "no:cacheprovider", "--chunkeval-no-progress", "-n", "2",
                                          "--chunkeval-report=parallel.json", "--chunkeval-markdown=summary.md")
    result.assert_outcomes(passed=9, skipped=5)
    result.stdout.fnmatch_lines(["*chunkeval summary*", "*report: *parallel.json*"])
    volatile = ("created", "embedding", "machine")
    a = {k: v for k, v in json.loads((project.path / "serial.json").read_text()).items() if k not in volatile}
    b = {k: v for k, v in json.loads((project.path / "parallel.json").read_text()).items() if k not in volatile}
    for suite in (*a["suites"].values(), *b["suites"].values()):
        for s in suite["strategies"].values():  # how this run got its index, not what the index is
            for key in ("reused", "build_seconds", "chunk_seconds", "cached", "embedded", "cost", "chunks_cached"):
                s.get("index", {}).pop(key, None)
    assert a == b
    # In the same order too (ordering.strategy_order, shared by the serial collect and the controller's merge).
    assert [list(x["strategies"]) for x in a["suites"].values()] == [list(x["strategies"]) for x in b["suites"].values()]
    assert (project.path / "summary.md").is_file()
    assert not (project.path / ".chunkeval" / "chunkeval-report.json").exists()  # no worker wrote its own


def test_in_process_runs_one_after_another_each_find_their_state(pytester: pytest.Pytester) -> None:
    """A user's own plugin tests run ``pytester.runpytest("--chunkeval")`` in-process, several times: pytester takes
    the modules each run imported out of sys.modules afterwards, and the next run must not mix the old ones with new
    ones (a stale run_hooks read the state under another run's StashKey: INTERNALERROR on the second run).

    In a child pytest, so that no test of this suite that ran before has imported those modules for good."""
    pytester.makepyfile(test_twice='''
        import numpy  # noqa: F401  (imported for good, as tests/conftest.py does: numpy loads once per process)

        pytest_plugins = ["pytester"]

        def test_twice(pytester):
            pytester.makefile(".py", **{"corpus/a": "def add(a, b):\\n    return a + b\\n"})
            pytester.makefile(".yaml", **{"golden/tiny/queries": (
                "corpus: ../../corpus\\nqueries:\\n  - id: add\\n    query: add two numbers\\n"
                "    relevant:\\n      - path: a.py\\n")})
            for _ in range(2):
                result = pytester.runpytest("--chunkeval", "--collect-only", "-q", "-p", "no:cacheprovider")
                assert result.ret == 0, result.stdout.str() + result.stderr.str()
                result.stdout.fnmatch_lines(["*queries.yaml::*add*"])
        ''')
    pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:xdist").assert_outcomes(passed=1)
