"""pytest-chunkeval as another team meets it: built into a wheel, installed without extras into a new virtualenv
outside this checkout, and used in a new git repository of theirs (tests/team_repo.py: Python and Go, a dozen
commits). A checkout hides what an installed user hits: package data left out of the wheel, an entry point that only
resolves from the source tree, a default that reads this repository's ``strategies/`` or ``golden/``. So every
command of the user's side runs in their repository, with the new virtualenv first on ``PATH`` and an environment
that points nowhere into this checkout (nor at caches this machine has: a fresh ``HOME``).

The journey, each step timed (printed, visible with ``-s``, and in ``steps.log`` under the test's tmp folder):
``chunkeval init`` -> ``pytest --chunkeval -m chunkeval`` (exit 0, the built-in strategies' table, the peers
reported unavailable) -> a commit that narrows the example strategy to Python files -> the same command with
``--chunkeval-base=<the init commit>`` (exit 1, that strategy's ``vs-base`` failing, the Markdown naming the lost
queries). And a plain ``pytest`` with the plugin installed leaves no trace (tests/test_no_traces.py does the same in
this project's own environment). Then the pull-request check in both directions, through the action's Evaluate step
on a copy with the misses recorded (issue 33, item 4): a near-null change of the example strategy's packing limit
(256 -> 250 tokens) is green; the limit halved (256 -> 128) is red because the index grows past the allowed
increase, the queries it moves listed as evidence; narrowing the strategy to Python files, which loses every Go query, is red with the lost
queries named in the step summary.

Minutes (a virtualenv with torch, a cold embedding of the team's code), so it runs only when asked:
``CHUNKEVAL_WHEEL_TEST=1`` (``make test-wheel``, which ``.ci/run`` calls). Torch is installed the Makefile's way, with
its ``TORCH`` and ``TORCH_INDEX`` (read from the environment as make does, else from the Makefile).
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from action_steps import run_action
from hostile_repos import IDENTITY, SETUPS, next_commands, write_repo
from no_traces import Trace, difference, write_scratch_project
from team_repo import git, write_team_repo

ROOT = Path(__file__).resolve().parents[1]
ENABLE = "CHUNKEVAL_WHEEL_TEST"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get(ENABLE) != "1",
                       reason=f"builds the wheel and a virtualenv with torch (minutes): set {ENABLE}=1 "
                              "or run `make test-wheel`"),
]

#: The built-in strategies of a first run (those that answer "which way of chunking"), and the example init writes.
BUILT_IN = ("file_level", "fixed_size", "ast", "function_level")
#: The built-in that needs nothing beyond the wheel's own dependencies but runs on request only.
ON_REQUEST = "ast_context"
EXAMPLE = "blank_lines"
#: The peers (the ``peers`` extra, not installed here): each is reported unavailable with its install line.
PEERS = {"langchain_recursive": "pip install langchain-text-splitters", "astchunk": "pip install astchunk",
         "chonkie_code": "pip install 'chonkie[code]'"}
DOCS_SUITE = "golden/docs/queries.yaml"
#: The example strategy's setting that the pull request changes, before and after.
EVERY_FILE = "    extensions = None\n"
PYTHON_ONLY = '    extensions = (".py",)\n'


def make_setting(name: str) -> str:
    """A Makefile setting as make sees it: the environment's value wins over ``NAME ?= value`` (an empty value
    included: ``TORCH_INDEX=`` turns the extra index off)."""
    if name in os.environ:
        return os.environ[name]
    match = re.search(rf"^{name}\s*\?=\s*(.*)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert match, f"Makefile has no `{name} ?= ...`"
    return match.group(1).strip()


def user_environment(venv: Path, home: Path) -> dict[str, str]:
    """The environment of a user who activated ``venv``: nothing that points into this checkout or this project's
    own virtualenv, no pytest or Python path settings, no git settings of an outer process (a hook's GIT_DIR), none
    of this project's switches, and a fresh ``HOME`` with no model or package caches; pip's own configuration
    (``PIP_*``) stays, since it is the machine's (its package indexes)."""
    ours = [str(ROOT)] + ([sys.prefix] if sys.prefix != sys.base_prefix else [])
    dropped_prefixes = ("PYTEST_", "_PYTEST", "GIT_", "CHUNKEVAL_", "HF_", "TRANSFORMERS_", "SENTENCE_TRANSFORMERS_",
                        "XDG_")
    dropped = {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "VIRTUAL_ENV", "VIRTUAL_ENV_PROMPT",
               "TORCH_HOME", "PWD", "OLDPWD", "HOME", "PATH"}
    env = {k: v for k, v in os.environ.items()
           if k not in dropped and not k.startswith(dropped_prefixes) and not any(p in v for p in ours)}
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and not any(p.startswith(o) for o in ours)]
    env["PATH"] = os.pathsep.join([str(venv / "bin"), *path])
    env["VIRTUAL_ENV"] = str(venv)
    env["HOME"] = str(home)
    return env


@dataclass
class Steps:
    """Runs and times each command; its full output goes to ``logs/NN-step.log``, one line per step to stdout
    and ``steps.log``, so a CI log shows where the minutes went."""

    folder: Path
    times: list[tuple[str, float]] = field(default_factory=list)

    def note(self, name: str, seconds: float, extra: str = "") -> None:
        self.times.append((name, seconds))
        line = f"[installed wheel] {name}: {seconds:.1f} s{extra}"
        print(line, flush=True)
        with (self.folder / "steps.log").open("a") as log:
            log.write(line + "\n")

    def run(self, name: str, cmd: Sequence[str | Path], cwd: Path, env: dict[str, str],
            timeout: float = 1800) -> subprocess.CompletedProcess[str]:
        args = [str(c) for c in cmd]
        start = time.perf_counter()
        proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        seconds = time.perf_counter() - start
        logs = self.folder / "logs"
        logs.mkdir(exist_ok=True)
        slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
        (logs / f"{len(self.times) + 1:02d}-{slug}.log").write_text(
            f"$ {shlex.join(args)}\n(in {cwd}; exit {proc.returncode}; {seconds:.1f} s)\n{proc.stdout}{proc.stderr}")
        self.note(name, seconds, f" (exit {proc.returncode})")
        return proc


def expect(proc: subprocess.CompletedProcess[str], code: int) -> str:
    """The command's stdout and stderr together, once its exit status is ``code``."""
    output = proc.stdout + proc.stderr
    tail = "\n".join(output.splitlines()[-60:])
    assert proc.returncode == code, f"{shlex.join(proc.args)} exited {proc.returncode}, expected {code}:\n{tail}"
    return output


@dataclass(frozen=True)
class Installed:
    """The built wheel installed into a new virtualenv, and the user's environment that uses it."""

    tmp: Path
    wheel: Path
    venv: Path
    env: dict[str, str]
    steps: Steps

    def which(self, command: str) -> str:
        """``command`` as the user's shell finds it: it must be the virtualenv's."""
        found = shutil.which(command, path=self.env["PATH"])
        assert found and Path(found).parent == self.venv / "bin", f"{command} resolves to {found}, not in {self.venv}"
        return found


def shipped_files(root: Path) -> list[str]:
    """What a clean checkout of this commit holds (tracked files and new ones git does not ignore): the wheel is
    built from a copy of exactly those, as CI would build it, and the build writes nothing into this checkout."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                            capture_output=True, text=True, check=True).stdout
    return [rel for rel in listed.split("\0") if rel and (root / rel).is_file()]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    tmp = tmp_path_factory.mktemp("installed-wheel")
    assert ROOT not in tmp.resolve().parents, f"{tmp} is inside the checkout {ROOT}"
    home = tmp / "home"
    home.mkdir()
    venv = tmp / "venv"
    steps = Steps(tmp)
    env = user_environment(venv, home)

    start = time.perf_counter()
    source = tmp / "source"
    for rel in shipped_files(ROOT):
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, source / rel)
    steps.note("copy the checkout's files", time.perf_counter() - start)
    dist = tmp / "dist"
    # Building is this project's side: its own Python and environment (pip isolates the build's dependencies).
    expect(steps.run("build the wheel", [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", dist,
                                         source], cwd=tmp, env=dict(os.environ)), 0)
    (wheel,) = dist.glob("pytest_chunkeval-*.whl")
    left = sorted(p.name for p in source.iterdir() if p.name == "build" or p.name.endswith(".egg-info"))
    assert not left, f"building the wheel left {left} in the source tree"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    tops = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}
    assert tops == {"pytest_chunkeval"}, f"the wheel ships more than the package: {sorted(tops)}"

    expect(steps.run("create the virtualenv", [sys.executable, "-m", "venv", venv], cwd=tmp, env=env), 0)
    python = venv / "bin" / "python"
    expect(steps.run("upgrade pip", [python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"], cwd=tmp,
                     env=env), 0)
    torch_index = make_setting("TORCH_INDEX")
    expect(steps.run("install torch", [python, "-m", "pip", "install", "--quiet", "--no-deps", make_setting("TORCH"),
                                       *(["--extra-index-url", torch_index] if torch_index else [])],
                     cwd=tmp, env=env), 0)
    expect(steps.run("install the wheel", ["pip", "install", "--quiet", wheel], cwd=tmp, env=env), 0)
    done = Installed(tmp, wheel, venv, env, steps)
    yield done
    total = sum(seconds for _, seconds in steps.times)
    print("\n[installed wheel] steps:", *(f"  {s:7.1f} s  {name}" for name, s in steps.times),
          f"  {total:7.1f} s  in all (logs: {tmp / 'logs'})", sep="\n")


@dataclass(frozen=True)
class TeamRepo:
    path: Path
    init_output: str
    init_commit: str  # the commit that holds what `chunkeval init` wrote: the pull request's base

    def evaluate_command(self) -> list[str]:
        """The evaluation command as ``chunkeval init`` printed it under "Next:" (its first command)."""
        after = self.init_output.split("\nNext:\n", 1)[1]
        first = next(line for line in after.splitlines() if line.strip().startswith("chunkeval run"))
        return shlex.split(first.split("#", 1)[0])


@pytest.fixture(scope="module")
def team_repo(installed: Installed) -> TeamRepo:
    """The team's repository, after ``chunkeval init`` and a commit of what it wrote."""
    repo = installed.tmp / "acme-billing"
    start = time.perf_counter()
    write_team_repo(repo, installed.env)
    installed.steps.note("write the team's repository (git history)", time.perf_counter() - start)
    # its suites (33 and 12 queries) are below init's minimum, written on purpose: they evaluate in seconds
    output = expect(installed.steps.run("chunkeval init", [installed.which("chunkeval"), "init", "--min-queries", "1"],
                                        cwd=repo, env=installed.env), 0)
    git(repo, "add", "golden", "strategies", "pyproject.toml", ".github", env=installed.env)
    git(repo, "commit", "--quiet", "-m", "Measure code search with pytest-chunkeval", env=installed.env)
    assert git(repo, "status", "--porcelain", env=installed.env) == "", "init wrote something the next step omits"
    return TeamRepo(repo, output, git(repo, "rev-parse", "HEAD", env=installed.env))


@pytest.fixture(scope="module")
def first_evaluation(installed: Installed, team_repo: TeamRepo) -> tuple[str, dict[str, Any]]:
    """The first evaluation, as init says to run it: its output and its JSON report."""
    cmd = team_repo.evaluate_command()
    proc = installed.steps.run("first evaluation (cold)", [installed.which(cmd[0]), *cmd[1:]], cwd=team_repo.path,
                               env=installed.env)
    output = expect(proc, 0)
    report = json.loads((team_repo.path / ".chunkeval" / "chunkeval-report.json").read_text())
    return output, report


def test_the_package_and_its_commands_come_from_the_new_virtualenv(installed: Installed) -> None:
    repo = installed.tmp / "elsewhere"
    repo.mkdir(exist_ok=True)
    probe = ("import importlib.metadata as m, pytest_chunkeval, json; "
             "print(json.dumps({'file': pytest_chunkeval.__file__, "
             "'plugin': m.entry_points(group='pytest11')['chunkeval'].load().__file__, "
             "'strategies': sorted(e.name for e in m.entry_points(group='pytest_chunkeval.strategies'))}))")
    found = json.loads(expect(installed.steps.run("import the installed package", [installed.which("python"), "-c", probe], cwd=repo,
                                                  env=installed.env), 0))
    for key in ("file", "plugin"):
        path = Path(found[key]).resolve()
        assert installed.venv.resolve() in path.parents and ROOT not in path.parents, (key, path)
    assert set(found["strategies"]) == {*BUILT_IN, ON_REQUEST, *PEERS}
    for command in ("chunkeval", "pytest", "pip"):
        installed.which(command)


def test_chunkeval_init_reports_both_languages_and_the_next_commands(team_repo: TeamRepo) -> None:
    out = team_repo.init_output
    languages = out.split("Languages (", 1)[1].split("Golden suites", 1)[0]
    assert re.search(r"^\s+go\s+\d+\s+yes\s+yes$", languages, re.MULTILINE), languages
    assert re.search(r"^\s+python\s+\d+\s+yes\s+yes$", languages, re.MULTILINE), languages
    assert re.search(r"golden/docs: \d+ queries", out) and re.search(r"golden/history: \d+ queries", out), out
    assert team_repo.evaluate_command() == ["chunkeval", "run"]
    assert "--chunkeval-accept-misses" in out.split("\nNext:\n", 1)[1]
    for written in (DOCS_SUITE, "golden/history/queries.yaml", "strategies/my_strategy.py",
                    ".github/workflows/chunkeval.yml"):
        assert (team_repo.path / written).is_file(), written


def summary_rows(output: str, suite: str) -> dict[str, str]:
    """The rows of a suite's retrieval table in the terminal summary, by strategy."""
    heading = re.search(rf"^{re.escape(suite)} — \d+ files, \d+ queries.*$", output, re.MULTILINE)
    assert heading, f"no summary table for {suite}"
    rows: dict[str, str] = {}
    for line in output[heading.end():].splitlines()[3:]:
        cells = line.split()
        if not cells:
            break
        rows[cells[0]] = line
    return rows


def test_the_first_evaluation_shows_the_builtin_strategies(installed: Installed, team_repo: TeamRepo,
                                                           first_evaluation: tuple[str, dict[str, Any]]) -> None:
    output, report = first_evaluation
    for suite in (DOCS_SUITE, "golden/history/queries.yaml"):
        rows = summary_rows(output, suite)
        for name in (*BUILT_IN, EXAMPLE):
            assert re.match(rf"\s*{name}\s+\d\.\d{{3}} \[", rows.get(name, "")), (suite, name, rows)
        strategies = report["suites"][suite]["strategies"]
        assert not {ON_REQUEST, *PEERS} & set(strategies), sorted(strategies)  # not run: a first table needs none
    # The header says which strategies wait to be asked for, and how.
    assert re.search(rf"chunkeval: run on request, not in this run: {ON_REQUEST}, .*--chunkeval-strategies=all", output)
    assert all(peer in output.split("run on request, not in this run:", 1)[1].splitlines()[0] for peer in PEERS)
    # Their .gitignore does not know the cache folder: it must keep itself out of `git status` (and `git add -A`).
    status = git(team_repo.path, "status", "--porcelain", "--untracked-files=all", env=installed.env).splitlines()
    assert [line for line in status if ".chunkeval" in line] == [], status


def go_queries(repo: Path) -> set[str]:
    """The ids of the docs suite's queries about the Go code."""
    suite = yaml.safe_load((repo / DOCS_SUITE).read_text())
    return {q["id"] for q in suite["queries"] if all(r["path"].endswith(".go") for r in q["relevant"])}


def test_a_pull_request_that_narrows_the_example_strategy_fails_its_vs_base_item(
        installed: Installed, team_repo: TeamRepo, first_evaluation: tuple[str, dict[str, Any]]) -> None:
    _, base_report = first_evaluation
    example = team_repo.path / "strategies" / "my_strategy.py"
    source = example.read_text()
    assert source.count(EVERY_FILE) == 1, "the example strategy's `extensions` setting is not where it was"
    example.write_text(source.replace(EVERY_FILE, PYTHON_ONLY))
    git(team_repo.path, "commit", "--quiet", "-am", "blank_lines: chunk Python files only", env=installed.env)

    cmd = team_repo.evaluate_command()
    proc = installed.steps.run(
        "evaluation against the base commit",
        [installed.which(cmd[0]), *cmd[1:], f"--chunkeval-base={team_repo.init_commit}", "--chunkeval-markdown=pr.md",
         "-rfp"], cwd=team_repo.path, env=installed.env)
    output = expect(proc, 1)
    assert f"FAILED {DOCS_SUITE}::{EXAMPLE}::vs-base" in output
    assert len(re.findall(r"^FAILED ", output, re.MULTILINE)) == 1, "only the example strategy got worse"
    for suite in (DOCS_SUITE, "golden/history/queries.yaml"):
        for name in BUILT_IN:
            assert f"PASSED {suite}::{name}::vs-base" in output, (suite, name)
            assert re.search(rf"^\s*{name}\s.*\bunchanged\s*$", output, re.MULTILINE), (suite, name)

    # Every Go query the strategy found on base is lost, and no other; pr.md names each one.
    hits = base_report["suites"][DOCS_SUITE]["strategies"][EXAMPLE]["queries"]
    go = go_queries(team_repo.path)
    expected = {qid for qid in go if hits[qid]["hit"]}
    assert expected, "blank_lines found none of the Go queries on base: nothing to lose"
    markdown = (team_repo.path / "pr.md").read_text()
    section = markdown.split(f"### What changed on {DOCS_SUITE}", 1)[1].split("\n### ", 1)[0]
    lost = section.split(f"<summary>{EXAMPLE}: ", 1)[1].split("</details>", 1)[0]
    assert f"**Lost** ({len(expected)})" in lost
    named = set(re.findall(r"^- `([^`]+)`", lost, re.MULTILINE))
    assert named == expected, (sorted(named - expected), sorted(expected - named))


def test_plain_pytest_with_the_wheel_installed_leaves_no_trace(installed: Installed) -> None:
    traces: dict[str, Trace] = {}
    pytest_ = installed.which("pytest")
    for label, disable in (("without", ["-p", "no:chunkeval"]), ("with", [])):
        folders = {"project": installed.tmp / "scratch" / label / "project",
                   "home": installed.tmp / "scratch" / label / "home"}
        write_scratch_project(folders["project"])
        folders["home"].mkdir()
        proc = installed.steps.run(f"plain pytest {label} the plugin", [pytest_, "-p", "no:cacheprovider", *disable],
                                   cwd=folders["project"], env={**installed.env, "HOME": str(folders["home"])})
        traces[label] = Trace.of(expect(proc, 0), folders)
    assert any(line.startswith("plugins:") and "chunkeval" in line for line in traces["with"].lines)
    assert difference(traces["with"], traces["without"]) == []


@contextlib.contextmanager
def a_dependency_that_warns(installed: Installed) -> Iterator[None]:
    """LanceDB, which every evaluation imports, warns on import as anyio did in the run a user reported (a
    deprecated alias): under the project's ``filterwarnings = error`` that must not fail the evaluation."""
    site = next((installed.venv / "lib").glob("python3*/site-packages"))
    module = site / "lancedb" / "__init__.py"
    original = module.read_text()
    module.write_text(original + "\nimport warnings as _w\n_w.warn('The lancedb.Old alias is deprecated (a test "
                      "of pytest-chunkeval)', DeprecationWarning, stacklevel=2)\n")
    try:
        yield
    finally:
        module.write_text(original)


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_init_its_commands_and_the_action_evaluate_a_repository_whatever_its_test_setup(
        installed: Installed, setup: str) -> None:
    """Each setup stopped the first run in real repositories (exit 4 before anything was evaluated). The project's
    own package is never installed."""
    repo = installed.tmp / "setups" / setup
    write_repo(repo, setup, installed.env)
    init = expect(installed.steps.run(f"{setup}: chunkeval init",
                                      [installed.which("chunkeval"), "init", "--min-queries", "1"], cwd=repo,
                                      env=installed.env), 0)
    commands = next_commands(init)
    assert [c[:2] for c in commands] == [["chunkeval", "run"], ["chunkeval", "run"]], commands
    git(repo, "add", "-A", env=installed.env)
    git(repo, "commit", "--quiet", "-m", "pytest-chunkeval", env={**installed.env, **IDENTITY})
    warns = a_dependency_that_warns(installed) if setup == "filterwarnings-error" else contextlib.nullcontext()
    with warns:
        for number, cmd in enumerate(commands, 1):
            output = expect(installed.steps.run(f"{setup}: printed command {number}",
                                                [installed.which(cmd[0]), *cmd[1:]], cwd=repo, env=installed.env), 0)
            assert "VERDICT: PASS" in output
        scratch = installed.tmp / "setups" / f"{setup}-action"
        scratch.mkdir()
        # The action's Evaluate step as a runner runs it (with the base compared in one setup: its side is isolated
        # too); a pull_request context with the base named by the input.
        inputs = {"base-ref": "HEAD" if setup == "conftest-imports-absent" else "none"}
        github = {"event_name": "pull_request", "base_ref": "main", "token": "t", "job": "chunkeval", "run_id": "1",
                  "run_attempt": "1"}
        start = time.perf_counter()
        result = run_action(repo, inputs, github, installed.env, scratch, only={"Evaluate"})
        installed.steps.note(f"{setup}: the action's Evaluate step", time.perf_counter() - start)
    evaluate = result.ran["Evaluate"]
    assert evaluate.code == 0 and result.outputs["exit-code"] == "0", (evaluate.stdout + evaluate.stderr)[-4000:]
    assert (repo / "chunkeval-report.md").read_text().strip()
    if inputs["base-ref"] != "none":  # the base side ran, isolated as well, and matched head
        assert re.search(r"::vs-base PASSED|evaluating base HEAD", evaluate.stdout + evaluate.stderr), \
            (evaluate.stdout + evaluate.stderr)[-4000:]
        assert "Head vs base" in (repo / "chunkeval-report.md").read_text()


#: The example strategy's packing limit as init writes it, and the pull requests of the two directions.
PACKING = '    max_chunk_size = "window"\n'  # the model's whole window: 256 tokens for the bundled model
NEAR_NULL_LIMIT = 250  # -2.3 % of the window, in the model's tokens
HALVED_LIMIT = 128


@pytest.fixture(scope="module")
def recorded_repo(installed: Installed, team_repo: TeamRepo, first_evaluation: tuple[str, dict[str, Any]]) -> TeamRepo:
    """The team's repository as it is after init's second "Next:" command: a clone at the init commit (the other
    tests commit on the original) with today's misses recorded (``chunkeval run --chunkeval-accept-misses``) and
    committed, the first evaluation's embedding cache copied in (its LanceDB tables left behind)."""
    repo = installed.tmp / "acme-billing-recorded"
    git(installed.tmp, "clone", "--quiet", str(team_repo.path), str(repo), env=installed.env)
    git(repo, "checkout", "--quiet", "-B", "main", team_repo.init_commit, env=installed.env)
    shutil.copytree(team_repo.path / ".chunkeval", repo / ".chunkeval", ignore=shutil.ignore_patterns("lancedb*"))
    expect(installed.steps.run("record the misses", [installed.which("chunkeval"), "run",
                                                     "--chunkeval-accept-misses"], cwd=repo, env=installed.env), 0)
    git(repo, "add", "golden", env=installed.env)
    git(repo, "commit", "--quiet", "-m", "Record the accepted misses", env={**installed.env, **IDENTITY})
    assert git(repo, "status", "--porcelain", env=installed.env) == "", "the record left something uncommitted"
    return TeamRepo(repo, team_repo.init_output, git(repo, "rev-parse", "HEAD", env=installed.env))


def pull_request(installed: Installed, repo: TeamRepo, name: str, old: str, new: str) -> tuple[Any, dict[str, Any]]:
    """A pull request that replaces ``old`` with ``new`` in the example strategy, evaluated against its base by the
    action's Evaluate step as a pull_request run (only the changed strategy, the baseline always runs); the step's
    result and the JSON report."""
    example = repo.path / "strategies" / "my_strategy.py"
    git(repo.path, "checkout", "--quiet", "--force", "-B", name, repo.init_commit, env=installed.env)
    source = example.read_text()
    assert source.count(old) == 1, f"the example strategy's {old.strip()!r} is not where it was"
    example.write_text(source.replace(old, new))
    git(repo.path, "commit", "--quiet", "-am", f"blank_lines: {new.strip()}", env={**installed.env, **IDENTITY})
    scratch = installed.tmp / f"action-{name}"
    scratch.mkdir()
    inputs = {"base-ref": repo.init_commit, "pytest-args": f"--chunkeval-strategies={EXAMPLE}", "comment": "false"}
    github = {"event_name": "pull_request", "base_ref": "main", "token": "t", "job": "chunkeval", "run_id": "1",
              "run_attempt": "1"}
    start = time.perf_counter()
    result = run_action(repo.path, inputs, github, installed.env, scratch, only={"Evaluate"})
    installed.steps.note(f"pull request {new.strip()}: the action's Evaluate step", time.perf_counter() - start)
    evaluate = result.ran["Evaluate"]
    assert evaluate.code == 0, (evaluate.stdout + evaluate.stderr)[-4000:]
    report = json.loads((repo.path / "chunkeval-report.json").read_text())
    for file in ("chunkeval-report.json", "chunkeval-report.md", "chunkeval-junit.xml"):
        shutil.move(str(repo.path / file), scratch / file)
    return result, report


def packing_pull_request(installed: Installed, repo: TeamRepo, limit: int) -> tuple[Any, dict[str, Any]]:
    """A pull request that sets the example strategy's packing limit to ``limit``."""
    return pull_request(installed, repo, f"pack-{limit}", PACKING, f"    max_chunk_size = {limit}\n")


def lost_and_gained(report: dict[str, Any]) -> dict[str, tuple[set[str], set[str]]]:
    """Per suite, the example strategy's lost and gained query ids against the base."""
    out = {}
    for key, suite in report["suites"].items():
        entry = (suite.get("comparison") or {}).get("strategies", {}).get(EXAMPLE)
        if entry is not None:
            out[key] = ({c["id"] for c in entry["lost"]}, {c["id"] for c in entry["gained"]})
    return out


def test_a_near_null_change_of_the_packing_limit_keeps_the_pull_request_check_green(
        installed: Installed, recorded_repo: TeamRepo) -> None:
    """Moving some queries both ways is what any chunker change does: lost and gained queries are evidence, and a
    change the paired tests (metrics and hits) do not call worse leaves ``exit-code=0``."""
    result, report = packing_pull_request(installed, recorded_repo, NEAR_NULL_LIMIT)
    evaluate = result.ran["Evaluate"]
    moved = {key: (len(lost), len(gained)) for key, (lost, gained) in lost_and_gained(report).items()}
    assert result.outputs["exit-code"] == "0", (report.get("verdict"), moved, evaluate.summary[:3000])
    assert report["verdict"]["passed"], report["verdict"]


def test_a_halved_packing_limit_is_red_for_the_index_it_grows_not_for_the_queries_it_moves(
        installed: Installed, recorded_repo: TeamRepo) -> None:
    """Red means worse, and says why. Half the window (256 -> 128 tokens) makes many more, smaller chunks: the index
    grows past the allowed increase, a deterministic rule, and that is the reason the check gives. The queries it
    moves are listed in the step summary as evidence; they are not failures of their own (no reason names the
    accepted-misses record, and no query item fails)."""
    result, report = packing_pull_request(installed, recorded_repo, HALVED_LIMIT)
    changes = lost_and_gained(report)
    lost = {qid for ids, _ in changes.values() for qid in ids}
    reasons = report["verdict"]["reasons"]
    assert result.outputs["exit-code"] == "1", (report.get("verdict"), changes, result.ran["Evaluate"].summary[:3000])
    assert any(r["title"] == "indexes grew past the allowed increase" for r in reasons), reasons
    assert all(not any(k in r["title"] for k in ("record", "accepted")) for r in reasons), reasons
    named = set(re.findall(r"^- `([^`]+)`", result.ran["Evaluate"].summary, re.MULTILINE))
    assert lost <= named, f"lost queries the step summary does not name: {sorted(lost - named)}"


def test_a_pull_request_that_loses_queries_turns_the_check_red_and_names_them(
        installed: Installed, recorded_repo: TeamRepo) -> None:
    """A change that really loses: the example strategy narrowed to Python files loses every Go query it found on
    base and gains none. The action's Evaluate step gives ``exit-code=1``, the verdict's first reason is the
    regression (the hit test among it), and the step summary names each lost query."""
    result, report = pull_request(installed, recorded_repo, "python-only", EVERY_FILE, PYTHON_ONLY)
    summary = result.ran["Evaluate"].summary
    changes = lost_and_gained(report)
    lost = {qid for ids, _ in changes.values() for qid in ids}
    assert result.outputs["exit-code"] == "1", (report.get("verdict"), changes, summary[:3000])
    reasons = report["verdict"]["reasons"]
    assert reasons[0]["title"] == "regressions against the base", reasons
    assert any("queries lost" in line and "exact McNemar" in line for line in reasons[0]["lines"]), reasons
    assert all(not any(k in r["title"] for k in ("record", "accepted")) for r in reasons), reasons
    named = set(re.findall(r"^- `([^`]+)`", summary, re.MULTILINE))
    assert lost and lost <= named, f"lost queries the step summary does not name: {sorted(lost - named)}"
