"""``chunkeval run``: an evaluation that the project's own test setup cannot stop, and warnings from the libraries
an evaluation uses that never fail it (``pytest --chunkeval`` included).

The end-to-end tests run the real model on a two-file corpus in a project whose configuration has everything that
stopped first runs in real repositories at once (tests/hostile_repos.py has each setup on its own, for the installed
wheel's test).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from project_files import SHOP_CORPUS, set_ini, write_strategies, write_suite

from pytest_chunkeval.run.isolation import NEUTRAL_INI, environment, pytest_args, strategy_conftests, user_args
from pytest_chunkeval.settings.project import ProjectConfig, typed

ROOT = Path(__file__).resolve().parents[1]

GOLDEN = """\
    corpus: corpus
    queries:
      - id: password-hash
        query: how is a password hashed with its salt
        relevant:
          - path: auth.py
      - id: order-total
        query: total price of an order after the discount
        relevant:
          - path: orders.py
"""

#: A library an evaluation uses that warns while it works: the project's `filterwarnings = error` must not make
#: that a failure. (Named as a dependency of the strategy; it lives on the strategies' import path.)
NOISY_DEPENDENCY = """\
import warnings


def split(text):
    warnings.warn("split() is deprecated, use split_v2()", DeprecationWarning, stacklevel=2)
    warnings.warn("an old tokenizer table was found", UserWarning, stacklevel=2)
    return [text]
"""

NOISY_STRATEGY = """\
import sys
from pathlib import Path

from pytest_chunkeval import strategy
from pytest_chunkeval.chunking.strategies.fixed_size import fixed_size

sys.path.insert(0, str(Path(__file__).parent / "_vendor"))
import noisy_dependency  # noqa: E402


class Noisy:
    name = "noisy"
    version = "1"
    extensions = None

    def __init__(self):
        self.inner = fixed_size()

    def chunk(self, path, text):
        noisy_dependency.split(text)
        return self.inner.chunk(path, text)


@strategy
def noisy():
    return Noisy()
"""

#: A conftest that defines a strategy: an isolated run imports it, and no other conftest.
STRATEGY_CONFTEST = """\
from pytest_chunkeval import strategy
from pytest_chunkeval.chunking.strategies.fixed_size import fixed_size


@strategy
def from_conftest():
    return fixed_size()
"""


def write_project(root: Path, hostile: bool) -> None:
    """The shop suite, the noisy strategy, and (``hostile``) every test setup that used to stop an evaluation."""
    root.mkdir(parents=True, exist_ok=True)
    write_suite(root / "golden" / "shop", SHOP_CORPUS, GOLDEN)
    name_suites_at(root)
    write_strategies(root, {"noisy.py": NOISY_STRATEGY})
    (root / "strategies" / "_vendor").mkdir()
    (root / "strategies" / "_vendor" / "noisy_dependency.py").write_text(NOISY_DEPENDENCY)
    set_ini(root, "filterwarnings", '["error"]', "error")
    if not hostile:
        return
    set_ini(root, "chunkeval_strategies", '"noisy,from_conftest,fixed_size"', "noisy,from_conftest,fixed_size")
    (root / "golden" / "conftest.py").write_text(STRATEGY_CONFTEST)
    (root / "conftest.py").write_text("import shop_project_under_test  # noqa: F401  (the project: not installed)\n")
    (root / "tests").mkdir()
    (root / "tests" / "conftest.py").write_text("import a_test_dependency_not_installed  # noqa: F401\n")
    (root / "tests" / "test_shop.py").write_text("def test_nothing():\n    assert False\n")
    set_ini(root, "addopts", '"--doctest-modules --cov=shop -n auto -p no:nothing_here"',
            "--doctest-modules --cov=shop -n auto")
    set_ini(root, "xfail_strict", "true", "true")
    set_ini(root, "required_plugins", '["pytest-cov"]', "pytest-cov")
    set_ini(root, "usefixtures", '["fixture_that_does_not_exist"]', "fixture_that_does_not_exist")


def name_suites_at(root: Path) -> None:
    set_ini(root, "chunkeval_golden", '["golden/*/queries.yaml"]', "\n    golden/*/queries.yaml")


def chunkeval_run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``chunkeval run`` as a user types it in ``root``, this checkout's package first on the path."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LANCEDB_LOG": "error", "PYTEST_ADDOPTS": "--cov=shop"}
    return subprocess.run([sys.executable, "-m", "pytest_chunkeval", "run", "-p", "no:cacheprovider",
                           "--chunkeval-no-progress", *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600)


# -- the pieces ------------------------------------------------------------------------------------------------------

def test_only_the_chunkeval_settings_of_the_file_pytest_reads_are_taken(tmp_path: Path) -> None:
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\nchunkeval_k = 7\n")  # shadowed: pyproject comes first
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""\
        [tool.pytest.ini_options]
        addopts = "--cov=x"
        filterwarnings = ["error"]
        chunkeval_golden = ["golden/*/queries.yaml", "more/*.jsonl"]
        chunkeval_k = 5
    """))
    (tmp_path / "sub").mkdir()
    found = ProjectConfig.locate(tmp_path / "sub")
    assert found.root == tmp_path and found.path == tmp_path / "pyproject.toml"
    assert dict(found.settings) == {"chunkeval_golden": ["golden/*/queries.yaml", "more/*.jsonl"], "chunkeval_k": 5}
    assert found.value("chunkeval_k", "int") == 5 and found.value("chunkeval_report", None) is None
    elsewhere = tmp_path / "nothing" / "here"
    elsewhere.mkdir(parents=True)
    (tmp_path / "pyproject.toml").unlink()
    assert ProjectConfig.locate(elsewhere).path == tmp_path / "setup.cfg"
    (tmp_path / "setup.cfg").unlink()
    assert ProjectConfig.locate(elsewhere) == ProjectConfig(elsewhere.resolve())


def test_values_are_typed_as_pytest_types_them(pytester: pytest.Pytester) -> None:
    """pytest's own getini is the oracle: the same file read both ways gives the same values."""
    pytester.makeini("""
        [pytest]
        chunkeval_golden =
            golden/a/queries.yaml
            golden/b/queries.yaml
        chunkeval_k = 12
        chunkeval_gate_ndcg_gain = 0.25
        chunkeval_baseline = fixed_size
    """)
    config = pytester.parseconfig()
    project = ProjectConfig.locate(pytester.path / "tox.ini")
    for key, kind in (("chunkeval_golden", "linelist"), ("chunkeval_k", "int"), ("chunkeval_gate_ndcg_gain", "float"),
                      ("chunkeval_baseline", None)):
        assert project.value(key, kind) == config.getini(key), key
    with pytest.raises(ValueError, match=r": 'twelve'$"):
        typed("twelve", "int")


def test_conftests_that_define_strategies_on_the_way_to_a_suite_are_the_only_ones_imported(tmp_path: Path) -> None:
    for rel, text in {"conftest.py": "from pytest_chunkeval import strategy\n",
                      "golden/conftest.py": "import pytest_chunkeval\n",
                      "golden/shop/conftest.py": "import requests  # the project's tests\n",
                      "tests/conftest.py": "from pytest_chunkeval import strategy\n",  # not on the way
                      "strategies/conftest.py": "import pytest_chunkeval.chunking.contract\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    found = strategy_conftests(tmp_path, [tmp_path / "golden" / "shop", tmp_path / "strategies", Path("/elsewhere")])
    assert found == [tmp_path / "conftest.py", tmp_path / "golden" / "conftest.py",
                     tmp_path / "strategies" / "conftest.py"]


def test_the_command_line_leaves_the_project_configuration_out() -> None:
    project = ProjectConfig(Path("/repo"), Path("/repo/pyproject.toml"))
    args = pytest_args(project, ["-k", "ast", "-n", "2"])
    assert args[:4] == ["-c", str(NEUTRAL_INI), "--rootdir", "/repo"]
    assert "--noconftest" in args and args[5:7] == ["-p", "pytest_chunkeval.plugin"]
    assert args[7:9] == ["-p", "xdist.plugin"]  # asked for with -n: loaded although autoloading is off
    assert "xdist.plugin" not in pytest_args(project, ["-k", "ast"])
    assert user_args(args) == ["-k", "ast", "-n", "2"]
    assert "[pytest]" in NEUTRAL_INI.read_text() and "addopts" not in NEUTRAL_INI.read_text().split("[pytest]")[1]
    env = environment({"PYTEST_ADDOPTS": "--cov", "PYTEST_PLUGINS": "x", "HOME": "/h"})
    assert env == {"HOME": "/h", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


# -- end to end, the real model --------------------------------------------------------------------------------------

@pytest.mark.slow
def test_chunkeval_run_evaluates_where_the_projects_test_setup_stops_pytest(tmp_path: Path) -> None:
    write_project(tmp_path, hostile=True)
    plain = subprocess.run([sys.executable, "-m", "pytest", "--chunkeval", "-m", "chunkeval"], cwd=tmp_path,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=600)
    assert plain.returncode != 0  # what users met: their setup stops pytest before anything is evaluated

    done = chunkeval_run(tmp_path)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    assert "VERDICT: PASS" in out
    report = json.loads((tmp_path / ".chunkeval" / "chunkeval-report.json").read_text())
    strategies = report["suites"]["golden/shop/queries.yaml"]["strategies"]
    # The strategies dir's strategy and the conftest's strategy are there; the baseline always runs.
    assert {"noisy", "from_conftest", "fixed_size", "file_level"} <= set(strategies)
    assert "a_test_dependency_not_installed" not in out and "shop_project_under_test" not in out
    assert "an old tokenizer table was found" in out  # a dependency's UserWarning is shown, not raised

    # The command that records misses is the same command (as init prints it), and it works the same way.
    accepted = chunkeval_run(tmp_path, "--chunkeval-accept-misses")
    assert accepted.returncode == 0, (accepted.stdout + accepted.stderr)[-4000:]
    record = (tmp_path / "golden" / "shop" / "accepted_misses.yaml").read_text()
    assert "# Written by `chunkeval run --chunkeval-accept-misses`;" in record  # the command used, not pytest's


def test_the_header_says_why_the_configfile_is_the_packages_own(tmp_path: Path) -> None:
    """Issue 33: `configfile: .../site-packages/pytest_chunkeval/isolated.ini` with no word of why."""
    write_project(tmp_path, hostile=True)
    done = chunkeval_run(tmp_path, "--collect-only")
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    header = done.stdout.split("collected ", 1)[0].splitlines()
    configfile = next(i for i, line in enumerate(header) if line.startswith("configfile: "))
    assert header[configfile].endswith("pytest_chunkeval/isolated.ini")
    assert header[configfile + 1] == (
        "chunkeval run: configfile isolated.ini on purpose: only the chunkeval_* settings of pyproject.toml are read; "
        "the project's own pytest settings, its conftests (but those that define strategies) and its plugins stay "
        "out (pytest --chunkeval -m chunkeval keeps them)")
    (tmp_path / "pyproject.toml").unlink()  # no configuration at all: nothing of it is read
    bare = chunkeval_run(tmp_path, "--collect-only", "--chunkeval-golden=golden/shop/queries.yaml")
    assert "chunkeval run: configfile isolated.ini on purpose: the project has no pytest configuration file in ., " \
           "so no chunkeval_* setting is read;" in bare.stdout
    # inside the project's own configuration there is nothing to explain
    plain = subprocess.run([sys.executable, "-m", "pytest", "--chunkeval", "--collect-only", "-p", "no:cacheprovider",
                            "--noconftest", "--chunkeval-golden=golden/shop/queries.yaml"], cwd=tmp_path,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=600)
    assert "chunkeval run: configfile" not in plain.stdout + plain.stderr


@pytest.mark.slow
def test_a_conftest_that_defines_strategies_and_cannot_be_imported_is_named(tmp_path: Path) -> None:
    write_project(tmp_path, hostile=True)
    (tmp_path / "golden" / "conftest.py").write_text("import missing_helper\n" + STRATEGY_CONFTEST)
    done = chunkeval_run(tmp_path)
    assert done.returncode == 4
    assert f"{tmp_path / 'golden' / 'conftest.py'}: could not import conftest: ModuleNotFoundError" in done.stderr


@pytest.mark.slow
def test_warnings_of_dependencies_never_fail_pytest_chunkeval_under_filterwarnings_error(
        pytester: pytest.Pytester) -> None:
    """The route inside the project's own configuration: `filterwarnings = error` applies to its tests, not to the
    evaluation's items."""
    write_project(pytester.path, hostile=False)
    result = pytester.runpytest("--chunkeval", "-m", "chunkeval", "-p", "no:cacheprovider", "--chunkeval-no-progress",
                                "-W", "error::UserWarning")
    assert result.ret == 0, result.stdout.str()[-4000:]
    result.stdout.fnmatch_lines(["*an old tokenizer table was found*"])


def test_chunkeval_without_arguments_prints_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_chunkeval.cli import main

    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: chunkeval") and "run " in out and "init " in out
