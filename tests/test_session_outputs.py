"""The outputs of a finished run (session_outputs.py) are one plugin with hooks of its own, registered only where
the outputs are written: a serial run, or pytest-xdist's controller (as pytest's junitxml). No other module calls
into it; a worker has none, so the report, verdict and exit status are decided once."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from project_files import SHOP_CORPUS, SHOP_GOLDEN, name_suites, write_suite

# Each process of the run (the controller, each worker, or the one serial process) writes down, when its session
# starts, whether the outputs plugin is registered and which of its hooks pytest will call on it.
CONFTEST = """
    import json, os

    HOOKS = ("pytest_sessionfinish", "pytest_terminal_summary", "pytest_runtest_logreport")

    def pytest_sessionstart(session):
        manager = session.config.pluginmanager
        outputs = manager.get_plugin("chunkeval-outputs")
        run_hooks = manager.get_plugin("chunkeval-run")
        calls = {hook: sorted(type(impl.plugin).__name__ if impl.plugin is outputs else "other"
                              for impl in getattr(manager.hook, hook).get_hookimpls()
                              if impl.plugin in (outputs, run_hooks) and impl.plugin is not None)
                 for hook in HOOKS}
        role = "worker" if hasattr(session.config, "workerinput") else "main"
        record = {"role": role, "outputs": outputs is not None, "calls": calls}
        with open(os.path.join(str(session.config.rootpath), f"where-{os.getpid()}.json"), "w") as out:
            json.dump(record, out)
"""


def records(root: Path) -> list[dict[str, object]]:
    return sorted((json.loads(p.read_text()) for p in root.glob("where-*.json")), key=lambda r: str(r["role"]))


@pytest.fixture
def shop(pytester: pytest.Pytester) -> pytest.Pytester:
    """The shop suite and one ordinary test, which the runs below select alone (no model is loaded)."""
    name_suites(pytester)
    write_suite(pytester.path / "golden" / "shop", SHOP_CORPUS, SHOP_GOLDEN)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    return pytester


OWN = {"pytest_sessionfinish": ["SessionOutputs", "other"], "pytest_terminal_summary": ["SessionOutputs"],
       "pytest_runtest_logreport": ["SessionOutputs"]}


def test_a_serial_run_registers_the_outputs_plugin_with_its_own_end_of_run_hooks(shop: pytest.Pytester) -> None:
    """run_hooks.py keeps a sessionfinish hook (a worker's, sending its results: "other" here) and no summary."""
    shop.runpytest_subprocess("--chunkeval", "-p", "no:randomly", "-k", "test_plain").assert_outcomes(passed=1)
    assert records(shop.path) == [{"role": "main", "outputs": True, "calls": OWN}]


def test_under_xdist_only_the_controller_has_the_outputs_plugin(shop: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    result = shop.runpytest_subprocess("--chunkeval", "-p", "no:randomly", "-n", "2", "-k", "test_plain")
    result.assert_outcomes(passed=1)
    nothing = {"pytest_sessionfinish": ["other"], "pytest_terminal_summary": [], "pytest_runtest_logreport": []}
    worker = {"role": "worker", "outputs": False, "calls": nothing}
    assert records(shop.path) == [{"role": "main", "outputs": True, "calls": OWN}, worker, worker]


def test_the_outputs_plugin_cannot_be_blocked(shop: pytest.Pytester) -> None:
    """Blocked, it would leave a run with no verdict that exits 0: one usage error says why instead."""
    result = shop.runpytest_subprocess("--chunkeval", "-p", "no:randomly", "-p", "no:chunkeval-outputs")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: -p no:chunkeval-outputs: a --chunkeval run's outputs decide its verdict*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
